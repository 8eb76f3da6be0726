"""Reading an ``arrow`` export stream: the HTTP request, the record batches, the split into nodes and relationships."""

from __future__ import annotations

import base64
import datetime
import email.utils
import json
import random
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, BinaryIO, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import pyarrow as pa
import pyarrow.compute as pc

MEDIA_TYPE = "application/vnd.apache.arrow.stream"
STATE_HEADER = "Subgraph-Export-State"
"""The response header naming the store state the server read (docs/wire-format.md section 1.3)."""
EXTRA = "extra_properties"
NODE_COLUMNS = ("element_id", "id", "labels")
RELATIONSHIP_COLUMNS = ("element_id", "id", "type", "source", "target", "source_element_id", "target_element_id")

Auth = Optional[Tuple[str, str]]
BUSY_WAIT = 30.0
"""Default of ``busy_wait``: the most seconds spent waiting out a busy server (503 with Retry-After) per request."""


class ExportError(Exception):
    """Base of every failure this package reports."""


class ExportRequestError(ExportError):
    """The server refused the request before streaming (an HTTP status other than 2xx).

    Attributes: ``status`` (HTTP status), ``code`` (e.g. ``Export.RootNotFound``), ``message``, ``state`` (the
    refusal's ``Subgraph-Export-State`` header, the store state the server is in; empty if it sent none: a 412
    ``Export.StateChanged`` names the state the database moved on to).
    """

    def __init__(self, status: int, code: str, message: str, state: str = "") -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.state = state


