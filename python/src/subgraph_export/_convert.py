"""Conversions of an :class:`Export`'s tables: pandas and polars DataFrames (every value exact) and a NetworkX
graph. ``Export.to_pandas()``, ``to_polars()`` and ``to_networkx()`` call these; pandas, polars and networkx are
imported when called (extras of the same names). Graph learning (PyG, SciPy) is in ``ml``."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, cast

import pyarrow as pa

from ._errors import ExportError
from ._tables import EXTRA, NODE_COLUMNS, RELATIONSHIP_COLUMNS

if TYPE_CHECKING:  # pragma: no cover
    import networkx as nx
    import pandas as pd
    import polars as pl

    from ._export import Export


def to_pandas(export: Export, **kwargs: Any) -> Tuple[pd.DataFrame, pd.DataFrame]:
    """:meth:`Export.to_pandas`."""
    options = {"date_as_object": False, "types_mapper": _nested_as_arrow, **kwargs}
    return _storage(export.nodes).to_pandas(**options), _storage(export.relationships).to_pandas(**options)


def to_polars(export: Export) -> Tuple[pl.DataFrame, pl.DataFrame]:
    """:meth:`Export.to_polars`."""
    import polars as pl

    return (cast("pl.DataFrame", pl.from_arrow(_storage(export.nodes))),
            cast("pl.DataFrame", pl.from_arrow(_storage(export.relationships))))


def to_networkx(export: Export) -> nx.MultiDiGraph[str]:
    """:meth:`Export.to_networkx`."""
    import networkx as nx

    g: nx.MultiDiGraph[str] = nx.MultiDiGraph()
    g.graph.update(database=export.header.database, root=export.header.root)
    g.add_nodes_from(zip(export.nodes.column("element_id").to_pylist(), _attributes(export.nodes, ("labels",))))
    rels = export.relationships
    g.add_edges_from(zip(rels.column("source_element_id").to_pylist(), rels.column("target_element_id").to_pylist(),
                         rels.column("element_id").to_pylist(), _attributes(rels, ("type",))))  # type: ignore[arg-type]
    return g


def _attributes(table: pa.Table, first: Sequence[str]) -> Iterator[Dict[str, Any]]:
    skip = {*NODE_COLUMNS, *RELATIONSHIP_COLUMNS, EXTRA}
    names = list(first) + [n for n in table.column_names if n not in skip]
    keys = [n if n in first else table.schema.field(n).metadata[b"subgraph.key"].decode() for n in names]
    columns = [_python(table.column(n), n) for n in names]
    extra = table.column(EXTRA).to_pylist()
    for i in range(table.num_rows):
        attrs = {k: c[i] for k, c in zip(keys, columns) if c[i] is not None}
        if extra[i] is not None:
            attrs.update(json.loads(extra[i]))
        yield attrs


def _python(column: pa.ChunkedArray, name: str) -> List[Any]:
    try:
        values: List[Any] = column.to_pylist()
        return values
    except (OverflowError, ValueError) as e:
        raise ExportError(f"property {name!r} holds values Python's datetime types cannot hold ({e}); "
                          "to_pandas() and to_polars() keep them") from e


def _nested_as_arrow(t: pa.DataType) -> Optional[pd.ArrowDtype]:
    import pandas as pd

    return pd.ArrowDtype(t) if pa.types.is_list(t) or pa.types.is_struct(t) else None


def _storage(table: pa.Table) -> pa.Table:
    """The table as pandas and polars convert it exactly, also inside lists and structs: UUIDs (arrow.uuid) as their
    16 bytes (binary), local times (time64[ns]) as durations since midnight (datetime.time stops at microseconds)."""
    columns = []
    for c in table.columns:
        binary = _replace(c.type, lambda t: pa.binary() if isinstance(t, pa.BaseExtensionType) else None)
        if binary != c.type:
            c = c.cast(binary)
        durations = _replace(c.type, lambda t: pa.duration("ns") if pa.types.is_time64(t) else None)
        if durations != c.type:  # the same 8 bytes: a view, no copy
            c = pa.chunked_array([chunk.view(durations) for chunk in c.chunks], type=durations)
        columns.append(c)
    return pa.Table.from_arrays(columns, names=table.column_names)


def _replace(t: pa.DataType, swap: Callable[[pa.DataType], Optional[pa.DataType]]) -> pa.DataType:
    """``t`` with every type for which ``swap`` gives a replacement replaced, at any depth."""
    replacement = swap(t)
    if replacement is not None:
        return replacement
    if pa.types.is_list(t):
        return pa.list_(t.value_field.with_type(_replace(t.value_type, swap)))
    if pa.types.is_struct(t):
        return pa.struct([t.field(i).with_type(_replace(t.field(i).type, swap)) for i in range(t.num_fields)])
    return t
