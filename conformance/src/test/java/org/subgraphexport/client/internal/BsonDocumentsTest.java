package org.subgraphexport.client.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.subgraphexport.client.Streams;
import org.subgraphexport.client.internal.Tokens.Token;
import org.subgraphexport.wire.Wire;

/**
 * {@link BsonDocuments} on hand-built documents: each refusal with its exact message, at the edge where the bytes stop
 * fitting, read whole and in reads of any size; and {@link BsonTokens}' caches (names and short values seen before
 * are one String). BsonTokensTest compares the tokens with bson4jackson's; HostileInputTest checks that broken
 * documents fail as corrupt, not how.
 */
class BsonDocumentsTest {
    @Test
    void documentsComeOneAtATimeHoweverTheBytesArrive() throws IOException {
        byte[] first = document();
        byte[] second = document(element(0x02, "s", string("abc")), element(0x10, "i", le32(7)));
        byte[] third = document(element(0x03, "d", document(element(0x08, "b", new byte[] {1}))));
        byte[] all = concat(first, second, third);
        for (InputStream in : reads(all)) {
            BsonDocuments documents = new BsonDocuments(in);
            for (byte[] expected : List.of(first, second, third)) {
                byte[] d = documents.next();
                assertEquals(expected.length, documents.length());
                assertArrayEquals(expected, Arrays.copyOf(d, expected.length));
                assertTrue(d.length >= expected.length + BsonDocuments.PADDING, "padding after the document");
            }
            assertNull(documents.next());
        }
    }

    /** Documents around the first buffer's size (8 KiB) end with a short string, readable with its padding. */
    @Test
    void aDocumentFillingTheBufferKeepsItsPadding() throws IOException {
        for (int size = 8180; size <= 8200; size++) {
            // 4 + (1 + 2 + 4 + filler + 1) + (1 + 2 + 4 + 4) + 1 bytes
            int filler = size - 4 - 8 - 11 - 1;
            byte[] d = document(element(0x02, "f", string("x".repeat(filler))), element(0x02, "s", string("abc")));
            assertEquals(size, d.length);
            for (InputStream in : reads(d)) {
                BsonDocuments documents = new BsonDocuments(in);
                byte[] read = documents.next();
                assertTrue(read.length >= size + BsonDocuments.PADDING, size + ": " + read.length);
                BsonTokens tokens = new BsonTokens();
                tokens.reset(read);
                assertEquals(List.of("START_OBJECT", "FIELD_NAME f", "VALUE_STRING " + "x".repeat(filler),
                        "FIELD_NAME s", "VALUE_STRING abc", "END_OBJECT"), tokens(tokens));
            }
        }
    }

    @Test
    void lengthsThatCannotBeAreRefused() {
        assertFails(new byte[] {5, 0, 0}, EOFException.class, "stream ends inside a document length");
        assertFails(le32(4), DecodeException.class, "BSON document length 4 outside 5.." + Wire.MAX_BSON_DOCUMENT);
        assertFails(le32(Wire.MAX_BSON_DOCUMENT + 1), DecodeException.class, "BSON document length "
                + (Wire.MAX_BSON_DOCUMENT + 1) + " outside 5.." + Wire.MAX_BSON_DOCUMENT);
        assertFails(le32(-1), DecodeException.class, "BSON document length -1 outside 5.." + Wire.MAX_BSON_DOCUMENT);
        // the largest length is allowed: the stream then ends inside it
        assertFails(concat(le32(Wire.MAX_BSON_DOCUMENT), new byte[100]), EOFException.class,
                "stream ends inside a document");
        byte[] d = document(element(0x10, "i", le32(7)));
        assertFails(Arrays.copyOf(d, d.length - 1), EOFException.class, "stream ends inside a document");
    }

