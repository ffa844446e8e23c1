"""The metadata image laid out as Kafka's metadata shell serves it::

    /image/acls/byId/<id>                         StandardAcl[...]
    /image/clientQuotas/<entity>/<key>            clientId(a)_ip(b)_user(c) -> a double
    /image/cluster/brokers/<id>                   BrokerRegistration(...)
    /image/cluster/controllers/<id>               ControllerRegistration(...)
    /image/configs/<TYPE>[:<name>]/<key>          TOPIC:foo, BROKER:1, BROKER (the defaults)
    /image/delegationToken/<token id>
    /image/features/metadataVersion               Optional[3.9-IV0]
    /image/features/finalized_<name>              the other finalized features
    /image/producerIds/nextProducerId
    /image/provenance                             offset, epoch and time of the last record
    /image/scram/<mechanism>/<user>
    /image/topics/byName/<name>/{name,id,<partition>}
    /image/topics/byId/<id>/...                   the same topic
    /local/{version,commitId}                     this tool

A file's text is what Kafka's shell prints for it (``image_text``). Directories list their
entries in Java's string order (``10`` before ``2``), as Kafka's shell does. Diskless partitions,
which Kafka does not know, appear as ``/image/diskless/<topic id>/<partition>`` when there are any.
"""

from __future__ import annotations

from typing import Union

from .. import __version__
from ..kraft.image import METADATA_VERSION, MetadataImage, Topic
from ..kraft.image_text import (
    SCRAM_MECHANISMS,
    acl_text,
    broker_text,
    config_resource_name,
    controller_text,
    delegation_token_text,
    java_double,
    metadata_version_name,
    partition_text,
    provenance_text,
    quota_entity_name,
    scram_text,
)

KRAFT_VERSION = "kraft.version"  # lives in the raft layer; Kafka's features image leaves it out


# A node of a shell's tree: a file's text, or a directory (name -> node).
Node = Union[str, "Tree"]
Tree = dict[str, Node]


class KafkaDir(Tree):
    """A directory of Kafka's layout: listed in plain string order, as Kafka's shell sorts."""


def _topic(topic: Topic) -> KafkaDir:
    node = KafkaDir(name=topic.name, id=str(topic.id))
    node.update((str(index), partition_text(p)) for index, p in topic.partitions.items())
    return node


def _features(image: MetadataImage) -> KafkaDir:
    node = KafkaDir(metadataVersion=metadata_version_name(image.metadata_version))
    for name, level in image.features.items():
        if name not in (METADATA_VERSION, KRAFT_VERSION):
            node[f"finalized_{name}"] = str(level)
    return node


def _configs(image: MetadataImage) -> KafkaDir:
    return KafkaDir(
        (config_resource_name(rtype, rname), KafkaDir(values))
        for (rtype, rname), values in image.configs.items()
        if values
    )


def _scram(image: MetadataImage) -> KafkaDir:
    by_mechanism = {mechanism: KafkaDir() for mechanism in SCRAM_MECHANISMS.values()}
    for (mechanism, user), credential in image.scram.items():
        if mechanism in SCRAM_MECHANISMS:
            by_mechanism[SCRAM_MECHANISMS[mechanism]][user] = scram_text(credential)
    return KafkaDir(by_mechanism)


def kafka_tree(image: MetadataImage, *, timestamp: int = 0) -> KafkaDir:
    """The image under ``/image`` and this tool under ``/local``, as Kafka's shell shows them.
    ``timestamp`` is the time of the batch holding the last record (for the provenance)."""
    topics = [(t, _topic(t)) for t in image.topics.values()]
    producer_ids = -1 if image.producer_ids is None else image.producer_ids.next_producer_id
    tree = KafkaDir(
        acls=KafkaDir(byId=KafkaDir((str(a.id), acl_text(a)) for a in image.acls.values())),
        clientQuotas=KafkaDir(
            (quota_entity_name(entity), KafkaDir((k, java_double(v)) for k, v in values.items()))
            for entity, values in image.client_quotas.items()
        ),
        cluster=KafkaDir(
            brokers=KafkaDir((str(b.id), broker_text(b)) for b in image.brokers.values()),
            controllers=KafkaDir(
                (str(c.id), controller_text(c)) for c in image.controllers.values()
            ),
        ),
        configs=_configs(image),
        delegationToken=KafkaDir(
            (t.token_id, delegation_token_text(t)) for t in image.delegation_tokens.values()
        ),
        features=_features(image),
        producerIds=KafkaDir(nextProducerId=str(producer_ids)),
        provenance=provenance_text(image.offset, image.epoch, timestamp),
        scram=_scram(image),
        topics=KafkaDir(
            byName=KafkaDir((t.name, node) for t, node in topics),
            byId=KafkaDir((str(t.id), node) for t, node in topics),
        ),
    )
    if image.diskless:
        tree["diskless"] = KafkaDir(
            (str(tid), KafkaDir((str(p), str(c)) for p, c in parts.items()))
            for tid, parts in image.diskless.items()
        )
    return KafkaDir(image=tree, local=KafkaDir(version=__version__, commitId="unknown"))
