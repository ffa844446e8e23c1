"""The compiled JSON form and JSON text against the Python ones they stand in for.

``json_form_alone`` and ``json_text_alone`` are the compiled writers alone (None where they
decline), compared with the generated ``_to_json_*`` functions and with json's encoder: the same
dicts with the same key order, the same text, over every message and version, the golden
vectors, hypothesis messages and hypothesis JSON values."""

from __future__ import annotations

import importlib.util
import json
import math
import sys

import pytest
from hypothesis import strategies as st

from conftest import GOLDEN, ROOT
from tiers import hypothesis_twins
from kafka_meta_proto import REGISTRY, Uuid, codec, message_class
from kafka_meta_proto.messages.partition_record import PartitionRecord
from kafka_meta_proto.strategies import versioned_messages

pytestmark = pytest.mark.skipif(
    codec.active_codec() != "compiled",
    reason=f"the compiled codec is not active ({codec.why_pure_python()})",
)
native = codec._native
python_text = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode


def same_form(msg, version: int) -> None:
    """The compiled form is the generated function's, keys in the same order, and not declined."""
    expected = type(msg)._TO_JSON(msg, version)
    got = native.json_form_alone(msg, version)
    assert got is not None, f"{type(msg).NAME} v{version}: declined"
    assert got == expected
    assert python_text(got) == python_text(expected)  # key order, and types (1 vs 1.0, True vs 1)
    assert codec.json_form(msg, version) == expected


def test_every_message_and_version_with_its_defaults():
    count = 0
    for name in REGISTRY.names():
        cls = message_class(name)
        for version in cls.versions():
            same_form(cls(), version)
            count += 1
    assert count > 800  # every version of every message the registry knows


def test_golden_vectors():
    spec = importlib.util.spec_from_file_location("kmp_fuzz_for_json", ROOT / "tools" / "fuzz.py")
    fuzz = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = fuzz
    try:
        spec.loader.exec_module(fuzz)
        count = 0
        for name, version, data in fuzz.read_vectors(GOLDEN):
            if name not in REGISTRY.names():
                continue
            cls = message_class(name)
            if version not in cls.versions():
                continue
            same_form(cls.decode(data, version), version)
            count += 1
    finally:
        sys.modules.pop(spec.name, None)
    assert count > 1000


def _hypothesis_messages(data):
    cls = message_class(data.draw(st.sampled_from(REGISTRY.names())))
    version, msg = data.draw(versioned_messages(cls))
    same_form(msg, version)
    text = native.json_text_alone(msg.to_json(version))
    assert text is not None and text == python_text(msg.to_json(version))


test_hypothesis_messages, test_hypothesis_messages_sweep = hypothesis_twins(100, 400, data=st.data())(
    _hypothesis_messages
)


def test_tagged_fields_unknown_fields_and_null_arrays():
    record = PartitionRecord(partition_id=1, topic_id=Uuid.random(), replicas=[1, 2], isr=[2], leader=2,
                             leader_recovery_state=1, directories=[Uuid.random(), Uuid.ZERO_UUID],
                             eligible_leader_replicas=[1], last_known_elr=None)  # fmt: skip
    record.unknown_tagged_fields = ((7, b"\x01\x02"), (9, b""))
    for version in PartitionRecord.versions():
        if version == 0:
            record.directories = []
        same_form(record, version)
    assert "_unknownTaggedFields" in codec.json_form(record, 2)
    assert "leaderRecoveryState" in codec.json_form(record, 2)
    record.leader_recovery_state = 0  # the default: a tagged field left out
    assert "leaderRecoveryState" not in codec.json_form(record, 2)
    same_form(record, 2)


def test_what_it_declines_goes_to_python():
    record = PartitionRecord(partition_id=1, topic_id=Uuid.random())
    record.topic_id = None  # not a valid message: Python's str(None) stands
    assert native.json_form_alone(record, 1) is None
    assert codec.json_form(record, 1) == PartitionRecord._TO_JSON(record, 1)
    assert codec.json_form(record, 1)["topicId"] == "None"
    record = PartitionRecord(partition_id=1, topic_id=Uuid.random(), replicas=(3, 4))  # a tuple: a list out
    assert codec.json_form(record, 1)["replicas"] == [3, 4]
    with pytest.raises(TypeError):
        native.json_form(record, "1")  # what the generated function does with a str version


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4)
    | st.tuples(inner, inner),
    max_leaves=30,
)


def _json_text_is_jsons(value):
    expected = python_text(value)
    got = native.json_text_alone(value)
    has_surrogate = any(0xD800 <= ord(c) <= 0xDFFF for c in expected)
    if has_surrogate:  # not UTF-8: declined, and json's encoder writes it
        assert got is None
    else:
        assert got == expected
    assert codec.json_text(value) == expected


test_json_text_is_jsons, test_json_text_is_jsons_sweep = hypothesis_twins(150, 500, value=json_values)(
    _json_text_is_jsons
)


@pytest.mark.parametrize(
    "value",
    [0.1, -0.0, 1e16, 1e-7, 5e-324, math.inf, -math.inf, math.nan, 2**63, -(2**63) - 1, 10**40,
     "\x00\x1f\x7f\u2028\"\\/\b\f\n\r\t", "é€😀", {"": []}, [[], {}], ()],
)  # fmt: skip
def test_json_text_edges(value):
    assert native.json_text_alone(value) == python_text(value)


def test_json_text_leaves_other_values_to_python():
    class Int(int):
        pass

    for value in ({1: 2}, [Int(3)], {"a": {None: 1}}, "\ud800"):
        assert native.json_text_alone(value) is None
        assert codec.json_text(value) == python_text(value)
    with pytest.raises(TypeError):
        codec.json_text({"a": object()})
