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
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.subgraphexport.client.DurationValue;
import org.subgraphexport.client.ExportEnd;
import org.subgraphexport.client.ExportHeader;
import org.subgraphexport.client.ExportNode;
import org.subgraphexport.client.ExportRelationship;
import org.subgraphexport.client.PointValue;
import org.subgraphexport.client.Subgraph;
import org.subgraphexport.client.VectorValue;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.TokenNames;
import org.subgraphexport.wire.ValueSink.ArrayKind;
import org.subgraphexport.wire.ValueSink.VectorKind;
import org.subgraphexport.wire.ValueSink;
import org.subgraphexport.wire.Wire;

/**
 * A deterministic fixture export: drives a {@link GraphWriter} with a header, nodes and relationships carrying
 * every value type (each scalar, each array kind including empty arrays, Unicode, all temporal types, points in
 * four CRSs, non-finite floats, extreme longs, each vector kind), repeated labels, types and keys, and an end
 * record; and gives the {@link Subgraph} a decoder must return. Values are the decoded Java types; the driver
 * maps each to its {@link ValueSink} call. {@link #compact()} leaves out the large values of {@link #full()}.
 */
public final class FixtureStream {
    public static final String NODE_PREFIX = "4:3f1c2d4e-0000-4000-8000-00000000abcd:";
    public static final String REL_PREFIX = "5:3f1c2d4e-0000-4000-8000-00000000abcd:";
    /** The state a fixture stream names in its header and end record. */
    public static final String STATE = "3f1c2d4e-0000-4000-8000-00000000abcd:42";
    public static final Header HEADER = new Header("neo4j", NODE_PREFIX + 0, NODE_PREFIX, REL_PREFIX, STATE, 0, 1);

    /** Database token ids: sparse, some beyond the writers' initial table sizes. */
    private static final Map<String, Integer> LABEL_IDS =
            Map.of("Object", 0, "Thing", 3, "Ünïcödé 🏷", 200, "Empty", 1);
    private static final Map<String, Integer> TYPE_IDS = Map.of("CHILDREN", 0, "LINKS", 2, "SELF", 40);

    /** Token names from arrays indexed by token id (the arrays are read at each call, not copied). */
    public static TokenNames tokens(String[] labels, String[] types, String[] keys) {
        return new TokenNames() {
            @Override
            public String label(int id) {
                return labels[id];
            }

            @Override
            public String relationshipType(int id) {
                return types[id];
            }

            @Override
            public String propertyKey(int id) {
                return keys[id];
            }
        };
    }

    /** A property: what the writer is given, and what a decoder returns (the same except for lone surrogates). */
    public record Prop(String key, Object written, Object decoded) {}

    public record N(long id, List<String> labels, List<Prop> props) {}

    public record R(long id, String type, long start, long end, List<Prop> props) {}

    private final List<Object> items = new ArrayList<>();
    private final Map<String, Integer> keyIds = new LinkedHashMap<>();
    private final boolean truncated;

    private FixtureStream(boolean truncated) {
        this.truncated = truncated;
    }

    /** Every value type, small: a few KiB in each format. */
    public static FixtureStream compact() {
        return build(false);
    }

    /** {@link #compact()} plus a 100k-char Unicode string, a 100k-char ASCII string and a 200 KB byte array. */
    public static FixtureStream full() {
        return build(true);
    }

    /** A tiny stream: header, two nodes, one relationship, end (truncated flag set). */
    public static FixtureStream small() {
        FixtureStream f = new FixtureStream(true);
        f.node(0, List.of("Object"), p("name", "root"), p("n", 1L));
        f.node(1, List.of("Object", "Thing"), p("name", "é😀"), p("xs", new int[] {1, -2}));
        f.rel(0, "CHILDREN", 0, 1, p("w", 0.5));
        return f;
    }

