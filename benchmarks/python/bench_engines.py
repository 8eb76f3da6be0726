"""Spark and Dask side by side: the demo subgraph (every node and relationship, every property) into a Spark
DataFrame through this project's data source and through the official Neo4j Connector for Apache Spark, and into
Dask DataFrames through this project's reader and through the path a Dask user would write with the official Python
driver (a count, then one SKIP/LIMIT query per partition). One server (``scripts/demo``), one Spark session
(local[N]), one run, rows interleaved per round; every row's result is checked against the single-stream export
(counts and element ids; the connector's and the driver's values too where their types allow).

A third Spark row is the floor no source can beat: this source's frames written once to local Parquet files and read
back by Spark's own vectorised reader (no server, no network, no Python worker). Each Spark row is materialised as
``--materialise`` says: ``.cache().count()`` (the issue's measure, which includes Spark building its in-memory cache)
and the ``noop`` sink (every column of every row computed, nothing kept: the source's own cost plus row conversion).

Run the Spark rows one per process (``--rows spark``, then ``--rows spark-python``, ``--rows connector``,
``--rows parquet``): in one session the rows slow each other down (engines.md, the second run). The Spark rows need
the JVM source's jar (``mvn -pl spark -am package`` puts it into the Python package).

The connector reads in its typed query mode: a query per label and per relationship type returning typed scalar
columns (a mixed-type key split into one column per type with type predicates), since its node/relationship modes
and queries returning nodes fail on the demo graph's mixed-type key ``value`` (docs: PLATFORM notes). The demo
database holds the subgraph and one ``DemoGraphInfo`` node, so the label queries read exactly the subgraph.

    python/.venv/bin/pip install "./python[bench,spark,dask]"
    scripts/demo --founding-size --port 7474            # in another shell
    python/.venv/bin/python benchmarks/python/bench_engines.py --url http://127.0.0.1:7474 \\
        --bolt bolt://127.0.0.1:7687 --runs 3 --out benchmarks/results/engines.md
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from typing import Any, Callable, Dict, List, Tuple

import pyarrow as pa
import pyarrow.compute as pc

import subgraph_export as sx

CONNECTOR = "org.neo4j:neo4j-connector-apache-spark_2.13:5.3.8_for_spark_3"
ROOT = dict(label="Object", key="id", value=1)
CYPHER_TYPES = {"Long": "INTEGER", "Integer": "INTEGER", "String": "STRING", "Double": "FLOAT", "Float": "FLOAT",
                "Boolean": "BOOLEAN", "DateTime": "ZONED DATETIME", "Date": "DATE", "LocalDateTime": "LOCAL DATETIME",
                "DoubleArray": "LIST<FLOAT NOT NULL>", "LongArray": "LIST<INTEGER NOT NULL>",
                "StringArray": "LIST<STRING NOT NULL>"}


def schema_of(driver: Any) -> Tuple[Dict[str, Dict[str, List[str]]], Dict[str, Dict[str, List[str]]], Dict[str, int]]:
    """Per label and per relationship type: property key -> its types (db.schema.*TypeProperties); and the count of
    each label's nodes and each type's relationships."""
    nodes: Dict[str, Dict[str, List[str]]] = {}
    rels: Dict[str, Dict[str, List[str]]] = {}
    counts: Dict[str, int] = {}
    with driver.session() as s:
        for label in ("Object", "Structure", "Sequence"):
            counts[label] = s.run(f"MATCH (n:`{label}`) RETURN count(n) AS c").single()["c"]
        for rtype in ("CHILDREN", "PROPERTY"):
            counts[rtype] = s.run(f"MATCH ()-[r:`{rtype}`]->() RETURN count(r) AS c").single()["c"]
        for r in s.run("CALL db.schema.nodeTypeProperties() YIELD nodeLabels, propertyName, propertyTypes "
                       "WHERE size(nodeLabels) = 1 AND nodeLabels[0] IN ['Object', 'Structure', 'Sequence'] "
                       "RETURN nodeLabels[0] AS l, propertyName AS k, propertyTypes AS t"):
            nodes.setdefault(r["l"], {})[r["k"]] = r["t"] or []
        for r in s.run("CALL db.schema.relTypeProperties() YIELD relType, propertyName, propertyTypes "
                       "RETURN relType AS t, propertyName AS k, propertyTypes AS ts"):
            rels.setdefault(r["t"].strip(":`"), {})
            if r["k"]:
                rels[r["t"].strip(":`")][r["k"]] = r["ts"] or []
    return nodes, rels, counts


def typed_columns(var: str, props: Dict[str, List[str]]) -> List[str]:
    """RETURN items: a column per key, or per (key, type) where a key has several types (``value``,
    ``value_long`` ...), each of one Cypher type; temporal values as their ISO string (the connector's typed
    modes map them to Spark timestamps, losing zones and nanoseconds)."""
    items = []
    for key, types in sorted(props.items()):
        if len(types) == 1:
            expr = f"{var}.`{key}`"
            if types[0] in ("DateTime", "Date", "LocalDateTime"):
                expr = f"toString({expr})"
            items.append(f"{expr} AS `{key}`")
        else:
            for t in types:
                items.append(f"CASE WHEN {var}.`{key}` IS :: {CYPHER_TYPES[t]} THEN {var}.`{key}` END AS `{key}_{t.lower()}`")
    return items


def connector_frames(spark: Any, bolt: str, auth: Any, partitions: int, nodes_schema: Dict[str, Dict[str, List[str]]],
                     rels_schema: Dict[str, Dict[str, List[str]]], counts: Dict[str, int]) -> List[Any]:
    frames = []
    for label, props in sorted(nodes_schema.items()):
        query = (f"MATCH (n:`{label}`) RETURN elementId(n) AS element_id, "
                 + ", ".join(["labels(n) AS labels"] + typed_columns("n", props)))
        frames.append(_connector(spark, bolt, auth, partitions, query, counts[label]))
    for rtype, props in sorted(rels_schema.items()):
        query = (f"MATCH (a)-[r:`{rtype}`]->(b) RETURN elementId(r) AS element_id, type(r) AS type, "
                 "elementId(a) AS source_element_id, elementId(b) AS target_element_id"
                 + "".join(", " + c for c in typed_columns("r", props)))
        frames.append(_connector(spark, bolt, auth, partitions, query, counts[rtype]))
    return frames


def _connector(spark: Any, bolt: str, auth: Any, partitions: int, query: str, count: int) -> Any:
    """The connector in query mode, ``partitions`` SKIP/LIMIT partitions; ``query.count`` given as the number (counted
    once beforehand), which spares the connector its own count query per read."""
    reader = (spark.read.format("org.neo4j.spark.DataSource").option("url", bolt).option("query", query)
              .option("partitions", str(partitions)).option("query.count", str(count)))
    if auth:
        reader = (reader.option("authentication.type", "basic").option("authentication.basic.username", auth[0])
                  .option("authentication.basic.password", auth[1]))
    else:
        reader = reader.option("authentication.type", "none")
    return reader.load()


def materialise(frames: List[Any], how: str = "cache") -> Tuple[int, List[Any]]:
    """``cache``: ``.cache().count()`` of every frame (the rows in all of them); ``noop``: every frame written to
    Spark's ``noop`` sink, which computes every column of every row and keeps nothing (rows: -1, not counted)."""
    rows = 0
    for f in frames:
        if how == "cache":
            rows += f.cache().count()
        else:
            f.write.format("noop").mode("overwrite").save()
            rows = -1
    return rows, frames


