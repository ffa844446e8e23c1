"""What the coordinator's tests share: a clock the test moves, topic ids, batches to commit, the
examples of docs/diskless.md run."""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import ROOT
from kafka_meta_proto.diskless.types import CommitBatchRequest, TopicIdPartition
from kafka_meta_proto.uuid import Uuid

T1 = Uuid(bytes(range(1, 17)))
T2 = Uuid(bytes(range(17, 33)))
# where a test's clock starts; batches are stamped with it unless told otherwise, so that an
# idempotent producer's state is not expired (a day after its newest batch's timestamp)
START = 1_700_000_000_000


class Clock:
    """Milliseconds, moved by hand."""

    def __init__(self, now: int = START):
        self.now = now

    def __call__(self) -> int:
        return self.now


def batch(tp: TopicIdPartition, count: int = 10, *, byte_offset: int = 0, size: int = 100,
          max_timestamp: int = START, timestamp_type: int = 0, producer: tuple[int, int, int] | None = None,
          ) -> CommitBatchRequest:  # fmt: skip
    """A batch of ``count`` records; ``producer`` is (id, epoch, base sequence)."""
    pid, epoch, seq = producer if producer is not None else (-1, -1, -1)
    last_seq = -1 if producer is None else (seq + count - 1) % (1 << 31)
    return CommitBatchRequest(tp, byte_offset, size, 0, count - 1, max_timestamp, timestamp_type,
                              pid, epoch, seq, last_seq)  # fmt: skip


def run_page_example(heading: str, tmp_path) -> tuple[str, list[str]]:
    """The first Python example after ``heading`` in docs/diskless.md, run as a script: the
    page's text from the heading on, and the lines the script printed (it must succeed silently
    on stderr)."""
    page = (ROOT / "docs" / "diskless.md").read_text(encoding="utf-8")
    section = page[page.index(heading):]
    script = tmp_path / "example.py"
    script.write_text(re.search(r"```python\n(.*?)```", section, re.S).group(1), encoding="utf-8")
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stderr == "", run.stderr
    return section, run.stdout.splitlines()


def printed_in(section: str, pattern: str) -> list[str]:
    """The backquoted texts of the part of ``section`` that ``pattern``'s group catches."""
    return re.findall(r"`([^`]*)`", re.search(pattern, section, re.S).group(1))
