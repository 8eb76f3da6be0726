"""The two endpoints, ``traverse`` and ``cypher``: their URLs from the keyword arguments, and the functions that
open an export (an :class:`ExportStream`) or read it whole (an :class:`Export`). Sending is in ``_http``."""

from __future__ import annotations

import json
import urllib.parse
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence, Union

from ._export import Export
from ._http import BUSY_WAIT, Auth, _open
from ._stream import ExportStream


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
    stream = ExportStream(_open(endpoint, None, auth, http_timeout, busy_wait), progress)
    if partitions is None and partition is None and state is None:
        stream.source = Source(endpoint, auth, http_timeout, busy_wait)
    return stream


@dataclass(frozen=True)
class Source:
    """Where a whole traverse export was read from: :meth:`Export.refresh` asks it again, with ``since``."""

    endpoint: str
    auth: Auth
    http_timeout: Optional[float]
    busy_wait: float


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
