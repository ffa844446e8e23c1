"""The metadata shell: the image's file tree, the commands, one-shot, stdin and interactive sessions."""

from __future__ import annotations

import io
import os
import select
import subprocess
import sys
import time

import pytest

from kafka_meta_proto import DISKLESS_REGISTRY, cli, message_class, registries
from kafka_meta_proto.kraft.image import MetadataImage
from kafka_meta_proto.tools.shell import MetadataShell
from kafka_meta_proto.tools.shell_tree import escape_name, image_tree
from kafka_meta_proto.uuid import Uuid

from .reference import KRAFT_LOGS, SKIP_REASON
from .test_image import (
    BAR,
    DIR_A,
    FOO,
    change,
    partition,
    register_broker,
    topic,
    write_segment,
    write_snapshot,
)

M = message_class
ACL_ID = Uuid.from_string("MvDxzVmcRsaTz33bUuRU6A")


def full_records():
    """Records touching every part of the image."""
    Q = M("ClientQuotaRecord")
    C = M("RegisterControllerRecord")
    return [
        M("FeatureLevelRecord")(name="metadata.version", feature_level=21),
        M("ZkMigrationStateRecord")(zk_migration_state=0),
        register_broker(1, 10, fenced=False, incarnation=Uuid.from_string("iSVO518sQIiDDdNEcPZBBA"), log_dirs=[DIR_A]),
        register_broker(2, 11),
        C(controller_id=3000, incarnation_id=Uuid.random(),
          end_points=[C.ControllerEndpoint(name="CONTROLLER", host="ctl", port=9093, security_protocol=0)]),
        topic("foo", FOO), partition(0, FOO, replicas=(1, 2)), partition(1, FOO, replicas=(2, 1)),
        topic("bar", BAR), partition(0, BAR, replicas=(1,)),
        change(1, FOO, leader=2, isr=[2]),
        M("ConfigRecord")(resource_type=2, resource_name="foo", name="retention.ms", value="86400000"),
        M("ConfigRecord")(resource_type=4, resource_name="", name="log.cleaner.threads", value="2"),
        M("ProducerIdsRecord")(broker_id=1, broker_epoch=10, next_producer_id=5000),
        M("AccessControlEntryRecord")(id=ACL_ID, resource_type=2, resource_name="foo", pattern_type=3,
                                      principal="User:alice", host="*", operation=3, permission_type=3),
        Q(entity=[Q.EntityData(entity_type="user", entity_name="alice")], key="producer_byte_rate", value=1024.0),
        Q(entity=[Q.EntityData(entity_type="user", entity_name=None)], key="producer_byte_rate", value=10.0),
        Q(entity=[Q.EntityData(entity_type="user", entity_name="CN=a/b")], key="request_percentage", value=50.0),
        M("UserScramCredentialRecord")(name="alice", mechanism=2, salt=b"\x01\x02", stored_key=b"k", server_key=b"v", iterations=8192),
        M("DelegationTokenRecord")(owner="User:alice", requester="User:alice", renewers=["User:bob"], issue_timestamp=1,
                                   max_timestamp=3, expiration_timestamp=2, token_id="tok1"),
        DISKLESS_REGISTRY.message_class("TopicPartitionToBatchCoordinatorMapping")(partition_index=0, topic_id=BAR, batch_coordinator_partition_index=7),
    ]  # fmt: skip


@pytest.fixture
def image():
    return MetadataImage().replay(full_records())


@pytest.fixture
def snapshot(tmp_path):
    # the records include the diskless design's type 29: the directory says so, as simulate's do
    registries.write_marker(tmp_path, registries.DISKLESS)
    return write_snapshot(tmp_path, full_records(), end_offset=42, epoch=3)


def session(image, *lines):
    out, err = io.StringIO(), io.StringIO()
    shell = MetadataShell.for_image(image, out=out, err=err)
    status = shell.run_lines(lines)
    return status, out.getvalue(), err.getvalue(), shell


# --- the tree -------------------------------------------------------------------------------


