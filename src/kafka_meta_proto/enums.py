"""Small code enums that live inside message fields.

These are int fields whose values the designs (and Kafka's Java code) give
names to; the schemas themselves only say ``int8``.
"""

from __future__ import annotations

import enum

__all__ = ["CoordinatorKeyType", "LeaderAndIsrType"]


class LeaderAndIsrType(enum.IntEnum):
    """``LeaderAndIsrRequest.Type`` (int8, v5+; added with topic IDs, KIP-516).

    Says whether the request lists every partition the broker hosts (FULL)
    or only changes (INCREMENTAL). Kafka's Java enum
    (``AbstractControlRequest.Type``) calls 0 ``UNKNOWN``; that name is kept
    as an alias.
    """

    UNSPECIFIED = 0
    INCREMENTAL = 1
    FULL = 2
    UNKNOWN = 0  # Kafka's name for 0 (alias of UNSPECIFIED)


class CoordinatorKeyType(enum.IntEnum):
    """``FindCoordinatorRequest.KeyType`` (int8, v1+).

    GROUP, TRANSACTION and SHARE match Kafka's
    ``FindCoordinatorRequest.CoordinatorType``. BATCH comes from the diskless
    batch-coordinator design (KIP-1164) and is not in Kafka: forks that track
    Kafka trunk already use 3 for cluster mirroring, so this value may clash.
    """

    GROUP = 0
    TRANSACTION = 1
    SHARE = 2
    BATCH = 3