    private static FixtureStream build(boolean large) {
        FixtureStream f = new FixtureStream(false);
        f.node(0, List.of("Object"),
                p("name", "root"), p("bool", true), p("boolFalse", false), p("byte", (byte) -7),
                p("short", (short) -300), p("int", Integer.MIN_VALUE), p("intZero", 0), p("long", Long.MAX_VALUE),
                p("longMin", Long.MIN_VALUE), p("longZero", 0L), p("float", 3.14f), p("double", -2.5e-300),
                p("doubleOne", 1.0), p("doubleBig", 1e20), p("char", 'é'), p("charAscii", 'x'),
                p("string", "plain ascii"));
        f.node(12, List.of("Object", "Thing"),
                p("name", "héllo wörld"), p("cjk", "日本語テキスト"), p("emoji", "😀👍🏽 family: 👨‍👩‍👧"),
                new Prop("unpaired", "a\uD800b\uDC00c\uD83D", "a?b?c?"), p("empty", ""), p("nul", "a\u0000b"),
                p("controls", "tab\tnewline\nquote\"backslash\\"), p("bytesEmpty", new byte[0]),
                p("bytes", new byte[] {0, 1, -1, 127, -128}), p("bytesRandom", randomBytes(300, 1)));
        f.node(13, List.of("Thing", "Ünïcödé 🏷"),
                p("date", LocalDate.of(2020, 1, 31)), p("dateBc", LocalDate.of(-44, 3, 15)),
                p("dateFar", LocalDate.of(12345, 1, 1)),
                p("localtime", LocalTime.of(23, 59, 59, 999_999_999)), p("localtimeMidnight", LocalTime.MIDNIGHT),
                p("time", OffsetTime.of(10, 15, 30, 1, ZoneOffset.ofHours(14))),
                p("timeNegative", OffsetTime.of(0, 0, 0, 0, ZoneOffset.ofHoursMinutes(-9, -30))),
                p("localdatetime", LocalDateTime.of(1969, 12, 31, 23, 59, 59, 500_000_000)),
                p("datetime", ZonedDateTime.of(2015, 7, 4, 19, 32, 24, 123_456_789, ZoneId.of("Europe/Berlin"))),
                p("datetimeOffset", ZonedDateTime.of(2015, 7, 4, 19, 32, 24, 0, ZoneOffset.ofHoursMinutes(5, 30))),
                p("datetimeUtc", ZonedDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC)),
                p("datetimeOverlap", ZonedDateTime.of(2021, 10, 31, 2, 30, 0, 0, ZoneId.of("Europe/Berlin"))
                        .withLaterOffsetAtOverlap()),
                p("duration", new DurationValue(14, 3, 7200, 5)), p("durationNegative", new DurationValue(-14, -3, -7201, -500)),
                p("point2d", new PointValue(7203, new double[] {1.5, -2.25})),
                p("point3d", new PointValue(9157, new double[] {1, 2, 3})),
                p("wgs84", new PointValue(4326, new double[] {12.994823, 55.612191})),
                p("wgs843d", new PointValue(4979, new double[] {12.994823, 55.612191, 100.5})),
                p("uuid", UUID.fromString("123e4567-e89b-42d3-a456-426614174000")),
                p("uuidExtremes", new UUID(-1L, 0L)));
        f.node(14, List.of(),
                p("floatNaN", Float.NaN), p("floatInf", Float.POSITIVE_INFINITY), p("floatNegInf",
                        Float.NEGATIVE_INFINITY), p("floatNegZero", -0.0f), p("floatMin", Float.MIN_VALUE),
                p("floatMax", Float.MAX_VALUE), p("doubleNaN", Double.NaN), p("doubleInf", Double.POSITIVE_INFINITY),
                p("doubleNegInf", Double.NEGATIVE_INFINITY), p("doubleNegZero", -0.0),
                p("doubleMin", Double.MIN_VALUE), p("doubleMax", Double.MAX_VALUE), p("doubleTenth", 0.1));
        f.node(15, List.of("Object"),
                p("booleans", new boolean[] {true, false, true}), p("shorts", new short[] {Short.MIN_VALUE, -1, 0,
                        Short.MAX_VALUE}), p("ints", new int[] {Integer.MIN_VALUE, -1, 0, 1, Integer.MAX_VALUE}),
                p("longs", new long[] {Long.MIN_VALUE, -1, 0, 1, Long.MAX_VALUE}),
                p("floats", new float[] {1.5f, Float.NaN, Float.NEGATIVE_INFINITY, -0.0f, 0.1f}),
                p("doubles", new double[] {0.1, Double.NaN, Double.POSITIVE_INFINITY, -0.0, 1e-320}),
                p("chars", new char[] {'a', 'é', '€', '\u0000'}),
                p("strings", new String[] {"a", "", "😀", "ünï"}),
                p("points", new PointValue[] {new PointValue(7203, new double[] {0, 0}),
                        new PointValue(4979, new double[] {-180, -90, -1e9})}),
                p("dates", new LocalDate[] {LocalDate.of(2000, 2, 29), LocalDate.EPOCH}),
                p("localtimes", new LocalTime[] {LocalTime.NOON, LocalTime.of(1, 2, 3, 4)}),
                p("times", new OffsetTime[] {OffsetTime.of(12, 0, 0, 0, ZoneOffset.UTC)}),
                p("localdatetimes", new LocalDateTime[] {LocalDateTime.of(2024, 2, 29, 12, 0, 0, 1)}),
                p("datetimes", new ZonedDateTime[] {
                        ZonedDateTime.of(2024, 3, 31, 3, 0, 0, 0, ZoneId.of("America/New_York")),
                        ZonedDateTime.of(2024, 3, 31, 3, 0, 0, 0, ZoneOffset.ofHours(-5))}),
                p("durations", new DurationValue[] {new DurationValue(0, 0, 0, 0), new DurationValue(1, -1, 1, -1)}),
                p("uuids", new UUID[] {new UUID(0, 0), new UUID(Long.MIN_VALUE, Long.MAX_VALUE)}),
                p("booleansEmpty", new boolean[0]), p("shortsEmpty", new short[0]), p("intsEmpty", new int[0]),
                p("longsEmpty", new long[0]), p("floatsEmpty", new float[0]), p("doublesEmpty", new double[0]),
                p("charsEmpty", new char[0]), p("stringsEmpty", new String[0]), p("pointsEmpty", new PointValue[0]),
                p("datesEmpty", new LocalDate[0]), p("localtimesEmpty", new LocalTime[0]),
                p("timesEmpty", new OffsetTime[0]), p("localdatetimesEmpty", new LocalDateTime[0]),
                p("datetimesEmpty", new ZonedDateTime[0]), p("durationsEmpty", new DurationValue[0]),
                p("uuidsEmpty", new UUID[0]));
        f.node(16, List.of("Thing"),
                p("int8", new VectorValue(VectorKind.INT8, new byte[] {-128, 0, 127})),
                p("int16", new VectorValue(VectorKind.INT16, new short[] {Short.MIN_VALUE, 7})),
                p("int32", new VectorValue(VectorKind.INT32, new int[] {Integer.MAX_VALUE, -3})),
                p("int64", new VectorValue(VectorKind.INT64, new long[] {Long.MIN_VALUE, Long.MAX_VALUE})),
                p("float32", new VectorValue(VectorKind.FLOAT32, new float[] {0.25f, -1e30f, Float.NaN})),
                p("float64", new VectorValue(VectorKind.FLOAT64, new double[] {0.1, -1e300, Double.NEGATIVE_INFINITY})),
                p("float32Empty", new VectorValue(VectorKind.FLOAT32, new float[0])));
        f.node(Long.MAX_VALUE, List.of("Empty"));
        f.node(1L << 40, List.of("Object", "Thing", "Ünïcödé 🏷"), p("name", "big id"), p("int", 42));
        f.rel(3, "CHILDREN", 0, 12, p("weight", 1.5), p("date", LocalDate.of(2021, 6, 1)));
        f.rel(4, "CHILDREN", 0, 13);
        f.rel(5, "LINKS", 12, 13, p("name", "link"), p("ints", new int[] {7}), p("uuid", new UUID(1, 2)));
        f.rel(6, "SELF", 13, 13);
        f.rel(Long.MAX_VALUE, "CHILDREN", 0, Long.MAX_VALUE, p("since", ZonedDateTime.of(2000, 1, 1, 0, 0, 0, 0,
                ZoneId.of("Asia/Kolkata"))));
        if (large) {
            f.node(17, List.of("Object"), p("unicode100k", largeString(100_000, true)),
                    p("ascii100k", largeString(100_000, false)), p("bytes200k", randomBytes(200_000, 2)));
            f.rel(7, "LINKS", 17, 0, p("name", "after the large node"));
        }
        f.rel(8, "CHILDREN", 0, 14);
        f.rel(9, "CHILDREN", 0, 15);
        f.rel(10, "CHILDREN", 0, 16);
        return f;
    }

    private static Prop p(String key, Object value) {
        return new Prop(key, value, value);
    }

    private void node(long id, List<String> labels, Prop... props) {
        items.add(new N(id, labels, List.of(props)));
        for (Prop p : props) {
            keyIds.computeIfAbsent(p.key(), k -> 5 + 3 * keyIds.size());
        }
    }

    private void rel(long id, String type, long start, long end, Prop... props) {
        items.add(new R(id, type, start, end, List.of(props)));
        for (Prop p : props) {
            keyIds.computeIfAbsent(p.key(), k -> 5 + 3 * keyIds.size());
        }
    }

    private static byte[] randomBytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** {@code n} chars: ASCII words, or (unicode) words with accents, CJK and surrogate pairs mixed in. */
    private static String largeString(int n, boolean unicode) {
        String[] words = unicode
                ? new String[] {"graph ", "grüße ", "日本 ", "😀", "ß", "naïve ", "€100 ", "𝄞 "}
                : new String[] {"graph ", "node ", "edge ", "export ", "stream "};
        Random random = new Random(n + (unicode ? 1 : 0));
        StringBuilder sb = new StringBuilder(n + 8);
        while (sb.length() < n) {
            sb.append(words[random.nextInt(words.length)]);
        }
        sb.setLength(n);
        if (Character.isHighSurrogate(sb.charAt(n - 1))) {
            sb.setCharAt(n - 1, 'x');
        }
        return sb.toString();
    }

    /** Token names for the fixture's token ids. */
    public TokenNames tokens() {
        Map<Integer, String> labels = invert(LABEL_IDS), types = invert(TYPE_IDS), keys = invert(keyIds);
        return new TokenNames() {
            @Override
            public String label(int id) {
                return labels.get(id);
            }

            @Override
            public String relationshipType(int id) {
                return types.get(id);
            }

            @Override
            public String propertyKey(int id) {
                return keys.get(id);
            }
        };
    }

    private static Map<Integer, String> invert(Map<String, Integer> m) {
        Map<Integer, String> r = new HashMap<>();
        m.forEach((k, v) -> r.put(v, k));
        return r;
    }

    public void write(GraphWriter w) throws IOException {
        write(w, tokens());
        w.end(nodeCount(), items.size() - nodeCount(), truncated, STATE);
        w.finish();
    }

    /** Header and all records, no closing record, no finish. */
    public void write(GraphWriter w, TokenNames tokens) throws IOException {
        w.header(HEADER, tokens);
        for (Object item : items) {
            if (item instanceof N n) {
                int[] labels = new int[n.labels().size() + 3];  // longer than needed: only labelCount counts
                for (int i = 0; i < n.labels().size(); i++) {
                    labels[i] = LABEL_IDS.get(n.labels().get(i));
                }
                w.beginNode(n.id(), labels, n.labels().size());
                writeProps(w, n.props());
                w.endNode();
            } else {
                R r = (R) item;
                w.beginRelationship(r.id(), TYPE_IDS.get(r.type()), r.start(), r.end());
                writeProps(w, r.props());
                w.endRelationship();
            }
        }
    }

    private void writeProps(GraphWriter w, List<Prop> props) throws IOException {
        for (Prop p : props) {
            w.property(keyIds.get(p.key()));
            writeValue(w, p.written());
        }
    }

    public int nodeCount() {
        return (int) items.stream().filter(i -> i instanceof N).count();
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

    /** What a decoder must return. */
    public Subgraph expected() {
        Map<String, ExportNode> nodes = new LinkedHashMap<>();
        Map<String, ExportRelationship> rels = new LinkedHashMap<>();
        for (Object item : items) {
            if (item instanceof N n) {
                nodes.put(NODE_PREFIX + n.id(), new ExportNode(NODE_PREFIX + n.id(), n.labels(), decoded(n.props())));
            } else {
                R r = (R) item;
                rels.put(REL_PREFIX + r.id(), new ExportRelationship(REL_PREFIX + r.id(), r.type(), NODE_PREFIX + r.start(),
                        NODE_PREFIX + r.end(), decoded(r.props())));
            }
        }
        return new Subgraph(new ExportHeader(Wire.VERSION, HEADER.database(), HEADER.root(), STATE, HEADER.partition(),
                HEADER.partitions()), nodes, rels,
                new ExportEnd(nodes.size(), rels.size(), truncated, 0, STATE));
    }

    private static Map<String, Object> decoded(List<Prop> props) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (Prop p : props) {
            m.put(p.key(), p.decoded());
        }
        return m;
    }

    /** Maps a decoded Java value to its {@link ValueSink} calls. */
    public static void writeValue(ValueSink s, Object v) throws IOException {
        switch (v) {
            case Boolean x -> s.writeBoolean(x);
            case Byte x -> s.writeByte(x);
            case Short x -> s.writeShort(x);
            case Integer x -> s.writeInt(x);
            case Long x -> s.writeLong(x);
            case Float x -> s.writeFloat(x);
            case Double x -> s.writeDouble(x);
            case Character x -> s.writeChar(x);
            case String x -> s.writeString(x);
            case byte[] x -> s.writeBytes(x);
            case PointValue x -> s.writePoint(x.srid(), x.coordinates());
            case DurationValue x -> s.writeDuration(x.months(), x.days(), x.seconds(), x.nanos());
            case LocalDate x -> s.writeDate(x);
            case LocalTime x -> s.writeLocalTime(x);
            case OffsetTime x -> s.writeTime(x);
            case LocalDateTime x -> s.writeLocalDateTime(x);
            case ZonedDateTime x -> s.writeDateTime(x);
            case UUID x -> s.writeUuid(x.getMostSignificantBits(), x.getLeastSignificantBits());
            case VectorValue x -> s.writeVector(x.kind(), x.values());
            case boolean[] a -> {
                s.beginArray(a.length, ArrayKind.BOOLEAN);
                for (boolean e : a) {
                    s.writeBoolean(e);
                }
                s.endArray();
            }
            case short[] a -> {
                s.beginArray(a.length, ArrayKind.SHORT);
                for (short e : a) {
                    s.writeShort(e);
                }
                s.endArray();
            }
            case int[] a -> {
                s.beginArray(a.length, ArrayKind.INT);
                for (int e : a) {
                    s.writeInt(e);
                }
                s.endArray();
            }
            case long[] a -> {
                s.beginArray(a.length, ArrayKind.LONG);
                for (long e : a) {
                    s.writeLong(e);
                }
                s.endArray();
            }
            case float[] a -> {
                s.beginArray(a.length, ArrayKind.FLOAT);
                for (float e : a) {
                    s.writeFloat(e);
                }
                s.endArray();
            }
            case double[] a -> {
                s.beginArray(a.length, ArrayKind.DOUBLE);
                for (double e : a) {
                    s.writeDouble(e);
                }
                s.endArray();
            }
            case char[] a -> {
                s.beginArray(a.length, ArrayKind.CHAR);
                for (char e : a) {
                    s.writeChar(e);
                }
                s.endArray();
            }
            case Object[] a -> {
                s.beginArray(a.length, arrayKind(a));
                for (Object e : a) {
                    writeValue(s, e);
                }
                s.endArray();
            }
            default -> throw new IllegalArgumentException("no ValueSink call for " + v.getClass());
        }
    }

    private static ArrayKind arrayKind(Object[] a) {
        return switch (a) {
            case String[] x -> ArrayKind.STRING;
            case PointValue[] x -> ArrayKind.POINT;
            case LocalDate[] x -> ArrayKind.DATE;
            case LocalTime[] x -> ArrayKind.LOCAL_TIME;
            case OffsetTime[] x -> ArrayKind.TIME;
            case LocalDateTime[] x -> ArrayKind.LOCAL_DATE_TIME;
            case ZonedDateTime[] x -> ArrayKind.DATE_TIME;
            case DurationValue[] x -> ArrayKind.DURATION;
            case UUID[] x -> ArrayKind.UUID;
            default -> throw new IllegalArgumentException("no array kind for " + a.getClass());
        };
    }
}
