"""Schema validation: every rule codegen/spec.py enforces, one broken schema per rule.

Each case writes a minimal schema that breaks exactly one rule to a temporary file and checks
that the ``SchemaError`` names the file, the field path (``Topics.Partitions.Foo``; empty for the
message itself) and the rule. ``test_every_rule_has_a_case`` reads the rule names out of spec.py,
so a rule added there without a case here fails the suite.

Also here: one schema that uses every keyword of Kafka's format (and its parsed defaults), the
cross-file rules (duplicate message name, api key, record type), the command line
(``python -m codegen``: schema errors, a generated package, ``--check``) and both Kafka
reference trees.
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from codegen import jsonc
from codegen.generate import generate
from codegen.spec import (
    EMPTY_STRUCT,
    FIELD_KEYS,
    MESSAGE_KEYS,
    SchemaError,
    load_message,
    load_tree,
)
from codegen.versions import MAX_VERSION, NONE, Versions
from conftest import kafka_schema_tree
from kafka_meta_proto.registry import DuplicateKeyError, Registry

REPO = Path(__file__).resolve().parents[2]
SPEC_SOURCE = REPO / "codegen" / "spec.py"
DEFAULTS_SOURCE = REPO / "codegen" / "defaults.py"
sys.path.insert(0, str(REPO / "tools"))
import kafka_oracle  # noqa: E402

P = "Topics.Partitions"  # where most broken fields go, so the paths show the nesting


# --------------------------------------------------------------------------- schema builders


def base() -> dict:
    """A valid request: Topics[] -> Partitions[] -> Index, flexible from version 2."""
    return {
        "apiKey": 1000,
        "type": "request",
        "name": "WidgetRequest",
        "validVersions": "0-3",
        "flexibleVersions": "2+",
        "fields": [
            {"name": "Topics", "type": "[]Topic", "versions": "0+", "fields": [
                {"name": "Name", "type": "string", "versions": "0+"},
                {"name": "Partitions", "type": "[]Partition", "versions": "0+", "fields": [
                    {"name": "Index", "type": "int32", "versions": "0+"},
                ]},
            ]},
        ],
    }  # fmt: skip


def field(name: str, type_: str, **keys) -> dict:
    """A field present in every version unless ``versions`` says otherwise."""
    return {"name": name, "type": type_, "versions": "0+", **keys}


def tagged(name: str, type_: str = "int32", tag: int = 0, **keys) -> dict:
    """A tagged field, valid as long as the message is flexible from version 2."""
    return {
        "name": name,
        "type": type_,
        "versions": "2+",
        "taggedVersions": "2+",
        "tag": tag,
        **keys,
    }


ENDPOINT = {"name": "Endpoint", "versions": "0+", "fields": [field("Host", "string")]}


def top(**keys):
    """Set message-level keys."""
    return lambda s: s.update(keys)


def drop(*keys):
    """Remove message-level keys."""
    return lambda s: [s.pop(k) for k in keys]


def top_fields(*fields):
    """Append fields to the message itself."""
    return lambda s: s["fields"].extend(copy.deepcopy(fields))


def nested(*fields):
    """Append fields to Topics.Partitions."""
    return lambda s: s["fields"][0]["fields"][1]["fields"].extend(copy.deepcopy(fields))


def common(*structs):
    return lambda s: s.update(commonStructs=copy.deepcopy(list(structs)))


def both(*mutations):
    def apply(s):
        for m in mutations:
            m(s)

    return apply


class Raw(str):
    """The file's text as is (for files that are not a schema object at all)."""


def case(rule: str, path: str, mutation, id: str | None = None):
    return pytest.param(rule, path, mutation, id=id or rule.replace(" ", "-"))


# --------------------------------------------------------------------------- one case per rule

