"""Comparing a typed table's row with Kafka's JSON form of the same record."""

from __future__ import annotations


def strip_nulls(value):
    """JSON with null members dropped (a typed row has nulls for fields a version lacks)."""
    if isinstance(value, dict):
        return {k: strip_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [strip_nulls(v) for v in value]
    return value
