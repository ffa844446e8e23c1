"""Four ways to run the decoder in Spark's Python workers, on the same DataFrame of units.

Each returns a DataFrame of the decoded rows (``decode.SPARK_DDL``); ``bench/pipeline.py
--compare`` times them and docs/pipeline.md has the figures. The job uses ``mapInArrow``.

- ``map_in_arrow``: ``DataFrame.mapInArrow``; the worker yields Arrow record batches (64k rows)
  straight from the decoder; nothing is converted row by row.
- ``arrow_udtf``: a PyArrow-native Python UDTF (``pyspark.sql.functions.arrow_udtf``, Spark 4.1+)
  over the units as a table argument; its ``eval`` gets Arrow batches and yields Arrow batches.
- ``map_partitions``: ``rdd.mapPartitions`` yielding Python tuples, pickled to the JVM and turned
  into a DataFrame with the schema.
- ``pandas_udf``: a scalar pandas UDF, one unit per row in, all of its rows as one array of
  structs out (then exploded): a whole file's records travel as a single value, as with
  ``binaryFile``.
"""

from __future__ import annotations

import pandas as pd  # the pandas UDF's type hints name it

from .decode import SPARK_DDL, decode_unit
from .decode import map_in_arrow as _map_in_arrow

UNIT_FIELDS = ("unit", "cluster", "file", "uri", "kind", "start", "end", "size", "registry")


def map_in_arrow(units_df):
    return units_df.mapInArrow(_map_in_arrow, SPARK_DDL)


def arrow_udtf(units_df):
    from pyspark.sql.functions import arrow_udtf as make_udtf

    @make_udtf(returnType=SPARK_DDL)
    class DecodeUnits:
        def eval(self, batch):
            for unit in batch.to_pylist():
                yield from decode_unit(unit)

    return DecodeUnits(units_df.asTable())


def _tuples(units):
    for unit in units:
        for batch in decode_unit(unit.asDict()):
            yield from zip(*(column.to_pylist() for column in batch.columns))


def map_partitions(units_df):
    spark = units_df.sparkSession
    return spark.createDataFrame(units_df.rdd.mapPartitions(_tuples), SPARK_DDL)


def pandas_udf(units_df):
    from pyspark.sql import functions as F

    element = "struct<" + ", ".join(part.replace(" ", ": ", 1) for part in SPARK_DDL.split(", ")) + ">"

    @F.pandas_udf(f"array<{element}>")
    def decode_rows(unit: pd.Series, cluster: pd.Series, file: pd.Series, uri: pd.Series, kind: pd.Series,
                    start: pd.Series, end: pd.Series, size: pd.Series, registry: pd.Series) -> pd.Series:  # fmt: skip
        out = []
        for values in zip(unit, cluster, file, uri, kind, start, end, size, registry):
            rows = []
            for batch in decode_unit(dict(zip(UNIT_FIELDS, values))):
                rows.extend(batch.to_pylist())
            out.append(rows)
        return pd.Series(out)

    exploded = units_df.select(F.explode(decode_rows(*[F.col(f"`{c}`") for c in UNIT_FIELDS])).alias("r"))
    return exploded.select("r.*")


STRATEGIES = {
    "mapInArrow": map_in_arrow,
    "arrow UDTF": arrow_udtf,
    "rdd.mapPartitions": map_partitions,
    "pandas UDF": pandas_udf,
}
