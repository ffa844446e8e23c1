"""The compiled codec's rows of a metadata batch (``RecordDecoder.compiled_rows``) and its walk over
a file's plain batches (``RecordDecoder.compiled_walk``) against the Python loops they stand in for:
the same Arrow batches, cut at the same rows, and the same JSON forms, over hypothesis files mixing
every kind of record the loop meets (values that decode, repeat, are large, null, undecodable or of
unknown types; keys and headers; offsets out of order; a count that does not match what the batch
holds), batches the walk leaves to Python (compressed, control, a CRC that does not match), bytes
that are no batch, a truncated tail, units that cut the file, and small row and payload limits."""

from __future__ import annotations

import gzip

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_meta_proto import codec, kraft
from kafka_meta_proto.log.header import MIN_BATCH_LENGTH, pack_header, seal
from kafka_meta_proto.log.records import Record, encode_records
from kafka_meta_proto.pipeline import record_decoder, rows
from kafka_meta_proto.pipeline.decode import decode_unit

from .logs import config, noop, partition, partition_change, topic, uuid

pytestmark = pytest.mark.skipif(
    codec.active_codec() != "compiled",
    reason=f"the compiled codec is not active ({codec.why_pure_python()})",
)

VALUES = [kraft.encode_record_value(m, v) for m, v in (
    noop(), topic("t", uuid(1)), partition(uuid(1), 0), partition(uuid(1), 1, replicas=(1, 2, 3)),
    partition_change(uuid(1), 0, leader=3), config("t", "retention.ms", "1" * 400),  # a large value
)] + [
    b"\x01\x14\x07\x00",  # NoOpRecord at a version it does not have
    b"\x01\x7e\x00\x00",  # an unknown record type
    b"\x00\x14\x00\x00",  # an unknown frame version
    b"\x01\x83\x01\x00\x00",  # a record type in two varint bytes (the Python reader's)
    b"\x01\x03\x00",  # a PartitionRecord cut short
]  # fmt: skip

records = st.builds(
    lambda value, key, headers, delta: (value, key, headers, delta),
    st.one_of(st.sampled_from(VALUES), st.none(), st.binary(max_size=12)),
    st.one_of(st.none(), st.binary(max_size=4)),
    st.lists(st.tuples(st.text(max_size=3), st.one_of(st.none(), st.binary(max_size=3))), max_size=2),
    st.one_of(st.none(), st.integers(0, 40)),  # None: the record's index (offsets in order)
)


PLAIN, GZIP, CONTROL, CORRUPT, GARBAGE_BEFORE = "plain", "gzip", "control", "corrupt", "garbage before"
SHAPES = st.sampled_from([PLAIN, PLAIN, PLAIN, GZIP, CONTROL, CORRUPT, GARBAGE_BEFORE])


def batch_file(tmp_path, batches, tail: int = 0) -> dict:
    """A log of ``batches`` ((records, count - records, timestamp type) or with a shape too),
    its last batch cut short by ``tail`` bytes."""
    data = b""
    for i, (items, extra_count, timestamp_type, *shape) in enumerate(batches):
        shape = shape[0] if shape else PLAIN
        recs = [Record(offset_delta=i if d is None else d, timestamp_delta=i * 7, key=k, value=v, headers=h)
                for i, (v, k, h, d) in enumerate(items)]  # fmt: skip
        payload = encode_records(recs)
        count = len(recs) + extra_count
        attributes = 0x08 if timestamp_type else 0
        if shape == GZIP:
            payload, attributes = gzip.compress(payload, mtime=0), attributes | 0x01
        elif shape == CONTROL:
            attributes |= 0x20
        header = pack_header(i * 100, MIN_BATCH_LENGTH + len(payload), i % 3 - 1, attributes, max(count - 1, 0),
                             1_700_000_000_000, 1_700_000_009_000, -1, -1, -1, count)  # fmt: skip
        batch = seal(header, payload)
        if shape == CORRUPT:
            batch = batch[:-1] + bytes([batch[-1] ^ 0xFF]) if payload else batch[:17] + b"\0\0\0\0" + batch[21:]
        elif shape == GARBAGE_BEFORE:
            data += b"\x07" * 9
        data += batch
    data = data[: len(data) - tail]
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(data)
    return {"cluster": "c", "file": path.name, "kind": "log", "uri": str(path), "start": 0, "end": len(data)}


def units(unit: dict, cut: float) -> list[dict]:
    """The unit, or two units cutting its file at ``cut`` of its length."""
    at = int(unit["end"] * cut)
    return [unit] if at in (0, unit["end"]) else [{**unit, "end": at}, {**unit, "start": at}]