class ExportFailedError(ExportError):
    """The export failed after streaming had started: the stream's error record (``code``, ``message``).

    The batches before it were complete and valid, but the export is incomplete.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class TruncatedStreamError(ExportError):
    """The stream ended without its closing record (cut off), or is not a valid Arrow stream."""


@dataclass(frozen=True)
class Header:
    """What the stream starts with (the schema's metadata). ``state`` is the store state the export read (the
    ``Subgraph-Export-State`` token; empty in a version 1 stream); ``partition`` of ``partitions`` says which share
    of a partitioned export the stream carries (0 of 1: the whole export)."""

    database: str
    root: str
    node_id_prefix: str
    relationship_id_prefix: str
    version: int
    state: str = ""
    partition: int = 0
    partitions: int = 1


@dataclass(frozen=True)
class Summary:
    """The end record: counts written by the server, whether a limit cut the subgraph short, and the store state
    when the stream ended (equal to the header's: no commit happened while the export read; empty in version 1)."""

    nodes: int
    relationships: int
    truncated: bool
    state: str = ""


class ExportStream:
    """An export being read: iterate for its record batches as the stream has them (one dense union column
    ``element``, a struct child per group of nodes or relationships: docs/wire-format.md section 7), or give each to
    :meth:`split`; the :attr:`summary` is there once the iteration ended. Use as a context manager, or call
    :meth:`close`.

    Raises :class:`ExportFailedError` at the error record, :class:`TruncatedStreamError` if the stream ends without
    a closing record; never ends quietly on an incomplete export.
    """

    def __init__(self, body: BinaryIO, progress: bool = False) -> None:
        self._body = body
        try:
            self._reader = pa.ipc.open_stream(body)
        except (pa.ArrowInvalid, OSError) as e:
            body.close()
            raise TruncatedStreamError(f"not an arrow export stream: {e}") from e
        meta = {k.decode(): v.decode() for k, v in (self._reader.schema.metadata or {}).items()}
        try:
            self.header = Header(meta["subgraph.database"], meta["subgraph.root"], meta["subgraph.node_id_prefix"],
                                 meta["subgraph.relationship_id_prefix"], int(meta["subgraph.version"]),
                                 meta.get("subgraph.state", ""), int(meta.get("subgraph.partition", 0)),
                                 int(meta.get("subgraph.partitions", 1)))
        except KeyError as e:
            body.close()
            raise TruncatedStreamError(f"the schema has no subgraph header metadata ({e})") from e
        self.schema: pa.Schema = self._reader.schema
        self.summary: Optional[Summary] = None
        self._rows = 0
        self._bar = _progress_bar() if progress else None

    def __enter__(self) -> "ExportStream":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Closes the connection (an export not read to its end is abandoned: the server stops)."""
        if self._bar is not None:
            self._bar.close()
        self._body.close()

    def __iter__(self) -> Iterator[pa.RecordBatch]:
        while True:
            try:
                batch, meta = self._reader.read_next_batch_with_custom_metadata()
            except StopIteration:
                raise TruncatedStreamError(
                    f"the stream ended without its end record after {self._rows} rows: the export is incomplete"
                ) from None
            except (pa.ArrowInvalid, OSError) as e:
                raise TruncatedStreamError(f"the stream broke off after {self._rows} rows: {e}") from e
            if meta is not None and b"subgraph.record" in meta:
                record = meta[b"subgraph.record"].decode()
                if record == "error":
                    raise ExportFailedError(meta[b"subgraph.code"].decode(), meta[b"subgraph.message"].decode())
                self.summary = Summary(int(meta[b"subgraph.nodes"]), int(meta[b"subgraph.relationships"]),
                                       meta[b"subgraph.truncated"] == b"true",
                                       meta.get(b"subgraph.state", b"").decode())
                self._check_eos()
                return
            self._rows += batch.num_rows
            if self._bar is not None:
                self._bar.update(batch.num_rows)
            yield batch

    def _check_eos(self) -> None:
        try:
            self._reader.read_next_batch()
        except StopIteration:
            return
        except (pa.ArrowInvalid, OSError) as e:
            raise TruncatedStreamError(f"the stream broke off after its end record: {e}") from e
        raise TruncatedStreamError("record batches after the end record")

    def split(self, batch: Union[pa.RecordBatch, pa.Table]) -> Tuple[pa.Table, pa.Table]:
        """The nodes and the relationships of ``batch`` (or of a table of batches), as :class:`Export` has them."""
        return split(pa.Table.from_batches([batch]) if isinstance(batch, pa.RecordBatch) else batch, self.header)

    def read(self) -> "Export":
        """Reads the whole stream into an :class:`Export`, then closes it. Each batch is split as it arrives, while
        the server makes the next one."""
        with self:
            by_group = {kind: [[t] for t in tables] for kind, tables in _groups(self.schema, [], self.header).items()}
            for batch in self:
                if batch.num_rows:
                    for kind, tables in _groups(self.schema, [batch.column(0)], self.header).items():
                        for group, t in zip(by_group[kind], tables):
                            group.append(t)
            assert self.summary is not None
            nodes, relationships = (_combine([t for group in by_group[kind] for t in group], self.schema.metadata,
                                             kind) for kind in (b"node", b"relationship"))
            if nodes.num_rows != self.summary.nodes or relationships.num_rows != self.summary.relationships:
                raise TruncatedStreamError(
                    f"the end record counts {self.summary.nodes} nodes and {self.summary.relationships} relationships,"
                    f" the stream held {nodes.num_rows} and {relationships.num_rows}")
            return Export(self.header, self.summary, nodes, relationships)


@dataclass
class Export:
    """A complete export: ``nodes`` and ``relationships`` as pyarrow Tables.

    Nodes: ``element_id`` (string), ``id`` (the numeric part), ``labels`` (list of dictionary strings), one column
    per property key, ``extra_properties``. Relationships: ``element_id``, ``id``, ``type``, ``source``, ``target``
    (numeric node ids), ``source_element_id``, ``target_element_id``, properties, ``extra_properties``.
    Rows come grouped as the stream has them: nodes by label set, relationships by type (groups in order of first
    appearance, the catch-all groups first), in walk order within a group. A property column is named by its key;
    a key with values of several types has a column per type, the later ones named ``key:type`` (``value:long``),
    as does a key named like a fixed column (``id:long``); the field metadata ``subgraph.key`` and
    ``subgraph.type`` say which. ``extra_properties`` holds, as a JSON object in the json format's value encoding,
    every property no column holds (docs/wire-format.md section 7); null where there is none.
    """

    header: Header
    summary: Summary
    nodes: pa.Table
    relationships: pa.Table

    @property
    def state(self) -> str:
        """The store state the export read (``Subgraph-Export-State``; the header's ``state``): pass it as ``state=``
        to :func:`open_traverse` to read more of exactly this state, or compare it to a later export's."""
        return self.header.state

    def to_pandas(self, **kwargs: Any) -> Tuple[Any, Any]:
        """``(nodes, relationships)`` as pandas DataFrames, every value exact: dates as ``datetime64[ms]``
        (``date_as_object=False``: Python's ``date`` stops at the years 1 and 9999), local times as timedeltas since
        midnight, UUIDs as 16 ``bytes``; lists (``labels``, array properties) and structs (points, date-times,
        durations) stay Arrow-backed (``pandas.ArrowDtype``: no Python object per row; an element is a Python list
        or dict, ``.list`` and ``.struct`` accessors work on the column). ``kwargs`` go to
        ``pyarrow.Table.to_pandas`` and override these (``types_mapper=None``: lists as object arrays, structs as
        dicts, about 5x slower)."""
        options = {"date_as_object": False, "types_mapper": _nested_as_arrow, **kwargs}
        return _storage(self.nodes).to_pandas(**options), _storage(self.relationships).to_pandas(**options)

    def to_polars(self) -> Tuple[Any, Any]:
        """``(nodes, relationships)`` as polars DataFrames (UUIDs as 16-byte binary, local times as durations)."""
        import polars as pl

        return pl.from_arrow(_storage(self.nodes)), pl.from_arrow(_storage(self.relationships))

    def to_networkx(self) -> Any:
        """A ``networkx.MultiDiGraph``: nodes keyed by element id with ``labels`` and the properties as attributes,
        edges keyed by relationship element id with ``type`` and the properties. Properties are Python values
        (``as_py``); those in ``extra_properties`` stay in their json-format encoding (tagged values). A date or
        time Python cannot represent (years beyond 1..9999, nanoseconds of a local time) raises ExportError."""
        import networkx as nx

        g = nx.MultiDiGraph()
        g.graph.update(database=self.header.database, root=self.header.root)
        g.add_nodes_from(zip(self.nodes.column("element_id").to_pylist(), _attributes(self.nodes, ("labels",))))
        rels = self.relationships
        g.add_edges_from(zip(rels.column("source_element_id").to_pylist(), rels.column("target_element_id").to_pylist(),
                             rels.column("element_id").to_pylist(), _attributes(rels, ("type",))))
        return g

    def to_pyg(self, *, group_by: Union[None, str, Sequence[str]] = None, features: Optional[Mapping[Any, Any]] = None,
               homogeneous: bool = False, relationship_types: Optional[Sequence[str]] = None,
               separator: str = "_") -> Any:
        """A ``torch_geometric.data.HeteroData``: a node type per label set (labels sorted, joined by ``separator``;
        or per label of ``group_by``), an edge
        type per (source type, relationship type, target type), ``element_id`` in every store, numeric and boolean
        properties as tensors and ``x`` / ``edge_attr`` side by side; ``homogeneous=True``: a ``Data`` with node and
        edge type ids. Needs torch and torch_geometric (``pip install 'subgraph-export[ml]'``); see
        :func:`subgraph_export.ml.to_pyg` for every rule."""
        from .ml import to_pyg

        return to_pyg(self, group_by=group_by, features=features, homogeneous=homogeneous,
                      relationship_types=relationship_types, separator=separator)

    def to_scipy(self, *, weight: Optional[str] = None, relationship_types: Optional[Sequence[str]] = None,
                 separator: str = "_") -> Any:
        """``(matrix, element_id)``: the adjacency as a ``scipy.sparse.csr_array`` (row = source, column = target,
        relationships counted, or ``weight`` summed) and the element id of the node at each index. Needs scipy
        (``pip install 'subgraph-export[scipy]'``); see :func:`subgraph_export.ml.to_scipy`."""
        from .ml import to_scipy

        return to_scipy(self, weight=weight, relationship_types=relationship_types, separator=separator)


def split(table: Union[pa.Table, pa.RecordBatch], header: Header) -> Tuple[pa.Table, pa.Table]:
    """The nodes table and the relationships table (see :class:`Export`) of a stream's batches: each group (a
    struct child of the ``element`` union, holding only its own rows) becomes a table, without copying; the groups
    of a kind are concatenated, a column a group lacks filled with nulls."""
    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    parts = _groups(table.schema, [c for c in table.column(0).chunks if len(c)], header)
    return (_combine(parts[b"node"], table.schema.metadata, b"node"),
            _combine(parts[b"relationship"], table.schema.metadata, b"relationship"))


def _groups(schema: pa.Schema, chunks: List[pa.Array], header: Header) -> Dict[bytes, List[pa.Table]]:
    """Each group of the stream's union arrays ``chunks`` as a table of its own rows (no copy), with its element id
    columns, by kind. (Empty arrays are left out by the callers: pyarrow reads them with null buffers.)"""
    union = schema.field(0).type
    parts: Dict[bytes, List[pa.Table]] = {b"node": [], b"relationship": []}
    for i in range(union.num_fields):
        group = union.field(i)
        kind = group.metadata[b"subgraph.kind"]
        part = pa.Table.from_batches([pa.RecordBatch.from_struct_array(c.field(i)) for c in chunks],
                                     schema=pa.schema(list(group.type)))
        if kind == b"node":
            derived = {"element_id": _element_ids(header.node_id_prefix, part.column("id"))}
        else:
            derived = {"element_id": _element_ids(header.relationship_id_prefix, part.column("id")),
                       "source_element_id": _element_ids(header.node_id_prefix, part.column("source")),
                       "target_element_id": _element_ids(header.node_id_prefix, part.column("target"))}
        for name, column in derived.items():
            part = part.append_column(pa.field(name, pa.string(), nullable=False), column)
        parts[kind].append(part)
    return parts


def _combine(parts: List[pa.Table], metadata: Any, kind: bytes) -> pa.Table:
    """The groups of one kind as one table: the fixed columns (with the element ids), the property columns in order
    of first appearance, ``extra_properties`` last."""
    fixed = NODE_COLUMNS if kind == b"node" else RELATIONSHIP_COLUMNS
    combined = pa.concat_tables(parts, promote_options="default")
    properties = [n for n in combined.column_names if n not in fixed and n != EXTRA]
    return combined.select([*fixed, *properties, EXTRA]).replace_schema_metadata(metadata)


def _element_ids(prefix: str, ids: pa.ChunkedArray) -> pa.ChunkedArray:
    return pc.utf8_replace_slice(pc.cast(ids, pa.string()), 0, 0, prefix)  # the prefix inserted: ~2x a join


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
        return column.to_pylist()
    except (OverflowError, ValueError) as e:
        raise ExportError(f"property {name!r} holds values Python's datetime types cannot hold ({e}); "
                          "to_pandas() and to_polars() keep them") from e


def _nested_as_arrow(t: pa.DataType) -> Any:
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


def _replace(t: pa.DataType, swap: Any) -> pa.DataType:
    """``t`` with every type for which ``swap`` gives a replacement replaced, at any depth."""
    replacement = swap(t)
    if replacement is not None:
        return replacement
    if pa.types.is_list(t):
        return pa.list_(t.value_field.with_type(_replace(t.value_type, swap)))
    if pa.types.is_struct(t):
        return pa.struct([t.field(i).with_type(_replace(t.field(i).type, swap)) for i in range(t.num_fields)])
    return t


def _progress_bar() -> Any:
    try:
        from tqdm import tqdm
    except ImportError as e:
        raise ImportError("progress bars need tqdm: pip install 'subgraph-export[progress]'") from e
    return tqdm(unit=" rows", unit_scale=True, desc="export")


# ---- HTTP --------------------------------------------------------------------------------------------------------


def _open(url: str, data: Optional[bytes], auth: Auth, http_timeout: Optional[float],
          busy_wait: float = BUSY_WAIT) -> BinaryIO:
    """Sends the request; a busy server's ``503`` with ``Retry-After`` (``Export.ServerBusy``) is sent again after the
    seconds it names plus up to a quarter more (jitter), while the waits add up to at most ``busy_wait`` seconds (0:
    never). Any other refusal, or the last 503, raises :class:`ExportRequestError`."""
    headers = {"Accept": MEDIA_TYPE}
    if data is not None:
        headers["Content-Type"] = "application/json"
    if auth is not None:
        token = base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode("ascii")
        headers["Authorization"] = "Basic " + token
    request = urllib.request.Request(url, data=data, headers=headers, method="POST" if data is not None else "GET")
    waited = 0.0
    while True:
        try:
            response = urllib.request.urlopen(request, timeout=http_timeout)
            break
        except urllib.error.HTTPError as e:
            body = e.read(64 * 1024)
            e.close()
            after = _retry_after(e.headers.get("Retry-After")) if e.code == 503 else None
            if after is not None:
                wait = max(0.1, after)
                wait += random.uniform(0, wait / 4)
                if waited + wait <= busy_wait:
                    time.sleep(wait)
                    waited += wait
                    continue
            raise _refused(e.code, body, e.headers.get(STATE_HEADER) or "") from None
    content_type = response.headers.get("Content-Type", "")
    if not content_type.startswith(MEDIA_TYPE):
        response.close()
        raise ExportError(f"expected {MEDIA_TYPE}, the server answered {content_type!r}")
    return response


def _retry_after(value: Optional[str]) -> Optional[float]:
    """Seconds to wait from a ``Retry-After`` value (delay-seconds or an HTTP-date), or None if there is none."""
    value = (value or "").strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, (when - datetime.datetime.now(datetime.timezone.utc)).total_seconds())


def _refused(status: int, body: bytes, state: str = "") -> ExportRequestError:
    try:
        error = json.loads(body)
        return ExportRequestError(status, str(error.get("code", "")), str(error.get("message", "")), state)
    except (ValueError, AttributeError):
        return ExportRequestError(status, "", body.decode("utf-8", "replace")[:1000], state)


def _endpoint(url: str, mount: str, path: str, query: Mapping[str, Any]) -> str:
    params = {k: v for k, v in query.items() if v is not None}
    base = url.rstrip("/") + "/" + mount.strip("/") + "/arrow/" + path
    return base + ("?" + urllib.parse.urlencode(params) if params else "")


def _relationships(spec: Union[None, str, Sequence[str]]) -> Optional[str]:
    return spec if spec is None or isinstance(spec, str) else "|".join(spec)


def _value(value: Any) -> Optional[str]:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value)  # 42 -> long, 4.2 -> double, true -> boolean: the server reads JSON literals


