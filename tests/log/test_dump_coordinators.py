"""dump-log --offsets-decoder, --transaction-log-decoder and --share-group-state-decoder.

The golden files under tests/log/golden/coordinators/ are the output of Kafka's own
DumpLogSegments (3.9.2 and 4.4.0, run from their published jars) on the segments that
``coordinator_segments.write_segment`` writes, with the flag each file names. Our text must equal
theirs line for line, but for the reason after ``Error at offset N, skipping.`` (the reason is this
library's error message, not Java's exception text)."""

from __future__ import annotations

import io
import json
import os
import random
import struct
from pathlib import Path

import pytest

from kafka_meta_proto import cli
from kafka_meta_proto.tools import dump
from kafka_meta_proto.kraft.coordinator_records import (
    GROUP_COORDINATOR,
    SHARE_COORDINATOR,
    TRANSACTION_COORDINATOR,
    UnknownRecordTypeError,
    decode_coordinator_record,
)
from kafka_meta_proto.errors import DecodeError

from .coordinator_segments import RECORDS, write_segment

GOLDEN = Path(__file__).parent / "golden" / "coordinators"
ERROR = "skipping. "


def same_but_error_reasons(ours: list[str], theirs: list[str]) -> list[tuple[int, str, str]]:
    """Lines that differ, a line that reports an error compared up to the reason."""
    differing = []
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if " Error at offset " in b and ERROR in b:
            a, b = a.split(ERROR)[0], b.split(ERROR)[0]
        if a != b:
            differing.append((i, a, b))
    return differing


CASES = [  # golden file, scope, decoder, release, broken records written, skip record metadata
    ("offsets.4.4.0.txt", GROUP_COORDINATOR, "offsets", "4.4.0", True, False),
    ("offsets.3.9.2.txt", GROUP_COORDINATOR, "offsets", "3.9.2", True, False),
    ("offsets.skip-record-metadata.4.4.0.txt", GROUP_COORDINATOR, "offsets", "4.4.0", True, True),
    ("offsets.skip-record-metadata.3.9.2.txt", GROUP_COORDINATOR, "offsets", "3.9.2", True, True),
    ("transaction-log.4.4.0.txt", TRANSACTION_COORDINATOR, "transaction-log", "4.4.0", True, False),
    (
        "transaction-log.unbroken.3.9.2.txt",
        TRANSACTION_COORDINATOR,
        "transaction-log",
        "3.9.2",
        False,
        False,
    ),
    ("share-group-state.4.4.0.txt", SHARE_COORDINATOR, "share-group-state", "4.4.0", True, False),
]


