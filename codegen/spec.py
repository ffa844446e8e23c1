"""The validated spec model: Kafka's JSON schema format read into typed objects.

Every rule a schema breaks is reported as a ``SchemaError`` naming the file, the field (as a path
such as ``Topics.Partitions.LeaderEpoch``) and the rule, so a schema author can fix it at once.
The rules are Kafka's own (its generator's FieldSpec, StructSpec and MessageSpec), plus a few that
catch typos Kafka would silently ignore (unknown keys).
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass, field
from pathlib import Path

from . import jsonc
from .defaults import EMPTY_STRUCT, parse_default
from .versions import MAX_VERSION, NONE, Versions

MESSAGE_TYPES = ("request", "response", "header", "metadata", "data", "coordinator-key", "coordinator-value")
# Types whose apiKey names them: an api key, a metadata record type or a coordinator record type.
KEYED_TYPES = ("request", "response", "metadata", "coordinator-key", "coordinator-value")
# Record key spaces besides KRaft's. Kafka numbers the records of each of these from 0 again, so a
# schema in a folder of this name is keyed within that folder's space, not against KRaft records.
KEY_SCOPES = ("storage", "group-coordinator", "transaction-coordinator", "share-coordinator")
LISTENERS = ("zkBroker", "broker", "controller")

# Fixed-width types: struct format character and size in bytes.
FIXED_WIDTH = {
    "bool": ("?", 1),
    "int8": ("b", 1),
    "int16": ("h", 2),
    "uint16": ("H", 2),
    "int32": ("i", 4),
    "uint32": ("I", 4),
    "int64": ("q", 8),
    "float64": ("d", 8),
    "uuid": ("16s", 16),
}
from kafka_meta_proto.message import Message
PRIMITIVES = frozenset(FIXED_WIDTH) | {"string", "bytes", "records"}
NULLABLE_PRIMITIVES = frozenset({"string", "bytes", "records"})
ENTITY_TYPES = {
    "unknown": None,
    "transactionalId": "string",
    "producerId": "int64",
    "groupId": "string",
    "topicName": "string",
    "brokerId": "int32",
}
FIELD_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*\Z")
# Names the generated modules use themselves; a struct may not take them. NAME and LISTENERS
# are class attributes of every message, where each of its structs is an attribute too.
RESERVED_NAMES = {"Uuid", "ClassVar", "TypeAlias", "DecodeError", "EncodeError", "UnsupportedVersionError",
                  "NAME", "LISTENERS"}  # fmt: skip
# Attributes a field's Python name may not replace: the methods of every message (encode, size,
# to_json...) on the message's own fields, and the attribute every generated class has.
MESSAGE_ATTRIBUTES = frozenset(name for name in dir(Message) if not name.startswith("_"))
CLASS_ATTRIBUTES = frozenset({"unknown_tagged_fields"})
STRUCT_NAME = re.compile(r"[A-Z][A-Za-z0-9]*\Z")

MESSAGE_KEYS = {
    "apiKey", "type", "name", "validVersions", "deprecatedVersions", "flexibleVersions",
    "latestVersionUnstable", "listeners", "commonStructs", "fields", "headerVersions",
}  # fmt: skip
FIELD_KEYS = {
    "name", "type", "versions", "nullableVersions", "taggedVersions", "tag", "default",
    "ignorable", "mapKey", "entityType", "zeroCopy", "about", "fields", "flexibleVersions",
}  # fmt: skip
STRUCT_KEYS = {"name", "versions", "deprecatedVersions", "fields", "about"}


class SchemaError(Exception):
    """A schema that breaks a rule of Kafka's format."""

    def __init__(self, file, field_path: str, rule: str, detail: str):
        self.file = str(file)
        self.field = field_path
        self.rule = rule
        self.detail = detail
        where = f"field {field_path}" if field_path else "message"
        super().__init__(f"{self.file}: {where}: {rule}: {detail}")


@dataclass(frozen=True)
class FieldType:
    """``int32``, ``string``, ``[]int32``, ``[]Topic``, ``Topic``..."""

    name: str

    @property
    def is_array(self) -> bool:
        return self.name.startswith("[]")

    @property
    def element(self) -> FieldType:
        return FieldType(self.name[2:])

    @property
    def is_struct(self) -> bool:
        return not self.is_array and self.name not in PRIMITIVES

    @property
    def is_struct_array(self) -> bool:
        return self.is_array and self.element.is_struct

    @property
    def is_fixed(self) -> bool:
        return self.name in FIXED_WIDTH

    @property
    def can_be_nullable(self) -> bool:
        return self.is_array or self.is_struct or self.name in NULLABLE_PRIMITIVES

    @property
    def struct_name(self) -> str | None:
        if self.is_struct:
            return self.name
        if self.is_struct_array:
            return self.element.name
        return None

    def __str__(self) -> str:
        return self.name


