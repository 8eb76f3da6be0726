"""One export read as N partitions at once (docs/wire-format.md section 1.3): pinned to one store state, each
partition fetched again alone when it is cut or fails, and the partitions joined into the single stream's tables."""

from __future__ import annotations

import http.client
import io
import json
import random
import re
import threading
import time
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Set, Tuple, cast

import pyarrow as pa
import pyarrow.compute as pc

from ._endpoints import _traverse_endpoint
from ._errors import ExportError, ExportFailedError, ExportRequestError, TruncatedStreamError
from ._export import Export, Header, Summary
from ._http import BUSY_WAIT, _open
from ._stream import ExportStream
from ._tables import EXTRA, NODE_COLUMNS, RELATIONSHIP_COLUMNS, _groups

BLOCK = 256
"""Records per block: record k of the whole export is in partition (k // BLOCK) % N (``Wire.PARTITION_BLOCK``)."""
STATE_CHANGED = "Export.StateChanged"
SERVER_BUSY = "Export.ServerBusy"
RESTART, FAIL = "restart", "fail"
_K = "__k"  # a row's place in the whole export's record sequence, while the partitions are joined
_RANK = "__rank"
# the names the server's writer takes before any property's, per kind (ArrowGraphWriter.ColumnNames): the fixed
# columns, the element ids the readers derive, extra_properties
_TAKEN = {b"node": (*NODE_COLUMNS, EXTRA), b"relationship": (*RELATIONSHIP_COLUMNS, EXTRA)}
_FIXED = {b"node": NODE_COLUMNS, b"relationship": RELATIONSHIP_COLUMNS}


class StateChangedError(ExportError):
    """The database moved on (a transaction committed) while the partitions of one export were read, so they
    would not be one export: ``expected`` is the state the first partition read, ``actual`` the state the server
    named instead (empty if it named none). ``restarts``: how many times the export had been started over."""

    def __init__(self, expected: str, actual: str, restarts: int = 0) -> None:
        again = f" (after {restarts} restart{'s' if restarts != 1 else ''})" if restarts else ""
        super().__init__(f"{STATE_CHANGED}: the database moved on from state {expected} to {actual or 'another'}"
                         f" while the partitions were read{again}; read the export again")
        self.expected = expected
        self.actual = actual
        self.restarts = restarts

    def __reduce__(self) -> Any:  # a worker's error, as a Dask or Spark worker sends it back
        return StateChangedError, (self.expected, self.actual, self.restarts)


class PartitionFailedError(ExportError):
    """One partition failed every one of its ``attempts`` (cut off, refused with 5xx, a transient error record);
    ``errors`` holds each attempt's error, the last one is also the ``__cause__``."""

    def __init__(self, partition: int, partitions: int, errors: List[BaseException]) -> None:
        super().__init__(f"partition {partition} of {partitions} failed {len(errors)} time"
                         f"{'s' if len(errors) != 1 else ''}, giving up; last: {errors[-1]}")
        self.partition = partition
        self.partitions = partitions
        self.attempts = len(errors)
        self.errors = errors

    def __reduce__(self) -> Any:
        return PartitionFailedError, (self.partition, self.partitions, self.errors)


class _Changed(Exception):
    def __init__(self, expected: str, actual: str) -> None:
        super().__init__(expected, actual)
        self.expected, self.actual = expected, actual


class _Aborted(Exception):
    """Another partition failed: this one stops."""


@dataclass
class _Part:
    """One partition as read: per kind, its groups' tables (with the ``__k`` column) by group name; the (key, type)
    property columns in the order its writer named them, with its names and the record where each first holds a
    value."""

    header: Header
    summary: Summary
    metadata: Any
    groups: Dict[bytes, List[Tuple[str, pa.Table]]] = field(default_factory=dict)
    columns: Dict[bytes, List[Tuple[Tuple[str, str], str, pa.Field, Optional[int]]]] = field(default_factory=dict)


