"""A throwaway self-signed certificate for 127.0.0.1, and the TLS contexts of both sides."""

from __future__ import annotations

import datetime
import ipaddress
import ssl

import pytest

x509 = pytest.importorskip(
    "cryptography.x509", reason="the cryptography package makes the test certificate"
)
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import rsa  # noqa: E402


def self_signed() -> tuple[str, str]:
    """(certificate, PKCS#8 private key), both PEM, for 127.0.0.1; RSA, which every JDK reads."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(x509.oid.NameOID.COMMON_NAME, "loopback broker")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )  # fmt: skip
    pem_key = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return cert.public_bytes(serialization.Encoding.PEM).decode(), pem_key.decode()


def client_context(cert: str) -> ssl.SSLContext:
    """A client context that trusts ``cert`` alone (and checks the host name against it)."""
    return ssl.create_default_context(cadata=cert)


def tls_contexts(directory) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    cert, key = self_signed()
    cert_file, key_file = directory / "cert.pem", directory / "key.pem"
    cert_file.write_text(cert)
    key_file.write_text(key)
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(cert_file, key_file)
    return server, client_context(cert)
