"""SASL on the server side over sockets, the package's client as the peer: PLAIN and
SCRAM-SHA-256/512 (also over TLS), the principal in the handlers' state, and Kafka's rules for
a listener that requires SASL (nothing else before authentication; a failure ends the
connection)."""

from __future__ import annotations

import logging

import pytest

from client.tls import tls_contexts
from kafka_meta_proto.client import AuthenticationFailed, Plain, Scram, connect
from kafka_meta_proto.net.sasl_server import PlainServer, ScramCredential, ScramServer
from kafka_meta_proto.server import Server
from kafka_meta_proto.server.sasl import SaslGate
from server.peer import MetadataRequest, MetadataResponse, RawPeer, metadata_for, run, serving


def sasl_server() -> Server:
    server = Server()
    credentials = {
        mechanism: {"alice": ScramCredential.from_password("secret", mechanism)}
        for mechanism in ("SCRAM-SHA-256", "SCRAM-SHA-512")
    }
    server.enable_sasl(
        PlainServer({"alice": "secret"}),
        *(ScramServer(users, mechanism) for mechanism, users in credentials.items()),
    )

    @server.handle(MetadataRequest)
    async def whoami(request):
        return MetadataResponse(cluster_id=request.state["principal"])

    return server


@pytest.mark.parametrize(
    "sasl",
    [
        Plain("alice", "secret"),
        Scram("alice", "secret", "SCRAM-SHA-256"),
        Scram("alice", "secret", "SCRAM-SHA-512"),
    ],
    ids=lambda s: s.mechanism,
)
def test_each_mechanism_authenticates_and_handlers_see_the_principal(sasl):
    async def scenario():
        async with serving(sasl_server()) as server:
            async with await connect(*server.addresses[0], sasl=sasl) as conn:
                assert (await conn.send(metadata_for("x"))).cluster_id == "alice"

    run(scenario())


def test_scram_over_tls(tmp_path):
    server_tls, client_tls = tls_contexts(tmp_path)

    async def scenario():
        server = sasl_server()
        async with server.listening(("127.0.0.1", 0), ssl=server_tls):
            sasl = Scram("alice", "secret", "SCRAM-SHA-512")
            async with await connect(*server.addresses[0], ssl=client_tls, sasl=sasl) as conn:
                assert (await conn.send(metadata_for("x"))).cluster_id == "alice"

    run(scenario())


@pytest.mark.parametrize(
    "sasl, reason",
    [
        (Plain("alice", "guess"), "Invalid username or password"),
        (Scram("alice", "guess"), "invalid credentials"),
        (Scram("mallory", "secret"), "invalid credentials"),
    ],
)
def test_a_wrong_password_is_refused_with_kafkas_error_and_the_connection_serves_no_more(
    sasl, reason
):
    async def scenario():
        async with serving(sasl_server()) as server:
            with pytest.raises(AuthenticationFailed, match=reason):
                await connect(*server.addresses[0], sasl=sasl)

    run(scenario())


def test_a_request_before_authentication_closes_the_connection(caplog):
    async def scenario():
        async with serving(sasl_server()) as server:
            peer = await RawPeer.open(server)
            await peer.request(metadata_for("early"), 12, 3)
            assert await peer.closed_by_server()
            async with await connect(*server.addresses[0], sasl=Plain("alice", "secret")) as conn:
                assert (await conn.send(metadata_for("x"))).cluster_id == "alice"

    with caplog.at_level(logging.WARNING, logger="kafka_meta_proto.server"):
        run(scenario())
    assert "api key 3 before SASL authentication (correlation id 3)" in caplog.text


def test_an_unknown_mechanism_is_refused_naming_the_enabled_ones():
    async def scenario():
        server = Server()
        server.enable_sasl(PlainServer({"alice": "secret"}))
        async with serving(server):
            with pytest.raises(AuthenticationFailed, match=r"enabled: PLAIN\)"):
                await connect(*server.addresses[0], sasl=Scram("alice", "secret"))

    run(scenario())


def test_the_gate_admits_only_the_exchange_until_it_succeeds_and_nothing_after_a_failure():
    gate = SaslGate([PlainServer({"alice": "secret"})])
    fresh, started, failed, done = {}, {"sasl": object()}, {"sasl": "failed"}, {"principal": "a"}
    assert [gate.refusal(key, fresh) is None for key in (18, 17, 36, 3)] == [
        True,
        True,
        False,
        False,
    ]
    assert gate.refusal(36, started) is None and gate.refusal(3, started) is not None
    assert all(gate.refusal(key, failed) is not None for key in (18, 17, 36, 3))
    assert all(gate.refusal(key, done) is None for key in (18, 3, 0))
