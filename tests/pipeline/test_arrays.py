"""Python lists into Arrow arrays (pipeline/arrays.py): the same arrays pa.array makes, whether
the compiled codec packs the buffers or pyarrow converts; what the codec declines (a value of
another type, out of range, a null element in a list) still converts or fails as pa.array does."""

from __future__ import annotations

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_meta_proto import codec
from kafka_meta_proto.pipeline import arrays
from kafka_meta_proto.pipeline.arrays import _KINDS, arrow_array, arrow_buffers, dict_columns

INTS = {pa.int8(): 8, pa.int16(): 16, pa.int32(): 32, pa.int64(): 64}


def ints(bits: int):
    return st.integers(-(1 << (bits - 1)), (1 << (bits - 1)) - 1)


TEXT = st.text(
    st.characters(exclude_categories=["Cs"]), max_size=30
)  # (a lone surrogate is not UTF-8)
COLUMNS = st.one_of(
    *[st.tuples(st.just(t), st.lists(st.one_of(st.none(), ints(b)), max_size=40)) for t, b in INTS.items()],
    st.tuples(st.just(pa.string()), st.lists(st.one_of(st.none(), TEXT), max_size=40)),
    *[st.tuples(st.just(pa.list_(t)), st.lists(st.one_of(st.none(), st.lists(ints(b), max_size=6)), max_size=30))
      for t, b in INTS.items()],
    st.tuples(st.just(pa.list_(pa.string())), st.lists(st.one_of(st.none(), st.lists(TEXT, max_size=4)), max_size=30)),
)  # fmt: skip


def same_array(values, pa_type) -> pa.Array:
    got = arrow_array(values, pa_type)
    got.validate(full=True)
    expected = pa.array(values, pa_type)
    assert got.type == expected.type
    assert got.equals(expected), (got, expected)
    assert got.null_count == expected.null_count
    return got


@settings(max_examples=300, deadline=None)
@given(COLUMNS)
def test_the_arrays_pa_array_makes(column):
    pa_type, values = column
    same_array(values, pa_type)
    if codec.active_codec() == "compiled":  # lists of these the codec packs itself, whole
        assert arrow_buffers(values, _KINDS[pa_type]) is not None


@pytest.mark.parametrize(
    "pa_type, values",
    [(pa.int8(), [127, 128]), (pa.int16(), [-32769]), (pa.int32(), [1 << 31]), (pa.int64(), [1 << 63]),
     (pa.int32(), [1, 2.0]), (pa.string(), ["a", b"b"]), (pa.string(), ["\ud800"]),
     (pa.list_(pa.int32()), [[1, None]]), (pa.list_(pa.int32()), [[1], "12"]), (pa.list_(pa.int16()), [[1 << 20]])],
)  # fmt: skip
def test_what_the_codec_declines_goes_to_pyarrow(pa_type, values):
    assert arrow_buffers(values, _KINDS[pa_type]) is None
    try:
        expected = pa.array(values, pa_type)
    except (pa.ArrowException, TypeError, ValueError, OverflowError, UnicodeError) as exc:
        with pytest.raises(type(exc)):
            arrow_array(values, pa_type)
    else:
        assert arrow_array(values, pa_type).equals(expected)


def test_bools_stay_ints_as_before():
    # array.array took True as 1 before the codec packed columns; it still does
    assert arrow_array([True, 2], pa.int32()).to_pylist() == [1, 2]


@pytest.mark.skipif(
    codec.active_codec() != "compiled",
    reason=f"the compiled codec is not active ({codec.why_pure_python()})",
)
def test_the_codec_refuses_unknown_kinds():
    for kind in ("", "x", "[[i", "[", "qq", "[x"):
        with pytest.raises(ValueError):
            arrays._compiled.arrow_buffers([1], kind)
    with pytest.raises(TypeError):
        arrays._compiled.arrow_buffers((1,), "q")


# --- the JSON forms by column (the typed tables) ------------------------------------------------

KEYS = ("a", "b", "c", "d")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(KEYS + ("e",)), st.one_of(st.none(), st.integers(), st.text())),
                max_size=20),
       st.lists(st.sampled_from(KEYS), max_size=5).map(tuple))  # fmt: skip
def test_dict_columns_are_the_dicts_values_by_key(dicts, keys):
    got = dict_columns(dicts, keys)
    assert got == [[d.get(key) for d in dicts] for key in keys]
    assert all(g is d.get(key) for column, key in zip(got, keys) for g, d in zip(column, dicts))


@pytest.mark.skipif(arrays._compiled is None, reason=f"the compiled codec is not active ({codec.why_pure_python()})")
def test_dict_columns_refuses_what_is_not_a_list_of_dicts():
    for args in (([{"a": 1}, [("a", 1)]], ("a",)), (({"a": 1},), ("a",)), ([{"a": 1}], ["a"])):
        with pytest.raises(TypeError):
            arrays._compiled.dict_columns(*args)
    assert arrays._compiled.dict_columns([], ("a",)) == [[]]
    assert arrays._compiled.dict_columns([{"a": 1}], ()) == []
