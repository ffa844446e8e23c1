"""The server's half of SASL, as state machines: PLAIN (RFC 4616) and SCRAM-SHA-256/512 (RFC 5802,
RFC 7677). Like the client half (``net.sasl``) they compute tokens only; a transport carries them
in SaslAuthenticate requests and responses.

A mechanism holds the credentials; ``start()`` begins the exchange of one connection, whose
``step(token)`` returns the server's answer. ``principal`` is the authenticated user once the
exchange is complete (``done``). A token that fails (a wrong password, a proof that does not
verify, a malformed message) raises AuthenticationFailed; the server answers with the error and
ends the connection, as Kafka's broker does.

SCRAM credentials are kept as Kafka keeps them (salt, iterations, stored key, server key), never as
the password: ``ScramCredential.from_password`` derives them.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from .errors import AuthenticationFailed
from .sasl import _HASHES, _attributes

MIN_ITERATIONS = 4096  # Kafka refuses SCRAM credentials with fewer


class SaslServerExchange(Protocol):
    @property
    def done(self) -> bool: ...

    @property
    def principal(self) -> str | None: ...

    def step(self, token: bytes) -> bytes: ...


class SaslServerMechanism(Protocol):
    @property
    def mechanism(self) -> str: ...

    def start(self) -> SaslServerExchange: ...


@dataclass(frozen=True)
class PlainServer:
    """PLAIN against a table of user -> password."""

    users: Mapping[str, str] = field(repr=False)

    @property
    def mechanism(self) -> str:
        return "PLAIN"

    def start(self) -> PlainServerExchange:
        return PlainServerExchange(self.users)


class PlainServerExchange:
    """One token, authzid NUL authcid NUL password, answered with nothing when it checks."""

    def __init__(self, users: Mapping[str, str]):
        self._users = users
        self.principal: str | None = None

    @property
    def done(self) -> bool:
        return self.principal is not None

    def step(self, token: bytes) -> bytes:
        parts = token.split(b"\0")
        if len(parts) != 3:
            raise AuthenticationFailed("the PLAIN token is not authzid NUL authcid NUL password")
        authzid, user, password = (part.decode("utf-8", "replace") for part in parts)
        known = self._users.get(user)
        if known is None or not hmac.compare_digest(known.encode(), password.encode()):
            raise AuthenticationFailed("Invalid username or password")
        if authzid and authzid != user:  # Kafka allows no other authorization identity
            raise AuthenticationFailed("the authorization id is not the user's")
        self.principal = user
        return b""


@dataclass(frozen=True)
class ScramCredential:
    """What the server keeps of a SCRAM password (RFC 5802's StoredKey and ServerKey)."""

    salt: bytes
    iterations: int
    stored_key: bytes = field(repr=False)
    server_key: bytes = field(repr=False)

    @classmethod
    def from_password(
        cls,
        password: str,
        mechanism: str = "SCRAM-SHA-256",
        *,
        salt: bytes | None = None,
        iterations: int = MIN_ITERATIONS,
    ) -> ScramCredential:
        algorithm = _HASHES[mechanism]
        salt = secrets.token_bytes(16) if salt is None else salt
        salted = hashlib.pbkdf2_hmac(algorithm, password.encode(), salt, iterations)
        client_key = hmac.new(salted, b"Client Key", algorithm).digest()
        server_key = hmac.new(salted, b"Server Key", algorithm).digest()
        return cls(salt, iterations, hashlib.new(algorithm, client_key).digest(), server_key)


@dataclass(frozen=True)
class ScramServer:
    """SCRAM-SHA-256 or -512 against a table of user -> credential (made for that mechanism)."""

    credentials: Mapping[str, ScramCredential] = field(repr=False)
    mechanism: str = "SCRAM-SHA-256"

    def __post_init__(self) -> None:
        if self.mechanism not in ("SCRAM-SHA-256", "SCRAM-SHA-512"):
            raise ValueError(f"unknown SCRAM mechanism {self.mechanism!r}")

    def start(self) -> ScramServerExchange:
        return ScramServerExchange(self.credentials, _HASHES[self.mechanism])


class ScramServerExchange:
    """client-first -> server-first (nonce, salt, iterations); client-final (proof, checked) ->
    server-final (the server's signature)."""

    def __init__(self, credentials: Mapping[str, ScramCredential], algorithm: str):
        self._credentials, self._hash = credentials, algorithm
        self._user: str | None = None
        self._auth_start = ""  # client-first-bare,server-first
        self._nonce = ""
        self.principal: str | None = None

    @property
    def done(self) -> bool:
        return self.principal is not None

    def _invalid(self) -> AuthenticationFailed:
        return AuthenticationFailed(
            "Authentication failed during authentication due to invalid credentials"
        )

    def step(self, token: bytes) -> bytes:
        if self.done:
            raise AuthenticationFailed("a SCRAM message after the exchange ended")
        return self._server_first(token) if self._user is None else self._server_final(token)

    def _server_first(self, client_first: bytes) -> bytes:
        text = client_first.decode("utf-8", "replace")
        if not text.startswith("n,,"):
            raise AuthenticationFailed("SCRAM client-first without the 'n,,' header")
        bare = text[3:]
        attrs = _attributes(bare.encode())
        user = attrs.get("n", "").replace("=2C", ",").replace("=3D", "=")
        if user not in self._credentials or not attrs.get("r"):
            raise self._invalid()
        credential = self._credentials[user]
        self._user, self._nonce = user, attrs["r"] + secrets.token_urlsafe(18)
        salt = base64.b64encode(credential.salt).decode()
        first = f"r={self._nonce},s={salt},i={credential.iterations}"
        self._auth_start = f"{bare},{first}"
        return first.encode()

    def _server_final(self, client_final: bytes) -> bytes:
        assert self._user is not None
        text = client_final.decode("utf-8", "replace")
        without_proof, _, proof = text.rpartition(",p=")
        if _attributes(without_proof.encode()).get("r") != self._nonce:
            raise AuthenticationFailed("the SCRAM nonce of the client-final message is not ours")
        credential = self._credentials[self._user]
        auth_message = f"{self._auth_start},{without_proof}".encode()
        signature = hmac.new(credential.stored_key, auth_message, self._hash).digest()
        try:
            claimed = base64.b64decode(proof, validate=True)
        except ValueError:
            raise AuthenticationFailed("the SCRAM proof is not base64") from None
        client_key = bytes(a ^ b for a, b in zip(claimed, signature))
        stored = hashlib.new(self._hash, client_key).digest()
        if len(claimed) != len(signature) or not hmac.compare_digest(stored, credential.stored_key):
            raise self._invalid()
        self.principal = self._user
        server = hmac.new(credential.server_key, auth_message, self._hash).digest()
        return b"v=" + base64.b64encode(server)
