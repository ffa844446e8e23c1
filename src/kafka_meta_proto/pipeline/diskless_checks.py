"""The audit of a batch coordinator's topic: the design's invariants as Spark window functions
over the rows of diskless_rows.py, one finding per broken rule (``VIOLATION_COLUMNS``).

The state a record is checked against is the one the records before it built, in log order
(``offset``, then ``idx`` within a record), per window:

- per diskless partition (coordinator, its partition, topic id, partition index): the high
  watermark is the end (last offset + 1) of the partition's latest batch, 0 before the first.
  A batch must start at it (``offset gap`` above, ``duplicate offsets`` below) and end at or
  above it (``high watermark decreased``); a log start offset must not exceed it;
- per object key: a commit of a key known and not yet deleted would add batches to an object
  that may already be soft deleted (``object committed twice``); a batch must lie inside its
  object's bytes (``batch outside its object``);
- per deletion of an object (a DisklessObjectsDeletedRecord): each batch committed into the
  object earlier is paired with the deletion, and is live there unless a log start offset moved
  above its last offset in between, or its topic was removed (windows per diskless partition and
  per topic over the pairs and those records); a live one makes ``object deleted while in use``.

Everything needs the whole history: a finding in a partition whose log does not start at offset
0, or at or after a damaged stretch of that partition's log, is ``unverifiable``. Damage and
undecodable records are findings themselves.
"""

from __future__ import annotations

from functools import reduce

from .._strenum import StrEnum
from .findings import UNVERIFIABLE, VIOLATION, VIOLATION_COLUMNS

AUDIT = "coordinator-topic"


class CoordinatorCheck(StrEnum):
    OFFSET_GAP = "offset gap"
    DUPLICATE_OFFSETS = "duplicate offsets"
    HIGH_WATERMARK_DECREASED = "high watermark decreased"
    LOG_START_ABOVE_HIGH_WATERMARK = "log start offset above high watermark"
    BATCH_OUTSIDE_OBJECT = "batch outside its object"
    OBJECT_COMMITTED_TWICE = "object committed twice"
    OBJECT_DELETED_IN_USE = "object deleted while in use"


# check -> what it means (the report and docs/pipeline.md say the same)
CHECKS = {
    CoordinatorCheck.OFFSET_GAP: "a batch starting above its partition's high watermark",
    CoordinatorCheck.DUPLICATE_OFFSETS: "a batch starting below its partition's high watermark",
    CoordinatorCheck.HIGH_WATERMARK_DECREASED: "a batch ending below its partition's high watermark",
    CoordinatorCheck.LOG_START_ABOVE_HIGH_WATERMARK: "a log start offset above its partition's high watermark",
    CoordinatorCheck.BATCH_OUTSIDE_OBJECT: "a batch whose bytes are not all inside its object",
    CoordinatorCheck.OBJECT_COMMITTED_TWICE: "a commit of an object key committed before and not deleted since",
    CoordinatorCheck.OBJECT_DELETED_IN_USE: "an object deleted while a live batch uses it",
}
PARTITION = ["coordinator", "partition", "topic_id", "partition_index"]


def _finding(df, check: str, subject, detail):
    """Rows of ``df`` as findings (status decided later)."""
    from pyspark.sql import functions as F

    return df.select(F.lit(AUDIT).alias("audit"), F.lit(str(check)).alias("check"), "coordinator", "partition",
                     "file", "offset", subject.alias("subject"), detail.alias("detail"))  # fmt: skip


def _partition_subject():
    from pyspark.sql import functions as F

    return F.concat_ws("-", "topic_id", "partition_index")


def offset_findings(rows):
    """Offsets gap-free and unique, the high watermark never decreasing, the log start offset
    never above it: one window per diskless partition over its batches and log start offsets,
    at most one of the four checks per row."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    w = Window.partitionBy(*PARTITION).orderBy("offset", "idx").rowsBetween(Window.unboundedPreceding, -1)
    batch, base, end = F.col("kind") == "batch", F.col("base_offset"), F.col("last_offset") + 1
    df = rows.where(F.col("kind").isin("batch", "log-start")).withColumn(
        "hw", F.coalesce(F.last(F.when(batch, end), ignorenulls=True).over(w), F.lit(0))
    )
    hw = F.col("hw")
    span = F.format_string("batch at offsets %d-%d, high watermark %d", "base_offset", "last_offset", "hw")
    found = [  # (check, when, detail)
        (CoordinatorCheck.OFFSET_GAP, batch & (base > hw),
         F.format_string("%s: offsets %d-%d were never assigned", span, hw, base - 1)),
        (CoordinatorCheck.HIGH_WATERMARK_DECREASED, batch & (end < hw),
         F.format_string("%s: the high watermark goes back to %d", span, end)),
        (CoordinatorCheck.DUPLICATE_OFFSETS, batch & (base < hw),
         F.format_string("%s: offsets %d-%d assigned again", span, base, hw - 1)),
        (CoordinatorCheck.LOG_START_ABOVE_HIGH_WATERMARK, ~batch & (F.col("log_start_offset") > hw),
         F.format_string("log start offset %d above high watermark %d", "log_start_offset", hw)),
    ]  # fmt: skip
    check, detail = F.lit(None), F.lit(None)
    for name, when, text in reversed(found):  # the first that holds
        check, detail = F.when(when, F.lit(str(name))).otherwise(check), F.when(when, text).otherwise(detail)
    df = df.withColumn("found", check).withColumn("text", detail).where(F.col("found").isNotNull())
    return [df.select(F.lit(AUDIT).alias("audit"), F.col("found").alias("check"), "coordinator", "partition", "file",
                      "offset", _partition_subject().alias("subject"), F.col("text").alias("detail"))]  # fmt: skip


def object_findings(rows):
    """Every batch inside its object, and its object a new one (not one known already)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    batches = rows.where(F.col("kind") == "batch")
    outside = batches.where((F.col("byte_offset") < 0) | (F.col("size") <= 0)
                            | (F.col("byte_offset") + F.col("size") > F.col("object_size")))  # fmt: skip
    w = Window.partitionBy("coordinator", "partition", "object_key").orderBy("offset", "idx")
    lives = rows.where(F.col("kind").isin("commit", "objects-deleted")).withColumn("before", F.lag("kind").over(w))
    again = lives.where((F.col("kind") == "commit") & (F.col("before") == "commit"))
    return [
        _finding(outside, CoordinatorCheck.BATCH_OUTSIDE_OBJECT, F.col("object_key"),
                 F.format_string("batch %d of the commit (partition %s, offsets %d-%d) at bytes %d+%d of a "
                                 "%d-byte object", "idx", _partition_subject(), "base_offset", "last_offset",
                                 "byte_offset", "size", "object_size")),
        _finding(again, CoordinatorCheck.OBJECT_COMMITTED_TWICE, F.col("object_key"),
                 F.lit("committed again while its earlier commit is still known (not deleted)")),
    ]  # fmt: skip