# fmt: off
CASES = [
    # The file and the message.
    case("invalid JSON", "", Raw('{\n  // comments are fine, trailing commas are not\n  "name": "X",\n}')),
    case("not an object", "", Raw("// a schema file holds one object\n[]")),
    case("unknown key", "", top(apiVersion=3), id="unknown-key-message"),
    case("unknown key", f"{P}.Leader", nested(field("Leader", "int32", defualt="-1")), id="unknown-key-field"),
    case("unknown key", "Endpoint", common({**ENDPOINT, "mapKey": True}), id="unknown-key-common-struct"),
    case("invalid name", "", top(name="widgetRequest")),
    case("invalid type", "", top(type="reqest"), id="invalid-type-message"),
    case("invalid apiKey", "", top(apiKey=0x8000)),
    case("missing apiKey", "", drop("apiKey")),
    case("missing validVersions", "", drop("validVersions")),
    case("invalid validVersions", "", top(validVersions="0-x")),
    case("invalid deprecatedVersions", "", top(deprecatedVersions="old")),
    case("missing flexibleVersions", "", drop("flexibleVersions")),
    case("invalid flexibleVersions", "", top(flexibleVersions="2++"), id="invalid-flexibleVersions-message"),
    case("flexibleVersions not open-ended", "", top(flexibleVersions="2-3")),
    case("invalid listeners", "", top(listeners=["broker", "client"])),
    case("invalid latestVersionUnstable", "", top(latestVersionUnstable="yes")),
    case("latestVersionUnstable on a non-request", "", top(type="response", latestVersionUnstable=True)),
    # Common and inline structs.
    case("invalid commonStructs", "", common("Endpoint")),
    case("invalid struct name", "endpoint", common({**ENDPOINT, "name": "endpoint"})),
    case("missing versions", "Endpoint", common({"name": "Endpoint", "fields": []}), id="missing-versions-struct"),
    case("invalid versions", "Endpoint", common({**ENDPOINT, "versions": "all"}), id="invalid-versions-struct"),
    case("duplicate struct", "Endpoint", common(ENDPOINT, ENDPOINT), id="duplicate-struct-common-twice"),
    case("duplicate struct", "MoreTopics",
         top_fields(field("MoreTopics", "[]Topic", fields=[field("Name", "string")])),
         id="duplicate-struct-inline-twice"),
    case("duplicate struct", f"{P}.Leader",
         both(common(ENDPOINT), nested(field("Leader", "Endpoint", fields=[field("Host", "string")]))),
         id="duplicate-struct-common-redefined-inline"),
    # Reported at the struct's name rather than at the field that declares it.
    case("duplicate struct", "WidgetRequest",
         nested(field("Loop", "[]WidgetRequest", fields=[field("Id", "int32")])),
         id="duplicate-struct-named-like-the-message"),
    case("unknown struct type", f"{P}.Replicas", nested(field("Replicas", "[]Replica"))),
    case("invalid fields", f"{P}.Replicas", nested(field("Replicas", "[]Replica", fields={"name": "Id"}))),
    # Fields.
    case("invalid field", P, nested("Leader")),
    case("invalid field name", f"{P}.Leader_Epoch", nested(field("Leader_Epoch", "int32"))),
    case("missing versions", f"{P}.Leader", nested({"name": "Leader", "type": "int32"}), id="missing-versions-field"),
    case("invalid versions", f"{P}.Leader", nested(field("Leader", "int32", versions="latest")),
         id="invalid-versions-field"),
    case("missing type", f"{P}.Leader", nested({"name": "Leader", "versions": "0+"})),
    case("unknown type", f"{P}.Leader", nested(field("Leader", "integer"))),
    case("invalid type", f"{P}.Matrix", nested(field("Matrix", "[][]int32")), id="invalid-type-array-of-arrays"),
    case("invalid nullableVersions", f"{P}.Host", nested(field("Host", "string", nullableVersions="sometimes"))),
    case("type cannot be nullable", f"{P}.Leader", nested(field("Leader", "int32", nullableVersions="0+"))),
    case("fields on a non-struct", f"{P}.Host", nested(field("Host", "string", fields=[field("Port", "int32")]))),
    case("invalid flexibleVersions", f"{P}.Host", nested(field("Host", "string", flexibleVersions="flexible")),
         id="invalid-flexibleVersions-field"),
    case("flexibleVersions override on a non-string", f"{P}.Leader",
         nested(field("Leader", "int32", flexibleVersions="3+"))),
    case("invalid mapKey", f"{P}.Host", nested(field("Host", "string", mapKey="yes"))),
    case("invalid ignorable", f"{P}.Host", nested(field("Host", "string", ignorable="sometimes"))),
    case("invalid zeroCopy", f"{P}.Data", nested(field("Data", "bytes", zeroCopy="yes"))),
    case("zeroCopy on a non-bytes field", f"{P}.Host", nested(field("Host", "string", zeroCopy=True))),
    case("unknown entityType", f"{P}.Host", nested(field("Host", "string", entityType="hostName"))),
    case("entityType does not match type", f"{P}.Brokers",
         nested(field("Brokers", "[]string", entityType="brokerId"))),
    case("invalid about", f"{P}.Host", nested(field("Host", "string", about=42))),
    # Tags.
    case("invalid tag", f"{P}.Epoch", nested(tagged("Epoch", tag="first"))),
    case("negative tag", f"{P}.Epoch", nested(tagged("Epoch", tag=-1))),
    case("tagged map key", f"{P}.Epoch", nested(tagged("Epoch", mapKey=True))),
    case("invalid taggedVersions", f"{P}.Epoch", nested(tagged("Epoch", taggedVersions="later"))),
    case("tag without taggedVersions", f"{P}.Epoch", nested(field("Epoch", "int32", tag=0))),
    case("taggedVersions without tag", f"{P}.Epoch", nested(field("Epoch", "int32", taggedVersions="2+"))),
    case("tagged nullability mixed", f"{P}.Rack", nested(tagged("Rack", "string", nullableVersions="3+"))),
    case("taggedVersions not open-ended", f"{P}.Epoch", nested(tagged("Epoch", taggedVersions="2-3"))),
    case("taggedVersions outside versions", f"{P}.Epoch", nested(tagged("Epoch", versions="2-3"))),
    case("taggedVersions outside flexibleVersions", f"{P}.Epoch",
         nested(tagged("Epoch", versions="1+", taggedVersions="1+"))),
    case("duplicate tag", f"{P}.Epoch", nested(tagged("Rack", "string", tag=0), tagged("Epoch", tag=0))),
    # Reported at the struct's last field.
    case("tags not contiguous", f"{P}.Epoch", nested(tagged("Rack", "string", tag=0), tagged("Epoch", tag=2))),
    # Names within one struct.
    case("duplicate field name", f"{P}.Index", nested(field("Index", "int16"))),
    case("duplicate Python name", f"{P}.index", nested(field("index", "int32"))),
    # Defaults: one rule, checked per type.
    case("invalid default", f"{P}.Leader", nested(field("Leader", "int32", default=[-1])), id="invalid-default-not-a-string"),
    case("invalid default", f"{P}.Flag", nested(field("Flag", "bool", default="yes")), id="invalid-default-bool"),
    case("invalid default", f"{P}.Tiny", nested(field("Tiny", "int8", default="128")), id="invalid-default-int8-range"),
    case("invalid default", f"{P}.Count", nested(field("Count", "int16", default="ten")), id="invalid-default-int16-text"),
    case("invalid default", f"{P}.Port", nested(field("Port", "uint16", default="-1")), id="invalid-default-uint16-range"),
    case("invalid default", f"{P}.Leader", nested(field("Leader", "int32", default="0x80000000")),
         id="invalid-default-int32-hex-range"),
    case("invalid default", f"{P}.Crc", nested(field("Crc", "uint32", default="0x100000000")),
         id="invalid-default-uint32-hex-range"),
    case("invalid default", f"{P}.Offset", nested(field("Offset", "int64", default="9223372036854775808")),
         id="invalid-default-int64-range"),
    case("invalid default", f"{P}.Ratio", nested(field("Ratio", "float64", default="half")), id="invalid-default-float64"),
    case("invalid default", f"{P}.TopicId", nested(field("TopicId", "uuid", default="*not*base64*")),
         id="invalid-default-uuid-not-base64"),
    case("invalid default", f"{P}.TopicId", nested(field("TopicId", "uuid", default="AAAAAAAA")),
         id="invalid-default-uuid-length"),
    case("invalid default", f"{P}.Data", nested(field("Data", "bytes", default="abc")), id="invalid-default-bytes"),
    case("invalid default", f"{P}.Ids", nested(field("Ids", "[]int32", default="[]")), id="invalid-default-array"),
    case("invalid default", f"{P}.Leader",
         both(common(ENDPOINT), nested(field("Leader", "Endpoint", default="{}"))), id="invalid-default-struct"),
    case("null default on a non-nullable field", f"{P}.Host",
         nested(field("Host", "string", nullableVersions="1+", default="null"))),
    # Kafka's generator rules beyond its spec classes (MessageDataGenerator, MessageSpec).
    case("validVersions not bounded", "", top(validVersions="0+")),
    case("listeners on a non-request", "", top(type="response", listeners=["broker"])),
    case("mapKey on a top-level field", "Ready", top_fields(field("Ready", "bool", mapKey=True))),
    case("tagged records field", f"{P}.Batch", nested(tagged("Batch", "records", nullableVersions="2+"))),
    case("field flexibleVersions outside the message's", f"{P}.Host",
         nested(field("Host", "string", flexibleVersions="0+"))),
    case("taggedVersions outside flexibleVersions", f"{P}.Host",
         nested(tagged("Host", "string", flexibleVersions="3+")), id="tagged-outside-field-flexibleVersions"),
    case("reserved struct name", f"{P}.Id", nested(field("Id", "Uuid", fields=[field("Bits", "int64")]))),
    case("reserved struct name", f"{P}.Name", nested(field("Name", "NAME", fields=[field("Bits", "int64")])),
         id="reserved-struct-name-message-attribute"),
    # A field would replace a method of the message (encode, size...) or the generated attribute.
    case("reserved field name", "Encode", top_fields(field("Encode", "int32"))),
    case("reserved field name", "Size", top_fields(field("Size", "int64")), id="reserved-field-name-size"),
    case("reserved field name", "ToJson", top_fields(field("ToJson", "bool")), id="reserved-field-name-to-json"),
    case("reserved field name", f"{P}.UnknownTaggedFields", nested(field("UnknownTaggedFields", "int32")),
         id="reserved-field-name-unknown-tagged-fields"),
]
# fmt: on


