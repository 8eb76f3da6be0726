"""The Spark data source: every Spark partition reads its own partition of one export straight from the server, in
Arrow, pinned to one store state. Two implementations of one contract (options, schema, values):

* the **JVM source** (``spark/`` in the repository, DataSource V2), which reads the Arrow stream in the executors
  straight into Spark's rows. It serves ``format("subgraph_export")`` when its jar is on the session's class path:
  start the session with ``.config("spark.jars", subgraph_export.spark.jar())`` (or ``--jars``);
* the **Python data source** below (PySpark 4's Python Data Source API, a Python worker per task), registered by
  :func:`register` when the session lacks the jar (e.g. Spark Connect, or a package installed without it).

>>> import subgraph_export.spark
>>> spark = SparkSession.builder.config("spark.jars", subgraph_export.spark.jar()).getOrCreate()  # doctest: +SKIP
>>> subgraph_export.spark.register(spark)  # doctest: +SKIP
'jvm'
>>> nodes = (spark.read.format("subgraph_export").option("url", "http://neo4j:7474")
...          .option("label", "Object").option("key", "id").option("value", 1)
...          .option("partitions", 8).option("entities", "nodes").load())  # doctest: +SKIP

Options (strings, as Spark passes them):

* ``url`` (required): the server's HTTP address; ``user`` and ``password``: HTTP Basic credentials;
* the walk, as the traverse endpoint takes it: ``root`` (an element id) or ``label``/``key``/``value`` (``value`` is
  read as the server reads it: a JSON literal when it is one), ``expand``, ``attach``, ``maxDepth``, ``limit``,
  ``db``, ``timeout`` (the server's budget per partition);
* ``entities``: ``nodes`` (default) or ``relationships``; ``partitions``: how many partitions, one Spark partition
  each (default 4);
* ``state``: a ``Subgraph-Export-State`` token to read exactly that state (e.g. the nodes' state for the
  relationships: ``df.schema["element_id"].metadata["subgraph.state"]``);
* ``attempts`` (3): requests per partition before a cut or failing partition fails its task;
  ``onStateChange``: ``restart`` (default) or ``fail``; ``maxRestarts`` (2); ``httpTimeout`` (seconds); ``mount``.

The schema comes from the export when ``load()`` runs (:mod:`subgraph_export._engines`: the single stream's columns
and every partition's); the columns and how each Neo4j type lands in Spark are in the package README ("Spark and
Dask"). A state change: ``load()`` pins the state it found. With ``restart`` a query reads the state the database is
in when Spark plans it, if its columns are those of the schema (else it fails: load again); with ``fail`` every query
reads the state of ``load()`` or fails with ``StateChangedError``. The JVM source plans every query of a DataFrame
anew; PySpark plans a Python data source's read once per DataFrame, at its first query, so there the later queries
keep that state. A commit while a query reads fails that query with ``Export.StateChanged`` in both cases: Spark
re-runs failed tasks, never the finished ones, so the partitions could not be read again at one new state within the
query; run it again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import pyarrow as pa

from ._engines import KINDS, Layout, Request, current_state, probe, read_partition
from ._errors import ExportError
from ._partitions import FAIL, RESTART

NAME = "subgraph_export"

try:
    from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
    from pyspark.sql.pandas.types import from_arrow_type, to_arrow_schema
    from pyspark.sql.types import StructField, StructType
except ImportError as e:  # pragma: no cover
    raise ImportError("the Spark data source needs PySpark 4: pip install 'subgraph-export[spark]'") from e

_OPTIONS = {"url", "user", "password", "root", "label", "key", "value", "expand", "attach", "maxdepth", "limit", "db",
            "timeout", "entities", "partitions", "state", "attempts", "onstatechange", "maxrestarts", "httptimeout",
            "mount"}


JVM_SOURCE = "org.subgraphexport.spark.SubgraphExportSource"


def jar() -> Optional[str]:
    """The path of the JVM source's jar in this package (``subgraph_export/jars``, put there by the Maven build of
    ``spark/``), or None if the package was installed without it."""
    found = sorted((Path(__file__).parent / "jars").glob("subgraph-export-spark-*.jar"))
    return str(found[-1]) if found else None


def register(spark: Any) -> str:
    """Makes ``spark.read.format("subgraph_export")`` read exports in this session and says which implementation
    serves it: ``"jvm"`` when the session has the JVM source on its class path (see :func:`jar`), else ``"python"``,
    the Python data source registered under that name. The Python data source is also registered as
    ``format("subgraph_export_python")`` in both cases, to compare the two."""
    spark.dataSource.register(PythonNamedDataSource)
    if _jvm_source(spark):
        return "jvm"
    spark.dataSource.register(SubgraphExportDataSource)
    return "python"


def _jvm_source(spark: Any) -> bool:
    """Whether Spark resolves the format name to the JVM source (classic sessions only: Spark Connect has no JVM
    here)."""
    try:
        jvm = spark._jvm
        found = jvm.org.apache.spark.sql.execution.datasources.DataSource.lookupDataSource(
            NAME, spark._jsparkSession.sessionState().conf())
        return bool(found.getName() == JVM_SOURCE)
    except Exception:  # noqa: BLE001 (no JVM, no such class, or the name unknown: the Python source serves)
        return False


def spark_type(t: pa.DataType) -> pa.DataType:
    """The Arrow type a column of the export's Arrow type ``t`` is handed to Spark in: exact, and one Spark has.
    Local times and nanosecond timestamps as int64 nanoseconds (Spark keeps microseconds only), a char as int32 (no
    unsigned types), a UUID as its 16 bytes, dictionaries decoded; lists and structs element by element."""
    if isinstance(t, pa.BaseExtensionType):
        return pa.binary()
    if pa.types.is_dictionary(t):
        return spark_type(t.value_type)
    if pa.types.is_time(t) or pa.types.is_timestamp(t):
        return pa.int64()
    if pa.types.is_uint16(t):
        return pa.int32()
    if pa.types.is_list(t):
        return pa.list_(spark_type(t.value_type))
    if pa.types.is_struct(t):
        return pa.struct([t.field(i).with_type(spark_type(t.field(i).type)) for i in range(t.num_fields)])
    return t


def spark_schema(layout: Layout, kind: bytes) -> StructType:
    """The Spark schema of one kind of the layout: a field per column, each property column's metadata naming its
    Neo4j key and wire type (``subgraph.key``, ``subgraph.type``); ``element_id``'s names the state read."""
    fields = []
    for f in layout.arrow_schema(kind):
        meta: Dict[str, str] = {k.decode(): v.decode() for k, v in (f.metadata or {}).items()}
        if f.name == "element_id":
            meta = {"subgraph.state": layout.state, "subgraph.database": layout.database, "subgraph.root": layout.root}
        fields.append(StructField(f.name, from_arrow_type(spark_type(f.type)), True, meta))
    return StructType(fields)