def test_tree_layout(image):
    tree = image_tree(image)
    assert set(tree) == {"brokers", "controllers", "topics", "topicIds", "configs", "features", "producerIds", "acls",
                         "clientQuotas", "scram", "delegationTokens", "diskless", "zkMigrationState", "offset", "epoch"}  # fmt: skip
    b1 = tree["brokers"]["1"]
    assert (b1["id"], b1["epoch"], b1["fenced"], b1["incarnationId"], b1["rack"]) == (
        "1",
        "10",
        "false",
        "iSVO518sQIiDDdNEcPZBBA",
        "null",
    )
    assert b1["logDirs"] == f"[{DIR_A}]"
    assert b1["endpoints"]["PLAINTEXT"] == {
        "host": "localhost",
        "port": "9092",
        "securityProtocol": "PLAINTEXT (0)",
    }
    assert b1["features"]["metadata.version"] == {
        "minSupportedVersion": "1",
        "maxSupportedVersion": "21",
    }
    assert tree["brokers"]["2"]["fenced"] == "true"
    assert tree["controllers"]["3000"]["endpoints"]["CONTROLLER"]["port"] == "9093"
    foo = tree["topics"]["foo"]
    assert foo["id"] == str(FOO) and foo["name"] == "foo"
    assert foo["partitions"]["1"]["leader"] == "2" and foo["partitions"]["1"]["isr"] == "[2]"
    assert (
        foo["partitions"]["1"]["leaderEpoch"] == "1"
        and foo["partitions"]["1"]["partitionEpoch"] == "1"
    )
    assert tree["topicIds"][str(FOO)] == foo and tree["topicIds"][str(BAR)] == tree["topics"]["bar"]
    assert tree["configs"] == {
        "topic": {"foo": {"retention.ms": "86400000"}},
        "broker": {"<default>": {"log.cleaner.threads": "2"}},
    }
    assert tree["features"] == {"metadata.version": "21"}
    assert tree["producerIds"] == {"nextProducerId": "5000", "brokerId": "1", "brokerEpoch": "10"}
    acl = tree["acls"][str(ACL_ID)]
    assert (acl["resourceType"], acl["patternType"], acl["operation"], acl["permissionType"]) == (
        "TOPIC (2)", "LITERAL (3)", "READ (3)", "ALLOW (3)")  # fmt: skip
    assert tree["clientQuotas"]["user"] == {"alice": {"producer_byte_rate": "1024.0"}, "<default>": {"producer_byte_rate": "10.0"},
                                           "CN=a%2Fb": {"request_percentage": "50.0"}}  # fmt: skip
    assert tree["scram"]["SCRAM-SHA-512"]["alice"] == {
        "salt": "0102",
        "storedKey": "6b",
        "serverKey": "76",
        "iterations": "8192",
    }
    assert tree["delegationTokens"]["tok1"]["renewers"] == "[User:bob]"
    assert tree["diskless"] == {str(BAR): {"0": "7"}}
    assert tree["zkMigrationState"] == "NONE (0)"
    assert tree["offset"] == str(len(full_records()) - 1)


def test_escape_name():
    assert escape_name("a/b%c") == "a%2Fb%25c"
    assert (
        escape_name(".") == "%2E" and escape_name("..") == "%2E%2E" and escape_name("a.b") == "a.b"
    )


# --- commands ---------------------------------------------------------------------------------


def test_ls_cat_cd_pwd(image):
    status, out, err, shell = session(
        image, "ls /topics", "cat /topics/foo/id", "cd /topics/foo/partitions", "pwd", "ls", "cd ../..", "pwd",
        "cat bar/id", "cd", "pwd", "cat topicIds/" + str(BAR) + "/name",
    )  # fmt: skip
    assert status == 0 and err == ""
    assert out.splitlines() == [
        "bar",
        "foo",
        str(FOO),
        "/topics/foo/partitions",
        "0",
        "1",
        "/topics",
        str(BAR),
        "/",
        "bar",
    ]


def test_ls_long_multiple_and_glob(image):
    status, out, err, _ = session(
        image,
        "ls -l /topics/foo",
        "ls /producerIds/brokerId /features",
        "cat /topics/*/partitions/0/leader",
    )
    assert status == 0, err
    assert out.splitlines() == [
        "- " + " " * 6 + "22 id",
        "- " + " " * 7 + "3 name",
        "d " + " " * 7 + "2 partitions",
        "brokerId",  # as Kafka's shell names them: the last path component
        "",
        "features:",
        "metadata.version",
        "1",  # bar (sorted first)
        "1",  # foo
    ]


def test_partitions_sort_numerically(tmp_path):
    image = MetadataImage().replay([topic(), *[partition(i) for i in range(12)]])
    _, out, _, _ = session(image, "ls /topics/foo/partitions")
    assert out.split() == [str(i) for i in range(12)]


def test_find(image):
    _, out, _, _ = session(image, "find /producerIds", "cd /topics", "find bar/partitions")
    assert out.splitlines()[:4] == [
        "/producerIds",
        "/producerIds/brokerEpoch",
        "/producerIds/brokerId",
        "/producerIds/nextProducerId",
    ]
    # A relative path is printed as given, as Kafka's find does.
    assert out.splitlines()[4:6] == ["bar/partitions", "bar/partitions/0"]
    assert "bar/partitions/0/leader" in out.splitlines()