def open_traverse(url: str, root: Optional[str] = None, *, label: Optional[str] = None, key: Optional[str] = None,
                  value: Any = None, expand: Union[None, str, Sequence[str]] = None,
                  attach: Union[None, str, Sequence[str]] = None, max_depth: Optional[int] = None,
                  limit: Optional[int] = None, db: Optional[str] = None, timeout: Optional[str] = None,
                  auth: Auth = None, http_timeout: Optional[float] = None, progress: bool = False,
                  mount: str = "/extension", busy_wait: float = BUSY_WAIT, partitions: Optional[int] = None,
                  partition: Optional[int] = None, state: Optional[str] = None) -> ExportStream:
    """Starts a traverse export and returns the open :class:`ExportStream` (see :func:`traverse`). ``partitions``
    and ``partition`` ask for partition i of N only, ``state`` pins the store state (a ``412`` if the database moved
    on): the raw requests that :func:`traverse` with ``partitions=N`` makes (docs/wire-format.md section 1.3)."""
    endpoint = _traverse_endpoint(url, root, label=label, key=key, value=value, expand=expand, attach=attach,
                                  max_depth=max_depth, limit=limit, db=db, timeout=timeout, mount=mount,
                                  partitions=partitions, partition=partition, state=state)
    return ExportStream(_open(endpoint, None, auth, http_timeout, busy_wait), progress)


