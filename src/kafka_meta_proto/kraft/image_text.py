"""The text Kafka's metadata shell prints for each part of a metadata image.

Kafka's shell (``kafka-metadata-shell``, 3.5 and later) shows a broker, a partition or an ACL as
its Java object's ``toString()``; the functions here print the same characters from our image, so
that ``cat`` answers as Kafka's shell does. The forms are those of Kafka 4.3; where 3.9 printed
something else, docs/metadata-shell.md says so.
"""

from __future__ import annotations

from datetime import datetime, timezone
from decimal import Decimal
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from .image_parts import (
        Acl,
        BrokerRegistration,
        ControllerRegistration,
        DelegationToken,
        Endpoint,
        FeatureRange,
        PartitionRegistration,
        QuotaEntity,
        ScramCredential,
    )

# MetadataVersion names by feature level, as Kafka 4.4.0's MetadataVersion names them (3.0-IV1 to
# 4.4-IV2, the latest production level, and 4.5-IV0, not yet production).
METADATA_VERSIONS = {
    1: "3.0-IV1", 2: "3.1-IV0", 3: "3.2-IV0", 4: "3.3-IV0", 5: "3.3-IV1", 6: "3.3-IV2", 7: "3.3-IV3",
    8: "3.4-IV0", 9: "3.5-IV0", 10: "3.5-IV1", 11: "3.5-IV2", 12: "3.6-IV0", 13: "3.6-IV1",
    14: "3.6-IV2", 15: "3.7-IV0", 16: "3.7-IV1", 17: "3.7-IV2", 18: "3.7-IV3", 19: "3.7-IV4",
    20: "3.8-IV0", 21: "3.9-IV0", 22: "4.0-IV0", 23: "4.0-IV1", 24: "4.0-IV2", 25: "4.0-IV3",
    26: "4.1-IV0", 27: "4.1-IV1", 28: "4.2-IV0", 29: "4.2-IV1", 30: "4.3-IV0", 31: "4.4-IV0",
    32: "4.4-IV1", 33: "4.4-IV2", 34: "4.5-IV0",
}  # fmt: skip

# Java enum names behind the int8 codes the records carry.
SECURITY_PROTOCOLS = {0: "PLAINTEXT", 1: "SSL", 2: "SASL_PLAINTEXT", 3: "SASL_SSL"}
ACL_RESOURCE_TYPES = {0: "UNKNOWN", 1: "ANY", 2: "TOPIC", 3: "GROUP", 4: "CLUSTER", 5: "TRANSACTIONAL_ID",
                      6: "DELEGATION_TOKEN", 7: "USER"}  # fmt: skip
ACL_PATTERN_TYPES = {0: "UNKNOWN", 1: "ANY", 2: "MATCH", 3: "LITERAL", 4: "PREFIXED"}
ACL_OPERATIONS = {0: "UNKNOWN", 1: "ANY", 2: "ALL", 3: "READ", 4: "WRITE", 5: "CREATE", 6: "DELETE", 7: "ALTER",
                  8: "DESCRIBE", 9: "CLUSTER_ACTION", 10: "DESCRIBE_CONFIGS", 11: "ALTER_CONFIGS",
                  12: "IDEMPOTENT_WRITE", 13: "CREATE_TOKENS", 14: "DESCRIBE_TOKENS",
                  15: "TWO_PHASE_COMMIT"}  # fmt: skip
ACL_PERMISSION_TYPES = {0: "UNKNOWN", 1: "ANY", 2: "DENY", 3: "ALLOW"}
SCRAM_MECHANISMS = {1: "SCRAM-SHA-256", 2: "SCRAM-SHA-512"}
LEADER_RECOVERY_STATES = {0: "RECOVERED", 1: "RECOVERING"}
# ConfigResource.Type names, as the configs directory names resources.
CONFIG_RESOURCE_TYPES = {0: "UNKNOWN", 2: "TOPIC", 4: "BROKER", 8: "BROKER_LOGGER", 16: "CLIENT_METRICS",
                         32: "GROUP"}  # fmt: skip

_MAX_VERSION = 32767  # Short.MAX_VALUE: a range open at the top prints as "N+"


def metadata_version_name(level: int | None) -> str:
    """The features node's metadataVersion file: ``Optional[3.9-IV0]`` (Java's Optional)."""
    if level is None:
        return "Optional.empty"
    return f"Optional[{METADATA_VERSIONS.get(level, f'level {level}')}]"


def java_double(value: float) -> str:
    """``Double.toString``: plain decimals from 10^-3 up to 10^7, else ``1.0E7`` style."""
    if value != value or value in (float("inf"), float("-inf")):
        return {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}[repr(value)]
    if value == 0 or 1e-3 <= abs(value) < 1e7:
        return repr(float(value))  # Python's shortest digits, never in exponent form in this range
    sign, digits, exponent = Decimal(repr(float(value))).as_tuple()
    assert isinstance(exponent, int)  # a finite value's exponent (not 'n', 'N' or 'F')
    text = "".join(map(str, digits))
    mantissa = text[0] + "." + (text[1:].rstrip("0") or "0")
    return f"{'-' if sign else ''}{mantissa}E{exponent + len(text) - 1}"


