"""The compiled codec against the pure Python one: identical objects, bytes, sizes and errors.

The compiled layouts are compared alone (``Layout.read/encode/size`` return None where they
decline instead of asking Python) with the Python readers, writers and sizers they stand in for:
over the golden vectors, hypothesis messages of every class, and tools/codec_differential.py's
mutated inputs (a short run here, a million inputs in the slow test)."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ROOT, reference
from kafka_meta_proto import REGISTRY, DecodeError, EncodeError, codec, message_class
from kafka_meta_proto.strategies import versioned_messages

pytestmark = pytest.mark.skipif(
    codec.active_codec() != "compiled", reason=f"the compiled codec is not active ({codec.why_pure_python()})"
)


@pytest.fixture(scope="module")
def diff():
    spec = importlib.util.spec_from_file_location("kmp_codec_differential", ROOT / "tools" / "codec_differential.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


def python_encode(msg, version: int) -> bytes:
    out: list = []
    type(msg)._WRITERS[version](msg, out)
    return b"".join(out)


def test_every_message_version_has_a_compiled_layout():
    for name in REGISTRY.names():
        cls = message_class(name)
        assert set(cls._LAYOUTS) == set(cls.versions()), name
        for version, layout in cls._LAYOUTS.items():
            assert layout.cls is cls and cls._READERS[version] is layout


def test_golden_vectors_decode_and_encode_alike(diff):
    folder = reference("vectors")
    res = diff.Result()
    count = 0
    for name, version, data in diff.fuzz.read_vectors(folder):
        if name not in REGISTRY.names():
            continue
        cls = message_class(name)
        if version not in cls._LAYOUTS:
            continue
        count += 1
        detail = {"message": name, "version": version}
        msg = diff.check_decode(cls, version, data, res, detail)
        assert msg is not None, f"{name} v{version}: golden vector does not decode"
        diff.check_encode(cls, msg, version, res, detail)
        assert cls.decode(data, version).encode(version) == python_encode(msg, version)
    assert count > 1000
    assert res.mismatches == 0, res.findings[:3]
    assert res.declined_decode == 0 and res.declined_encode == 0


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_hypothesis_messages_alike(diff, data):
    cls = message_class(data.draw(st.sampled_from(REGISTRY.names())))
    version, msg = data.draw(versioned_messages(cls))
    res = diff.Result()
    detail = {"message": cls.NAME, "version": version}
    diff.check_encode(cls, msg, version, res, detail)
    assert res.mismatches == 0, res.findings
    try:
        encoded = python_encode(msg, version)
    except Exception:
        return  # a value the writer refuses: check_encode saw the compiled codec decline it
    assert res.declined_encode == 0, f"compiled encode declined a valid {cls.NAME} v{version}"
    assert msg.encode(version) == encoded and msg.size(version) == len(encoded)
    back = diff.check_decode(cls, version, encoded, res, detail)
    assert res.mismatches == 0 and res.declined_decode == 0, res.findings
    assert diff.same(back, cls.decode(encoded, version))


def test_short_differential_fuzz(diff):
    res = diff.run(30_000, seed=11, quiet=True)
    assert res.inputs == 30_000 and res.decoded > 3_000 and res.encoded > 3_000
    assert res.mismatches == 0, res.findings[:3]
    assert res.declined_decode == 0  # every input Python decodes, the compiled codec decodes


@pytest.mark.slow
def test_differential_fuzz_a_million_inputs(diff):
    res = diff.run(1_000_000, seed=18, jobs=2, quiet=True)
    assert res.inputs == 1_000_000
    assert res.mismatches == 0, res.findings[:3]
    assert res.declined_decode == 0


# -- Errors through the public methods: the same whichever codec is active ----------------------


def errors_alike(call_compiled, call_python):
    with pytest.raises(Exception) as compiled:
        call_compiled()
    with pytest.raises(Exception) as python:
        call_python()
    a, b = compiled.value, python.value
    assert type(a) is type(b) and str(a) == str(b)
    if isinstance(a, DecodeError):
        assert (a.path, a.offset, a.context) == (b.path, b.offset, b.context)
    return a


def python_decode(cls, data, version):
    """Message.decode's work done by the Python reader (what the compiled codec falls back on)."""
    reader = cls._LAYOUTS[version].python_reader
    try:
        msg, end = reader(bytes(data), 0)
    except DecodeError as e:
        e.__dict__.pop("_element", None)
        e.context = f"{cls.NAME} v{version}"
        raise
    if end != len(data):
        raise DecodeError(f"{len(data) - end} trailing bytes after the message", end, context=f"{cls.NAME} v{version}")
    return msg


