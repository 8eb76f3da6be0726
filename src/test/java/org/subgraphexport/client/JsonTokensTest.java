package org.subgraphexport.client;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Array;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.subgraphexport.format.FixtureStream;
import org.subgraphexport.format.Format;
import org.subgraphexport.format.GraphWriter;
import org.subgraphexport.format.Header;
import org.subgraphexport.format.RowsFixture;
import org.subgraphexport.format.TokenNames;
import org.subgraphexport.format.ValueSink.VectorKind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The JSON decoder ({@link JsonTokens} under {@link JacksonRecordReader}) against the decoder it replaced, Jackson's
 * {@code JsonParser} under the same record code ({@link JacksonJsonReference}, the reader of commit cfb50b2): on
 * every valid stream, written by the writer or reformatted (whitespace, escapes), both give the same records, value
 * for value and class for class; on hostile bytes both fail the same way, except where the new one is stricter, and
 * only there: malformed UTF-8 that Jackson took (overlong forms, code points above U+10FFFF), raw control characters
 * inside a base64 string, input in UTF-16 or UTF-32.
 */
class JsonTokensTest {
    private static final JsonFactory JACKSON = new JsonFactory();

    // ---- valid streams ------------------------------------------------------------------------------------

    @Test
    void fixturesAndGoldenFilesDecodeAsBefore() throws IOException {
        List<byte[]> streams = new ArrayList<>(List.of(
                FixtureStream.small().bytes(Format.JSON),
                FixtureStream.compact().bytes(Format.JSON),
                FixtureStream.full().bytes(Format.JSON),
                RowsFixture.standard().bytes(Format.JSON),
                Files.readAllBytes(Path.of("src", "test", "resources", "golden", "fixture.json")),
                Files.readAllBytes(Path.of("src", "test", "resources", "golden", "rows.json"))));
        for (byte[] s : List.copyOf(streams)) {
            streams.addAll(reformatted(s));
        }
        for (int i = 0; i < streams.size(); i++) {
            Outcome expected = decode(streams.get(i), true);
            assertEquals(null, expected.failure, "stream " + i + " is valid");
            assertSame("stream " + i, expected, decode(streams.get(i), false));
            assertSame("stream " + i + " one byte per read", expected, decode(Streams.tiny(streams.get(i)), false));
        }
    }

    @Test
    void seededRandomGraphsDecodeAsBefore() throws IOException {
        for (long seed = 1; seed <= 300; seed++) {
            byte[] json = randomGraph(new Random(seed));
            Outcome expected = decode(json, true);
            assertEquals(null, expected.failure, "seed " + seed + " is valid");
            assertSame("seed " + seed, expected, decode(json, false));
            if (seed % 10 == 0) {
                for (byte[] variant : reformatted(json)) {
                    assertSame("seed " + seed + " reformatted", expected, decode(variant, false));
                }
            }
        }
    }

