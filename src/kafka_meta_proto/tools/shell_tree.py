"""The metadata image in our own field-per-file layout, the shell's older tree (Kafka's layout is
``shell_layout``'s): directories are dicts, files are their text.

Names that hold a ``/`` (or are ``.`` or ``..``) show it as ``%2F`` (``%2E``), and a literal ``%``
as ``%25``; the empty config resource name is ``<default>``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from ..kraft.image import (
    CONFIG_RESOURCE_TYPES,
    ZK_MIGRATION_STATES,
    Endpoint,
    FeatureRange,
    MetadataImage,
    Topic,
)
from ..kraft.image_text import (
    ACL_OPERATIONS,
    ACL_PATTERN_TYPES,
    ACL_PERMISSION_TYPES,
    ACL_RESOURCE_TYPES,
    LEADER_RECOVERY_STATES,
    SCRAM_MECHANISMS,
    SECURITY_PROTOCOLS,
)
from .shell_layout import Tree

DEFAULT_NAME = "<default>"


def escape_name(name: str) -> str:
    """A name usable as one path component: ``%`` and ``/`` escaped, ``.``/``..`` made literal."""
    text = name.replace("%", "%25").replace("/", "%2F")
    return text.replace(".", "%2E") if text in (".", "..") else text


def _text(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_text(v) for v in value) + "]"
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    return str(value)


def _coded(code: int, names: dict[int, str]) -> str:
    return f"{names[code]} ({code})" if code in names else str(code)


def _endpoints(endpoints: Mapping[str, Endpoint]) -> Tree:
    return {escape_name(e.name): {"host": e.host, "port": str(e.port),
                                  "securityProtocol": _coded(e.security_protocol, SECURITY_PROTOCOLS)}
            for e in endpoints.values()}  # fmt: skip


def _supported(features: Mapping[str, FeatureRange]) -> Tree:
    return {escape_name(name): {"minSupportedVersion": str(r.min_supported), "maxSupportedVersion": str(r.max_supported)}
            for name, r in features.items()}  # fmt: skip


def _topic_tree(topic: Topic) -> Tree:
    partitions: Tree = {}
    for index, p in topic.partitions.items():
        partitions[str(index)] = {
            "replicas": _text(p.replicas),
            "isr": _text(p.isr),
            "leader": str(p.leader),
            "leaderEpoch": str(p.leader_epoch),
            "partitionEpoch": str(p.partition_epoch),
            "leaderRecoveryState": _coded(p.leader_recovery_state, LEADER_RECOVERY_STATES),
            "removingReplicas": _text(p.removing_replicas),
            "addingReplicas": _text(p.adding_replicas),
            "directories": _text(p.directories),
            "eligibleLeaderReplicas": _text(p.elr),
            "lastKnownElr": _text(p.last_known_elr),
        }
    return {"id": str(topic.id), "name": topic.name, "partitions": partitions}


def image_tree(image: MetadataImage) -> Tree:
    """The image as nested dicts (directories) of strings (file contents)."""
    topics: Tree = {escape_name(t.name): _topic_tree(t) for t in image.topics.values()}
    tree: Tree = {
        "brokers": _brokers(image),
        "controllers": _controllers(image),
        "topics": topics,
        "topicIds": {str(t.id): topics[escape_name(t.name)] for t in image.topics.values()},
        "configs": _configs(image),
        "features": {escape_name(name): str(level) for name, level in image.features.items()},
        "producerIds": _producer_ids(image),
        "acls": _acls(image),
        "clientQuotas": _quotas(image),
        "scram": _scram(image),
        "delegationTokens": _tokens(image),
        "diskless": {
            str(tid): {str(p): str(c) for p, c in parts.items()}
            for tid, parts in image.diskless.items()
        },
        "offset": str(image.offset),
        "epoch": str(image.epoch),
    }
    if image.zk_migration_state is not None:
        tree["zkMigrationState"] = _coded(image.zk_migration_state, ZK_MIGRATION_STATES)
    return tree


def _brokers(image: MetadataImage) -> Tree:
    return {
        str(b.id): {
            "id": str(b.id),
            "epoch": str(b.epoch),
            "incarnationId": str(b.incarnation_id),
            "fenced": _text(b.fenced),
            "inControlledShutdown": _text(b.in_controlled_shutdown),
            "isMigratingZkBroker": _text(b.is_migrating_zk_broker),
            "rack": _text(b.rack),
            "logDirs": _text(b.directories),
            "cordonedLogDirs": _text(b.cordoned_directories),
            "endpoints": _endpoints(b.listeners),
            "features": _supported(b.supported_features),
        }
        for b in image.brokers.values()
    }


def _controllers(image: MetadataImage) -> Tree:
    return {
        str(c.id): {
            "id": str(c.id),
            "incarnationId": str(c.incarnation_id),
            "zkMigrationReady": _text(c.zk_migration_ready),
            "endpoints": _endpoints(c.listeners),
            "features": _supported(c.supported_features),
        }
        for c in image.controllers.values()
    }


# Below, setdefault(name, {}) gives back a directory (the casts): these names hold no files.


def _configs(image: MetadataImage) -> Tree:
    configs: Tree = {}
    for (rtype, rname), values in image.configs.items():
        by_type = cast(Tree, configs.setdefault(CONFIG_RESOURCE_TYPES.get(rtype, str(rtype)), {}))
        by_type[escape_name(rname) if rname else DEFAULT_NAME] = {
            escape_name(k): v for k, v in values.items()
        }
    return configs


def _quotas(image: MetadataImage) -> Tree:
    quotas: Tree = {}
    for entity, quota_values in image.client_quotas.items():
        node = quotas
        for etype, ename in entity:
            by_entity_type = cast(Tree, node.setdefault(escape_name(etype), {}))
            node = cast(
                Tree,
                by_entity_type.setdefault(
                    DEFAULT_NAME if ename is None else escape_name(ename), {}
                ),
            )
        node.update({escape_name(k): _text(v) for k, v in quota_values.items()})
    return quotas


def _scram(image: MetadataImage) -> Tree:
    scram: Tree = {}
    for (mechanism, name), c in image.scram.items():
        by_mechanism = cast(
            Tree, scram.setdefault(SCRAM_MECHANISMS.get(mechanism, str(mechanism)), {})
        )
        by_mechanism[escape_name(name)] = {
            "salt": c.salt.hex(), "storedKey": c.stored_key.hex(), "serverKey": c.server_key.hex(), "iterations": str(c.iterations),
        }  # fmt: skip
    return scram


def _tokens(image: MetadataImage) -> Tree:
    return {
        escape_name(t.token_id): {
            "owner": t.owner, "requester": t.requester, "renewers": _text(t.renewers),
            "issueTimestamp": str(t.issue_timestamp), "maxTimestamp": str(t.max_timestamp),
            "expirationTimestamp": str(t.expiration_timestamp),
        }  # fmt: skip
        for t in image.delegation_tokens.values()
    }


def _acls(image: MetadataImage) -> Tree:
    return {
        str(a.id): {
            "resourceType": _coded(a.resource_type, ACL_RESOURCE_TYPES),
            "resourceName": a.resource_name,
            "patternType": _coded(a.pattern_type, ACL_PATTERN_TYPES),
            "principal": a.principal,
            "host": a.host,
            "operation": _coded(a.operation, ACL_OPERATIONS),
            "permissionType": _coded(a.permission_type, ACL_PERMISSION_TYPES),
        }
        for a in image.acls.values()
    }


def _producer_ids(image: MetadataImage) -> Tree:
    p = image.producer_ids
    if p is None:
        return {}
    return {
        "nextProducerId": str(p.next_producer_id),
        "brokerId": str(p.broker_id),
        "brokerEpoch": str(p.broker_epoch),
    }
