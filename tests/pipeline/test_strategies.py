"""The four ways of running the decoder in Spark (bench/pipeline.py --compare times them) give the
same rows as the decoder run in this process."""

from __future__ import annotations

import pytest

from kafka_meta_proto.pipeline.decode import decode_units
from kafka_meta_proto.pipeline.inputs import discover

from .logs import Cluster


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    root = tmp_path_factory.mktemp("strategies")
    for name in ("x", "y"):
        Cluster(name).healthy().write(root)
    return root


KEY = ("kind", "cluster", "file", "position", "offset", "type_name", "payload", "records_count", "issue")


@pytest.mark.parametrize("name", ["mapInArrow", "arrow UDTF", "rdd.mapPartitions", "pandas UDF"])
def test_each_strategy_gives_the_decoder_rows(spark, small, name):
    pytest.importorskip("pandas")
    from kafka_meta_proto.pipeline import strategies
    from kafka_meta_proto.pipeline.job import units_frame

    units = discover([str(small)]).units()
    want = sorted(tuple(r[k] for k in KEY) for b in decode_units(u.row() for u in units) for r in b.to_pylist())
    frame, _ = units_frame(spark, units)
    got = sorted(tuple(r[k] for k in KEY) for r in strategies.STRATEGIES[name](frame).collect())
    assert got == want
