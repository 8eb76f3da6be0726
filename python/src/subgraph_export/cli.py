"""``subgraph-export``: fetch an export into ``nodes.parquet`` and ``relationships.parquet`` (or ``.arrow``)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, List, Optional

import pyarrow as pa
import pyarrow.parquet as pq

from ._endpoints import open_cypher, open_traverse, traverse
from ._errors import ExportError
from ._export import Export
from ._stream import ExportStream


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="subgraph-export", description=__doc__)
    p.add_argument("url", help="the server's HTTP address, e.g. http://localhost:7474")
    p.add_argument("--root", help="element id of the root node")
    p.add_argument("--label"), p.add_argument("--key"), p.add_argument("--value", help="a JSON literal or a string")
    p.add_argument("--expand"), p.add_argument("--attach")
    p.add_argument("--max-depth", type=int), p.add_argument("--limit", type=int)
    p.add_argument("--cypher", help="a read-only Cypher query instead of a traversal")
    p.add_argument("--params", help="the query's parameters as a JSON object", default="{}")
    p.add_argument("--db"), p.add_argument("--timeout", help="server time budget, e.g. 30s")
    p.add_argument("--user"), p.add_argument("--password", default=os.environ.get("NEO4J_PASSWORD"))
    p.add_argument("-o", "--output", default=".", help="directory for the two files (default: .)")
    p.add_argument("--arrow", action="store_true", help="write Arrow IPC files instead of Parquet")
    p.add_argument("--progress", action="store_true", help="show a progress bar (needs tqdm)")
    p.add_argument("--partitions", type=int, help="read the traversal as N partitions at once (all in memory, then "
                   "written); the bar shows bytes and partitions done")
    p.add_argument("--concurrency", type=int, help="partitions read at once (default: min(N, 4))")
    p.add_argument("--attempts", type=int, default=3, help="requests per partition before giving up (default 3)")
    p.add_argument("--on-state-change", choices=["restart", "fail"], default="restart",
                   help="when the database moves on while the partitions are read (default: restart)")
    a = p.parse_args(argv)
    auth = (a.user, a.password or "") if a.user else None
    if a.partitions is not None:
        if a.cypher:
            p.error("--partitions applies to traversals, not to --cypher")
        try:
            export = traverse(a.url, a.root, label=a.label, key=a.key, value=a.value, expand=a.expand,
                              attach=a.attach, max_depth=a.max_depth, limit=a.limit, db=a.db, timeout=a.timeout,
                              auth=auth, progress=a.progress, partitions=a.partitions, concurrency=a.concurrency,
                              attempts=a.attempts, on_state_change=a.on_state_change)
            counts = write_export(export, a.output, a.arrow)
        except ExportError as e:
            print(f"subgraph-export: {e}", file=sys.stderr)
            return 1
        print(f"{counts[0]} nodes, {counts[1]} relationships"
              f"{' (truncated by the limit)' if export.summary.truncated else ''} -> {a.output}")
        return 0
    try:
        if a.cypher:
            stream = open_cypher(a.url, a.cypher, json.loads(a.params), db=a.db, timeout=a.timeout, auth=auth,
                                 progress=a.progress)
        else:
            value: Any = a.value
            stream = open_traverse(a.url, a.root, label=a.label, key=a.key, value=value, expand=a.expand,
                                   attach=a.attach, max_depth=a.max_depth, limit=a.limit, db=a.db, timeout=a.timeout,
                                   auth=auth, progress=a.progress)
        with stream:
            counts = write(stream, a.output, a.arrow)
    except ExportError as e:
        print(f"subgraph-export: {e}", file=sys.stderr)
        return 1
    s = stream.summary
    print(f"{counts[0]} nodes, {counts[1]} relationships{' (truncated by the limit)' if s and s.truncated else ''}"
          f" -> {a.output}")
    return 0


def write(stream: ExportStream, directory: str, arrow: bool) -> List[int]:
    """Writes the stream batch by batch (memory stays at one batch) into the two files; returns their row counts.
    The files are complete only if this returns: on an error they are removed."""
    os.makedirs(directory, exist_ok=True)
    suffix = ".arrow" if arrow else ".parquet"
    paths = [os.path.join(directory, "nodes" + suffix), os.path.join(directory, "relationships" + suffix)]
    writers: List[Any] = [None, None]
    counts = [0, 0]
    try:
        for batch in stream:
            for i, table in enumerate(stream.split(batch)):
                if writers[i] is None:
                    writers[i] = (pa.ipc.new_file(paths[i], table.schema) if arrow
                                  else pq.ParquetWriter(paths[i], table.schema))
                writers[i].write_table(table)
                counts[i] += table.num_rows
        empty = stream.split(pa.Table.from_batches([], schema=stream.schema))
        for i in range(2):
            if writers[i] is None:
                writers[i] = (pa.ipc.new_file(paths[i], empty[i].schema) if arrow
                              else pq.ParquetWriter(paths[i], empty[i].schema))
                writers[i].write_table(empty[i])
    except BaseException:
        for w, path in zip(writers, paths):
            if w is not None:
                w.close()
                os.remove(path)
        raise
    for w in writers:
        w.close()
    return counts


def write_export(export: Export, directory: str, arrow: bool) -> List[int]:
    """Writes an export read whole (a partitioned one) into the two files; returns their row counts."""
    os.makedirs(directory, exist_ok=True)
    suffix = ".arrow" if arrow else ".parquet"
    counts = []
    for name, table in (("nodes", export.nodes), ("relationships", export.relationships)):
        path = os.path.join(directory, name + suffix)
        if arrow:
            with pa.ipc.new_file(path, table.schema) as w:
                w.write_table(table)
        else:
            pq.write_table(table, path)
        counts.append(table.num_rows)
    return counts


if __name__ == "__main__":
    sys.exit(main())
