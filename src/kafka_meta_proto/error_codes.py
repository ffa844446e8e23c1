"""Kafka protocol error codes.

``ErrorCode`` mirrors ``org.apache.kafka.common.protocol.Errors``: every code
Apache Kafka puts on the wire, with its Kafka name, whether Kafka's clients
treat it as retriable (the mapped exception extends ``RetriableException``,
directly or through ``InvalidMetadataException`` / ``RefreshRetriableException``),
and a short description of our own.

The class body below is the data table: one ``NAME = (code, retriable, message)``
row per error, in code order. See docs/error-codes.md for where the facts
come from.
"""

from __future__ import annotations

import enum

__all__ = ["ErrorCode"]

_R = True  # retriable
_N = False  # not retriable


@enum.unique
class ErrorCode(enum.IntEnum):
    """A Kafka error code; an ``int`` whose value is the wire code."""

    retriable: bool
    message: str

    def __new__(cls, code: int, retriable: bool, message: str) -> "ErrorCode":
        member = int.__new__(cls, code)
        member._value_ = code
        member.retriable = retriable
        member.message = message
        return member

    @property
    def code(self) -> int:
        """The wire value (same as ``int(self)``)."""
        return self._value_

    @classmethod
    def for_code(cls, code: int) -> "ErrorCode":
        """Map a wire code to its member; unknown codes give UNKNOWN_SERVER_ERROR.

        This never raises, like Kafka's ``Errors.forCode``. ``ErrorCode(code)``
        stays strict and raises ``ValueError`` for an unknown code.
        """
        member = cls._value2member_map_.get(code, cls.UNKNOWN_SERVER_ERROR)
        return member  # type: ignore[return-value]

    # name = (code, retriable, message)
    UNKNOWN_SERVER_ERROR = (-1, _N, "Unexpected server-side failure with no more specific code.")
    NONE = (0, _N, "No error.")
    OFFSET_OUT_OF_RANGE = (1, _N, "The requested offset is outside the partition's offset range.")
    CORRUPT_MESSAGE = (2, _R, "A record failed its CRC check, has a bad size or is malformed.")
    UNKNOWN_TOPIC_OR_PARTITION = (3, _R, "This broker does not host the topic or partition.")
    INVALID_FETCH_SIZE = (4, _N, "The fetch size in the request is not acceptable.")
    LEADER_NOT_AVAILABLE = (5, _R, "The partition has no leader right now (e.g. mid-election).")
    NOT_LEADER_OR_FOLLOWER = (6, _R, "This broker is not the partition's leader (or a replica).")
    REQUEST_TIMED_OUT = (7, _R, "The broker did not finish the request within the timeout.")
    BROKER_NOT_AVAILABLE = (8, _N, "The broker is down or not serving requests.")
    REPLICA_NOT_AVAILABLE = (9, _R, "The partition's replica here cannot serve the request.")
    MESSAGE_TOO_LARGE = (10, _N, "A record is larger than the broker accepts.")
    STALE_CONTROLLER_EPOCH = (11, _N, "The sender is no longer the active controller.")
    OFFSET_METADATA_TOO_LARGE = (12, _N, "The metadata attached to an offset commit is too long.")
    NETWORK_EXCEPTION = (13, _R, "The connection closed before a response arrived.")
    COORDINATOR_LOAD_IN_PROGRESS = (14, _R, "The coordinator is still loading its state.")
    COORDINATOR_NOT_AVAILABLE = (15, _R, "No coordinator is currently serving this key.")
    NOT_COORDINATOR = (16, _R, "This broker does not coordinate the given key.")
    INVALID_TOPIC_EXCEPTION = (17, _N, "The topic name is illegal or the topic is unusable here.")
    RECORD_LIST_TOO_LARGE = (18, _N, "The record batch is larger than the configured segment size.")
    NOT_ENOUGH_REPLICAS = (19, _R, "Too few in-sync replicas; the write was refused.")
    NOT_ENOUGH_REPLICAS_AFTER_APPEND = (20, _R, "Appended, but to too few in-sync replicas.")
    INVALID_REQUIRED_ACKS = (21, _N, "The acks value of the produce request is not allowed.")
    ILLEGAL_GENERATION = (22, _N, "The group generation in the request is not the current one.")
    INCONSISTENT_GROUP_PROTOCOL = (23, _N, "Empty protocol list, or none shared with the group.")
    INVALID_GROUP_ID = (24, _N, "The group id is not acceptable.")
    UNKNOWN_MEMBER_ID = (25, _N, "The coordinator does not know this member id.")
    INVALID_SESSION_TIMEOUT = (26, _N, "The session timeout is outside the broker's allowed range.")
    REBALANCE_IN_PROGRESS = (27, _N, "The group is rebalancing; the member has to rejoin.")
    INVALID_COMMIT_OFFSET_SIZE = (28, _N, "The offset commit data has a bad size.")
    TOPIC_AUTHORIZATION_FAILED = (29, _N, "The principal may not access the topic.")
    GROUP_AUTHORIZATION_FAILED = (30, _N, "The principal may not access the group.")
    CLUSTER_AUTHORIZATION_FAILED = (31, _N, "The principal may not perform this cluster operation.")
    INVALID_TIMESTAMP = (32, _N, "A record timestamp is outside the accepted range.")
    UNSUPPORTED_SASL_MECHANISM = (33, _N, "The broker does not enable this SASL mechanism.")
    ILLEGAL_SASL_STATE = (34, _N, "The request is not allowed in the current SASL handshake state.")
    UNSUPPORTED_VERSION = (35, _N, "The broker does not support this API or API version.")
    TOPIC_ALREADY_EXISTS = (36, _N, "The topic name is already taken.")
    INVALID_PARTITIONS = (37, _N, "The requested partition count is not acceptable.")
    INVALID_REPLICATION_FACTOR = (38, _N, "The replication factor does not fit this cluster.")
    INVALID_REPLICA_ASSIGNMENT = (39, _N, "The requested replica placement was rejected.")
    INVALID_CONFIG = (40, _N, "One or more configuration values were rejected.")
    NOT_CONTROLLER = (41, _R, "This node is not the active controller.")
    INVALID_REQUEST = (42, _N, "The request is malformed or does not suit this broker.")
    UNSUPPORTED_FOR_MESSAGE_FORMAT = (43, _N, "The topic's message format cannot support this.")
    POLICY_VIOLATION = (44, _N, "The request breaks a policy configured on the broker.")
    OUT_OF_ORDER_SEQUENCE_NUMBER = (45, _N, "The producer sequence number arrived out of order.")
    DUPLICATE_SEQUENCE_NUMBER = (46, _N, "The producer sequence number was already written.")
    INVALID_PRODUCER_EPOCH = (47, _N, "The producer epoch is older than the current one.")
    INVALID_TXN_STATE = (48, _N, "The transaction's state does not allow this operation.")
    INVALID_PRODUCER_ID_MAPPING = (49, _N, "The producer id is not this transactional id's.")
    INVALID_TRANSACTION_TIMEOUT = (50, _N, "The transaction timeout exceeds the broker's maximum.")
    CONCURRENT_TRANSACTIONS = (51, _R, "Another operation on this transaction is running.")
    TRANSACTION_COORDINATOR_FENCED = (52, _N, "The coordinator sending markers was replaced.")
    TRANSACTIONAL_ID_AUTHORIZATION_FAILED = (53, _N, "Not authorized for the transactional id.")
    SECURITY_DISABLED = (54, _N, "The broker runs with its security features turned off.")
    OPERATION_NOT_ATTEMPTED = (55, _N, "Skipped because another operation in the batch failed.")
    KAFKA_STORAGE_ERROR = (56, _R, "A disk error kept the broker from reaching the log.")
    LOG_DIR_NOT_FOUND = (57, _N, "The log directory is not one the broker is configured with.")
    SASL_AUTHENTICATION_FAILED = (58, _N, "The SASL exchange rejected the client's credentials.")
    UNKNOWN_PRODUCER_ID = (59, _N, "The broker holds no state for this producer id.")
    REASSIGNMENT_IN_PROGRESS = (60, _N, "A replica reassignment is already running.")
    DELEGATION_TOKEN_AUTH_DISABLED = (61, _N, "Delegation tokens are not enabled on the cluster.")
    DELEGATION_TOKEN_NOT_FOUND = (62, _N, "There is no delegation token with this id.")
    DELEGATION_TOKEN_OWNER_MISMATCH = (63, _N, "The principal is not the token's owner or renewer.")
    DELEGATION_TOKEN_REQUEST_NOT_ALLOWED = (64, _N, "Token requests are refused on this channel.")
    DELEGATION_TOKEN_AUTHORIZATION_FAILED = (65, _N, "The principal may not act on the token.")
    DELEGATION_TOKEN_EXPIRED = (66, _N, "The delegation token is past its expiry time.")
    INVALID_PRINCIPAL_TYPE = (67, _N, "The principal type is not supported.")
    NON_EMPTY_GROUP = (68, _N, "The group still has active members.")
    GROUP_ID_NOT_FOUND = (69, _N, "There is no group with this id.")
    FETCH_SESSION_ID_NOT_FOUND = (70, _R, "The broker has no fetch session with this id.")
    INVALID_FETCH_SESSION_EPOCH = (71, _R, "The fetch session epoch does not match the broker's.")
    LISTENER_NOT_FOUND = (72, _R, "The leader has no endpoint for the request's listener.")
    TOPIC_DELETION_DISABLED = (73, _N, "Deleting topics is turned off on this cluster.")
    FENCED_LEADER_EPOCH = (74, _R, "The leader epoch in the request is older than the broker's.")
    UNKNOWN_LEADER_EPOCH = (75, _R, "The leader epoch in the request is newer than the broker's.")
    UNSUPPORTED_COMPRESSION_TYPE = (76, _N, "The client cannot read the partition's compression.")
    STALE_BROKER_EPOCH = (77, _N, "The broker epoch in the request is not the current one.")
    OFFSET_NOT_AVAILABLE = (78, _R, "The offset cannot be served yet after a recent leader change.")
    MEMBER_ID_REQUIRED = (79, _N, "The member has to join again using the member id it was handed.")
    PREFERRED_LEADER_NOT_AVAILABLE = (80, _R, "The preferred leader cannot take leadership now.")
    GROUP_MAX_SIZE_REACHED = (81, _N, "The group already has its maximum number of members.")
    FENCED_INSTANCE_ID = (82, _N, "Another member with the same group.instance.id fenced this one.")
    ELIGIBLE_LEADERS_NOT_AVAILABLE = (83, _R, "No replica eligible for leadership is available.")
    ELECTION_NOT_NEEDED = (84, _R, "The partition already has the desired leader.")
    NO_REASSIGNMENT_IN_PROGRESS = (85, _N, "There is no replica reassignment to cancel.")
    GROUP_SUBSCRIBED_TO_TOPIC = (86, _N, "The group still subscribes to the topic; offsets stay.")
    INVALID_RECORD = (87, _N, "The broker refused a record that failed validation.")
    UNSTABLE_OFFSET_COMMIT = (88, _R, "Pending transactional offsets have to be resolved first.")
    THROTTLING_QUOTA_EXCEEDED = (89, _R, "The request went over a throttling quota.")
    PRODUCER_FENCED = (90, _N, "A newer producer with the same transactional id fenced this one.")
    RESOURCE_NOT_FOUND = (91, _N, "The request names a resource that does not exist.")
    DUPLICATE_RESOURCE = (92, _N, "The request names the same resource twice.")
    UNACCEPTABLE_CREDENTIAL = (93, _N, "The credential does not meet the acceptance rules.")
    INCONSISTENT_VOTER_SET = (94, _N, "The sender or receiver is not one of the expected voters.")
    INVALID_UPDATE_VERSION = (95, _N, "The update version is not acceptable.")
    FEATURE_UPDATE_FAILED = (96, _N, "The finalized feature levels could not be changed.")
    PRINCIPAL_DESERIALIZATION_FAILURE = (97, _N, "A forwarded request's principal is unreadable.")
    SNAPSHOT_NOT_FOUND = (98, _N, "There is no snapshot with the requested id.")
    POSITION_OUT_OF_RANGE = (99, _N, "The position lies outside the snapshot.")
    UNKNOWN_TOPIC_ID = (100, _R, "This broker does not host a topic with this id.")
    DUPLICATE_BROKER_REGISTRATION = (101, _N, "Another broker is already registered with this id.")
    BROKER_ID_NOT_REGISTERED = (102, _N, "No broker is registered with this id.")
    INCONSISTENT_TOPIC_ID = (103, _R, "The topic id does not match the one recorded in the log.")
    INCONSISTENT_CLUSTER_ID = (104, _N, "The request's cluster id does not match this cluster.")
    TRANSACTIONAL_ID_NOT_FOUND = (105, _N, "There is no transaction state for this id.")
    FETCH_SESSION_TOPIC_ID_ERROR = (106, _R, "The fetch session mixed topic ids and names.")
    INELIGIBLE_REPLICA = (107, _N, "The proposed ISR holds a replica that may not join it.")
    NEW_LEADER_ELECTED = (108, _N, "The partition state changed, but a different leader took over.")
    OFFSET_MOVED_TO_TIERED_STORAGE = (109, _N, "The offset is now only in tiered storage.")
    FENCED_MEMBER_EPOCH = (110, _N, "The member epoch was fenced; the member has to rejoin.")
    UNRELEASED_INSTANCE_ID = (111, _N, "Another member still holds this instance id.")
    UNSUPPORTED_ASSIGNOR = (112, _N, "The group does not support this assignor or version.")
    STALE_MEMBER_EPOCH = (113, _N, "The member epoch is stale; use the current one and try again.")
    MISMATCHED_ENDPOINT_TYPE = (114, _N, "The request reached the wrong kind of endpoint.")
    UNSUPPORTED_ENDPOINT_TYPE = (115, _N, "The endpoint type in the request is not supported.")
    UNKNOWN_CONTROLLER_ID = (116, _N, "The controller id does not name a known controller.")
    UNKNOWN_SUBSCRIPTION_ID = (117, _N, "The telemetry subscription id is unknown or outdated.")
    TELEMETRY_TOO_LARGE = (118, _N, "The pushed telemetry is larger than the broker accepts.")
    INVALID_REGISTRATION = (119, _N, "The controller judged the broker registration invalid.")
    TRANSACTION_ABORTABLE = (120, _N, "The transaction hit an error; abort it to keep going.")
    INVALID_RECORD_STATE = (121, _N, "The record's delivery state forbids this acknowledgement.")
    SHARE_SESSION_NOT_FOUND = (122, _R, "The broker has no share session for this member.")
    INVALID_SHARE_SESSION_EPOCH = (123, _R, "The share session epoch does not match the broker's.")
    FENCED_STATE_EPOCH = (124, _N, "The share-group state epoch does not match the coordinator's.")
    INVALID_VOTER_KEY = (125, _N, "The voter key does not match the receiving replica.")
    DUPLICATE_VOTER = (126, _N, "The replica is already a voter.")
    VOTER_NOT_FOUND = (127, _N, "The replica is not a voter.")
    INVALID_REGULAR_EXPRESSION = (128, _N, "The regular expression in the request does not parse.")
    REBOOTSTRAP_REQUIRED = (129, _N, "Client metadata is too stale; the client has to rebootstrap.")
    STREAMS_INVALID_TOPOLOGY = (130, _N, "The streams group topology failed validation.")
    STREAMS_INVALID_TOPOLOGY_EPOCH = (131, _N, "The streams topology epoch is not acceptable.")
    STREAMS_TOPOLOGY_FENCED = (132, _N, "A newer streams topology epoch has replaced this one.")
    SHARE_SESSION_LIMIT_REACHED = (133, _R, "The broker's share session limit is reached.")
    GROUP_DELETION_FAILED = (134, _N, "The group could not be deleted; the error message says why.")
    STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED = (135, _N, "Topology description update failed.")
    CONTROLLER_ID_NOT_REGISTERED = (136, _N, "No controller is registered with this id.")


del _R, _N
