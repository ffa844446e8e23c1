"""``kafka-meta-proto fake-cluster``: the first line of its output is the bootstrap servers once
every broker accepts connections; SIGTERM and Ctrl-C stop it cleanly (exit 0); --data keeps the
logs, which the package's own dump-log then reads."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from kafka_meta_proto.client import sync
from kafka_meta_proto.messages import MetadataRequest

pytestmark = pytest.mark.timeout(120)


def start(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "kafka_meta_proto.cli", "fake-cluster", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip


def addresses(line: str) -> list[tuple[str, int]]:
    found = []
    for part in line.strip().split(","):
        host, _, port = part.rpartition(":")
        found.append((host, int(port)))
    return found


@pytest.mark.parametrize("stop_with", [signal.SIGTERM, signal.SIGINT])
def test_it_prints_the_bootstrap_servers_serves_and_stops_cleanly(stop_with):
    process = start("--brokers", "2")
    try:
        bootstrap = addresses(process.stdout.readline())
        assert len(bootstrap) == 2
        with sync.connect(*bootstrap[1]) as conn:
            brokers = conn.send(MetadataRequest(topics=None), 12).brokers
        assert sorted((b.host, b.port) for b in brokers) == sorted(bootstrap)
    finally:
        process.send_signal(stop_with)
        out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert out == ""  # nothing after the first line


def test_data_keeps_the_logs_in_kafkas_format(tmp_path):
    process = start("--brokers", "1", "--data", str(tmp_path))
    try:
        bootstrap = addresses(process.stdout.readline())
        with sync.connect(*bootstrap[0]) as conn:
            assert conn.send(MetadataRequest(topics=None), 12).brokers
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=60)
    assert process.returncode == 0
    (metadata_dir,) = tmp_path.glob("controller/__cluster_metadata-0")
    dumped = subprocess.run([sys.executable, "-m", "kafka_meta_proto.cli", "dump-log",
                             str(next(metadata_dir.glob("*.log")))],
                            capture_output=True, text=True, timeout=60)  # fmt: skip
    assert dumped.returncode == 0, dumped.stderr
    assert '"REGISTER_BROKER_RECORD"' in dumped.stdout and '"FEATURE_LEVEL_RECORD"' in dumped.stdout


def test_a_broker_count_below_one_is_refused(capsys):
    # Refused before any cluster starts: the command's own entry point, in this process.
    from kafka_meta_proto import cli

    assert cli.main(["fake-cluster", "--brokers", "0"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "--brokers" in err
