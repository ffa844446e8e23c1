"""The server's half of SASL against the client's half, without sockets: PLAIN and SCRAM-SHA-256/512
succeed with the right password and fail, with AuthenticationFailed, with a wrong one or a
tampered message."""

from __future__ import annotations

import pytest

from kafka_meta_proto.net import AuthenticationFailed
from kafka_meta_proto.net.sasl import Plain, Scram
from kafka_meta_proto.net.sasl_server import PlainServer, ScramCredential, ScramServer


def converse(client, server) -> str:
    """Run both exchanges to the end; the principal the server settled on."""
    exchange, served = client.start(), server.start()
    token = exchange.first()
    while True:
        answer = served.step(token)
        token = exchange.respond(answer)
        if token is None:
            assert served.done
            return served.principal


def scram_server(mechanism: str) -> ScramServer:
    credential = ScramCredential.from_password("pencil", mechanism, salt=b"salt", iterations=4096)
    return ScramServer({"user": credential}, mechanism)


def test_plain_accepts_the_password_and_refuses_others():
    server = PlainServer({"alice": "secret"})
    assert converse(Plain("alice", "secret"), server) == "alice"
    for wrong in (Plain("alice", "guess"), Plain("bob", "secret"), Plain("alice", "secret", "eve")):
        with pytest.raises(AuthenticationFailed):
            converse(wrong, server)
    with pytest.raises(AuthenticationFailed, match="authzid NUL"):
        server.start().step(b"no separators")


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_scram_succeeds_and_the_client_verifies_the_server(mechanism):
    assert converse(Scram("user", "pencil", mechanism), scram_server(mechanism)) == "user"


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_scram_refuses_a_wrong_password_an_unknown_user_and_a_foreign_nonce(mechanism):
    server = scram_server(mechanism)
    with pytest.raises(AuthenticationFailed, match="invalid credentials"):
        converse(Scram("user", "guess", mechanism), server)
    with pytest.raises(AuthenticationFailed, match="invalid credentials"):
        converse(Scram("mallory", "pencil", mechanism), server)
    exchange, served = Scram("user", "pencil", mechanism).start(), server.start()
    final = exchange.respond(served.step(exchange.first()))
    with pytest.raises(AuthenticationFailed, match="nonce"):
        served.step(final.replace(b"r=", b"r=x", 1))


def test_a_credential_keeps_no_password_and_matches_the_mechanism_length():
    short = ScramCredential.from_password("pencil", "SCRAM-SHA-256", salt=b"s")
    long = ScramCredential.from_password("pencil", "SCRAM-SHA-512", salt=b"s")
    assert (len(short.stored_key), len(long.stored_key)) == (32, 64)
    assert "pencil" not in repr(short)