def test_errors_go_to_stderr_and_set_status(image):
    status, out, err, _ = session(
        image,
        "cat /topics/nope/id",
        "ls /nowhere",
        "cd /topics/foo/id",
        "cat /topics",
        "frobnicate",
        "pwd",
    )
    assert status == 1
    assert out == "/\n"
    assert err.splitlines() == [
        "cat: /topics/nope/id: no such file or directory",
        "ls: /nowhere: no such file or directory",
        "cd: /topics/foo/id: not a directory",
        "cat: /topics: is a directory",
        "frobnicate: unknown command (type help for the list)",
    ]


def test_history_help_man_exit(image):
    status, out, err, shell = session(
        image, "pwd", "# a comment", "", "history", "help", "man cat", "exit", "pwd"
    )
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[:3] == ["/", "    1  pwd", "    2  history"]
    assert any(line.strip().startswith("ls [-l] [PATH ...]") for line in lines)
    assert "cat - print files" in lines
    assert shell.exited and shell.history[-1] == "exit"  # the pwd after exit never ran
    assert lines.count("/") == 1


def test_completions(image):
    shell = MetadataShell.for_image(image)
    assert shell.completions("", "c") == ["cat ", "cd "]
    assert shell.completions("man ", "h") == ["help ", "history "]
    assert shell.completions("ls ", "/") == ["/image/", "/local/"]
    assert shell.completions("cat ", "/image/topics/byName/f") == ["/image/topics/byName/foo/"]
    assert shell.completions("cat ", "/image/topics/byName/foo/") == [
        "/image/topics/byName/foo/0 ",
        "/image/topics/byName/foo/1 ",
        "/image/topics/byName/foo/id ",
        "/image/topics/byName/foo/name ",
    ]
    shell.execute("cd /image/topics/byName")
    assert shell.completions("cat ", "b") == ["bar/"]
    assert shell.completions("cat ", "nope/") == []


# --- the subcommand ---------------------------------------------------------------------------


def test_one_shot_commands(snapshot, capsys):
    status = cli.main(
        [
            "shell",
            "--snapshot",
            str(snapshot),
            "ls /topics",
            "cat /topics/foo/id",
            "cat /offset /epoch",
        ]
    )
    captured = capsys.readouterr()
    assert status == 0 and captured.err == ""
    assert captured.out.splitlines() == ["bar", "foo", str(FOO), "41", "3"]


def test_one_shot_error_exit_status(snapshot, capsys):
    status = cli.main(["shell", "--snapshot", str(snapshot), "cat /topics/nope", "ls /features"])
    captured = capsys.readouterr()
    assert status == 1
    assert captured.out == "metadata.version\n"
    assert captured.err == "cat: /topics/nope: no such file or directory\n"


def test_log_dir_and_lenient_loading(tmp_path, capsys):
    write_segment(tmp_path, 0, [topic(), partition(0), change(5, leader=1)])
    status = cli.main(["shell", "--log", str(tmp_path), "ls /topics/foo/partitions"])
    captured = capsys.readouterr()
    assert status == 0 and captured.out == "0\n"
    assert "warning: skipped cannot change partition 5 of topic foo" in captured.err
    assert cli.main(["shell", "--log", str(tmp_path), "--strict", "pwd"]) == 2


def test_commands_from_stdin(snapshot, capsys, monkeypatch):
    monkeypatch.setattr(
        sys, "stdin", io.StringIO("cd /topics/foo\n# comment\ncat id\ncat missing\nexit\npwd\n")
    )
    status = cli.main(["shell", "--snapshot", str(snapshot)])
    captured = capsys.readouterr()
    assert status == 1
    assert captured.out == f"{FOO}\n"
    assert captured.err == "cat: missing: no such file or directory\n"


def test_stdin_pipe_in_a_subprocess(snapshot):
    result = subprocess.run([sys.executable, "-m", "kafka_meta_proto.cli", "shell", "--snapshot", str(snapshot)],
                            input="ls /brokers\ncat /brokers/1/fenced\n", capture_output=True, text=True, timeout=60)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout == "1\n2\nfalse\n"


