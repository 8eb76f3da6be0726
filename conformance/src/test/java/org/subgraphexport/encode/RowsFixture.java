package org.subgraphexport.encode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.subgraphexport.client.DurationValue;
import org.subgraphexport.client.ExportColumns;
import org.subgraphexport.client.ExportEnd;
import org.subgraphexport.client.ExportHeader;
import org.subgraphexport.client.ExportNode;
import org.subgraphexport.client.ExportRecord;
import org.subgraphexport.client.ExportRelationship;
import org.subgraphexport.client.ExportRow;
import org.subgraphexport.client.NodeRef;
import org.subgraphexport.client.PathValue;
import org.subgraphexport.client.PointValue;
import org.subgraphexport.client.RelationshipRef;
import org.subgraphexport.client.Subgraph;
import org.subgraphexport.client.VectorValue;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.TokenNames;
import org.subgraphexport.wire.ValueSink.VectorKind;
import org.subgraphexport.wire.ValueSink;
import org.subgraphexport.wire.Wire;

/**
 * A deterministic rows stream (Cypher {@code mode=rows}): header, columns (one with a Unicode name), nodes and
 * relationships mixed with rows, each written before the first row that refers to it; row values of every scalar
 * type, typed arrays as list values, nested lists and maps several levels deep, nulls, empty lists and maps, node
 * and relationship references (also inside lists and maps) and paths (a single node, one hop, two hops with a
 * relationship traversed against its direction). Values are the decoded Java types; {@link #writeRowValue} maps
 * each to its {@link ValueSink} calls.
 */
public final class RowsFixture {
    public static final String NODE_PREFIX = FixtureStream.NODE_PREFIX;
    public static final String REL_PREFIX = FixtureStream.REL_PREFIX;
    /** The state a fixture stream names in its header and end record. */
    public static final String STATE = "3f1c2d4e-0000-4000-8000-00000000abcd:42";
    public static final Header HEADER = new Header("neo4j", "", NODE_PREFIX, REL_PREFIX, STATE, 2, 3);
    public static final List<String> COLUMNS = List.of("n", "scalars", "nested", "r", "p", "nothing", "名前 ✓");

    private static final int PERSON = 0, CITY = 7, KNOWS = 0, LIVES_IN = 3, NAME = 0, AGE = 1, SINCE = 4;

    /** Records in stream order: ExportNode, ExportRelationship, ExportRow (the decoded form). */
    private final List<ExportRecord> records = new ArrayList<>();

    private RowsFixture() {}

    public static RowsFixture standard() {
        RowsFixture f = new RowsFixture();
        f.records.add(node(0, List.of("Person"), props("name", "Ann", "age", 42L)));
        f.records.add(node(1, List.of("Person"), props("name", "Bob", "age", 17L)));
        f.records.add(rel(10, "KNOWS", 0, 1, props("since", LocalDate.of(2020, 1, 31))));
        f.records.add(row(n(0), scalars(), nested(), r(10), path(new long[] {0, 1}, new long[] {10}), null,
                "ünïcödé 😀"));
        f.records.add(node(2, List.of("City"), props("name", "Malmö")));
        f.records.add(rel(11, "LIVES_IN", 2, 1, props()));  // traversed 1 <- 2 below: against its direction
        f.records.add(row(n(2), list(), map(), null, path(new long[] {2}, new long[0]), list(null, null),
                Long.MIN_VALUE));
        f.records.add(row(list(n(1), r(11), map("who", n(0), "how", r(10))), list(map("a", list()), list(map())),
                deep(6), list(r(10), r(11)), path(new long[] {0, 1, 2}, new long[] {10, 11}),
                map("null", null, "nan", Double.NaN), new long[] {1, 2, 3}));
        f.records.add(row(null, null, null, null, null, null, null));
        return f;
    }

