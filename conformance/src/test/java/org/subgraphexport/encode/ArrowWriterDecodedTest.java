package org.subgraphexport.encode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.TokenNames;
import org.subgraphexport.wire.ValueSink.ArrayKind;
import org.subgraphexport.wire.ValueSink.VectorKind;
import org.subgraphexport.wire.Wire.Arrow;

/**
 * The {@code arrow} writer's streams decoded by {@link ArrowStreamReader} and checked value by value, in Java (PIT
 * runs the Java tests only; pyarrow reads the golden files in python/tests): every value type in its column and in
 * the fallback, the timestamp range's edges, rows over several batches, an error in the middle of a row, column
 * names, label sets, types and keys past the writer's first table sizes, the group limit, a delta's ids that left,
 * and when a batch closes.
 */
class ArrowWriterDecodedTest {

    /** Writes a stream's records (header and end are the test's helper's). */
    interface Records {
        void write(GraphWriter w) throws IOException;
    }

    /** A stream of {@code records} with the fixture's header, batches of {@code batch} rows, then end(.., STATE). */
    static byte[] stream(int batch, TokenNames tokens, Records records) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = ArrowGraphWriter.arrow(out, batch);
        w.header(FixtureStream.HEADER, tokens);
        records.write(w);
        w.end(7, 3, false, FixtureStream.STATE);
        w.finish();
        return out.toByteArray();
    }

    static byte[] stream(int batch, Records records) throws IOException {
        return stream(batch, new LzfChunkTest.SimpleTokens(), records);
    }

    /** One property of every value type, keys 10 to 10 + 26 (arrays and vectors included). */
    static void everyType(GraphWriter w) throws IOException {
        int k = 10;
        w.property(k++);
        w.writeBoolean(true);
        w.property(k++);
        w.writeByte((byte) -7);
        w.property(k++);
        w.writeShort((short) -300);
        w.property(k++);
        w.writeInt(-70000);
        w.property(k++);
        w.writeLong(1L << 40);
        w.property(k++);
        w.writeFloat(0.25f);
        w.property(k++);
        w.writeDouble(-2.5);
        w.property(k++);
        w.writeChar('\u00e9');
        w.property(k++);
        w.writeString("str");
        w.property(k++);
        byte[] utf8 = "xx\u00fcyy".getBytes(StandardCharsets.UTF_8);
        w.writeUtf8(utf8, 2, 2);                                        // "\u00fc": the middle two bytes
        w.property(k++);
        w.writeBytes(new byte[] {1, 2, (byte) 0xFF});
        w.property(k++);
        w.writePoint(7203, new double[] {1.5, -2});
        w.property(k++);
        w.writePoint(4979, new double[] {1, 2, 3});
        w.property(k++);
        w.writeDuration(14, 3, -5, 6);
        w.property(k++);
        w.writeDate(LocalDate.of(1969, 12, 31));
        w.property(k++);
        w.writeLocalTime(LocalTime.of(23, 59, 59, 999));
        w.property(k++);
        w.writeTime(OffsetTime.of(1, 2, 3, 4, ZoneOffset.ofHours(-5)));
        w.property(k++);
        w.writeLocalDateTime(LocalDateTime.of(2262, 4, 11, 23, 47, 16, 854775807));  // the last that fits
        w.property(k++);
        w.writeDateTime(ZonedDateTime.of(1677, 9, 21, 0, 12, 43, 145224193, ZoneId.of("Z")));  // the first that fits
        w.property(k++);
        w.writeUuid(0x0102030405060708L, 0x090A0B0C0D0E0F10L);
        w.property(k++);
        w.writeVector(VectorKind.INT8, new byte[] {-1, 2});
        w.property(k++);
        w.writeVector(VectorKind.INT16, new short[] {-3});
        w.property(k++);
        w.writeVector(VectorKind.INT32, new int[] {4, -5});
        w.property(k++);
        w.writeVector(VectorKind.FLOAT64, new double[] {0.5});
        w.property(k++);
        w.beginArray(2, ArrayKind.DATE);
        w.writeDate(LocalDate.of(2000, 1, 1));
        w.writeDate(LocalDate.of(-1, 12, 31));
        w.endArray();
        w.property(k++);
        w.beginArray(1, ArrayKind.LOCAL_DATE_TIME);
        w.writeLocalDateTime(LocalDateTime.of(1970, 1, 1, 0, 0, 0, 1));
        w.endArray();
        w.property(k);
        w.beginArray(2, ArrayKind.CHAR);
        w.writeChar('a');
        w.writeChar('\uffff');
        w.endArray();
    }

    /** What {@link #everyType} reads back from its columns, by column name. */
    static Map<String, Object> everyTypeDecoded() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("key10", true);
        m.put("key11", (byte) -7);
        m.put("key12", (short) -300);
        m.put("key13", -70000);
        m.put("key14", 1L << 40);
        m.put("key15", 0.25f);
        m.put("key16", -2.5);
        m.put("key17", '\u00e9');
        m.put("key18", "str");
        m.put("key19", "\u00fc");
        m.put("key20", "hex:0102ff");
        m.put("key21", point(7203, 1.5, -2.0, null));
        m.put("key22", point(4979, 1.0, 2.0, 3.0));
        Map<String, Object> duration = new LinkedHashMap<>();
        duration.put("months", 14L);
        duration.put("days", 3L);
        duration.put("seconds", -5L);
        duration.put("nanoseconds", 6);
        m.put("key23", duration);
        m.put("key24", LocalDate.of(1969, 12, 31));
        m.put("key25", LocalTime.of(23, 59, 59, 999));
        Map<String, Object> time = new LinkedHashMap<>();
        time.put("time", LocalTime.of(1, 2, 3, 4));
        time.put("offset_seconds", -5 * 3600);
        m.put("key26", time);
        m.put("key27", LocalDateTime.of(2262, 4, 11, 23, 47, 16, 854775807));
        Map<String, Object> dateTime = new LinkedHashMap<>();
        dateTime.put("instant", Instant.parse("1677-09-21T00:12:43.145224193Z"));
        dateTime.put("zone", "Z");
        m.put("key28", dateTime);
        m.put("key29", UUID.fromString("01020304-0506-0708-090a-0b0c0d0e0f10"));
        m.put("key30", List.of((byte) -1, (byte) 2));
        m.put("key31", List.of((short) -3));
        m.put("key32", List.of(4, -5));
        m.put("key33", List.of(0.5));
        m.put("key34", List.of(LocalDate.of(2000, 1, 1), LocalDate.of(-1, 12, 31)));
        m.put("key35", List.of(LocalDateTime.of(1970, 1, 1, 0, 0, 0, 1)));
        m.put("key36", List.of('a', '\uffff'));
        return m;
    }

    private static Map<String, Object> point(int srid, double x, double y, Double z) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("srid", srid);
        p.put("x", x);
        p.put("y", y);
        p.put("z", z);
        return p;
    }

    /** The properties object the json writer writes for {@code properties} on a node (docs 7.3's fallback). */
    static String jsonProperties(Records properties) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = JsonGraphWriter.json(out);
        w.header(FixtureStream.HEADER, new LzfChunkTest.SimpleTokens());
        w.beginNode(0, new int[0], 0);
        properties.write(w);
        w.endNode();
        w.end(1, 0, false);
        w.finish();
        String json = out.toString(StandardCharsets.UTF_8);
        int start = json.indexOf("\"properties\":") + "\"properties\":".length();
        int end = json.indexOf(",{\"record\":\"end\"");
        return json.substring(start, end - 1);
    }

    @Test
    void everyValueTypeReadsBackFromItsColumn() throws IOException {
        ArrowStreamReader.Stream s = ArrowStreamReader.read(stream(4, w -> {
            w.beginNode(1, new int[] {0}, 1);
            everyType(w);
            w.endNode();
            w.beginNode(2, new int[] {0}, 1);  // every column null
            w.endNode();
        }));
        assertEquals(List.of("schema", "dictionary 0", "dictionary 1", "batch 2", "batch 0"), s.messages);
        Map<String, Object> expected = new LinkedHashMap<>();
        expected.put("id", 1L);
        expected.put("labels", List.of("Label0"));
        expected.putAll(everyTypeDecoded());
        expected.put(Arrow.EXTRA, null);
        assertEquals(expected, s.rows().get(0).values());
        Map<String, Object> empty = new LinkedHashMap<>();
        expected.forEach((k, v) -> empty.put(k, null));
        empty.put("id", 2L);
        empty.put("labels", List.of("Label0"));
        assertEquals(empty, s.rows().get(1).values());
        ArrowStreamReader.Field group = s.group(2);
        assertEquals("node:Label0", group.name());
        Map<String, String> types = new LinkedHashMap<>();
        for (ArrowStreamReader.Field f : group.children()) {
            if (f.metadata() != null) {
                assertEquals(f.name(), f.metadata().get(Arrow.META_KEY));
                types.put(f.name(), f.metadata().get(Arrow.META_TYPE));
            }
        }
        assertEquals(List.of("boolean", "byte", "short", "int", "long", "float", "double", "char", "string", "string",
                "bytes", "point", "point", "duration", "date", "localtime", "time", "localdatetime", "datetime",
                "uuid", "vector(INT8)", "vector(INT16)", "vector(INT32)", "vector(FLOAT64)", "date[]",
                "localdatetime[]", "char[]"), List.copyOf(types.values()));
        assertEquals("arrow.uuid", group.child("key29").metadata().get("ARROW:extension:name"));
        assertFalse(group.child("id").nullable());
        assertFalse(group.child("labels").nullable());
        assertTrue(group.child("key10").nullable());
        assertTrue(group.child(Arrow.EXTRA).nullable());
    }

    /**
     * Timestamps in nanoseconds fit from Long.MIN_VALUE + 1 (Long.MIN_VALUE is pandas' NaT) to Long.MAX_VALUE: each
     * edge in the column, one nanosecond beyond in extra_properties; a date-time array with one element beyond
     * falls back whole, one with all elements inside stays a list. (Until this test, the whole first second of the
     * range, 1677-09-21T00:12:43.145224193 to .999999999, fell back: the product overflowed before the sum.)
     */
    @Test
    void timestampsFitFromTheLeastLongPlusOneToTheGreatest() throws IOException {
        LocalDateTime first = LocalDateTime.of(1677, 9, 21, 0, 12, 43, 145224193);
        LocalDateTime last = LocalDateTime.of(2262, 4, 11, 23, 47, 16, 854775807);
        List<LocalDateTime> values = List.of(first, first.minusNanos(1), first.plusNanos(854775806),
                first.minusSeconds(1), last, last.plusNanos(1), last.minusNanos(854775807), last.plusSeconds(1),
                LocalDateTime.of(1970, 1, 1, 0, 0, 0, 1), LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999999999),
                LocalDateTime.of(1969, 12, 31, 0, 0), LocalDateTime.of(1970, 1, 1, 0, 0));
        List<Boolean> fit = List.of(true, false, true, false, true, false, true, false, true, true, true, true);
        ArrowStreamReader.Stream s = ArrowStreamReader.read(stream(100, w -> {
            for (int i = 0; i < values.size(); i++) {
                w.beginNode(i, new int[] {0}, 1);
                w.property(1);
                w.writeLocalDateTime(values.get(i));
                w.property(2);
                w.writeDateTime(values.get(i).atZone(ZoneId.of("UTC")));
                w.property(3);
                w.beginArray(2, ArrayKind.DATE_TIME);
                w.writeDateTime(first.atZone(ZoneId.of("Z")));
                w.writeDateTime(values.get(i).atZone(ZoneId.of("Z")));
                w.endArray();
                w.endNode();
            }
        }));
        for (int i = 0; i < values.size(); i++) {
            ArrowStreamReader.Row row = s.rows().get(i);
            Instant instant = values.get(i).toInstant(ZoneOffset.UTC);
            if (fit.get(i)) {
                assertEquals(values.get(i), row.get("key1"), "row " + i);
                assertEquals(Map.of("instant", instant, "zone", "UTC"), row.get("key2"), "row " + i);
                assertEquals(List.of(Map.of("instant", first.toInstant(ZoneOffset.UTC), "zone", "Z"),
                        Map.of("instant", instant, "zone", "Z")), row.get("key3"), "row " + i);
                assertEquals(null, row.get(Arrow.EXTRA), "row " + i);
            } else {
                assertEquals(null, row.get("key1"), "row " + i);
                assertEquals(null, row.get("key2"), "row " + i);
                assertEquals(null, row.get("key3"), "row " + i);
                String text = values.get(i).toString();
                assertEquals("{\"key1\":{\"localdatetime\":\"" + text + "\"},\"key2\":{\"datetime\":\"" + text
                        + "Z[UTC]\"},\"key3\":{\"datetime[]\":[\"1677-09-21T00:12:43.145224193Z\",\"" + text + "Z\"]}}",
                        row.get(Arrow.EXTRA), "row " + i);
            }
        }
    }

    /** After the schema, a key the group has no column for: every value type goes to extra_properties as json. */
    @Test
    void everyValueTypeFallsBackAsTheJsonWriterWritesIt() throws IOException {
        ArrowStreamReader.Stream s = ArrowStreamReader.read(stream(1, w -> {
            w.beginNode(1, new int[] {0}, 1);  // a batch of its own: the schema goes out with it
            w.endNode();
            w.beginNode(2, new int[] {0}, 1);
            everyType(w);
            w.endNode();
        }));
        assertEquals(List.of("schema", "dictionary 0", "dictionary 1", "batch 1", "batch 1", "batch 0"), s.messages);
        ArrowStreamReader.Row row = s.rows().get(1);
        assertEquals(2L, row.get("id"));
        assertEquals(jsonProperties(ArrowWriterDecodedTest::everyType), row.get(Arrow.EXTRA));
        assertTrue(((String) row.get(Arrow.EXTRA)).startsWith("{\"key10\":true,\"key11\":{\"byte\":-7},"),
                (String) row.get(Arrow.EXTRA));
    }

    /**
     * 1,500 rows in batches of 600, 600 and 300, each column kind with values and nulls in every pattern: every
     * buffer grows past its first size (validity past 64 bytes, data past 256, offsets past 64 entries, the union's
     * type ids past 256), by values or by nulls at a batch's end, and the second batch starts from empty columns (no
     * value or bit of the first left over).
     */
    @Test
    void rowsOverSeveralBatchesReadBackRowByRow() throws IOException {
        int n = 1500;
        ArrowStreamReader.Stream s = ArrowStreamReader.read(stream(600, w -> {
            for (int i = 0; i < n; i++) {
                w.beginNode(i, new int[] {0}, 1);
                if (i % 3 != 0) {
                    w.property(1);
                    w.writeLong(i * 1_000_003L);
                }
                if (i % 2 == 0) {
                    w.property(2);
                    w.writeBoolean(i % 4 == 0);
                }
                if (i % 5 != 0) {
                    w.property(3);
                    w.writeString("s" + i);
                }
                if (i % 7 == 0) {
                    w.property(4);
                    w.beginArray(i % 3, ArrayKind.INT);
                    for (int j = 0; j < i % 3; j++) {
                        w.writeInt(i + j);
                    }
                    w.endArray();
                }
                if (i % 11 == 0) {
                    w.property(5);
                    w.writePoint(7203, new double[] {i, -i});
                }
                if (i % 600 < 10) {  // values in a batch's first rows only: the arrays grow when the batch goes out
                    w.property(6);
                    w.writeBoolean(true);
                    w.property(7);
                    w.writeLong(-i);
                    w.property(8);
                    w.writeString("early" + i);
                }
                w.endNode();
                if (i % 13 == 0) {
                    w.beginRelationship(i, 0, i, i + 1);
                    w.property(1);
                    w.writeBoolean(i % 26 == 0);
                    w.endRelationship();
                }
            }
        }));
        List<String> expectedMessages = new java.util.ArrayList<>(List.of("schema", "dictionary 0", "dictionary 1"));
        int rows = n + (n + 12) / 13;
        for (int left = rows; left > 0; left -= 600) {
            expectedMessages.add("batch " + Math.min(600, left));
        }
        expectedMessages.add("batch 0");
        assertEquals(expectedMessages, s.messages);
        int node = 0;
        for (ArrowStreamReader.Row row : s.rows()) {
            if (row.groupName().equals("relationship:TYPE_0")) {
                long i = (Long) row.get("id");
                assertEquals(0, i % 13);
                assertEquals(Map.of("id", i, "type", "TYPE_0", "source", i, "target", i + 1, "key1", i % 26 == 0,
                        Arrow.EXTRA, java.util.Optional.empty()), withEmpty(row.values()));
                continue;
            }
            int i = node++;
            Map<String, Object> expected = new LinkedHashMap<>();
            expected.put("id", (long) i);
            expected.put("labels", List.of("Label0"));
            expected.put("key1", i % 3 != 0 ? i * 1_000_003L : null);
            expected.put("key2", i % 2 == 0 ? i % 4 == 0 : null);
            expected.put("key3", i % 5 != 0 ? "s" + i : null);
            List<Integer> ints = new java.util.ArrayList<>();
            for (int j = 0; j < i % 3; j++) {
                ints.add(i + j);
            }
            expected.put("key4", i % 7 == 0 ? ints : null);
            expected.put("key5", i % 11 == 0 ? point(7203, i, -i, null) : null);
            expected.put("key6", i % 600 < 10 ? true : null);
            expected.put("key7", i % 600 < 10 ? (long) -i : null);
            expected.put("key8", i % 600 < 10 ? "early" + i : null);
            expected.put(Arrow.EXTRA, null);
            assertEquals(expected, row.values(), "node " + i);
        }
        assertEquals(n, node);
    }

    /** Map.of refuses nulls: nulls as Optional.empty(). */
    private static Map<String, Object> withEmpty(Map<String, Object> m) {
        Map<String, Object> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(k, v == null ? java.util.Optional.empty() : v));
        return out;
    }

    /**
     * An error in the middle of a record drops its row from every kind of column (fixed, boolean, strings, lists,
     * structs, the labels' list and the union), and the rows before it read back whole: their values and their nulls.
     */
    @Test
    void anErrorDropsTheUnfinishedRowFromEveryKindOfColumn() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = ArrowGraphWriter.arrow(out, 100);
        w.header(FixtureStream.HEADER, new LzfChunkTest.SimpleTokens());
        for (int i = 0; i < 3; i++) {  // first rows: key 1 only
            w.beginNode(i, new int[] {0}, 1);
            w.property(1);
            w.writeLong(i);
            w.endNode();
        }
        w.beginNode(3, new int[] {0, 1}, 2);  // another group: the next node is row 3 of the first
        w.property(1);
        w.writeLong(33);
        w.endNode();
        w.beginNode(4, new int[] {0}, 1);  // a value in every kind of column, then the error
        w.property(1);
        w.writeLong(44);
        w.property(2);
        w.writeBoolean(true);
        w.property(3);
        w.writeString("dropped");
        w.property(4);
        w.writePoint(7203, new double[] {1, 2});
        w.property(5);
        w.beginArray(2, ArrayKind.LONG);
        w.writeLong(5);
        w.writeLong(6);
        w.endArray();
        w.property(6);
        w.writeBytes(new byte[] {9});
        w.property(7);
        w.beginArray(1, ArrayKind.STRING);
        w.writeString("x");
        w.endArray();
        w.error("Neo.ClientError.Test", null);
        w.finish();
        ArrowStreamReader.Stream s = ArrowStreamReader.read(out.toByteArray());
        assertEquals(List.of("schema", "dictionary 0", "dictionary 1", "batch 4", "batch 0"), s.messages);
        assertEquals(Map.of("subgraph.record", "error", "subgraph.code", "Neo.ClientError.Test", "subgraph.message",
                ""), s.closing);
        List<ArrowStreamReader.Row> rows = s.rows();
        for (int i = 0; i < 3; i++) {
            Map<String, Object> expected = new LinkedHashMap<>();
            expected.put("id", (long) i);
            expected.put("labels", List.of("Label0"));
            expected.put("key1", (long) i);
            for (int k = 2; k <= 7; k++) {
                expected.put("key" + k, null);
            }
            expected.put(Arrow.EXTRA, null);
            assertEquals(expected, rows.get(i).values(), "row " + i);
        }
        assertEquals(33L, rows.get(3).get("key1"));
        assertEquals(List.of("Label0", "Label1"), rows.get(3).get("labels"));
    }

    /** Tokens named by the test: labels, types and keys from lists (SimpleTokens' names past their end). */
    static TokenNames names(List<String> keys) {
        return new TokenNames() {
            @Override
            public String label(int id) {
                return "Label" + id;
            }

            @Override
            public String relationshipType(int id) {
                return "TYPE_" + id;
            }

            @Override
            public String propertyKey(int id) {
                return id < keys.size() ? keys.get(id) : "key" + id;
            }
        };
    }

    /**
     * docs/wire-format.md 7.2: a key named like a fixed column gets its type as suffix ({@code id:long},
     * {@code labels:string}, {@code type:boolean} in relationships), a key's second type {@code key:type}, a name
     * already taken a further {@code :2}, {@code :3}; the names are the same in every group of a kind, and each
     * column's metadata names its key and type.
     */
    @Test
    void columnNamesStepAsideForFixedColumnsAndForEachOther() throws IOException {
        ArrowStreamReader.Stream s = ArrowStreamReader.read(stream(100,
                names(List.of("id", "labels", "v:double", "v", "type", "extra_properties", "v:double:2")), w -> {
            w.beginNode(0, new int[] {0}, 1);
            w.property(0);
            w.writeLong(1);
            w.property(1);
            w.writeString("l");
            w.property(2);
            w.writeString("vd");
            w.property(6);
            w.writeString("vd2");
            w.property(3);
            w.writeLong(3);
            w.property(5);
            w.writeInt(5);
            w.endNode();
            w.beginNode(1, new int[] {1}, 1);
            w.property(3);
            w.writeDouble(3.5);  // "v", "v:double" and "v:double:2" taken: "v:double:3"
            w.property(4);
            w.writeString("t");
            w.endNode();
            w.beginRelationship(0, 0, 0, 1);
            w.property(4);
            w.writeBoolean(true);
            w.property(0);
            w.writeLong(2);
            w.endRelationship();
        }));
        assertEquals(List.of("id", "labels", "id:long", "labels:string", "v:double", "v:double:2", "v",
                "extra_properties:int", "extra_properties"), names(s.group(2)));
        assertEquals(List.of("id", "labels", "v:double:3", "type", "extra_properties"), names(s.group(3)));
        assertEquals(List.of("id", "type", "source", "target", "type:boolean", "id:long", "extra_properties"),
                names(s.group(4)));
        // the catch-alls: every (key, type) of their kind, in the order first seen
        assertEquals(List.of("id", "labels", "id:long", "labels:string", "v:double", "v:double:2", "v",
                "extra_properties:int", "v:double:3", "type", "extra_properties"), names(s.group(0)));
        assertEquals(List.of("id", "type", "source", "target", "type:boolean", "id:long", "extra_properties"),
                names(s.group(1)));
        assertEquals(Map.of(Arrow.META_KEY, "v", Arrow.META_TYPE, "double"), s.group(3).child("v:double:3").metadata());
        assertEquals(Map.of(Arrow.META_KEY, "v:double:2", Arrow.META_TYPE, "string"),
                s.group(2).child("v:double:2").metadata());
        assertEquals(Map.of(Arrow.META_KEY, "id", Arrow.META_TYPE, "long"), s.group(4).child("id:long").metadata());
        assertEquals(1L, s.rows().get(0).get("id:long"));
        assertEquals(0L, s.rows().get(0).get("id"));
        assertEquals("vd2", s.rows().get(0).get("v:double:2"));
        assertEquals(5, s.rows().get(0).get("extra_properties:int"));
        assertEquals(3.5, s.rows().get(1).get("v:double:3"));
        assertEquals(true, s.rows().get(2).get("type:boolean"));
        assertEquals("TYPE_0", s.rows().get(2).get("type"));
    }

    /**
     * docs/wire-format.md 7.2: the element id columns every reader adds ({@code element_id}; for relationships also
     * {@code source_element_id} and {@code target_element_id}) are taken as the fixed ones are: a key of that name
     * gets {@code key:type}. Before, a node property {@code element_id} became a column {@code element_id}, and the
     * Python reader's table then held two columns of that name and could not be read ("duplicate field names").
     */
    @Test
    void columnNamesStepAsideForTheElementIdsReadersDerive() throws IOException {
        ArrowStreamReader.Stream s = ArrowStreamReader.read(stream(100,
                names(List.of("element_id", "source_element_id", "target_element_id")), w -> {
            w.beginNode(0, new int[] {0}, 1);
            w.property(0);
            w.writeString("e");
            w.property(1);
            w.writeString("s");  // a node may hold it: no derived column of nodes has that name
            w.endNode();
            w.beginRelationship(0, 0, 0, 0);
            w.property(2);
            w.writeLong(7);
            w.property(1);
            w.writeString("s");
            w.property(0);
            w.writeBoolean(true);
            w.endRelationship();
        }));
        assertEquals(List.of("id", "labels", "element_id:string", "source_element_id", "extra_properties"),
                names(s.group(2)));
        assertEquals(List.of("id", "type", "source", "target", "target_element_id:long", "source_element_id:string",
                "element_id:boolean", "extra_properties"), names(s.group(3)));
        assertEquals(Map.of(Arrow.META_KEY, "element_id", Arrow.META_TYPE, "string"),
                s.group(2).child("element_id:string").metadata());
        assertEquals("e", s.rows().get(0).get("element_id:string"));
        assertEquals(7L, s.rows().get(1).get("target_element_id:long"));
    }

    private static List<String> names(ArrowStreamReader.Field group) {
        return group.children().stream().map(ArrowStreamReader.Field::name).toList();
    }

    @Test
    void aKeyTwiceInOneRecordAndAPointOfOneCoordinateAreRefused() throws IOException {
        GraphWriter w = ArrowGraphWriter.arrow(new ByteArrayOutputStream(), 100);
        w.header(FixtureStream.HEADER, new LzfChunkTest.SimpleTokens());
        w.beginNode(0, new int[] {0}, 1);
        w.property(1);
        w.writeLong(1);
        w.property(1);
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class, () -> w.writeLong(2));
        assertEquals("property key 1 twice in one record", twice.getMessage());
        w.property(2);
        IllegalArgumentException point = assertThrows(IllegalArgumentException.class,
                () -> w.writePoint(7203, new double[] {1}));
        assertEquals("a point has 2 or 3 coordinates, not 1", point.getMessage());
        assertThrows(IllegalArgumentException.class, () -> w.writePoint(7203, new double[4]));
    }

    /**
     * Ids past the writer's first table sizes: 20 labels on one node and label, type and key ids of 40 and more,
     * read back by name; a label set seen again (not right after) finds its group.
     */
    @Test
    void manyLabelsHighIdsAndLabelSetsSeenAgain() throws IOException {
        int[] many = new int[20];
        for (int i = 0; i < many.length; i++) {
            many[i] = 40 + i;
        }
        ArrowStreamReader.Stream s = ArrowStreamReader.read(stream(100, w -> {
            w.beginNode(0, many, many.length);
            w.property(50);
            w.writeLong(50);
            w.endNode();
            w.beginNode(1, new int[] {41, 40}, 2);
            w.property(60);
            w.writeLong(60);
            w.endNode();
            w.beginNode(2, new int[] {45}, 1);
            w.endNode();
            w.beginNode(3, many, many.length);
            w.property(70);
            w.writeString("seventy");
            w.property(50);
            w.writeLong(51);
            w.endNode();
            w.beginNode(4, new int[] {41, 40}, 2);
            w.endNode();
            w.beginNode(44, new int[] {41, 40}, 2);  // the same set right after: the last group
            w.endNode();
            w.beginNode(5, new int[] {45}, 1);
            w.endNode();
            w.beginNode(6, new int[] {41, 40, 42}, 3);
            w.endNode();
            w.beginNode(7, many, 3);  // 40, 41, 42: another set
            w.endNode();
            w.beginNode(8, new int[] {30}, 1);
            w.endNode();
            w.beginNode(9, new int[] {45}, 1);
            w.endNode();
            for (int t = 45; t >= 35; t -= 10) {
                w.beginRelationship(t, t, 0, 1);
                w.property(80);
                w.writeInt(t);
                w.endRelationship();
            }
            w.beginRelationship(46, 45, 0, 1);
            w.endRelationship();
        }));
        List<String> manyNames = new java.util.ArrayList<>();
        for (int id : many) {
            manyNames.add("Label" + id);
        }
        List<ArrowStreamReader.Row> rows = s.rows();
        assertEquals(manyNames, rows.get(0).get("labels"));
        assertEquals(50L, rows.get(0).get("key50"));
        assertEquals(List.of("Label41", "Label40"), rows.get(1).get("labels"));
        assertEquals(60L, rows.get(1).get("key60"));
        assertEquals(manyNames, rows.get(3).get("labels"));
        assertEquals("seventy", rows.get(3).get("key70"));
        assertEquals(51L, rows.get(3).get("key50"));
        int manyGroup = rows.get(0).group();
        assertEquals(manyGroup, rows.get(3).group());
        assertEquals(rows.get(1).group(), rows.get(4).group());
        assertEquals(rows.get(1).group(), rows.get(5).group());
        assertEquals(44L, rows.get(5).get("id"));
        assertEquals(rows.get(2).group(), rows.get(6).group());
        assertEquals(rows.get(2).group(), rows.get(10).group());
        assertEquals("node:Label41:Label40", rows.get(4).groupName());
        assertEquals("node:Label45", rows.get(6).groupName());
        assertEquals("node:Label41:Label40:Label42", rows.get(7).groupName());
        assertEquals("node:Label40:Label41:Label42", rows.get(8).groupName());
        assertEquals("node:Label30", rows.get(9).groupName());
        assertEquals(List.of("Label30"), rows.get(9).get("labels"));
        assertEquals(List.of(List.of("Label45"), "relationship:TYPE_45", "TYPE_45", 45),
                List.of(rows.get(10).get("labels"), rows.get(11).groupName(), rows.get(11).get("type"),
                        rows.get(11).get("key80")));
        assertEquals(List.of("relationship:TYPE_35", "TYPE_35", 35),
                List.of(rows.get(12).groupName(), rows.get(12).get("type"), rows.get(12).get("key80")));
        assertEquals(rows.get(11).group(), rows.get(13).group());
        assertEquals(46L, rows.get(13).get("id"));
        assertEquals(2 + 6 + 2, s.element.children().size(), "catch-alls, 6 label sets, 2 types");
    }

    /**
     * At most 127 groups (the union's type ids are bytes): with the catch-alls, 20 types and 105 label sets take them
     * all; later label sets and types go to the catch-alls, their labels and types still in their columns. 300
     * labels: dictionary indexes past one byte.
     */
    @Test
    void labelSetsAndTypesBeyond127GroupsGoToTheCatchAlls() throws IOException {
        ArrowStreamReader.Stream s = ArrowStreamReader.read(stream(1000, w -> {
            for (int t = 0; t < 20; t++) {
                w.beginRelationship(t, t, 0, 1);
                w.endRelationship();
            }
            for (int i = 0; i < 300; i++) {
                w.beginNode(i, new int[] {i}, 1);
                w.endNode();
            }
            for (int t = 20; t < 23; t++) {
                w.beginRelationship(t, t, 0, 1);
                w.endRelationship();
            }
            w.beginNode(300, new int[] {299, 3}, 2);
            w.endNode();
        }));
        assertEquals(127, s.element.children().size());
        List<ArrowStreamReader.Row> rows = s.rows();
        for (int t = 0; t < 23; t++) {
            ArrowStreamReader.Row row = rows.get(t < 20 ? t : 300 + t);
            assertEquals(t < 20 ? t + 2 : 1, row.group(), "relationship " + t);
            assertEquals("TYPE_" + t, row.get("type"));
        }
        for (int i = 0; i < 300; i++) {
            assertEquals(i < 105 ? i + 22 : 0, rows.get(20 + i).group(), "node " + i);
            assertEquals(List.of("Label" + i), rows.get(20 + i).get("labels"));
        }
        assertEquals(List.of("Label299", "Label3"), rows.get(323).get("labels"));
        assertEquals(0, rows.get(323).group());
    }

    /** A delta stream's ids that left: nodes in child 2, relationships in child 3, in the order written. */
    @Test
    void idsThatLeftGoToTheTwoLeftGroups() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = ArrowGraphWriter.arrow(out, 3);
        w.header(new Header("neo4j", "4:db:0", "4:db:", "5:db:", "db:45", 0, 1, "db:42"),
                new LzfChunkTest.SimpleTokens());
        w.beginNode(5, new int[] {0}, 1);
        w.endNode();
        w.leftNode(3);
        w.leftRelationship(30);
        w.leftNode(4);
        w.leftRelationship(31);
        w.end(1, 0, false, "db:45");
        w.finish();
        ArrowStreamReader.Stream s = ArrowStreamReader.read(out.toByteArray());
        assertEquals("db:42", s.schemaMetadata.get(Arrow.META_SINCE));
        assertEquals(List.of("node", "relationship", "left:node", "left:relationship", "node:Label0"),
                s.element.children().stream().map(ArrowStreamReader.Field::name).toList());
        assertEquals(Map.of(Arrow.META_KIND, Arrow.LEFT_NODE), s.group(2).metadata());
        assertEquals(Map.of(Arrow.META_KIND, Arrow.LEFT_RELATIONSHIP), s.group(3).metadata());
        assertEquals(List.of("id"), names(s.group(3)));
        assertEquals(List.of("batch 3", "batch 2", "batch 0"), s.messages.subList(3, 6));
        List<String> rows = s.rows().stream().map(r -> r.groupName() + " " + r.get("id")).toList();
        assertEquals(List.of("node:Label0 5", "left:node 3", "left:relationship 30", "left:node 4",
                "left:relationship 31"), rows);
    }

    /** Without a delta header, no left groups, no since; end without a state says an empty one. */
    @Test
    void aStreamThatIsNoDeltaHasNoLeftGroupsAndEndWithoutStateSaysEmpty() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = ArrowGraphWriter.arrow(out, 2);
        w.header(FixtureStream.HEADER, new LzfChunkTest.SimpleTokens());
        w.end(0, 0, true);
        w.finish();
        ArrowStreamReader.Stream s = ArrowStreamReader.read(out.toByteArray());
        assertEquals(List.of("node", "relationship"), names(s.element));
        assertFalse(s.schemaMetadata.containsKey(Arrow.META_SINCE));
        assertEquals(List.of("schema", "dictionary 0", "dictionary 1", "batch 0", "batch 0"), s.messages);
        assertEquals(Map.of("subgraph.record", "end", "subgraph.nodes", "0", "subgraph.relationships", "0",
                "subgraph.truncated", "true", "subgraph.state", ""), s.closing);
    }

    /**
     * A batch closes once its columns hold 8 MiB (docs 7.4), summed right after a row whose strings pass 256 KiB:
     * a string that brings the batch to exactly 8 MiB closes it after its row, one byte less does not. Eight nodes,
     * each with a boolean, the last with a string of n characters, hold n + 233 bytes: the union's 40, the ids' 64,
     * the labels' offsets and indexes 64, the booleans' 1, the strings' offsets 32, extra_properties' offsets 32.
     */
    @Test
    void aBatchClosesOnceItsColumnsHoldEightMebibytes() throws IOException {
        for (int bytes = Arrow.BATCH_BYTES - 234; bytes <= Arrow.BATCH_BYTES - 233; bytes++) {
            String big = "x".repeat(bytes);
            ArrowStreamReader.Stream s = ArrowStreamReader.read(stream(100_000, w -> {
                for (int i = 0; i < 9; i++) {
                    w.beginNode(i, new int[] {0}, 1);
                    w.property(2);
                    w.writeBoolean(i % 2 == 0);
                    if (i == 7) {
                        w.property(1);
                        w.writeString(big);
                    }
                    w.endNode();
                }
            }));
            List<String> batches = bytes == Arrow.BATCH_BYTES - 233 ? List.of("batch 8", "batch 1", "batch 0")
                    : List.of("batch 9", "batch 0");
            assertEquals(batches, s.messages.subList(3, s.messages.size()), bytes + " bytes");
            assertEquals(big, s.rows().get(7).get("key1"));
            assertEquals(true, s.rows().get(8).get("key2"));
        }
    }

    /**
     * Every kind of variable-length value counts toward the size as it comes: a row past 8 MiB by a long array, a
     * vector, bytes, UTF-8 bytes or a value that falls back closes the batch right after it.
     */
    @Test
    void eachVariableLengthValueCountsAsItComes() throws IOException {
        int n = (Arrow.BATCH_BYTES >> 3) + 1000;
        byte[] bytes = new byte[8 * n];
        java.util.Arrays.fill(bytes, (byte) 'u');
        long[] longs = new long[n];
        List<Records> bigValues = List.of(
                w -> {
                    w.beginArray(n, ArrayKind.LONG);
                    for (int i = 0; i < n; i++) {
                        w.writeLong(i);
                    }
                    w.endArray();
                },
                w -> w.writeVector(VectorKind.INT64, longs),
                w -> w.writeBytes(bytes),
                w -> w.writeUtf8(bytes, 0, bytes.length),
                w -> {  // 700,000 dates, one out of range: 9.1 MB of json in extra_properties
                    w.beginArray(700_000, ArrayKind.DATE);
                    for (int i = 0; i < 700_000; i++) {
                        w.writeDate(i == 0 ? LocalDate.MIN : LocalDate.of(2020, 2, 29));
                    }
                    w.endArray();
                });
        for (int k = 0; k < bigValues.size(); k++) {
            Records value = bigValues.get(k);
            List<String> messages = ArrowStreamReader.messages(stream(100_000, w -> {
                w.beginNode(0, new int[] {0}, 1);
                w.endNode();
                w.beginNode(1, new int[] {0}, 1);
                w.property(1);
                value.write(w);
                w.endNode();
                w.beginNode(2, new int[] {0}, 1);
                w.endNode();
                w.beginNode(3, new int[] {0}, 1);
                w.endNode();
            }));
            assertEquals(List.of("batch 2", "batch 2", "batch 0"), messages.subList(3, messages.size()), "value " + k);
        }
    }

    /**
     * Fixed-width values are not counted as they come: the batch's size is summed every 256 rows, so 257 rows of
     * 1,200 durations (33,600 bytes each: past 8 MiB at row 250) close the batch at row 256.
     */
    @Test
    void withFixedWidthValuesOnlyTheSizeIsSummedEvery256Rows() throws IOException {
        int keys = 1200;
        List<String> messages = ArrowStreamReader.messages(stream(100_000, w -> {
            for (int i = 0; i < 257; i++) {
                w.beginNode(i, new int[] {0}, 1);
                for (int k = 0; k < keys; k++) {
                    w.property(k);
                    w.writeDuration(i, k, 0, 0);
                }
                w.endNode();
            }
        }));
        assertEquals(List.of("batch 256", "batch 1", "batch 0"), messages.subList(3, 6));
    }

    /**
     * A fallback record of 64 KiB or more is handed over by the json writer (Wire.HAND_OVER_BYTES): its properties
     * still come whole from there, and the next row's fallback starts empty, a large one too.
     */
    @Test
    void aFallbackOfMoreThan64KibComesWholeAndTheNextStartsEmpty() throws IOException {
        String big = "\u00e9".repeat(40_000);  // 80,000 bytes of UTF-8
        ArrowStreamReader.Stream s = ArrowStreamReader.read(stream(1, w -> {
            w.beginNode(0, new int[] {0}, 1);
            w.endNode();
            w.beginNode(1, new int[] {0}, 1);
            w.property(1);
            w.writeString(big);
            w.property(2);
            w.writeLong(2);
            w.endNode();
            w.beginNode(2, new int[] {0}, 1);
            w.property(3);
            w.writeBoolean(false);
            w.endNode();
            w.beginNode(3, new int[] {0}, 1);
            w.endNode();
            w.beginNode(4, new int[] {0}, 1);
            w.property(4);
            w.writeString(big.substring(1));
            w.endNode();
        }));
        List<ArrowStreamReader.Row> rows = s.rows();
        assertEquals("{\"key1\":\"" + big + "\",\"key2\":2}", rows.get(1).get(Arrow.EXTRA));
        assertEquals("{\"key3\":false}", rows.get(2).get(Arrow.EXTRA));
        assertEquals(null, rows.get(3).get(Arrow.EXTRA));
        assertEquals("{\"key4\":\"" + big.substring(1) + "\"}", rows.get(4).get(Arrow.EXTRA));
    }

    /**
     * An error while a value falls back (an array of a key first seen after the schema) or while a date array is
     * held back to see whether it fits: the complete rows before it go out, then the error.
     */
    @Test
    void anErrorInsideAFallbackOrAHeldBackArrayEndsTheStreamAfterTheCompleteRows() throws IOException {
        for (boolean fallback : new boolean[] {true, false}) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            GraphWriter w = ArrowGraphWriter.arrow(out, fallback ? 1 : 100);
            w.header(FixtureStream.HEADER, new LzfChunkTest.SimpleTokens());
            w.beginNode(0, new int[] {0}, 1);
            w.property(1);
            w.writeString("zero");
            w.endNode();
            w.beginNode(1, new int[] {0}, 1);
            w.property(2);
            w.writeString("one");
            w.endNode();
            w.beginNode(2, new int[] {0}, 1);
            w.property(3);
            w.beginArray(2, ArrayKind.DATE);
            w.writeDate(LocalDate.of(2000, 1, 1));
            w.error("Neo.TransientError.Test", "stop");
            w.finish();
            ArrowStreamReader.Stream s = ArrowStreamReader.read(out.toByteArray());
            List<ArrowStreamReader.Row> rows = s.rows();
            assertEquals(2, rows.size());
            assertEquals("zero", rows.get(0).get("key1"));
            assertEquals(fallback ? "{\"key2\":\"one\"}" : null, rows.get(1).get(Arrow.EXTRA));
            assertEquals(fallback ? null : "one", rows.get(1).get("key2"));
            assertEquals(Map.of("subgraph.record", "error", "subgraph.code", "Neo.TransientError.Test",
                    "subgraph.message", "stop"), s.closing);
        }
    }

    /**
     * Calls the protocol forbids throw IllegalStateException and write nothing: end() inside a record (arrow's open
     * record is in its columns, not in the output buffer: until this test, end() went through and sent the half
     * row), end() or error() after the closing record, left ids in a stream that is not a delta.
     */
    @Test
    void misplacedCallsThrowAndWriteNothing() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = ArrowGraphWriter.arrow(out, 100);
        w.header(FixtureStream.HEADER, new LzfChunkTest.SimpleTokens());
        assertThrows(IllegalStateException.class, () -> w.leftNode(1));
        assertThrows(IllegalStateException.class, () -> w.leftRelationship(1));
        w.beginNode(0, new int[] {0}, 1);
        w.property(1);
        w.writeLong(7);
        IllegalStateException inside = assertThrows(IllegalStateException.class, () -> w.end(1, 0, false));
        assertEquals("end() inside a record", inside.getMessage());
        assertEquals(0, out.size());
        w.endNode();
        w.end(1, 0, false);
        assertThrows(IllegalStateException.class, () -> w.end(1, 0, false));
        assertThrows(IllegalStateException.class, () -> w.error("Neo.ClientError.Test", "late"));
        w.finish();
        ArrowStreamReader.Stream s = ArrowStreamReader.read(out.toByteArray());
        assertEquals(1, s.rows().size());
        assertEquals(7L, s.rows().get(0).get("key1"));
        assertEquals("end", s.closing.get("subgraph.record"));
    }

    /**
     * A date or local date-time array with one element beyond its Arrow type's range falls back whole, as the json
     * writer writes it; one whose elements all fit stays a list.
     */
    @Test
    void dateAndLocalDateTimeArraysWithAnElementOutOfRangeFallBackWhole() throws IOException {
        ArrowStreamReader.Stream s = ArrowStreamReader.read(stream(100, w -> {
            for (int i = 0; i < 2; i++) {
                w.beginNode(i, new int[] {0}, 1);
                w.property(1);
                w.beginArray(2, ArrayKind.DATE);
                w.writeDate(LocalDate.of(2020, 2, 29));
                w.writeDate(i == 0 ? LocalDate.of(1, 1, 1) : LocalDate.MIN);
                w.endArray();
                w.property(2);
                w.beginArray(2, ArrayKind.LOCAL_DATE_TIME);
                w.writeLocalDateTime(LocalDateTime.of(2020, 2, 29, 1, 2));
                w.writeLocalDateTime(i == 0 ? LocalDateTime.of(2000, 1, 1, 0, 0) : LocalDateTime.of(1600, 1, 1, 0, 0));
                w.endArray();
                w.endNode();
            }
        }));
        List<ArrowStreamReader.Row> rows = s.rows();
        assertEquals(List.of(LocalDate.of(2020, 2, 29), LocalDate.of(1, 1, 1)), rows.get(0).get("key1"));
        assertEquals(List.of(LocalDateTime.of(2020, 2, 29, 1, 2), LocalDateTime.of(2000, 1, 1, 0, 0)),
                rows.get(0).get("key2"));
        assertEquals(null, rows.get(0).get(Arrow.EXTRA));
        assertEquals(null, rows.get(1).get("key1"));
        assertEquals(null, rows.get(1).get("key2"));
        assertEquals("{\"key1\":{\"date[]\":[\"2020-02-29\",\"-999999999-01-01\"]},"
                + "\"key2\":{\"localdatetime[]\":[\"2020-02-29T01:02:00\",\"1600-01-01T00:00:00\"]}}",
                rows.get(1).get(Arrow.EXTRA));
    }

    /**
     * An error at a batch's 512th row, whose boolean and validity bits are the last of their first arrays: the
     * row's bits are cleared (the bitmaps end where the 511 complete rows do) and each child is as long as its
     * struct again.
     */
    @Test
    void anErrorAtTheLastBitOfTheFirstBitmapsDropsTheRow() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = ArrowGraphWriter.arrow(out, 1000);
        w.header(FixtureStream.HEADER, new LzfChunkTest.SimpleTokens());
        for (int i = 0; i < 512; i++) {
            w.beginNode(i, new int[] {0}, 1);
            if (i % 2 == 1) {
                w.property(1);
                w.writeBoolean(true);
            }
            if (i == 511) {
                w.error("Neo.TransientError.Test", "at 511");
                break;
            }
            w.endNode();
        }
        w.finish();
        List<ArrowStreamReader.Row> rows = ArrowStreamReader.read(out.toByteArray()).rows();
        assertEquals(511, rows.size());
        for (int i = 0; i < 511; i++) {
            assertEquals(i % 2 == 1 ? true : null, rows.get(i).get("key1"), "row " + i);
        }
    }

    /** Dictionary indexes past two bytes: 65,600 labels, the last nodes' read back by name. */
    @Test
    void labelsPast65536ReadBackByName() throws IOException {
        int n = 65_600;
        ArrowStreamReader.Stream s = ArrowStreamReader.read(stream(100_000, w -> {
            for (int i = 0; i < n; i++) {
                w.beginNode(i, new int[] {i}, 1);
                w.endNode();
            }
            w.beginRelationship(0, 70_000, 0, 1);
            w.endRelationship();
        }));
        assertEquals(n, s.labels.size());
        List<ArrowStreamReader.Row> rows = s.rows();
        for (int i = 65_530; i < n; i++) {
            assertEquals(List.of("Label" + i), rows.get(i).get("labels"));
        }
        assertEquals("TYPE_70000", rows.get(n).get("type"));
    }

    /**
     * A label set's group is found by its labels, not by its hash: the sets {0, 31} and {1, 0} (dictionary indexes)
     * hash alike and are two groups; a single label first seen among 40 others has its own group.
     */
    @Test
    void labelSetsThatHashAlikeAreTwoGroups() throws IOException {
        int[] forty = new int[40];
        for (int i = 0; i < 40; i++) {
            forty[i] = i;
        }
        ArrowStreamReader.Stream s = ArrowStreamReader.read(stream(100, w -> {
            w.beginNode(0, forty, 40);
            w.endNode();
            w.beginNode(1, new int[] {39}, 1);
            w.endNode();
            w.beginNode(2, new int[] {0, 31}, 2);
            w.endNode();
            w.beginNode(3, new int[] {39}, 1);
            w.endNode();
            w.beginNode(4, new int[] {1, 0}, 2);
            w.endNode();
            w.beginNode(5, new int[] {0, 31}, 2);
            w.endNode();
        }));
        List<ArrowStreamReader.Row> rows = s.rows();
        assertEquals(List.of("node:Label39", "node:Label0:Label31", "node:Label39", "node:Label1:Label0",
                "node:Label0:Label31"), rows.subList(1, 6).stream().map(ArrowStreamReader.Row::groupName).toList());
        assertEquals(rows.get(2).group(), rows.get(5).group());
        assertEquals(List.of("Label1", "Label0"), rows.get(4).get("labels"));
        assertEquals(2 + 4, s.element.children().size());
    }

    /** A record may end only where no value is due and no array is open. */
    @Test
    void aRecordEndedWhereAValueIsDueOrInsideAnArrayIsRefused() throws IOException {
        GraphWriter w = ArrowGraphWriter.arrow(new ByteArrayOutputStream(), 100);
        w.header(FixtureStream.HEADER, new LzfChunkTest.SimpleTokens());
        w.beginNode(0, new int[] {0}, 1);
        w.property(1);
        assertEquals("record ended where a property's value is due",
                assertThrows(IllegalStateException.class, w::endNode).getMessage());
        w.beginArray(1, ArrayKind.LONG);
        assertEquals("record ended inside an array or a row",
                assertThrows(IllegalStateException.class, w::endNode).getMessage());
        w.writeLong(1);
        w.endArray();
        assertThrows(IllegalStateException.class, w::endRelationship);
        w.endNode();
        w.beginRelationship(0, 0, 0, 1);
        w.property(2);
        assertThrows(IllegalStateException.class, w::endRelationship);
    }

    /**
     * Nulls cost no writes in fixed-width and boolean columns (their zeros are there) and grow a string column's
     * offsets at once: a value after 2,000 nulls lands far past each column's array, which grows to hold it.
     */
    @Test
    void aValueAfterARunOfNullsPastTheArrays() throws IOException {
        List<ArrowStreamReader.Row> rows = ArrowStreamReader.read(stream(5000, w -> {
            for (int i = 0; i <= 2000; i++) {
                w.beginNode(i, new int[] {0}, 1);
                if (i == 0 || i == 2000) {
                    w.property(1);
                    w.writeLong(i + 1);
                    w.property(2);
                    w.writeBoolean(true);
                    w.property(3);
                    w.writeString("s" + i);
                }
                w.endNode();
            }
        })).rows();
        for (int i : new int[] {0, 2000}) {
            assertEquals(List.of((long) i + 1, true, "s" + i),
                    List.of(rows.get(i).get("key1"), rows.get(i).get("key2"), rows.get(i).get("key3")));
        }
        assertEquals(java.util.Arrays.asList(null, null, null),
                java.util.Arrays.asList(rows.get(1999).get("key1"), rows.get(1999).get("key2"), rows.get(1999).get("key3")));
    }

    /**
     * A boolean column with a value in its first row only and 515 rows in the batch: its bits end one byte past
     * their first array (64 bytes), which grows when the batch goes out.
     */
    @Test
    void aBooleanColumnWhoseNullsEndOneBytePastItsBits() throws IOException {
        List<ArrowStreamReader.Row> rows = ArrowStreamReader.read(stream(515, w -> {
            for (int i = 0; i < 515; i++) {
                w.beginNode(i, new int[] {0}, 1);
                if (i == 0) {
                    w.property(1);
                    w.writeBoolean(true);
                }
                w.endNode();
            }
        })).rows();
        assertEquals(515, rows.size());
        assertEquals(true, rows.get(0).get("key1"));
        assertEquals(null, rows.get(514).get("key1"));
    }
}
