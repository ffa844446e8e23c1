"""Planting faults: each one waits for its point in the log, then breaks a KRaft rule or the
log's bytes once and is listed in faults.json."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..log.names import METADATA_LOG_DIR
from .config import FAULTS

if TYPE_CHECKING:
    from .state import Cluster, FaultEntry


def due(sim: Cluster, fault: str) -> bool:
    at = sim.pending_faults.get(fault)
    return at is not None and sim.written >= at


def corrupt(sim: Cluster, data: bytes, last_value: bytes) -> tuple[bytes, FaultEntry]:
    del sim.pending_faults["corrupt-batch"]
    # the last record ends with its value and a one-byte header count: flip a byte of the value
    index = len(data) - 2 - len(last_value) // 2
    corrupted = bytearray(data)
    corrupted[index] ^= 0x5A
    return bytes(corrupted), {
        "fault": "corrupt-batch",
        "description": FAULTS["corrupt-batch"],
        "index": index,
    }


def fault_entry(
    sim: Cluster, fault: str, base_offset: int, name: str, position: int, **details: Any
) -> None:
    sim.faults.append({"fault": fault, "description": FAULTS[fault], "file": f"{METADATA_LOG_DIR}/{name}",
                        "offset": base_offset, "position": position, **details})  # fmt: skip


def truncate_tail(sim: Cluster) -> None:
    del sim.pending_faults["truncated-tail"]
    last_batch = sim.writer.last_batch
    assert last_batch is not None  # the bootstrap records came first
    name, position, size, base_offset, count = last_batch
    kept = max(1, size // 2)
    with open(sim.log_dir / name, "r+b") as f:
        f.truncate(position + kept)
    sim.writer.bytes -= size - kept
    fault_entry(sim, "truncated-tail", base_offset, name, position, lastOffset=base_offset + count - 1,
                      batchSize=size, keptBytes=kept, lostRecords=count)  # fmt: skip