class _Settings:
    """The options, checked (unknown options are refused: a typo never silently changes the export)."""

    def __init__(self, options: Dict[str, str]) -> None:
        given = {k.lower(): v for k, v in options.items() if k.lower() != "path"}
        unknown = sorted(set(given) - _OPTIONS)
        if unknown:
            raise ValueError(f"unknown option(s) of the {NAME} data source: {', '.join(unknown)};"
                             f" known: {', '.join(sorted(_OPTIONS))}")
        if "url" not in given:
            raise ValueError(f'the {NAME} data source needs .option("url", "http://host:7474")')
        entities = given.get("entities", "nodes")
        if entities not in KINDS:
            raise ValueError(f'entities must be "nodes" or "relationships", got {entities!r}')
        self.kind = KINDS[entities]
        self.partitions = _integer(given, "partitions", 4, 1)
        on_state_change = given.get("onstatechange", RESTART)
        if on_state_change not in (RESTART, FAIL):
            raise ValueError(f"onStateChange must be {RESTART!r} or {FAIL!r}, got {on_state_change!r}")
        if ("user" in given) != ("password" in given):
            raise ValueError("user and password go together")
        query: Dict[str, Any] = {"root": given.get("root"), "label": given.get("label"), "key": given.get("key"),
                 "value": given.get("value"), "expand": given.get("expand"), "attach": given.get("attach"),
                 "max_depth": _optional_integer(given, "maxdepth", 0), "limit": _optional_integer(given, "limit", 0),
                 "db": given.get("db"), "timeout": given.get("timeout"), "state": given.get("state"),
                 "mount": given.get("mount", "/extension")}
        self.request = Request.of(
            given["url"], query.pop("root"), attempts=_integer(given, "attempts", 3, 1),
            on_state_change=on_state_change, max_restarts=_integer(given, "maxrestarts", 2, 0),
            auth=(given["user"], given["password"]) if "user" in given else None,
            http_timeout=float(given["httptimeout"]) if "httptimeout" in given else None,
            **{k: v for k, v in query.items() if v is not None})