def write_schema(path: Path, schema, comment: str | None = None) -> Path:
    """Write a schema object (or Raw text); a leading // comment shows comments are accepted."""
    text = schema if isinstance(schema, Raw) else json.dumps(schema, indent=2)
    if comment is not None and not isinstance(schema, Raw):
        text = f"// {comment}\n{text}"
    path.write_text(text + "\n", encoding="utf-8")
    return path


def assert_names(error: SchemaError, path: Path, field_path: str, rule: str) -> None:
    """The error carries, and its text shows, the file, the field path and the rule."""
    assert (error.file, error.field, error.rule) == (str(path), field_path, rule), str(error)
    text = str(error)
    assert text.startswith(f"{path}: "), text
    where = f"field {field_path}" if field_path else "message"
    assert f": {where}: {rule}: " in text, text
    assert error.detail and text.endswith(error.detail)


def test_base_schema_is_valid(tmp_path):
    spec = load_message(write_schema(tmp_path / "WidgetRequest.json", base()))
    assert spec.name == "WidgetRequest"
    assert [f.name for f in spec.structs["Partition"].fields] == ["Index"]


@pytest.mark.parametrize("rule, field_path, mutation", CASES)
def test_rule(tmp_path, request, rule, field_path, mutation):
    if isinstance(mutation, Raw):
        schema = mutation
    else:
        schema = base()
        mutation(schema)
    # Every other case carries a comment, to show comments never change the outcome.
    comment = (
        f"{request.node.callspec.id}: breaks one rule"
        if len(request.node.callspec.id) % 2
        else None
    )
    path = write_schema(tmp_path / "Broken.json", schema, comment)
    with pytest.raises(SchemaError) as info:
        load_message(path)
    assert_names(info.value, path, field_path, rule)


