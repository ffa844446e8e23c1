"""Shared fixtures of the pipeline tests: one SparkSession for the whole run, tuned for speed.

The Spark tests skip, saying why, when pyspark (the spark extra) or Java is missing.
"""

from __future__ import annotations

import pytest

from kafka_meta_proto.pipeline.spark import java_available


def _require_spark() -> None:
    pytest.importorskip("pyspark", reason="pyspark is not installed (pip install 'kafka-meta-proto[spark]')")
    pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install 'kafka-meta-proto[spark]')")
    if not java_available():
        pytest.skip("Spark needs Java: no java on PATH and no JAVA_HOME")


@pytest.fixture(scope="session")
def spark():
    """local[2], two shuffle partitions, no UI, no adaptive execution (its extra jobs cost more
    than they save on test-sized data)."""
    _require_spark()
    from kafka_meta_proto.pipeline.spark import session

    spark = session(
        "local[2]",
        app_name="kafka-meta-proto tests",
        conf={
            "spark.sql.shuffle.partitions": "2",
            "spark.default.parallelism": "2",
            "spark.ui.enabled": "false",
            "spark.sql.adaptive.enabled": "false",
            "spark.sql.codegen.wholeStage": "false",  # tiny data: compiling costs more than it saves
            "spark.driver.memory": "1g",
        },
    )
    yield spark
    spark.stop()
