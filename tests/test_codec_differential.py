"""The compiled codec against the pure Python one: identical objects, bytes, sizes and errors.

The compiled layouts are compared alone (``Layout.read/encode/size`` return None where they
decline instead of asking Python) with the Python readers, writers and sizers they stand in for:
over the golden vectors, hypothesis messages of every class, and tools/codec_differential.py's
mutated inputs (a short run here, a million inputs in the slow test)."""

from __future__ import annotations

import copy
import dataclasses
import importlib.util
import sys

import pytest
from hypothesis import strategies as st

from conftest import GOLDEN, ROOT
from tiers import hypothesis_twins, share_and_sweep
from kafka_meta_proto import REGISTRY, DecodeError, EncodeError, codec, message_class
from kafka_meta_proto.strategies import versioned_messages

pytestmark = pytest.mark.skipif(
    codec.active_codec() != "compiled",
    reason=f"the compiled codec is not active ({codec.why_pure_python()})",
)


@pytest.fixture(scope="module")
def diff():
    spec = importlib.util.spec_from_file_location(
        "kmp_codec_differential", ROOT / "tools" / "codec_differential.py"
    )
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
    res = diff.Result()
    count = 0
    for name, version, data in diff.fuzz.read_vectors(GOLDEN):
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


def _hypothesis_messages_alike(diff, data):
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


test_hypothesis_messages_alike, test_hypothesis_messages_alike_sweep = hypothesis_twins(
    100, 400, data=st.data()
)(_hypothesis_messages_alike)


