"""Comparing what Spark or Dask read with the single-stream export, value for value, row by element id."""

import pyarrow as pa
import pyarrow.compute as pc

from subgraph_export._convert import _replace


def _integral(t: pa.DataType):
    """The integer an exact value of this type is stored as, for types whose Python objects lose precision or range
    (dates beyond 9999, nanoseconds); dictionaries decoded, UUIDs as bytes, chars as int32."""
    if isinstance(t, pa.BaseExtensionType):
        return pa.binary()
    if pa.types.is_dictionary(t):
        return t.value_type
    if pa.types.is_date32(t):
        return pa.int32()
    if pa.types.is_time(t) or pa.types.is_timestamp(t) or pa.types.is_duration(t):
        return pa.int64()
    if pa.types.is_uint16(t):
        return pa.int32()
    return None


def plain(column) -> list:
    """A column's values as Python objects of exact integers, strings, floats, lists and dicts."""
    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    target = _replace(column.type, _integral)
    if target != column.type:
        column = column.cast(target)
    return [repr(v) if isinstance(v, float) else v for v in column.to_pylist()]  # NaN equal to NaN


def by_element_id(table: pa.Table) -> pa.Table:
    return table.take(pc.sort_indices(table.column("element_id")))


def assert_same_rows(actual: pa.Table, expected: pa.Table) -> None:
    """The same columns (names, in order) and, row by element id, every value equal."""
    assert actual.column_names == expected.column_names
    assert actual.num_rows == expected.num_rows
    actual, expected = by_element_id(actual), by_element_id(expected)
    for name in expected.column_names:
        assert plain(actual.column(name)) == plain(expected.column(name)), name
