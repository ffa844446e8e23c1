"""Choosing versions: the ApiVersions negotiation rule and the version per request."""

from __future__ import annotations

import pytest

from kafka_meta_proto import message_class
from kafka_meta_proto.net import NoCommonVersion, ProtocolError
from kafka_meta_proto.net.versions import (
    Retry,
    choose_version,
    newest_api_versions_version,
    read_api_versions,
)

ApiVersionsRequest = message_class("ApiVersionsRequest")
ApiVersionsResponse = message_class("ApiVersionsResponse")
MetadataRequest = message_class("MetadataRequest")
ApiVersion = ApiVersionsResponse.ApiVersion


def test_negotiation_opens_with_the_newest_api_versions_version():
    assert newest_api_versions_version() == ApiVersionsRequest.versions()[-1]


def test_an_answer_gives_the_broker_ranges():
    body = ApiVersionsResponse(
        api_keys=[
            ApiVersion(api_key=3, min_version=0, max_version=12),
            ApiVersion(api_key=18, min_version=0, max_version=4),
        ]
    )
    assert read_api_versions(body, 4) == {3: (0, 12), 18: (0, 4)}


def test_a_refusal_asks_again_at_the_broker_s_newest():
    body = ApiVersionsResponse(
        error_code=35, api_keys=[ApiVersion(api_key=18, min_version=0, max_version=3)]
    )
    assert read_api_versions(body, 5) == Retry(3)


def test_a_refusal_without_a_list_falls_back_to_version_zero():
    assert read_api_versions(ApiVersionsResponse(error_code=35), 5) == Retry(0)


def test_a_refusal_never_asks_again_at_the_same_or_a_newer_version():
    body = ApiVersionsResponse(
        error_code=35, api_keys=[ApiVersion(api_key=18, min_version=0, max_version=9)]
    )
    assert read_api_versions(body, 5) == Retry(4)


@pytest.mark.parametrize("code, sent", [(35, 0), (1, 3)])
def test_other_refusals_are_protocol_errors(code, sent):
    with pytest.raises(ProtocolError, match=f"ApiVersions v{sent} answered with error code {code}"):
        read_api_versions(ApiVersionsResponse(error_code=code), sent)


def test_newest_common_version_or_the_one_asked_for():
    assert choose_version(MetadataRequest, {3: (0, 9)}) == 9
    assert choose_version(MetadataRequest(), {3: (0, 99)}) == MetadataRequest.versions()[-1]
    assert choose_version(MetadataRequest, {3: (0, 12)}, 4) == 4


def test_versions_the_peer_does_not_speak_are_clear_errors():
    with pytest.raises(NoCommonVersion, match="speaks MetadataRequest versions 0-9, not 12"):
        choose_version(MetadataRequest, {3: (0, 9)}, 12)
    with pytest.raises(NoCommonVersion, match="does not speak MetadataRequest"):
        choose_version(MetadataRequest, {18: (0, 3)})
    with pytest.raises(NoCommonVersion, match="the peer speaks versions 90-99"):
        choose_version(MetadataRequest, {3: (90, 99)})
    with pytest.raises(NoCommonVersion, match="has no version 99 here"):
        choose_version(MetadataRequest, {3: (0, 120)}, 99)
