"""Mutated streams fed to both sides of the sans-I/O connection, in random pieces: whatever the
bytes, receive_data gives events or raises ProtocolError (never another exception), and a
connection that raised stays failed. Deterministic: a fixed seed per case."""

from __future__ import annotations

import random

import pytest

from kafka_meta_proto import protocol, request_class, response_class
from kafka_meta_proto.net import ClientConnection, ProtocolError, ServerConnection

API_KEYS = [0, 1, 2, 3, 8, 9, 10, 11, 18, 19, 22, 32, 36, 60, 68]


def samples(kind):
    """(body, version) for every version of a few APIs, default bodies that encode."""
    found = []
    for key in API_KEYS:
        cls = (request_class if kind == "request" else response_class)(key)
        for version in cls.versions():
            try:
                cls().encode(version)
            except Exception:
                continue
            found.append((cls(), version))
    return found


def mutate(rng: random.Random, data: bytes) -> bytes:
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        choice, at = rng.random(), rng.randrange(len(data) + 1)
        if choice < 0.5 and at < len(data):
            data[at] = rng.randrange(256)
        elif choice < 0.7:
            del data[at : at + rng.randint(1, 8)]
        else:
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    return bytes(data)


def feed_in_pieces(rng, connection, data: bytes) -> None:
    position = 0
    while position < len(data):
        step = rng.randint(1, 64)
        connection.receive_data(data[position : position + step])
        position += step


def survives(rng, connection, data: bytes) -> bool:
    """True when the stream was taken whole, False when it was refused with a ProtocolError."""
    try:
        feed_in_pieces(rng, connection, data)
        return True
    except ProtocolError:
        with pytest.raises(ProtocolError):
            connection.receive_data(b"\0")
        return False


@pytest.mark.parametrize("seed", range(4))
def test_mutated_responses(seed):
    rng = random.Random(seed)
    outcomes = set()
    for body, version in samples("response"):
        client = ClientConnection()
        cid = client.send_request(request_class(body.API_KEY)(), version, expect_response=True)
        whole = protocol.encode_response(body, version, cid)
        outcomes.add(survives(rng, client, mutate(rng, whole) + whole))
    assert outcomes == {
        True,
        False,
    }  # both happen: the mutations are neither all harmless nor all fatal


@pytest.mark.parametrize("seed", range(4))
def test_mutated_requests(seed):
    rng = random.Random(seed)
    outcomes = set()
    for body, version in samples("request"):
        frame = protocol.encode_request(body, version, rng.randrange(2**31), "fuzz")
        outcomes.add(survives(rng, ServerConnection(), mutate(rng, frame) + frame))
    assert outcomes == {True, False}


@pytest.mark.parametrize("seed", range(4))
def test_random_bytes(seed):
    rng = random.Random(seed)
    for _ in range(200):
        noise = bytes(rng.randrange(256) for _ in range(rng.randint(0, 300)))
        client = ClientConnection()
        client.send_request(request_class(3)(), 12)
        survives(rng, client, noise)
        survives(rng, ServerConnection(), noise)
