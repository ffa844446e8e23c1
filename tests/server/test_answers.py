"""The framework's own answers and its handler table, without sockets."""

from __future__ import annotations

import pytest

from kafka_meta_proto import message_class, registries
from kafka_meta_proto.server import Handlers
from kafka_meta_proto.server.answers import api_versions_response, server_error_response

MetadataRequest = message_class("MetadataRequest")
MetadataResponse = message_class("MetadataResponse")
ApiVersionsRequest = message_class("ApiVersionsRequest")
REGISTRY = registries.resolve(None)


async def nothing(request):
    return None


def test_ranges_are_the_classes_versions_unless_narrowed_and_include_api_versions():
    handlers = Handlers()
    handlers.add(MetadataRequest, nothing)
    handlers.add(16, nothing, versions=(2, 4))
    newest = ApiVersionsRequest.versions()[-1]
    assert handlers.ranges() == {
        3: (0, MetadataRequest.versions()[-1]),
        16: (2, 4),
        18: (0, newest),
    }
    assert handlers.find(16, 4) is nothing
    assert handlers.find(16, 5) is None and handlers.find(16, 1) is None
    assert handlers.find(0, 3) is None  # no handler for Produce


def test_registration_refuses_what_it_cannot_serve():
    handlers = Handlers()
    with pytest.raises(ValueError, match="not within"):
        handlers.add(MetadataRequest, nothing, versions=(0, 99))
    with pytest.raises(TypeError, match="not a request"):
        handlers.add(MetadataResponse, nothing)
    with pytest.raises(KeyError):
        handlers.add(9999, nothing)


def test_api_versions_lists_every_range_at_a_version_known():
    ranges = {3: (0, 13), 18: (0, 4)}
    body, version = api_versions_response(REGISTRY, ranges, 3)
    assert version == 3 and body.error_code == 0
    assert [(k.api_key, k.min_version, k.max_version) for k in body.api_keys] == [
        (3, 0, 13),
        (18, 0, 4),
    ]


def test_api_versions_of_an_unknown_version_answers_v0_with_its_own_range():
    body, version = api_versions_response(REGISTRY, {3: (0, 13), 18: (0, 4)}, 7)
    assert (version, body.error_code) == (0, 35)
    assert [(k.api_key, k.min_version, k.max_version) for k in body.api_keys] == [(18, 0, 4)]


def test_server_error_answer_only_where_the_response_has_a_top_level_error_code():
    assert server_error_response(REGISTRY, 16, 0).error_code == -1  # ListGroups, every version
    assert server_error_response(REGISTRY, 3, 13).error_code == -1  # Metadata from v13
    assert server_error_response(REGISTRY, 3, 12) is None
