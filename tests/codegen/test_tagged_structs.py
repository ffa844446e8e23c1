"""Tagged-field layouts that the shipped schemas do not exercise, byte for byte as Kafka writes
them (confirmed against Kafka's serializer by tools/differential.py --from-jars):

- a nullable struct in the tagged section is marked with a uvarint: 0 for null, 1 before a
  present struct (outside that section the marker is the int8 -1 or 1);
- a tag the schema gives a field of later versions is kept as an unknown tag in earlier versions
  (as a release that predates the field keeps it; see docs/interop.md)."""

from __future__ import annotations

import importlib
import json
import sys

import pytest

from codegen.generate import generate, write_package
from kafka_meta_proto import DecodeError

SCHEMA = {
    "type": "data",
    "name": "WidgetValue",
    "validVersions": "0-1",
    "flexibleVersions": "0+",
    "fields": [
        {"name": "Id", "type": "int32", "versions": "0+"},
        {"name": "Owner", "type": "Owner", "versions": "0+", "nullableVersions": "0+", "default": None,
         "taggedVersions": "0+", "tag": 0, "fields": [{"name": "Port", "type": "int16", "versions": "0+"}]},
        {"name": "Rack", "type": "string", "versions": "1+", "taggedVersions": "1+", "tag": 1},
    ],
}


# A message Kafka removed keeps a schema file whose validVersions are "none"; it gets no class.
REMOVED = {"type": "request", "name": "GoneRequest", "apiKey": 4, "validVersions": "none", "fields": []}


@pytest.fixture(scope="module")
def Widget(tmp_path_factory):
    root = tmp_path_factory.mktemp("tagged")
    (root / "schemas").mkdir()
    (root / "schemas" / "WidgetValue.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    (root / "schemas" / "GoneRequest.json").write_text(json.dumps(REMOVED), encoding="utf-8")
    files = generate([root / "schemas"], "tagged_pkg", relative_to=root)
    assert sorted(files) == ["__init__.py", "widget_value.py"]
    write_package(files, root / "tagged_pkg")
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module("tagged_pkg").message_class("WidgetValue")
    finally:
        sys.path.remove(str(root))


def test_null_tagged_struct(Widget):
    # id 5; one tagged field: tag 0, size 1, uvarint 0 (null).
    body = bytes.fromhex("00000005" "01" "00" "01" "00")
    assert Widget(id=5, owner=None).encode(0) == body
    assert Widget.decode(body, 0) == Widget(id=5, owner=None)


def test_present_tagged_struct(Widget):
    # tag 0, size 4: uvarint 1 (present), port int16 9, the struct's empty tagged section.
    body = bytes.fromhex("00000005" "01" "00" "04" "01" "0009" "00")
    message = Widget(id=5, owner=Widget.Owner(port=9))
    assert message.encode(0) == body
    assert message.size(0) == len(body)
    assert Widget.decode(body, 0) == message


def test_default_tagged_struct_is_left_out(Widget):
    assert Widget(id=5).encode(0) == bytes.fromhex("00000005" "00")  # the empty struct is the default


def test_tag_of_a_later_version_is_kept_as_unknown(Widget):
    body = bytes.fromhex("00000005" "01" "01" "02" "02" "78")  # tag 1 (Rack, v1+) in version 0
    message = Widget.decode(body, 0)
    assert message.unknown_tagged_fields == ((1, b"\x02x"),) and message.encode(0) == body
    assert Widget.decode(body, 1).rack == "x"  # v1 knows it
