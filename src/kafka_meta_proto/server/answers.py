"""The answers the framework writes itself: ApiVersions, and Kafka's answer to a request whose
handler failed.

A broker that does not know the ApiVersions version a client sent answers in version 0 with
UNSUPPORTED_VERSION and names the ApiVersions versions it speaks (Kafka's RequestContext treats
such a request as version 0, and ApiVersionsRequest's error response carries that range since
Kafka 2.4), so the client can ask again.

For a handler that raises, Kafka's broker turns the exception into UNKNOWN_SERVER_ERROR (-1) in
the request's error response, or closes the connection when the request has none.
"""

from __future__ import annotations

from typing import Any

from ..message import Message
from ..protocol import API_VERSIONS_KEY
from ..registry import Registry

UNSUPPORTED_VERSION = 35
UNKNOWN_SERVER_ERROR = -1


def api_versions_response(
    registry: Registry, ranges: dict[int, tuple[int, int]], version: int
) -> tuple[Message, int]:
    """The ApiVersions answer to a request at ``version`` and the version to write it at."""
    cls: Any = registry.response_class(API_VERSIONS_KEY)  # fields the base Message does not name
    entry = cls.ApiVersion
    low, high = ranges[API_VERSIONS_KEY]
    if not low <= version <= high:
        own = [entry(api_key=API_VERSIONS_KEY, min_version=low, max_version=high)]
        return cls(error_code=UNSUPPORTED_VERSION, api_keys=own), 0
    keys = [entry(api_key=k, min_version=lo, max_version=hi) for k, (lo, hi) in ranges.items()]
    return cls(api_keys=keys), version


def server_error_response(registry: Registry, api_key: int, version: int) -> Message | None:
    """The response carrying UNKNOWN_SERVER_ERROR in its top-level error code at ``version``,
    or None when the response has no such field there (the connection is closed instead)."""
    cls: Any = registry.response_class(api_key)
    for field in cls._FIELDS:
        if field.name == "error_code" and field.present(version):
            error: Message = cls(error_code=UNKNOWN_SERVER_ERROR)
            return error
    return None