@pytest.mark.parametrize(
    "golden, scope, decoder, release, broken, skip", CASES, ids=[c[0] for c in CASES]
)
def test_dump_equals_kafkas_own(
    tmp_path, monkeypatch, golden, scope, decoder, release, broken, skip
):
    write_segment(tmp_path, scope, broken=broken)
    monkeypatch.chdir(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    status = dump.dump(["00000000000000000000.log"], out, err, decoder=decoder,
                       form=dump.tool_form(release), skip_record_metadata=skip)  # fmt: skip
    ours, theirs = out.getvalue().splitlines(), (GOLDEN / golden).read_text().splitlines()
    differing = same_but_error_reasons(ours, theirs)
    assert not differing, "\n".join(
        f"line {i}:\n  ours:  {a}\n  Kafka: {b}" for i, a, b in differing[:4]
    )
    assert len(ours) == len(theirs) > 8
    unreadable = sum(" Error at offset " in line or "Unknown record type" in line or "unknown::" in line
                     for line in theirs)  # fmt: skip
    assert status == (1 if unreadable else 0) and err.getvalue() == ""


def test_consumer_protocol_bytes_are_shown_decoded_and_bad_ones_kept(tmp_path):
    out = io.StringIO()
    dump.dump(
        [str(write_segment(tmp_path, GROUP_COORDINATOR))], out, io.StringIO(), decoder="offsets"
    )
    groups = [line for line in out.getvalue().splitlines() if '"protocolType":' in line]
    decoded = '"subscription":{"topics":["orders","payments"],"userData":"AAE="'
    assert all(decoded in line for line in groups[:5])  # GroupMetadataValue v0-v4
    assert (
        '"subscription":"AA==","assignment":{"assignedPartitions":' in groups[5]
    )  # one byte: kept
    assert (
        '"protocolType":"connect"' in groups[6] and '"subscription":"AAMAAAAC' in groups[6]
    )  # not "consumer"


def test_command_line_flags(tmp_path, capsys):
    path = write_segment(tmp_path, TRANSACTION_COORDINATOR, broken=False)
    assert (
        cli.main(["dump-log", "--transaction-log-decoder", "--kafka-version", "3.9", str(path)])
        == 0
    )
    out = capsys.readouterr().out
    assert "key: transaction_metadata::transactionalId=tx-1 payload: producerId:4000,producerEpoch:2," \
        "state=PrepareCommit,partitions=[orders-0,orders-1],txnLastUpdateTimestamp=1730000000000," \
        "txnTimeoutMs=60000" in out  # fmt: skip
    assert (
        cli.main(["dump-log", "--share-group-state-decoder", "--kafka-version", "3.9", str(path)])
        == 2
    )
    assert "no --share-group-state-decoder" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # one decoder at a time, as Kafka takes them
        cli.main(["dump-log", "--offsets-decoder", "--transaction-log-decoder", str(path)])


def test_json_form_of_a_coordinators_records(tmp_path):
    path = write_segment(tmp_path, GROUP_COORDINATOR)
    out = io.StringIO()
    status = dump.dump([str(path)], out, io.StringIO(), as_json=True, decoder="offsets")
    objs = [json.loads(line) for line in out.getvalue().splitlines()]
    first = objs[0]
    assert (first["type"], first["version"], first["error"]) == ("OffsetCommit", 0, None)
    assert first["data"]["key"] == {"group": "g1", "topic": "orders", "partition": 3}
    assert first["data"]["value"]["offset"] == 42
    tombstone = objs[5]
    assert tombstone["data"]["value"] is None and tombstone["version"] is None
    assert [o["error"] is not None for o in objs if not o["control"]].count(
        True
    ) == 3 and status == 1
    assert objs[-1]["type"] == "COMMIT"


# --- the decoder on bad input --------------------------------------------------------------


def test_decode_errors_name_the_part_and_the_field():
    key = struct.pack(">h", 1) + b"\x00\x02g1"
    with pytest.raises(DecodeError) as caught:
        decode_coordinator_record(GROUP_COORDINATOR, key, b"\x00\x01")
    assert "key OffsetCommitKey v0" in str(caught.value) and caught.value.path
    with pytest.raises(UnknownRecordTypeError) as unknown:
        decode_coordinator_record(TRANSACTION_COORDINATOR, b"\x00\x07", None)
    assert unknown.value.record_type == 7
    with pytest.raises(DecodeError, match="value"):
        decode_coordinator_record(
            TRANSACTION_COORDINATOR, RECORDS[TRANSACTION_COORDINATOR]()[0][0], b"\x00\x09"
        )


@pytest.mark.parametrize("scope", [GROUP_COORDINATOR, TRANSACTION_COORDINATOR, SHARE_COORDINATOR])
def test_random_damage_gives_decode_errors_only(scope):
    rng = random.Random(16)
    pairs = [(k, v) for k, v in RECORDS[scope]() if k is not None and len(k) >= 2]
    for _ in range(3000):
        key, value = rng.choice(pairs)
        which = rng.random()
        if which < 0.4 and value:
            value = bytearray(value)
            value[rng.randrange(len(value))] = rng.randrange(256)
            value = bytes(value[: rng.randrange(len(value) + 1)])
        elif which < 0.7:
            key = bytearray(key)
            key[rng.randrange(len(key))] = rng.randrange(256)
            key = bytes(key[: rng.randrange(len(key) + 1)])
        else:
            value = os.urandom(rng.randrange(12))
        try:
            decode_coordinator_record(scope, key, value)
        except DecodeError:
            pass