def _other_value(value):
    """A value of the same kind as a default that differs from it, or None to skip the field."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1 if value < 100 else value - 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, tuple):  # unknown tagged fields
        return ((90, b"\x01"),)
    return None


def _struct_default_variants(obj, depth: int = 0):
    """(object, description) for obj with one field of one struct-valued default changed: walks
    struct fields and one default element of each array of structs, a few levels down."""
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if dataclasses.is_dataclass(value):
            for g in dataclasses.fields(value):
                other = _other_value(getattr(value, g.name))
                if other is not None:
                    changed = copy.copy(obj)
                    setattr(changed, f.name, dataclasses.replace(value, **{g.name: other}) if g.init else value)
                    yield changed, f"{f.name}.{g.name}"
            if depth < 3:
                for inner, what in _struct_default_variants(value, depth + 1):
                    changed = copy.copy(obj)
                    setattr(changed, f.name, inner)
                    yield changed, f"{f.name}.{what}"
        elif depth < 3 and f.type.startswith("list[") and f.name != "unknown_tagged_fields":
            element = _element_class(type(obj), f.type)
            if element is not None:
                for inner, what in _struct_default_variants(element(), depth + 1):
                    changed = copy.copy(obj)
                    setattr(changed, f.name, [inner])
                    yield changed, f"{f.name}[0].{what}"


def _element_class(cls, annotation: str):
    """The struct class of a ``list[Struct]`` annotation (the generated modules' own names)."""
    element = getattr(sys.modules[cls.__module__], annotation[len("list[") : -1], None)
    return element if isinstance(element, type) and dataclasses.is_dataclass(element) else None


def test_struct_defaults_are_compared_field_by_field_as_the_writer_does(diff):
    """A tagged or absent field whose default is an empty struct is written (or refused) when any
    one of that struct's fields differs: each field changed in turn, at every version, the compiled
    encode and size equal the Python writer's, or both refuse."""
    res = diff.Result()
    written = 0
    for name in REGISTRY.names():
        cls = message_class(name)
        for msg, what in _struct_default_variants(cls()):
            for version in cls.versions():
                detail = {"message": name, "version": version, "changed": what}
                diff.check_encode(cls, msg, version, res, detail)
                want = diff._python_encode(cls, msg, version)
                written += want is not None and want != diff._python_encode(cls, cls(), version)
    assert res.mismatches == 0, res.findings[:3]
    assert res.declined_encode == 0
    assert written > 100  # changed defaults that the writer wrote (tagged fields at flexible versions)


@pytest.mark.parametrize("inputs", share_and_sweep(10_000, 30_000))
def test_short_differential_fuzz(diff, inputs):
    res = diff.run(inputs, seed=11, quiet=True)
    assert res.inputs == inputs and res.decoded > inputs // 10 and res.encoded > inputs // 10
    assert res.mismatches == 0, res.findings[:3]
    assert res.declined_decode == 0  # every input Python decodes, the compiled codec decodes


@pytest.mark.slow
@pytest.mark.exhaustive
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
        raise DecodeError(
            f"{len(data) - end} trailing bytes after the message",
            end,
            context=f"{cls.NAME} v{version}",
        )
    return msg


@pytest.mark.parametrize("cut", [1, 5, 17, 40])
def test_truncated_input_gives_the_python_error(cut):
    Fetch = message_class("FetchRequest")
    data = Fetch(
        topics=[Fetch.FetchTopic(topic="t", partitions=[Fetch.FetchPartition(partition=3)])]
    ).encode(13)
    short = data[: len(data) - cut]
    e = errors_alike(lambda: Fetch.decode(short, 13), lambda: python_decode(Fetch, short, 13))
    assert e.path and e.offset is not None


def test_bad_lengths_and_utf8_give_the_python_errors():
    Config = message_class("CreateTopicsRequest")
    msg = Config(
        topics=[
            Config.CreatableTopic(
                name="abc", configs=[Config.CreatableTopicConfig(name="k", value="v")]
            )
        ]
    )
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


# -- Record batch records (log/records.py) ------------------------------------------------------


def random_records(rng) -> list:
    from kafka_meta_proto.log.records import Record

    def blob():
        return None if rng.random() < 0.2 else rng.randbytes(rng.choice((0, 1, 7, 64, 300)))

    return [
        Record(
            attributes=0,
            timestamp_delta=rng.choice((0, 1, -1, 5000, 2**40, -(2**63), 2**63 - 1)),
            offset_delta=i if rng.random() < 0.9 else rng.randrange(-(2**31), 2**31),
            key=blob(),
            value=blob(),
            headers=[
                (rng.choice(("h", "trace-id", "é", "")), blob())
                for _ in range(rng.choice((0, 0, 1, 3)))
            ],
        )
        for i in range(rng.choice((1, 2, 5, 40)))
    ]


def python_records(data: bytes, count: int):
    """The Python reader's records (or its error), and whether the first ``count`` came out
    before any error (the check that they fill the section comes after them)."""
    from kafka_meta_proto.log import records

    out: list = []
    saved, records._parse_records = records._parse_records, None
    try:
        for record in records.iter_records(data, 0, count):
            out.append(record)
    except Exception as e:
        return e, len(out) == count
    finally:
        records._parse_records = saved
    return out, True


def read_all(records, data: bytes, count: int, parser):
    """iter_records with the given compiled parser (None: the Python reader alone)."""
    from kafka_meta_proto.log.errors import LogFormatError

    saved, records._parse_records = records._parse_records, parser
    try:
        return list(records.iter_records(data, 0, count))
    except LogFormatError as e:
        return e
    finally:
        records._parse_records = saved


@pytest.mark.parametrize("batches", share_and_sweep(2_000, 8_000))
def test_record_parser_agrees_with_the_python_reader(batches):
    import random

    from kafka_meta_proto.log import records

    compiled = records._parse_records
    assert compiled is not None
    rng = random.Random(18)
    agreed = parsed = 0
    for _ in range(batches):
        recs = random_records(rng)
        data = bytearray(records.encode_records(recs))
        count = len(recs)
        for _ in range(rng.choice((0, 1, 1, 2))):  # damage it
            op = rng.random()
            if op < 0.4 and data:
                data[rng.randrange(len(data))] = rng.choice(
                    (0, 1, 0x7F, 0x80, 0xFF, rng.randrange(256))
                )
            elif op < 0.6 and data:
                del data[rng.randrange(len(data)) :]
            elif op < 0.8:
                data[rng.randrange(len(data) + 1) : 0] = rng.randbytes(rng.randrange(1, 4))
            else:
                count += rng.choice((-1, 1))
        data = bytes(data)
        want, all_read = python_records(data, max(count, 0))
        got = records._parse_records(data, 0, max(count, 0))
        if got is not None:  # what the compiled parser accepts, Python reads the same
            parsed += 1
            assert all_read, (data.hex(), want)
            if not isinstance(want, Exception):
                assert got[0] == want
        through, reference = read_all(records, data, count, compiled), read_all(
            records, data, count, None
        )
        if isinstance(reference, Exception):
            assert type(through) is type(reference) and str(through) == str(reference)
        else:
            assert through == reference
            agreed += 1
    assert parsed > batches // 4 and agreed > batches // 4