    /** Every scalar type a row may carry, and typed arrays, as one list. */
    private static List<Object> scalars() {
        return list(true, false, (byte) -7, (short) -300, 42, 0L, Long.MAX_VALUE, 3.14f, -2.5e-300, 1.0,
                Double.NEGATIVE_INFINITY, 'é', "", "plain", "日本語 😀", new byte[] {0, 1, -1, 127, -128}, new byte[0],
                new PointValue(4326, new double[] {12.994823, 55.612191}), new PointValue(9157, new double[] {1, 2, 3}),
                new DurationValue(14, -3, 7200, 5), LocalDate.of(-44, 3, 15), LocalTime.of(23, 59, 59, 999_999_999),
                OffsetTime.of(10, 15, 30, 1, ZoneOffset.ofHours(14)),
                LocalDateTime.of(1969, 12, 31, 23, 59, 59, 500_000_000),
                ZonedDateTime.of(2015, 7, 4, 19, 32, 24, 123_456_789, ZoneId.of("Europe/Berlin")),
                ZonedDateTime.of(2015, 7, 4, 19, 32, 24, 0, ZoneOffset.ofHoursMinutes(5, 30)),
                UUID.fromString("123e4567-e89b-42d3-a456-426614174000"),
                new VectorValue(VectorKind.FLOAT32, new float[] {0.25f, Float.NaN}),
                new VectorValue(VectorKind.INT8, new byte[] {-128, 127}), new int[] {1, -1}, new String[] {"a", "ü"},
                new long[0], new LocalDate[] {LocalDate.EPOCH}, new DurationValue[] {new DurationValue(1, 2, 3, 4)});
    }

    /** Lists and maps nested several levels, with empty ones, nulls and Unicode keys. */
    private static Map<String, Object> nested() {
        return map("a", list(1L, list(2L, list(3L, map("deep", list(null, map(), list()))))),
                "empty list", list(), "empty map", map(), "unicode ключ 🔑", "值", "", "empty key",
                "mixed", list("s", 1L, 2.5, true, null, new PointValue(7203, new double[] {0, 0}), map("x", list(list()))));
    }

    /** {@code levels} lists inside each other, a long at the bottom. */
    public static Object deep(int levels) {
        Object v = 7L;
        for (int i = 0; i < levels; i++) {
            v = list(v);
        }
        return v;
    }

    // ---- building -----------------------------------------------------------------------------------------

    private static ExportNode node(long id, List<String> labels, Map<String, Object> properties) {
        return new ExportNode(NODE_PREFIX + id, labels, properties);
    }

    private static ExportRelationship rel(long id, String type, long start, long end, Map<String, Object> properties) {
        return new ExportRelationship(REL_PREFIX + id, type, NODE_PREFIX + start, NODE_PREFIX + end, properties);
    }

    private static ExportRow row(Object... values) {
        return new ExportRow(Arrays.asList(values));
    }

    public static NodeRef n(long id) {
        return new NodeRef(NODE_PREFIX + id);
    }

    public static RelationshipRef r(long id) {
        return new RelationshipRef(REL_PREFIX + id);
    }

    public static PathValue path(long[] nodes, long[] relationships) {
        return new PathValue(Arrays.stream(nodes).mapToObj(id -> NODE_PREFIX + id).toList(),
                Arrays.stream(relationships).mapToObj(id -> REL_PREFIX + id).toList());
    }

    public static List<Object> list(Object... values) {
        return new ArrayList<>(Arrays.asList(values));
    }

    public static Map<String, Object> map(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return m;
    }

    private static Map<String, Object> props(Object... keysAndValues) {
        return map(keysAndValues);
    }

    // ---- writing ------------------------------------------------------------------------------------------

    public TokenNames tokens() {
        return new TokenNames() {
            @Override
            public String label(int id) {
                return switch (id) {
                    case PERSON -> "Person";
                    case CITY -> "City";
                    default -> throw new IllegalArgumentException("label " + id);
                };
            }

            @Override
            public String relationshipType(int id) {
                return switch (id) {
                    case KNOWS -> "KNOWS";
                    case LIVES_IN -> "LIVES_IN";
                    default -> throw new IllegalArgumentException("type " + id);
                };
            }

            @Override
            public String propertyKey(int id) {
                return switch (id) {
                    case NAME -> "name";
                    case AGE -> "age";
                    case SINCE -> "since";
                    default -> throw new IllegalArgumentException("key " + id);
                };
            }
        };
    }

    /** The whole stream: records, end, finish. */
    public void write(GraphWriter w) throws IOException {
        writeRecords(w, tokens());
        w.end(count(ExportNode.class), count(ExportRelationship.class), false, STATE);
        w.finish();
    }

