"""The KRaft domain: metadata record values (``records``), the rules a replay applies
(``rules``), the metadata image built by replaying a log (``image``, printed by ``image_text``)
and the coordinators' internal-topic records (``coordinator_records``).

The record framing is re-exported here, so ``kraft.decode_record_value`` and
``kraft.encode_record_value`` read as they always have.
"""

from __future__ import annotations

from ..log.control import (
    ABORT,
    COMMIT,
    CONTROL_TYPE_NAMES,
    KRAFT_VERSION,
    KRAFT_VOTERS,
    LEADER_CHANGE,
    SNAPSHOT_FOOTER,
    SNAPSHOT_HEADER,
    ControlRecord,
)
from ..messages import REGISTRY
from .records import (
    CONTROL_RECORDS,
    FRAME_VERSION,
    MetadataRecord,
    decode_control_key,
    decode_control_record,
    decode_record_value,
    encode_control_key,
    encode_record_value,
    record_type_name,
)

__all__ = [
    "ABORT",
    "COMMIT",
    "CONTROL_RECORDS",
    "CONTROL_TYPE_NAMES",
    "FRAME_VERSION",
    "KRAFT_VERSION",
    "KRAFT_VOTERS",
    "LEADER_CHANGE",
    "REGISTRY",
    "SNAPSHOT_FOOTER",
    "SNAPSHOT_HEADER",
    "ControlRecord",
    "MetadataRecord",
    "decode_control_key",
    "decode_control_record",
    "decode_record_value",
    "encode_control_key",
    "encode_record_value",
    "record_type_name",
]
