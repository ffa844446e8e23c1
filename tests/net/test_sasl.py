"""SASL exchanges against the RFCs' test vectors (RFC 5802 section 5 for SHA-1, RFC 7677 section
3 for SHA-256), with the client nonce injected as the RFCs give it."""

from __future__ import annotations

import pytest

from kafka_meta_proto.net import AuthenticationFailed
from kafka_meta_proto.net.sasl import Plain, Scram


def test_plain_token():
    exchange = Plain("alice", "secret").start()
    assert exchange.first() == b"\0alice\0secret"
    assert exchange.respond(b"") is None
    assert "secret" not in repr(Plain("alice", "secret"))


def run_vector(mechanism, nonce, server_first, client_final, server_final):
    exchange = Scram("user", "pencil", mechanism, nonce=nonce).start()
    assert exchange.first() == b"n,,n=user,r=" + nonce.encode()
    assert exchange.respond(server_first) == client_final
    assert exchange.respond(server_final) is None


def test_rfc5802_sha1_vector():
    run_vector(
        "SCRAM-SHA-1",
        "fyko+d2lbbFgONRv9qkxdawL",
        b"r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096",
        b"c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=",
        b"v=rmF9pqV8S7suAoZWja4dJRkFsKQ=",
    )


SHA256_SERVER_FIRST = (
    b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
)


def test_rfc7677_sha256_vector():
    run_vector(
        "SCRAM-SHA-256",
        "rOprNGfwEbeRWgbNEkqO",
        SHA256_SERVER_FIRST,
        b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
        b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=",
    )


def test_a_wrong_server_signature_fails():
    exchange = Scram("user", "pencil", nonce="rOprNGfwEbeRWgbNEkqO").start()
    exchange.respond(SHA256_SERVER_FIRST)
    with pytest.raises(AuthenticationFailed, match="does not verify"):
        exchange.respond(b"v=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")


@pytest.mark.parametrize(
    "server_first, message",
    [
        (b"e=unknown-user", "refused the SCRAM exchange: unknown-user"),
        (b"r=someone-else,s=QSXCR+Q6sek8bf92,i=4096", "does not extend ours"),
        (b"r=abc", "malformed"),
        (b"\xff\xfe", "not UTF-8"),
    ],
)
def test_bad_server_first_messages(server_first, message):
    exchange = Scram("user", "pencil", "SCRAM-SHA-512", nonce="abc").start()
    with pytest.raises(AuthenticationFailed, match=message):
        exchange.respond(server_first)


def test_usernames_are_escaped_and_mechanisms_checked():
    assert Scram("a=b,c", "p", nonce="n").start().first() == b"n,,n=a=3Db=2Cc,r=n"
    with pytest.raises(ValueError, match="unknown SCRAM mechanism"):
        Scram("u", "p", "SCRAM-MD5")
