"""The broker's side of SASL for the loopback tests: SaslHandshake and SaslAuthenticate handlers
for PLAIN and SCRAM-SHA-256 (RFC 5802's server computation, written apart from the client's)."""

from __future__ import annotations

import base64
import hashlib
import hmac

from kafka_meta_proto import message_class

SaslHandshakeResponse = message_class("SaslHandshakeResponse")
SaslAuthenticateResponse = message_class("SaslAuthenticateResponse")
MECHANISMS = ["PLAIN", "SCRAM-SHA-256"]


class SaslBroker:
    def __init__(
        self, username: str, password: str, salt: bytes = b"loopback-salt", iterations: int = 4096
    ):
        self.username, self.password, self.salt, self.iterations = (
            username,
            password,
            salt,
            iterations,
        )
        self.mechanism = None
        self.authenticated = False
        self._state: dict[str, str] = {}

    async def handshake(self, event):
        if event.body.mechanism not in MECHANISMS:
            return SaslHandshakeResponse(error_code=33, mechanisms=MECHANISMS)
        self.mechanism = event.body.mechanism
        return SaslHandshakeResponse(mechanisms=MECHANISMS)

    async def authenticate(self, event):
        token = bytes(event.body.auth_bytes)
        if self.mechanism == "PLAIN":
            ok = token == f"\0{self.username}\0{self.password}".encode()
            return self._outcome(ok, b"")
        if "first" not in self._state:
            return self._server_first(token.decode())
        return self._server_final(token.decode())

    def _outcome(self, ok: bool, data: bytes):
        self.authenticated = ok
        if ok:
            return SaslAuthenticateResponse(auth_bytes=data)
        return SaslAuthenticateResponse(
            error_code=58,
            error_message="Authentication failed: Invalid credentials",
            auth_bytes=b"",
        )

    def _server_first(self, client_first: str):
        bare = client_first[3:]  # after "n,,"
        attrs = dict(part.split("=", 1) for part in bare.split(","))
        if attrs["n"] != self.username:
            return self._outcome(False, b"")
        nonce = attrs["r"] + "server-part"
        first = f"r={nonce},s={base64.b64encode(self.salt).decode()},i={self.iterations}"
        self._state.update(bare=bare, first=first)
        return SaslAuthenticateResponse(auth_bytes=first.encode())

    def _server_final(self, client_final: str):
        without_proof, proof = client_final.rsplit(",p=", 1)
        auth = f"{self._state['bare']},{self._state['first']},{without_proof}".encode()
        salted = hashlib.pbkdf2_hmac("sha256", self.password.encode(), self.salt, self.iterations)
        stored = hashlib.sha256(hmac.new(salted, b"Client Key", "sha256").digest()).digest()
        signature = hmac.new(stored, auth, "sha256").digest()
        client_key = bytes(a ^ b for a, b in zip(base64.b64decode(proof), signature))
        if hashlib.sha256(client_key).digest() != stored:
            return self._outcome(False, b"")
        server_signature = hmac.new(
            hmac.new(salted, b"Server Key", "sha256").digest(), auth, "sha256"
        ).digest()
        return self._outcome(True, b"v=" + base64.b64encode(server_signature))