def read_partitioned(url: str, root: Optional[str], partitions: int, *, concurrency: Optional[int] = None,
                     attempts: int = 3, on_state_change: str = RESTART, max_restarts: int = 2,
                     progress: bool = False, **kwargs: Any) -> Export:
    """Reads a traverse export as ``partitions`` partitions, ``concurrency`` at a time (threads; default
    ``min(partitions, 4)``), into one :class:`Export` equal to the single stream's (see the README, "Partitioned
    exports"). ``kwargs`` are :func:`open_traverse`'s (root, walk, auth, ``busy_wait`` per request ...).

    The first partition's response fixes the store state; the others are requested with ``state=`` it. A partition
    cut off or failing (:class:`TruncatedStreamError`, a connection error, a 5xx status, an error record with a
    ``TransientError`` code) is fetched again alone, read whole again, up to ``attempts`` requests in all, the other
    partitions kept; then :class:`PartitionFailedError`. Other refusals and error records raise at once. When the
    database moved on (412 or the error record ``Export.StateChanged``, or a partition ending in another state than
    it began), ``on_state_change="restart"`` starts every partition over at the new state, at most ``max_restarts``
    times, then raises :class:`StateChangedError`; ``"fail"`` raises it at once. ``progress=True`` shows a tqdm bar
    of the bytes read and the partitions done.
    """
    if not isinstance(partitions, int) or partitions < 1:
        raise ValueError(f"partitions must be an integer >= 1, got {partitions!r}")
    _check_retries(attempts, on_state_change, max_restarts)
    workers = min(partitions, concurrency if concurrency is not None else 4)
    if workers < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency!r}")
    for name in ("partition", "partitions", "state"):
        if name in kwargs:
            raise TypeError(f"read_partitioned() sets {name}= itself")
    _traverse_endpoint(url, root, **{k: v for k, v in kwargs.items()
                                     if k not in ("auth", "http_timeout", "busy_wait")})  # unknown keywords: TypeError
    bar = _Progress(partitions) if progress else None
    try:
        restarts = 0
        while True:
            try:
                return _Round(url, root, partitions, workers, attempts, kwargs, bar).run()
            except _Changed as changed:
                if on_state_change == FAIL or restarts == max_restarts:
                    raise StateChangedError(changed.expected, changed.actual, restarts) from None
                restarts += 1
    finally:
        if bar is not None:
            bar.close()


