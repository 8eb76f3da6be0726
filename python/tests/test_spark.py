"""The Spark data source against a real Neo4j with the plugin (PythonClientIT starts it), in one local[2] session,
both implementations: the JVM source (its jar on the session's class path, serving ``format("subgraph_export")``) and
the Python data source (``format("subgraph_export_python")``). The value-type fixture and the demo graph equal the
single-stream export value for value, one Spark partition per export partition, every Neo4j type in its documented
Spark type, the two implementations' schemas equal; a partition cut mid-read is fetched again; a commit in the
middle of a query fails it, and loaded again the export reads the new state."""

import os
import subprocess
import sys

import pytest
from pyspark.sql import SparkSession
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    DateType,
    DoubleType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
)

import subgraph_export as sx
import subgraph_export.spark

from engines_oracle import assert_same_rows
from test_dask import touch
from test_partitions import Proxy

ROOT = dict(label="Object", key="id", value="1")


@pytest.fixture(scope="module")
def auth():
    user, _, password = os.environ.get("SUBGRAPH_EXPORT_AUTH", "neo4j:").partition(":")
    return (user, password)


@pytest.fixture(scope="module")
def session():
    os.environ["PYSPARK_PYTHON"] = sys.executable  # the workers import subgraph_export from this interpreter
    jar = subgraph_export.spark.jar()
    assert jar, "the JVM source's jar is missing: the Maven build of spark/ puts it into subgraph_export/jars"
    session = (SparkSession.builder.master("local[2]").appName("subgraph-export-tests")
               .config("spark.jars", jar).config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "2").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    assert subgraph_export.spark.register(session) == "jvm"  # and the Python source as subgraph_export_python
    yield session
    session.stop()


IMPLEMENTATIONS = {"jvm": "subgraph_export", "python": "subgraph_export_python"}


@pytest.fixture(params=sorted(IMPLEMENTATIONS))
def spark(request, session):
    """The session, reading with one implementation: ``read`` takes its format name from ``spark.impl``."""
    session.impl = request.param
    return session


def read(spark, url, entities, partitions, auth=None, **options):
    reader = spark.read.format(IMPLEMENTATIONS[spark.impl]).option("url", url).option("entities", entities)
    reader = reader.option("partitions", partitions)
    for k, v in {**ROOT, **options}.items():
        reader = reader.option(k, v)
    if auth:
        reader = reader.option("user", auth[0]).option("password", auth[1])
    return reader.load()


def assert_equals_single_stream(spark, url, single, partitions, auth=None, **options):
    for entities, expected in (("nodes", single.nodes), ("relationships", single.relationships)):
        df = read(spark, url, entities, partitions, auth, **options)
        assert df.rdd.getNumPartitions() == partitions
        assert_same_rows(df.toArrow(), expected)


def test_the_value_types_equal_the_single_stream_in_their_spark_types(spark, server, auth):
    single = sx.traverse(server, label="Object", key="id", value=1, auth=auth)
    assert_equals_single_stream(spark, server, single, 3, auth)
    schema = read(spark, server, "nodes", 3, auth).schema
    instant = StructType([StructField("instant", LongType()), StructField("zone", StringType())])
    point = StructType([StructField(n, t) for n, t in
                        (("srid", IntegerType()), ("x", DoubleType()), ("y", DoubleType()), ("z", DoubleType()))])
    expected = {"element_id": StringType(), "id": LongType(), "labels": ArrayType(StringType()),
                "flag": BooleanType(), "n": LongType(), "n:string": StringType(), "x": DoubleType(),
                "s": StringType(), "pt": point, "pt3": point, "d": DateType(), "dFar": DateType(), "lt": LongType(),
                "t": StructType([StructField("time", LongType()), StructField("offset_seconds", IntegerType())]),
                "ldt": LongType(), "zdt": instant, "zdtOffset": instant, "zdtFar": instant,
                "dur": StructType([StructField(n, LongType()) for n in ("months", "days", "seconds")]
                                  + [StructField("nanoseconds", IntegerType())]),
                "ints": ArrayType(LongType()), "dates": ArrayType(DateType()),
                "zdts": ArrayType(instant), "lts": ArrayType(LongType()),
                "extra_properties": StringType()}
    for name, t in expected.items():
        assert schema[name].dataType == t, name
    assert schema["zdt"].metadata == {"subgraph.key": "zdt", "subgraph.type": "datetime"}
    assert schema["element_id"].metadata["subgraph.state"] == single.state
    mine = spark.impl
    spark.impl = "python" if mine == "jvm" else "jvm"
    theirs = read(spark, server, "nodes", 3, auth).schema
    spark.impl = mine
    assert theirs == schema  # names, types, nullability and metadata
    assert [f.metadata for f in theirs.fields] == [f.metadata for f in schema.fields]
    assert BinaryType  # UUIDs (16 bytes) and vectors (arrays) are not in this fixture: the README's table


