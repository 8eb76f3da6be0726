package org.subgraphexport.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import de.undercouch.bson4jackson.BsonFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import java.util.List;
import org.subgraphexport.client.CorruptStreamException;
import org.subgraphexport.client.ExportEnd;
import org.subgraphexport.client.ExportFailedException;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.ExportRecord;
import org.subgraphexport.client.ExportHeader;
import org.subgraphexport.client.Streams;
import org.subgraphexport.client.Subgraph;
import org.subgraphexport.wire.Format;

/**
 * {@link TokenParser} (JSON and BSON) on hand-written records: the version 2 header's partition fields at their
 * bounds, with the exact error of each refusal. HostileInputTest checks that hostile records fail as corrupt; these
 * pin which are accepted and what the refusal says.
 */
class TokenParserTest {
    private static final String END = ",{\"record\":\"end\",\"nodes\":0,\"relationships\":0,\"truncated\":false,"
            + "\"state\":\"s1\"}]";

    private static String header(String partitionFields) {
        return "[{\"record\":\"header\",\"version\":2,\"database\":\"db\",\"root\":\"\",\"state\":\"s1\""
                + partitionFields + "}";
    }

    /** JSON records as {@code format}: JSON as is, BSON one document per record. */
    private static byte[] encode(Format format, String json) {
        if (format == Format.JSON) {
            return json.getBytes(StandardCharsets.UTF_8);
        }
        try (JsonParser p = new JsonFactory().createParser(json)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            JsonGenerator g = new BsonFactory().createGenerator(out);
            p.nextToken();
            while (p.nextToken() == JsonToken.START_OBJECT) {
                g.copyCurrentStructure(p);
                g.flush();
            }
            g.close();
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void assertCorrupt(Format format, String expectedPart, String json) {
        CorruptStreamException e = assertThrows(CorruptStreamException.class,
                () -> Streams.decode(format, encode(format, json)));
        assertTrue(e.getMessage().contains(expectedPart), () -> "expected '" + expectedPart + "' in: " + e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(value = Format.class, names = {"JSON", "BSON"})
    void partitionsAreReadWithinTheirBounds(Format format) throws IOException {
        for (long[] ok : new long[][] {{0, 1}, {1, 2}, {2, 3}, {Integer.MAX_VALUE - 1, Integer.MAX_VALUE}}) {
            Subgraph s = Streams.decode(format, encode(format,
                    header(",\"partition\":" + ok[0] + ",\"partitions\":" + ok[1]) + END));
            assertEquals(new ExportHeader(2, "db", "", "s1", (int) ok[0], (int) ok[1], ""), s.header());
            assertEquals(new ExportEnd(0, 0, false, 0, "s1"), s.end());
        }
        assertCorrupt(format, "partition 1 of 1", header(",\"partition\":1,\"partitions\":1") + END);
        assertCorrupt(format, "partition 3 of 2", header(",\"partition\":3,\"partitions\":2") + END);
        assertCorrupt(format, "integer -1 outside 0..2147483646", header(",\"partition\":-1,\"partitions\":2") + END);
        assertCorrupt(format, "integer 2147483647 outside 0..2147483646",
                header(",\"partition\":2147483647,\"partitions\":2") + END);
        assertCorrupt(format, "integer 0 outside 1..2147483647", header(",\"partition\":0,\"partitions\":0") + END);
        assertCorrupt(format, "integer 2147483648 outside 1..2147483647",
                header(",\"partition\":0,\"partitions\":2147483648") + END);
        assertCorrupt(format, "header without 'partition' and 'partitions'", header(",\"partitions\":2") + END);
        assertCorrupt(format, "header without 'partition' and 'partitions'", header(",\"partition\":0") + END);
        assertCorrupt(format, "header without 'partition' and 'partitions'", header("") + END);
    }

    @ParameterizedTest
    @EnumSource(value = Format.class, names = {"JSON", "BSON"})
    void aDeltaHeaderNamesItsEarlierState(Format format) throws IOException {
        Subgraph s = Streams.decode(format, encode(format,
                header(",\"partition\":0,\"partitions\":1,\"since\":\"s0\"") + END));
        assertEquals(new ExportHeader(2, "db", "", "s1", 0, 1, "s0"), s.header());
    }

    @ParameterizedTest
    @EnumSource(value = Format.class, names = {"JSON", "BSON"})
    void theEndRecordsFields(Format format) throws IOException {
        String head = header(",\"partition\":0,\"partitions\":1");
        String rowsHead = head + ",{\"record\":\"columns\",\"names\":[\"a\"]}";
        assertEquals(new ExportEnd(0, 0, true, 0, "s2"), Streams.decode(format, encode(format, head
                + ",{\"record\":\"end\",\"nodes\":0,\"relationships\":0,\"truncated\":true,\"state\":\"s2\"}]"))
                .end());
        assertEquals(new ExportEnd(0, 0, false, 0, "s1"), Streams.decode(format, encode(format, rowsHead
                + ",{\"record\":\"end\",\"nodes\":0,\"relationships\":0,\"truncated\":false,\"rows\":0,"
                + "\"state\":\"s1\"}]")).end());
        assertCorrupt(format, "end record without counts", head
                + ",{\"record\":\"end\",\"relationships\":0,\"truncated\":false,\"state\":\"s1\"}]");
        assertCorrupt(format, "end record without counts", head
                + ",{\"record\":\"end\",\"nodes\":0,\"truncated\":false,\"state\":\"s1\"}]");
        assertCorrupt(format, "end record of a rows stream without 'rows'", rowsHead
                + ",{\"record\":\"end\",\"nodes\":0,\"relationships\":0,\"truncated\":false,\"state\":\"s1\"}]");
        assertCorrupt(format, "record without 'state'", head
                + ",{\"record\":\"end\",\"nodes\":0,\"relationships\":0,\"truncated\":false}]");
        assertCorrupt(format, "record without 'truncated'", head
                + ",{\"record\":\"end\",\"nodes\":0,\"relationships\":0,\"state\":\"s1\"}]");
    }

    /** An unknown field, the same in every object: nested arrays and objects, a name the decoder knows inside. */
    private static final String UNKNOWN = "\"zz\":{\"a\":[1,{\"record\":\"node\",\"b\":[2,\"x\"]}],\"id\":\"d\"}";

    /**
     * Graph, rows, delta and error streams with the fields a later writer might add: an unknown field, whatever it
     * holds, is skipped whole in every object the decoder reads (records, tagged values, points, vectors, paths), and
     * the records are those of the same stream without it.
     */
    @ParameterizedTest
    @EnumSource(value = Format.class, names = {"JSON", "BSON"})
    void unknownFieldsAreSkippedWholeEverywhere(Format format) throws IOException {
        String graph = header(",\"partition\":0,\"partitions\":1,U")
                + ",{\"record\":\"node\",U,\"id\":\"n1\",\"labels\":[\"A\"],\"properties\":{"
                + "\"p\":{\"point\":{U,\"srid\":7203,\"coordinates\":[1.0,2.0]}},"
                + "\"v\":{\"vector\":{U,\"kind\":\"INT8\",\"values\":[1,-2]}},\"i\":{\"int\":5}}}"
                + ",{\"record\":\"relationship\",U,\"id\":\"r1\",\"type\":\"T\",\"start\":\"n1\",\"end\":\"n1\","
                + "\"properties\":{}}"
                + ",{\"record\":\"end\",U,\"nodes\":1,\"relationships\":1,\"truncated\":false,\"state\":\"s1\"}]";
        String rows = header(",\"partition\":0,\"partitions\":1")
                + ",{\"record\":\"columns\",U,\"names\":[\"path\",\"point\",\"vector\",\"map\"]}"
                + ",{\"record\":\"node\",\"id\":\"n1\",\"labels\":[],\"properties\":{}}"
                + ",{\"record\":\"relationship\",\"id\":\"r1\",\"type\":\"T\",\"start\":\"n1\",\"end\":\"n1\","
                + "\"properties\":{}}"
                + ",{\"record\":\"row\",U,\"values\":[{\"path\":{U,\"nodes\":[\"n1\",\"n1\"],\"relationships\":[\"r1\"]}},"
                + "{\"point\":{U,\"srid\":4326,\"coordinates\":[3.0,4.0,5.0]}},"
                + "{\"vector\":{U,\"kind\":\"FLOAT64\",\"values\":[0.5]}},{\"map\":{\"k\":{\"node\":\"n1\"}}}]}"
                + ",{\"record\":\"end\",U,\"nodes\":1,\"relationships\":1,\"truncated\":false,\"rows\":1,"
                + "\"state\":\"s1\"}]";
        for (String stream : List.of(graph, rows)) {
            Subgraph plain = Streams.decode(format, encode(format, stream.replace(",U", "").replace("{U,", "{")));
            Streams.assertSubgraph(plain, Streams.decode(format, encode(format, stream.replace("U", UNKNOWN))));
        }
        String delta = header(",\"partition\":0,\"partitions\":1,\"since\":\"s0\"")
                + ",{\"record\":\"left\",U,\"node\":\"n9\"},{\"record\":\"left\",\"relationship\":\"r9\",U}" + END;
        assertEquals(records(format, delta.replace(",U", "")), records(format, delta.replace("U", UNKNOWN)));
        assertEquals(3, records(format, delta.replace("U", UNKNOWN)).size());
        String error = header(",\"partition\":0,\"partitions\":1")
                + ",{\"record\":\"error\",U,\"code\":\"Export.Failed\",\"message\":\"m\",U}]";
        ExportFailedException failed = assertThrows(ExportFailedException.class,
                () -> Streams.decode(format, encode(format, error.replace("U", UNKNOWN))));
        assertEquals("Export.Failed", failed.code());
        assertEquals("m", failed.getMessage());
    }

    /** A value of the wrong JSON kind where an array or object must be: named, with what was found. */
    @ParameterizedTest
    @EnumSource(value = Format.class, names = {"JSON", "BSON"})
    void valuesOfTheWrongKindAreNamed(Format format) {
        String head = header(",\"partition\":0,\"partitions\":1");
        String node = ",{\"record\":\"node\",\"id\":\"n1\",\"labels\":%s,\"properties\":%s}" + END;
        assertCorrupt(format, ": expected START_ARRAY, found VALUE_STRING", head + node.formatted("\"A\"", "{}"));
        assertCorrupt(format, ": expected START_OBJECT, found START_ARRAY", head + node.formatted("[]", "[]"));
        for (String[] c : new String[][] {{"{\"int[]\":5}", "expected START_ARRAY, found VALUE_NUMBER_INT"},
                {"{\"point\":[1]}", "expected START_OBJECT, found START_ARRAY"},
                {"{\"vector\":\"INT8\"}", "expected START_OBJECT, found VALUE_STRING"}}) {
            assertCorrupt(format, ": " + c[1], head + node.formatted("[]", "{\"p\":" + c[0] + "}"));
        }
        String rowsHead = head + ",{\"record\":\"columns\",\"names\":[\"a\"]}";
        assertCorrupt(format, ": expected START_ARRAY, found VALUE_STRING",
                head + ",{\"record\":\"columns\",\"names\":\"a\"}" + END);
        assertCorrupt(format, ": expected START_ARRAY, found START_OBJECT",
                rowsHead + ",{\"record\":\"row\",\"values\":{}}" + END);
        for (String[] c : new String[][] {{"{\"map\":[1]}", "expected START_OBJECT, found START_ARRAY"},
                {"{\"path\":\"p\"}", "expected START_OBJECT, found VALUE_STRING"}}) {
            assertCorrupt(format, ": " + c[1], rowsHead + ",{\"record\":\"row\",\"values\":[" + c[0] + "]}" + END);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Format.class, names = {"JSON", "BSON"})
    void headerAndClosingErrors(Format format) {
        String v1 = "[{\"record\":\"header\",\"database\":\"db\",\"root\":\"\"%s}";
        String end1 = ",{\"record\":\"end\",\"nodes\":0,\"relationships\":0,\"truncated\":false}";
        assertCorrupt(format, "): header without version", v1.formatted("") + end1 + "]");
        CorruptStreamException e = assertThrows(CorruptStreamException.class,
                () -> Streams.decode(format, encode(format, v1.formatted(",\"version\":99") + end1 + "]")));
        assertEquals("unsupported " + format.pathSegment() + " stream version 99 (this decoder reads version "
                + org.subgraphexport.wire.Wire.VERSION + ")", e.getMessage());
        String head = header(",\"partition\":0,\"partitions\":1");
        String error = ",{\"record\":\"error\",\"code\":\"C\",\"message\":\"m\"}";
        assertCorrupt(format, format == Format.JSON ? "): records after the closing record"
                : "): documents after the closing record", head + error + error + "]");
        assertCorrupt(format, format == Format.JSON ? "): records after the closing record"
                : "): documents after the closing record", head + END.replace("]", "") + error + "]");
        // a rows stream of no columns still needs its end record's row count
        assertCorrupt(format, "): end record of a rows stream without 'rows'", head
                + ",{\"record\":\"columns\",\"names\":[]},{\"record\":\"end\",\"nodes\":0,\"relationships\":0,"
                + "\"truncated\":false,\"state\":\"s1\"}]");
        e = assertThrows(CorruptStreamException.class, () -> Streams.decode(format, encode(format, head + "]")));
        assertTrue(e.getMessage().startsWith("stream truncated after 1 records ("), e.getMessage());
    }

    /**
     * Property keys whose hash codes are all equal (every mix of "Aa" and "BB" has one hash code): more than the key
     * table probes, so the record's keys move to a set; every key is still there once, a repeated one is refused, and
     * the keys of the record before do not count.
     */
    @ParameterizedTest
    @EnumSource(value = Format.class, names = {"JSON", "BSON"})
    void propertyKeysThatCollideAreCheckedLikeOthers(Format format) throws IOException {
        List<String> keys = new java.util.ArrayList<>();
        for (int bits = 0; bits < 64; bits++) {
            StringBuilder k = new StringBuilder();
            for (int i = 0; i < 6; i++) {
                k.append((bits >> i & 1) == 0 ? "Aa" : "BB");
            }
            keys.add(k.toString());
        }
        assertEquals(1, keys.stream().map(String::hashCode).distinct().count());
        StringBuilder properties = new StringBuilder();
        for (int i = 0; i < keys.size(); i++) {
            properties.append(i == 0 ? "" : ",").append('"').append(keys.get(i)).append("\":{\"int\":").append(i)
                    .append('}');
        }
        String head = header(",\"partition\":0,\"partitions\":1");
        String first = ",{\"record\":\"node\",\"id\":\"n0\",\"labels\":[],\"properties\":{\"x\":{\"int\":1},"
                + "\"y\":{\"int\":2}}}";
        String node = ",{\"record\":\"node\",\"id\":\"n1\",\"labels\":[],\"properties\":{" + properties + "%s}}";
        String end = ",{\"record\":\"end\",\"nodes\":2,\"relationships\":0,\"truncated\":false,\"state\":\"s1\"}]";
        Subgraph s = Streams.decode(format, encode(format, head + first + node.formatted(",\"x\":{\"int\":-1}") + end));
        assertEquals(keys.size() + 1, s.nodes().get("n1").properties().size());
        assertEquals(63, s.nodes().get("n1").properties().get(keys.get(63)));
        assertEquals(-1, s.nodes().get("n1").properties().get("x"));
        assertCorrupt(format, "): property '" + keys.get(40) + "' twice in one record",
                head + first + node.formatted(",\"" + keys.get(40) + "\":{\"int\":0}") + end);
        assertCorrupt(format, "): property '" + keys.get(0) + "' twice in one record",
                head + first + node.formatted(",\"" + keys.get(0) + "\":{\"int\":0}") + end);
    }

    /** The header and every record after it, up to the end record or the failure. */
    private static List<Object> records(Format format, String json) throws IOException {
        List<Object> out = new java.util.ArrayList<>();
        try (ExportReader r = ExportReader.open(format, new java.io.ByteArrayInputStream(encode(format, json)))) {
            out.add(r.header());
            for (ExportRecord rec; (rec = r.next()) != null && !(rec instanceof ExportEnd); ) {
                out.add(rec);
            }
        }
        return out;
    }

    /**
     * A node's and a relationship's fields in every order (docs/wire-format.md section 4 allows any): the same records,
     * handed on as soon as everything before the properties has arrived, held until the record ends otherwise.
     */
    @ParameterizedTest
    @EnumSource(value = Format.class, names = {"JSON", "BSON"})
    void fieldsInAnyOrderGiveTheSameRecords(Format format) throws IOException {
        List<String> nodeFields = List.of("\"id\":\"n1\"", "\"labels\":[\"A\",\"B\"]",
                "\"properties\":{\"p\":{\"int\":1},\"q\":\"x\",\"f\":{\"float\":1.5},\"s\":{\"short\":-3},"
                        + "\"b\":{\"byte\":7},\"c\":{\"char\":\"y\"},\"d\":{\"date\":\"2020-01-31\"},"
                        + "\"l\":{\"long[]\":[1,2]},\"t\":true,\"g\":-0.25,\"n\":9007199254740993}");
        List<String> relationshipFields = List.of("\"id\":\"r1\"", "\"type\":\"T\"", "\"start\":\"n1\"",
                "\"end\":\"n2\"", "\"properties\":{\"w\":{\"double\":0.5}}");
        String head = header(",\"partition\":0,\"partitions\":1");
        String n2 = ",{\"record\":\"node\",\"id\":\"n2\",\"labels\":[],\"properties\":{}}";
        String end = ",{\"record\":\"end\",\"nodes\":2,\"relationships\":1,\"truncated\":false,\"state\":\"s1\"}]";
        Subgraph expected = Streams.decode(format, encode(format, head
                + ",{\"record\":\"node\"," + String.join(",", nodeFields) + "}" + n2
                + ",{\"record\":\"relationship\"," + String.join(",", relationshipFields) + "}" + end));
        assertEquals(List.of("A", "B"), expected.nodes().get("n1").labels());
        assertEquals(java.util.Map.of("p", 1, "q", "x", "f", 1.5f, "s", (short) -3, "b", (byte) 7, "c", 'y', "d",
                java.time.LocalDate.of(2020, 1, 31), "t", true, "g", -0.25, "n", 9007199254740993L),
                without(expected.nodes().get("n1").properties(), "l"));
        assertEquals("n2", expected.relationships().get("r1").end());
        int streams = 0;
        for (List<String> node : permutations(nodeFields)) {
            for (List<String> relationship : permutations(relationshipFields)) {
                Streams.assertSubgraph(expected, Streams.decode(format, encode(format, head
                        + ",{\"record\":\"node\"," + String.join(",", node) + "}" + n2
                        + ",{\"record\":\"relationship\"," + String.join(",", relationship) + "}" + end)));
                streams++;
            }
        }
        assertEquals(6 * 120, streams);
    }

    private static java.util.Map<String, Object> without(java.util.Map<String, Object> map, String key) {
        java.util.Map<String, Object> copy = new java.util.HashMap<>(map);
        assertTrue(copy.remove(key) != null, key);
        return copy;
    }

    private static List<List<String>> permutations(List<String> items) {
        if (items.isEmpty()) {
            return List.of(List.of());
        }
        List<List<String>> out = new java.util.ArrayList<>();
        for (String first : items) {
            List<String> rest = new java.util.ArrayList<>(items);
            rest.remove(first);
            for (List<String> p : permutations(rest)) {
                List<String> all = new java.util.ArrayList<>(List.of(first));
                all.addAll(p);
                out.add(all);
            }
        }
        return out;
    }

    /**
     * A labels list that recurs is one List for all its records (RecordParts' cache), up to 256 labels; lists and key
     * sequences whose hashes are equal ("Aa" and "BB" have one hash code) stay apart.
     */
    @ParameterizedTest
    @EnumSource(value = Format.class, names = {"JSON", "BSON"})
    void recurringLabelsAreOneListAndCollidingOnesStayApart(Format format) throws IOException {
        List<String> many = new java.util.ArrayList<>();
        for (int i = 0; i < 256; i++) {
            many.add("L" + i);
        }
        List<List<String>> labels = List.of(List.of("A", "B"), List.of("A", "B"), List.of("Aa"), List.of("BB"),
                List.of("Aa", "BB"), List.of("BB", "Aa"), List.of("BB", "Aa"), List.of(), many, many, List.of("A"),
                List.of("A"));
        List<String> properties = List.of("{\"Aa\":1}", "{\"BB\":2}", "{\"Aa\":3,\"BB\":4}", "{\"BB\":5,\"Aa\":6}");
        StringBuilder json = new StringBuilder(header(",\"partition\":0,\"partitions\":1"));
        for (int i = 0; i < labels.size(); i++) {
            json.append(",{\"record\":\"node\",\"id\":\"n").append(i).append("\",\"labels\":[");
            json.append(String.join(",", labels.get(i).stream().map(l -> "\"" + l + "\"").toList()));
            json.append("],\"properties\":").append(properties.get(i % properties.size())).append('}');
        }
        json.append(",{\"record\":\"end\",\"nodes\":").append(labels.size())
                .append(",\"relationships\":0,\"truncated\":false,\"state\":\"s1\"}]");
        Subgraph s = Streams.decode(format, encode(format, json.toString()));
        for (int i = 0; i < labels.size(); i++) {
            assertEquals(labels.get(i), s.nodes().get("n" + i).labels(), "n" + i);
        }
        for (int[] same : new int[][] {{0, 1}, {5, 6}, {8, 9}, {10, 11}}) {
            assertSame(s.nodes().get("n" + same[0]).labels(), s.nodes().get("n" + same[1]).labels());
        }
        assertEquals(java.util.Map.of("Aa", 1L), s.nodes().get("n0").properties());
        assertEquals(java.util.Map.of("BB", 2L), s.nodes().get("n1").properties());
        assertEquals(List.of("Aa", "BB"), List.copyOf(s.nodes().get("n2").properties().keySet()));
        assertEquals(List.of("BB", "Aa"), List.copyOf(s.nodes().get("n3").properties().keySet()));
        assertEquals(6L, s.nodes().get("n7").properties().get("Aa"));
    }
}
