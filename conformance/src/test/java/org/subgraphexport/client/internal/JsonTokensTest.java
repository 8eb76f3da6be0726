package org.subgraphexport.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
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
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.subgraphexport.client.CorruptStreamException;
import org.subgraphexport.client.DecoderFuzzTest;
import org.subgraphexport.client.DurationValue;
import org.subgraphexport.client.PointValue;
import org.subgraphexport.client.Streams;
import org.subgraphexport.client.Subgraph;
import org.subgraphexport.client.VectorValue;
import org.subgraphexport.encode.Encoders;
import org.subgraphexport.encode.FixtureStream;
import org.subgraphexport.encode.RowsFixture;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.TokenNames;
import org.subgraphexport.wire.ValueSink.VectorKind;
import org.subgraphexport.wire.Wire;

/**
 * {@link JsonTokens} against the parser it replaced, Jackson's {@link JsonParser} configured as the JSON decoder
 * (then JsonRecordReader, now {@link JsonTokenParser}; then JacksonRecordReader) configured it before (commit 58bf9a9^), token for token over the
 * same bytes: each token, the field name, the text of strings and numbers, numbers as the record reader reads them
 * (number type, long, the bits of the double or float), the bytes of base64 strings, and whether and after which token
 * each one fails (input ended, or corrupt). Every stream is read in each of three ways ({@link Plan}). On every valid
 * stream, written by the writer or reformatted (whitespace, escapes), both give the same tokens; on hostile bytes the
 * same tokens and failure, except that the new reader may fail earlier, as corrupt, on bytes that are not strictly
 * valid, and only there: malformed UTF-8 that Jackson took (overlong forms, code points above U+10FFFF), raw control
 * characters inside a base64 string, input in UTF-16 or UTF-32 (docs/hostile-input.md).
 *
 * <p>That the record code builds the right records from these tokens is checked end to end here on the golden files
 * and fixtures (also reformatted, also one byte per read), and in {@code RoundTripTest}, {@code RowsTest} and
 * {@code DecoderFuzzTest}.
 */
