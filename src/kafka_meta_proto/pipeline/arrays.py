"""Python lists into Arrow arrays, the fast way for the lists the pipeline makes (and the JSON
forms' values as lists, column by column)."""

from __future__ import annotations

import array
import sys
from typing import Any

import pyarrow as pa

from ..codec import compiled_module

# The C twin (pipeline/_arrow.c, in the pipeline._rows extension); None under pure Python.
_compiled = compiled_module("pipeline._rows")

# pa.array looks at each Python object (an int is first checked for being an Arrow scalar, which
# made it ten times slower on large values such as offsets). The compiled codec packs integer and
# string columns into Arrow's buffers itself; without it, integer columns go through array.array.
_INT_CODES = {pa.int64(): "q", pa.int32(): "i", pa.int16(): "h", pa.int8(): "b"}
_SCALARS = {**_INT_CODES, pa.string(): "s"}
_KINDS = (
    {**_SCALARS, **{pa.list_(t): "[" + k for t, k in _SCALARS.items()}}
    if sys.byteorder == "little"
    else {}
)


def arrow_buffers(values: list[Any], kind: str) -> tuple[Any, ...] | None:
    """The buffers of an Arrow array of ``values``: kind ``b``, ``h``, ``i``, ``q`` (ints of 1,
    2, 4, 8 bytes) gives (validity bitmap or None, little-endian values); ``s`` (strs) gives
    (validity or None, int32 offsets, UTF-8); ``[`` then one of those (lists of them) gives
    (validity or None, int32 offsets, the elements' buffers). None where it declines (a value
    of another type or out of range, a null element, over 2 GiB) and under pure Python: pyarrow
    converts those lists."""
    if _compiled is None:
        return None
    buffers: tuple[Any, ...] | None = _compiled.arrow_buffers(values, kind)
    return buffers


def dict_columns(dicts: list[dict[str, Any]], keys: tuple[str, ...]) -> list[list[Any]]:
    """``[[d.get(key) for d in dicts] for key in keys]``: rows of dicts as columns (the typed
    tables are built from the JSON forms' columns)."""
    if _compiled is not None:
        columns: list[list[Any]] = _compiled.dict_columns(dicts, keys)
        return columns
    return [[d.get(key) for d in dicts] for key in keys]


def _from_buffers(pa_type: pa.DataType, length: int, buffers: tuple) -> pa.Array:
    """The array of arrow_buffers' answer; a list's elements are its last buffer, nested."""
    if pa.types.is_list(pa_type):
        validity, offsets, nested = buffers
        count = int.from_bytes(offsets[-4:], "little")  # the last offset
        elements = _from_buffers(pa_type.value_type, count, nested)
        return pa.Array.from_buffers(
            pa_type, length, _wrap((validity, offsets)), children=[elements]
        )
    return pa.Array.from_buffers(pa_type, length, _wrap(buffers))


def _wrap(buffers: tuple) -> list:
    return [None if b is None else pa.py_buffer(b) for b in buffers]


def arrow_array(values: list, pa_type: pa.DataType) -> pa.Array:
    """``pa.array(values, pa_type)`` for a list of ints, strs and Nones, without pyarrow's look
    at each value where that can be done."""
    kind = _KINDS.get(pa_type)
    if kind is not None:
        buffers = arrow_buffers(values, kind)
        if buffers is not None:
            return _from_buffers(pa_type, len(values), buffers)
    code = _INT_CODES.get(pa_type)
    if code is not None:
        try:
            packed = array.array(code, values)
        except (TypeError, OverflowError):  # nulls, or a value out of range: pa.array says which
            pass
        else:
            return pa.Array.from_buffers(pa_type, len(packed), [None, pa.py_buffer(packed)])
    return pa.array(values, pa_type)
