package org.subgraphexport.spark;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.subgraphexport.wire.Wire;

/**
 * A partitioned export as Spark sees it before reading it (the Python package's {@code _engines.Layout}): the state
 * every partition is pinned to and, for one kind, every (key, type) property column with its name. The columns come
 * from the first message of the whole export (the single stream's schema: its catch-all group has a column for every
 * (key, type) of the kind in the first batch, named as the single stream names them) and of each partition, pinned to
 * that state: a (key, type) only a partition's first batch held gets a column too, named as the server names a
 * further type. Only schemas are read: each request is dropped after its first message.
 */
final class Layout {
    static final String META_STATE = Wire.Arrow.META_STATE, META_DATABASE = Wire.Arrow.META_DATABASE,
            META_ROOT = Wire.Arrow.META_ROOT;
    static final String ELEMENT_ID = Wire.Arrow.ELEMENT_ID;
    static final List<String> NODE_COLUMNS = List.of(ELEMENT_ID, "id", "labels");
    static final List<String> RELATIONSHIP_COLUMNS = List.of(ELEMENT_ID, "id", "type", "source", "target",
            Wire.Arrow.SOURCE_ELEMENT_ID, Wire.Arrow.TARGET_ELEMENT_ID);

    /** A property column: its key and wire type, its name, and its Arrow field as the server sent it. */
    record Column(String key, String type, String name, Field field) {}

    final String state, database, root;
    final List<Column> columns;

    private Layout(String state, String database, String root, List<Column> columns) {
        this.state = state;
        this.database = database;
        this.root = root;
        this.columns = columns;
    }

    /**
     * The layout of the export in {@code settings.partitions} partitions: pinned to the {@code state} option if
     * given, else to the state the server reads now. When the database moves on while the partitions' schemas are
     * read, it starts over (restart, at most maxRestarts times) or fails.
     */
    static Layout probe(Settings settings) {
        int restarts = 0;
        while (true) {
            try {
                return probeOnce(settings);
            } catch (Changed changed) {
                if (!settings.restart || restarts == settings.maxRestarts || settings.pinned != null) {
                    throw changed.failure(restarts);
                }
                restarts++;
            }
        }
    }

    /** The state the server reads now: the header of a one-node export of the walk ({@code limit=1}). */
    static String currentState(Settings settings) {
        try (BufferAllocator allocator = new RootAllocator();
             ArrowStream s = new ArrowStream(Requests.open(settings, settings.endpoint("limit=1", true)), allocator)) {
            return s.meta(META_STATE);
        } catch (IOException e) {
            throw Failures.unchecked(e);
        }
    }

