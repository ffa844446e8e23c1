"""What a user sees of a generated class without reading its module: constructors that take
keywords only, a class docstring (help()) listing every field with its type, default, versions and
description, and signatures inspect can read under either codec."""

from __future__ import annotations

import importlib
import inspect
import pydoc
import uuid

import pytest

from kafka_meta_proto import DISKLESS_REGISTRY, REGISTRY, Uuid, protocol
from kafka_meta_proto.codec import active_codec
from kafka_meta_proto.errors import UnsupportedVersionDecodeError
from kafka_meta_proto.message import Message
from kafka_meta_proto.messages.fetch_request import FetchRequest, FetchTopic
from kafka_meta_proto.messages.fetch_response import FetchResponse


def _generated_classes():
    """Every generated class (messages and their structs) of both shipped registries."""
    seen = {}
    for registry in (REGISTRY, DISKLESS_REGISTRY):
        for name in registry.own_names():
            cls = registry.message_class(name)
            module = importlib.import_module(cls.__module__)
            for member in module.__all__:
                c = getattr(module, member)
                seen[f"{module.__name__}.{member}"] = c
    return sorted(seen.items())


CLASSES = _generated_classes()


def test_constructors_take_keywords_only():
    assert len(CLASSES) > 600  # every message and struct class
    for qualified, cls in CLASSES:
        with pytest.raises(TypeError, match="positional"):
            cls(0)
        if cls._FIELDS:  # the same value as a keyword is fine
            first = cls._FIELDS[0]
            cls(**{first.name: getattr(cls(), first.name)})


def test_the_issue_example_is_refused():
    # FetchRequest's first field is the tagged cluster_id: a positional -1 used to land there
    with pytest.raises(TypeError):
        FetchRequest(-1, 500)
    assert FetchRequest(replica_id=-1, max_wait_ms=500).max_wait_ms == 500


def test_every_class_docstring_lists_its_fields():
    for qualified, cls in CLASSES:
        doc = inspect.getdoc(cls)
        assert doc and "Keyword arguments" in doc, qualified
        lines = doc.splitlines()
        for info in cls._FIELDS:
            entry = next((i for i, line in enumerate(lines) if line.startswith(info.name + ": ")), None)
            assert entry is not None, f"{qualified}: {info.name} is not in the docstring"
            # the line after it says where the field exists
            assert lines[entry + 1].lstrip().startswith(("Version", "In no version")), (qualified, info.name)
        assert any(line.startswith("unknown_tagged_fields: ") for line in lines), qualified


def test_docstring_shows_type_default_versions_tag_and_description():
    text = pydoc.render_doc(FetchRequest, renderer=pydoc.plaintext)
    assert "FetchRequest (api key 1): versions 0-18, flexible 12+." in text
    assert "cluster_id: str | None = None" in text
    assert "Versions 12-18, tagged (tag 0), nullable. Cluster id the requester" in text
    assert "max_bytes: int = 2147483647" in text
    assert "rack_id: str = \"\"" in text
    topic = inspect.getdoc(FetchTopic)
    assert "topic_id: Uuid = Uuid.ZERO_UUID" in topic
    assert "Versions 13-18, also takes Kafka's text form or a uuid.UUID." in topic


@pytest.mark.parametrize("method", ["decode", "decode_from", "from_json", "encode", "size", "to_json"])
def test_signatures_can_be_read(method):
    # the compiled codec replaces decode, encode and size with C callables (see codec.py)
    signature = inspect.signature(getattr(FetchRequest, method))
    assert "version" in signature.parameters, (active_codec(), signature)
    if method in ("decode", "decode_from", "from_json"):  # bound to the class: no cls parameter
        assert list(signature.parameters)[0] in ("data", "obj")
    else:
        assert list(signature.parameters)[0] == "self"
    assert "version" in pydoc.render_doc(getattr(FetchRequest, method), renderer=pydoc.plaintext)


def test_constructor_signature_is_keyword_only():
    signature = inspect.signature(FetchRequest)
    assert signature.parameters
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in signature.parameters.values())


def test_uuid_fields_take_what_the_annotation_says():
    text = "MvDxzVmcRsaTz33bUuRU6A"
    assert FetchTopic(topic_id=text).topic_id == Uuid(text)
    as_uuid = uuid.UUID(bytes=Uuid(text).bytes)
    assert FetchTopic(topic_id=as_uuid).topic_id == Uuid(text)
    heartbeat = REGISTRY.message_class("BrokerHeartbeatRequest")
    assert heartbeat(offline_log_dirs=[text, as_uuid]).offline_log_dirs == [Uuid(text), Uuid(text)]


def test_decode_response_with_the_response_class():
    body = FetchResponse(throttle_time_ms=5, session_id=9)
    for version in (7, 12, 16):  # session_id is v7+
        frame = protocol.encode_response(body, version, 77)
        typed = protocol.decode_response(frame, FetchResponse, version)
        by_key = protocol.decode_response(frame, FetchResponse.API_KEY, version)
        assert typed == by_key and typed.body == body and typed.correlation_id == 77
        assert type(typed.body) is FetchResponse


def test_decode_response_refuses_a_class_that_is_no_response():
    frame = protocol.encode_response(FetchResponse(), 12, 1)
    for wrong in (FetchRequest, FetchTopic, int):
        with pytest.raises(TypeError, match="api key or a response class"):
            protocol.decode_response(frame, wrong, 12)  # type: ignore[call-overload]


def test_decode_response_with_a_class_keeps_the_version_check():
    frame = protocol.encode_response(FetchResponse(), 12, 1)
    with pytest.raises(UnsupportedVersionDecodeError):
        protocol.decode_response(frame, FetchResponse, 99)


def test_message_is_the_base_of_every_generated_message():
    for qualified, cls in CLASSES:
        if getattr(cls, "NAME", None) == cls.__name__:
            assert issubclass(cls, Message), qualified
