"""A real KRaft cluster of a Kafka release, run from its published jars on loopback.

    with KafkaCluster("4.4.0", workdir) as cluster:      # one controller, two brokers
        cluster.bootstrap                                # [(host, port), ...] of the brokers
        cluster.stop_node(2, hard=True); cluster.start_node(2)

Every node is a separate JVM (bounded heap) on free loopback ports, its directories formatted by
Kafka's own storage tool (``kafka.tools.StorageTool format``); ``combined=True`` runs one node
that is controller and broker at once; ``release_version`` is given to the storage tool as
``--release-version`` and ``format_options`` (e.g. ``["--standalone"]``) to it as they are; a
setting given as None is left out of the nodes' configuration. Each node logs to
``WORKDIR/node-N.log``.

``listeners`` adds client listeners to every broker beside PLAINTEXT, by name and security
protocol (``{"SASL_SSL": "SASL_SSL"}``), each on a free port of its own (``node.ports[name]``,
``cluster.bootstrap_for(name)``); their TLS and SASL settings go in ``settings`` under Kafka's
``listener.name.<name>.`` prefix, and SCRAM credentials in ``format_options`` (the storage
tool's ``--add-scram``).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import kafka_oracle

HEAP = "-Xmx384m"
JAVA_OPTIONS = (
    HEAP,
    "-Xms64m",
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-Djava.awt.headless=true",
)


def broker_ids(conn) -> set[int]:
    """The brokers the cluster's metadata lists (registered and not fenced), asked on ``conn``
    (the package's ``client.sync`` connection)."""
    from kafka_meta_proto import message_class

    body = conn.send(message_class("MetadataRequest")(topics=[]), 12)
    return {b.node_id for b in body.brokers}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Node:
    node_id: int
    roles: tuple[str, ...]  # "controller", "broker"
    port: int  # the client listener (brokers) or the controller listener
    controller_port: int | None = None  # a combined node's controller listener
    ports: dict[str, int] = field(default_factory=dict)  # the extra client listeners' ports
    process: subprocess.Popen | None = field(default=None, repr=False)

    @property
    def is_broker(self) -> bool:
        return "broker" in self.roles


class KafkaCluster:
    def __init__(
        self,
        release: str,
        workdir: Path,
        brokers: int = 2,
        combined: bool = False,
        settings: dict[str, str] | None = None,
        formatter: str = "kafka",
        release_version: str | None = None,
        format_options: list[str] | None = None,
        listeners: dict[str, str] | None = None,
    ):
        reason = kafka_oracle.missing(release)
        if reason:
            raise kafka_oracle.OracleError(f"Kafka {release} cannot run here: {reason}")
        self.release = release
        self.workdir = Path(workdir)
        self.settings = dict(settings or {})
        self.formatter = formatter  # "kafka": Kafka's storage tool; "ours": kafka-meta-proto format
        self.release_version = release_version  # --release-version for either tool, else its default
        self.format_options = list(format_options or [])  # more options for either tool
        self.classpath = os.pathsep.join(str(j) for j in kafka_oracle.jars(release))
        if combined:
            self.nodes = [Node(1, ("broker", "controller"), free_port(), free_port())]
        else:
            self.nodes = [Node(1, ("controller",), free_port())]
            self.nodes += [Node(1 + i, ("broker",), free_port()) for i in range(1, brokers + 1)]
        self.listeners = dict(listeners or {})  # extra client listener name -> security protocol
        for node in self.nodes:
            if node.is_broker:
                node.ports = {name: free_port() for name in self.listeners}
        self.cluster_id = ""
        self.startup_seconds = 0.0

    # Configuration.

    @property
    def controller(self) -> Node:
        return next(n for n in self.nodes if "controller" in n.roles)

    @property
    def controller_address(self) -> tuple[str, int]:
        c = self.controller
        return ("127.0.0.1", c.controller_port or c.port)

    @property
    def bootstrap(self) -> list[tuple[str, int]]:
        return [("127.0.0.1", n.port) for n in self.nodes if n.is_broker]

    def bootstrap_for(self, listener: str) -> list[tuple[str, int]]:
        """The brokers' addresses on an extra listener."""
        return [("127.0.0.1", n.ports[listener]) for n in self.nodes if n.is_broker]

    def node(self, node_id: int) -> Node:
        return next(n for n in self.nodes if n.node_id == node_id)

    def data_dir(self, node: Node) -> Path:
        return self.workdir / f"node-{node.node_id}"

    def log_file(self, node: Node) -> Path:
        return self.workdir / f"node-{node.node_id}.log"

    def metadata_dir(self, node: Node | None = None) -> Path:
        """The node's ``__cluster_metadata-0`` directory (the controller's by default)."""
        return self.data_dir(node or self.controller) / "__cluster_metadata-0"

    def _properties(self, node: Node) -> str:
        host, cport = self.controller_address
        props = {
            "process.roles": ",".join(node.roles),
            "node.id": str(node.node_id),
            "controller.quorum.voters": f"{self.controller.node_id}@{host}:{cport}",
            "controller.listener.names": "CONTROLLER",
            "listener.security.protocol.map": ",".join(
                ["CONTROLLER:PLAINTEXT", "PLAINTEXT:PLAINTEXT", *(f"{n}:{p}" for n, p in self.listeners.items())]
            ),
            "log.dirs": str(self.data_dir(node)),
            "num.partitions": "1",
            "offsets.topic.replication.factor": "1",
            "transaction.state.log.replication.factor": "1",
            "transaction.state.log.min.isr": "1",
            "group.initial.rebalance.delay.ms": "0",
            "auto.create.topics.enable": "false",
        }
        listeners = []
        if node.is_broker:
            listeners.append(f"PLAINTEXT://{host}:{node.port}")
            listeners += [f"{name}://{host}:{port}" for name, port in node.ports.items()]
            props["advertised.listeners"] = ",".join(listeners)
            props["inter.broker.listener.name"] = "PLAINTEXT"
        if "controller" in node.roles:
            listeners.append(f"CONTROLLER://{host}:{node.controller_port or node.port}")
        props["listeners"] = ",".join(listeners)
        props.update(self.settings)
        return "".join(f"{k}={v}\n" for k, v in props.items() if v is not None)

    def _config_file(self, node: Node) -> Path:
        path = self.workdir / f"node-{node.node_id}.properties"
        path.write_text(self._properties(node), encoding="utf-8")
        return path

    def _java(self, *args: str) -> list[str]:
        logging = self._logging_config()
        return ["java", *JAVA_OPTIONS, *logging, "-cp", self.classpath, *args]

    def _logging_config(self) -> list[str]:
        """INFO to standard output (the node's log file): Log4j 2 for Kafka 4, reload4j for 3.9."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        log4j2 = self.workdir / "log4j2.properties"
        log4j2.write_text(
            "appender.out.type = Console\nappender.out.name = OUT\nappender.out.layout.type = PatternLayout\n"
            "appender.out.layout.pattern = [%d] %p %m (%c)%n\nrootLogger.level = info\n"
            "rootLogger.appenderRef.out.ref = OUT\n",
            encoding="utf-8",
        )
        log4j = self.workdir / "log4j.properties"
        log4j.write_text(
            "log4j.rootLogger=INFO, out\nlog4j.appender.out=org.apache.log4j.ConsoleAppender\n"
            "log4j.appender.out.layout=org.apache.log4j.PatternLayout\n"
            "log4j.appender.out.layout.ConversionPattern=[%d] %p %m (%c)%n\n",
            encoding="utf-8",
        )
        return [f"-Dlog4j2.configurationFile={log4j2}", f"-Dlog4j.configuration=file:{log4j}"]

    # Life cycle.

    def format(self) -> None:
        """Format every node's directories with Kafka's storage tool, or with ours
        (``kafka-meta-proto format``) when the cluster was made with ``formatter="ours"``."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        tool = self._java("kafka.tools.StorageTool")
        self.cluster_id = subprocess.run(
            [*tool, "random-uuid"], capture_output=True, text=True, check=True, timeout=120
        ).stdout.split()[-1]
        if self.formatter == "ours":
            tool = [sys.executable, "-m", "kafka_meta_proto.cli"]
        release = ["--release-version", self.release_version] if self.release_version else []
        for node in self.nodes:
            run = subprocess.run(
                [*tool, "format", "-t", self.cluster_id, "-c", str(self._config_file(node)), *release, *self.format_options],
                capture_output=True, text=True, timeout=120,
            )  # fmt: skip
            if run.returncode != 0:
                raise RuntimeError(
                    f"formatting node {node.node_id} failed:\n{run.stdout}\n{run.stderr}"
                )

    def start_node(self, node_id: int) -> None:
        node = self.node(node_id)
        log = open(self.log_file(node), "ab")
        node.process = subprocess.Popen(
            self._java("kafka.Kafka", str(self._config_file(node))),
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        log.close()

    def stop_node(self, node_id: int, hard: bool = False, timeout: float = 60) -> None:
        node = self.node(node_id)
        if node.process is None or node.process.poll() is not None:
            return
        node.process.send_signal(signal.SIGKILL if hard else signal.SIGTERM)
        try:
            node.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            node.process.kill()
            node.process.wait()

    def start(self, timeout: float = 180) -> "KafkaCluster":
        began = time.monotonic()
        self.format()
        for node in self.nodes:
            self.start_node(node.node_id)
        self.wait_until_serving(timeout)
        self.startup_seconds = time.monotonic() - began
        return self

    def wait_until_serving(self, timeout: float = 180) -> None:
        """Until every broker answers and the controller lists them all as registered."""
        from kafka_meta_proto.client import NetworkError, sync

        deadline = time.monotonic() + timeout
        want = {n.node_id for n in self.nodes if n.is_broker}
        last = None
        while time.monotonic() < deadline:
            for node in self.nodes:
                if node.process is not None and node.process.poll() is not None:
                    raise RuntimeError(f"node {node.node_id} exited: see {self.log_file(node)}")
            try:
                with sync.connect(*self.bootstrap[0], timeout=5) as conn:
                    if broker_ids(conn) >= want:
                        return
            except (OSError, NetworkError) as e:
                last = e
            time.sleep(0.5)
        raise TimeoutError(
            f"the cluster did not serve within {timeout} s (last: {last}); logs in {self.workdir}"
        )

    def stop(self) -> None:
        for node in reversed(self.nodes):  # brokers first, the controller last
            self.stop_node(node.node_id)

    def __enter__(self) -> "KafkaCluster":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
