"""Dask DataFrames of a partitioned export: one Dask partition per export partition, each read on a worker straight
from the server, pinned to one store state, retried as :func:`subgraph_export.traverse` retries it.

>>> from subgraph_export.dask import read_traverse
>>> nodes, relationships = read_traverse("http://neo4j:7474", label="Object", key="id", value=1,
...                                      partitions=8)  # doctest: +SKIP
>>> nodes.groupby("version").size().compute()  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

import pyarrow as pa

from ._engines import Layout, Request, current_state, probe, read_partition
from ._export import Export, Header, Summary
from ._partitions import RESTART, StateChangedError

try:
    import dask.dataframe as dd
    from dask.delayed import delayed
except ImportError as e:  # pragma: no cover
    raise ImportError("the Dask reader needs dask[dataframe]: pip install 'subgraph-export[dask]'") from e


def read_traverse(url: str, root: Optional[str] = None, *, partitions: int = 4, attempts: int = 3,
                  on_state_change: str = RESTART, max_restarts: int = 2, concurrency: Optional[int] = None,
                  **kwargs: Any) -> Tuple[Any, Any]:
    """``(nodes, relationships)``: lazy Dask DataFrames of the traverse export under the root (the keywords of
    :func:`subgraph_export.traverse`: ``label``/``key``/``value``, ``expand``, ``attach``, ``max_depth``, ``limit``,
    ``db``, ``timeout``, ``auth``, ``http_timeout``, ``busy_wait``, ``state``), read as ``partitions`` partitions, one
    Dask partition each; the columns and pandas types of :meth:`Export.to_pandas`, dictionaries decoded
    (``labels`` a list of strings, ``type`` a string); ``meta`` from the export's schema.

    The schema and the state are read now (a first message of the whole export and of each partition: see
    :mod:`subgraph_export._engines`). Each partition is read whole by its task: cut or failing, it is fetched again,
    up to ``attempts`` requests, then :class:`PartitionFailedError`. Computing ``nodes`` and ``relationships``
    together (``dask.compute(nodes, relationships)``) reads each partition once and both at one state.

    State: with ``on_state_change="restart"`` (default) each computation reads the state the database is in when it
    starts, if the columns are those of ``meta`` (else it fails: call again); with ``"fail"`` every computation reads
    the state found now or raises :class:`StateChangedError`. While the schemas are read now, a commit starts over
    (at most ``max_restarts`` times) or raises. A commit while a computation reads raises
    :class:`StateChangedError` from it in both cases (Dask re-runs failed tasks, never the finished ones, so the
    partitions could not be read again at one new state within the computation): compute again. ``concurrency`` is
    the scheduler's business here and is ignored.
    """
    del concurrency
    request = Request.of(url, root, attempts=attempts, on_state_change=on_state_change, max_restarts=max_restarts,
                         **kwargs)
    layout = probe(request, partitions)
    metas = [_pandas(layout, layout.arrow_schema(kind).empty_table(), kind) for kind in (b"node", b"relationship")]
    if on_state_change == RESTART and not request.pinned():
        now = delayed(_now, pure=False)(request, layout)  # once per computation, before its partitions
    else:
        now = layout
    reads = [delayed(_read, pure=False, nout=2)(request, now, i) for i in range(partitions)]
    return tuple(dd.from_delayed([r[k] for r in reads], meta=metas[k], verify_meta=False)
                 for k in (0, 1))


def _now(request: Request, layout: Layout) -> Layout:
    """The layout a computation reads: the state the database is in now, with the columns of ``meta``."""
    if current_state(request) == layout.state:
        return layout
    now = probe(request, layout.partitions)
    for kind in (b"node", b"relationship"):
        have = {key: (name, f.type) for key, name, f in layout.columns[kind]}
        for key, name, f in now.columns[kind]:
            if have.get(key) != (name, f.type):
                raise StateChangedError(layout.state, now.state)
    return now


def _read(request: Request, layout: Layout, partition: int) -> Tuple[Any, Any]:
    tables = read_partition(request, layout, partition)
    return _pandas(layout, tables[b"node"], b"node"), _pandas(layout, tables[b"relationship"], b"relationship")


def _pandas(layout: Layout, table: pa.Table, kind: bytes) -> Any:
    """``table`` as :meth:`Export.to_pandas` converts a table of that kind (exact: see its text)."""
    header = Header(layout.database, layout.root, "", "", 2, layout.state)
    empty = pa.table({})
    export = Export(header, Summary(0, 0, False, layout.state), table if kind == b"node" else empty,
                    table if kind == b"relationship" else empty)
    return export.to_pandas()[0 if kind == b"node" else 1]
