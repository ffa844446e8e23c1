"""Which version to speak: the ApiVersions negotiation and the choice per request.

Kafka's clients open every connection with ApiVersions at the newest version they know. A broker
that does not know that version answers in version 0 with UNSUPPORTED_VERSION (35) and, since
Kafka 2.4, lists in the body the ApiVersions versions it does speak; the client asks again at the
newest of those (at version 0 when the list is empty), as Kafka's NetworkClient does. After that,
each request goes out at the newest version both sides speak, unless the caller names one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .. import registries
from ..message import Message
from ..messages import REGISTRY
from ..registries import RegistryLike
from .errors import NoCommonVersion, ProtocolError

UNSUPPORTED_VERSION = 35
API_VERSIONS_KEY = 18

# api key -> (min version, max version) the peer advertises
VersionRanges = Mapping[int, tuple[int, int]]


def newest_api_versions_version(registry: RegistryLike = REGISTRY) -> int:
    """The ApiVersions version a connection opens with: the newest we know."""
    return registries.resolve(registry).request_class(API_VERSIONS_KEY).versions()[-1]


@dataclass(frozen=True)
class Retry:
    """The broker refused our ApiVersions version: ask again at this one."""

    version: int


def read_api_versions(body: Message, sent_version: int) -> dict[int, tuple[int, int]] | Retry:
    """The broker's version ranges from an ApiVersions response, or the version to ask again
    at when it refused ours. Any other error, or a refusal of version 0, is a ProtocolError."""
    error_code: int = getattr(body, "error_code")
    ranges = {api.api_key: (api.min_version, api.max_version) for api in getattr(body, "api_keys")}
    if error_code == UNSUPPORTED_VERSION and sent_version > 0:
        retry = min(ranges.get(API_VERSIONS_KEY, (0, 0))[1], sent_version - 1)
        return Retry(max(retry, 0))
    if error_code != 0:
        raise ProtocolError(f"ApiVersions v{sent_version} answered with error code {error_code}")
    return ranges


def choose_version(
    request: type[Message] | Message, peer: VersionRanges, requested: int | None = None
) -> int:
    """The version to send ``request`` at: ``requested`` if both sides speak it, else the newest
    version both speak. NoCommonVersion names the api and both ranges when there is none."""
    cls = request if isinstance(request, type) else type(request)
    api_key = cls.API_KEY
    if api_key is None or cls.MESSAGE_TYPE != "request":
        raise TypeError(f"{cls.__name__} is not a request")
    ours = cls.versions()
    if api_key not in peer:
        raise NoCommonVersion(f"the peer does not speak {cls.NAME} (api key {api_key})")
    low, high = peer[api_key]
    if requested is not None:
        if requested not in ours:
            raise NoCommonVersion(
                f"{cls.NAME} has no version {requested} here (versions {ours[0]}-{ours[-1]})"
            )
        if not low <= requested <= high:
            raise NoCommonVersion(
                f"the peer speaks {cls.NAME} versions {low}-{high}, not {requested}"
            )
        return requested
    common = [v for v in ours if low <= v <= high]
    if not common:
        raise NoCommonVersion(
            f"{cls.NAME}: the peer speaks versions {low}-{high}, this package {ours[0]}-{ours[-1]}"
        )
    return common[-1]
