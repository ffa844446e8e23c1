"""encode, size and to_json refuse the same values with the same error, which names the field's
path, what it expects and what it holds; uuid fields take Kafka's text form and uuid.UUID."""

from __future__ import annotations

import dataclasses
import uuid

import pytest

from kafka_meta_proto import (
    REGISTRY,
    EncodeError,
    KafkaProtocolError,
    Uuid,
    UnsupportedVersionError,
    message_class,
)

RegisterBrokerRecord = message_class("RegisterBrokerRecord")
MetadataRequest = message_class("MetadataRequest")
AccessControlEntryRecord = message_class("AccessControlEntryRecord")
BrokerHeartbeatRequest = message_class("BrokerHeartbeatRequest")
TopicRecord = message_class("TopicRecord")


def outcome(msg, version: int):
    """What each of encode, size and to_json does with msg: the result's kind or the error."""
    results = {}
    for name, call in (("encode", msg.encode), ("size", msg.size), ("to_json", msg.to_json)):
        try:
            call(version)
            results[name] = "ok"
        except KafkaProtocolError as e:
            results[name] = (type(e).__name__, str(e))
    return results


def refused_alike(msg, version: int) -> str:
    """The one error all three raise (they must agree), as text."""
    results = outcome(msg, version)
    assert len(set(results.values())) == 1, results
    result = results["encode"]
    assert result != "ok", "expected the value to be refused"
    return result[1]


# -- errors name the path, what the field expects and what it holds ------------------------------


def test_out_of_range_names_path_type_and_range():
    msg = RegisterBrokerRecord(
        end_points=[
            RegisterBrokerRecord.BrokerEndpoint(),
            RegisterBrokerRecord.BrokerEndpoint(port=70000),
        ]
    )
    with pytest.raises(EncodeError) as info:
        msg.encode(3)
    assert (
        str(info.value)
        == "RegisterBrokerRecord v3: end_points[1].port: 70000 is out of range for uint16 (0 to 65535)"
    )
    assert (
        info.value.path == "end_points[1].port" and info.value.context == "RegisterBrokerRecord v3"
    )
    assert refused_alike(msg, 3) == str(info.value)


def test_wrong_type_names_the_expected_type():
    assert refused_alike(RegisterBrokerRecord(broker_id="7"), 3) == (
        "RegisterBrokerRecord v3: broker_id: expects int32 (an integer from -2147483648 to 2147483647), got '7'"
    )
    assert (
        refused_alike(RegisterBrokerRecord(rack=5), 3)
        == "RegisterBrokerRecord v3: rack: expects a str, got 5"
    )
    assert refused_alike(RegisterBrokerRecord(incarnation_id=5), 3) == (
        "RegisterBrokerRecord v3: incarnation_id: expects a Uuid, got 5"
    )
    assert refused_alike(RegisterBrokerRecord(end_points=[{"port": 1}]), 3) == (
        "RegisterBrokerRecord v3: end_points[0]: expects a BrokerEndpoint, got {'port': 1}"
    )
    assert refused_alike(RegisterBrokerRecord(log_dirs=[Uuid.random(), None]), 3) == (
        "RegisterBrokerRecord v3: log_dirs[1]: null element; list elements are never null"
    )


def test_int8_out_of_range_is_refused_by_all_three():
    msg = AccessControlEntryRecord(resource_type=300)
    assert (
        refused_alike(msg, 0)
        == "AccessControlEntryRecord v0: resource_type: 300 is out of range for int8 (-128 to 127)"
    )


def test_null_where_not_nullable_is_refused_by_all_three():
    assert refused_alike(MetadataRequest(topics=None), 0) == (
        "MetadataRequest v0: topics: null, but the field is not nullable in version 0"
    )
    assert refused_alike(
        RegisterBrokerRecord(end_points=[RegisterBrokerRecord.BrokerEndpoint(host=None)]), 3
    ) == (
        "RegisterBrokerRecord v3: end_points[0].host: null, but the field is not nullable in version 3"
    )
    # Where the version allows null, all three take it.
    assert outcome(MetadataRequest(topics=None), 1) == {
        "encode": "ok",
        "size": "ok",
        "to_json": "ok",
    }