    /** Numbers, strings and base64 in every spelling, as values and in unknown fields. */
    @Test
    void valuesInEverySpellingDecodeAsBefore() throws IOException {
        List<String> values = new ArrayList<>(List.of(
                "0", "-0", "1", "-1", "0.0", "-0.0", "1.0", "1e5", "1E5", "1e+5", "1E-5", "1e-00", "1e0999",
                "9007199254740993", "9007199254740993.0", "9223372036854775807", "-9223372036854775808",
                "9223372036854775808", "-9223372036854775809", "123456789012345678901234567890",
                "1.7976931348623157e308", "1.7976931348623159e308", "1e400", "-1e400", "4.9e-324", "2e-324",
                "2.2250738585072011e-308", "2.2250738585072012e-308", "0.1", "0.30000000000000004",
                "123456789012345678.5", "1234567890123456789e-3", "0.000000000000000000000000001",
                "{\"float\":1.00000017881393432617187499}", "{\"float\":3.4028235e38}", "{\"float\":3.4028236e38}",
                "{\"float\":1.4e-45}", "{\"float\":7e-46}", "{\"float\":16777217}", "{\"float\":-0}",
                "{\"float\":123456789012345678901234567890}", "{\"double\":9007199254740993}",
                "{\"double\":123456789012345678901234567890}", "{\"float\":\"NaN\"}", "{\"double\":\"-Infinity\"}",
                "{\"int\":2147483647}", "{\"int\":2147483648}", "{\"short\":-32768}", "{\"byte\":128}",
                "1" + "0".repeat(999), "1." + "0".repeat(998), "0." + "0".repeat(997) + "1", "1e" + "0".repeat(998) + "1",
                "9".repeat(500) + "." + "9".repeat(500), "9".repeat(500) + "." + "9".repeat(499),
                "\"\"", "\"a\"", "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\u0041\\u00e9\\u20AC\\ud83d\\ude00\"",
                "\"\\uD800\"", "\"\\udc00x\"", "\"é€😀\u007f\"", "\"" + "x".repeat(70_000) + "\"",
                "\"" + "é".repeat(40_000) + "\"", "{\"char\":\"\\u0000\"}", "{\"char\":\"\\ud800\"}",
                "{\"bytes\":\"\"}", "{\"bytes\":\"AAH/f4A=\"}", "{\"bytes\":\"AAH\\/f4A=\"}", "{\"bytes\":\"AAH/\\nf4A=\"}",
                "{\"bytes\":\"AAH/ f4A=\"}", "{\"bytes\":\"AAH/f4A= \"}", "{\"bytes\":\"AA==AAAA\"}",
                "{\"bytes\":\"AAH/f4A\"}", "{\"bytes\":\"AA H/f4A=\"}", "{\"bytes\":\"\\u0041AAA\"}", "{\"bytes\":\"A===\"}",
                "{\"bytes\":\"AAAAA\"}", "{\"bytes\":\"AA=A\"}", "{\"bytes\":\"AA\\t==\"}", "{\"bytes\":\"é\"}",
                "{\"date\":\"2020-01-31\"}", "{\"uuid\":\"123e4567-e89b-42d3-a456-426614174000\"}",
                " 1 ", "\t\r\n1\n", "[", "]", "{}", "nul", "true", "truex", "tru", "-", "01", "-01", "1.", ".5", "+1",
                "1e", "1e+", "0x10", "NaN", "Infinity", "'a'", "\"a", "\"\\x\"", "\"\\u12G4\"", "\"\\U0041\"",
                "\"a\tb\"", "\"\u0001\"", "1 2", "[1,]", "[,1]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "[1 2]",
                "1" + "0".repeat(1000), "1." + "0".repeat(999), "1e" + "0".repeat(1000), "/* c */ 1", "# c\n1",
                "[[[]]]", "{\"a\":[{\"b\":null}],\"c\":{}}", "\f1", "\u00a01"));
        Random random = new Random(7);
        for (int i = 0; i < 3000; i++) {
            values.add(randomNumber(random));
        }
        for (int i = 0; i < 300; i++) {
            values.add("{\"float\":" + randomNumber(random) + "}");
            values.add("{\"double\":" + randomNumber(random) + "}");
            values.add("{\"bytes\":\"" + randomBase64(random) + "\"}");
        }
        String head = "[{\"record\":\"header\",\"version\":1,\"database\":\"d\",\"root\":\"\"},";
        String end = ",{\"record\":\"end\",\"nodes\":1,\"relationships\":0,\"truncated\":false}]";
        for (String v : values) {
            for (String json : List.of(
                    head + "{\"record\":\"node\",\"id\":\"n\",\"labels\":[],\"properties\":{\"p\":" + v + "}}" + end,
                    head + "{\"record\":\"node\",\"id\":\"n\",\"x\":" + v + ",\"labels\":[],\"properties\":{}}" + end,
                    head + "{\"record\":\"node\",\"id\":\"n\",\"labels\":[],\"properties\":{}," + v + ":1}" + end)) {
                byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
                compare(v, bytes);
            }
        }
    }