    private static Layout probeOnce(Settings settings) throws Changed {
        try (BufferAllocator allocator = new RootAllocator()) {
            Schema whole = schema(settings, allocator, null, settings.pinned);
            String state = whole.getCustomMetadata().getOrDefault(META_STATE, "");
            if (state.isEmpty()) {
                throw new IllegalStateException("the server names no store state (wire format version 1): it cannot"
                        + " pin partitions");
            }
            List<Column> columns = new ArrayList<>(columns(whole, settings.nodes));
            int n = settings.partitions;
            if (n > 1) {
                List<Schema> schemas = new ArrayList<>();
                ExecutorService pool = Executors.newFixedThreadPool(Math.min(n, 2), r -> {
                    Thread t = new Thread(r, "subgraph-export-probe");
                    t.setDaemon(true);
                    return t;
                });
                try {
                    List<Future<Schema>> futures = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        int partition = i;
                        futures.add(pool.submit(() -> schema(settings, allocator, partition, state)));
                    }
                    for (Future<Schema> f : futures) {
                        try {
                            schemas.add(f.get());
                        } catch (java.util.concurrent.ExecutionException e) {
                            if (e.getCause() instanceof Changed changed) throw changed;
                            if (e.getCause() instanceof RuntimeException r) throw r;
                            throw new IllegalStateException(e.getCause());
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new IllegalStateException("interrupted while reading the partitions' schemas", e);
                        }
                    }
                } finally {
                    pool.shutdownNow();
                }
                Set<List<String>> known = new HashSet<>();
                // the names the server takes before any property's: the fixed and derived columns (Wire.Arrow)
                Set<String> taken = new HashSet<>(settings.nodes ? NODE_COLUMNS : RELATIONSHIP_COLUMNS);
                taken.add(Wire.Arrow.EXTRA);
                for (Column c : columns) {
                    known.add(List.of(c.key, c.type));
                    taken.add(c.name);
                }
                for (Schema s : schemas) {
                    for (Column c : columns(s, settings.nodes)) {
                        if (!known.add(List.of(c.key, c.type))) continue;
                        String name = taken.contains(c.key) ? c.key + ":" + c.type : c.key;
                        for (int k = 2; taken.contains(name); k++) {
                            name = c.key + ":" + c.type + ":" + k;
                        }
                        taken.add(name);
                        columns.add(new Column(c.key, c.type, name, c.field));
                    }
                }
            }
            Map<String, String> h = whole.getCustomMetadata();
            return new Layout(state, h.getOrDefault(META_DATABASE, ""), h.getOrDefault(META_ROOT, ""),
                    List.copyOf(columns));
        }
    }

    /** The first message of a request (partition {@code partition} pinned to {@code state}, or the whole export). */
    private static Schema schema(Settings settings, BufferAllocator allocator, Integer partition, String state)
            throws Changed {
        String extra = partition == null ? "" : "partitions=" + settings.partitions + "&partition=" + partition;
        if (state != null) {
            extra += (extra.isEmpty() ? "" : "&") + "state=" + Settings.encode(state);
        }
        try (ArrowStream s = new ArrowStream(Requests.open(settings, settings.endpoint(extra, false)), allocator)) {
            String read = s.meta(META_STATE);
            if (state != null && !read.equals(state)) {
                throw new Changed(state, read);
            }
            return s.schema;
        } catch (Requests.Refused e) {
            if (Failures.STATE_CHANGED.equals(e.code()) && state != null) {
                throw new Changed(state, e.state.isEmpty() ? Failures.movedTo(e.getMessage()) : e.state);
            }
            throw Failures.unchecked(e);
        } catch (IOException e) {
            throw Failures.unchecked(e);
        }
    }

    /** The property columns of a stream's kind, in the writer's order: the catch-all group's (child 0 or 1). */
    private static List<Column> columns(Schema schema, boolean nodes) {
        Field group = schema.getFields().get(0).getChildren().get(nodes ? 0 : 1);
        List<Column> columns = new ArrayList<>();
        for (Field f : group.getChildren()) {
            Map<String, String> m = f.getMetadata();
            if (m != null && m.containsKey(Wire.Arrow.META_KEY)) {
                columns.add(new Column(m.get(Wire.Arrow.META_KEY), m.get(Wire.Arrow.META_TYPE), f.getName(), f));
            }
        }
        return columns;
    }

    /**
     * The Spark schema: the kind's fixed columns, a column per property column (its metadata naming its key and wire
     * type, {@code subgraph.key} and {@code subgraph.type}), {@code extra_properties}; {@code element_id}'s metadata
     * names the state, database and root read.
     */
    StructType sparkSchema(boolean nodes) {
        List<StructField> fields = new ArrayList<>();
        for (String name : nodes ? NODE_COLUMNS : RELATIONSHIP_COLUMNS) {
            Metadata meta = Metadata.empty();
            if (name.equals(ELEMENT_ID)) {
                meta = new MetadataBuilder().putString(META_STATE, state).putString(META_DATABASE, database)
                        .putString(META_ROOT, root).build();
            }
            DataType type = switch (name) {
                case "id", "source", "target" -> DataTypes.LongType;
                case "labels" -> new ArrayType(DataTypes.StringType, true);
                default -> DataTypes.StringType;
            };
            fields.add(new StructField(name, type, true, meta));
        }
        for (Column c : columns) {
            MetadataBuilder meta = new MetadataBuilder();
            Map<String, String> m = c.field.getMetadata();
            new java.util.TreeMap<>(m).forEach((k, v) -> {
                if (k.startsWith("subgraph.")) meta.putString(k, v);
            });
            fields.add(new StructField(c.name, sparkType(c.field), true, meta.build()));
        }
        fields.add(new StructField(Wire.Arrow.EXTRA, DataTypes.StringType, true, Metadata.empty()));
        return new StructType(fields.toArray(new StructField[0]));
    }

    /** The (key, wire type) of each property column of a Spark schema this source made, by column position. */
    static Map<List<String>, Integer> propertyColumns(StructType schema) {
        Map<List<String>, Integer> at = new LinkedHashMap<>();
        StructField[] fields = schema.fields();
        for (int i = 0; i < fields.length; i++) {
            Metadata m = fields[i].metadata();
            if (m.contains(Wire.Arrow.META_KEY)) {
                at.put(List.of(m.getString(Wire.Arrow.META_KEY), m.getString(Wire.Arrow.META_TYPE)), i);
            }
        }
        return at;
    }

    /**
     * The Spark type a column of Arrow field {@code f} is read into: exact, and one Spark has. Local times and
     * nanosecond timestamps as long nanoseconds (Spark keeps microseconds only), a char (uint16) as int, a UUID as its
     * 16 bytes, dictionaries decoded; lists (elements nullable) and structs (children as the server declares them)
     * element by element. The Python source's {@code spark_type} with PySpark's {@code from_arrow_type}.
     */
    static DataType sparkType(Field f) {
        ArrowType t = f.getType();
        if (t instanceof ArrowType.ExtensionType e) {  // arrow.uuid, when Arrow Java knows it: its 16 bytes
            t = e.storageType();
        }
        switch (t.getTypeID()) {
            case Int: {
                ArrowType.Int i = (ArrowType.Int) t;
                if (!i.getIsSigned()) {
                    if (i.getBitWidth() == 16) return DataTypes.IntegerType;
                    break;
                }
                return switch (i.getBitWidth()) {
                    case 8 -> DataTypes.ByteType;
                    case 16 -> DataTypes.ShortType;
                    case 32 -> DataTypes.IntegerType;
                    default -> DataTypes.LongType;
                };
            }
            case FloatingPoint:
                return ((ArrowType.FloatingPoint) t).getPrecision()
                        == org.apache.arrow.vector.types.FloatingPointPrecision.SINGLE
                        ? DataTypes.FloatType : DataTypes.DoubleType;
            case Bool:
                return DataTypes.BooleanType;
            case Utf8:
                return DataTypes.StringType;
            case Binary:
            case FixedSizeBinary:
                return DataTypes.BinaryType;
            case Date:
                return DataTypes.DateType;
            case Time:
            case Timestamp:
                return DataTypes.LongType;
            case List:
                return new ArrayType(sparkType(f.getChildren().get(0)), true);
            case Struct: {
                List<StructField> children = new ArrayList<>();
                for (Field c : f.getChildren()) {
                    children.add(new StructField(c.getName(), sparkType(c), c.isNullable(), Metadata.empty()));
                }
                return new StructType(children.toArray(new StructField[0]));
            }
            default:
                break;
        }
        throw new IllegalStateException("the export has a column of Arrow type " + t + " (" + f.getName()
                + ") that this source does not know: a newer server?");
    }

    /** The database moved on from {@code expected} (the pinned state) to {@code actual}. */
    static final class Changed extends Exception {
        private static final long serialVersionUID = 1L;
        final String expected, actual;

        Changed(String expected, String actual) {
            super(null, null, false, false);
            this.expected = expected;
            this.actual = actual;
        }

        RuntimeException failure(int restarts) {
            return Failures.stateChanged(expected, actual, restarts);
        }
    }
}