def deletion_findings(rows):
    """An object deleted only when no live batch uses it."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    deleted = rows.where(F.col("kind") == "objects-deleted").select(
        "coordinator", "partition", "object_key", "file", "offset", "idx")
    batches = rows.where(F.col("kind") == "batch").select(
        "coordinator", "partition", "object_key", "topic_id", "partition_index", "base_offset", "last_offset",
        F.col("offset").alias("committed"))  # fmt: skip
    # one "pair" row per (deletion, batch committed into the object before it), at the deletion
    pairs = deleted.join(batches, ["coordinator", "partition", "object_key"]).where(F.col("committed") < F.col("offset"))
    pairs = pairs.withColumn("kind", F.lit("pair"))
    moves = rows.where(F.col("kind").isin("log-start", "remove-topic")).select(
        "coordinator", "partition", "topic_id", "partition_index", "offset", "kind", "log_start_offset")
    merged = pairs.unionByName(moves, allowMissingColumns=True)
    before = Window.unboundedPreceding, Window.currentRow
    by_partition = Window.partitionBy(*PARTITION).orderBy("offset").rowsBetween(*before)
    by_topic = Window.partitionBy("coordinator", "partition", "topic_id").orderBy("offset").rowsBetween(*before)
    removed = F.max(F.when(F.col("kind") == "remove-topic", F.col("offset"))).over(by_topic)
    merged = merged.withColumn("log_start", F.max("log_start_offset").over(by_partition)).withColumn("removed", removed)
    live = merged.where((F.col("kind") == "pair") & F.col("removed").isNull()
                        & (F.coalesce(F.col("log_start"), F.lit(0)) <= F.col("last_offset")))  # fmt: skip
    grouped = live.groupBy("coordinator", "partition", "file", "offset", "object_key").agg(
        F.count("*").alias("n"), F.min(F.struct("committed", "topic_id", "partition_index", "base_offset",
                                               "last_offset")).alias("first"))  # fmt: skip
    detail = F.format_string("deleted while %d live batches use it, the first committed at offset %d "
                             "(partition %s-%d, offsets %d-%d)", "n", "first.committed", "first.topic_id",
                             "first.partition_index", "first.base_offset", "first.last_offset")  # fmt: skip
    return [_finding(grouped, CoordinatorCheck.OBJECT_DELETED_IN_USE, F.col("object_key"), detail)]


def issue_findings(rows):
    """Damage and records that do not decode: reported, never dropped."""
    from pyspark.sql import functions as F

    issues = rows.where(F.col("kind") == "issue")
    return [issues.select(F.lit(AUDIT).alias("audit"), F.col("issue").alias("check"), "coordinator", "partition",
                          "file", "offset", F.col("file").alias("subject"), "detail")]  # fmt: skip


def findings(rows, incomplete: list[tuple[str, int]]):
    """Every finding over the rows (``VIOLATION_COLUMNS`` plus ``partition``, the coordinator's
    partition), with its status: ``incomplete`` lists the (coordinator, partition) whose log
    does not start at offset 0."""
    from pyspark.sql import functions as F

    spark = rows.sparkSession
    checks = offset_findings(rows) + object_findings(rows) + deletion_findings(rows)
    found = reduce(lambda a, b: a.unionByName(b), checks)
    # the first damaged offset of each partition (damage whose offset is unknown counts from 0)
    damaged = rows.where(F.col("kind") == "issue").groupBy("coordinator", "partition").agg(
        F.min(F.coalesce("offset", F.lit(0))).alias("damaged_from"))
    partial = spark.createDataFrame(incomplete or [("", -1)], "coordinator STRING, partition INT").withColumn(
        "partial", F.lit(True))  # fmt: skip
    found = found.join(damaged, ["coordinator", "partition"], "left").join(
        F.broadcast(partial), ["coordinator", "partition"], "left")  # fmt: skip
    unverifiable = F.col("partial").isNotNull() | (F.col("offset") >= F.col("damaged_from"))
    found = found.withColumn("status", F.when(unverifiable, F.lit(UNVERIFIABLE)).otherwise(F.lit(VIOLATION)))
    issues = issue_findings(rows)[0].withColumn("status", F.lit(VIOLATION))
    columns = [*VIOLATION_COLUMNS[:3], "cluster", "partition", *VIOLATION_COLUMNS[4:]]
    both = found.unionByName(issues, allowMissingColumns=True).withColumnRenamed("coordinator", "cluster")
    return both.select(*columns)