    /** Header, columns and all records; no closing record, no finish. */
    public void writeRecords(GraphWriter w, TokenNames tokens) throws IOException {
        w.header(HEADER, tokens);
        w.columns(COLUMNS.toArray(String[]::new));
        for (ExportRecord record : records) {
            switch (record) {
                case ExportNode n -> {
                    w.beginNode(id(n.id(), NODE_PREFIX), n.labels().stream().mapToInt(RowsFixture::labelId).toArray(),
                            n.labels().size());
                    writeProperties(w, n.properties());
                    w.endNode();
                }
                case ExportRelationship r -> {
                    w.beginRelationship(id(r.id(), REL_PREFIX), r.type().equals("KNOWS") ? KNOWS : LIVES_IN,
                            id(r.start(), NODE_PREFIX), id(r.end(), NODE_PREFIX));
                    writeProperties(w, r.properties());
                    w.endRelationship();
                }
                case ExportRow row -> {
                    w.beginRow();
                    for (Object v : row.values()) {
                        writeRowValue(w, v);
                    }
                    w.endRow();
                }
                default -> throw new IllegalStateException(record.toString());
            }
        }
    }

    private static int labelId(String label) {
        return label.equals("Person") ? PERSON : CITY;
    }

    private static void writeProperties(GraphWriter w, Map<String, Object> properties) throws IOException {
        for (Map.Entry<String, Object> e : properties.entrySet()) {
            w.property(switch (e.getKey()) {
                case "name" -> NAME;
                case "age" -> AGE;
                default -> SINCE;
            });
            FixtureStream.writeValue(w, e.getValue());
        }
    }

    /** Maps a decoded row value to its {@link ValueSink} calls. */
    public static void writeRowValue(ValueSink s, Object v) throws IOException {
        switch (v) {
            case null -> s.writeNull();
            case List<?> list -> {
                s.beginList(list.size());
                for (Object e : list) {
                    writeRowValue(s, e);
                }
                s.endList();
            }
            case Map<?, ?> map -> {
                s.beginMap(map.size());
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    s.mapKey((String) e.getKey());
                    writeRowValue(s, e.getValue());
                }
                s.endMap();
            }
            case NodeRef ref -> s.writeNodeRef(id(ref.id(), NODE_PREFIX));
            case RelationshipRef ref -> s.writeRelationshipRef(id(ref.id(), REL_PREFIX));
            case PathValue p -> s.writePath(p.nodes().stream().mapToLong(id -> id(id, NODE_PREFIX)).toArray(),
                    p.relationships().stream().mapToLong(id -> id(id, REL_PREFIX)).toArray());
            default -> FixtureStream.writeValue(s, v);
        }
    }

    private static long id(String elementId, String prefix) {
        return Long.parseLong(elementId.substring(prefix.length()));
    }

    private long count(Class<? extends ExportRecord> type) {
        return records.stream().filter(type::isInstance).count();
    }

    public byte[] bytes(Format format) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            write(Encoders.open(format, out));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** The records a decoder returns after the header, in order, without the end record. */
    public List<ExportRecord> records() {
        List<ExportRecord> all = new ArrayList<>();
        all.add(new ExportColumns(COLUMNS));
        all.addAll(records);
        return all;
    }

    /** What {@link Subgraph#read} must return. */
    public Subgraph expected() {
        Map<String, ExportNode> nodes = new LinkedHashMap<>();
        Map<String, ExportRelationship> rels = new LinkedHashMap<>();
        List<ExportRow> rows = new ArrayList<>();
        for (ExportRecord r : records) {
            switch (r) {
                case ExportNode n -> nodes.put(n.id(), n);
                case ExportRelationship rel -> rels.put(rel.id(), rel);
                case ExportRow row -> rows.add(row);
                default -> throw new IllegalStateException();
            }
        }
        return new Subgraph(new ExportHeader(Wire.VERSION, HEADER.database(), HEADER.root(), STATE, HEADER.partition(),
                HEADER.partitions()), nodes, rels,
                new ExportEnd(nodes.size(), rels.size(), false, rows.size(), STATE), COLUMNS, rows);
    }
}
