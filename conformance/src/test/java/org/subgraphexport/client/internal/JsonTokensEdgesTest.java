package org.subgraphexport.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.subgraphexport.client.CorruptStreamException;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.Streams;
import org.subgraphexport.client.internal.Tokens.NumberType;
import org.subgraphexport.client.internal.Tokens.Token;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.Wire;

/**
 * What {@link JsonTokensTest} cannot see by comparing {@link JsonTokens} with Jackson's parser: the exact error
 * messages (a user reads them in a CorruptStreamException), the limits at their edges with limits small enough to
 * reach, the name and value caches (a name or short value seen before is the same String, so a million records share
 * one), and buffer edges put at chosen bytes. Each input is read whole, one byte per read and in reads of random
 * sizes, and must give the same result every way.
 */
class JsonTokensEdgesTest {
    private static final int DEPTH = 8;
    private static final int STRING = 1 << 20;

    // ---- errors ---------------------------------------------------------------------------------------------

    @Test
    void structureErrorsSayWhatWasExpectedAndFound() throws IOException {
        assertEof("[1", "JSON input ends inside an array");
        assertEof("{\"a\":1", "JSON input ends inside an object");
        assertEof("[1,", "JSON input ends after ','");
        assertEof("[1, ", "JSON input ends after ','");
        assertEof("{\"a\"", "JSON input ends after a field name");
        assertEof("{\"a\" ", "JSON input ends after a field name");
        assertEof("{\"a\":", "JSON input ends where a value was expected");
        assertEof("\"ab", "JSON input ends inside a token");
        assertCorrupt("[1}", "expected ',' or ']' in a JSON array, found '}'");
        assertCorrupt("{\"a\":1]", "expected ',' or '}' in a JSON object, found ']'");
        assertCorrupt("[1~", "expected ',' or ']' in a JSON array, found '~'");
        assertCorrupt("[1\u007f", "expected ',' or ']' in a JSON array, found byte 127");
        assertCorrupt("[1 !", "expected ',' or ']' in a JSON array, found '!'");
        assertCorrupt("{\"a\" 1}", "expected ':' after a field name, found '1'");
        assertCorrupt("{\"a\"\t}", "expected ':' after a field name, found '}'");
        assertCorrupt("{\"a\":1,}", "expected a field name in a JSON object, found '}'");
        assertCorrupt("{1:1}", "expected a field name in a JSON object, found '1'");
        assertCorrupt("[1,]", "unexpected ']' where a JSON value was expected");
        assertCorrupt("1 2", "content after the top-level JSON value");
        assertCorrupt("[1,\f2]", "illegal character (code 12) between JSON tokens: only space, tab, CR and LF are "
                + "allowed");
        assertFailure(failure(concat(new byte[] {(byte) 0xEF, (byte) 0xBB}, utf8("x[]"))), DecodeException.class,
                "JSON input starts with a broken UTF-8 byte order mark");
        assertEquals(List.of("START_ARRAY", "END_ARRAY"),
                tokens(new JsonTokens(new ByteArrayInputStream(concat(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF},
                        utf8("[]"))), DEPTH, STRING)));
        assertCorrupt("[".repeat(DEPTH + 1), "JSON nesting depth " + (DEPTH + 1) + " exceeds the maximum allowed ("
                + DEPTH + ")");
        assertEquals(2 * DEPTH + 1, tokens("[".repeat(DEPTH) + "1" + "]".repeat(DEPTH)).size(), "the deepest allowed");
    }

    @Test
    void literalAndNumberErrors() throws IOException {
        assertCorrupt("[tru]", "unrecognized token: expected 'true', found ']' after 'tru'");
        assertEof("[nul", "JSON input ends inside a token");
        for (String follower : List.of("a", "z", "A", "Z", "0", "9", "_", "$", "\u0080", "\u00ff", "\u4e00")) {
            assertCorrupt("[true" + follower + "]", "unrecognized token starting with 'true'");
            assertCorrupt("[false" + follower + "]", "unrecognized token starting with 'false'");
        }
        // a raw 0x80 (never the first byte of a UTF-8 char) continues a literal as any byte from 0x80 up
        assertFailure(failure(concat(utf8("[true"), new byte[] {(byte) 0x80}, utf8("]"))), DecodeException.class,
                "unrecognized token starting with 'true'");
        for (String follower : List.of("`", "{", "@", "[", "/", ":", "-", "\"")) {
            assertCorrupt("[null" + follower + "]", "expected ',' or ']' in a JSON array, found '" + follower + "'");
        }
        assertCorrupt("[-]", "expected a digit after '-' in a JSON number, found ']'");
        assertCorrupt("[01]", "leading zeros in a JSON number");
        assertCorrupt("[-00]", "leading zeros in a JSON number");
        assertCorrupt("[1.]", "expected a digit after '.' in a JSON number, found ']'");
        assertCorrupt("1.", "expected a digit after '.' in a JSON number, found the end of the input");
        assertCorrupt("[1e]", "expected a digit in the exponent of a JSON number, found ']'");
        assertCorrupt("[1E+x]", "expected a digit in the exponent of a JSON number, found 'x'");
        assertCorrupt("1" + "0".repeat(1000), "JSON number of more than 1000 digits (1001 so far)");
        assertCorrupt("0." + "0".repeat(1000), "JSON number of more than 1000 digits (1001 so far)");
        assertCorrupt("1e" + "0".repeat(1000), "JSON number of more than 1000 digits (1001 so far)");
    }

    @Test
    void stringErrorsSayWhetherANameOrAValue() throws IOException {
        // read as text, and skipped by the next token: the same errors
        for (Function<String, Failure> read : List.<Function<String, Failure>>of(
                JsonTokensEdgesTest::failure, JsonTokensEdgesTest::failureSkippingStrings)) {
            assertFailure(read, "[\"a\u0001\"]", DecodeException.class,
                    "unescaped control character (code 1) in a JSON string");
            assertFailure(read, "[\"a\u001f\"]", DecodeException.class,
                    "unescaped control character (code 31) in a JSON string");
            assertFailure(read, "[\"a\\x\"]", DecodeException.class, "unrecognized escape '\\x' in a JSON string");
            assertFailure(read, "[\"\\u12 4\"]", DecodeException.class,
                    "expected a hex digit in a JSON \\u escape, found ' '");
            assertFailure(read, "[\"\\u12\u001f4\"]", DecodeException.class,
                    "expected a hex digit in a JSON \\u escape, found byte 31");
            assertFailure(read, "[\"\\u12~4\"]", DecodeException.class,
                    "expected a hex digit in a JSON \\u escape, found '~'");
            assertFailure(read, "[\"\\u12\u00004\"]", DecodeException.class,
                    "expected a hex digit in a JSON \\u escape, found byte 0");
            assertFailure(read, "[\"ab", EOFException.class, "JSON input ends inside a token",
                    "JSON input ends inside a string");
        }
        for (int bad : new int[] {0x80, 0xBF, 0xC0, 0xC1, 0xF5, 0xFF}) {
            byte[] json = concat(utf8("[\"a"), new byte[] {(byte) bad}, utf8("\"]"));
            String message = String.format("invalid UTF-8 start byte 0x%02x in a JSON string", bad);
            assertFailure(failure(json), DecodeException.class, message);
            assertFailure(failureSkippingStrings(json), DecodeException.class, message);
        }
        byte[] overlong = concat(utf8("[\"a"), new byte[] {(byte) 0xE0, (byte) 0x9F, (byte) 0xBF}, utf8("\"]"));
        assertFailure(failure(overlong), DecodeException.class, "invalid UTF-8 continuation byte 0x9f in a JSON string");
        assertCorrupt("{\"a\u0001\":1}", "unescaped control character (code 1) in a JSON field name");
        assertCorrupt("{\"a\u0001" + "b".repeat(70) + "\":1}", "unescaped control character (code 1) in a JSON field name");
    }

    @Test
    void surrogateEscapesInNamesMustPair() throws IOException {
        assertEquals("\ud800\udc00", onlyName("\\ud800\\udc00"));
        assertEquals("\udbff\udfff", onlyName("\\udbff\\udfff"));
        assertEquals("\ud7ff\ue000", onlyName("\\ud7ff\\ue000"));
        assertCorrupt("{\"\\udc00\":1}", "unexpected low surrogate escape in a JSON field name: 0xdc00");
        assertCorrupt("{\"\\udfff\":1}", "unexpected low surrogate escape in a JSON field name: 0xdfff");
        assertCorrupt("{\"\\udc00\\udc00\":1}", "unexpected low surrogate escape in a JSON field name: 0xdc00");
        for (String broken : List.of("\\ud800x", "\\ud800\\u0041", "\\ud800\\ud800", "\\udbff\\udbff",
                "\\ud800\\ue000", "\\ud800\\\\")) {
            assertCorrupt("{\"" + broken + "\":1}", "broken surrogate pair in a JSON field name");
        }
        // in a value a lone surrogate escape is a char like another
        assertEquals(List.of("START_ARRAY", "VALUE_STRING \udc00\ud800", "END_ARRAY"),
                tokens("[\"\\udc00\\ud800\"]"));
    }

    @Test
    void base64ErrorsNameTheCharacterAndItsPlace() throws IOException {
        assertBase64Fails("A", "malformed base64 in a JSON string: illegal character '\"' as character 2 of a quartet");
        assertBase64Fails("AA", "malformed base64 in a JSON string: it ends without padding");
        assertBase64Fails("AAA", "malformed base64 in a JSON string: it ends without padding");
        assertBase64Fails("AA=x", "malformed base64 in a JSON string: illegal character 'x' as character 4 of a quartet");
        assertBase64Fails("AA=\\u0041", "malformed base64 in a JSON string: expected padding '=', found '\\'");
        assertBase64Fails("*AAA", "malformed base64 in a JSON string: illegal character '*' as character 1 of a quartet");
        assertBase64Fails("A*AA", "malformed base64 in a JSON string: illegal character '*' as character 2 of a quartet");
        assertBase64Fails("AA*A", "malformed base64 in a JSON string: illegal character '*' as character 3 of a quartet");
        assertBase64Fails("AAA*", "malformed base64 in a JSON string: illegal character '*' as character 4 of a quartet");
        assertBase64Fails("\\u0100AAA", "malformed base64 in a JSON string: illegal escaped character U+0100 as "
                + "character 1 of a quartet");
        assertBase64Fails("A\\u00ffAA", "malformed base64 in a JSON string: illegal escaped character U+00FF as "
                + "character 2 of a quartet");
        assertBase64Fails("\\u0021AAA", "malformed base64 in a JSON string: illegal escaped character U+0021 as "
                + "character 1 of a quartet");
        assertBase64Fails("AA\\u0020A", "malformed base64 in a JSON string: illegal escaped character U+0020 as "
                + "character 3 of a quartet");
        assertBase64Fails("\\u003dAAA", "malformed base64 in a JSON string: padding as character 1 of a quartet");
        assertBase64Fails("A\\u003dAA", "malformed base64 in a JSON string: padding as character 2 of a quartet");
        assertBase64Fails("AAAA\u0001", "unescaped control character (code 1) in a JSON string");
        assertBase64Fails("AAAA\u001f", "unescaped control character (code 31) in a JSON string");
    }

    @Test
    void base64SkipsSpacesAndEscapedWhitespaceBeforeAQuartet() throws IOException {
        assertBase64("AAH/f4A=", "0001ff7f80");
        assertBase64("AAH/ f4A=", "0001ff7f80");
        assertBase64(" AAH/  f4A= ", "0001ff7f80");
        assertBase64("\\u0020AAAA", "000000");
        assertBase64("\\tAAAA\\n\\r", "000000");
        assertBase64("\\u0041\\u0042\\u0043\\u0044", "001083");
        assertBase64("\\/\\/\\/\\/", "ffffff");
        assertBase64("AA\\u003d=", "00");
        assertBase64("AAA\\u003D", "0000");
        assertBase64("", "");
    }

    // ---- limits -----------------------------------------------------------------------------------------------

    @Test
    void stringValuesAreLimitedInCharsWhereverTheyLie() throws IOException {
        int max = 5;
        for (String ok : List.of("abcde", "abc\ud83d\ude00", "\\u0061bcd\\u0065", "\u00e9\u00e9\u00e9\u00e9\u00e9")) {
            assertEquals(List.of("START_ARRAY", "VALUE_STRING " + unescape(ok), "END_ARRAY"),
                    tokens("[\"" + ok + "\"]", DEPTH, max), ok);
        }
        for (String tooLong : List.of("abcdef", "abcd\ud83d\ude00", "\\u0061bcdef", "\u00e9".repeat(6))) {
            assertFailure(failure(utf8("[\"" + tooLong + "\"]"), DEPTH, max), DecodeException.class,
                    "JSON string longer than 5 chars");
        }
        // skipped strings are checked, not limited (as Jackson skips them)
        assertEquals(List.of("START_ARRAY", "VALUE_STRING", "END_ARRAY"),
                tokensSkippingStrings("[\"" + "x".repeat(100) + "\"]", DEPTH, max));
    }

    /** A base64 string counts its chars as any string (an escape one, a space one): at the limit, then one more. */
    @Test
    void base64IsLimitedInCharsWhereverTheyLie() throws IOException {
        record Case(String content, int chars, int bytes) {}
        for (Case c : List.of(new Case("AAAAAAAA", 8, 6), new Case("AAAAAA==", 8, 4), new Case("AAAAAAA=", 8, 5),
                new Case("AAAA AAA=", 9, 5), new Case(" AAAAAA==", 9, 4), new Case("AAAA\\u0041AA=", 8, 5),
                new Case("AAAAAAAA ", 9, 6))) {
            byte[] json = utf8("[\"" + c.content + "\"]");
            for (InputStream in : reads(json)) {
                JsonTokens t = new JsonTokens(in, DEPTH, c.chars);
                t.nextToken();
                t.nextToken();
                assertEquals(c.bytes, t.getBinaryValue().length, c.content);
            }
            assertBase64Fails(json, c.chars - 1, "JSON string longer than " + (c.chars - 1) + " chars");
        }
    }

    // ---- caches ---------------------------------------------------------------------------------------------

    /** The wire format's own names and values come back as its constants, the instances the decoder's code holds. */
    @Test
    void theFormatsOwnStringsAreItsConstants() throws IOException {
        JsonTokens t = open("[{\"record\":\"node\",\"labels\":[\"relationships\"]}]");
        t.nextToken();
        t.nextToken();
        t.nextToken();
        assertSame(Wire.Json.RECORD, t.currentName());
        t.nextToken();
        assertSame(Wire.Json.R_NODE, t.getText());
        t.nextToken();
        assertSame(Wire.Json.LABELS, t.currentName());
        t.nextToken();
        t.nextToken();
        assertSame(Wire.Json.RELATIONSHIPS, t.getText());
    }

    /** Names up to 63 bytes and values up to 16 seen before are the same String; longer ones are read each time. */
    @Test
    void namesAndShortValuesSeenBeforeAreTheSameString() throws IOException {
        List<String> names = new ArrayList<>();
        for (int length : new int[] {1, 8, 15, 16, 17, 23, 24, 25, 31, 32, 33, 40, 48, 56, 62, 63}) {
            names.add(("n" + length + "_" + "abcdefghijklmnopqrstuvwxyz".repeat(3)).substring(0, length));
        }
        String sixteen = "0123456789abcdef";
        StringBuilder json = new StringBuilder("[");
        for (int pass = 0; pass < 2; pass++) {
            for (String n : names) {
                // a different byte after each name and value in each pass: the cache keys only on their own bytes
                json.append(pass == 0 ? "{\"" : "{ \"").append(n).append(pass == 0 ? "\":\"" : "\" :  \"")
                        .append(sixteen).append(pass == 0 ? "\"}," : "\" },");
            }
        }
        json.setLength(json.length() - 1);
        JsonTokens t = open(json.append(']').toString());
        t.nextToken();
        String[] first = new String[names.size()];
        String firstValue = null;
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < names.size(); i++) {
                assertEquals(Token.START_OBJECT, t.nextToken());
                assertEquals(Token.FIELD_NAME, t.nextToken());
                String name = t.currentName();
                assertEquals(names.get(i), name);
                t.nextToken();
                String value = t.getText();
                assertEquals(sixteen, value);
                if (pass == 0) {
                    first[i] = name;
                    firstValue = firstValue == null ? value : firstValue;
                } else {
                    assertSame(first[i], name, names.get(i));
                }
                assertSame(firstValue, value);
                assertEquals(Token.END_OBJECT, t.nextToken());
            }
        }
        String seventeen = sixteen + "g";
        JsonTokens u = open("[\"" + seventeen + "\",\"" + seventeen + "\",\"" + "n".repeat(65) + "\"]");
        u.nextToken();
        u.nextToken();
        String a = u.getText();
        u.nextToken();
        assertEquals(seventeen, u.getText());
        assertNotSame(a, u.getText(), "values of more than 16 bytes are not cached");
    }

    /**
     * Names that meet in the long-name slots: each reads back as itself; a name that finds its {@link
     * JsonTokens#NAME_PROBES} slots full replaces the first (the cache is bounded), so the name there is read anew.
     * The names chosen start at the last slot, so that their probes wrap around to the first slots.
     */
    @Test
    void collidingNamesReadBackAsThemselvesInABoundedCache() throws IOException {
        List<String> colliding = new ArrayList<>();
        for (int i = 0; colliding.size() < JsonTokens.NAME_PROBES + 1; i++) {
            String n = String.format("colliding-name-%08d", i);
            byte[] b = java.util.Arrays.copyOf(utf8(n), n.length() + 8);
            if (JsonTokens.nameSlot(b, 0, n.length()) == JsonTokens.NAME_SLOTS - 1) {
                colliding.add(n);
            }
        }
        List<String> order = new ArrayList<>(colliding);  // the fifth replaces the first
        order.addAll(colliding.reversed());  // the fifth and the three before it are still there; the first is not
        order.add(colliding.getLast());  // the first, read anew, replaced the fifth
        StringBuilder json = new StringBuilder("{");
        for (String n : order) {
            json.append('"').append(n).append("\":0,");
        }
        json.setCharAt(json.length() - 1, '}');
        JsonTokens t = open(json.toString());
        t.nextToken();
        List<String> read = new ArrayList<>();
        while (t.nextToken() == Token.FIELD_NAME) {
            read.add(t.currentName());
            t.nextToken();
        }
        assertEquals(order, read);
        int k = colliding.size();
        for (int i = 1; i < k; i++) {
            assertSame(read.get(i), read.get(2 * k - 1 - i), "still cached: " + colliding.get(i));
        }
        assertNotSame(read.get(0), read.get(2 * k - 1), "replaced by the fifth: " + colliding.get(0));
        assertNotSame(read.get(k - 1), read.get(2 * k), "replaced by the first, read again: " + colliding.getLast());
    }

    // ---- the current token ------------------------------------------------------------------------------------

    @Test
    void numbersAreAskedOfNumbersOnly() throws IOException {
        JsonTokens t = open("[1.5,\"x\",7,12345678901,1e2,true]");
        assertNull(t.getText(), "before the first token");
        assertNull(t.getNumberType());
        t.nextToken();
        assertEquals("[", t.getText());
        assertEquals(Token.VALUE_NUMBER_FLOAT, t.nextToken());
        assertEquals(NumberType.DOUBLE, t.getNumberType());
        assertEquals(1.5, t.getDoubleValue());
        assertEquals(1.5f, t.getFloatValue());
        assertEquals(Token.VALUE_STRING, t.nextToken());
        assertNull(t.getNumberType());
        assertEquals("expected a JSON number, found VALUE_STRING",
                assertThrows(DecodeException.class, t::getDoubleValue).getMessage());
        assertEquals("expected a JSON number, found VALUE_STRING",
                assertThrows(DecodeException.class, t::getFloatValue).getMessage());
        assertEquals("not a JSON integer in the long range: x",
                assertThrows(DecodeException.class, t::getLongValue).getMessage());
        t.nextToken();
        assertEquals(NumberType.INT, t.getNumberType());
        assertEquals(7, t.getLongValue());
        assertEquals(7.0f, t.getFloatValue());
        t.nextToken();
        assertEquals(NumberType.LONG, t.getNumberType());
        t.nextToken();
        assertEquals(100.0, t.getDoubleValue());
        assertEquals("1e2", t.getText());
        t.nextToken();
        assertEquals("true", t.getText());
        assertEquals("expected a JSON number, found VALUE_TRUE",
                assertThrows(DecodeException.class, t::getDoubleValue).getMessage());
        assertEquals("expected a base64 JSON string, found VALUE_TRUE",
                assertThrows(DecodeException.class, t::getBinaryValue).getMessage());
    }

    // ---- buffer edges -------------------------------------------------------------------------------------

    /**
     * A name whose closing quote is the last byte of a read, where the byte after it in the buffer is a ':' left by
     * an earlier, longer read: the colon that counts is the next read's first byte.
     */
    @Test
    void aNameEndingAReadTakesItsColonFromTheNextRead() throws IOException {
        byte[] json = utf8("[{\"ab\":1,\"cd\":2}]");
        // reads "[{\"ab\":" (7 bytes), then "1,\"cd\"" (6 bytes: buffer byte 6 still holds the first read's ':')
        assertEquals(List.of("START_ARRAY", "START_OBJECT", "FIELD_NAME ab", "VALUE_NUMBER_INT 1", "FIELD_NAME cd",
                "VALUE_NUMBER_INT 2", "END_OBJECT", "END_ARRAY"),
                tokens(new JsonTokens(Streams.chunks(json, 7, 6), DEPTH, STRING)));
    }

    /**
     * A string value cut by the end of a read, where the byte after the read's last one in the buffer is a quote left
     * by an earlier, longer read: the string goes on in the next read.
     */
    @Test
    void aStringCutByTheEndOfAReadGoesOnInTheNext() throws IOException {
        byte[] json = utf8("[\"abcdefgh\",\"ijklmnopqrs\",{\"abcdefgh\":1,\"ijklmnopqrs\":2}]");
        // reads "[\"abcdefgh\"," (12 bytes: a quote at 10), then "\"ijklmnopq" (10 bytes), then the rest
        assertEquals(List.of("START_ARRAY", "VALUE_STRING abcdefgh", "VALUE_STRING ijklmnopqrs", "START_OBJECT",
                "FIELD_NAME abcdefgh", "VALUE_NUMBER_INT 1", "FIELD_NAME ijklmnopqrs", "VALUE_NUMBER_INT 2",
                "END_OBJECT", "END_ARRAY"), tokens(new JsonTokens(Streams.chunks(json, 12, 10, 13, 10), DEPTH, STRING)));
    }

    /** Base64 split between reads, with base64 characters of an earlier read beyond the new input. */
    @Test
    void base64SplitBetweenReadsIgnoresWhatAnEarlierReadLeft() throws IOException {
        String base64 = "QUJD".repeat(100);  // "ABC" 100 times
        byte[] json = utf8("[\"" + base64 + "\"]");
        for (int[] sizes : new int[][] {{200, 101}, {200, 102}, {200, 103}, {200, 104}, {300, 2, 1, 250}}) {
            JsonTokens t = new JsonTokens(Streams.chunks(json, sizes), DEPTH, STRING);
            t.nextToken();
            t.nextToken();
            assertEquals("ABC".repeat(100), new String(t.getBinaryValue(), StandardCharsets.US_ASCII));
            assertEquals(Token.END_ARRAY, t.nextToken());
        }
    }

    // ---- the JSON decoder's record errors ---------------------------------------------------------------------

    @Test
    void recordErrorsOfTheJsonDecoder() {
        String header = "{\"record\":\"header\",\"version\":1,\"database\":\"d\",\"root\":\"\"}";
        String end = "{\"record\":\"end\",\"nodes\":0,\"relationships\":0,\"truncated\":false}";
        assertRecordError("{}", "a JSON export is an array, but it starts with START_OBJECT");
        assertRecordError("[" + header + ",5]", "a record is an object, not VALUE_NUMBER_INT");
        assertRecordError("[" + header + ",[]]", "a record is an object, not START_ARRAY");
        assertRecordError("[" + header + "," + end + "," + end + "]", "records after the closing record");
        assertRecordError("[" + header + "," + end + ",7]", "records after the closing record");
        CorruptStreamException e = assertThrows(CorruptStreamException.class, () -> readAll("[" + header + "]"));
        assertTrue(e.getMessage().startsWith("stream truncated after 1 records ("), e.getMessage());
        e = assertThrows(CorruptStreamException.class, () -> readAll("[]"));
        assertTrue(e.getMessage().startsWith("stream truncated after 0 records ("), e.getMessage());
        e = assertThrows(CorruptStreamException.class, () -> readAll("[" + header + "," + end + "]]"));
        assertTrue(e.getMessage().endsWith("content after the top-level JSON value"), e.getMessage());
    }

    // ---- helpers ----------------------------------------------------------------------------------------------

    private record Failure(List<String> tokens, Exception exception) {}

    private static void assertRecordError(String json, String message) {
        CorruptStreamException e = assertThrows(CorruptStreamException.class, () -> readAll(json));
        assertTrue(e.getMessage().startsWith("corrupt json stream after "), e.getMessage());
        assertTrue(e.getMessage().endsWith("): " + message), e.getMessage());
    }

    private static void readAll(String json) throws IOException {
        try (ExportReader r = ExportReader.open(Format.JSON, new ByteArrayInputStream(utf8(json)))) {
            while (r.next() != null) {
                // reads to the end
            }
        }
    }

    private static JsonTokens open(String json) {
        return new JsonTokens(new ByteArrayInputStream(utf8(json)), DEPTH, STRING);
    }

    /** The input read whole, one byte per read, and in reads of random sizes. */
    private static List<InputStream> reads(byte[] json) {
        return List.of(new ByteArrayInputStream(json), Streams.tiny(json), Streams.ragged(json, 1),
                Streams.ragged(json, 2));
    }

    private static String onlyName(String escaped) throws IOException {
        List<String> t = tokens("{\"" + escaped + "\":1}");
        assertEquals(4, t.size(), t.toString());
        return t.get(1).substring("FIELD_NAME ".length());
    }

    private static List<String> tokens(String json) throws IOException {
        return tokens(json, DEPTH, STRING);
    }

    /** Every token as a line (strings read as text), the same every way the input is read. */
    private static List<String> tokens(String json, int depth, int maxString) throws IOException {
        List<String> first = null;
        for (InputStream in : reads(utf8(json))) {
            List<String> t = tokens(new JsonTokens(in, depth, maxString));
            assertEquals(first == null ? t : first, t, json);
            first = t;
        }
        return first;
    }

    private static List<String> tokensSkippingStrings(String json, int depth, int maxString) throws IOException {
        List<String> out = new ArrayList<>();
        JsonTokens t = new JsonTokens(new ByteArrayInputStream(utf8(json)), depth, maxString);
        for (Token k; (k = t.nextToken()) != null; ) {
            out.add(k.name());
        }
        return out;
    }

    private static List<String> tokens(JsonTokens t) throws IOException {
        List<String> out = new ArrayList<>();
        for (Token k; (k = t.nextToken()) != null; ) {
            out.add(switch (k) {
                case FIELD_NAME -> k + " " + t.currentName();
                case VALUE_STRING, VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> k + " " + t.getText();
                default -> k.name();
            });
        }
        return out;
    }

    private static Failure failure(String json) {
        return failure(utf8(json));
    }

    private static Failure failure(byte[] json) {
        return failure(json, DEPTH, STRING);
    }

    /** How reading every token (strings as text) fails, the same every way the input is read. */
    private static Failure failure(byte[] json, int depth, int maxString) {
        Failure first = null;
        for (InputStream in : reads(json)) {
            List<String> read = new ArrayList<>();
            Exception failed = null;
            try {
                JsonTokens t = new JsonTokens(in, depth, maxString);
                for (Token k; (k = t.nextToken()) != null; ) {
                    read.add(k == Token.VALUE_STRING ? k + " " + t.getText() : k.name());
                }
            } catch (IOException e) {
                failed = e;
            }
            Failure f = new Failure(read, failed);
            if (first != null) {
                assertEquals(first.tokens, f.tokens, new String(json, StandardCharsets.UTF_8));
                assertEquals(String.valueOf(first.exception), String.valueOf(f.exception));
            }
            first = f;
        }
        return first;
    }

    private static Failure failureSkippingStrings(String json) {
        return failureSkippingStrings(utf8(json));
    }

    private static Failure failureSkippingStrings(byte[] json) {
        try {
            JsonTokens t = new JsonTokens(new ByteArrayInputStream(json), DEPTH, STRING);
            while (t.nextToken() != null) {
                // strings skipped by the next token
            }
            return new Failure(List.of(), null);
        } catch (IOException e) {
            return new Failure(List.of(), e);
        }
    }

    private static void assertFailure(Function<String, Failure> read, String json, Class<?> type, String... messages) {
        Failure f = read.apply(json);
        assertInstanceOf(type, f.exception, json);
        assertTrue(List.of(messages).contains(f.exception.getMessage()), json + ": " + f.exception.getMessage());
    }

    private static void assertFailure(Failure f, Class<?> type, String message) {
        assertInstanceOf(type, f.exception, String.valueOf(f.exception));
        assertEquals(message, f.exception.getMessage());
    }

    private static void assertCorrupt(String json, String message) {
        assertFailure(failure(json), DecodeException.class, message);
    }

    private static void assertEof(String json, String message) {
        assertFailure(failure(json), EOFException.class, message);
    }

    private static void assertBase64(String content, String hex) throws IOException {
        for (InputStream in : reads(utf8("[\"" + content + "\"]"))) {
            JsonTokens t = new JsonTokens(in, DEPTH, STRING);
            t.nextToken();
            t.nextToken();
            assertEquals(hex, HexFormat.of().formatHex(t.getBinaryValue()), content);
            assertEquals(Token.END_ARRAY, t.nextToken());
        }
    }

    private static void assertBase64Fails(String content, String message) {
        assertBase64Fails(utf8("[\"" + content + "\"]"), STRING, message);
    }

    private static void assertBase64Fails(byte[] json, int maxString, String message) {
        for (InputStream in : reads(json)) {
            JsonTokens t = new JsonTokens(in, DEPTH, maxString);
            DecodeException e = assertThrows(DecodeException.class, () -> {
                t.nextToken();
                t.nextToken();
                t.getBinaryValue();
            }, new String(json, StandardCharsets.UTF_8));
            assertEquals(message, e.getMessage());
        }
    }

    private static String unescape(String s) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            if (s.startsWith("\\u", i)) {
                out.append((char) Integer.parseInt(s.substring(i + 2, i + 6), 16));
                i += 5;
            } else {
                out.append(s.charAt(i));
            }
        }
        return out.toString();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