def test_real_logs_browse_completely():
    if not KRAFT_LOGS.is_dir():
        pytest.skip(SKIP_REASON)
    dirs = sorted(p for p in KRAFT_LOGS.rglob("__cluster_metadata-0") if p.is_dir())
    names = set()
    for d in dirs:
        image = MetadataImage.from_log_dir(d)
        status, out, err, _ = session(image, "find /")
        assert status == 0 and err == ""
        assert len(out.splitlines()) > 20
        status, out, err, _ = session(image, "ls /topics")
        names |= set(out.split())
    assert names == {"foo", "learn-kafka", "__consumer_offsets", "belajarkafka"}
    learn = (
        KRAFT_LOGS
        / "ichwansh03__kafka-migration-log4j2"
        / "1b8babcc3074"
        / "data"
        / "__cluster_metadata-0"
    )
    status, out, _, _ = session(MetadataImage.from_log_dir(learn), "cat /topics/learn-kafka/id /brokers/1/epoch",
                                "ls /topicIds", "cat /configs/topic/__consumer_offsets/cleanup.policy")  # fmt: skip
    assert out.splitlines() == [
        "KvRvTJ8ySCKlg6lqt9pfXw",
        "9690",
        "KvRvTJ8ySCKlg6lqt9pfXw",
        "n9iCnMtFQd-sBc4BsJNK7w",
        "compact",
    ]


# --- interactive mode in a pseudo-terminal ----------------------------------------------------


