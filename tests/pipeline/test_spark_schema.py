"""The Spark schemas (pipeline/schemas.py, derived from the classes' field tables): every field of
every version of every message, with the agreed types, and exact for the JSON form."""

from __future__ import annotations

import json
import math
import sys
import warnings
from pathlib import Path

import pytest

from kafka_meta_proto.messages import REGISTRY
from kafka_meta_proto.messages.fetch_snapshot_request import FetchSnapshotRequest
from kafka_meta_proto.pipeline.schemas import SPARK_TYPES, UNKNOWN_TAGGED_FIELDS, UNKNOWN_TAGGED_TYPE, spark_ddl

from .jsonform import strip_nulls


def split_top(text: str, sep: str = ",") -> list[str]:
    """Split DDL at ``sep`` outside <...> and backticks."""
    parts, depth, quoted, start = [], 0, False, 0
    for i, c in enumerate(text):
        if c == "`":
            quoted = not quoted
        elif not quoted and c == "<":
            depth += 1
        elif not quoted and c == ">":
            depth -= 1
        elif not quoted and depth == 0 and c == sep:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def columns(ddl: str, nested: bool = False) -> list[tuple[str, str]]:
    out = []
    for part in split_top(ddl):
        name, _, kind = part.partition("`:" if nested else "` ")
        out.append((name.lstrip("`"), kind.strip()))
    return out


def struct_columns(cls, flexible: bool) -> list[tuple[str, str]]:
    cols = []
    for f in cls._FIELDS:
        element = f.element_type
        if f.struct is not None:
            inner = ", ".join(f"`{n}`: {t}" for n, t in struct_columns(f.struct, flexible))
            kind = f"STRUCT<{inner}>"
        else:
            kind = SPARK_TYPES[element]
        cols.append((f.json_name, f"ARRAY<{kind}>" if f.is_array else kind))
    if flexible:
        cols.append((UNKNOWN_TAGGED_FIELDS, UNKNOWN_TAGGED_TYPE))
    return cols


@pytest.mark.parametrize("name", REGISTRY.names())
def test_every_field_of_every_version_with_its_type(name):
    cls = REGISTRY.message_class(name)
    flexible = cls.LOWEST_FLEXIBLE_VERSION is not None
    assert columns(spark_ddl(cls)) == struct_columns(cls, flexible)


def test_a_message_as_ddl():
    unknown = "ARRAY<STRUCT<`tag`: BIGINT, `data`: STRING>>"
    snapshot_id = f"STRUCT<`endOffset`: BIGINT, `epoch`: INT, `_unknownTaggedFields`: {unknown}>"
    partition = (
        "STRUCT<`partition`: INT, `currentLeaderEpoch`: INT, "
        f"`snapshotId`: {snapshot_id}, `position`: BIGINT, `replicaDirectoryId`: STRING, "
        f"`_unknownTaggedFields`: {unknown}>"
    )
    topic = f"STRUCT<`name`: STRING, `partitions`: ARRAY<{partition}>, `_unknownTaggedFields`: {unknown}>"
    assert spark_ddl(FetchSnapshotRequest) == (
        f"`clusterId` STRING, `replicaId` INT, `maxBytes` INT, `topics` ARRAY<{topic}>, "
        f"`_unknownTaggedFields` {unknown}"
    )


def test_the_type_mapping():
    assert SPARK_TYPES == {
        "bool": "BOOLEAN", "int8": "TINYINT", "int16": "SMALLINT", "uint16": "INT", "int32": "INT",
        "uint32": "BIGINT", "int64": "BIGINT", "float64": "DOUBLE", "string": "STRING", "uuid": "STRING",
        "bytes": "STRING", "records": "STRING",
    }  # fmt: skip


def test_the_spark_schemas_import_neither_pyspark_nor_pyarrow():
    import subprocess

    code = (
        "import sys; from kafka_meta_proto.messages import REGISTRY;"
        "from kafka_meta_proto.pipeline.schemas import spark_ddl;"
        "spark_ddl(REGISTRY.message_class('TopicRecord'));"
        "print('pyspark' in sys.modules, 'pyarrow' in sys.modules)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "False False"


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _read_back_problems(spark, examples) -> list[str]:
    """Kafka's JSON form of each ``(name, version, message)`` read by Spark with the generated
    schema: the messages whose values do not come back as written."""
    from pyspark.sql import functions as F

    from kafka_meta_proto.codec import json_text

    rows = [(name, version, json_text(message.to_json(version))) for name, version, message in examples]
    frame = spark.createDataFrame(rows, "name STRING, version INT, payload STRING")
    names = sorted({name for name, _, _ in examples})
    parsed = [
        F.when(F.col("name") == name, F.from_json("payload", spark_ddl(REGISTRY.message_class(name)), {"mode": "FAILFAST"})).alias(name)
        for name in names
    ]
    problems = []
    for row in frame.select("name", "version", "payload", *parsed).collect():
        got = strip_nulls(row[row["name"]].asDict(recursive=True))
        want = strip_nulls(json.loads(row["payload"]))
        if not _same(got, want):
            problems.append(f"{row['name']} v{row['version']}: {json.dumps(want)[:200]} -> {got!r:.200}")
    return problems


def _hard_values(names) -> list:
    """``(name, version, message)``: each version's defaults, every field at its lowest and at its
    highest, and nulls wherever allowed (tools/differential.py's fixed examples)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
    from differential import fixed_examples

    return [
        (name, version, message)
        for name in names
        for version in REGISTRY.message_class(name).versions()
        for message in fixed_examples(REGISTRY.message_class(name), version).values()
    ]


# Spark's cost follows the number of schemas in one projection: the fast run reads the records
# the pipeline decodes and a sample of the APIs; the slow run reads every message.
FAST_NAMES = sorted(
    {n for n in REGISTRY.names() if n.endswith(("Record", "Key", "Value"))}
    | {"FetchRequest", "FetchResponse", "ProduceRequest", "MetadataResponse", "DescribeClusterResponse",
       "ConsumerGroupHeartbeatRequest", "ShareFetchResponse", "ApiVersionsResponse", "CreateTopicsRequest"}
)  # fmt: skip


def test_from_json_with_the_generated_schemas_is_exact(spark):
    """The hard values of every version of the pipeline's records and some APIs: Kafka's JSON
    form read by Spark with the generated schema comes back value for value."""
    problems = _read_back_problems(spark, _hard_values(FAST_NAMES))
    assert not problems, "\n".join(problems[:10])


@pytest.mark.slow
def test_from_json_with_the_generated_schemas_is_exact_for_every_message(spark):
    problems = _read_back_problems(spark, _hard_values(REGISTRY.names()))
    assert not problems, "\n".join(problems[:10])


@pytest.mark.slow
def test_from_json_with_the_generated_schemas_is_exact_on_random_messages(spark):
    """Random messages of every version of every message (any text, bytes, infinities, unknown
    tagged fields), two each: the same read-back as above. Slow: hypothesis draws 1,700 of them."""
    pytest.importorskip("hypothesis")
    from hypothesis.errors import NonInteractiveExampleWarning

    from kafka_meta_proto.strategies import messages

    examples = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonInteractiveExampleWarning)
        for name in REGISTRY.names():
            cls = REGISTRY.message_class(name)
            for version in cls.versions():
                examples += [(name, version, messages(cls, version).example()) for _ in range(2)]
    problems = _read_back_problems(spark, examples)
    assert not problems, "\n".join(problems[:10])