class JsonTokensTest {
    /** As {@code JacksonRecordReader} had it before {@link JsonTokens}. */
    private static final JsonFactory JACKSON = JsonFactory.builder()
            .disable(StreamReadFeature.AUTO_CLOSE_SOURCE)
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxStringLength((Wire.MAX_LENGTH / 3 + 1) * 4)
                    .maxNestingDepth(JsonTokenParser.MAX_JSON_DEPTH)
                    .build())
            .build();
    private static final HexFormat HEX = HexFormat.of();
    /**
     * Canonical padded base64 (after JSON unescaping): a bytes value that is not is malformed, and the new parser
     * may refuse it where Jackson decoded something (an escaped {@code =} before a quartet or as its second char).
     */
    private static final Pattern STRICT_BASE64 =
            Pattern.compile("(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?");

    // ---- end to end -------------------------------------------------------------------------------------------

    @Test
    void goldenFilesAndFixturesDecodeToTheirRecords() throws IOException {
        List<Object[]> cases = List.of(
                new Object[] {golden("fixture.json"), FixtureStream.compact().expected()},
                new Object[] {golden("rows.json"), RowsFixture.standard().expected()},
                new Object[] {FixtureStream.full().bytes(Format.JSON), FixtureStream.full().expected()},
                new Object[] {FixtureStream.small().bytes(Format.JSON), FixtureStream.small().expected()});
        for (Object[] c : cases) {
            byte[] json = (byte[]) c[0];
            Subgraph expected = (Subgraph) c[1];
            for (byte[] variant : withReformatted(json)) {
                Streams.assertSubgraph(expected, Streams.decode(Format.JSON, variant));
                Streams.assertSubgraph(expected, Streams.decodeTiny(Format.JSON, variant));
            }
        }
    }

    // ---- valid streams ------------------------------------------------------------------------------------

    @Test
    void fixturesAndGoldenFilesGiveTheSameTokens() throws IOException {
        for (byte[] s : List.of(FixtureStream.small().bytes(Format.JSON), FixtureStream.compact().bytes(Format.JSON),
                FixtureStream.full().bytes(Format.JSON), RowsFixture.standard().bytes(Format.JSON),
                golden("fixture.json"), golden("rows.json"))) {
            List<byte[]> variants = withReformatted(s);
            for (int i = 0; i < variants.size(); i++) {
                assertSameTokens("variant " + i + " of " + new String(s, 0, 80, StandardCharsets.UTF_8), variants.get(i));
            }
        }
    }

    @Test
    void seededRandomGraphsGiveTheSameTokens() throws IOException {
        for (long seed = 1; seed <= 300; seed++) {
            byte[] json = randomGraph(new Random(seed));
            for (byte[] variant : seed % 10 == 0 ? withReformatted(json) : List.of(json)) {
                assertSameTokens("seed " + seed, variant);
            }
        }
    }

    /** Numbers, strings and base64 in every spelling, as values and in unknown fields. */
    @Test
    void valuesInEverySpellingGiveTheSameTokens() throws IOException {
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
                "{\"bytes\":\"\\u003dAAAA\"}", "{\"bytes\":\"A\\u003dAA\"}", "{\"bytes\":\"A\\u003d==\"}",
                "{\"bytes\":\"AA\\u003d=\"}", "{\"bytes\":\"AA=\\u003d\"}", "{\"bytes\":\"AAA\\u003D\"}",
                "{\"bytes\":\"AA=\\u0041\"}", "{\"bytes\":\"\\u0020AAAA\"}", "{\"bytes\":\"A\\u0020AA\"}",
                "{\"bytes\":\"\\tAAAA\\r\"}", "{\"bytes\":\"AAAA\\n\\b\\f\\u0000\"}", "{\"bytes\":\"AAA\\n\"}",
                "{\"bytes\":\"AAA\\\"\"}", "{\"bytes\":\"AA\\\\A\"}", "{\"bytes\":\"\\u00c1AAA\"}",
                "{\"bytes\":\"\\u0041\\u0042\\u0043\\u0044\"}", "{\"bytes\":\"\\/\\/\\/\\/\"}",
                "{\"bytes\":\"AAAA\\u00\"}", "{\"bytes\":\"AAA\\x\"}", "{\"bytes\":\"AA\\u003d\"}",
                "{\"bytes\":\"AAA\\ud800\"}", "{\"bytes\":\" \"}", "{\"bytes\":\"AAAA AAAA\"}",
                "{\"bytes\":\"AAAA\"", "{\"bytes\":\"AA", "{\"bytes\":\"AA=", "{\"bytes\":\"A\\",
                "{\"bytes\":\"AAAA\u0001\"}", "{\"bytes\":\"AAAAé\"}", "{\"bytes\":\"" + "QUJD".repeat(30_000) + "\"}",
                "{\"date\":\"2020-01-31\"}", "{\"uuid\":\"123e4567-e89b-42d3-a456-426614174000\"}",
                " 1 ", "\t\r\n1\n", "[", "]", "{}", "nul", "true", "truex", "tru", "-", "01", "-01", "1.", ".5", "+1",
                "1e", "1e+", "0x10", "NaN", "Infinity", "'a'", "\"a", "\"\\x\"", "\"\\u12G4\"", "\"\\U0041\"",
                "\"a\tb\"", "\"\u0001\"", "1 2", "[1,]", "[,1]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "[1 2]",
                "1" + "0".repeat(1000), "1." + "0".repeat(999), "1e" + "0".repeat(1000), "/* c */ 1", "# c\n1",
                "[[[]]]", "{\"a\":[{\"b\":null}],\"c\":{}}", "\f1", "\u00a01",
                // a literal's end: letters, digits, '_', '$' and non-ASCII continue it, the bytes around them do not
                "truea", "truez", "trueA", "trueZ", "true0", "true9", "true_", "true$", "true\u0080", "true\u00ff",
                "true`", "true{", "true@", "true[", "true/", "true:", "false-", "nullx",
                // every edge of the hex digits in a \\u escape
                "\"\\u0009\\u00af\\u00AF\\ufFfF\\u0a0A\"", "\"\\u00/0\"", "\"\\u00:0\"", "\"\\u00`0\"",
                "\"\\u00g0\"", "\"\\u00@0\"", "\"\\u00G0\"",
                // surrogate escapes (as names by the third template: they must pair there)
                "\"\\ud800\\udc00\"", "\"\\udbff\\udfff\"", "\"\\ud7ff\\ue000\"", "\"\\udc00\\udc00\"",
                "\"\\udfff\"", "\"\\ud800\"", "\"\\ud800x\"", "\"\\ud800\\u0041\"", "\"\\ud800\\ud800\"",
                "\"\\udbff\\ue000\"", "\"\\ud800\\udbff\""));
        Random random = new Random(7);
        for (int i = 0; i < 3000; i++) {
            values.add(randomNumber(random));
        }
        for (int i = 0; i < 300; i++) {
            values.add("{\"float\":" + randomNumber(random) + "}");
            values.add("{\"double\":" + randomNumber(random) + "}");
            values.add("{\"bytes\":\"" + randomBase64(random) + "\"}");
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

    /** A base64 value across many input buffers and output blocks (the largest 1 MiB). */
    @Test
    void largeBase64ValueGivesTheSameBytes() throws IOException {
        byte[] value = new byte[3_000_001];
        new Random(3).nextBytes(value);
        assertSameTokens("3,000,001 bytes", utf8("[{\"bytes\":\"" + java.util.Base64.getEncoder().encodeToString(value)
                + "\"}]"));
    }

    @Test
    void nestingAndNameLimitsAsJacksons() throws IOException {
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
                "\\u00e9".repeat(25_001), "😀".repeat(12_500), "😀".repeat(12_501), "x".repeat(63), "x".repeat(65),
                // the UTF-8 length's edges: U+0080 is 2 bytes, U+0800 3, U+10000 4
                "\u0080".repeat(25_000), "\u0080".repeat(25_001), "\u07ff".repeat(25_001), "\u0800".repeat(16_666),
                "\u0800".repeat(16_667), "\uffff".repeat(16_667), "𐀀".repeat(12_500), "𐀀".repeat(12_501))) {
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
    void mutatedStreamsGiveTheSameTokens() throws IOException {
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

    /** The cases where only the new parser fails, one of each kind. */
    @Test
    void stricterThanJacksonOnlyOnInvalidInput() throws IOException {
        String head = "[{\"record\":\"header\",\"version\":1,\"database\":\"d\",\"root\":\"\"},";
        String end = ",{\"record\":\"end\",\"nodes\":1,\"relationships\":0,\"truncated\":false}]";
        byte[] nodeStart = utf8(head + "{\"record\":\"node\",\"id\":\"n\",\"labels\":[],\"properties\":{\"p\":\"");
        byte[] nodeEnd = utf8("\"}}" + end);
        List<byte[]> streams = new ArrayList<>();
        for (byte[] bad : List.of(new byte[] {(byte) 0xC0, (byte) 0x80}, new byte[] {(byte) 0xC1, (byte) 0xBF},
                new byte[] {(byte) 0xE0, (byte) 0x80, (byte) 0x80}, new byte[] {(byte) 0xF0, (byte) 0x80, (byte) 0x80,
                    (byte) 0x80}, new byte[] {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
                new byte[] {(byte) 0xF5, (byte) 0x80, (byte) 0x80, (byte) 0x80})) {
            streams.add(concat(nodeStart, bad, nodeEnd));
        }
        streams.add(utf8(head + "{\"record\":\"node\",\"id\":\"n\",\"labels\":[],\"properties\":"
                + "{\"p\":{\"bytes\":\"AAH/\nf4A=\"}}}" + end));  // a raw newline in base64
        for (String escapedPadding : List.of("\\u003dAAAA", "A\\u003dAA")) {  // where a raw '=' is an error
            streams.add(utf8(head + "{\"record\":\"node\",\"id\":\"n\",\"labels\":[],\"properties\":"
                    + "{\"p\":{\"bytes\":\"" + escapedPadding + "\"}}}" + end));
        }
        streams.add(new String(FixtureStream.small().bytes(Format.JSON), StandardCharsets.UTF_8)
                .getBytes(StandardCharsets.UTF_16LE));
        for (byte[] stream : streams) {
            Trace jackson = trace(new ByteArrayInputStream(stream), true, Plan.RECORDS);
            assertEquals(null, jackson.failure, "Jackson took it");
            assertEquals("corrupt", trace(new ByteArrayInputStream(stream), false, Plan.RECORDS).failure);
            assertTrue(compare("stricter", stream));
        }
    }

    // ---- comparing --------------------------------------------------------------------------------------------

    /** How a trace reads the tokens: the same calls on both parsers. */
    private enum Plan {
        /** As the record reader does: base64 for the string value of a "bytes" field, text for the others; numbers
         * as integers (type, long) and doubles. */
        RECORDS,
        /** No string read (the next token skips it); every number as a float. */
        STRINGS_SKIPPED_NUMBERS_AS_FLOATS,
        /** Every string as text, base64 ones too; every fifth array or object skipped whole (skipChildren). */
        STRINGS_AS_TEXT_CHILDREN_SKIPPED
    }

    /** A parser's calls that the record reader makes. */
    private interface Call<T> {
        T call() throws IOException;
    }

    private record Calls(Call<JsonToken> next, Call<String> name, Call<String> text, Call<JsonParser.NumberType> type,
            Call<Long> longValue, Call<Double> doubleValue, Call<Float> floatValue, Call<byte[]> binary,
            Call<?> skipChildren) {}

    /**
     * The tokens read as {@code plan} says (one line each: the token and what was read of it) up to the end or the
     * failure: null at the end of the input, "eof" (input ended inside the JSON), "corrupt", or another exception's
     * class (a bug).
     */
    private record Trace(List<String> tokens, String failure, String message) {}

    private static Trace trace(InputStream in, boolean jackson, Plan plan) {
        if (!jackson) {
            JsonTokens t = new JsonTokens(in, JsonTokenParser.MAX_JSON_DEPTH, JsonTokenParser.MAX_JSON_STRING);
            // the tokenizer's own Token and NumberType by their jackson-core names, which they share
            Call<JsonToken> next = () -> {
                Tokens.Token token = t.nextToken();
                return token == null ? null : JsonToken.valueOf(token.name());
            };
            Call<JsonParser.NumberType> type = () -> {
                Tokens.NumberType numberType = t.getNumberType();
                return numberType == null ? null : JsonParser.NumberType.valueOf(numberType.name());
            };
            return trace(new Calls(next, t::currentName, t::getText, type, t::getLongValue,
                    t::getDoubleValue, t::getFloatValue, t::getBinaryValue, () -> {
                        t.skipChildren();
                        return null;
                    }), plan);
        }
        try (JsonParser p = JACKSON.createParser(in)) {
            return trace(new Calls(p::nextToken, p::currentName, p::getText, p::getNumberType, p::getLongValue,
                    p::getDoubleValue, p::getFloatValue, p::getBinaryValue, p::skipChildren), plan);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static Trace trace(Calls p, Plan plan) {
        List<String> tokens = new ArrayList<>();
        boolean bytesField = false;
        try {
            for (JsonToken t; (t = p.next.call()) != null; ) {
                StringBuilder line = new StringBuilder(t.name());
                switch (t) {
                    case FIELD_NAME -> line.append(' ').append(p.name.call());
                    case VALUE_STRING -> {
                        if (plan == Plan.RECORDS && bytesField) {
                            line.append(" base64 ").append(HEX.formatHex(p.binary.call()));
                        } else if (plan != Plan.STRINGS_SKIPPED_NUMBERS_AS_FLOATS) {
                            line.append(' ').append(p.text.call());
                        }
                    }
                    case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
                        line.append(' ').append(p.text.call());
                        if (plan == Plan.STRINGS_SKIPPED_NUMBERS_AS_FLOATS) {
                            line.append(" F").append(Integer.toHexString(Float.floatToRawIntBits(p.floatValue.call())));
                        } else {
                            if (t == JsonToken.VALUE_NUMBER_INT) {
                                JsonParser.NumberType type = p.type.call();
                                line.append(' ').append(type);
                                if (type == JsonParser.NumberType.INT || type == JsonParser.NumberType.LONG) {
                                    line.append(' ').append(p.longValue.call());
                                }
                            }
                            line.append(" D").append(Long.toHexString(Double.doubleToRawLongBits(p.doubleValue.call())));
                        }
                    }
                    case START_OBJECT, START_ARRAY -> {
                        if (plan == Plan.STRINGS_AS_TEXT_CHILDREN_SKIPPED && tokens.size() % 5 == 4) {
                            p.skipChildren.call();
                            line.append(" skipped");
                        }
                    }
                    default -> { }
                }
                bytesField = t == JsonToken.FIELD_NAME && line.toString().equals("FIELD_NAME " + Wire.Json.BYTES);
                tokens.add(line.toString());
            }
            return new Trace(tokens, null, null);
        } catch (JsonEOFException | EOFException e) {
            return new Trace(tokens, "eof", e.toString());
        } catch (JsonProcessingException | DecodeException e) {
            return new Trace(tokens, "corrupt", e.toString());
        } catch (Exception | StackOverflowError e) {
            return new Trace(tokens, e.getClass().getName(), e.toString());
        }
    }

    /** Both parsers, every plan, the new one also one byte per read: the same tokens and end. */
    private static void assertSameTokens(String what, byte[] bytes) {
        for (Plan plan : Plan.values()) {
            Trace expected = trace(new ByteArrayInputStream(bytes), true, plan);
            assertEquals(null, expected.failure, what + " is valid: " + expected.message);
            assertSame(what + ", " + plan, expected, trace(new ByteArrayInputStream(bytes), false, plan));
            assertSame(what + ", " + plan + ", one byte per read", expected, trace(Streams.tiny(bytes), false, plan));
            assertSame(what + ", " + plan + ", reads of random sizes", expected,
                    trace(Streams.ragged(bytes, what.hashCode()), false, plan));
        }
    }

    /**
     * Both parsers, every plan: the same tokens and end, or (returns true) the new parser fails as corrupt after
     * fewer or the same tokens, where the old one failed later or not at all, on bytes that are not strictly valid.
     */
    private static boolean compare(String what, byte[] bytes) {
        boolean stricter = false;
        for (Plan plan : Plan.values()) {
            Trace expected = trace(new ByteArrayInputStream(bytes), true, plan);
            Trace actual = trace(new ByteArrayInputStream(bytes), false, plan);
            assertEquals(actual, trace(Streams.ragged(bytes, what.hashCode()), false, plan),
                    what + ", " + plan + ": the same tokens and failure in reads of random sizes");
            if (sameUpToJacksonsLookahead(expected, actual)) {
                continue;
            }
            String context = what + ", " + plan + " ("
                    + new String(bytes, 0, Math.min(bytes.length, 2000), StandardCharsets.UTF_8) + ")";
            int n = actual.tokens.size();
            boolean earlier = "corrupt".equals(actual.failure) && n <= expected.tokens.size()
                    && expected.tokens.subList(0, n).equals(actual.tokens)
                    && (n < expected.tokens.size() || !"corrupt".equals(expected.failure));
            if (!earlier) {
                assertSame(context, expected, actual);  // fails, with the difference
            }
            assertTrue(notStrictlyValid(bytes), "only the new parser fails, on valid bytes: " + context
                    + "; new parser: " + actual.message + "; Jackson: " + expected.message);
            stricter = true;
        }
        return stricter;
    }

    /**
     * The same tokens and end, but for two ways Jackson reports malformed input differently: it reads the first token
     * of a field's value with the field's name, so a malformed number or literal there fails on the FIELD_NAME token
     * (the new parser returns the name, then fails), and a number at the top level followed by other than whitespace
     * fails on the number; and it calls some ends of input (e.g. after ',' in an object) a
     * parse error (the record reader says "corrupt" rather than "stream truncated"; both are
     * CorruptStreamException).
     */
    private static boolean sameUpToJacksonsLookahead(Trace expected, Trace actual) {
        List<String> tokens = actual.tokens;
        int n = tokens.size();
        if (expected.failure != null && n == expected.tokens.size() + 1 && (tokens.get(n - 1).startsWith("FIELD_NAME")
                || n == 1 && tokens.get(0).startsWith("VALUE_NUMBER"))) {
            tokens = tokens.subList(0, n - 1);
        }
        return expected.tokens.equals(tokens) && (Objects.equals(expected.failure, actual.failure)
                || "corrupt".equals(expected.failure) && "eof".equals(actual.failure));
    }

    private static void assertSame(String what, Trace expected, Trace actual) {
        what += " (Jackson's failure: " + expected.message + ", the new parser's: " + actual.message + ")";
        int n = Math.min(expected.tokens.size(), actual.tokens.size());
        for (int i = 0; i < n; i++) {
            assertEquals(expected.tokens.get(i), actual.tokens.get(i), what + ": token " + i);
        }
        assertEquals(expected.tokens.size(), actual.tokens.size(), what + ": tokens");
        assertEquals(expected.failure, actual.failure, what + ": end");
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
                    String text = p.getText();
                    if (Wire.Json.BYTES.equals(p.currentName()) && !STRICT_BASE64.matcher(text).matches()) {
                        return true;  // where an escaped '=' stands for a raw one that would be an error
                    }
                }
            }
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    // ---- streams ----------------------------------------------------------------------------------------------

    private static byte[] golden(String name) throws IOException {
        return Files.readAllBytes(Path.of("src", "test", "resources", "golden", name));
    }

    /** The JSON itself, then {@link #reformatted} variants. */
    private static List<byte[]> withReformatted(byte[] json) throws IOException {
        List<byte[]> all = new ArrayList<>(List.of(json));
        all.addAll(reformatted(json));
        return all;
    }

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
        TokenNames tokens = FixtureStream.tokens(labels, types, keys);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = Encoders.open(Format.JSON, out);
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
            case 12 -> new PointValue(4326, new double[] {r.nextDouble() * 180, r.nextDouble() * 90});
            case 13 -> new DurationValue(r.nextLong(), r.nextInt(), r.nextLong(), r.nextInt(1_000_000_000));
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
            default -> new VectorValue(VectorKind.FLOAT32, new float[] {r.nextFloat(), Float.NaN});
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

    /** Base64 of random bytes, with random characters and JSON escapes inserted (valid or not). */
    private static String randomBase64(Random r) {
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=  \\n\\/-_.\t";
        String[] escapes = {"\\u003d", "\\u003D", "\\u0041", "\\u002f", "\\u0020", "\\u0000", "\\u00e9",
            "\\n", "\\t", "\\r", "\\/", "\\\\", "\\\"", "\\b"};
        StringBuilder sb = new StringBuilder();
        if (r.nextBoolean()) {
            byte[] b = new byte[r.nextInt(12)];
            r.nextBytes(b);
            sb.append(java.util.Base64.getEncoder().encodeToString(b));
        }
        for (int i = r.nextInt(6); i > 0; i--) {
            String piece = r.nextInt(3) == 0 ? escapes[r.nextInt(escapes.length)]
                    : String.valueOf(alphabet.charAt(r.nextInt(alphabet.length())));
            sb.insert(r.nextInt(sb.length() + 1), piece);
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