class Terminal:
    """A child process on a pty, driven by writing keys and waiting for output."""

    def __init__(self, argv):
        import pty

        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # child
            try:
                import fcntl
                import struct
                import termios

                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 200, 0, 0))
                env = dict(os.environ, TERM="xterm", INPUTRC="/dev/null")
                os.execve(sys.executable, [sys.executable, *argv], env)
            finally:
                os._exit(127)
        self.buffer = b""

    def expect(self, text: str, timeout: float = 30) -> str:
        """Everything up to and including ``text``."""
        end = time.monotonic() + timeout
        while text.encode() not in self.buffer:
            ready, _, _ = select.select([self.fd], [], [], max(0.0, end - time.monotonic()))
            if not ready:
                raise AssertionError(f"timed out waiting for {text!r}; got {self.buffer!r}")
            try:
                chunk = os.read(self.fd, 4096)
            except OSError:
                chunk = b""
            if not chunk:
                raise AssertionError(f"terminal closed waiting for {text!r}; got {self.buffer!r}")
            self.buffer += chunk
        i = self.buffer.index(text.encode()) + len(text)
        seen, self.buffer = self.buffer[:i], self.buffer[i:]
        return seen.decode(errors="replace")

    def send(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def wait(self, timeout: float = 30) -> int:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
            try:  # keep draining so the child never blocks on output
                if select.select([self.fd], [], [], 0.1)[0]:
                    os.read(self.fd, 4096)
            except OSError:
                pass
        os.kill(self.pid, 9)
        os.waitpid(self.pid, 0)
        raise AssertionError("the shell did not exit")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty session tested on Linux")
def test_interactive_session_with_tab_completion(snapshot):
    pytest.importorskip("readline")
    term = Terminal(["-m", "kafka_meta_proto.cli", "shell", "--snapshot", str(snapshot)])
    banner = term.expect("metadata:/> ")
    assert "offset 41" in banner
    term.send("ls\r")
    listing = term.expect("metadata:/> ")
    assert "image" in listing and "local" in listing
    # Tab completes the unique directory (with its "/" and no space), then the file.
    term.send("cat /image/topics/byName/f\t")
    assert "oo/" in term.expect("oo/")
    term.send("i\t")
    term.expect("d")
    term.send("\r")
    assert str(FOO) in term.expect("metadata:/> ")
    term.send("cd /topics\r")
    term.expect("metadata:/topics> ")
    term.send("exit\r")
    assert term.wait() == 0


# --- Kafka's layout ---------------------------------------------------------------------------


def test_kafka_layout_at_the_root(image):
    status, out, err, shell = session(image, "ls /", "ls /image", "cat /image/features/metadataVersion",
                                      "cat /image/producerIds/nextProducerId", "ls /image/topics/byName",
                                      "cat /image/topics/byId/" + str(FOO) + "/name")  # fmt: skip
    assert status == 0, err
    assert out.splitlines() == [
        "image", "local",
        "acls", "clientQuotas", "cluster", "configs", "delegationToken", "diskless", "features", "producerIds",
        "provenance", "scram", "topics",
        "Optional[3.9-IV0]", "5000", "bar", "foo", "foo",
    ]  # fmt: skip
    # The old layout still answers at its paths, without showing in listings.
    assert session(image, "cat /topics/foo/id")[1] == f"{FOO}\n"
    assert "/brokers" not in session(image, "find /")[1].split()


def test_kafka_text_of_registrations(image):
    _, out, _, _ = session(image, "cat /image/cluster/brokers/2 /image/acls/byId/" + str(ACL_ID),
                           "ls /image/clientQuotas /image/scram/SCRAM-SHA-512", "cat /image/configs/BROKER/*")  # fmt: skip
    lines = out.splitlines()
    assert lines[0].startswith("BrokerRegistration(id=2, epoch=11, incarnationId=")
    assert ", fenced=true, inControlledShutdown=false, isMigratingZkBroker=false, " in lines[0]
    assert lines[1] == ("StandardAcl[resourceType=TOPIC, resourceName=foo, patternType=LITERAL, principal=User:alice, "
                        "host=*, operation=READ, permissionType=ALLOW]")  # fmt: skip
    # Kafka's shell cannot name a default quota entity; ours calls it <default>.
    assert lines[2:7] == ["clientQuotas:", "user(<default>)", "user(CN=a/b)", "user(alice)", ""]
    assert lines[7:] == ["SCRAM-SHA-512:", "alice", "2"]


def test_ls_is_sorted_as_kafka_sorts(tmp_path):
    image = MetadataImage().replay([topic(), *[partition(i) for i in range(12)]])
    _, out, _, _ = session(image, "ls /image/topics/byName/foo")
    assert out.split() == ["0", "1", "10", "11", *map(str, range(2, 10)), "id", "name"]


def test_tree_prints_names_and_contents(image):
    status, out, err, _ = session(image, "tree /image/producerIds /image/features", "tree /nowhere")
    assert status == 1 and err == "tree: /nowhere: no such file or directory\n"
    assert out.splitlines() == ["nextProducerId:", "  5000", "metadataVersion:", "  Optional[3.9-IV0]"]


def test_words_make_one_command_as_with_kafkas_shell(snapshot, capsys):
    assert cli.main(["shell", "--snapshot", str(snapshot), "ls", "/image/topics/byName"]) == 0
    assert capsys.readouterr().out == "bar\nfoo\n"
    assert cli.main(["shell", "-s", str(snapshot), "ls /image/topics/byName", "pwd"]) == 0
    assert capsys.readouterr().out == "bar\nfoo\n/\n"


def test_snapshot_option_takes_a_segment(tmp_path, capsys):
    segment = write_segment(tmp_path, 0, [topic(), partition(0)])
    assert cli.main(["shell", "--snapshot", str(segment), "cat", "/image/topics/byName/foo/name"]) == 0
    assert capsys.readouterr().out == "foo\n"


def test_java_text_forms():
    from kafka_meta_proto.kraft.image_text import iso_zoned_utc, java_double, metadata_version_name

    assert [java_double(v) for v in (1024.0, 2.5e7, 1e7, 9999999.0, 1e-4, 0.001, 0.0, -3e-9)] == [
        "1024.0", "2.5E7", "1.0E7", "9999999.0", "1.0E-4", "0.001", "0.0", "-3.0E-9"]  # fmt: skip
    assert iso_zoned_utc(1754474509633) == "2025-08-06T10:01:49.633Z[UTC]"
    assert iso_zoned_utc(1754474509600) == "2025-08-06T10:01:49.6Z[UTC]"
    assert iso_zoned_utc(1700000000000) == "2023-11-14T22:13:20Z[UTC]"
    assert metadata_version_name(21) == "Optional[3.9-IV0]" and metadata_version_name(None) == "Optional.empty"


def test_a_path_without_metadata_is_an_error(tmp_path, capsys):
    assert cli.main(["shell", "--log", str(tmp_path), "pwd"]) == 2
    assert "holds no metadata records" in capsys.readouterr().err


def test_a_corrupt_batch_is_skipped_with_a_warning_unless_strict(tmp_path, capsys):
    segment = write_segment(tmp_path, 0, [topic(), partition(0), partition(1)])
    data = bytearray(segment.read_bytes())
    data[-5] ^= 0x01  # inside the last batch: its CRC no longer matches
    segment.write_bytes(bytes(data))
    assert cli.main(["shell", "--log", str(tmp_path), "ls", "/image/topics/byName/foo"]) == 0
    captured = capsys.readouterr()
    assert captured.out.split() == ["0", "id", "name"]
    assert "warning: skipped corrupt batch in" in captured.err and "CRC mismatch" in captured.err
    assert cli.main(["shell", "--log", str(tmp_path), "--strict", "pwd"]) == 2
    assert "CRC mismatch" in capsys.readouterr().err
