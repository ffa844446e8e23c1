"""Frame bounds found in a stream however it is cut into reads, with only the cut frames
copied, and a size over the limit refused at once."""

from __future__ import annotations

import random
import struct

import pytest

from kafka_meta_proto.net.errors import FrameTooLarge, ProtocolError
from kafka_meta_proto.proxy.scanner import FrameScanner


def frames(count: int, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    sizes = [rng.choice((0, 1, 3, 8, 70, 1500)) for _ in range(count)]
    return [struct.pack(">i", n) + bytes(rng.randrange(256) for _ in range(n)) for n in sizes]


def scan(reads: list[bytes], limit: int = 1 << 20) -> list[bytes]:
    scanner, found = FrameScanner(limit), []
    for data in reads:
        chunk, bounds = scanner.feed(data)
        found += [bytes(chunk[start:end]) for start, end in zip(bounds, bounds[1:])]
    return found


@pytest.mark.parametrize("seed", range(5))
def test_every_cut_of_the_stream_gives_the_same_frames(seed):
    sent = frames(12, seed)
    stream = b"".join(sent)
    for cut in range(len(stream) + 1):
        assert scan([stream[:cut], stream[cut:]]) == sent
    rng = random.Random(seed)
    cuts = sorted(rng.sample(range(1, len(stream)), 30))
    pieces = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)])]
    assert scan(pieces) == sent
    assert scan([bytes([b]) for b in stream]) == sent  # one byte a read


def test_a_read_of_whole_frames_is_handed_back_as_it_came():
    data = b"".join(frames(6, 1))
    chunk, bounds = FrameScanner(1 << 20).feed(data)
    assert chunk is data and bounds[-1] == len(data)


def test_a_cut_frame_is_kept_whole_until_its_last_byte():
    frame = struct.pack(">i", 100) + bytes(100)
    scanner = FrameScanner(1 << 20)
    for i in range(0, 100, 10):
        assert scanner.feed(frame[i : i + 10])[1] == [0]
    chunk, bounds = scanner.feed(frame[100:])
    assert bytes(chunk[bounds[0] : bounds[1]]) == frame


@pytest.mark.parametrize("size, error", [(2**31 - 1, FrameTooLarge), (-1, ProtocolError)])
def test_a_bad_size_is_refused_before_its_frame_and_ever_after(size, error):
    scanner = FrameScanner(1 << 20)
    with pytest.raises(error):
        scanner.feed(struct.pack(">i", 3) + b"abc" + struct.pack(">i", size))
    with pytest.raises(error):
        scanner.feed(b"more")