@pytest.mark.parametrize("cut", [1, 5, 17, 40])
def test_truncated_input_gives_the_python_error(cut):
    Fetch = message_class("FetchRequest")
    data = Fetch(topics=[Fetch.FetchTopic(topic="t", partitions=[Fetch.FetchPartition(partition=3)])]).encode(13)
    short = data[: len(data) - cut]
    e = errors_alike(lambda: Fetch.decode(short, 13), lambda: python_decode(Fetch, short, 13))
    assert e.path and e.offset is not None


def test_bad_lengths_and_utf8_give_the_python_errors():
    Config = message_class("CreateTopicsRequest")
    msg = Config(topics=[Config.CreatableTopic(name="abc", configs=[Config.CreatableTopicConfig(name="k", value="v")])])
    data = bytearray(msg.encode(7))
    at = data.index(b"abc")
    bad_utf8 = bytes(data[:at] + b"\xff" + data[at + 1 :])
    errors_alike(lambda: Config.decode(bad_utf8, 7), lambda: python_decode(Config, bad_utf8, 7))
    huge = bytes(data[: at - 1] + b"\x7f" + data[at:])  # name length 126 runs past the end
    errors_alike(lambda: Config.decode(huge, 7), lambda: python_decode(Config, huge, 7))
    trailing = bytes(data) + b"\x00"
    errors_alike(lambda: Config.decode(trailing, 7), lambda: python_decode(Config, trailing, 7))


def test_version_and_argument_errors_are_the_python_ones():
    Fetch = message_class("FetchRequest")
    from kafka_meta_proto.errors import UnsupportedVersionError

    with pytest.raises(UnsupportedVersionError, match="FetchRequest has no version 99"):
        Fetch.decode(b"", 99)
    with pytest.raises(UnsupportedVersionError):
        Fetch().encode(99)
    with pytest.raises(UnsupportedVersionError):
        Fetch().size(-1)
    with pytest.raises(TypeError, match="decode takes bytes, not str"):
        Fetch.decode("abc", 13)


def test_encode_errors_are_the_python_ones():
    Broker = message_class("RegisterBrokerRecord")
    msg = Broker(end_points=[Broker.BrokerEndpoint(), Broker.BrokerEndpoint(port=70000)])
    with pytest.raises(EncodeError) as info:
        msg.encode(3)
    assert info.value.path == "end_points[1].port"
    with pytest.raises(EncodeError) as sized:
        msg.size(3)
    assert str(sized.value) == str(info.value)


def test_bytes_likes_offsets_and_zero_copy_fields():
    Fetch = message_class("FetchResponse")
    msg = Fetch(responses=[Fetch.FetchableTopicResponse(topic="t", partitions=[
        Fetch.PartitionData(partition_index=1, records=b"r" * 100)])])  # fmt: skip
    data = msg.encode(12)
    for form in (data, bytearray(data), memoryview(data)):
        back = Fetch.decode(form, 12)
        records = back.responses[0].partitions[0].records
        assert type(records) is memoryview and bytes(records) == b"r" * 100
    framed = b"xyz" + data + b"tail"
    back, end = Fetch.decode_from(framed, 12, 3)
    assert end == 3 + len(data) and back == Fetch.decode(data, 12)


def test_every_layout_handles_what_python_handles():
    # every call above went through the compiled codec without needing the Python one
    assert codec.fallback_successes()["decode"] == 0