    @Test
    void structureErrorsSayWhatDoesNotFit() {
        // a terminator 7 bytes early
        assertFails(bytes(12, 0, 0, 0, 0, 0x0A, 'a', 0, 0x0A, 'b', 0, 0), DecodeException.class,
                "BSON document ends 7 bytes before its length");
        assertFails(with(document(element(0x10, "i", le32(7))), -1, 1), DecodeException.class,
                "BSON document does not end with 0x00");
        byte[] inner = document(element(0x10, "i", le32(7)));
        assertFails(document(element(0x03, "d", with(inner, -1, 1))), DecodeException.class,
                "BSON document does not end with 0x00");
        assertFails(document(element(0x08, "b", new byte[] {2})), DecodeException.class, "BSON boolean 2");
        assertFails(document(element(0x08, "b", new byte[] {-1})), DecodeException.class, "BSON boolean -1");
        assertFails(document(element(0x07, "o", new byte[12])), DecodeException.class, "BSON element type 0x07");
        assertFails(document(element(0x80, "x", new byte[0])), DecodeException.class, "BSON element type 0x80");
        // a string: its length counts its 0x00, which must be there, inside the document
        assertTokens(document(element(0x02, "s", concat(le32(4), bytes('a', 'b', 'c', 0)))), "VALUE_STRING abc");
        assertFails(document(element(0x02, "s", concat(le32(5), bytes('a', 'b', 'c', 0)))), DecodeException.class,
                "BSON length 5 does not fit its document");
        assertFails(document(element(0x02, "s", concat(le32(12), bytes('a', 'b', 'c', 0)))), DecodeException.class,
                "BSON length 12 does not fit its document");
        assertFails(document(element(0x02, "s", concat(le32(0), bytes('a', 'b', 'c', 0)))), DecodeException.class,
                "BSON length 0 does not fit its document");
        assertFails(document(element(0x02, "s", concat(le32(4), bytes('a', 'b', 'c', 'd')))), DecodeException.class,
                "BSON string not terminated by 0x00");
        // a length whose four bytes end at the document's 0x00 fits, but nothing after it does
        assertFails(document(element(0x02, "s", le32(1))), DecodeException.class,
                "BSON length 1 does not fit its document");
        assertFails(document(element(0x02, "s", bytes(1, 0))), DecodeException.class,
                "BSON element overruns its document");
        // binary: length, subtype 0, bytes
        assertTokens(document(element(0x05, "b", concat(le32(3), bytes(0, 1, 2, 3)))), "VALUE_EMBEDDED_OBJECT");
        assertFails(document(element(0x05, "b", concat(le32(4), bytes(0, 1, 2, 3)))), DecodeException.class,
                "BSON length 4 does not fit its document");
        assertFails(document(element(0x05, "b", concat(le32(3), bytes(1, 1, 2, 3)))), DecodeException.class,
                "BSON binary subtype 1, expected 0");
        assertFails(document(element(0x05, "b", concat(le32(3), bytes(-128, 1, 2, 3)))), DecodeException.class,
                "BSON binary subtype -128, expected 0");
        // a document or array inside: its length must fit what is left
        assertFails(document(element(0x03, "d", concat(le32(7), bytes(0, 0)))), DecodeException.class,
                "BSON length 7 does not fit its document");
        assertFails(document(element(0x04, "a", concat(le32(4), bytes(0)))), DecodeException.class,
                "BSON length 4 does not fit its document");
        // after an inner document, the enclosing one's end counts again: an int32 cut by its 0x00
        assertFails(document(element(0x03, "d", document()), element(0x10, "i", bytes(1, 2))), DecodeException.class,
                "BSON element overruns its document");
        assertFails(document(element(0x03, "d", document()), element(0x01, "x", new byte[7])), DecodeException.class,
                "BSON element overruns its document");
        assertTokens(document(element(0x03, "d", document()), element(0x10, "i", le32(9))), "START_OBJECT",
                "END_OBJECT", "FIELD_NAME i", "VALUE_NUMBER_INT 9");
    }

    // ---- BsonTokens -----------------------------------------------------------------------------------------

    /** What nextToken returns is the current token, for every kind of token. */
    @Test
    void nextTokenReturnsTheCurrentToken() throws IOException {
        byte[] d = document(element(0x01, "d", new byte[8]), element(0x02, "s", string("x")),
                element(0x04, "a", document(element(0x10, "0", le32(1)), element(0x02, "1", string("y")),
                        element(0x08, "2", bytes(1)), element(0x0A, "3", new byte[0]))),
                element(0x12, "l", new byte[8]), element(0x05, "b", concat(le32(0), bytes(0))));
        BsonTokens t = new BsonTokens();
        t.reset(read(d));
        assertNull(t.getText(), "before the first token");
        int n = 0;
        for (Token k; (k = t.nextToken()) != null; n++) {
            assertSame(t.currentToken(), k);
        }
        assertEquals(17, n);
    }