def _traverse_endpoint(url: str, root: Optional[str], *, label: Optional[str] = None, key: Optional[str] = None,
                       value: Any = None, expand: Union[None, str, Sequence[str]] = None,
                       attach: Union[None, str, Sequence[str]] = None, max_depth: Optional[int] = None,
                       limit: Optional[int] = None, db: Optional[str] = None, timeout: Optional[str] = None,
                       mount: str = "/extension", partitions: Optional[int] = None, partition: Optional[int] = None,
                       state: Optional[str] = None) -> str:
    """The URL of a traverse export (:func:`open_traverse`'s parameters)."""
    query = {"root": root, "label": label, "key": key, "value": _value(value), "expand": _relationships(expand),
             "attach": _relationships(attach), "maxDepth": max_depth, "limit": limit, "db": db, "timeout": timeout,
             "partitions": partitions, "partition": partition, "state": state}
    return _endpoint(url, mount, "traverse", query)


def traverse(url: str, root: Optional[str] = None, *, partitions: Optional[int] = None,
             concurrency: Optional[int] = None, attempts: int = 3, on_state_change: str = "restart",
             max_restarts: int = 2, **kwargs: Any) -> Export:
    """Exports the subgraph under a root node (``GET {url}/extension/arrow/traverse``) into an :class:`Export`.

    ``url`` is the server's HTTP address (``http://localhost:7474``). The root is ``root`` (an element id) or the
    node with ``label`` whose property ``key`` equals ``value``. ``expand`` and ``attach`` are relationship types
    (``"CHILDREN>"``, ``"<PARENT"``, ``"KNOWS"``; a list or ``|``-joined), ``max_depth`` and ``limit`` bound the
    walk, ``db`` names the database, ``timeout`` is the server's time budget (``"30s"``). ``auth`` is
    ``(user, password)``; ``http_timeout`` the socket timeout in seconds; ``progress=True`` shows a tqdm bar.
    A busy server (``503`` with ``Retry-After``, ``Export.ServerBusy``) is asked again after the seconds it names,
    for up to ``busy_wait`` seconds of waiting in all (default 30; 0 never waits).

    ``partitions=N`` reads the export as N partitions (``partitions=N&partition=i``), ``concurrency`` at a time (default
    ``min(N, 4)``), into tables equal to the single stream's; a cut or failed partition is fetched again alone, up to
    ``attempts`` times in all; every partition is pinned to the state the first one read, and when the database moves
    on ``on_state_change="restart"`` reads every partition again at the new state (at most ``max_restarts`` times)
    and ``"fail"`` raises :class:`StateChangedError`. See :func:`subgraph_export.read_partitioned` and the README's
    "Partitioned exports". Without ``partitions`` nothing is retried (but a busy server's 503, see ``busy_wait``).

    Raises :class:`ExportRequestError` (refused: status and code), :class:`ExportFailedError` (the stream's error
    record), :class:`TruncatedStreamError` (cut off); with ``partitions`` also :class:`PartitionFailedError` and
    :class:`StateChangedError`.
    """
    if partitions is None:
        return open_traverse(url, root, **kwargs).read()
    from ._partitions import read_partitioned

    return read_partitioned(url, root, partitions, concurrency=concurrency, attempts=attempts,
                            on_state_change=on_state_change, max_restarts=max_restarts, **kwargs)


