"""Render a validated message spec to Python source: the module's model through the jinja2
templates, the imports its code uses, then black."""

from __future__ import annotations

from pathlib import Path

import black
import jinja2

from .build_module import module_model
from .imports import header_for
from .spec import MessageSpec, snake_case

TEMPLATES = Path(__file__).parent / "templates"
BLACK_MODE = black.Mode(line_length=100, target_versions={black.TargetVersion.PY310})


def module_name(msg: MessageSpec) -> str:
    return snake_case(msg.name)


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
    )
    # A macro's text may end with a newline or not (depending on its last tag); callers print it
    # chomped, on a line of their own, so no blank lines appear inside functions.
    env.filters["chomp"] = lambda text: str(text).rstrip("\n")
    return env


_ENV = None


def environment() -> jinja2.Environment:
    global _ENV
    if _ENV is None:
        _ENV = _environment()
    return _ENV


def render_message(msg: MessageSpec, source: str) -> str:
    """The formatted Python module for one message."""
    model = module_model(msg, source)
    env = environment()
    body = env.get_template("body.j2").render(m=model)
    imports, aliases = header_for(body)
    text = env.get_template("module.j2").render(m=model, imports=imports, aliases=aliases, body=body)
    return format_source(text)


def format_source(text: str) -> str:
    return black.format_str(text, mode=BLACK_MODE)


def render_package_init(package: str, specs: list[MessageSpec], base: str | None = None, title: str | None = None) -> str:
    template = environment().get_template("package_init.j2")
    return format_source(
        template.render(
            package=package,
            specs=specs,
            module_name=module_name,
            base=base,
            title=title,
        )
    )