def iso_zoned_utc(millis: int) -> str:
    """``DateTimeFormatter.ISO_ZONED_DATE_TIME`` of an instant in zone UTC:
    ``2025-08-06T10:01:49.633Z[UTC]`` (the fraction only when non-zero, without trailing zeros)."""
    moment = datetime.fromtimestamp(millis // 1000, tz=timezone.utc)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if millis % 1000:
        text += "." + f"{millis % 1000:03d}".rstrip("0")
    return text + "Z[UTC]"


def _list(values: Iterable[Any]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def _endpoints(listeners: Mapping[str, Endpoint]) -> str:
    return _list(
        f"Endpoint(listenerName='{e.name}', securityProtocol="
        f"{SECURITY_PROTOCOLS.get(e.security_protocol, e.security_protocol)}, host='{e.host}', port={e.port})"
        for _, e in sorted(listeners.items())
    )


def _version_range(r: FeatureRange) -> str:
    if r.min_supported == r.max_supported:
        return str(r.min_supported)
    if r.max_supported == _MAX_VERSION:
        return f"{r.min_supported}+"
    return f"{r.min_supported}-{r.max_supported}"


def _features(features: Mapping[str, FeatureRange]) -> str:
    return (
        "{"
        + ", ".join(f"{name}: {_version_range(r)}" for name, r in sorted(features.items()))
        + "}"
    )


def _bool(value: bool) -> str:
    return "true" if value else "false"


def broker_text(b: BrokerRegistration) -> str:
    rack = "Optional.empty" if b.rack is None else f"Optional[{b.rack}]"
    cordoned = "null" if b.cordoned_directories is None else _list(b.cordoned_directories)
    return (
        f"BrokerRegistration(id={b.id}, epoch={b.epoch}, incarnationId={b.incarnation_id}, "
        f"listeners={_endpoints(b.listeners)}, supportedFeatures={_features(b.supported_features)}, "
        f"rack={rack}, fenced={_bool(b.fenced)}, inControlledShutdown={_bool(b.in_controlled_shutdown)}, "
        f"isMigratingZkBroker={_bool(b.is_migrating_zk_broker)}, directories={_list(sorted(b.directories))}, "
        f"cordonedDirectories={cordoned})"
    )


def controller_text(c: ControllerRegistration) -> str:
    return (
        f"ControllerRegistration(id={c.id}, incarnationId={c.incarnation_id}, "
        f"zkMigrationReady={_bool(c.zk_migration_ready)}, listeners={_endpoints(c.listeners)}, "
        f"supportedFeatures={_features(c.supported_features)})"
    )


def partition_text(p: PartitionRegistration) -> str:
    state = LEADER_RECOVERY_STATES.get(p.leader_recovery_state, p.leader_recovery_state)
    return (
        f"PartitionRegistration(replicas={_list(p.replicas)}, directories={_list(p.directories)}, "
        f"isr={_list(p.isr)}, removingReplicas={_list(p.removing_replicas)}, "
        f"addingReplicas={_list(p.adding_replicas)}, elr={_list(p.elr)}, lastKnownElr={_list(p.last_known_elr)}, "
        f"leader={p.leader}, leaderRecoveryState={state}, leaderEpoch={p.leader_epoch}, "
        f"partitionEpoch={p.partition_epoch})"
    )


def acl_text(a: Acl) -> str:
    return (
        f"StandardAcl[resourceType={ACL_RESOURCE_TYPES.get(a.resource_type, a.resource_type)}, "
        f"resourceName={a.resource_name}, patternType={ACL_PATTERN_TYPES.get(a.pattern_type, a.pattern_type)}, "
        f"principal={a.principal}, host={a.host}, operation={ACL_OPERATIONS.get(a.operation, a.operation)}, "
        f"permissionType={ACL_PERMISSION_TYPES.get(a.permission_type, a.permission_type)}]"
    )


def scram_text(c: ScramCredential) -> str:
    return (
        f"ScramCredentialData(salt={c.salt.hex()}, storedKey={c.stored_key.hex()}, "
        f"serverKey={c.server_key.hex()}, iterations={c.iterations})"
    )


def delegation_token_text(t: DelegationToken) -> str:
    # Kafka's own form, unbalanced parentheses included.
    return (
        f"DelegationTokenDatatokenId={t.token_id}(owner={t.owner}(tokenRequester={t.requester}"
        f"(renewers={' '.join(t.renewers)}, issueTimestamp={t.issue_timestamp}, "
        f"maxTimestamp={t.max_timestamp}), expiryTimestamp={t.expiration_timestamp}"
    )


def provenance_text(offset: int, epoch: int, timestamp: int) -> str:
    return f"offset {offset}, epoch {epoch}, time {iso_zoned_utc(timestamp)}"


def _quota_part(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


DEFAULT_ENTITY_NAME = "<default>"


def quota_entity_name(entity: QuotaEntity) -> str:
    """``clientId(a)_ip(b)_user(c)``: the parts in that order, ``\\``, ``(`` and ``)`` escaped.

    Kafka's shell cannot name a default entity (a null name); we write ``<default>`` for it."""
    names = {"client-id": "clientId", "ip": "ip", "user": "user"}
    parts = dict(entity)
    out = []
    for kind in ("client-id", "ip", "user"):
        if kind in parts:
            name = parts[kind]
            out.append(
                f"{names[kind]}({DEFAULT_ENTITY_NAME if name is None else _quota_part(name)})"
            )
    out.extend(f"{kind}({_quota_part(name or DEFAULT_ENTITY_NAME)})" for kind, name in entity
               if kind not in names)  # fmt: skip
    return "_".join(out)


def config_resource_name(resource_type: int, name: str) -> str:
    """``TOPIC:foo``; a resource's default (the empty name) is the type alone: ``BROKER``."""
    kind = CONFIG_RESOURCE_TYPES.get(resource_type, str(resource_type))
    return f"{kind}:{name}" if name else kind
