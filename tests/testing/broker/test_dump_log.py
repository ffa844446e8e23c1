"""``kafka-meta-proto dump-log`` reads the broker's partition directories: every batch the
broker wrote, in order, with the offsets, producer fields, leader epoch and codec it was given
and a CRC that holds. (Its payload column decodes metadata records, which data records are not:
each record line says so, and the exit status is 1 for that reason alone.)"""

from __future__ import annotations

import re

from kafka_meta_proto import cli
from kafka_meta_proto.log import CompressionType, list_segments

from .helpers import batch, one_broker, produce, run

BATCH_LINE = re.compile(
    r"baseOffset: (\d+) lastOffset: (\d+) count: (\d+) baseSequence: (-?\d+) lastSequence: (-?\d+) "
    r"producerId: (-?\d+) producerEpoch: (-?\d+) partitionLeaderEpoch: (\d+) .* "
    r"compresscodec: (\w+) crc: \d+ isvalid: (\w+)"
)


def test_dump_log_reads_every_batch_of_a_partition(tmp_path, capsys):
    async def main():
        async with one_broker(tmp_path) as setup:
            await produce(setup, "events", 0, batch([b"a", b"b"], compression=CompressionType.GZIP,
                                                    producer=(3, 0, 0)))  # fmt: skip
            await produce(setup, "events", 0, batch([b"c"], keys=[b"k"]))
            setup.metadata.move_leader("events", 0, 0)
            await produce(setup, "events", 0, batch([b"d", b"e", b"f"], compression=CompressionType.ZSTD,
                                                    producer=(3, 0, 2)))  # fmt: skip
            return setup.broker.replicas.get("events", 0).directory

    directory = run(main())
    files = [str(s.path) for s in list_segments(directory)]
    assert cli.main(["dump-log", *files]) == 1  # the payloads are not metadata records
    out = capsys.readouterr().out
    batches = [m.groups() for m in BATCH_LINE.finditer(out)]
    assert batches == [
        ("0", "1", "2", "0", "1", "3", "0", "0", "gzip", "true"),
        ("2", "2", "1", "-1", "-1", "-1", "-1", "0", "none", "true"),
        ("3", "5", "3", "2", "4", "3", "0", "1", "zstd", "true"),
    ]
    assert [line.split(" CreateTime")[0] for line in out.splitlines() if line.startswith("| offset")] == [
        f"| offset: {i}" for i in range(6)
    ]