class _Round:
    """One try at every partition, at one state."""

    def __init__(self, url: str, root: Optional[str], partitions: int, workers: int, attempts: int,
                 kwargs: Dict[str, Any], bar: Optional["_Progress"]) -> None:
        self.url, self.root, self.n, self.workers, self.attempts = url, root, partitions, workers, attempts
        self.bar = bar
        connection = dict(kwargs)
        self.auth = connection.pop("auth", None)
        self.http_timeout = connection.pop("http_timeout", None)
        self.busy_wait = connection.pop("busy_wait", BUSY_WAIT)
        self.query = connection  # the walk: label, key, value, expand, ... (checked by _traverse_endpoint's signature)
        self.aborted = threading.Event()
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)  # a partition's response ended, or the round was aborted
        self.open: Set[ExportStream] = set()  # the partitions' responses being read
        self.finished = 0  # responses read to their end (or failed)
        self.ended = float("-inf")  # when the last one did (time.monotonic())
        if bar is not None:
            bar.start_round()

    def run(self) -> Export:
        errors: List[BaseException] = []
        first = self._open(0, None, errors)  # its state pins the others
        state = first.header.state
        with ThreadPoolExecutor(self.workers, thread_name_prefix="subgraph-export-partition") as pool:
            futures = [pool.submit(self._fetch, 0, state, first, errors)]
            futures += [pool.submit(self._fetch, i, state, None, []) for i in range(1, self.n)]
            wait(futures, return_when=FIRST_EXCEPTION)
            failed = [f.exception() for f in futures if f.done() and f.exception() is not None]
            if failed:
                self.aborted.set()
                for f in futures:
                    f.cancel()
                with self.lock:
                    for stream in self.open:
                        stream.close()  # the reading thread sees an error and stops
                    self.changed.notify_all()
                wait(futures)
                changed = [e for e in failed if isinstance(e, _Changed)]
                raise changed[0] if changed else cast("BaseException", failed[0])
            parts = [f.result() for f in futures]
        return _join(parts, state)

    def _open(self, i: int, state: Optional[str], errors: List[BaseException]) -> ExportStream:
        """Partition i's response, asked for again while it is refused with 5xx or unreachable."""
        while True:
            if self.aborted.is_set():
                raise _Aborted()
            try:
                stream = self._request(i, state)
            except ExportRequestError as e:
                if e.code == STATE_CHANGED and state:
                    raise _Changed(state, e.state or _moved_to(e.message)) from None
                if e.status < 500:
                    raise
                self._failed(i, errors, e)
                continue
            except (TruncatedStreamError, OSError, http.client.HTTPException) as e:  # URLError is an OSError
                self._failed(i, errors, e)
                continue
            h = stream.header
            if (h.partition, h.partitions) != (i, self.n):
                stream.close()
                raise ExportError(f"asked for partition {i} of {self.n}, the server sent {h.partition} of "
                                  f"{h.partitions}: it does not partition exports (wire format version {h.version})")
            if state is not None and h.state != state:
                stream.close()
                raise _Changed(state, h.state)
            with self.lock:
                self.open.add(stream)
            if self.aborted.is_set():
                stream.close()
                raise _Aborted()
            return stream

    def _request(self, i: int, state: Optional[str]) -> ExportStream:
        """Sends the request for partition i (pinned to ``state``): the response, read as an ExportStream.

        A busy answer (503 ``Export.ServerBusy``) while other partitions of this export stream, or right after one
        ended, is most likely the server's bound on the partitions of one export streaming at once
        (``max_partitions_streaming``, by default its processors): the request goes again as soon as one of them ends
        (the server frees its slot a moment after the last byte: then again after 50 ms, 100 ms ...), not after
        ``Retry-After``, and without counting against ``busy_wait``. Otherwise the busy answer is waited out as any.
        """
        url = _traverse_endpoint(self.url, self.root, partitions=self.n, partition=i, state=state or None,
                                 **self.query)
        pause = 0.05
        while True:
            with self.lock:
                mine, finished, ended = len(self.open), self.finished, self.ended
            recent = time.monotonic() - ended < 1.0
            try:
                body = _open(url, None, self.auth, self.http_timeout, 0 if mine or recent else self.busy_wait)
                break
            except ExportRequestError as e:
                if not ((mine or recent) and e.status == 503 and e.code == SERVER_BUSY):
                    raise
            timeout = pause if recent else 1.0
            pause = min(1.0, 2 * pause) if recent else 0.05
            with self.lock:
                self.changed.wait_for(lambda: self.finished > finished or self.aborted.is_set(),  # noqa: B023 (called here)
                                      timeout=timeout)
            if self.aborted.is_set():
                raise _Aborted()
        return ExportStream(body if self.bar is None else _Counting(body, self.bar))

    def _fetch(self, i: int, state: str, stream: Optional[ExportStream], errors: List[BaseException]) -> _Part:
        """Partition i read whole: fetched again (from its start) after a cut or a transient failure."""
        while True:
            current = stream if stream is not None else self._open(i, state, errors)
            stream = None
            try:
                part = _read(current, i, self.n, self.aborted)
            except ExportFailedError as e:
                if self.aborted.is_set():
                    raise _Aborted() from e
                if e.code == STATE_CHANGED:
                    raise _Changed(state, _moved_to(e.message)) from None
                if ".TransientError." not in e.code:
                    raise
                self._failed(i, errors, e)
                continue
            except (TruncatedStreamError, OSError, http.client.HTTPException) as e:
                if self.aborted.is_set():
                    raise _Aborted() from e
                self._failed(i, errors, e)
                continue
            except BaseException as e:
                if self.aborted.is_set():
                    raise _Aborted() from e  # a stream closed under the reader may fail in any way
                raise
            finally:
                with self.lock:
                    self.open.discard(current)
                    self.finished += 1
                    self.ended = time.monotonic()
                    self.changed.notify_all()
            if state and part.summary.state != state:  # only the first, unpinned request can end in another state
                raise _Changed(state, part.summary.state)
            if self.bar is not None:
                self.bar.partition_done()
            return part

    def _failed(self, i: int, errors: List[BaseException], e: BaseException) -> None:
        """Counts a failed attempt at partition i: raises PartitionFailedError after the last, else waits a little."""
        errors.append(e)
        if len(errors) >= self.attempts:
            raise PartitionFailedError(i, self.n, errors) from e
        if self.bar is not None:
            self.bar.retry()
        time.sleep(min(2.0, 0.1 * 2 ** (len(errors) - 1)) * random.uniform(1.0, 1.25))


