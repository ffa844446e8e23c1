"""Streaming a batch: decompression in bounded pieces, and records read across piece boundaries,
giving the same bytes, records and errors as the whole-section readers."""

from __future__ import annotations

import gzip
import os
import random

import lz4.frame
import pytest
import zstandard

from kafka_meta_proto.log import BufferSource, LogFormatError, RecordCountError, decode_batch
from kafka_meta_proto.log.compression import (
    PIECE,
    CompressionType,
    compress,
    decompress,
    iter_decompress,
)
from kafka_meta_proto.log.records import (
    Record,
    encode_records,
    iter_records,
    iter_records_in_pieces,
)
from kafka_meta_proto.log.scanning import scan

CODECS = [c for c in CompressionType if c != CompressionType.NONE]
DATA = b"".join(b"record-%06d:" % i + b"metadata " * (i % 7) for i in range(30000)) + os.urandom(
    70000
)
# The most a piece may be when a codec's unit comes whole: a raw snappy block, a Kafka LZ4 block.
WHOLE_UNIT = {CompressionType.SNAPPY: 32 * 1024, CompressionType.LZ4: 64 * 1024}


def _outcome(thunk):
    try:
        return thunk(), None
    except LogFormatError as exc:
        return None, (type(exc).__name__, exc.reason)


def _payloads(codec) -> dict[str, bytes]:
    packed = compress(codec, DATA)
    out = {"kafka's framing": packed}
    if codec != CompressionType.SNAPPY:  # (a snappy-java stream is read as one stream)
        out["twice"] = packed + packed
    if codec == CompressionType.GZIP:
        out["members"] = b"".join(
            gzip.compress(DATA[i : i + 5000], mtime=0) for i in range(0, len(DATA), 5000)
        )
    if codec == CompressionType.LZ4:
        out["frames with checksums, linked"] = (
            lz4.frame.compress(DATA, block_linked=True, content_checksum=True) * 2
        )
    if codec == CompressionType.ZSTD:
        c = zstandard.ZstdCompressor(write_content_size=False)
        out["frames, some empty"] = (
            c.compress(b"") + c.compress(DATA) + c.compress(b"") + c.compress(DATA[:99])
        )
    return out


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: c.name.lower())
@pytest.mark.parametrize("piece", [97, 64 * 1024, PIECE])
def test_pieces_join_to_the_payload_and_stay_bounded(codec, piece):
    for name, payload in _payloads(codec).items():
        pieces = list(iter_decompress(codec, payload, piece=piece))
        assert b"".join(pieces) == decompress(codec, payload), name
        assert all(pieces), "no empty pieces"
        assert max(map(len, pieces)) <= max(piece, WHOLE_UNIT.get(codec, 0)), name


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: c.name.lower())
def test_damaged_payloads_fail_the_same_way_whole_or_in_pieces(codec):
    rng = random.Random(codec)
    for name, payload in _payloads(codec).items():
        cuts = [len(payload) - 1, len(payload) - 5, len(payload) // 2, 20, 3]
        damaged = [payload[:cut] for cut in cuts]
        for _ in range(10):
            flipped = bytearray(payload)
            flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
            damaged.append(bytes(flipped))
        for bad in damaged:
            whole = _outcome(lambda: decompress(codec, bad))
            streamed = _outcome(lambda: b"".join(iter_decompress(codec, bad, piece=4096)))
            assert whole == streamed, name


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: c.name.lower())
def test_the_limit_holds_in_pieces(codec):
    payload = compress(codec, DATA)
    expected = _outcome(lambda: decompress(codec, payload, max_size=len(DATA) - 1))
    assert expected[1] is not None and "limit" in expected[1][1]
    got = _outcome(
        lambda: b"".join(iter_decompress(codec, payload, max_size=len(DATA) - 1, piece=999))
    )
    assert got == expected
    assert b"".join(iter_decompress(codec, payload, max_size=len(DATA))) == DATA


