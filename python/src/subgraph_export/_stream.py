"""Reading an ``arrow`` export stream: its record batches as they arrive, checked for an error record and for the
closing record, and the whole stream read into an :class:`Export`."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any, BinaryIO, Iterator, Optional, Tuple, Union

import pyarrow as pa

from ._errors import ExportError, ExportFailedError, TruncatedStreamError
from ._export import Delta, Export, Header, Summary
from ._tables import LEFT, _combine, _groups, split

if TYPE_CHECKING:  # pragma: no cover
    from tqdm import tqdm


class ExportStream:
    """An export being read: iterate for its record batches as the stream has them (one dense union column
    ``element``, a struct child per group of nodes or relationships: docs/wire-format.md section 7), or give each to
    :meth:`split`; the :attr:`summary` is there once the iteration ended. Use as a context manager, or call
    :meth:`close`.

    Raises :class:`ExportFailedError` at the error record, :class:`TruncatedStreamError` if the stream ends without
    a closing record; never ends quietly on an incomplete export.
    """

    def __init__(self, body: Union[BinaryIO, io.RawIOBase], progress: bool = False) -> None:
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
                                 int(meta.get("subgraph.partitions", 1)), meta.get("subgraph.since", ""))
        except KeyError as e:
            body.close()
            raise TruncatedStreamError(f"the schema has no subgraph header metadata ({e})") from e
        self.schema: pa.Schema = self._reader.schema
        self.summary: Optional[Summary] = None
        self.source: Optional[Any] = None  # what Export.refresh asks again (set by open_traverse)
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
        the server makes the next one. A delta stream is read by :meth:`read_delta`."""
        if self.header.since:
            self.close()
            raise ExportError("a delta stream (since=): read it with read_delta(), or use Export.refresh()")
        export, _ = self._read()
        return export

    def read_delta(self) -> "Delta":
        """Reads a whole delta stream (docs/wire-format.md section 1.4), then closes it: the nodes and relationships
        that joined or changed, as an Export's tables, and the element ids of those that left."""
        if not self.header.since:
            self.close()
            raise ExportError("not a delta stream: its header names no since")
        export, left = self._read()
        return Delta(export.header, export.summary, export.nodes, export.relationships, left[0], left[1])

    def _read(self) -> "Tuple[Export, Tuple[pa.ChunkedArray, pa.ChunkedArray]]":
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
            left = tuple(pa.chunked_array([t.column("element_id") for group in by_group.get(kind, []) for t in group],
                                          type=pa.string()) for kind in LEFT)
            return Export(self.header, self.summary, nodes, relationships, self.source), (left[0], left[1])


def read_stream(body: BinaryIO, progress: bool = False) -> Export:
    """Reads an arrow export stream from a file or any binary stream (a saved response body) into an Export."""
    return ExportStream(body, progress).read()


def _progress_bar() -> tqdm[Any]:
    try:
        from tqdm import tqdm
    except ImportError as e:
        raise ImportError("progress bars need tqdm: pip install 'subgraph-export[progress]'") from e
    return tqdm(unit=" rows", unit_scale=True, desc="export")