@dataclass
class FieldSpec:
    name: str
    type: FieldType
    versions: Versions
    nullable_versions: Versions = NONE
    tagged_versions: Versions = NONE
    tag: int | None = None
    default: object = None  # the parsed Python default (see parse_default)
    default_text: str = ""
    ignorable: bool = False
    map_key: bool = False
    entity_type: str = "unknown"
    zero_copy: bool = False
    about: str = ""
    flexible_versions: Versions | None = None  # field-level override (string/bytes only)
    struct: StructSpec | None = None  # for struct and struct-array fields
    py_name: str = ""
    json_name: str = ""

    def present(self, version: int) -> bool:
        return version in self.versions

    def nullable(self, version: int) -> bool:
        return version in self.nullable_versions

    def tagged(self, version: int) -> bool:
        return version in self.tagged_versions


@dataclass
class StructSpec:
    name: str
    versions: Versions
    fields: list[FieldSpec]
    is_common: bool = False
    about: str = ""


@dataclass
class MessageSpec:
    name: str
    type: str
    api_key: int | None
    valid_versions: Versions
    flexible_versions: Versions
    deprecated_versions: Versions
    listeners: tuple[str, ...]
    latest_version_unstable: bool
    struct: StructSpec
    structs: dict[str, StructSpec] = field(default_factory=dict)  # every struct, parents first
    file: str = ""
    scope: str = ""  # the key space of the apiKey: "" (Kafka's RPCs and KRaft) or one of KEY_SCOPES

    def flexible(self, version: int) -> bool:
        return version in self.flexible_versions

    @property
    def versions(self) -> range:
        return range(self.valid_versions.lowest, self.valid_versions.highest + 1)


def snake_case(name: str) -> str:
    """Kafka's rule: an underscore before each capital that follows a non-capital, then lower case.
    ``ThrottleTimeMs`` -> ``throttle_time_ms``, ``IsKRaftController`` -> ``is_kraft_controller``."""
    out = []
    prev_capital = True
    for c in name:
        if c.isupper():
            if not prev_capital:
                out.append("_")
            out.append(c.lower())
            prev_capital = True
        else:
            out.append(c)
            prev_capital = False
    s = "".join(out)
    return s + "_" if keyword.iskeyword(s) or s in ("self", "cls") else s


def json_name(name: str) -> str:
    """Kafka's JSON form lowers the first letter: ``ThrottleTimeMs`` -> ``throttleTimeMs``."""
    return name[:1].lower() + name[1:]