    @Test
    void nestingAndNameLimitsAsBefore() throws IOException {
        String head = "[{\"record\":\"header\",\"version\":1,\"database\":\"d\",\"root\":\"\"},";
        String end = ",{\"record\":\"end\",\"nodes\":1,\"relationships\":0,\"truncated\":false}]";
        // the root array and the record object are two levels: 214 and 215 more are the limit's edges
        for (int extra = 210; extra <= 216; extra++) {
            String deep = "[".repeat(extra) + "]".repeat(extra);
            compare("depth " + extra, utf8(head + "{\"record\":\"node\",\"id\":\"n\",\"x\":" + deep
                    + ",\"labels\":[],\"properties\":{}}" + end));
        }
        for (String name : List.of("a".repeat(50_000), "a".repeat(50_001), "é".repeat(25_000), "é".repeat(25_001),
                "€".repeat(16_666), "€".repeat(16_667), "\\u0061".repeat(50_000), "\\u0061".repeat(50_001),
                "\\u00e9".repeat(25_001), "😀".repeat(12_500), "😀".repeat(12_501), "x".repeat(63), "x".repeat(65))) {
            compare("name of " + name.length(), utf8(head + "{\"record\":\"node\",\"id\":\"n\",\"labels\":[],"
                    + "\"properties\":{\"" + name + "\":1}}" + end));
        }
        compare("byte order mark", concat(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF},
                FixtureStream.small().bytes(Format.JSON)));
        compare("space then byte order mark", concat(new byte[] {' ', (byte) 0xEF, (byte) 0xBB, (byte) 0xBF},
                FixtureStream.small().bytes(Format.JSON)));
    }

    // ---- hostile bytes --------------------------------------------------------------------------------------

    /**
     * Mutated streams: the new decoder returns the same records before the same kind of failure, or the same
     * records and end; where it fails and the old one did not, the bytes are not strictly valid (UTF-8 or JSON).
     */
    @Test
    void mutatedStreamsDecodeAsBefore() throws IOException {
        List<byte[]> corpus = List.of(FixtureStream.small().bytes(Format.JSON),
                FixtureStream.compact().bytes(Format.JSON), RowsFixture.standard().bytes(Format.JSON),
                reformatted(FixtureStream.compact().bytes(Format.JSON)).get(0));
        byte[] interesting = {'"', '\\', '{', '}', '[', ']', ',', ':', '0', '9', '-', '.', 'e', 'u', ' ', '\n', 0,
            0x1F, 0x7F, (byte) 0x80, (byte) 0xBF, (byte) 0xC0, (byte) 0xC1, (byte) 0xC3, (byte) 0xE0, (byte) 0xED,
            (byte) 0xEF, (byte) 0xF0, (byte) 0xF4, (byte) 0xF5, (byte) 0xFF};
        Random random = new Random(0x5EED_7E57L);
        int stricter = 0;
        for (int i = 0; i < 20_000; i++) {
            byte[] b = corpus.get(random.nextInt(corpus.size())).clone();
            for (int m = 1 + random.nextInt(3); m > 0; m--) {
                int at = random.nextInt(b.length);
                switch (random.nextInt(6)) {
                    case 0 -> b[at] ^= (byte) (1 << random.nextInt(8));
                    case 1 -> b[at] = interesting[random.nextInt(interesting.length)];
                    case 2 -> b = concat(Arrays.copyOf(b, at), new byte[] {interesting[random.nextInt(interesting.length)]},
                            Arrays.copyOfRange(b, at, b.length));
                    case 3 -> b = concat(Arrays.copyOf(b, at), Arrays.copyOfRange(b, Math.min(b.length, at + 1
                            + random.nextInt(8)), b.length));
                    case 4 -> b = Arrays.copyOf(b, at);
                    default -> {
                        int from = random.nextInt(b.length);
                        int n = Math.min(b.length - from, 1 + random.nextInt(64));
                        b = concat(Arrays.copyOf(b, at), Arrays.copyOfRange(b, from, from + n),
                                Arrays.copyOfRange(b, at, b.length));
                    }
                }
                if (b.length == 0) {
                    break;
                }
            }
            if (compare("mutation " + i, b)) {
                stricter++;
            }
        }
        assertTrue(stricter < 2_000, stricter + " cases only the new decoder rejects");
    }

    /** The cases where only the new decoder fails, one of each kind. */
    @Test
    void stricterThanJacksonOnlyOnInvalidInput() throws IOException {
        String head = "[{\"record\":\"header\",\"version\":1,\"database\":\"d\",\"root\":\"\"},";
        String end = ",{\"record\":\"end\",\"nodes\":1,\"relationships\":0,\"truncated\":false}]";
        byte[] nodeStart = utf8(head + "{\"record\":\"node\",\"id\":\"n\",\"labels\":[],\"properties\":{\"p\":\"");
        byte[] nodeEnd = utf8("\"}}" + end);
        for (byte[] bad : List.of(new byte[] {(byte) 0xC0, (byte) 0x80}, new byte[] {(byte) 0xC1, (byte) 0xBF},
                new byte[] {(byte) 0xE0, (byte) 0x80, (byte) 0x80}, new byte[] {(byte) 0xF0, (byte) 0x80, (byte) 0x80,
                    (byte) 0x80}, new byte[] {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
                new byte[] {(byte) 0xF5, (byte) 0x80, (byte) 0x80, (byte) 0x80})) {
            byte[] stream = concat(nodeStart, bad, nodeEnd);
            assertEquals(null, decode(stream, true).failure, "Jackson took it");
            assertEquals(CorruptStreamException.class, decode(stream, false).failure);
        }
        byte[] rawNewlineInBase64 = utf8(head + "{\"record\":\"node\",\"id\":\"n\",\"labels\":[],\"properties\":"
                + "{\"p\":{\"bytes\":\"AAH/\nf4A=\"}}}" + end);
        assertEquals(null, decode(rawNewlineInBase64, true).failure, "Jackson took it");
        assertEquals(CorruptStreamException.class, decode(rawNewlineInBase64, false).failure);
        byte[] utf16 = new String(FixtureStream.small().bytes(Format.JSON), StandardCharsets.UTF_8)
                .getBytes(StandardCharsets.UTF_16LE);
        assertEquals(null, decode(utf16, true).failure, "Jackson took it");
        assertEquals(CorruptStreamException.class, decode(utf16, false).failure);
    }

    // ---- comparing --------------------------------------------------------------------------------------------

    /** Records decoded (rendered with classes and exact values) and how decoding ended (null: at the end). */
    private record Outcome(List<String> records, Class<?> failure, String exportError, String message) {}

    private static Outcome decode(byte[] bytes, boolean reference) {
        return decode(new ByteArrayInputStream(bytes), reference);
    }

    private static Outcome decode(InputStream in, boolean reference) {
        List<String> records = new ArrayList<>();
        try (RecordReader reader = reference ? JacksonJsonReference.open(in) : RecordReader.open(Format.JSON, in)) {
            records.add(render(reader.header()));
            for (Record r; (r = reader.next()) != null; ) {
                records.add(render(r));
            }
            return new Outcome(records, null, null, null);
        } catch (ExportFailedException e) {
            return new Outcome(records, e.getClass(), e.code() + ": " + e.getMessage(), null);
        } catch (Throwable t) {
            return new Outcome(records, t.getClass(), null, String.valueOf(t));
        }
    }

    private static void assertSame(String what, Outcome expected, Outcome actual) {
        what += " (expected failure: " + expected.message + ", actual failure: " + actual.message + ")";
        assertEquals(expected.records.size(), actual.records.size(), what + ": records");
        for (int i = 0; i < expected.records.size(); i++) {
            assertEquals(expected.records.get(i), actual.records.get(i), what + ": record " + i);
        }
        assertEquals(expected.failure, actual.failure, what + ": failure");
        assertEquals(expected.exportError, actual.exportError, what + ": error record");
    }

    /**
     * Decodes with both; the same outcome, or (returns true) the new decoder fails earlier than the old one, or
     * where the old one did not fail, on bytes that are not strictly valid, after the same records.
     */
    private static boolean compare(String what, byte[] bytes) {
        Outcome expected = decode(bytes, true);
        Outcome actual = decode(bytes, false);
        boolean same = expected.records.equals(actual.records) && expected.failure == actual.failure
                && java.util.Objects.equals(expected.exportError, actual.exportError);
        if (same) {
            return false;
        }
        String context = what + " (" + new String(bytes, 0, Math.min(bytes.length, 2000), StandardCharsets.UTF_8)
                + ")";
        if (actual.failure != CorruptStreamException.class || actual.records.size() > expected.records.size()
                || actual.records.size() == expected.records.size() && expected.failure == actual.failure) {
            assertSame(context, expected, actual);  // fails, with the difference
        }
        assertEquals(expected.records.subList(0, actual.records.size()), actual.records, context);
        assertTrue(notStrictlyValid(bytes), "only the new decoder fails, on valid bytes: " + context
                + "; new decoder: " + actual.message);
        return true;
    }

    /** Not strict UTF-8, or not JSON to Jackson when every string is read as text (not as base64), or not UTF-8. */
    private static boolean notStrictlyValid(byte[] bytes) {
        try {
            StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes));
        } catch (CharacterCodingException e) {
            return true;
        }
        if (bytes.length >= 2 && (bytes[0] == 0 || bytes[1] == 0)) {
            return true;
        }
        try (JsonParser p = JACKSON.createParser(bytes)) {
            for (JsonToken t; (t = p.nextToken()) != null; ) {
                if (t == JsonToken.VALUE_STRING) {
                    p.getText();
                }
            }
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    /** Values with their classes and exact bits, arrays by content, records by their components. */
    static String render(Object v) {
        StringBuilder sb = new StringBuilder();
        render(v, sb);
        return sb.toString();
    }

    private static void render(Object v, StringBuilder sb) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof Double d) {
            sb.append("D").append(Long.toHexString(Double.doubleToRawLongBits(d)));
        } else if (v instanceof Float f) {
            sb.append("F").append(Integer.toHexString(Float.floatToRawIntBits(f)));
        } else if (v instanceof String s) {
            sb.append('"').append(s).append('"').append(s.chars().mapToObj(Integer::toHexString).toList());
        } else if (v.getClass().isArray()) {
            sb.append(v.getClass().getSimpleName()).append('[');
            for (int i = 0; i < Array.getLength(v); i++) {
                render(Array.get(v, i), sb);
                sb.append(',');
            }
            sb.append(']');
        } else if (v instanceof Map<?, ?> m) {
            sb.append(v instanceof PropertyMap ? "P{" : "M{");
            for (Map.Entry<?, ?> e : m.entrySet()) {
                render(e.getKey(), sb);
                sb.append('=');
                render(e.getValue(), sb);
                sb.append(',');
            }
            sb.append('}');
        } else if (v instanceof List<?> l) {
            sb.append("L[");
            for (Object e : l) {
                render(e, sb);
                sb.append(',');
            }
            sb.append(']');
        } else if (v.getClass().isRecord()) {
            sb.append(v.getClass().getSimpleName()).append('(');
            for (RecordComponent c : v.getClass().getRecordComponents()) {
                try {
                    render(c.getAccessor().invoke(v), sb);
                } catch (ReflectiveOperationException e) {
                    throw new AssertionError(e);
                }
                sb.append(',');
            }
            sb.append(')');
        } else {
            sb.append(v.getClass().getSimpleName()).append(':').append(v);
        }
    }

    // ---- streams ----------------------------------------------------------------------------------------------

    /** The same JSON pretty-printed, with non-ASCII escaped, and with every character of strings and names escaped. */
    private static List<byte[]> reformatted(byte[] json) throws IOException {
        List<byte[]> out = new ArrayList<>();
        for (int variant = 0; variant < 3; variant++) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (JsonParser p = JACKSON.createParser(json);
                    JsonGenerator g = JsonFactory.builder().build().createGenerator(bytes)) {
                switch (variant) {
                    case 0 -> g.setPrettyPrinter(new DefaultPrettyPrinter());
                    case 1 -> g.enable(JsonWriteFeature.ESCAPE_NON_ASCII.mappedFeature());
                    default -> g.setCharacterEscapes(new EscapeEverything());
                }
                for (JsonToken t; (t = p.nextToken()) != null; ) {
                    if (t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT) {
                        g.writeNumber(p.getText());  // as written: copyCurrentEventExact makes -0.0 0.0
                    } else {
                        g.copyCurrentEvent(p);
                    }
                }
            }
            out.add(bytes.toByteArray());
        }
        return out;
    }

    /** Escapes every character as a six-character unicode escape. */
    private static final class EscapeEverything extends CharacterEscapes {
        private static final int[] ALL = new int[128];

        static {
            Arrays.fill(ALL, CharacterEscapes.ESCAPE_STANDARD);
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return ALL;
        }

        @Override
        public SerializableString getEscapeSequence(int ch) {
            return null;
        }
    }

    /** A graph stream of random nodes and relationships with random values of every property type. */
    static byte[] randomGraph(Random random) throws IOException {
        String[] labels = {"Object", "Structure", "Объект", "名前", "a\"b\\c", "x".repeat(40), "", "😀"};
        String[] types = {"CHILDREN", "LINKS", "ÜBER", "t\u0001"};
        String[] keys = new String[20];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = i < 10 ? "k" + i : randomString(random, 1 + random.nextInt(30));
        }
        TokenNames tokens = new TokenNames() {
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
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = Format.JSON.open(out);
        String prefix = "4:" + UUID.nameUUIDFromBytes(new byte[] {(byte) random.nextInt()}) + ":";
        w.header(new Header("neo4j", prefix + 0, prefix, "5" + prefix.substring(1)), tokens);
        int nodes = 1 + random.nextInt(40);
        for (int i = 0; i < nodes; i++) {
            int[] l = new int[random.nextInt(3)];
            for (int j = 0; j < l.length; j++) {
                l[j] = random.nextInt(labels.length);
            }
            w.beginNode(random.nextInt(4) == 0 ? random.nextLong() & Long.MAX_VALUE : i, l, l.length);
            properties(w, random, keys.length);
            w.endNode();
        }
        int relationships = random.nextInt(40);
        for (int i = 0; i < relationships; i++) {
            w.beginRelationship(i, random.nextInt(types.length), random.nextInt(nodes), random.nextInt(nodes));
            properties(w, random, keys.length);
            w.endRelationship();
        }
        w.end(nodes, relationships, random.nextBoolean());
        w.finish();
        return out.toByteArray();
    }

    private static void properties(GraphWriter w, Random random, int keys) throws IOException {
        int n = random.nextInt(8);
        List<Integer> order = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
            order.add(k);
        }
        java.util.Collections.shuffle(order, random);
        for (int i = 0; i < n; i++) {
            w.property(order.get(i));
            FixtureStream.writeValue(w, randomValue(random));
        }
    }

    private static Object randomValue(Random r) {
        return switch (r.nextInt(24)) {
            case 0 -> r.nextBoolean();
            case 1 -> (byte) r.nextInt();
            case 2 -> (short) r.nextInt();
            case 3 -> r.nextInt();
            case 4 -> r.nextBoolean() ? r.nextLong() : (long) r.nextInt(1000) - 500;
            case 5 -> Float.intBitsToFloat(r.nextInt());
            case 6 -> Double.longBitsToDouble(r.nextLong());
            case 7 -> r.nextBoolean() ? (double) r.nextInt(100_000) / 100 : r.nextGaussian() * Math.pow(10,
                    r.nextInt(40) - 20);
            case 8 -> (char) r.nextInt(0x10000);
            case 9, 10 -> randomString(r, r.nextInt(r.nextBoolean() ? 20 : 200));
            case 11 -> {
                byte[] b = new byte[r.nextInt(40)];
                r.nextBytes(b);
                yield b;
            }
            case 12 -> new Point(4326, new double[] {r.nextDouble() * 180, r.nextDouble() * 90});
            case 13 -> new Duration(r.nextLong(), r.nextInt(), r.nextLong(), r.nextInt(1_000_000_000));
            case 14 -> LocalDate.ofEpochDay(r.nextInt(2_000_000) - 1_000_000);
            case 15 -> LocalTime.ofNanoOfDay((r.nextLong() & Long.MAX_VALUE) % 86_400_000_000_000L);
            case 16 -> OffsetTime.of(LocalTime.ofSecondOfDay(r.nextInt(86_400)),
                    ZoneOffset.ofTotalSeconds((r.nextInt(28 * 4) - 14 * 4) * 900));
            case 17 -> LocalDateTime.ofEpochSecond(r.nextInt(), r.nextInt(1_000_000_000), ZoneOffset.UTC);
            case 18 -> ZonedDateTime.ofInstant(Instant.ofEpochSecond(r.nextInt(), r.nextInt(1_000_000_000)),
                    r.nextBoolean() ? ZoneOffset.ofHours(r.nextInt(25) - 12) : ZoneId.of("Europe/Berlin"));
            case 19 -> new UUID(r.nextLong(), r.nextLong());
            case 20 -> new long[] {r.nextLong(), -1, 0};
            case 21 -> new double[] {r.nextDouble(), Double.NaN, -0.0, Double.MIN_VALUE};
            case 22 -> new String[] {randomString(r, 5), "", randomString(r, 17)};
            default -> new Vector(VectorKind.FLOAT32, new float[] {r.nextFloat(), Float.NaN});
        };
    }

    /** ASCII, control characters, quotes, backslashes, Latin-1, BMP, supplementary characters. */
    private static String randomString(Random r, int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            switch (r.nextInt(10)) {
                case 0 -> sb.append((char) r.nextInt(0x20));
                case 1 -> sb.append(r.nextBoolean() ? '"' : '\\');
                case 2 -> sb.append((char) (0x80 + r.nextInt(0x780)));
                case 3 -> sb.append((char) (0x800 + r.nextInt(0xD000)));
                case 4 -> sb.appendCodePoint(0x10000 + r.nextInt(0x100000));
                default -> sb.append((char) (0x20 + r.nextInt(0x5F)));
            }
        }
        return sb.toString();
    }

    /** A JSON number: short and long significands, fractions, exponents, edge magnitudes. */
    private static String randomNumber(Random r) {
        return switch (r.nextInt(6)) {
            case 0 -> Double.toString(Double.longBitsToDouble(r.nextLong())).replace("Infinity", "1e999")
                    .replace("NaN", "0.5");
            case 1 -> new BigDecimal(Double.longBitsToDouble(r.nextLong() & 0x7FEFFFFFFFFFFFFFL)).toString()
                    .replace("E+", "e");
            case 2 -> Float.toString(Float.intBitsToFloat(r.nextInt() & 0x7F7FFFFF));
            default -> {
                StringBuilder sb = new StringBuilder();
                if (r.nextBoolean()) {
                    sb.append('-');
                }
                int digits = 1 + r.nextInt(r.nextBoolean() ? 20 : 40);
                sb.append(1 + r.nextInt(9));
                for (int i = 1; i < digits; i++) {
                    sb.append(r.nextInt(10));
                }
                if (r.nextBoolean()) {
                    sb.insert(sb.length() - r.nextInt(digits), '.');
                    if (sb.charAt(sb.length() - 1) == '.') {
                        sb.append('0');
                    }
                    if (sb.charAt(0) == '.' || sb.charAt(0) == '-' && sb.charAt(1) == '.') {
                        sb.insert(sb.indexOf("."), '0');
                    }
                }
                if (r.nextBoolean()) {
                    sb.append(r.nextBoolean() ? 'e' : 'E').append(r.nextBoolean() ? "-" : r.nextBoolean() ? "+" : "")
                            .append(r.nextInt(r.nextBoolean() ? 25 : 330));
                }
                yield sb.toString();
            }
        };
    }

    private static String randomBase64(Random r) {
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=  \\n\\/-_.";
        StringBuilder sb = new StringBuilder();
        if (r.nextBoolean()) {
            byte[] b = new byte[r.nextInt(12)];
            r.nextBytes(b);
            sb.append(java.util.Base64.getEncoder().encodeToString(b));
        }
        for (int i = r.nextInt(6); i > 0; i--) {
            int c = r.nextInt(alphabet.length());
            sb.insert(r.nextInt(sb.length() + 1), alphabet.charAt(c));
        }
        String s = sb.toString();
        return s.endsWith("\\") && !s.endsWith("\\\\") ? s + "n" : s;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
