"""The compiled codec's rows of a metadata batch (``RecordDecoder.batch_rows``) against the Python
loop they stand in for: the same Arrow batches, cut at the same rows, and the same JSON forms, over
hypothesis batches mixing every kind of record the loop meets (values that decode, repeat, are
large, null, undecodable or of unknown types; keys and headers; offsets out of order; a count that
does not match what the batch holds) and small row and payload limits."""

from __future__ import annotations

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


def batch_file(tmp_path, batches) -> dict:
    data = b""
    for i, (items, extra_count, timestamp_type) in enumerate(batches):
        recs = [Record(offset_delta=i if d is None else d, timestamp_delta=i * 7, key=k, value=v, headers=h)
                for i, (v, k, h, d) in enumerate(items)]  # fmt: skip
        payload = encode_records(recs)
        count = len(recs) + extra_count
        attributes = 0x08 if timestamp_type else 0
        header = pack_header(i * 100, MIN_BATCH_LENGTH + len(payload), 0, attributes, max(count - 1, 0),
                             1_700_000_000_000, 1_700_000_009_000, -1, -1, -1, count)  # fmt: skip
        data += seal(header, payload)
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(data)
    return {"cluster": "c", "file": path.name, "kind": "log", "uri": str(path), "start": 0, "end": len(data)}


def decoded(unit: dict, batch_rows: int) -> list:
    out = []
    holder: list = []
    for batch in decode_unit(unit, batch_rows=batch_rows, rows_out=holder):
        forms = holder[0].flushed_data if batch.column("kind")[0].as_py() == rows.RowKind.RECORD else None
        out.append((batch.to_pylist(), forms))
    return out


def both(unit: dict, batch_rows: int, monkeypatch) -> tuple[list, list]:
    compiled = decoded(unit, batch_rows)
    with monkeypatch.context() as m:
        m.setattr(record_decoder, "_batch_rows", None)
        m.setattr(record_decoder, "_record_row", None)
        python = decoded(unit, batch_rows)
    return compiled, python


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    batches=st.lists(st.tuples(st.lists(records, max_size=12), st.sampled_from([0, 0, 0, 1, -1]), st.booleans()),
                     min_size=1, max_size=4),
    batch_rows=st.sampled_from([2, 5, 64]),
    row_bytes=st.sampled_from([300, 1 << 20]),
)  # fmt: skip
def test_the_compiled_rows_are_the_python_loops(tmp_path_factory, monkeypatch, batches, batch_rows, row_bytes):
    unit = batch_file(tmp_path_factory.mktemp("b"), batches)
    with monkeypatch.context() as m:
        m.setattr(rows, "ROW_BYTES", row_bytes)
        compiled, python = both(unit, batch_rows, monkeypatch)
    assert compiled == python


def test_the_compiled_rows_do_the_work(tmp_path, monkeypatch):
    """Not a comparison of two Python loops: the compiled rows are made without the Python loop."""
    items = [(VALUES[i % 5], None, [], None) for i in range(50)]
    unit = batch_file(tmp_path, [(items, 0, False)])
    calls = []
    loop = rows.UnitRows._metadata_records
    monkeypatch.setattr(rows.UnitRows, "_metadata_records", lambda self, *a: calls.append(1) or loop(self, *a))
    out = decoded(unit, 1000)
    assert sum(len(b) for b, forms in out if forms is not None) == 50
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