def test_the_demo_graph_equals_the_single_stream(spark, demo):
    single = sx.traverse(demo, label="Object", key="id", value=1)
    assert single.summary.nodes > 4 * 256, "records in every partition"
    assert_equals_single_stream(spark, demo, single, 4)


def test_a_partition_cut_mid_read_is_fetched_again(spark, demo):
    # fetch 1 of each partition is load()'s schema read, fetch 2 the query's read
    proxy = Proxy(demo, lambda partition, fetch: ("cut", 40000) if (partition, fetch) == (1, 2) else None)
    try:
        df = read(spark, proxy.url, "nodes", 3)
        assert_same_rows(df.toArrow(), sx.traverse(demo, label="Object", key="id", value=1).nodes)
        # the cut read asked again (a busy server's 503s, waited out, can add requests to any partition)
        assert proxy.fetches[1] >= 3 and proxy.fetches[0] >= 2 and proxy.fetches[2] >= 2
    finally:
        proxy.close()


def test_a_commit_in_the_middle_fails_the_query_and_a_new_load_reads_the_new_state(spark, demo):
    proxy = Proxy(demo, lambda partition, fetch: (lambda: touch(demo)) if (partition, fetch) == (2, 2) else None)
    try:
        df = read(spark, proxy.url, "relationships", 3)
        with pytest.raises(Exception, match="Export.StateChanged: the database moved on from state"):
            df.toArrow()
        if spark.impl == "jvm":  # every query is planned anew: at the state the database is in now
            assert df.count() == sx.traverse(demo, label="Object", key="id", value=1).summary.relationships
        else:
            with pytest.raises(Exception, match="Export.StateChanged"):
                df.count()  # PySpark plans a Python data source's read once per DataFrame: its state stays
        again = read(spark, proxy.url, "relationships", 3)
        assert_same_rows(again.toArrow(), sx.traverse(demo, label="Object", key="id", value=1).relationships)
    finally:
        proxy.close()


def test_a_commit_between_load_and_query_restarts_at_the_new_state_or_fails(spark, demo):
    restarting = read(spark, demo, "nodes", 2)
    failing = read(spark, demo, "nodes", 2, onStateChange="fail")
    touch(demo)
    assert restarting.count() == sx.traverse(demo, label="Object", key="id", value=1).summary.nodes
    with pytest.raises(Exception, match="Export.StateChanged"):
        failing.count()


def test_bad_options_are_refused_when_loading(spark, demo):
    with pytest.raises(Exception, match="unknown option.*colour"):
        read(spark, demo, "nodes", 2, colour="red")
    with pytest.raises(Exception, match="entities must be"):
        read(spark, demo, "edges", 2)


def test_without_the_jar_register_serves_the_python_data_source(demo):
    # a session of its own (one per process), without spark.jars: register() falls back and says so
    script = f"""
import os, sys
os.environ["PYSPARK_PYTHON"] = sys.executable
from pyspark.sql import SparkSession
import subgraph_export.spark
spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
print("implementation", subgraph_export.spark.register(spark))
df = (spark.read.format("subgraph_export").option("url", {demo!r}).option("label", "Object").option("key", "id")
      .option("value", "1").option("partitions", 2).load())
print("rows", df.count())
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith(("implementation", "rows"))]
    assert lines == ["implementation python", f"rows {sx.traverse(demo, **ROOT).summary.nodes}"]