def element_ids(frames: List[Any]) -> List[str]:
    ids: List[str] = []
    for f in frames:
        ids += f.select("element_id").toArrow().column(0).to_pylist()
    return sorted(ids)


def dask_driver(bolt: str, auth: Any, partitions: int) -> Tuple[Any, Any]:
    """What a Dask user writes with the official driver: a count, then a SKIP/LIMIT query per partition, ordered
    so that the pages are stable, each partition's records into a pandas DataFrame."""
    import dask
    import dask.dataframe as dd
    import neo4j
    import pandas as pd

    match_nodes = "MATCH (n) WHERE n:Object OR n:Structure OR n:Sequence"
    match_rels = "MATCH (a)-[r:CHILDREN|PROPERTY]->(b)"
    with neo4j.GraphDatabase.driver(bolt, auth=auth) as driver, driver.session() as s:
        n = s.run(match_nodes + " RETURN count(n) AS c").single()["c"]
        m = s.run(match_rels + " RETURN count(r) AS c").single()["c"]

    def page(query: str, skip: int, limit: int, node: bool) -> Any:
        with neo4j.GraphDatabase.driver(bolt, auth=auth) as driver, driver.session() as s:
            rows = []
            for r in s.run(query + " SKIP $skip LIMIT $limit", skip=skip, limit=limit):
                if node:
                    x = r["n"]
                    rows.append({"element_id": x.element_id, "labels": list(x.labels), **dict(x)})
                else:
                    x = r["r"]
                    rows.append({"element_id": x.element_id, "type": x.type, "source_element_id": r["a"],
                                 "target_element_id": r["b"], **dict(x)})
            return pd.DataFrame(rows)

    def parts(total: int, query: str, node: bool) -> List[Any]:
        size = -(-total // partitions)
        return [dask.delayed(page)(query, i * size, size, node) for i in range(partitions)]

    nodes = parts(n, match_nodes + " RETURN n ORDER BY elementId(n)", True)
    rels = parts(m, match_rels + " RETURN r, elementId(a) AS a, elementId(b) AS b ORDER BY elementId(r)", False)
    return dd.from_delayed(nodes, verify_meta=False), dd.from_delayed(rels, verify_meta=False)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", default="http://127.0.0.1:7474", help="the server's HTTP address")
    p.add_argument("--bolt", default="bolt://127.0.0.1:7687", help="its Bolt address (connector and driver)")
    p.add_argument("--user", help="user (with --password); the demo runs without authentication")
    p.add_argument("--password")
    p.add_argument("--partitions", type=int, default=4, help="partitions for every row (default 4)")
    p.add_argument("--cores", type=int, default=2, help="Spark local[N] (default 2)")
    p.add_argument("--runs", type=int, default=3, help="measured rounds (default 3)")
    p.add_argument("--warmup", type=int, default=1, help="unmeasured rounds first (default 1)")
    p.add_argument("--rows", default="spark,spark-python,connector,parquet,dask,dask-driver",
                   help="which rows, comma-separated (default all: spark (the JVM source), spark-python (the Python "
                        "data source), connector, parquet, dask, dask-driver)")
    p.add_argument("--materialise", default="cache,noop",
                   help="how the Spark rows are materialised, comma-separated: cache (.cache().count(), the issue's "
                        "measure) and noop (the noop sink: every column computed, nothing kept); default both")
    p.add_argument("--connector", default=CONNECTOR, help=f"the connector's Maven coordinates (default {CONNECTOR})")
    p.add_argument("--out", help="write the results as Markdown here")
    a = p.parse_args()
    auth = (a.user, a.password) if a.user else None
    rows = a.rows.split(",")
    single = sx.traverse(a.url, **ROOT, auth=auth)
    expected_ids = sorted(single.nodes.column("element_id").to_pylist() + single.relationships.column(
        "element_id").to_pylist())
    total = single.summary.nodes + single.summary.relationships
    print(f"single stream: {single.summary.nodes:,} nodes, {single.summary.relationships:,} relationships", flush=True)

    os.environ["PYSPARK_PYTHON"] = sys.executable
    spark = None
    if {"spark", "spark-python", "connector", "parquet"} & set(rows):
        from pyspark.sql import SparkSession

        import subgraph_export.spark

        if not subgraph_export.spark.jar():
            p.error("the JVM source's jar is missing: build spark/ (mvn -pl spark -am package)")
        builder = (SparkSession.builder.master(f"local[{a.cores}]").appName("bench-engines")
                   .config("spark.ui.enabled", "false").config("spark.driver.memory", "6g")
                   .config("spark.jars", subgraph_export.spark.jar()))
        if "connector" in rows:
            # the connector's own Netty 4.1 stays out: Spark 4 brings Netty 4.2
            builder = builder.config("spark.jars.packages", a.connector).config(
                "spark.jars.excludes", ",".join(f"io.netty:{m}" for m in (
                    "netty-handler", "netty-transport", "netty-buffer", "netty-codec", "netty-common",
                    "netty-resolver", "netty-transport-native-unix-common", "netty-tcnative-classes")))
        spark = builder.getOrCreate()
        spark.sparkContext.setLogLevel("ERROR")
        if subgraph_export.spark.register(spark) != "jvm":
            p.error("the session did not load the JVM source from " + str(subgraph_export.spark.jar()))

    runners: Dict[str, Callable[[], Any]] = {}
    checks: Dict[str, Callable[[Any], str]] = {}
    spark_rows: Dict[str, Callable[[], List[Any]]] = {}
    spark_checks: Dict[str, Callable[[Any], str]] = {}

    def ours_frames(source: str = "subgraph_export") -> List[Any]:
        return [spark.read.format(source).option("url", a.url).option("label", "Object")
                .option("key", "id").option("value", "1").option("partitions", str(a.partitions))
                .option("entities", e).load() for e in ("nodes", "relationships")]
    if "spark" in rows:
        name = "Spark: this source, JVM (`subgraph_export`)"
        spark_rows[name] = ours_frames
        spark_checks[name] = lambda r: check_spark(r, total, expected_ids, single)
    if "spark-python" in rows:
        name = "Spark: this source, Python data source (`subgraph_export_python`)"
        spark_rows[name] = lambda: ours_frames("subgraph_export_python")
        spark_checks[name] = lambda r: check_spark(r, total, expected_ids, single)
    if "connector" in rows:
        import neo4j

        with neo4j.GraphDatabase.driver(a.bolt, auth=auth) as driver:
            nodes_schema, rels_schema, counts = schema_of(driver)
        name = f"Spark: official connector {a.connector.split(':')[-1]} (typed query mode)"
        spark_rows[name] = lambda: connector_frames(spark, a.bolt, auth, a.partitions, nodes_schema, rels_schema,
                                                    counts)
        spark_checks[name] = lambda r: check_spark(r, total, expected_ids, None)
    if "parquet" in rows:
        # the floor: this source's frames, written once to local Parquet files (one per partition), read back by
        # Spark's own vectorised reader: no server, no network, no Python worker
        import tempfile

        floor_dir = tempfile.mkdtemp(prefix="bench-engines-parquet-")
        for kind, frame in zip(("nodes", "relationships"), ours_frames()):
            frame.write.mode("overwrite").parquet(os.path.join(floor_dir, kind))
        name = "Spark: Parquet files of this source's frames (Spark's own reader, local files: the floor)"
        spark_rows[name] = lambda: [spark.read.parquet(os.path.join(floor_dir, k)) for k in ("nodes", "relationships")]
        spark_checks[name] = lambda r: check_spark(r, total, expected_ids, None)
    for how in a.materialise.split(","):
        if how not in ("cache", "noop"):
            p.error(f"--materialise takes cache and noop, got {how!r}")
        label = ".cache().count()" if how == "cache" else "noop sink"
        for name, make in spark_rows.items():
            row = f"{name}, {label}"
            runners[row] = (lambda make=make, how=how: materialise(make(), how))
            checks[row] = spark_checks[name] if how == "cache" else (lambda r: "every column computed, not checked")
    if "dask" in rows:
        import dask
        from subgraph_export.dask import read_traverse

        def ours_dask() -> Any:
            n, r = read_traverse(a.url, **ROOT, auth=auth, partitions=a.partitions)
            return dask.compute(n, r, scheduler="threads", num_workers=a.cores)
        runners["Dask: this reader (`read_traverse`)"] = ours_dask
        checks["Dask: this reader (`read_traverse`)"] = lambda r: check_frames(r, total, expected_ids)
    if "dask-driver" in rows:
        import dask

        def driver_dask() -> Any:
            n, r = dask_driver(a.bolt, auth, a.partitions)
            return dask.compute(n, r, scheduler="threads", num_workers=a.cores)
        runners["Dask: official driver, SKIP/LIMIT per partition"] = driver_dask
        checks["Dask: official driver, SKIP/LIMIT per partition"] = lambda r: check_frames(r, total, expected_ids)

    times: Dict[str, List[float]] = {k: [] for k in runners}
    verdict: Dict[str, str] = {}
    for round_ in range(a.warmup + a.runs):
        for name, run in runners.items():
            start = time.perf_counter()
            result = run()
            took = time.perf_counter() - start
            if name not in verdict:
                verdict[name] = checks[name](result)
            if spark is not None and name.startswith("Spark"):
                for f in result[1]:
                    f.unpersist(blocking=True)
            if round_ >= a.warmup:
                times[name].append(took)
            print(f"round {round_}{' (warm-up)' if round_ < a.warmup else ''}: {name}: {took:.3f} s", flush=True)
    report(a, single, times, verdict)
    if spark is not None:
        spark.stop()


def check_spark(result: Any, total: int, expected_ids: List[str], single: Any) -> str:
    rows, frames = result
    if rows != total:
        return f"**{rows:,} rows, expected {total:,}**"
    if element_ids(frames) != expected_ids:
        return "**other element ids**"
    if single is not None:  # every value, as the tests compare them (python/tests/engines_oracle.py)
        sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python", "tests"))
        from engines_oracle import assert_same_rows
        try:
            assert_same_rows(frames[0].toArrow(), single.nodes)
            assert_same_rows(frames[1].toArrow(), single.relationships)
        except AssertionError as e:
            return f"**a value differs: {e}**"
        return "every value equal to the single stream's"
    return "same element ids and counts"


def check_frames(result: Any, total: int, expected_ids: List[str]) -> str:
    nodes, rels = result
    if len(nodes) + len(rels) != total:
        return f"**{len(nodes) + len(rels):,} rows, expected {total:,}**"
    ids = sorted(list(nodes["element_id"]) + list(rels["element_id"]))
    return "same element ids" if ids == expected_ids else "**other element ids**"


def report(a: Any, single: Any, times: Dict[str, List[float]], verdict: Dict[str, str]) -> None:
    import pyspark

    lines = [f"# Spark and Dask: the founding-size subgraph into DataFrames ({time.strftime('%Y-%m-%d')})", "",
             f"`python/.venv/bin/python benchmarks/python/bench_engines.py {' '.join(sys.argv[1:])}`", "",
             f"{single.summary.nodes:,} nodes and {single.summary.relationships:,} relationships under the root; "
             f"{a.partitions} partitions in every row; Spark local[{a.cores}] (PySpark {pyspark.__version__}, Java "
             f"{os.environ.get('JAVA_HOME', 'default')}), Dask threads ({a.cores} workers); Python "
             f"{platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores (shared); server: "
             f"`scripts/demo` on the same machine. Median of {a.runs} after {a.warmup} warm-up round(s).", "",
             "| row | median | min – max | × this project's | result |", "|---|---:|---:|---:|---|"]
    base: Dict[str, float] = {}
    def engine_of(name: str) -> str:  # the engine and, for Spark, how it materialises: rows compare within one
        return name.split(":")[0] + name.rsplit(",", 1)[-1] if name.startswith("Spark") else name.split(":")[0]
    for name, ts in times.items():
        engine = engine_of(name)
        med = statistics.median(ts)
        if name.startswith(("Spark: this source", "Dask: this reader")):
            base[engine] = med
    for name, ts in times.items():
        engine = engine_of(name)
        med = statistics.median(ts)
        ratio = f"{med / base[engine]:.1f}" if engine in base else ""
        lines.append(f"| {name} | {med:.2f} s | {min(ts):.2f} – {max(ts):.2f} s | {ratio} | {verdict[name]} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
