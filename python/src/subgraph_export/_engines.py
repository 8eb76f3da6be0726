"""What the Spark source and the Dask reader share: the layout of a partitioned export, found before any partition is
read (the engines need the schema up front), and one partition read on a worker, pinned to the layout's state,
retried as :func:`subgraph_export.traverse` retries it, and laid out in those columns.

The layout: the store state to pin, and per kind (nodes, relationships) every (key, type) property column with its
name. It comes from the first message of the whole export (the single stream's schema: its columns and names as
:func:`traverse` has them) and of each partition (pinned to that state): a (key, type) first seen after the single
stream's first batch but in a partition's first batch gets a column too, named as the server names a further type.
Only schemas are read (each request is closed after its first message): the server walks until it has filled the
first batch of each stream (65,536 rows or about 8 MiB), then stops when the connection closes.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

import pyarrow as pa
import pyarrow.compute as pc

from ._endpoints import _traverse_endpoint
from ._errors import ExportError, ExportRequestError
from ._http import BUSY_WAIT, _open
from ._partitions import (
    _K,
    _TAKEN,
    FAIL,
    RESTART,
    STATE_CHANGED,
    StateChangedError,
    _Changed,
    _check_retries,
    _moved_to,
    _Round,
)
from ._stream import ExportStream
from ._tables import EXTRA, NODE_COLUMNS, RELATIONSHIP_COLUMNS

KINDS = {"nodes": b"node", "relationships": b"relationship"}
Column = Tuple[Tuple[str, str], str, pa.Field]  # ((key, wire type), column name, the Arrow field as the server sent it)


@dataclass(frozen=True)
class Layout:
    """A partitioned export as the engines see it before reading it: the state every partition is pinned to, the
    header fields that make element ids, and per kind the property columns in order."""

    state: str
    database: str
    root: str
    partitions: int
    columns: Dict[bytes, Tuple[Column, ...]]

    def fixed(self, kind: bytes) -> Tuple[str, ...]:
        return NODE_COLUMNS if kind == b"node" else RELATIONSHIP_COLUMNS

    def arrow_schema(self, kind: bytes) -> pa.Schema:
        """The table one kind is read into, before the engine's own types: the export's Arrow types, dictionaries
        decoded (``labels`` list<utf8>, ``type`` utf8), the state in the schema metadata."""
        fixed = {"element_id": pa.string(), "id": pa.int64(),
                 "labels": pa.list_(pa.field("item", pa.string(), nullable=False)), "type": pa.string(),
                 "source": pa.int64(), "target": pa.int64(), "source_element_id": pa.string(),
                 "target_element_id": pa.string()}
        fields = [pa.field(n, fixed[n]) for n in self.fixed(kind)]
        fields += [pa.field(name, _decoded(f.type), metadata=f.metadata) for _, name, f in self.columns[kind]]
        fields.append(pa.field(EXTRA, pa.string()))
        return pa.schema(fields, metadata={b"subgraph.state": self.state.encode(), b"subgraph.database":
                                           self.database.encode(), b"subgraph.root": self.root.encode()})


@dataclass(frozen=True)
class Request:
    """What the workers need to fetch a partition: the server, the walk (:func:`open_traverse`'s query keywords),
    the connection settings and the retry settings of :func:`traverse`."""

    url: str
    root: Optional[str]
    query: Tuple[Tuple[str, Any], ...]  # label, key, value, expand, attach, max_depth, limit, db, timeout, mount
    auth: Optional[Tuple[str, str]]
    http_timeout: Optional[float]
    busy_wait: float
    attempts: int
    on_state_change: str
    max_restarts: int

    @staticmethod
    def of(url: str, root: Optional[str], *, attempts: int = 3, on_state_change: str = RESTART,
           max_restarts: int = 2, auth: Optional[Tuple[str, str]] = None, http_timeout: Optional[float] = None,
           busy_wait: float = BUSY_WAIT, **query: Any) -> "Request":
        _check_retries(attempts, on_state_change, max_restarts)
        for name in ("partition", "partitions", "progress", "concurrency"):
            if name in query:
                raise TypeError(f"the engines set {name}= themselves")
        _traverse_endpoint(url, root, **{k: v for k, v in query.items() if k != "state"})  # unknown keyword: TypeError
        return Request(url, root, tuple(sorted(query.items())), auth, http_timeout, busy_wait, attempts,
                       on_state_change, max_restarts)

    def walk(self) -> Dict[str, Any]:
        return {k: v for k, v in self.query if k != "state"}

    def pinned(self) -> Optional[str]:
        """The state the caller pinned (``state=``), or None."""
        return dict(self.query).get("state")


def probe(request: Request, partitions: int) -> Layout:
    """The layout of the export in ``partitions`` partitions (see the module's text). The state is the caller's
    ``state=`` if given, else the one the server reads now; when the database moves on while the partitions' schemas
    are read, it starts over (``on_state_change="restart"``, at most ``max_restarts`` times) or raises
    :class:`StateChangedError`."""
    if not isinstance(partitions, int) or isinstance(partitions, bool) or partitions < 1:
        raise ValueError(f"partitions must be an integer >= 1, got {partitions!r}")
    restarts = 0
    while True:
        try:
            return _probe(request, partitions)
        except _Changed as changed:
            if request.on_state_change == FAIL or restarts == request.max_restarts or request.pinned():
                raise StateChangedError(changed.expected, changed.actual, restarts) from None
            restarts += 1


def _probe(request: Request, partitions: int) -> Layout:
    pinned = request.pinned()
    whole = _schema(request, None, None, pinned)
    state = whole.header.state
    if not state:
        raise ExportError("the server names no store state (wire format version 1): it cannot pin partitions")
    columns = {kind: _columns(whole.schema, kind) for kind in (b"node", b"relationship")}
    if partitions > 1:
        with ThreadPoolExecutor(min(partitions, 2), thread_name_prefix="subgraph-export-probe") as pool:
            schemas = list(pool.map(lambda i: _schema(request, partitions, i, state).schema, range(partitions)))
        for kind in columns:
            known = {key for key, _, _ in columns[kind]}
            taken = {*_TAKEN[kind], *(name for _, name, _ in columns[kind])}
            for schema in schemas:
                for key, _, f in _columns(schema, kind):
                    if key in known:
                        continue
                    name = key[0] if key[0] not in taken else f"{key[0]}:{key[1]}"  # as the server names them
                    n = 2
                    while name in taken:
                        name, n = f"{key[0]}:{key[1]}:{n}", n + 1
                    known.add(key)
                    taken.add(name)
                    columns[kind].append((key, name, f.with_name(name)))
    h = whole.header
    return Layout(state, h.database, h.root, partitions, {k: tuple(v) for k, v in columns.items()})


def _schema(request: Request, partitions: Optional[int], partition: Optional[int],
            state: Optional[str]) -> ExportStream:
    """Opens the request, reads its schema and header, and closes it."""
    url = _traverse_endpoint(request.url, request.root, partitions=partitions, partition=partition, state=state,
                             **request.walk())
    try:
        stream = ExportStream(_open(url, None, request.auth, request.http_timeout, request.busy_wait))
    except ExportRequestError as e:
        if e.code == STATE_CHANGED and state:
            raise _Changed(state, e.state or _moved_to(e.message)) from None
        raise
    stream.close()
    if state and stream.header.state != state:
        raise _Changed(state, stream.header.state)
    return stream


def current_state(request: Request) -> str:
    """The state the server is in now: the header of a one-node export of the walk (``limit=1``)."""
    url = _traverse_endpoint(request.url, request.root, **{**request.walk(), "limit": 1})
    stream = ExportStream(_open(url, None, request.auth, request.http_timeout, request.busy_wait))
    stream.close()
    return stream.header.state


def _columns(schema: pa.Schema, kind: bytes) -> List[Column]:
    """The (key, type) property columns of a stream's kind, in the writer's order: the catch-all group's columns
    (children 0 and 1 hold a column for every (key, type) of their kind in the first batch)."""
    union = schema.field(0).type
    group = union.field(0 if kind == b"node" else 1)
    return [((f.metadata[b"subgraph.key"].decode(), f.metadata[b"subgraph.type"].decode()), f.name, f)
            for f in group.type if f.metadata and b"subgraph.key" in f.metadata]


def _decoded(t: pa.DataType) -> pa.DataType:
    if pa.types.is_dictionary(t):
        return t.value_type
    if pa.types.is_list(t):
        return pa.list_(t.value_field.with_type(_decoded(t.value_type)))
    return t


def read_partition(request: Request, layout: Layout, partition: int,
                   kinds: Tuple[bytes, ...] = (b"node", b"relationship")) -> Dict[bytes, pa.Table]:
    """Partition ``partition`` of the layout's export, pinned to its state, read whole on this worker: a cut or a
    transient failure is fetched again (``attempts`` requests in all; :class:`PartitionFailedError`), a commit raises
    :class:`StateChangedError`. Per kind of ``kinds`` a table in :meth:`Layout.arrow_schema`, rows in the export's
    order."""
    connection = {"auth": request.auth, "http_timeout": request.http_timeout, "busy_wait": request.busy_wait,
                  **request.walk()}
    attempt = _Round(request.url, request.root, layout.partitions, 1, request.attempts, connection, None)
    try:
        part = attempt._fetch(partition, layout.state, None, [])
    except _Changed as changed:
        raise StateChangedError(changed.expected, changed.actual) from None
    return {kind: _conform(part.groups[kind], layout, kind, partition) for kind in kinds}


def _conform(groups: List[Tuple[str, pa.Table]], layout: Layout, kind: bytes, partition: int) -> pa.Table:
    schema = layout.arrow_schema(kind)
    names = {key: name for key, name, _ in layout.columns[kind]}
    fixed = layout.fixed(kind)
    tables = []
    for _, t in groups:
        if not t.num_rows:
            continue
        renamed = []
        for f in t.schema:
            if f.name in fixed or f.name in (EXTRA, _K):
                renamed.append(f.name)
                continue
            key = (f.metadata[b"subgraph.key"].decode(), f.metadata[b"subgraph.type"].decode())
            if key not in names:
                raise ExportError(
                    f"partition {partition} has a column for key {key[0]!r} of type {key[1]} that the export's schema"
                    f" (found when it was loaded) lacks: read it again")
            renamed.append(names[key])
        t = t.rename_columns(renamed)
        columns = []
        for f in schema:
            if f.name in t.column_names:
                c = t.column(f.name)
                columns.append(c if c.type == f.type else c.cast(f.type))
            else:
                columns.append(pa.nulls(t.num_rows, f.type))
        columns.append(t.column(_K))
        tables.append(pa.Table.from_arrays(columns, schema=schema.append(pa.field(_K, pa.int64()))))
    if not tables:
        return schema.empty_table()
    table = pa.concat_tables(tables)
    if len(tables) > 1:
        table = table.take(pc.sort_indices(table.column(_K)))
    return table.drop_columns([_K])