    /**
     * Names of up to 64 bytes and ASCII values of up to 16 seen before are the same String, in a later document too;
     * the format's own are its constants. Values of 17 bytes, or with a non-ASCII byte, are new each time and exact.
     */
    @Test
    void namesAndShortValuesSeenBeforeAreTheSameString() throws IOException {
        List<String> names = new ArrayList<>();
        for (int length : new int[] {1, 8, 16, 17, 40, 63, 64}) {
            names.add(("n" + length + "_" + "abcdefghijklmnopqrstuvwxyz".repeat(3)).substring(0, length));
        }
        names.add("é".repeat(32));  // 64 bytes
        List<String> values = List.of("v", "abcdefghijklmno", "abcdefghijklmnop", "é", "abcdefghijklmné",
                "abcdefghijklmnopq", "node");
        List<byte[]> elements = new ArrayList<>();
        for (String n : names) {
            for (String v : values) {
                elements.add(element(0x02, n, string(v)));
            }
        }
        byte[] d = document(elements.toArray(byte[][]::new));
        BsonTokens t = new BsonTokens();
        List<List<String>> passes = new ArrayList<>();
        for (int pass = 0; pass < 2; pass++) {
            t.reset(read(d));
            t.nextToken();
            List<String> read = new ArrayList<>();
            while (t.nextToken() == Token.FIELD_NAME) {
                read.add(t.currentName());
                t.nextToken();
                read.add(t.getText());
            }
            passes.add(read);
        }
        List<String> expected = new ArrayList<>();
        for (String n : names) {
            for (String v : values) {
                expected.add(n);
                expected.add(v);
            }
        }
        assertEquals(expected, passes.get(0));
        assertEquals(expected, passes.get(1));
        for (int i = 0; i < expected.size(); i++) {
            String s = expected.get(i);
            boolean cached = i % 2 == 0 || s.getBytes(StandardCharsets.UTF_8).length <= 16
                    && s.chars().allMatch(c -> c < 0x80);
            if (cached) {
                assertSame(passes.get(0).get(i), passes.get(1).get(i), s);
            } else {
                assertNotSame(passes.get(0).get(i), passes.get(1).get(i), s);
            }
        }
        assertSame(Wire.Json.R_NODE, passes.get(0).get(values.size() * 2 - 1));
        byte[] longName = document(element(0x10, "n".repeat(65), le32(1)));
        t.reset(read(longName));
        t.nextToken();
        t.nextToken();
        String a = t.currentName();
        t.reset(read(longName));
        t.nextToken();
        t.nextToken();
        assertEquals("n".repeat(65), t.currentName());
        assertNotSame(a, t.currentName(), "names of more than 64 bytes are not cached");
    }

    // ---- helpers ----------------------------------------------------------------------------------------------

    /**
     * Read whole, one byte per read, in reads of chosen sizes (one byte, then more than the rest of a length: nothing
     * of the next document may be taken with it) and of random sizes, each saying no byte is available.
     */
    private static List<InputStream> reads(byte[] bytes) {
        return List.of(new ByteArrayInputStream(bytes), Streams.tiny(bytes), Streams.chunks(bytes, 1, 2, 1, 3),
                Streams.chunks(bytes, 1, 100), Streams.ragged(bytes, 5));
    }

    private static byte[] read(byte[] document) throws IOException {
        return new BsonDocuments(new ByteArrayInputStream(document)).next();
    }

    private static void assertFails(byte[] bytes, Class<? extends Exception> type, String message) {
        for (InputStream in : reads(bytes)) {
            Exception e = assertThrows(Exception.class, () -> new BsonDocuments(in).next());
            assertEquals(type, e.getClass(), e.toString());
            assertEquals(message, e.getMessage());
        }
    }

    /** The document is accepted, and these are its tokens after the first element's name. */
    private static void assertTokens(byte[] document, String... tokens) {
        for (InputStream in : reads(document)) {
            try {
                BsonTokens t = new BsonTokens();
                t.reset(new BsonDocuments(in).next());
                List<String> all = tokens(t);
                assertEquals(List.of(tokens), all.subList(2, 2 + tokens.length));
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }
    }

    private static List<String> tokens(BsonTokens t) throws IOException {
        List<String> out = new ArrayList<>();
        for (Token k; (k = t.nextToken()) != null; ) {
            out.add(switch (k) {
                case FIELD_NAME -> k + " " + t.currentName();
                case VALUE_STRING -> k + " " + t.getText();
                case VALUE_NUMBER_INT -> k + " " + t.getLongValue();
                default -> k.name();
            });
        }
        return out;
    }

    private static byte[] document(byte[]... elements) {
        byte[] body = concat(elements);
        return concat(le32(4 + body.length + 1), body, new byte[] {0});
    }

    private static byte[] element(int type, String name, byte[] value) {
        return concat(new byte[] {(byte) type}, name.getBytes(StandardCharsets.UTF_8), new byte[] {0}, value);
    }

    private static byte[] string(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return concat(le32(b.length + 1), b, new byte[] {0});
    }

    /** {@code b} with the byte at {@code index} (negative: from the end) set to {@code value}. */
    private static byte[] with(byte[] b, int index, int value) {
        byte[] c = b.clone();
        c[index < 0 ? c.length + index : index] = (byte) value;
        return c;
    }

    private static byte[] le32(int v) {
        return new byte[] {(byte) v, (byte) (v >> 8), (byte) (v >> 16), (byte) (v >> 24)};
    }

    private static byte[] bytes(int... values) {
        byte[] b = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            b[i] = (byte) values[i];
        }
        return b;
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
