"""kafka_meta_proto: Kafka protocol messages and KRaft metadata records as exact Python classes.

    from kafka_meta_proto import message_class
    Fetch = message_class("FetchRequest")
    body = Fetch(replica_id=-1, max_wait_ms=500).encode(13)
    Fetch.decode(body, 13).to_json(13)

Message classes load lazily, so importing the package costs little.
"""

from .codec import active_codec
from .errors import DecodeError, EncodeError, KafkaProtocolError, UnsupportedVersionError
from .message import Message
from .messages import REGISTRY, message_class, record_class, request_class, response_class
from .uuid import Uuid

__version__ = "0.1.0"

__all__ = [
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