# --- records across pieces -------------------------------------------------------------------


def _random_records(rng: random.Random, n: int) -> list[Record]:
    def blob(most: int) -> bytes:
        return rng.randbytes(rng.randrange(most))

    return [
        Record(timestamp_delta=rng.randrange(-10**9, 10**9), offset_delta=i,
               key=blob(30) if rng.random() < 0.5 else None, value=blob(400),
               headers=[(f"h{j}", blob(5)) for j in range(rng.randrange(3))])  # fmt: skip
        for i in range(n)
    ]


def _split(data: bytes, rng: random.Random) -> list[bytes]:
    pieces, i = [], 0
    while i < len(data):
        n = rng.choice([1, 2, 3, 5, 8, 64, 700, 5000])
        pieces.append(data[i : i + n])
        i += n
    return pieces


def _read(thunk) -> tuple[list, tuple | None]:
    out = []
    try:
        for record in thunk():
            out.append(record)
    except LogFormatError as exc:
        return out, (type(exc).__name__, exc.reason)
    return out, None


def test_records_read_across_any_piece_boundaries_match_the_whole_reader():
    rng = random.Random(15)
    data = encode_records(_random_records(rng, 200))
    for trial in range(800):
        damaged = bytearray(data)
        for _ in range(rng.randrange(3)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        if rng.random() < 0.3:
            del damaged[rng.randrange(len(damaged) - 40, len(damaged)) :]
        damaged = bytes(damaged)
        count = rng.choice([200, 200, 199, 201])
        whole = _read(lambda: iter_records(damaged, 0, count))
        streamed = _read(lambda: iter_records_in_pieces(_split(damaged, rng), count))
        assert whole == streamed, trial


def test_a_record_larger_than_many_pieces_is_carried_whole():
    records = [
        Record(value=b"a" * 3),
        Record(offset_delta=1, value=os.urandom(300_000)),
        Record(offset_delta=2),
    ]
    data = encode_records(records)
    pieces = [data[i : i + 1000] for i in range(0, len(data), 1000)]
    assert list(iter_records_in_pieces(pieces, 3)) == records


def test_bytes_after_the_last_record_in_later_pieces_are_counted():
    data = encode_records([Record(value=b"x")] * 3) + b"\x00" * 5000
    with pytest.raises(RecordCountError, match="5000 bytes left over after the last of 3 records"):
        list(iter_records_in_pieces([data[:10], data[10:20], data[20:]], 3))


def _compressed_batch(records: list[Record], codec, count: int | None = None) -> bytes:
    from kafka_meta_proto.log.header import MIN_BATCH_LENGTH, pack_header, seal

    payload = compress(codec, encode_records(records))
    n = len(records) if count is None else count
    header = pack_header(
        0, MIN_BATCH_LENGTH + len(payload), 0, int(codec), n - 1, 0, 0, -1, -1, -1, n
    )
    return seal(header, payload)


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: c.name.lower())
def test_a_batch_streamed_over_many_pieces_gives_its_records_and_errors_at_its_position(codec):
    records = _random_records(random.Random(3), 12_000)  # ~2.6 MiB: several pieces
    data = _compressed_batch(records, codec)
    (view,) = scan(BufferSource(data))
    assert list(view.records()) == records == decode_batch(data)[0].records
    padded = b"\x00" * 100 + _compressed_batch(records, codec, count=len(records) + 1)
    (view,) = scan(BufferSource(padded), 100)
    with pytest.raises(
        RecordCountError, match="record 12000: .*fewer records than the count"
    ) as info:
        for _ in view.records():
            pass
    assert info.value.position is None  # the reader of views places it (malformed, dump-log)
    with pytest.raises(RecordCountError) as whole:
        decode_batch(padded, 100)
    assert whole.value.position == whole.value.offset == 100
    assert whole.value.reason == info.value.reason