class _Reader:
    """Builds the spec of one file; ``error`` raises with the file and current field path."""

    def __init__(self, file):
        self.file = file

    def error(self, path: str, rule: str, detail: str):
        raise SchemaError(self.file, path, rule, detail)

    def versions(self, path: str, key: str, value, absent: Versions | None = None) -> Versions:
        if value == "" and absent is not None:
            return absent  # Kafka reads an empty range as "not given"
        try:
            return Versions.parse(value)
        except ValueError as e:
            self.error(path, f"invalid {key}", str(e))

    def unknown_keys(self, path: str, obj: dict, allowed: set[str]) -> None:
        extra = sorted(set(obj) - allowed)
        if extra:
            self.error(path, "unknown key", f"{', '.join(extra)} (allowed: {', '.join(sorted(allowed))})")

    # -- messages -------------------------------------------------------------------------
    def message(self, obj) -> MessageSpec:
        if not isinstance(obj, dict):
            self.error("", "not an object", "a schema file holds one JSON object")
        self.unknown_keys("", obj, MESSAGE_KEYS)
        name = obj.get("name")
        if not isinstance(name, str) or not STRUCT_NAME.match(name):
            self.error("", "invalid name", f"message name {name!r} must be CamelCase")
        mtype = obj.get("type")
        if mtype not in MESSAGE_TYPES:
            self.error("", "invalid type", f"message type {mtype!r} is not one of {', '.join(MESSAGE_TYPES)}")
        api_key = self.api_key(obj, mtype)
        valid, deprecated, flexible = self.message_versions(obj)
        listeners = obj.get("listeners") or []
        if not isinstance(listeners, list) or any(x not in LISTENERS for x in listeners):
            self.error("", "invalid listeners", f"{listeners!r}: each must be one of {', '.join(LISTENERS)}")
        if listeners and mtype != "request":
            self.error("", "listeners on a non-request", "only requests say which listeners accept them")
        unstable = obj.get("latestVersionUnstable", False)
        if not isinstance(unstable, bool):
            self.error("", "invalid latestVersionUnstable", f"{unstable!r} must be true or false")
        if unstable and mtype != "request":
            self.error("", "latestVersionUnstable on a non-request", "only requests can mark their newest version unstable")
        root = self.message_structs(obj, name, valid, flexible)
        return MessageSpec(
            name=name, type=mtype, api_key=api_key, valid_versions=valid, flexible_versions=flexible,
            deprecated_versions=deprecated, listeners=tuple(listeners),
            latest_version_unstable=unstable, struct=root, structs=self.structs, file=str(self.file),
        )  # fmt: skip

    def api_key(self, obj: dict, mtype: str) -> int | None:
        api_key = obj.get("apiKey")
        if api_key is not None:
            if isinstance(api_key, str) and api_key.strip().lstrip("-").isdigit():
                api_key = int(api_key)
            if not isinstance(api_key, int) or isinstance(api_key, bool) or not 0 <= api_key <= 0x7FFF:
                self.error("", "invalid apiKey", f"apiKey {obj.get('apiKey')!r} must be an int16 >= 0")
        elif mtype in KEYED_TYPES:
            self.error("", "missing apiKey", f"a {mtype} schema needs an apiKey")
        return api_key

    def message_versions(self, obj: dict) -> tuple[Versions, Versions, Versions]:
        """(validVersions, deprecatedVersions, flexibleVersions)."""
        if "validVersions" not in obj:
            self.error("", "missing validVersions", "every message needs validVersions")
        valid = self.versions("", "validVersions", obj["validVersions"])
        if not valid.empty and valid.open_ended:
            self.error("", "validVersions not bounded", f"{valid} has no highest version; give one, as in 0-3")
        deprecated = self.versions("", "deprecatedVersions", obj.get("deprecatedVersions", "none"), NONE)
        if valid.empty:
            return valid, deprecated, NONE
        if "flexibleVersions" not in obj:
            self.error("", "missing flexibleVersions", "use \"0+\" for new messages, \"none\" for none")
        flexible = self.versions("", "flexibleVersions", obj["flexibleVersions"])
        if not flexible.empty and not flexible.open_ended:
            self.error("", "flexibleVersions not open-ended", f"{flexible} must be none or N+")
        return valid, deprecated, flexible

    def message_structs(self, obj: dict, name: str, valid: Versions, flexible: Versions) -> StructSpec:
        """The message's own struct; every struct it holds goes into self.structs, parents first."""
        commons: dict[str, StructSpec] = {}
        for c in obj.get("commonStructs") or []:
            spec = self.struct_decl(c, is_common=True)
            if spec.name in commons:
                self.error(spec.name, "duplicate struct", f"common struct {spec.name} is defined twice")
            commons[spec.name] = spec
        self.commons = commons
        self.structs: dict[str, StructSpec] = {}
        fields = self.fields(name, obj.get("fields"), valid, flexible, "")
        for f in fields:
            if f.map_key:
                self.error(f.name, "mapKey on a top-level field", "only fields of structs inside arrays can be map keys")
        root = StructSpec(name, valid, fields)
        for c in obj.get("commonStructs") or []:  # now that all names are known, resolve bodies
            spec = commons[c["name"]]
            spec.fields = self.fields(spec.name, c.get("fields"), spec.versions, flexible, spec.name + ".")
        unused = set(commons) - set(self.structs)
        for cname in sorted(commons):
            if cname in unused:
                self.structs[cname] = commons[cname]
        for s in self.structs.values():
            if s.name == name:
                self.error(s.name, "duplicate struct", f"struct {s.name} has the message's own name")
        return root

    def struct_decl(self, obj, is_common: bool) -> StructSpec:
        if not isinstance(obj, dict):
            self.error("", "invalid commonStructs", "each common struct is an object")
        self.unknown_keys(str(obj.get("name", "?")), obj, STRUCT_KEYS)
        name = obj.get("name")
        if not isinstance(name, str) or not STRUCT_NAME.match(name):
            self.error(str(name), "invalid struct name", f"{name!r} must be CamelCase")
        if name in RESERVED_NAMES:
            self.error(name, "reserved struct name", f"{name} is a name the generated code uses")
        if "versions" not in obj:
            self.error(name, "missing versions", f"common struct {name} needs versions")
        versions = self.versions(name, "versions", obj["versions"])
        return StructSpec(name, versions, [], is_common=is_common, about=obj.get("about", ""))

    # -- fields ---------------------------------------------------------------------------
    def fields(self, owner: str, items, struct_versions: Versions, flexible: Versions, prefix: str):
        if items is None:
            items = []
        if not isinstance(items, list):
            self.error(prefix.rstrip("."), "invalid fields", "fields must be a list")
        result: list[FieldSpec] = []
        names: dict[str, str] = {}
        py_names: dict[str, str] = {}
        tags: dict[int, str] = {}
        for item in items:
            f = self.field(item, flexible, prefix)
            path = prefix + f.name
            if f.name in names:
                self.error(path, "duplicate field name", f"{owner} has two fields named {f.name}")
            names[f.name] = f.name
            if f.py_name in py_names:
                self.error(path, "duplicate Python name", f"{f.name} and {py_names[f.py_name]} both map to {f.py_name}")
            if f.py_name in CLASS_ATTRIBUTES or (not prefix and f.py_name in MESSAGE_ATTRIBUTES):
                what = "an attribute of every generated class" if f.py_name in CLASS_ATTRIBUTES else "a Message method"
                self.error(path, "reserved field name", f"{f.name} becomes {f.py_name}, {what}")
            py_names[f.py_name] = f.name
            if f.tag is not None:
                if f.tag in tags:
                    self.error(path, "duplicate tag", f"tag {f.tag} is used by {tags[f.tag]} and {f.name} in {owner}")
                tags[f.tag] = f.name
            result.append(f)
        for i in range(len(tags)):
            if i not in tags:
                self.error(prefix + result[-1].name if result else owner, "tags not contiguous",
                           f"{owner} uses tags {sorted(tags)}; tags start at 0 with no gaps (tag {i} is unused)")  # fmt: skip
        return result

    def field(self, obj, flexible: Versions, prefix: str) -> FieldSpec:
        if not isinstance(obj, dict):
            self.error(prefix.rstrip("."), "invalid field", "each field is an object")
        name = obj.get("name")
        path = prefix + str(name)
        if not isinstance(name, str) or not FIELD_NAME.match(name):
            self.error(path, "invalid field name", f"{name!r} must be letters and digits, starting with a letter")
        self.unknown_keys(path, obj, FIELD_KEYS)
        tagged = self.versions(path, "taggedVersions", obj.get("taggedVersions", "none"), NONE)
        if "versions" in obj:
            versions = self.versions(path, "versions", obj["versions"])
        elif not tagged.empty:
            versions = tagged  # Kafka: versions default to taggedVersions
        else:
            self.error(path, "missing versions", f"field {name} must say which versions have it")
        ftype = self.field_type(path, obj)
        nullable = self.versions(path, "nullableVersions", obj.get("nullableVersions", "none"), NONE)
        if not nullable.empty and not ftype.can_be_nullable:
            self.error(path, "type cannot be nullable", f"{ftype} fields cannot have nullableVersions; only string, bytes, records, arrays and structs can")
        sub = obj.get("fields")
        if sub and not (ftype.is_array or ftype.is_struct):
            self.error(path, "fields on a non-struct", f"{ftype} field {name} cannot have fields")
        flex_override = self.flexible_override(path, obj, ftype, flexible)
        tag = self.tag(path, obj)
        map_key = self.flag(path, obj, "mapKey")
        ignorable = self.flag(path, obj, "ignorable")
        zero_copy = self.flag(path, obj, "zeroCopy")
        spec = FieldSpec(
            name=name, type=ftype, versions=versions, nullable_versions=nullable, tagged_versions=tagged,
            tag=tag, ignorable=ignorable, map_key=map_key, zero_copy=zero_copy, flexible_versions=flex_override,
            py_name=snake_case(name), json_name=json_name(name),
        )  # fmt: skip
        self.check_tagging(path, spec, flexible if flex_override is None else flex_override)
        if zero_copy and ftype.name != "bytes":
            self.error(path, "zeroCopy on a non-bytes field", f"{ftype} fields cannot be zeroCopy")
        spec.entity_type = self.entity_type(path, obj, ftype)
        spec.about = self.about(path, obj)
        spec.default_text = self.default_text(path, obj)
        spec.default = parse_default(spec, spec.default_text, lambda rule, why: self.error(path, rule, why))
        sname = ftype.struct_name
        self.current_about = spec.about
        if sname is not None:
            spec.struct = self.struct_for(path, sname, sub, versions, flexible)
        return spec

    def field_type(self, path: str, obj: dict) -> FieldType:
        tname = obj.get("type")
        if not isinstance(tname, str) or not tname:
            self.error(path, "missing type", f"field {obj.get('name')} needs a type")
        ftype = FieldType(tname.strip())
        base = ftype.element if ftype.is_array else ftype
        if base.is_array:
            self.error(path, "invalid type", f"{ftype}: arrays of arrays are not supported")
        if base.is_struct and not STRUCT_NAME.match(base.name):
            self.error(path, "unknown type", f"{ftype} is neither a primitive type nor a struct name")
        return ftype

    def flexible_override(self, path: str, obj: dict, ftype: FieldType, flexible: Versions) -> Versions | None:
        """A string or bytes field's own flexibleVersions, inside the message's (None if not given)."""
        fv = obj.get("flexibleVersions")
        if fv in (None, ""):
            return None
        override = self.versions(path, "flexibleVersions", fv)
        if ftype.name not in ("string", "bytes"):
            self.error(path, "flexibleVersions override on a non-string", "only string and bytes fields can override flexibleVersions")
        if not flexible.contains_range(override):
            self.error(path, "field flexibleVersions outside the message's",
                       f"{override} must lie inside the message's flexibleVersions {flexible}")  # fmt: skip
        return override

    def tag(self, path: str, obj: dict) -> int | None:
        tag = obj.get("tag")
        if tag is not None:
            if isinstance(tag, str) and tag.strip().lstrip("-").isdigit():
                tag = int(tag)
            if not isinstance(tag, int) or isinstance(tag, bool):
                self.error(path, "invalid tag", f"tag {obj.get('tag')!r} must be an integer")
        return tag

    def check_tagging(self, path: str, f: FieldSpec, field_flexible: Versions) -> None:
        """A tag goes with open-ended taggedVersions inside the field's versions and flexible ones."""
        tag, tagged, nullable = f.tag, f.tagged_versions, f.nullable_versions
        if tag is None:
            if not tagged.empty:
                self.error(path, "taggedVersions without tag", f"taggedVersions {tagged} given but no tag")
            return
        if f.map_key:
            self.error(path, "tagged map key", "a tagged field cannot be a mapKey")
        if tag < 0:
            self.error(path, "negative tag", f"tag {tag} must be >= 0")
        if tagged.empty:
            self.error(path, "tag without taggedVersions", f"tag {tag} needs taggedVersions too")
        both = nullable.intersect(tagged)
        if not (both.empty or both == tagged):
            self.error(path, "tagged nullability mixed", f"nullableVersions {nullable} must cover all or none of taggedVersions {tagged}")
        if not tagged.open_ended:
            self.error(path, "taggedVersions not open-ended", f"taggedVersions {tagged} must be N+")
        if tagged.intersect(f.versions) != tagged:
            self.error(path, "taggedVersions outside versions", f"taggedVersions {tagged} must lie inside versions {f.versions}")
        if not field_flexible.contains_range(tagged):
            self.error(path, "taggedVersions outside flexibleVersions", f"taggedVersions {tagged} must lie inside the flexibleVersions {field_flexible}")
        if f.type.name == "records":
            self.error(path, "tagged records field", "a records field cannot be tagged")

    def entity_type(self, path: str, obj: dict, ftype: FieldType) -> str:
        entity = obj.get("entityType", "unknown")
        if entity not in ENTITY_TYPES:
            self.error(path, "unknown entityType", f"{entity!r} is not one of {', '.join(ENTITY_TYPES)}")
        want = ENTITY_TYPES[entity]
        base = ftype.element if ftype.is_array else ftype
        if want is not None and base.name != want:
            self.error(path, "entityType does not match type", f"entityType {entity} needs {want}, the field is {ftype}")
        return entity

    def about(self, path: str, obj: dict) -> str:
        about = obj.get("about", "")
        if not isinstance(about, str):
            self.error(path, "invalid about", "about must be a string")
        return about

    def default_text(self, path: str, obj: dict) -> str:
        raw_default = obj.get("default", "")
        if raw_default is None:
            raw_default = ""  # Kafka reads a JSON null default as no default
        if isinstance(raw_default, bool):
            raw_default = "true" if raw_default else "false"
        elif isinstance(raw_default, (int, float)):
            raw_default = str(raw_default)
        if not isinstance(raw_default, str):
            self.error(path, "invalid default", f"{raw_default!r} must be a string")
        return raw_default

    def flag(self, path: str, obj: dict, key: str) -> bool:
        value = obj.get(key, False)
        if isinstance(value, str) and value in ("true", "false"):
            value = value == "true"
        if not isinstance(value, bool):
            self.error(path, f"invalid {key}", f"{key} must be true or false, got {value!r}")
        return value

    def struct_for(self, path: str, sname: str, sub, versions: Versions, flexible: Versions) -> StructSpec:
        if sub:
            if sname in RESERVED_NAMES:
                self.error(path, "reserved struct name", f"{sname} is a name the generated code uses")
            if sname in self.structs or sname in self.commons:
                self.error(path, "duplicate struct", f"struct {sname} is defined more than once")
            spec = StructSpec(sname, versions, [])
            spec.about = self.current_about
            self.structs[sname] = spec  # parents before children
            spec.fields = self.fields(sname, sub, versions, flexible, path + ".")
            return spec
        if sname in self.commons:
            self.structs.setdefault(sname, self.commons[sname])
            return self.commons[sname]
        self.error(path, "unknown struct type", f"{sname} has no fields here and is not a common struct")


