"""SASL client exchanges as state machines: PLAIN (RFC 4616) and SCRAM-SHA-256/512 (RFC 5802,
RFC 7677). They compute tokens only; a transport carries them in SaslAuthenticate requests.

``Plain`` and ``Scram`` hold the credentials and may be reused; ``start()`` begins a fresh
exchange for one connection. An exchange's ``first()`` is the client's opening token;
``respond(challenge)`` returns the next token, or None when the exchange is complete.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass, field
from typing import Protocol

from .errors import AuthenticationFailed

_HASHES = {"SCRAM-SHA-256": "sha256", "SCRAM-SHA-512": "sha512", "SCRAM-SHA-1": "sha1"}


class SaslExchange(Protocol):
    def first(self) -> bytes: ...

    def respond(self, challenge: bytes) -> bytes | None: ...


class SaslMechanism(Protocol):
    @property
    def mechanism(self) -> str: ...

    def start(self) -> SaslExchange: ...


@dataclass(frozen=True)
class Plain:
    username: str
    password: str = field(repr=False)
    authorization_id: str = ""

    @property
    def mechanism(self) -> str:
        return "PLAIN"

    def start(self) -> PlainExchange:
        return PlainExchange(self)


class PlainExchange:
    """One token, authzid NUL authcid NUL password; the server's empty answer ends it."""

    def __init__(self, credentials: Plain):
        self._credentials = credentials

    def first(self) -> bytes:
        c = self._credentials
        return f"{c.authorization_id}\0{c.username}\0{c.password}".encode()

    def respond(self, challenge: bytes) -> bytes | None:
        return None


@dataclass(frozen=True)
class Scram:
    username: str
    password: str = field(repr=False)
    mechanism: str = "SCRAM-SHA-256"
    # For tests: the client nonce, instead of a random one.
    nonce: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.mechanism not in _HASHES:
            raise ValueError(
                f"unknown SCRAM mechanism {self.mechanism!r} (known: {', '.join(_HASHES)})"
            )

    def start(self) -> ScramExchange:
        return ScramExchange(self, self.nonce or secrets.token_urlsafe(24))


def _escape(name: str) -> str:
    """RFC 5802's saslname: '=' and ',' are escaped."""
    return name.replace("=", "=3D").replace(",", "=2C")


def _attributes(message: bytes) -> dict[str, str]:
    try:
        text = message.decode()
        return {part[0]: part[2:] for part in text.split(",") if len(part) >= 2 and part[1] == "="}
    except UnicodeDecodeError:
        raise AuthenticationFailed("the server's SCRAM message is not UTF-8") from None


class ScramExchange:
    """client-first -> server-first -> client-final (with the proof) -> server-final (verified)."""

    GS2_HEADER = "n,,"  # no channel binding, no authorization identity

    def __init__(self, credentials: Scram, nonce: str):
        self._credentials = credentials
        self._hash = _HASHES[credentials.mechanism]
        self._nonce = nonce
        self._first_bare = f"n={_escape(credentials.username)},r={nonce}"
        self._server_signature: bytes | None = None
        self._done = False

    def first(self) -> bytes:
        return (self.GS2_HEADER + self._first_bare).encode()

    def respond(self, challenge: bytes) -> bytes | None:
        if self._done:
            raise AuthenticationFailed("the server sent a message after the SCRAM exchange ended")
        if self._server_signature is None:
            return self._final(challenge)
        self._verify(challenge, self._server_signature)
        return None

    def _hmac(self, key: bytes, message: bytes) -> bytes:
        return hmac.new(key, message, self._hash).digest()

    def _final(self, server_first: bytes) -> bytes:
        attrs = _attributes(server_first)
        if "e" in attrs:
            raise AuthenticationFailed(f"the server refused the SCRAM exchange: {attrs['e']}")
        try:
            nonce, salt, iterations = (
                attrs["r"],
                base64.b64decode(attrs["s"], validate=True),
                int(attrs["i"]),
            )
        except (KeyError, ValueError) as e:
            raise AuthenticationFailed(
                f"the server's first SCRAM message is malformed: {server_first!r}"
            ) from e
        if not nonce.startswith(self._nonce) or iterations < 1:
            raise AuthenticationFailed(
                "the server's SCRAM nonce does not extend ours, or its iteration count is not positive"
            )
        salted = hashlib.pbkdf2_hmac(
            self._hash, self._credentials.password.encode(), salt, iterations
        )
        client_key = self._hmac(salted, b"Client Key")
        stored_key = hashlib.new(self._hash, client_key).digest()
        without_proof = f"c={base64.b64encode(self.GS2_HEADER.encode()).decode()},r={nonce}"
        auth_message = f"{self._first_bare},{server_first.decode()},{without_proof}".encode()
        signature = self._hmac(stored_key, auth_message)
        proof = bytes(a ^ b for a, b in zip(client_key, signature))
        self._server_signature = self._hmac(self._hmac(salted, b"Server Key"), auth_message)
        return f"{without_proof},p={base64.b64encode(proof).decode()}".encode()

    def _verify(self, server_final: bytes, expected: bytes) -> None:
        self._done = True
        attrs = _attributes(server_final)
        if "e" in attrs:
            raise AuthenticationFailed(f"the server refused the SCRAM proof: {attrs['e']}")
        try:
            signature = base64.b64decode(attrs["v"], validate=True)
        except (KeyError, ValueError) as e:
            raise AuthenticationFailed(
                f"the server's final SCRAM message is malformed: {server_final!r}"
            ) from e
        if not hmac.compare_digest(signature, expected):
            raise AuthenticationFailed(
                "the server's SCRAM signature does not verify: it does not know the password"
            )
