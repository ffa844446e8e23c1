"""What the records that set something to a metadata image do: configs, feature levels, the
producer id block, the ZooKeeper migration state, ACLs, client quotas, SCRAM credentials and
delegation tokens. Each replaces or removes an entry by its key."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .image_parts import Acl, DelegationToken, ProducerIds, ReplayError, ScramCredential

if TYPE_CHECKING:
    from ..messages.access_control_entry_record import AccessControlEntryRecord
    from ..messages.client_quota_record import ClientQuotaRecord
    from ..messages.config_record import ConfigRecord
    from ..messages.delegation_token_record import DelegationTokenRecord
    from ..messages.feature_level_record import FeatureLevelRecord
    from ..messages.producer_ids_record import ProducerIdsRecord
    from ..messages.remove_access_control_entry_record import RemoveAccessControlEntryRecord
    from ..messages.remove_delegation_token_record import RemoveDelegationTokenRecord
    from ..messages.remove_user_scram_credential_record import RemoveUserScramCredentialRecord
    from ..messages.user_scram_credential_record import UserScramCredentialRecord
    from ..messages.zk_migration_state_record import ZkMigrationStateRecord
    from .image import Handler, MetadataImage


def config_record(image: MetadataImage, r: ConfigRecord) -> None:
    key = (r.resource_type, r.resource_name)
    if r.value is None:
        configs = image.configs.get(key)
        if configs is not None:
            configs.pop(r.name, None)
            if not configs:
                del image.configs[key]
    else:
        image.configs.setdefault(key, {})[r.name] = r.value


def feature_level_record(image: MetadataImage, r: FeatureLevelRecord) -> None:
    if r.feature_level == 0:
        image.features.pop(r.name, None)
    else:
        image.features[r.name] = r.feature_level


def zk_migration_state_record(image: MetadataImage, r: ZkMigrationStateRecord) -> None:
    image.zk_migration_state = r.zk_migration_state


def producer_ids_record(image: MetadataImage, r: ProducerIdsRecord) -> None:
    image.producer_ids = ProducerIds(r.next_producer_id, r.broker_id, r.broker_epoch)


def access_control_entry_record(image: MetadataImage, r: AccessControlEntryRecord) -> None:
    image.acls[r.id] = Acl(r.id, r.resource_type, r.resource_name, r.pattern_type, r.principal, r.host,
                          r.operation, r.permission_type)  # fmt: skip


def remove_access_control_entry_record(
    image: MetadataImage, r: RemoveAccessControlEntryRecord
) -> None:
    if image.acls.pop(r.id, None) is None:
        raise ReplayError(f"cannot remove ACL {r.id}: no ACL has that id")


def client_quota_record(image: MetadataImage, r: ClientQuotaRecord) -> None:
    entity = tuple(sorted((part.entity_type, part.entity_name) for part in r.entity))
    if r.remove:
        quotas = image.client_quotas.get(entity)
        if quotas is not None:
            quotas.pop(r.key, None)
            if not quotas:
                del image.client_quotas[entity]
    else:
        image.client_quotas.setdefault(entity, {})[r.key] = r.value


def user_scram_credential_record(image: MetadataImage, r: UserScramCredentialRecord) -> None:
    image.scram[(r.mechanism, r.name)] = ScramCredential(
        r.name, r.mechanism, r.salt, r.stored_key, r.server_key, r.iterations
    )


def remove_user_scram_credential_record(
    image: MetadataImage, r: RemoveUserScramCredentialRecord
) -> None:
    image.scram.pop((r.mechanism, r.name), None)


def delegation_token_record(image: MetadataImage, r: DelegationTokenRecord) -> None:
    image.delegation_tokens[r.token_id] = DelegationToken(
        r.token_id,
        r.owner,
        r.requester,
        list(r.renewers),
        r.issue_timestamp,
        r.max_timestamp,
        r.expiration_timestamp,
    )


def remove_delegation_token_record(image: MetadataImage, r: RemoveDelegationTokenRecord) -> None:
    image.delegation_tokens.pop(r.token_id, None)


HANDLERS: dict[str, Handler] = {
    "ConfigRecord": config_record,
    "FeatureLevelRecord": feature_level_record,
    "ZkMigrationStateRecord": zk_migration_state_record,
    "ProducerIdsRecord": producer_ids_record,
    "AccessControlEntryRecord": access_control_entry_record,
    "RemoveAccessControlEntryRecord": remove_access_control_entry_record,
    "ClientQuotaRecord": client_quota_record,
    "UserScramCredentialRecord": user_scram_credential_record,
    "RemoveUserScramCredentialRecord": remove_user_scram_credential_record,
    "DelegationTokenRecord": delegation_token_record,
    "RemoveDelegationTokenRecord": remove_delegation_token_record,
}