def load_message(path) -> MessageSpec:
    """Read and validate one schema file."""
    reader = _Reader(path)
    try:
        obj = jsonc.load(Path(path))
    except ValueError as e:
        raise SchemaError(path, "", "invalid JSON", str(e)) from None
    spec = reader.message(obj)
    spec.scope = key_scope(path)
    return spec


def schema_files(dirs) -> list[Path]:
    """Every ``*.json`` below the directories, in a stable order."""
    files: list[Path] = []
    for d in dirs:
        d = Path(d)
        files.extend(sorted(d.rglob("*.json")) if d.is_dir() else [d])
    return files


def key_scope(path) -> str:
    """The key space of a schema file: its folder's name when that is one of KEY_SCOPES, else ""."""
    parent = Path(path).parent.name
    return parent if parent in KEY_SCOPES else ""


def load_tree(dirs) -> list[MessageSpec]:
    """Read every schema under the directories; message names must be unique."""
    specs: dict[str, MessageSpec] = {}
    keys: dict[tuple[str, str, int], MessageSpec] = {}
    modules: dict[str, MessageSpec] = {}
    for path in schema_files(dirs):
        spec = load_message(path)
        if spec.name in specs:
            raise SchemaError(path, "", "duplicate message name", f"{spec.name} is also defined in {specs[spec.name].file}")
        module = snake_case(spec.name)
        if module in modules:
            raise SchemaError(path, "", "duplicate module name", f"{spec.name} and {modules[module].name} ({modules[module].file}) both become {module}.py")
        if spec.type in KEYED_TYPES and spec.api_key is not None:
            other = keys.get((spec.type, spec.scope, spec.api_key))
            if other is not None and spec.type != "request" and spec.type != "response":
                raise SchemaError(path, "", "duplicate record type",
                                  f"record type {spec.api_key} of {spec.name} is already used by {other.name} in {other.file}")  # fmt: skip
            if other is not None:
                raise SchemaError(path, "", "duplicate api key",
                                  f"{spec.type} api key {spec.api_key} of {spec.name} is already used by {other.name} in {other.file}")  # fmt: skip
            keys[(spec.type, spec.scope, spec.api_key)] = spec
        specs[spec.name] = spec
        modules[module] = spec
    return sorted(specs.values(), key=lambda s: s.name)


__all__ = ["KEY_SCOPES", "KEYED_TYPES", "key_scope", "FieldSpec", "FieldType", "MessageSpec", "SchemaError", "StructSpec", "Versions",
           "load_message", "load_tree", "schema_files", "MAX_VERSION"]  # fmt: skip
