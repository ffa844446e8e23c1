"""The package's optional extras, and the one-line error naming the one that is missing.

A feature that needs a third-party module imports it when first used; when the import fails,
``missing_extra`` turns the error into one line saying what to install (the command line prints
the same line for a subcommand whose module is missing).
"""

from __future__ import annotations

# Third-party modules and the extra of the package (pyproject.toml) that installs each.
EXTRAS = {
    "cramjam": "log", "crc32c": "log", "lz4": "log", "zstandard": "log",
    "pyspark": "spark", "pyarrow": "spark", "pandas": "spark", "py4j": "spark",
    "jinja2": "codegen", "black": "codegen",
    "hypothesis": "strategies",
}  # fmt: skip


class MissingExtraError(ModuleNotFoundError):
    """A module of an extra is not installed; the message names the extra (``name``: the module)."""


def missing_extra(what: str, error: ModuleNotFoundError) -> ModuleNotFoundError:
    """``error`` as one line saying that ``what`` needs the module and which extra installs it;
    ``error`` itself when the missing module is none of an extra's."""
    module = (error.name or "").split(".")[0]
    extra = EXTRAS.get(module)
    if extra is None:
        return error
    return MissingExtraError(
        f"{what} needs the {module!r} module of the {extra!r} extra: "
        f"pip install 'kafka-meta-proto[{extra}]'",
        name=module,
    )
