"""Delta exports (``since=``, docs/wire-format.md section 1.4): a delta stream applied to the tables of the export it
is relative to, and :meth:`Export.refresh`, which asks for one and falls back to the whole export."""

from __future__ import annotations

import urllib.parse
from typing import Dict, List, Tuple

import pyarrow as pa
import pyarrow.compute as pc

from ._errors import ExportError, ExportFailedError, ExportRequestError
from ._export import Delta, Export, Header, Summary
from ._http import _open
from ._stream import ExportStream
from ._tables import EXTRA, NODE_COLUMNS, RELATIONSHIP_COLUMNS

UNAVAILABLE = "Export.DeltaUnavailable"
TRANSIENT = "Neo.TransientError."
ATTEMPTS = 3
"""Deltas read again when a commit fell inside one (end state differs from header state), then whole exports."""


def refresh(export: Export) -> Export:
    """See :meth:`Export.refresh`."""
    source = export.source
    if source is None:
        raise ExportError("this export was not read by traverse() as one stream: it cannot be refreshed")
    if export.state:
        since = urllib.parse.urlencode({"since": export.state})
        url = source.endpoint + ("&" if "?" in source.endpoint else "?") + since
        for _ in range(ATTEMPTS):
            try:
                delta = ExportStream(_open(url, None, source.auth, source.http_timeout, source.busy_wait)).read_delta()
            except ExportFailedError as e:
                if e.code.startswith(TRANSIENT):  # e.g. a read that met a concurrent write: read again
                    continue
                if e.code != UNAVAILABLE:
                    raise
                break
            except ExportRequestError as e:
                if e.code != UNAVAILABLE:
                    raise
                break
            if delta.summary.state == delta.header.state:
                return apply(export, delta)
    whole = None
    for attempt in range(ATTEMPTS):
        stream = ExportStream(_open(source.endpoint, None, source.auth, source.http_timeout, source.busy_wait))
        stream.source = source
        try:
            whole = stream.read()
        except ExportFailedError as e:
            if not e.code.startswith(TRANSIENT) or attempt == ATTEMPTS - 1:
                raise
            continue
        if whole.summary.state == whole.header.state:
            return whole
    assert whole is not None
    # commits fell inside every read: not the export of one state, so it cannot be the base of a delta
    return Export(Header(**{**whole.header.__dict__, "state": ""}), whole.summary, whole.nodes, whole.relationships,
                  source)


def apply(base: Export, delta: Delta) -> Export:
    """``base`` with ``delta`` applied: rows whose element id left or came again dropped, the delta's rows appended
    (its property columns matched to ``base``'s by key and type, the field metadata ``subgraph.key`` and
    ``subgraph.type``). The header and summary are the delta's state; the summary counts the result's rows."""
    if delta.header.since != base.header.state:
        raise ExportError(f"a delta since {delta.header.since} does not apply to an export of state "
                          f"{base.header.state}")
    nodes = _apply(base.nodes, delta.nodes, delta.left_nodes, NODE_COLUMNS)
    relationships = _apply(base.relationships, delta.relationships, delta.left_relationships, RELATIONSHIP_COLUMNS)
    missing = pc.invert(pc.and_(pc.is_in(relationships.column("source_element_id"), nodes.column("element_id")),
                                pc.is_in(relationships.column("target_element_id"), nodes.column("element_id"))))
    if relationships.num_rows and pc.any(missing).as_py():
        raise ExportError("after the delta, a relationship lacks an end node: the delta does not fit this export")
    header = Header(**{**delta.header.__dict__, "since": ""})
    summary = Summary(nodes.num_rows, relationships.num_rows, delta.summary.truncated, delta.summary.state)
    return Export(header, summary, nodes, relationships, base.source)


def _apply(base: pa.Table, joined: pa.Table, left: pa.ChunkedArray, fixed: Tuple[str, ...]) -> pa.Table:
    gone = pa.chunked_array(list(left.chunks) + list(joined.column("element_id").chunks), type=pa.string())
    kept = base.filter(pc.invert(pc.is_in(base.column("element_id"), value_set=gone.combine_chunks())))
    if joined.num_rows == 0:
        return kept
    joined = _align(kept, joined, fixed)
    combined = pa.concat_tables([kept, joined], promote_options="permissive")
    properties = [n for n in combined.column_names if n not in fixed and n != EXTRA]
    return combined.select([*fixed, *properties, EXTRA]).replace_schema_metadata(base.schema.metadata)


def _align(base: pa.Table, joined: pa.Table, fixed: Tuple[str, ...]) -> pa.Table:
    """``joined`` with its property columns named as ``base`` names the same (key, type); a (key, type) ``base`` lacks
    keeps its name unless ``base`` uses that name for another type: then ``key:type``."""
    by_key: Dict[Tuple[bytes, bytes], str] = {}
    for f in base.schema:
        if f.metadata and b"subgraph.key" in f.metadata:
            by_key[(f.metadata[b"subgraph.key"], f.metadata.get(b"subgraph.type", b""))] = f.name
    taken = set(base.column_names)
    names: List[str] = []
    for f in joined.schema:
        name = f.name
        if f.name not in fixed and f.name != EXTRA and f.metadata and b"subgraph.key" in f.metadata:
            kt = (f.metadata[b"subgraph.key"], f.metadata.get(b"subgraph.type", b""))
            if kt in by_key:
                name = by_key[kt]
            elif name in taken:
                name = kt[0].decode() + ":" + kt[1].decode()
        names.append(name)
    return joined.rename_columns(names)