def test_a_field_the_version_lacks_is_refused_by_all_three():
    msg = BrokerHeartbeatRequest(offline_log_dirs=[Uuid.random()])  # OfflineLogDirs: v1+
    text = refused_alike(msg, 0)
    assert text.startswith(
        "BrokerHeartbeatRequest v0: offline_log_dirs: BrokerHeartbeatRequest.offline_log_dirs "
    )
    with pytest.raises(UnsupportedVersionError):
        msg.size(0)


def test_long_strings_and_unknown_tags_are_refused_alike():
    assert refused_alike(TopicRecord(name="x" * 40000), 0) == (
        "TopicRecord v0: name: is 40000 bytes of UTF-8; strings hold at most 32767"
    )
    assert "unknown_tagged_fields" in refused_alike(
        MetadataRequest(unknown_tagged_fields=((0, b"x"),)), 4
    )
    assert "unknown_tagged_fields" in refused_alike(
        MetadataRequest(unknown_tagged_fields=((0, "x"),)), 9
    )


# Values to put in a field: one of each kind the writers refuse somewhere, and some they take.
PROBES = [
    None,
    "text",
    b"raw",
    300,
    -1,
    2**40,
    2**70,
    1.5,
    True,
    [],
    [None],
    ["text"],
    [300],
    [2**70],
    object(),
]


def _versions(cls):
    return sorted(
        {cls.LOWEST_VERSION, cls.HIGHEST_VERSION} | ({cls.LOWEST_FLEXIBLE_VERSION} - {None})
    )


def _probes(cls):
    """Messages with a probe in one of their own fields or in the first field of a struct."""
    for info in cls._FIELDS:
        for value in PROBES:
            yield lambda: cls(**{info.name: value})
        if info.struct is not None and info.struct._FIELDS:
            inner = info.struct._FIELDS[0].name
            for value in PROBES:
                element = lambda: info.struct(**{inner: value})  # noqa: E731
                yield lambda: cls(**{info.name: [element()] if info.is_array else element()})


@pytest.mark.parametrize("name", REGISTRY.names())
def test_encode_size_and_to_json_agree(name):
    """For every message, every version kind and a spread of bad and good values in its fields,
    encode, size and to_json all succeed (size == len(encode)) or all raise the same error."""
    cls = message_class(name)
    for version in _versions(cls):
        for build in _probes(cls):
            try:
                msg = build()
            except (TypeError, ValueError):
                continue  # the constructor refused it already (a uuid field given bad text)
            results = outcome(msg, version)
            assert len(set(results.values())) == 1, (name, version, msg, results)
            if results["encode"] == "ok":
                assert msg.size(version) == len(msg.encode(version))
            else:
                kind, text = results["encode"]
                assert text.startswith(f"{name} v{version}: "), text


# -- uuid fields take Kafka's text form and uuid.UUID ----------------------------------------------


def test_uuid_fields_take_text_and_uuid_UUID():
    standard = uuid.UUID("32f0f1cd-5999-46c6-93cf-7df6e544e1e8")
    kafka = Uuid(standard)
    for given in (standard, str(kafka), kafka):
        msg = TopicRecord(name="t", topic_id=given)
        assert type(msg.topic_id) is Uuid and msg.topic_id == kafka
        assert TopicRecord.decode(msg.encode(0), 0) == msg
        assert msg.to_json(0)["topicId"] == str(kafka)
    msg = RegisterBrokerRecord(log_dirs=[standard, str(kafka), kafka])
    assert msg.log_dirs == [kafka, kafka, kafka]
    assert RegisterBrokerRecord.decode(msg.encode(3), 3) == msg
    nested = message_class("FetchRequest").FetchTopic(topic_id=standard)
    assert nested.topic_id == kafka


def test_a_list_of_uuids_is_kept_when_it_holds_only_uuids():
    dirs = [Uuid.random(), Uuid.random()]
    assert RegisterBrokerRecord(log_dirs=dirs).log_dirs is dirs


def test_bad_uuid_text_is_refused_when_the_message_is_built():
    with pytest.raises(ValueError, match="invalid Uuid string"):
        TopicRecord(topic_id="not a uuid")
    # Other values are left for encode to name.
    assert (
        refused_alike(TopicRecord(topic_id=5), 0)
        == "TopicRecord v0: topic_id: expects a Uuid, got 5"
    )


def test_the_constructor_copies_nothing_for_uuids_already():
    msg = TopicRecord(name="t", topic_id=Uuid.ZERO_UUID)
    assert msg.topic_id is Uuid.ZERO_UUID
    assert dataclasses.replace(msg, name="u").topic_id is Uuid.ZERO_UUID