def _moved_to(message: str) -> str:
    """The state a StateChanged message names as the database's new one (the server's wording), or ""."""
    found = re.search(r"(?:but in|to) ([0-9a-f-]{36}:\d+)", message)
    return found.group(1) if found else ""


def _read(stream: ExportStream, i: int, n: int, aborted: threading.Event) -> _Part:
    """Reads partition i of n whole; each group's rows get their place in the whole export (``__k``)."""
    with stream:
        schema, header = stream.schema, stream.header
        union = schema.field(0).type
        kinds = [union.field(c).metadata[b"subgraph.kind"] for c in range(union.num_fields)]
        # groups by name; the catch-alls (children 0 and 1) as "": a node group without labels is named "node" too
        names = ["" if c < 2 else union.field(c).name for c in range(union.num_fields)]
        children = {kind: [c for c in range(union.num_fields) if kinds[c] == kind] for kind in _FIXED}
        collected: Dict[bytes, List[Tuple[str, pa.Table]]] = {kind: [] for kind in _FIXED}
        for kind, tables in _groups(schema, [], header).items():  # every column, also of a kind without rows
            collected[kind] += [(names[c], t.append_column(_K, pa.array([], pa.int64())))
                                for c, t in zip(children[kind], tables)]
        first: Dict[str, Optional[int]] = {}
        base = 0
        for batch in stream:
            known = set(first)  # a column's first value in an earlier batch comes before any in this one
            if aborted.is_set():
                raise _Aborted()
            if not batch.num_rows:
                continue  # an empty union column has null buffers: never ask it for type codes
            column = batch.column(0)
            codes = column.type_codes
            for kind, tables in _groups(schema, [column], header).items():
                for c, t in zip(children[kind], tables):
                    if not t.num_rows:
                        continue
                    j = pc.add(pc.cast(pc.indices_nonzero(pc.equal(codes, pa.scalar(c, pa.int8()))), pa.int64()),
                               base)
                    k = pc.add(pc.shift_left(pc.add(pc.multiply(pc.shift_right(j, 8), n), i), 8),
                               pc.bit_wise_and(j, BLOCK - 1))
                    t = t.append_column(_K, k)
                    collected[kind].append((names[c], t))
                    _first_values(t, kind, first, known)
            base += batch.num_rows
        assert stream.summary is not None
        counts = [sum(t.num_rows for _, t in collected[kind]) for kind in (b"node", b"relationship")]
        if counts != [stream.summary.nodes, stream.summary.relationships]:
            raise TruncatedStreamError(
                f"partition {i}: the end record counts {stream.summary.nodes} nodes and "
                f"{stream.summary.relationships} relationships, the stream held {counts[0]} and {counts[1]}")
        part = _Part(header, stream.summary, schema.metadata, collected)
        for kind, catch_all in ((b"node", 0), (b"relationship", 1)):  # its columns: every (key, type), in order
            part.columns[kind] = []
            for f in union.field(catch_all).type:
                if f.metadata and b"subgraph.key" in f.metadata:
                    key = (f.metadata[b"subgraph.key"].decode(), f.metadata[b"subgraph.type"].decode())
                    k = first.get(kind.decode() + "\0" + f.name)
                    if k is None:  # every value of it beyond the Arrow type's range: the first in extra_properties
                        k = _first_in_extra(collected[kind], key[0])
                    part.columns[kind].append((key, f.name, f, k))
        return part


