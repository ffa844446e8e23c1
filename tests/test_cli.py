"""The command line as a new user meets it: a plain install without extras, --version, Ctrl-C,
and the errors around the edges of the library (close matches, wrong kinds of input)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from kafka_meta_proto import Uuid, active_codec, cli, kraft, message_class, protocol
from kafka_meta_proto.errors import DecodeError, EncodeError, UnsupportedVersionError

# Runs the CLI as if none of the extras were installed: importing any of them fails.
PLAIN_INSTALL = f"""
import sys
for name in {sorted(cli.EXTRAS)!r}:
    sys.modules[name] = None
from kafka_meta_proto import cli
sys.exit(cli.main(sys.argv[1:]))
"""


def plain(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", PLAIN_INSTALL, *argv], capture_output=True, text=True,
                          timeout=120)  # fmt: skip


def test_a_plain_install_lists_commands_and_runs_those_needing_no_extra():
    run = plain("--help")
    assert run.returncode == 0 and all(name in run.stdout for name in cli.COMMANDS), run.stderr
    run = plain("--version")
    codec = "compiled codec" if active_codec() == "compiled" else "pure Python codec: "
    assert run.returncode == 0 and run.stdout.startswith(f"kafka-meta-proto 0.1.0 ({codec}"), run.stdout
    run = plain("random-uuid", "-n", "3")
    assert run.returncode == 0 and len(run.stdout.split()) == 3
    assert plain("demo").returncode == 0


def test_version_names_the_codec_and_the_environment_forces_pure_python():
    forced = subprocess.run([sys.executable, "-m", "kafka_meta_proto.cli", "--version"], capture_output=True,
                            text=True, timeout=120, env={**os.environ, "KAFKA_META_PROTO_PURE_PYTHON": "1"})  # fmt: skip
    assert forced.stdout.startswith("kafka-meta-proto 0.1.0 (pure Python codec: KAFKA_META_PROTO_PURE_PYTHON is set;")


def test_a_plain_install_names_the_extra_a_command_needs(tmp_path):
    """Uncompressed log files need no extra (format writes them); a compressed batch names it."""
    from kafka_meta_proto.log import CompressionType, Record, RecordBatch

    plain_batch = RecordBatch.create([Record(value=b"x")]).encode()
    gzip_batch = RecordBatch.create([Record(value=b"x")], base_offset=1, compression=CompressionType.GZIP).encode()
    (tmp_path / "00000000000000000000.log").write_bytes(plain_batch)
    run = plain("dump-log", str(tmp_path / "00000000000000000000.log"))
    assert run.stderr == "" and "compresscodec: none" in run.stdout, run.stderr  # (1: x is no record)
    (tmp_path / "00000000000000000000.log").write_bytes(plain_batch + gzip_batch)
    run = plain("dump-log", str(tmp_path / "00000000000000000000.log"))
    assert run.returncode == 2 and "compresscodec: none" in run.stdout
    assert run.stderr.splitlines() == [
        "kafka-meta-proto dump-log: needs the 'cramjam' module of the 'log' extra: "
        "pip install 'kafka-meta-proto[log]'"
    ]
    run = plain("simulate", "--help")  # its module imports without the extras now
    assert run.returncode == 0 and "Simulate KRaft clusters" in run.stdout and "extra" not in run.stdout


def test_codegen_command_without_its_extra_and_from_a_checkout(tmp_path):
    schemas = str(Path(__file__).resolve().parents[1] / "examples" / "schemas")
    run = plain("codegen", "--schemas", schemas, "--out", str(tmp_path), "--package", "echo")
    assert run.returncode == 2 and run.stderr.splitlines() == [
        "kafka-meta-proto codegen: needs the 'black' module of the 'codegen' extra: "
        "pip install 'kafka-meta-proto[codegen]'"
    ]
    assert not any(tmp_path.iterdir())
    run = plain("codegen", "--help")
    assert run.returncode == 0 and "--schemas SCHEMAS [SCHEMAS ...]" in run.stdout and "codegen extra" in run.stdout
    # with the extra, in this checkout (tools/check_wheel.sh runs it from an installed wheel)
    assert cli.main(["codegen", "--schemas", schemas, "--out", str(tmp_path), "--package", "echo"]) == 0
    assert sorted(p.name for p in (tmp_path / "echo").glob("*.py")) == ["__init__.py", "echo_request.py", "echo_response.py"]


def test_ctrl_c_stops_with_one_line_and_status_130(monkeypatch, capsys):
    from kafka_meta_proto.commands import random_uuid

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(random_uuid, "run", interrupted)
    assert cli.main(["random-uuid"]) == 130
    assert capsys.readouterr().err == "kafka-meta-proto random-uuid: interrupted\n"


def test_random_uuid_refuses_a_count_below_one(capsys):
    assert cli.main(["random-uuid", "-n", "-1"]) == 2
    assert "-n must be at least 1" in capsys.readouterr().err


def test_message_class_suggests_a_close_name():
    with pytest.raises(KeyError, match="did you mean 'FetchRequest'"):
        message_class("Fetchrequest")
    with pytest.raises(KeyError, match="no message named 'Nothing'") as info:
        message_class("Nothing")
    assert "did you mean" not in str(info.value)


def test_only_metadata_records_make_a_record_value():
    with pytest.raises(EncodeError, match="FetchRequest is not a KRaft metadata record"):
        kraft.encode_record_value(message_class("FetchRequest")(), 0)
    with pytest.raises(EncodeError, match="not a KRaft metadata record"):
        kraft.encode_record_value(b"bytes", 0)


def test_uuid_from_text_and_from_uuid_uuid():
    text = "MvDxzVmcRsaTz33bUuRU6A"
    parsed = Uuid(text)
    assert parsed == Uuid.from_string(text) and str(parsed) == text
    assert Uuid(uuid.UUID(bytes=parsed.bytes)) == parsed and Uuid(parsed) == parsed
    with pytest.raises(TypeError, match="not int"):
        Uuid(12)
    with pytest.raises(ValueError, match="22 URL-safe base64"):
        Uuid("not-a-uuid")


def test_decode_response_errors_as_decode_request_does():
    frame = (4).to_bytes(4, "big") + (1).to_bytes(4, "big")
    for call in (lambda: protocol.decode_response(frame, 9999, 0),
                 lambda: protocol.decode_response(frame, 1, 999)):  # fmt: skip
        with pytest.raises(DecodeError) as info:
            call()
        assert isinstance(info.value, UnsupportedVersionError)


def test_simulate_never_removes_files_it_did_not_write(tmp_path, capsys):
    theirs = tmp_path / "cluster-0" / "__cluster_metadata-0" / f"{0:020d}.log"
    theirs.parent.mkdir(parents=True)
    theirs.write_bytes(b"someone else's log")
    assert cli.main(["simulate", "--out", str(tmp_path), "--records", "50", "--quiet"]) == 2
    assert "was not written by kafka-meta-proto simulate" in capsys.readouterr().err
    assert theirs.read_bytes() == b"someone else's log"


def test_simulate_replaces_its_own_earlier_output(tmp_path):
    argv = ["simulate", "--out", str(tmp_path), "--records", "120", "--quiet"]
    assert cli.main([*argv, "--snapshot-at", "0.5"]) == 0
    assert cli.main([*argv, "--snapshot-at", "0.25"]) == 0
    snapshots = list((tmp_path / "cluster-0" / "__cluster_metadata-0").glob("*.checkpoint"))
    assert len(snapshots) == 1  # the first run's snapshot is gone, being ours


def test_simulate_reports_bad_settings_in_one_line(tmp_path, capsys):
    assert cli.main(["simulate", "--out", str(tmp_path), "--brokers", "0", "--quiet"]) == 2
    assert capsys.readouterr().err == "kafka-meta-proto simulate: brokers must be at least 1\n"
    a_file = tmp_path / "file"
    a_file.write_text("x")
    assert cli.main(["simulate", "--out", str(a_file), "--quiet"]) == 2
    assert "is a file, not a directory" in capsys.readouterr().err


def test_ctrl_c_stops_simulate_jobs_promptly(tmp_path):
    """SIGINT to the process group, as a terminal's Ctrl-C sends it: the pool's queued clusters are
    dropped, not worked through."""
    import os
    import signal
    import time

    process = subprocess.Popen(
        [sys.executable, "-m", "kafka_meta_proto.cli", "simulate", "--out", str(tmp_path), "--clusters", "8",
         "--jobs", "2", "--records", "400000", "--quiet"],
        stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    # Wait until the pool is at work (a cluster directory is marked), then press Ctrl-C.
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob("cluster-*/.kafka-meta-proto-simulate")) and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1)
    pressed = time.monotonic()
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=300)  # stops a hang only
    # what the process said and how long it went on after the key, should it not stop
    said = f"after {time.monotonic() - pressed:.1f} s, stderr: {err[-2000:]!r}"
    assert process.returncode == 130, said
    # the queued clusters were never started (the two at work are abandoned)
    assert len(list(tmp_path.glob("cluster-*"))) < 8, said
    assert err.strip().splitlines()[-1] == "kafka-meta-proto simulate: interrupted"
    assert "Traceback" not in err