def spec_rules() -> set[str]:
    """The rule names spec.py (and defaults.py, the rules of defaults) can raise, read from their
    source."""
    src = SPEC_SOURCE.read_text(encoding="utf-8")
    rules = set(re.findall(r'self\.error\(\s*[^,()]*(?:\([^()]*\))?[^,()]*,\s*"([^"]+)"', src))
    rules |= set(re.findall(r'\berror\(\s*"([^"]+)"', DEFAULTS_SOURCE.read_text(encoding="utf-8")))
    rules |= set(re.findall(r'SchemaError\(\s*\w+,\s*"[^"]*",\s*"([^"]+)"', src))
    # f"invalid {key}": one rule per key read as a version range or a true/false flag.
    assert 'f"invalid {key}"' in src
    keys = re.findall(r'self\.versions\(\s*[^,]+,\s*"(\w+)"', src)
    keys += re.findall(r'self\.flag\(\s*[^,]+,\s*\w+,\s*"(\w+)"', src)
    return rules | {f"invalid {k}" for k in keys}


# load_tree; see test_duplicate_message_name, test_duplicate_keys, test_messages_with_the_same_module_name
CROSS_FILE_RULES = {"duplicate message name", "duplicate module name", "duplicate api key", "duplicate record type"}


def test_every_rule_has_a_case():
    rules = spec_rules()
    assert len(rules) >= 50, sorted(rules)  # the source scan still finds the rules
    covered = {p.values[0] for p in CASES} | CROSS_FILE_RULES
    assert rules - covered == set(), "rules in spec.py without a case here"
    assert covered - rules == set(), "cases for rules spec.py no longer has"


# --------------------------------------------------------------------------- cross-file rules


def test_duplicate_message_name(tmp_path):
    first = write_schema(tmp_path / "A.json", base())
    second_schema = base()
    second_schema["apiKey"] = 1001
    second = write_schema(tmp_path / "B.json", second_schema, "same name as A.json")
    with pytest.raises(SchemaError) as info:
        load_tree([tmp_path])
    assert_names(info.value, second, "", "duplicate message name")
    assert str(first) in info.value.detail


def tiny(name: str, mtype: str, api_key: int | None) -> dict:
    schema = {
        "type": mtype,
        "name": name,
        "validVersions": "0",
        "flexibleVersions": "0+",
        "fields": [],
    }
    if api_key is not None:
        schema["apiKey"] = api_key
    return schema


@pytest.mark.parametrize(
    "mtype, names, what, rule",
    [
        ("request", ("FirstRequest", "SecondRequest"), "request api key 5", "duplicate api key"),
        ("response", ("FirstResponse", "SecondResponse"), "response api key 5", "duplicate api key"),
        ("metadata", ("FirstRecord", "SecondRecord"), "record type 5", "duplicate record type"),
    ],
    ids=["duplicate-api-key-request", "duplicate-api-key-response", "duplicate-record-type"],
)
def test_duplicate_keys(tmp_path, mtype, names, what, rule):
    paths = [write_schema(tmp_path / f"{name}.json", tiny(name, mtype, 5)) for name in names]
    with pytest.raises(SchemaError) as info:
        generate([tmp_path], "pkg")
    assert_names(info.value, paths[1], "", rule)
    # Both claimants, their files and the key are named.
    text = str(info.value)
    assert what in text and names[0] in text and names[1] in text and str(paths[0]) in text, text


def test_registry_refuses_duplicate_keys():
    """The runtime registry refuses them too (a hand-edited package index)."""
    with pytest.raises(DuplicateKeyError, match="record type 5 is claimed by both A and B"):
        Registry("pkg", [("A", "a", "metadata", 5), ("B", "b", "metadata", 5)])


def test_shared_keys_across_kinds_are_fine(tmp_path):
    """A request and its response share the api key; a record type may reuse the number too."""
    for name, mtype in [
        ("PingRequest", "request"),
        ("PingResponse", "response"),
        ("PingRecord", "metadata"),
    ]:
        write_schema(tmp_path / f"{name}.json", tiny(name, mtype, 5))
    write_schema(tmp_path / "PingData.json", tiny("PingData", "data", 5))
    files = generate([tmp_path], "pkg")
    assert sorted(files) == [
        "__init__.py",
        "ping_data.py",
        "ping_record.py",
        "ping_request.py",
        "ping_response.py",
    ]


