"""A response body a handler encoded itself, for an answer it can write faster than the
generated class would build and encode it.

A handler returns an ``EncodedBody`` where it would return the response message; the framework
writes the response header (version 1 when ``flexible``, else 0) and then ``data`` as it is. The
body is checked for nothing but its version: its bytes are the handler's word.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EncodedBody:
    """The encoded body of the response to api key ``api_key`` at ``version``; ``flexible``
    says whether that version is a flexible one (its header then carries tagged fields)."""

    api_key: int
    version: int
    flexible: bool
    data: bytes

    # What protocol.encode_response asks of a body, as a Message answers it.

    @property
    def API_KEY(self) -> int:  # noqa: N802 (Message's name)
        return self.api_key

    def is_flexible(self, version: int) -> bool:
        self._check(version)
        return self.flexible

    def encode_into(self, out: bytearray, version: int) -> None:
        self._check(version)
        out += self.data

    def _check(self, version: int) -> None:
        if version != self.version:
            raise ValueError(
                f"a body encoded at version {self.version} of api key {self.api_key} "
                f"cannot answer at version {version}"
            )