def _first_in_extra(tables: List[Tuple[str, pa.Table]], key: str) -> Optional[int]:
    """The lowest ``__k`` of a row whose ``extra_properties`` holds ``key`` (the writer made the key's column for that
    record, whose value did not fit it), or None."""
    best: Optional[int] = None
    for _, t in tables:
        if EXTRA not in t.column_names or t.column(EXTRA).null_count == t.num_rows:
            continue
        valid = pc.is_valid(t.column(EXTRA))
        for text, k in zip(pc.filter(t.column(EXTRA), valid).to_pylist(), pc.filter(t.column(_K), valid).to_pylist()):
            if (best is None or k < best) and key in json.loads(text):
                best = k
    return best


def _first_values(t: pa.Table, kind: bytes, first: Dict[str, Optional[int]], known: Set[str]) -> None:
    """Notes, per property column of ``t`` not ``known`` yet, the lowest ``__k`` of a row with a value."""
    skip = {*_FIXED[kind], EXTRA, _K}
    for name in t.column_names:
        if name in skip or kind.decode() + "\0" + name in known:
            continue
        column = t.column(name)
        if column.null_count == len(column):
            continue
        at = pc.index(pc.is_valid(column), True).as_py()
        k = t.column(_K)[at].as_py()
        slot = kind.decode() + "\0" + name
        if first.get(slot) is None or k < first[slot]:
            first[slot] = k


def _join(parts: List[_Part], state: str) -> Export:
    """The partitions as one export: columns named and ordered as the single stream's writer would, rows in its
    order (groups by first appearance, the catch-all groups first; the export's order within a group)."""
    h = parts[0].header
    header = Header(h.database, h.root, h.node_id_prefix, h.relationship_id_prefix, h.version, state, 0, 1)
    metadata = dict(parts[0].metadata or {})
    metadata[b"subgraph.partition"], metadata[b"subgraph.partitions"] = b"0", b"1"
    summary = Summary(sum(p.summary.nodes for p in parts), sum(p.summary.relationships for p in parts),
                      any(p.summary.truncated for p in parts), state)
    tables = [_join_kind(parts, kind, metadata) for kind in (b"node", b"relationship")]
    return Export(header, summary, tables[0], tables[1])


def _join_kind(parts: List[_Part], kind: bytes, metadata: Dict[bytes, bytes]) -> pa.Table:
    names, order = _column_names(parts, kind)
    fixed = _FIXED[kind]
    rank: Dict[str, int] = {}
    for part in parts:
        for group, t in part.groups[kind]:
            if t.num_rows and group:
                k = pc.min(t.column(_K)).as_py()
                rank[group] = min(rank.get(group, k), k)
    tables = []
    for part in parts:
        rename = {name: names[key] for key, name, _, _ in part.columns[kind]}
        for group, t in part.groups[kind]:
            t = t.rename_columns([rename.get(c, c) if c not in fixed else c for c in t.column_names])
            r = rank.get(group, -1)  # the catch-all group ("") first, as in the single stream
            tables.append(t.append_column(_RANK, pa.repeat(pa.scalar(r, pa.int64()), t.num_rows)))
    combined = pa.concat_tables(tables, promote_options="default")
    if combined.num_rows:
        combined = combined.sort_by([(_RANK, "ascending"), (_K, "ascending")])
    properties = [names[key] for key in order]
    return combined.select([*fixed, *properties, EXTRA]).replace_schema_metadata(metadata)