def test_messages_with_the_same_module_name(tmp_path):
    paths = [write_schema(tmp_path / f"{name}.json", tiny(name, "data", None)) for name in ("ISRChange", "Isrchange")]
    with pytest.raises(SchemaError) as info:
        generate([tmp_path], "pkg")
    assert_names(info.value, paths[1], "", "duplicate module name")


# --------------------------------------------------------------------------- every keyword

EVERYTHING = """\
// A request that uses every keyword of Kafka's schema format.
/* Block comments are allowed too. */
{
  "apiKey": 1000,
  "type": "request",
  "listeners": ["zkBroker", "broker", "controller"],
  "name": "EverythingRequest",
  // Version 0 is deprecated; version 3 is still being designed.
  "validVersions": "0-3",
  "deprecatedVersions": "0",
  "flexibleVersions": "2+",
  "latestVersionUnstable": true,
  "fields": [
    { "name": "Flag", "type": "bool", "versions": "0+", "default": "true",
      "about": "A flag that starts out set." },
    { "name": "Tiny", "type": "int8", "versions": "0+", "default": "-128" },
    { "name": "Small", "type": "int16", "versions": "0+", "default": "0x7fff" },
    { "name": "Port", "type": "uint16", "versions": "0+", "default": "65535" },
    { "name": "TimeoutMs", "type": "int32", "versions": "0+", "default": "0x7fffffff" },
    { "name": "Unsigned", "type": "uint32", "versions": "1+", "default": "4294967295",
      "ignorable": true },
    { "name": "ProducerId", "type": "int64", "versions": "0+", "default": "-1",
      "entityType": "producerId" },
    { "name": "Ratio", "type": "float64", "versions": "0+", "default": "0.5" },
    { "name": "TransactionalId", "type": "string", "versions": "0+", "nullableVersions": "0+",
      "default": "null", "entityType": "transactionalId" },
    // A string that keeps its old (non-compact) encoding in flexible versions.
    { "name": "ClientSoftware", "type": "string", "versions": "0+", "flexibleVersions": "none",
      "default": "kafka" },
    { "name": "Payload", "type": "bytes", "versions": "0+", "nullableVersions": "1+",
      "zeroCopy": true },
    { "name": "Batch", "type": "records", "versions": "0+", "nullableVersions": "0+" },
    { "name": "TopicId", "type": "uuid", "versions": "0+", "default": "-_8AESIzRFVmd4iZqrvM3Q" },
    { "name": "BrokerIds", "type": "[]int32", "versions": "0+", "entityType": "brokerId" },
    { "name": "Topics", "type": "[]Topic", "versions": "0+", "about": "The topics.",
      "fields": [
        { "name": "Name", "type": "string", "versions": "0+", "mapKey": true,
          "entityType": "topicName" },
        { "name": "Partitions", "type": "[]Partition", "versions": "0+", "fields": [
          { "name": "Index", "type": "int32", "versions": "0+" },
          { "name": "Leader", "type": "Endpoint", "versions": "0+" }
        ]}
      ]},
    { "name": "Owner", "type": "Endpoint", "versions": "1+", "nullableVersions": "1+",
      "default": "null" },
    // No "versions": a tagged field's versions default to its taggedVersions.
    { "name": "GroupId", "type": "string", "taggedVersions": "3+", "tag": 0,
      "entityType": "groupId", "default": "g" },
    { "name": "Extra", "type": "Extra", "versions": "2+", "taggedVersions": "2+", "tag": 1,
      "fields": [
        { "name": "Note", "type": "string", "versions": "2+" }
      ]},
    { "name": "Hosts", "type": "[]string", "versions": "2+", "nullableVersions": "2+",
      "taggedVersions": "2+", "tag": 2, "default": "null" }
  ],
  "commonStructs": [
    { "name": "Endpoint", "versions": "0+", "about": "A host and port.", "fields": [
      { "name": "Host", "type": "string", "versions": "0+" },
      { "name": "Port", "type": "uint16", "versions": "0+" }
    ]}
  ]
}
"""
ALL = Versions(0, MAX_VERSION)


