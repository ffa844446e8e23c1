"""Every version each handler serves is answered, with data in the answer (offsets, leader
epochs, configs, errors with messages), so no field a version lacks is left set."""

from __future__ import annotations

from kafka_meta_proto.messages import (
    DeleteRecordsRequest,
    DescribeClusterRequest,
    DescribeConfigsRequest,
    InitProducerIdRequest,
    ListOffsetsRequest,
    MetadataRequest,
    OffsetForLeaderEpochRequest,
)

from .helpers import answers_of, batch, fetch_request, one_broker, produce, produce_request, run


def requests(setup):
    """(request, versions served) for each handler, each asking for something that exists."""
    list_offsets = ListOffsetsRequest(replica_id=-1, topics=[ListOffsetsRequest.ListOffsetsTopic(
        name="events", partitions=[ListOffsetsRequest.ListOffsetsPartition(partition_index=0, timestamp=-1)])])
    epochs = OffsetForLeaderEpochRequest(topics=[OffsetForLeaderEpochRequest.OffsetForLeaderTopic(
        topic="events", partitions=[OffsetForLeaderEpochRequest.OffsetForLeaderPartition(partition=0)])])
    delete = DeleteRecordsRequest(topics=[DeleteRecordsRequest.DeleteRecordsTopic(
        name="events", partitions=[DeleteRecordsRequest.DeleteRecordsPartition(partition_index=0, offset=0)])])
    configs = DescribeConfigsRequest(resources=[DescribeConfigsRequest.DescribeConfigsResource(
        resource_type=2, resource_name="events", configuration_keys=None)])  # fmt: skip
    return [
        (MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name="events")]), range(0, 14)),
        (list_offsets, range(1, 12)),
        (epochs, range(2, 5)),
        (delete, range(0, 3)),
        (DescribeClusterRequest(), range(0, 3)),
        (configs, range(1, 5)),
        (InitProducerIdRequest(transactional_id=None), range(0, 7)),
    ]


def test_every_version_of_every_handler_is_answered(tmp_path):
    async def main():
        async with one_broker(tmp_path) as setup:
            for version in range(3, 14):
                answer = await produce(setup, "events", 0, batch([b"v%d" % version]), version=version)
                assert (answer.error_code, answer.base_offset) == (0, version - 3)
                refused = await produce(setup, "events", 0, batch([b"x"]) * 2, version=version)
                assert refused.error_code != 0
            for version in range(4, 19):
                found = answers_of(await setup.conn.send(fetch_request(setup, {("events", 0): 0}), version))
                assert len(found) == 1 and list(found.values())[0].records
            for request, versions in requests(setup):
                for version in versions:
                    assert await setup.conn.send(request, version) is not None, (request.NAME, version)

    run(main())