def decoded(unit: dict, batch_rows: int) -> dict:
    """The unit's Arrow batches as rows, with the RECORD batches' JSON forms, by kind of row (the
    order of two kinds' batches may differ: a buffer filling mid-batch is handed on before the
    other kinds' full ones)."""
    out: dict = {}
    holder: list = []
    for batch in decode_unit(unit, batch_rows=batch_rows, rows_out=holder):
        kind = batch.column("kind")[0].as_py()
        forms = holder[0].flushed_data if kind == rows.RowKind.RECORD else None
        out.setdefault(kind, []).append((batch.to_pylist(), forms))
    return out


def three_ways(unit: dict, batch_rows: int, monkeypatch) -> tuple[list, list, list]:
    """The rows made with the compiled walk, with the compiled batch rows only, and in Python."""
    walked = decoded(unit, batch_rows)
    with monkeypatch.context() as m:
        m.setattr(record_decoder, "_batch_walk", None)
        compiled = decoded(unit, batch_rows)
        m.setattr(record_decoder, "_batch_rows", None)
        m.setattr(record_decoder, "_record_row", None)
        python = decoded(unit, batch_rows)
    return walked, compiled, python


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    batches=st.lists(st.tuples(st.lists(records, max_size=12), st.sampled_from([0, 0, 0, 1, -1]), st.booleans(),
                               SHAPES),
                     min_size=1, max_size=5),
    tail=st.sampled_from([0, 0, 0, 5, 70]),
    cut=st.sampled_from([1.0, 1.0, 0.3, 0.6]),
    batch_rows=st.sampled_from([2, 5, 64]),
    row_bytes=st.sampled_from([300, 1 << 20]),
)  # fmt: skip
def test_the_compiled_rows_are_the_python_loops(tmp_path_factory, monkeypatch, batches, tail, cut, batch_rows,
                                                row_bytes):  # fmt: skip
    whole = batch_file(tmp_path_factory.mktemp("b"), batches, tail)
    for unit in units(whole, cut):
        with monkeypatch.context() as m:
            m.setattr(rows, "ROW_BYTES", row_bytes)
            walked, compiled, python = three_ways(unit, batch_rows, monkeypatch)
        assert compiled == python
        assert walked == python


def test_the_walk_reads_plain_batches_in_c(tmp_path, monkeypatch):
    """Plain batches never reach the Python walk's batch reader; the others do, one each."""
    plain = [(VALUES[i % 5], None, [], None) for i in range(3)]
    shapes = [PLAIN, PLAIN, GZIP, PLAIN, CONTROL, PLAIN, CORRUPT, PLAIN]
    unit = batch_file(tmp_path, [(plain, 0, False, shape) for shape in shapes])
    seen = []
    add_batch = rows.UnitRows.add_batch
    monkeypatch.setattr(rows.UnitRows, "add_batch", lambda self, view: seen.append(view.position) or add_batch(self, view))
    out = decoded(unit, 1000)
    assert len(seen) == 2  # the gzip and control batches (the corrupt one is damage)
    assert sum(len(b) for b, forms in out[rows.RowKind.RECORD]) == 3 * 6  # (the control batch is malformed)


def test_the_compiled_rows_do_the_work(tmp_path, monkeypatch):
    """Not a comparison of two Python loops: the compiled rows are made without the Python loop."""
    items = [(VALUES[i % 5], None, [], None) for i in range(50)]
    unit = batch_file(tmp_path, [(items, 0, False)])
    calls = []
    loop = rows.UnitRows._metadata_records
    monkeypatch.setattr(rows.UnitRows, "_metadata_records", lambda self, *a: calls.append(1) or loop(self, *a))
    out = decoded(unit, 1000)
    assert sum(len(b) for b, forms in out[rows.RowKind.RECORD]) == 50
    assert calls == []


def test_a_timestamp_past_int64_fails_alike(tmp_path, monkeypatch):
    recs = encode_records([Record(offset_delta=0, timestamp_delta=2**62, value=VALUES[0])])
    header = pack_header(0, MIN_BATCH_LENGTH + len(recs), 0, 0, 0, 2**62, 2**62, -1, -1, -1, 1)
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(seal(header, recs))
    unit = {"cluster": "c", "file": path.name, "kind": "log", "uri": str(path), "start": 0, "end": path.stat().st_size}
    errors = []
    for patched in (False, True):
        with monkeypatch.context() as m:
            if patched:
                m.setattr(record_decoder, "_batch_rows", None)
            with pytest.raises(Exception) as info:
                decoded(unit, 100)
            errors.append(type(info.value))
    assert errors[0] is errors[1]


def test_the_c_code_names_the_lists_as_the_columns_are_ordered():
    """The compiled row makers fill the row buffers' lists by position: the names they give
    those positions are the columns' own, in order."""
    from kafka_meta_proto.pipeline.columns import BATCH_COLUMNS, RECORD_COLUMNS

    compiled = record_decoder._compiled
    assert compiled.RECORD_LISTS == tuple(RECORD_COLUMNS)
    assert compiled.BATCH_LISTS == tuple(BATCH_COLUMNS)
    assert compiled.ROW_LISTS == rows.COMPILED_ROW_COLUMNS