def test_every_keyword_loads(tmp_path):
    path = tmp_path / "EverythingRequest.json"
    path.write_text(EVERYTHING, encoding="utf-8")

    # The schema really does use every key the format has (headerVersions is not Kafka's).
    raw = jsonc.load(path)
    assert set(raw) == MESSAGE_KEYS - {"headerVersions"}
    used: set[str] = set()
    stack = list(raw["fields"]) + [f for s in raw["commonStructs"] for f in s["fields"]]
    while stack:
        f = stack.pop()
        used |= set(f)
        stack += f.get("fields", [])
    assert used == FIELD_KEYS

    spec = load_message(path)
    assert (spec.name, spec.type, spec.api_key) == ("EverythingRequest", "request", 1000)
    assert spec.valid_versions == Versions(0, 3)
    assert spec.deprecated_versions == Versions(0, 0)
    assert spec.flexible_versions == Versions(2, MAX_VERSION)
    assert spec.listeners == ("zkBroker", "broker", "controller")
    assert spec.latest_version_unstable is True
    assert set(spec.structs) == {"Topic", "Partition", "Extra", "Endpoint"}
    assert (
        spec.structs["Endpoint"].is_common and spec.structs["Endpoint"].about == "A host and port."
    )

    f = {x.name: x for x in spec.struct.fields}
    types = {x.type.name for s in [spec.struct, *spec.structs.values()] for x in s.fields}
    assert types >= {"bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64", "string",
                     "bytes", "records", "uuid", "[]int32", "[]string", "[]Topic", "Endpoint", "Extra"}  # fmt: skip

    defaults = {name: x.default for name, x in f.items()}
    assert defaults == {
        "Flag": True, "Tiny": -128, "Small": 0x7FFF, "Port": 65535, "TimeoutMs": 2**31 - 1,
        "Unsigned": 2**32 - 1, "ProducerId": -1, "Ratio": 0.5, "TransactionalId": None,
        "ClientSoftware": "kafka", "Payload": b"", "Batch": None,
        "TopicId": bytes.fromhex("fbff00112233445566778899aabbccdd"),  # base64url: - and _
        "BrokerIds": [], "Topics": [], "Owner": None, "GroupId": "g", "Extra": EMPTY_STRUCT,
        "Hosts": None,
    }  # fmt: skip
    assert type(defaults["Flag"]) is bool and type(defaults["Ratio"]) is float
    assert f["TimeoutMs"].default_text == "0x7fffffff"
    assert spec.structs["Endpoint"].fields[1].default == 0  # no default: the type's zero

    assert (
        f["Flag"].about == "A flag that starts out set."
        and f["Topics"].struct.about == "The topics."
    )
    assert f["Unsigned"].ignorable and f["Unsigned"].versions == Versions(1, MAX_VERSION)
    assert f["ProducerId"].entity_type == "producerId" and f["BrokerIds"].entity_type == "brokerId"
    assert f["TransactionalId"].nullable_versions == ALL
    assert f["ClientSoftware"].flexible_versions == NONE and f["Flag"].flexible_versions is None
    assert f["Payload"].zero_copy and f["Payload"].nullable_versions == Versions(1, MAX_VERSION)
    topic = f["Topics"].struct
    assert topic.fields[0].map_key and topic.fields[0].entity_type == "topicName"
    assert (
        topic.fields[1].struct.fields[1].struct is spec.structs["Endpoint"]
    )  # common struct, shared
    assert f["Owner"].struct is spec.structs["Endpoint"]
    assert (f["GroupId"].tag, f["GroupId"].versions, f["GroupId"].tagged_versions) == (
        0, Versions(3, MAX_VERSION), Versions(3, MAX_VERSION))  # fmt: skip
    assert (f["Extra"].tag, f["Hosts"].tag) == (1, 2)
    assert f["GroupId"].entity_type == "groupId"


def test_lenient_forms_kafka_also_accepts(tmp_path):
    """Jackson coerces these when Kafka reads a schema; so does spec.py."""
    schema = base()
    schema["apiKey"] = "1000"
    nested(
        field("Ready", "bool", default=True, mapKey="true"),
        field("Leader", "int32", default=-1, versions=2),
        {"name": "Epoch", "type": "int32", "taggedVersions": "2+", "tag": "0", "default": "0x10"},
        field("Host", "  string  ", flexibleVersions=""),
    )(schema)
    spec = load_message(write_schema(tmp_path / "WidgetRequest.json", schema, "lenient"))
    ready, leader, epoch, host = spec.structs["Partition"].fields[1:]
    assert spec.api_key == 1000
    assert (ready.default, ready.map_key) == (True, True)
    assert (leader.default, leader.versions) == (-1, Versions(2, 2))
    assert (epoch.tag, epoch.default, epoch.versions) == (0, 16, Versions(2, MAX_VERSION))
    assert (host.type.name, host.flexible_versions) == ("string", None)


def test_null_default_is_no_default(tmp_path):
    """Kafka reads ``"default": null`` as no default: a struct field then defaults to the empty
    struct, not to null (Kafka's serializer writes a null such field as a tagged value)."""
    schema = base()
    nested(
        {"name": "Owner", "type": "Owner", "versions": "2+", "nullableVersions": "2+", "default": None,
         "taggedVersions": "2+", "tag": 0, "fields": [field("Id", "int32")]},
        {"name": "Note", "type": "string", "versions": "0+", "default": None},
    )(schema)
    spec = load_message(write_schema(tmp_path / "WidgetRequest.json", schema, "null default"))
    owner, note = spec.structs["Partition"].fields[1:]
    assert owner.default is EMPTY_STRUCT
    assert note.default == ""


