"""kafka_meta_proto: Kafka protocol messages and KRaft metadata records as exact Python classes.

    from kafka_meta_proto import message_class
    Fetch = message_class("FetchRequest")
    body = Fetch(replica_id=-1, max_wait_ms=500).encode(13)
    Fetch.decode(body, 13).to_json(13)

Message classes load lazily, so importing the package costs little. ``REGISTRY`` speaks exactly
what Apache Kafka defines; ``DISKLESS_REGISTRY`` adds the diskless batch-coordinator design's
messages (KIP-1164), which give some of Kafka's numbers other meanings: pass it as ``registry=``.
"""

from .codec import active_codec
from .diskless_messages import REGISTRY as DISKLESS_REGISTRY
from .errors import DecodeError, EncodeError, KafkaProtocolError, UnsupportedVersionError
from .message import Message
from .messages import REGISTRY, message_class, record_class, request_class, response_class
from .uuid import Uuid

__version__ = "0.1.0"

__all__ = [
    "DISKLESS_REGISTRY",
    "DecodeError",
    "EncodeError",
    "KafkaProtocolError",
    "Message",
    "REGISTRY",
    "UnsupportedVersionError",
    "Uuid",
    "active_codec",
    "message_class",
    "record_class",
    "request_class",
    "response_class",
]
