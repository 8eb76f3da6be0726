"""Python clients side by side: a subgraph of the demo graph into pandas DataFrames of nodes and relationships (every
property), through the official driver over Bolt, the Query API's JSON, and this project's arrow format (into
pandas, polars, NetworkX, plain pyarrow), and into PyTorch Geometric's HeteroData (the package's ``to_pyg`` against
the driver's frames turned into tensors the way PyG's documentation does it). One server (``scripts/demo``), one
run, rows interleaved per round.

    python/.venv/bin/pip install "./python[ml]" -r benchmarks/python/requirements.txt
    scripts/demo --founding-size --port 7474            # in another shell
    python/.venv/bin/python benchmarks/python/bench_python.py --url http://127.0.0.1:7474 \\
        --bolt bolt://127.0.0.1:7687 --runs 5 --warmup 1 --out benchmarks/results/python.md
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
import urllib.parse
import urllib.request
from typing import Any, Callable, Dict, List, Tuple

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

import subgraph_export as sx

# The Java runner's Bolt query (demo/DemoGraph.SUBGRAPH_QUERY): a row per Object, its CHILDREN relationships and its
# attached data (relationship and node pairs) collected in subqueries.
SUBGRAPH_QUERY = """
MATCH (root) WHERE elementId(root) = $root
MATCH (root)-[:CHILDREN]->*(o)
RETURN o,
  COLLECT { MATCH (o)-[c:CHILDREN]->() RETURN c } AS children,
  COLLECT { MATCH (o)-[:PROPERTY]->*()-[r:PROPERTY]->(x) RETURN [r, x] } AS attached"""

Frames = Tuple[Any, Any]


def bolt_pandas(bolt: str, auth: Any, root: str) -> Callable[[], Frames]:
    import neo4j

    driver = neo4j.GraphDatabase.driver(bolt, auth=auth)

    def run() -> Frames:
        nodes: List[Dict[str, Any]] = []
        rels: List[Dict[str, Any]] = []

        def node(n: Any) -> None:
            nodes.append({"element_id": n.element_id, "labels": list(n.labels), **dict(n)})

        def rel(r: Any) -> None:
            rels.append({"element_id": r.element_id, "type": r.type, "source_element_id": r.start_node.element_id,
                         "target_element_id": r.end_node.element_id, **dict(r)})

        with driver.session() as session:
            for record in session.run(SUBGRAPH_QUERY, root=root):
                node(record[0])
                for c in record[1]:
                    rel(c)
                for r, x in record[2]:
                    rel(r)
                    node(x)
        return pd.DataFrame(nodes), pd.DataFrame(rels)

    return run


def pyg_from_frames(frames: Frames) -> Any:
    """DataFrames of nodes and relationships into a HeteroData the way PyG's "Loading Graphs from CSV" tutorial
    does it: a node type per label set, a dict from id to index per type (``{index_id: i for i, index_id in
    enumerate(df.index.unique())}``), ``x`` from the numeric columns (``torch.from_numpy(df[cols].values)``), and
    ``edge_index`` from the mapped source and target ids (``torch.tensor([src, dst])``) per edge type."""
    import torch
    from torch_geometric.data import HeteroData

    nodes, rels = frames
    data = HeteroData()
    nodes = nodes.assign(node_type=nodes["labels"].map(lambda labels: ":".join(sorted(labels))))
    type_of: Dict[str, str] = {}
    mapping: Dict[str, int] = {}
    for node_type, df in nodes.groupby("node_type"):
        df = df.dropna(axis=1, how="all")
        mapping.update({index_id: i for i, index_id in enumerate(df["element_id"].unique())})
        type_of.update(dict.fromkeys(df["element_id"], node_type))
        numeric = df.drop(columns=["node_type"]).select_dtypes(include=["number", "bool"])
        data[node_type].num_nodes = len(df)
        data[node_type].element_id = df["element_id"].tolist()
        if len(numeric.columns):
            data[node_type].x = torch.from_numpy(numeric.astype("float32").values)
    rels = rels.assign(src_type=rels["source_element_id"].map(type_of), dst_type=rels["target_element_id"].map(type_of))
    for (src_type, rel_type, dst_type), df in rels.groupby(["src_type", "type", "dst_type"]):
        src = [mapping[index] for index in df["source_element_id"]]
        dst = [mapping[index] for index in df["target_element_id"]]
        data[src_type, rel_type, dst_type].edge_index = torch.tensor([src, dst])
        data[src_type, rel_type, dst_type].element_id = df["element_id"].tolist()
    return data


def query_api_pandas(url: str, auth: Any, root: str, db: str) -> Callable[[], Frames]:
    body = json.dumps({"statement": SUBGRAPH_QUERY, "parameters": {"root": root}}).encode()
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if auth:
        import base64
        headers["Authorization"] = "Basic " + base64.b64encode(":".join(auth).encode()).decode()

    def run() -> Frames:
        request = urllib.request.Request(f"{url}/db/{db}/query/v2", data=body, headers=headers)
        with urllib.request.urlopen(request) as r:
            values = json.loads(r.read())["data"]["values"]
        nodes: List[Dict[str, Any]] = []
        rels: List[Dict[str, Any]] = []

        def node(n: Dict[str, Any]) -> None:
            nodes.append({"element_id": n["elementId"], "labels": n["labels"], **n["properties"]})

        def rel(r: Dict[str, Any]) -> None:
            rels.append({"element_id": r["elementId"], "type": r["type"],
                         "source_element_id": r["startNodeElementId"], "target_element_id": r["endNodeElementId"],
                         **r["properties"]})

        for o, children, attached in values:
            node(o)
            for c in children:
                rel(c)
            for r, x in attached:
                rel(r)
                node(x)
        return pd.DataFrame(nodes), pd.DataFrame(rels)

    return run


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", default="http://127.0.0.1:7474")
    p.add_argument("--bolt", default="bolt://127.0.0.1:7687")
    p.add_argument("--db", default="neo4j")
    p.add_argument("--auth", help="user:password (default: none)")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--rows", help="comma-separated row names to run (default: all)")
    p.add_argument("--out", help="markdown file for the table")
    p.add_argument("--chart", help="SVG file for a bar chart of the medians (log scale)")
    a = p.parse_args()
    auth = tuple(a.auth.split(":", 1)) if a.auth else None
    root = sx.traverse(a.url, label="Object", key="id", value=1, limit=1, auth=auth).header.root

    def package(convert: Callable[[sx.Export], Any]) -> Callable[[], Any]:
        return lambda: convert(sx.traverse(a.url, root=root, auth=auth, db=a.db))

    def request(fmt: str) -> urllib.request.Request:
        r = urllib.request.Request(f"{a.url}/extension/{fmt}/traverse?root={urllib.parse.quote(root)}")
        if auth:
            import base64
            r.add_header("Authorization", "Basic " + base64.b64encode(":".join(auth).encode()).decode())
        return r

    def raw_pyarrow() -> Any:
        with urllib.request.urlopen(request("arrow")) as r:
            return pa.ipc.open_stream(r).read_all()

    def body_only(fmt: str) -> Callable[[], Any]:
        def run() -> Any:  # the server's cost, walk included, plus loopback: the body read in 1 MiB pieces, dropped
            n = 0
            with urllib.request.urlopen(request(fmt)) as r:
                while chunk := r.read(1 << 20):
                    n += len(chunk)
            return ("bytes", n)
        return run

    driver = bolt_pandas(a.bolt, auth, root)
    rows: Dict[str, Callable[[], Any]] = {
        "neo4j driver (Bolt, Rust extension) -> pandas": driver,
        "neo4j driver -> pandas -> HeteroData (PyG's CSV tutorial)": lambda: pyg_from_frames(driver()),
        "Query API JSON -> pandas": query_api_pandas(a.url, auth, root, a.db),
        "subgraph_export traverse -> pandas": package(lambda e: e.to_pandas()),
        "subgraph_export traverse -> polars": package(lambda e: e.to_polars()),
        "subgraph_export traverse -> pyarrow Tables": package(lambda e: (e.nodes, e.relationships)),
        "subgraph_export cypher (same query) -> pandas": lambda: sx.cypher(
            a.url, SUBGRAPH_QUERY, {"root": root}, auth=auth, db=a.db).to_pandas(),
        "subgraph_export traverse -> NetworkX": package(lambda e: e.to_networkx()),
        "subgraph_export traverse -> HeteroData (to_pyg)": package(lambda e: e.to_pyg()),
        "subgraph_export traverse -> SciPy CSR (to_scipy)": package(lambda e: e.to_scipy()),
        "pyarrow.ipc.open_stream(body).read_all() (no package)": raw_pyarrow,
        "traverse kryo, body read and dropped (server cost)": body_only("kryo"),
        "traverse arrow, body read and dropped (server cost)": body_only("arrow"),
    }
    if a.rows:
        wanted = a.rows.split(",")
        rows = {k: v for k, v in rows.items() if any(w in k for w in wanted)}
    start_load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    counts: Dict[str, Tuple[int, int]] = {}
    times: Dict[str, List[float]] = {k: [] for k in rows}
    for i in range(a.warmup + a.runs):
        for name, run in rows.items():
            t0 = time.perf_counter()
            result = run()
            dt = time.perf_counter() - t0
            if i >= a.warmup:
                times[name].append(dt)
            counts[name] = _counts(result)
            print(f"{'warm-up' if i < a.warmup else 'run'} {i}: {name}: {dt:.3f} s {counts[name]}", flush=True)
    baseline = next(iter(rows))
    lines = [f"Python clients, one run, {a.runs} measured rounds after {a.warmup} warm-up, rows interleaved per round.",
             f"Machine: {platform.machine()} {os.cpu_count()} CPUs, {platform.platform()}, Python "
             f"{platform.python_version()}, pyarrow {pa.__version__}, pandas {pd.__version__}; server and client on "
             f"one machine (loopback), shared; load average at the start {start_load}, at the end "
             f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}.",
             "Command: `" + " ".join([os.path.relpath(sys.executable)] + sys.argv) + "`", "",
             "| row | nodes | relationships | median | min - max | vs. first row |", "|---|---:|---:|---:|---:|---:|"]
    base = statistics.median(times[baseline]) if times.get(baseline) else None
    for name in rows:
        m = statistics.median(times[name])
        if counts[name][0] == 0:  # a body-only row: its bytes
            lines.append(f"| {name} | | {counts[name][1]:,} bytes | {m:.3f} s | "
                         f"{min(times[name]):.3f} - {max(times[name]):.3f} s | |")
            continue
        ratio = f"{base / m:.1f}x faster" if base and name != baseline else "1.0"
        lines.append(f"| {name} | {counts[name][0]:,} | {counts[name][1]:,} | {m:.3f} s | "
                     f"{min(times[name]):.3f} - {max(times[name]):.3f} s | {ratio} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    if a.chart:
        with open(a.chart, "w") as f:
            f.write(_chart({name: statistics.median(times[name]) for name in rows}, lines[1]))
    return 0


def _chart(medians: Dict[str, float], caption: str) -> str:
    """A horizontal bar chart of the medians on a log scale, as SVG (no plotting library needed)."""
    import html
    import math

    label_width, bar_width, row_height, top = 430, 420, 26, 40
    low, high = math.floor(math.log10(min(medians.values()))), math.ceil(math.log10(max(medians.values())))
    scale = bar_width / max(1, high - low)
    height = top + row_height * len(medians) + 50
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_width + bar_width + 90}" height="{height}" '
           'font-family="sans-serif" font-size="12">',
           f'<text x="10" y="20" font-size="14">Founding-size subgraph into Python, median seconds (log scale)</text>']
    for i, (name, m) in enumerate(medians.items()):
        y = top + i * row_height
        w = max(1.0, (math.log10(m) - low) * scale)
        color = "#4c78a8" if "subgraph_export" in name or "pyarrow" in name or "arrow" in name else "#9d9d9d"
        out.append(f'<text x="{label_width - 6}" y="{y + 16}" text-anchor="end">{html.escape(name)}</text>')
        out.append(f'<rect x="{label_width}" y="{y + 4}" width="{w:.1f}" height="{row_height - 8}" fill="{color}"/>')
        out.append(f'<text x="{label_width + w + 4:.1f}" y="{y + 16}">{m:.3f} s</text>')
    axis = top + row_height * len(medians) + 8
    for e in range(low, high + 1):
        x = label_width + (e - low) * scale
        out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{axis}" stroke="#ddd"/>')
        out.append(f'<text x="{x:.1f}" y="{axis + 14}" text-anchor="middle">{10.0 ** e:g} s</text>')
    out.append(f'<text x="10" y="{height - 8}" font-size="10">{html.escape(caption)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _counts(result: Any) -> Tuple[int, int]:
    if isinstance(result, tuple) and isinstance(result[0], str):
        return (0, result[1])
    if isinstance(result, pa.Table):  # the stream as read: rows of the element union, counted by their group's kind
        union = result.schema.field(0).type
        kinds = [union.field(i).metadata[b"subgraph.kind"] for i in range(union.num_fields)]
        counts = {b"node": 0, b"relationship": 0}
        for chunk in result.column(0).chunks:
            if len(chunk) == 0:  # the closing batch: pyarrow 26 crashes on type_codes of an empty union array
                continue
            for c in pc.value_counts(chunk.type_codes).to_pylist():
                counts[kinds[c["values"]]] += c["counts"]
        return counts[b"node"], counts[b"relationship"]
    if hasattr(result, "node_types") and hasattr(result, "edge_types"):  # HeteroData
        return (sum(result[t].num_nodes for t in result.node_types),
                sum(result[t].edge_index.shape[1] for t in result.edge_types))
    if hasattr(result, "matrix"):  # to_scipy's Adjacency: the relationships counted
        return result.matrix.shape[0], int(result.matrix.sum())
    if hasattr(result, "number_of_nodes"):
        return result.number_of_nodes(), result.number_of_edges()
    n, r = result
    return (n.num_rows, r.num_rows) if isinstance(n, pa.Table) else (len(n), len(r))


if __name__ == "__main__":
    sys.exit(main())
