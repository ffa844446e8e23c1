"""Python lists into Arrow arrays, the fast way for the lists the pipeline makes."""

from __future__ import annotations

import array

import pyarrow as pa

# Integer columns go to Arrow through array.array: pa.array checks each Python int for being
# an Arrow scalar first, which made it ten times slower on large values (offsets, timestamps).
_INT_CODES = {pa.int64(): "q", pa.int32(): "i", pa.int16(): "h", pa.int8(): "b"}


def arrow_array(values: list, pa_type: pa.DataType) -> pa.Array:
    """``pa.array(values, pa_type)``, through array.array for an integer column without nulls."""
    code = _INT_CODES.get(pa_type)
    if code is not None:
        try:
            packed = array.array(code, values)
        except (TypeError, OverflowError):  # nulls, or a value out of range: pa.array says which
            pass
        else:
            return pa.Array.from_buffers(pa_type, len(packed), [None, pa.py_buffer(packed)])
    return pa.array(values, pa_type)
