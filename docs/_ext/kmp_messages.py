"""The reference of the generated message classes: one table per shipped registry and one page per
message, built from the classes themselves.

Autodoc over ~290 generated modules per registry would make one huge, slow page and would parse
each class docstring as reStructuredText. Here every page is made of docutils nodes: the facts
(api key, versions, flexible versions) come from the class attributes, the fields from
``_FIELDS`` and the dataclass fields, the descriptions from the attribute docstrings in the
source. The class docstring is shown verbatim in a literal block, so no docstring format (plain
text, field lists, NumPy or Google) can warn or break the build.

The per-message stub pages are written under ``reference/messages/<registry>/`` when the builder
starts (git-ignored); a stub is rewritten only when its text changes.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import sys
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx import addnodes

from kafka_meta_proto import registries
from kafka_meta_proto.schema_info import OPEN

GENERATED = "reference/messages"
# The order and headings of the registry page's tables: message type -> heading.
KINDS = {
    "metadata": "KRaft metadata records",
    "coordinator-key": "Coordinator records",
    "data": "Data structures",
    "header": "Headers",
}


def doc_name(registry: str, message: str) -> str:
    return f"{GENERATED}/{registry}/{message}"


# --- the stub pages ----------------------------------------------------------------------------


def write_stubs(app) -> None:
    """One stub per message a registry defines itself; stale stubs removed."""
    root = Path(app.srcdir) / GENERATED
    for registry in registries.PACKAGES:
        folder = root / registry
        folder.mkdir(parents=True, exist_ok=True)
        wanted = {}
        for message in registries.named(registry).own_names():
            wanted[f"{message}.rst"] = (
                f"{message}\n{'=' * len(message)}\n\n.. kmp-message:: {registry} {message}\n"
            )
        for old in folder.glob("*.rst"):
            if old.name not in wanted:
                old.unlink()
        for file, text in wanted.items():
            path = folder / file
            if not path.exists() or path.read_text() != text:
                path.write_text(text)


# --- small node helpers --------------------------------------------------------------------------

_LITERAL = re.compile(r"``(.+?)``")


def prose(text: str) -> list[nodes.Node]:
    """Plain text with its ``literals`` shown as code; nothing else is interpreted."""
    out: list[nodes.Node] = []
    pos = 0
    for m in _LITERAL.finditer(text):
        if m.start() > pos:
            out.append(nodes.Text(text[pos : m.start()]))
        out.append(nodes.literal(m.group(1), m.group(1)))
        pos = m.end()
    if pos < len(text):
        out.append(nodes.Text(text[pos:]))
    return out


def cell(content) -> nodes.entry:
    entry = nodes.entry()
    if isinstance(content, nodes.Node):
        content = [content]
    if isinstance(content, list):
        entry += nodes.paragraph("", "", *content)
    else:
        entry += nodes.paragraph("", "", *prose(str(content)))
    return entry


def table(headers: list[str], rows: list[list], widths: list[int] | None = None) -> nodes.table:
    group = nodes.tgroup(cols=len(headers))
    for width in widths or [1] * len(headers):
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    row = nodes.row()
    for h in headers:
        row += cell(h)
    head += row
    group += head
    body = nodes.tbody()
    for values in rows:
        row = nodes.row()
        for value in values:
            row += cell(value)
        body += row
    group += body
    result = nodes.table()
    result += group
    return result


def versions(low: int, high: int) -> str:
    if high >= OPEN:
        return f"{low}+"
    return str(low) if low == high else f"{low}-{high}"


def doc_link(env, target: str, text: str) -> nodes.Node:
    """A link to another page (``:doc:``), resolved and checked by Sphinx."""
    ref = addnodes.pending_xref(
        "",
        refdomain="std",
        reftype="doc",
        reftarget="/" + target,
        refexplicit=True,
        refdoc=env.docname,
    )
    ref += nodes.literal(text, text)
    return ref


def message_versions(cls) -> str:
    text = versions(cls.LOWEST_VERSION, cls.HIGHEST_VERSION)
    if getattr(cls, "LATEST_VERSION_UNSTABLE", False):
        text += " (newest unstable)"
    return text


def flexible(cls) -> str:
    low = cls.LOWEST_FLEXIBLE_VERSION
    return "none" if low is None else f"{low}+"


# --- the registry page -------------------------------------------------------------------------


class RegistryDirective(Directive):
    """``.. kmp-registry:: kafka``: every message the registry defines itself, with its keys."""

    required_arguments = 1

    def run(self):
        env = self.state.document.settings.env
        name = self.arguments[0]
        registry = registries.named(name)
        mine = set(registry.own_names())

        def link(message: str | None):
            if message is None:
                return "-"
            home = name if message in mine else registries.KAFKA
            return doc_link(env, doc_name(home, message), message)

        out: list[nodes.Node] = []
        rpcs = []
        for key in registry.api_keys():
            req = registry.name_of("request", key)
            resp = registry.name_of("response", key)
            if req not in mine and resp not in mine:
                continue
            cls = registry.message_class(req or resp)
            rpcs.append([str(key), link(req), link(resp), message_versions(cls), flexible(cls)])
        if rpcs:
            out.append(nodes.rubric("", "Requests and responses, by api key"))
            out.append(
                table(
                    ["api key", "request", "response", "versions", "flexible"],
                    rpcs,
                    [1, 4, 4, 2, 1],
                )
            )
        for mtype, heading in KINDS.items():
            rows = []
            for message in sorted(mine, key=lambda m: (registry.key_space(m), m)):
                if registry.message_type(message) != mtype:
                    continue
                cls = registry.message_class(message)
                if mtype == "coordinator-key":
                    space = registry.key_space(message)
                    value = registry.coordinator_classes(space, cls.API_KEY)[1].NAME
                    rows.append(
                        [space, str(cls.API_KEY), link(message), link(value), message_versions(cls)]
                    )
                elif mtype == "metadata":
                    space = registry.key_space(message) or "metadata log"
                    rows.append(
                        [
                            space,
                            str(cls.API_KEY),
                            link(message),
                            message_versions(cls),
                            flexible(cls),
                        ]
                    )
                else:
                    rows.append([link(message), message_versions(cls), flexible(cls)])
            if not rows:
                continue
            out.append(nodes.rubric("", heading))
            if mtype == "coordinator-key":
                out.append(
                    table(
                        ["topic", "record type", "key", "value", "versions"], rows, [3, 1, 4, 4, 1]
                    )
                )
            elif mtype == "metadata":
                out.append(
                    table(
                        ["topic", "record type", "record", "versions", "flexible"],
                        rows,
                        [2, 1, 5, 2, 1],
                    )
                )
            else:
                out.append(table(["message", "versions", "flexible"], rows, [6, 2, 1]))
        return out


# --- one message's page ------------------------------------------------------------------------


def describe_default(f: dataclasses.Field) -> str:
    if f.default is not dataclasses.MISSING:
        value = f.default
    elif f.default_factory is not dataclasses.MISSING:
        value = f.default_factory()
    else:
        return "required"
    if dataclasses.is_dataclass(value):
        # a struct's own defaults are in its table
        return f"{type(value).__qualname__}()"
    return repr(value)


_CLASS = re.compile(r"^class (\w+)", re.M)
# A field line of a generated class and the docstring right under it (the generator's layout).
_FIELD_DOC = re.compile(r'^    (\w+): [^\n]*\n    """(.*?)"""', re.M | re.S)


def attribute_docs(module: str) -> dict[tuple[str, str], str]:
    """(class name, field) -> the docstring under the field's line, in a generated module.

    Sphinx's own analyzer (ModuleAnalyzer.find_attr_docs) tokenizes in Python and took most of
    the build's time over ~300 generated modules, and even ``ast.parse`` of the codecs around
    the classes cost seconds: the generator writes one layout, which a pattern reads."""
    text = Path(sys.modules[module].__file__).read_text()
    docs = {}
    starts = [(m.start(), m.group(1)) for m in _CLASS.finditer(text)]
    for (begin, name), (end, _) in zip(starts, starts[1:] + [(len(text), "")]):
        for m in _FIELD_DOC.finditer(text, begin, end):
            docs[(name, m.group(1))] = " ".join(inspect.cleandoc(m.group(2)).split())
    return docs


def docstring(cls) -> list[nodes.Node]:
    """A class docstring's first paragraph verbatim (the generator lists the fields after it,
    which the field table shows): whatever its format, nothing in it is parsed."""
    text = inspect.cleandoc(cls.__doc__ or "").split("\n\n")[0]
    return [nodes.literal_block(text, text, language="text")] if text else []  # prose, not Python


def structs(cls) -> list[type]:
    """The class and every struct class reachable from its fields, in the order first met."""
    seen: list[type] = []
    todo = [cls]
    while todo:
        current = todo.pop(0)
        if current in seen:
            continue
        seen.append(current)
        todo.extend(f.struct for f in current._FIELDS if f.struct is not None)
    return seen


class MessageDirective(Directive):
    """``.. kmp-message:: kafka FetchRequest``: a message's facts, docstring and fields."""

    required_arguments = 2

    def run(self):
        env = self.state.document.settings.env
        name, message = self.arguments
        registry = registries.named(name)
        cls = registry.message_class(message)
        env.note_dependency(__file__)
        out: list[nodes.Node] = []

        facts = [f"class {cls.__module__}.{cls.__qualname__}", f"message type {cls.MESSAGE_TYPE}"]
        if cls.API_KEY is not None:
            word = "api key" if cls.MESSAGE_TYPE in ("request", "response") else "record type"
            space = registry.key_space(message)
            facts.append(f"{word} {cls.API_KEY}" + (f" ({space})" if space else ""))
        facts.append(f"versions {message_versions(cls)}")
        facts.append(f"flexible versions {flexible(cls)}")
        listeners = getattr(cls, "LISTENERS", None)
        if listeners:
            facts.append("listeners " + ", ".join(listeners))
        items = nodes.bullet_list()
        for fact in facts:
            items += nodes.list_item("", nodes.paragraph("", fact))
        out.append(items)

        out.extend(docstring(cls))

        attr_docs = attribute_docs(cls.__module__)
        for struct in structs(cls):
            anchor = nodes.make_id(f"struct-{struct.__qualname__}")
            title = struct.__qualname__ if struct is cls else f"{struct.__qualname__} (struct)"
            rubric = nodes.rubric("", f"Fields of {title}", ids=[anchor])
            self.state.document.note_explicit_target(rubric)
            out.append(rubric)
            if struct is not cls:
                out.extend(docstring(struct))
            defaults = {f.name: f for f in dataclasses.fields(struct)}
            rows = []
            for info in struct._FIELDS:
                kind = info.type
                if info.struct is not None:
                    target = nodes.make_id(f"struct-{info.struct.__qualname__}")
                    kind = [nodes.reference("", info.type, refid=target)]
                notes = []
                if info.nullable:
                    notes.append(f"nullable {versions(*info.nullable)}")
                if info.tagged:
                    notes.append(f"tagged {versions(*info.tagged)}, tag {info.tag}")
                if info.ignorable:
                    notes.append("ignorable")
                described = attr_docs.get((struct.__qualname__, info.name), "")
                default = describe_default(defaults[info.name]) if info.name in defaults else ""
                rows.append(
                    [
                        [nodes.literal(info.name, info.name)],
                        kind,
                        versions(*info.versions),
                        "; ".join(notes),
                        [nodes.literal(default, default)] if default else "",
                        described,
                    ]
                )
            if rows:
                out.append(
                    table(
                        ["field", "type", "versions", "notes", "default", "description"],
                        rows,
                        [3, 3, 1, 3, 2, 6],
                    )
                )
            else:
                out.append(nodes.paragraph("", "No fields."))
        return out


def setup(app):
    app.add_directive("kmp-registry", RegistryDirective)
    app.add_directive("kmp-message", MessageDirective)
    app.connect("builder-inited", write_stubs)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