def open_cypher(url: str, query: str, params: Optional[Mapping[str, Any]] = None, *, db: Optional[str] = None,
                timeout: Optional[str] = None, auth: Auth = None, http_timeout: Optional[float] = None,
                progress: bool = False, mount: str = "/extension", busy_wait: float = BUSY_WAIT) -> ExportStream:
    """Starts a Cypher graph export and returns the open :class:`ExportStream` (see :func:`cypher`)."""
    body = json.dumps({"query": query, "params": dict(params or {})}).encode("utf-8")
    endpoint = _endpoint(url, mount, "cypher", {"db": db, "timeout": timeout})
    return ExportStream(_open(endpoint, body, auth, http_timeout, busy_wait), progress)


def cypher(url: str, query: str, params: Optional[Mapping[str, Any]] = None, **kwargs: Any) -> Export:
    """Exports every node and relationship in a read-only Cypher query's result (``POST …/arrow/cypher``), each
    once, into an :class:`Export`. ``params`` are the query parameters (JSON: integers are longs). Other keywords
    and errors as :func:`traverse`."""
    return open_cypher(url, query, params, **kwargs).read()


def read_stream(body: BinaryIO, progress: bool = False) -> Export:
    """Reads an arrow export stream from a file or any binary stream (a saved response body) into an Export."""
    return ExportStream(body, progress).read()