@pytest.mark.parametrize("mtype", ["coordinator-key", "coordinator-value"])
def test_coordinator_record_types(tmp_path, mtype):
    """Kafka 4 types the records of its coordinators' internal topics; they carry an apiKey."""
    schema = {"type": mtype, "name": "WidgetKey", "apiKey": 3, "validVersions": "0", "flexibleVersions": "none",
              "fields": [field("Group", "string")]}
    assert load_message(write_schema(tmp_path / "WidgetKey.json", schema, mtype)).type == mtype
    del schema["apiKey"]
    with pytest.raises(SchemaError, match="missing apiKey"):
        load_message(write_schema(tmp_path / "WidgetKey.json", schema, mtype))


# --------------------------------------------------------------------------- Kafka's own trees


@pytest.mark.parametrize("release", kafka_oracle.releases())
def test_kafka_tree_loads(release, tmp_path):
    """Every schema in the jars of each release line we follow loads."""
    folder = kafka_schema_tree(release, tmp_path)
    files = sorted(folder.rglob("*.json"))
    specs = load_tree([folder])
    assert len(specs) == len(files) > 200
    assert {"FetchRequest", "FetchResponse", "TopicRecord", "OffsetCommitKey"} <= {s.name for s in specs}


# --------------------------------------------------------------------------- the command line


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "codegen", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cli_schema_error_exits_2(tmp_path):
    schemas = tmp_path / "schemas"
    schemas.mkdir()
    write_schema(schemas / "PingRecord.json", tiny("PingRecord", "metadata", 7))
    schema = base()
    nested(field("Epoch", "int32", tag=0))(schema)
    bad = write_schema(
        schemas / "WidgetRequest.json", schema, "Epoch has a tag but no taggedVersions"
    )
    out = tmp_path / "out"
    run = run_cli("--schemas", str(schemas), "--out", str(out), "--package", "x")
    assert run.returncode == 2, run.stderr
    assert run.stderr.startswith("schema error: "), run.stderr
    assert f"{bad}: field {P}.Epoch: tag without taggedVersions: " in run.stderr
    assert "Traceback" not in run.stderr
    assert not out.exists()  # nothing written


def test_cli_duplicate_key_exits_2(tmp_path):
    for name in ("FirstRecord", "SecondRecord"):
        write_schema(tmp_path / f"{name}.json", tiny(name, "metadata", 5))
    run = run_cli("--schemas", str(tmp_path), "--out", str(tmp_path / "out"), "--package", "x")
    assert run.returncode == 2 and run.stderr.startswith("schema error: "), run.stderr
    assert str(tmp_path / "SecondRecord.json") in run.stderr


ROUND_TRIP = """
import sys
sys.path.insert(0, sys.argv[1])
import pkg

obj = {"timeoutMs": 5, "topics": [{"name": "t", "partitions": [{"index": 3}, {"index": 4}]}]}
cls = pkg.message_class("WidgetRequest")
assert pkg.request_class(1000) is cls
assert cls().timeout_ms == 0x7FFFFFFF  # hex default
for version in cls.versions():
    msg = cls.from_json(obj, version)
    data = msg.encode(version)
    back = cls.decode(data, version)
    assert back == msg and back.to_json(version) == obj, version
    assert msg.size(version) == len(data)

rec = pkg.record_class(7)(seq=9)
assert pkg.message_class("PingRecord").decode(rec.encode(0), 0) == rec
assert pkg.response_class(1000).decode(pkg.response_class(1000)(error_code=3).encode(1), 1).error_code == 3
print("round trip ok")
"""


