"""The public client against a broker configured for TLS and SASL (a SASL_SSL listener with a
throwaway certificate; PLAIN users in its JAAS settings, SCRAM credentials added by Kafka's
storage tool when formatting), on the newest 4.x and the 3.9 line."""

from __future__ import annotations

import asyncio
import ssl

import pytest

from client.tls import client_context, self_signed
from cluster.conftest import NEWEST, OLDEST, STARTED
from conftest import need_kafka
from kafka_cluster import KafkaCluster
from kafka_meta_proto import message_class
from kafka_meta_proto.client import AuthenticationFailed, Plain, Scram, connect

MetadataRequest = message_class("MetadataRequest")

pytestmark = [pytest.mark.cluster, pytest.mark.slow]  # real Kafka clusters: minutes

USER, PASSWORD = "alice", "alice-secret"
LISTENER = "SASL_SSL"


def secure_settings(cert: str, key: str) -> dict[str, str]:
    prefix = f"listener.name.{LISTENER.lower()}."
    scram_login = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
    return {
        # PEM in the properties file: newlines as \n escapes
        prefix + "ssl.keystore.type": "PEM",
        prefix + "ssl.keystore.certificate.chain": cert.strip().replace("\n", "\\n"),
        prefix + "ssl.keystore.key": key.strip().replace("\n", "\\n"),
        "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
        prefix
        + "plain.sasl.jaas.config": f'org.apache.kafka.common.security.plain.PlainLoginModule required user_{USER}="{PASSWORD}";',
        prefix + "scram-sha-256.sasl.jaas.config": scram_login,
        prefix + "scram-sha-512.sasl.jaas.config": scram_login,
    }


@pytest.fixture(scope="module", params=[NEWEST, OLDEST])
def secure(request, tmp_path_factory):
    """A combined node with a SASL_SSL listener, and a client context trusting its certificate."""
    need_kafka(request.param)
    cert, key = self_signed()
    scram = [f"SCRAM-SHA-{bits}=[name={USER},password={PASSWORD}]" for bits in (256, 512)]
    cluster = KafkaCluster(
        request.param, tmp_path_factory.mktemp(f"kafka-secure-{request.param}"), combined=True,
        settings=secure_settings(cert, key), listeners={LISTENER: LISTENER},
        format_options=[option for credential in scram for option in ("--add-scram", credential)],
    )  # fmt: skip
    STARTED.append(cluster)
    cluster.start()
    yield cluster, client_context(cert)
    cluster.stop()


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 120))


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_tls_and_sasl(secure, mechanism):
    cluster, context = secure
    sasl = Plain(USER, PASSWORD) if mechanism == "PLAIN" else Scram(USER, PASSWORD, mechanism)

    async def scenario():
        async with await connect(
            *cluster.bootstrap_for(LISTENER)[0], ssl=context, sasl=sasl
        ) as conn:
            return await conn.send(MetadataRequest(topics=None))

    metadata = run(scenario())
    assert [b.port for b in metadata.brokers] == [cluster.bootstrap_for(LISTENER)[0][1]]


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256"])
def test_a_wrong_password_is_refused(secure, mechanism):
    cluster, context = secure
    sasl = Plain(USER, "wrong") if mechanism == "PLAIN" else Scram(USER, "wrong", mechanism)

    async def scenario():
        with pytest.raises(AuthenticationFailed, match=f"{mechanism} authentication refused"):
            await connect(*cluster.bootstrap_for(LISTENER)[0], ssl=context, sasl=sasl)

    run(scenario())


def test_an_untrusted_certificate_is_refused(secure):
    cluster, _ = secure

    async def scenario():
        with pytest.raises(ssl.SSLCertVerificationError):
            await connect(
                *cluster.bootstrap_for(LISTENER)[0],
                ssl=ssl.create_default_context(),
                sasl=Plain(USER, PASSWORD),
            )

    run(scenario())
