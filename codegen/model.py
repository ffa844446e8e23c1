"""The ready-to-print model of one generated module.

Everything the templates print is decided here beforehand: which branches exist (version
conditions folded, null tests dropped where the value cannot be null), the names of the module
constants (each table and Struct once), the paths in error messages. The templates only lay the
model out as Python; the imports are chosen afterwards from the names the printed code uses.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .layout import Wire


# -- Classes -------------------------------------------------------------------------------------


@dataclass
class Attribute:
    """One dataclass field: ``name: annotation = default`` and its docstring."""

    name: str
    annotation: str
    default: str
    doc: str = ""


@dataclass
class ClassDef:
    name: str
    doc: str
    is_message: bool
    class_vars: list[tuple[str, str, str]]  # (name, annotation, value)
    # The message class names its structs (FetchRequest.FetchTopic is FetchTopic): for mypy as
    # type aliases, so that they stay usable as types, and at run time as plain class attributes.
    struct_aliases: list[str]
    attributes: list[Attribute]
    zero_copy: list[str]  # attributes decoded as slices of the input
    # uuid and []uuid fields: the constructor makes Uuids of the text forms and uuid.UUIDs in them
    uuids: list[str] = field(default_factory=list)
    uuid_lists: list[str] = field(default_factory=list)
    # (name, annotation) of every field as the constructor takes it (uuids in their other forms too)
    init_params: list[tuple[str, str]] = field(default_factory=list)


# -- Binary codecs -------------------------------------------------------------------------------


@dataclass
class RunStep:
    """Consecutive fixed-width fields, read and written with one precompiled Struct."""

    path: str  # the first field, for error messages
    struct: str  # the module constant
    width: int
    targets: str  # what unpack_from's result is assigned to
    values: str  # pack's arguments
    uuids: list[str]  # attributes read as raw bytes first (``_raw_<name>``), then wrapped in Uuid
    can_refuse: bool = True  # whether pack can refuse the values (not when all are bools)


@dataclass
class FieldStep:
    """A field that is not part of a Run: its value is read, written and sized on its own."""

    w: Wire
    path: str
    attr: str
    # Writing None: "refuse" (EncodeError), "write" (the null marker below), or "" when the value
    # cannot be None there (inside a tagged field's "differs from a null default" test).
    on_null: str = ""
    null_bytes: str = ""  # the null marker's bytes literal
    null_size: int = 0
    unpack_array: str = ""  # Struct table for reading a short array of fixed-width elements
    pack_array: str = ""  # the same for writing (with its length prefix)
    # Tagged fields only:
    tag: int | None = None
    written_if: str = ""  # the test that the value differs from the default (then it is written)
    part: str = ""  # the whole encoded value as one expression, when it is one part
    size: int = 0  # the whole tagged field's size (tag, length and value) when it is constant
    tag_size: int = 0  # bytes of the tag's uvarint


@dataclass
class Codec:
    """The reader, writer and sizer of one wire layout of a struct (versions with the same layout
    share one): ``_read_X`` etc. for single objects, ``_readn_X`` etc. for arrays of them."""

    suffix: str
    cls: str
    single: bool
    many: bool
    flexible: bool
    steps: list  # RunStep | FieldStep, in wire order
    tagged: list[FieldStep]  # by tag
    absent: list[tuple[str, str]]  # (test of a non-default value, attribute) of fields this layout lacks
    tag_defaults: list[list[str]]  # statements storing the tagged fields' defaults, before they are read
    absent_defaults: list[list[str]]  # statements storing the defaults of the fields this layout lacks
    first_path: str  # ``_f`` at the start of a single-object reader
    can_fail: bool  # whether reading can raise at all (a layout with no fields cannot)
    nested: str  # ", nested=True" where a DecodeError may carry the index of an array element
    retry: str  # ``, buf, _R<n>`` (the arguments that let low_level_error re-read fixed arrays)
    fixed_size: int  # bytes every object takes whatever its values (runs and the tag count byte)
    known_tag_count: str  # `` + (1 if <test> else 0)`` per tagged field, for the tag count's size


# -- The module ----------------------------------------------------------------------------------


@dataclass
class StructCode:
    """Everything generated for one struct, in printing order."""

    codecs: list[Codec]


@dataclass
class Module:
    source: str
    doc: str
    names: list[str]  # __all__
    classes: list[ClassDef]
    constants: list[tuple[str, str]]  # (name, value): empty structs, Structs, array Structs, retry tables
    structs: list[StructCode]
    field_infos: list[tuple[str, list[str]]]  # (class, FieldInfo(...) expressions)
    message: str
    tables: list[tuple[str, str]] = field(default_factory=list)  # (attribute, value)
    small_array: int = 0  # arrays shorter than this use the precompiled Structs
