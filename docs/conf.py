"""Sphinx configuration: the Markdown pages of docs/ (MyST) and a reference built from the code.

Build with `bash tools/build_docs.sh` (warnings are errors). The generated message classes get
a compact reference of their own (docs/_ext/kmp_messages.py) instead of autodoc.
"""

import re
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here / "_ext"))

import kafka_meta_proto  # noqa: E402  (the installed package, as a user imports it)

project = "kafka_meta_proto"
author = "kafka_meta_proto contributors"
copyright = "the kafka_meta_proto contributors"
release = version = kafka_meta_proto.__version__

# No napoleon: our docstrings are prose with ``literals``, not Google or NumPy sections, and
# napoleon reads an attribute docstring's "words: more words" as a type, which then fails to link.
extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "kmp_messages",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
# The generated message pages are written under reference/messages/ at each build (git-ignored).
exclude_patterns = ["_build"]

# Links such as [x](performance.md#the-compiled-codec) need anchors made from the headings.
myst_heading_anchors = 4

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"members": True, "show-inheritance": True}

# -n checks every cross-reference. Names outside the package (the standard library, pyarrow,
# hypothesis) would need intersphinx, which fetches their inventories over the network at build
# time, and CI reaches only package registries: they are shown as plain names. Private names (``_M``, ``_Taken``) are
# deliberately undocumented.
nitpick_ignore_regex = [
    (r"py:.*", r"(?!kafka_meta_proto\.)\w+(\.\w+)+"),
    (r"py:.*", r"kafka_meta_proto(\.\w+)*\._\w+"),
]

# Type aliases (log.source.Buffer, log.control.MessageClassOf, registries.RegistryLike,
# tools.shell_layout.Tree, server.handlers.Handler, proxy.hooks' RequestHook and ResponseHook) and a class imported for type checkers
# only (kraft.rules' PartitionChangeRecord) appear in signatures under their bare names, which are
# no documented object: shown as plain names.
nitpick_ignore = [
    ("py:class", "Buffer"),
    ("py:class", "RegistryLike"),
    ("py:class", "Tree"),
    ("py:class", "Handler"),
    ("py:class", "MessageClassOf"),
    ("py:class", "PartitionChangeRecord"),
    ("py:class", "RequestHook"),
    ("py:class", "ResponseHook"),
    ("py:class", "Path"),  # pathlib's, as the testing package's signatures name it
    ("py:class", "Interceptor"),
]

html_theme = "alabaster"
html_title = f"kafka_meta_proto {release}"
html_static_path = []
# The ~300 message pages sit in hidden toctrees: listed in every page's sidebar they made each
# page's navigation as long as the whole reference (and the build minutes slower).
# The field tables have six columns: wider than alabaster's default 940px page.
html_theme_options = {
    "sidebar_includehidden": False,
    "page_width": "1240px",
    "body_max_width": "none",
}


_QUOTED = re.compile(r"(:|->)\s*'([^']+)'")


def unquote_annotations(app, what, name, obj, options, signature, return_annotation):
    """A dataclass's ``__init__`` shows a ``default_factory`` as ``<factory>``, which is not
    Python: Sphinx then reads the signature by splitting at commas, cutting ``dict[str, X]`` into
    names that do not link. ``...`` stands for the factory instead; the quotes that annotations
    kept as strings (``from __future__ import annotations``) go too."""
    if signature:
        signature = signature.replace("<factory>", "...")
        signature = _QUOTED.sub(lambda m: f"{m.group(1)} {m.group(2)}", signature)
    if return_annotation:
        return_annotation = return_annotation.strip("'")
    return signature, return_annotation


def setup(app):
    app.connect("autodoc-process-signature", unquote_annotations)