def _integer(options: Dict[str, str], name: str, default: int, least: int) -> int:
    value = _optional_integer(options, name, least)
    return default if value is None else value


def _optional_integer(options: Dict[str, str], name: str, least: int) -> Optional[int]:
    if name not in options:
        return None
    try:
        value = int(options[name])
    except ValueError:
        raise ValueError(f"option {name} must be an integer, got {options[name]!r}") from None
    if value < least:
        raise ValueError(f"option {name} must be at least {least}, got {value}")
    return value


class SubgraphExportDataSource(DataSource):
    """``spark.read.format("subgraph_export")``: see the module's text for the options."""

    @classmethod
    def name(cls) -> str:
        return NAME

    def __init__(self, options: Dict[str, str]) -> None:
        super().__init__(options)
        self.settings = _Settings(dict(options))
        self.layout: Optional[Layout] = None

    def schema(self) -> StructType:
        self.layout = probe(self.settings.request, self.settings.partitions)  # kept: Spark pickles this instance
        return spark_schema(self.layout, self.settings.kind)

    def reader(self, schema: StructType) -> "DataSourceReader":
        settings = self.settings
        layout = self.layout if self.layout is not None else probe(settings.request, settings.partitions)
        if settings.request.on_state_change == RESTART and not settings.request.pinned():
            layout = _current(settings, layout)
        return _Reader(settings, layout, schema)


def _current(settings: _Settings, layout: Layout) -> Layout:
    """The layout to read now: ``layout`` if the database is still in its state, else the current state's, which must
    have the same columns (a Spark schema cannot change after ``load()``)."""
    if current_state(settings.request) == layout.state:
        return layout
    now = probe(settings.request, settings.partitions)
    for kind in (b"node", b"relationship"):
        have = {key: (name, f.type) for key, name, f in layout.columns[kind]}
        extra = [key for key, name, f in now.columns[kind] if have.get(key) != (name, f.type)]
        if extra:
            raise ExportError(f"the database moved on from state {layout.state} to {now.state} since load(), and the"
                              f" export now has columns the loaded schema lacks ({extra[0][0]!r} of type"
                              f" {extra[0][1]}): load() it again")
    return now


class _Reader(DataSourceReader):
    def __init__(self, settings: _Settings, layout: Layout, schema: StructType) -> None:
        self.settings, self.layout = settings, layout
        self.target = to_arrow_schema(schema, timezone="UTC")  # what Spark checks every batch against

    def partitions(self) -> List[InputPartition]:
        return [InputPartition(i) for i in range(self.layout.partitions)]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        kind = self.settings.kind
        table = read_partition(self.settings.request, self.layout, partition.value, (kind,))[kind]
        columns = [c.cast(f.type) if c.type != f.type else c for c, f in zip(table.columns, self.target)]
        table = pa.Table.from_arrays(columns, schema=self.target)
        yield from table.to_batches(max_chunksize=65536)


class PythonNamedDataSource(SubgraphExportDataSource):
    """The Python data source as ``format("subgraph_export_python")``, beside the JVM source in one session."""

    @classmethod
    def name(cls) -> str:
        return NAME + "_python"