def test_cli_generates_and_checks(tmp_path):
    schemas = tmp_path / "schemas"
    schemas.mkdir()
    request = base()  # kept to two versions: each run renders it through black
    request.update(validVersions="0-1", flexibleVersions="1+")
    request["fields"].insert(0, field("TimeoutMs", "int32", default="0x7fffffff"))
    write_schema(schemas / "WidgetRequest.json", request, "a request")
    response = tiny("WidgetResponse", "response", 1000)
    response.update(validVersions="0-1", fields=[field("ErrorCode", "int16")])
    write_schema(schemas / "WidgetResponse.json", response)
    write_schema(
        schemas / "PingRecord.json",
        {**tiny("PingRecord", "metadata", 7), "fields": [field("Seq", "int32")]},
    )
    out = tmp_path / "out"
    target = out / "pkg"
    cli = ("--schemas", str(schemas), "--out", str(out), "--package", "pkg")

    run = run_cli(*cli)
    assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in target.iterdir()) == [
        "__init__.py", "ping_record.py", "widget_request.py", "widget_response.py"]  # fmt: skip

    # Importable from outside the repo, and the classes encode and decode.
    run = subprocess.run(
        [sys.executable, "-c", ROUND_TRIP, str(out)], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0 and "round trip ok" in run.stdout, run.stderr

    run = run_cli(*cli, "--check")
    assert run.returncode == 0, run.stderr
    assert "up to date" in run.stdout

    # A hand edit to one generated file: --check fails and names that file only.
    edited = target / "widget_request.py"
    original = edited.read_text(encoding="utf-8")
    edited.write_text(original + "# a hand edit\n", encoding="utf-8")
    run = run_cli(*cli, "--check")
    assert run.returncode == 1
    assert f"  {edited}\n" in run.stderr, run.stderr
    assert "ping_record.py" not in run.stderr and "__init__.py" not in run.stderr
    edited.write_text(original, encoding="utf-8")

    # A schema deleted: its module is an orphan that --check reports (and the registry changed).
    (schemas / "PingRecord.json").unlink()
    run = run_cli(*cli, "--check")
    assert run.returncode == 1
    assert f"{target / 'ping_record.py'} (no schema produces it)" in run.stderr, run.stderr
    assert str(target / "__init__.py") in run.stderr
    assert str(edited) not in run.stderr


USER_RPC = """
import sys
sys.path.insert(0, sys.argv[1])
import mine
from kafka_meta_proto import REGISTRY, protocol

cls = mine.message_class("WidgetRequest")
frame = protocol.encode_request(cls(topics=[]), 1, correlation_id=9, client_id="me")
request = protocol.decode_request(frame, registry=mine.REGISTRY)
assert type(request.body) is cls and request.correlation_id == 9 and request.header.client_id == "me"
assert mine.REGISTRY.request_class(1) is REGISTRY.request_class(1)  # Kafka's, through the base
assert mine.REGISTRY.message_class("RequestHeader") is REGISTRY.message_class("RequestHeader")
print("user rpc ok")
"""


def test_a_package_extending_kafkas_registry_frames_its_own_rpc(tmp_path):
    """--base kafka_meta_proto.messages: one's own RPC framed with Kafka's headers, no copy of them."""
    schemas = tmp_path / "schemas"
    schemas.mkdir()
    write_schema(schemas / "WidgetRequest.json", base())
    out = tmp_path / "out"
    run = run_cli("--schemas", str(schemas), "--out", str(out), "--package", "mine", "--base", "kafka_meta_proto.messages")
    assert run.returncode == 0, run.stderr
    assert 'base="kafka_meta_proto.messages"' in (out / "mine" / "__init__.py").read_text(encoding="utf-8")
    run = subprocess.run([sys.executable, "-c", USER_RPC, str(out)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and "user rpc ok" in run.stdout, run.stderr


@pytest.mark.parametrize("args", [("--out", "OUT"), ("--package", "pkg"), ()])
def test_cli_other_schemas_need_out_and_package(tmp_path, args):
    """Other schemas never go into the package's own folders (that would replace its classes)."""
    schemas = tmp_path / "schemas"
    schemas.mkdir()
    write_schema(schemas / "PingRecord.json", tiny("PingRecord", "metadata", 7))
    args = tuple(str(tmp_path / "out") if a == "OUT" else a for a in args)
    before = sorted(p.name for p in (REPO / "src" / "kafka_meta_proto" / "messages").iterdir())
    run = run_cli("--schemas", str(schemas), *args)
    assert run.returncode == 2 and "--schemas needs --out and --package" in run.stderr
    assert sorted(p.name for p in (REPO / "src" / "kafka_meta_proto" / "messages").iterdir()) == before


def test_helpers_do_not_share_state():
    """The builders deep-copy, so one case can never leak into another."""
    a, b = base(), base()
    nested(field("X", "int32"))(a)
    assert b == base() and a != b


# --------------------------------------------------------------------------- bad command lines


def test_cli_missing_schemas_directory(tmp_path):
    missing = tmp_path / "no-such-dir"
    run = run_cli("--schemas", str(missing), "--out", str(tmp_path / "out"), "--package", "pkg")
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    assert f"--schemas: {missing} does not exist" in run.stderr
    assert not (tmp_path / "out").exists()


def test_cli_empty_schemas_directory(tmp_path):
    empty = tmp_path / "schemas"
    empty.mkdir()
    run = run_cli("--schemas", str(empty), "--out", str(tmp_path / "out"), "--package", "pkg")
    assert run.returncode == 2, run.stdout
    assert run.stderr.strip() == f"no schema (*.json) under {empty}: nothing to generate"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("package", ["bad-name", "3rd", "class", "a.b"])
def test_cli_package_that_could_not_be_imported(tmp_path, package):
    schemas = tmp_path / "schemas"
    schemas.mkdir()
    write_schema(schemas / "PingRecord.json", tiny("PingRecord", "metadata", 7))
    run = run_cli("--schemas", str(schemas), "--out", str(tmp_path / "out"), "--package", package)
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    assert f"--package: {package!r} is not a Python identifier" in run.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("missing", ["black", "jinja2"])
def test_cli_without_the_codegen_extra(missing):
    # sys.modules[name] = None makes `import name` fail as if it were not installed.
    code = f"import sys; sys.modules[{missing!r}] = None; from codegen.__main__ import main; sys.exit(main(['--check']))"
    run = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stderr.strip() == (
        f"python -m codegen needs {missing}, which the codegen extra installs: pip install 'kafka-meta-proto[codegen]'"
    )


def test_method_names_are_free_inside_structs(tmp_path):
    """Only the message's own fields are attributes of a Message: a struct's may be called Size."""
    schema = base()
    nested(field("Size", "int32"), field("Encode", "string"))(schema)
    msg = load_message(write_schema(tmp_path / "WidgetRequest.json", schema))
    partition = msg.structs["Partition"]
    assert [f.py_name for f in partition.fields][-2:] == ["size", "encode"]