def _column_names(parts: List[_Part], kind: bytes) -> Tuple[Dict[Tuple[str, str], str], List[Tuple[str, str]]]:
    """Every (key, type) property column of the kind: its name and the order of the columns, as the single stream's
    writer makes them: in order of the first record with the key of that type; named by the key for the key's first
    type (unless a fixed column has that name), ``key:type`` for the others (``key:type:2`` ... if that is taken).

    A partition's writer named its columns in the same way from its own records: their order there, and the first
    record with a value in each, give their places in the whole export; for a column whose values in a partition are
    all beyond the Arrow type's range (in ``extra_properties``), the first record holding its key there. A column with
    neither is placed right after the column named before it there."""
    place: Dict[Tuple[str, str], Tuple[int, int, int]] = {}
    for p, part in enumerate(parts):
        last = -1
        for position, (key, _, _, k) in enumerate(part.columns[kind]):
            last = k if k is not None and k >= last else last
            mine = (last, p, position)
            if key not in place or mine < place[key]:
                place[key] = mine
    order = sorted(place, key=place.__getitem__)
    taken = set(_TAKEN[kind])
    names: Dict[Tuple[str, str], str] = {}
    for property_key, type_name in order:
        name = f"{property_key}:{type_name}" if property_key in taken else property_key
        n = 2
        while name in taken:
            name = f"{property_key}:{type_name}:{n}"
            n += 1
        taken.add(name)
        names[(property_key, type_name)] = name
    return names, order


class _Progress:
    """One tqdm bar: bytes read over all partitions, and how many are done (retries and restarts counted)."""

    def __init__(self, partitions: int) -> None:
        try:
            from tqdm import tqdm
        except ImportError as e:
            raise ImportError("progress bars need tqdm: pip install 'subgraph-export[progress]'") from e
        self.n = partitions
        self.bar = tqdm(unit="B", unit_scale=True, unit_divisor=1024, desc=f"partitions 0/{partitions}",
                        bar_format="{desc}{n_fmt}B [{elapsed}, {rate_fmt}]")
        self.lock = threading.Lock()
        self.done = self.retries = 0
        self.rounds = 0

    def start_round(self) -> None:
        with self.lock:
            self.rounds += 1
            self.done = 0
            self._describe()

    def partition_done(self) -> None:
        with self.lock:
            self.done += 1
            self._describe()

    def retry(self) -> None:
        with self.lock:
            self.retries += 1
            self._describe()

    def add(self, n: int) -> None:
        with self.lock:
            self.bar.update(n)

    def _describe(self) -> None:
        extra = f", {self.retries} retried" if self.retries else ""
        extra += f", restart {self.rounds - 1}" if self.rounds > 1 else ""
        self.bar.set_description(f"partitions {self.done}/{self.n}{extra}")

    def close(self) -> None:
        self.bar.close()


class _Counting(io.RawIOBase):
    """A response body that adds the bytes read to the progress bar."""

    def __init__(self, body: Any, bar: _Progress) -> None:
        super().__init__()
        self.body, self.bar = body, bar

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n: int = self.body.readinto(buffer)
        if n:
            self.bar.add(n)
        return n

    def close(self) -> None:
        self.body.close()
        super().close()


def _check_retries(attempts: int, on_state_change: str, max_restarts: int) -> None:
    """The retry keywords of a partitioned read (here and in the engines' readers), checked before any request."""
    if attempts < 1:
        raise ValueError(f"attempts must be at least 1, got {attempts!r}")
    if on_state_change not in (RESTART, FAIL):
        raise ValueError(f"on_state_change must be {RESTART!r} or {FAIL!r}, got {on_state_change!r}")
    if max_restarts < 0:
        raise ValueError(f"max_restarts must be >= 0, got {max_restarts!r}")
