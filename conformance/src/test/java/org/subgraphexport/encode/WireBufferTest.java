package org.subgraphexport.encode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * {@link WireBuffer}'s text routines byte by byte, where the writers' tests cannot see them: which stored UTF-8 bytes
 * count as well-formed (against the JDK's strict decoder), UTF-8 of a part of a string, the room it leaves for the
 * bytes a caller writes after it unchecked, at every buffer size around the exact fit, and the decimal digits.
 */
class WireBufferTest {
    private static final HexFormat HEX = HexFormat.of();

    // ---- wellFormedUtf8 ------------------------------------------------------------------------------------

    /** Java's UTF-8 decoder reporting malformed input: Unicode's table 3-7, the definition wellFormedUtf8 follows. */
    private static final CharsetDecoder STRICT = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);

    private static boolean strictlyDecodes(byte[] b, int offset, int length) {
        try {
            STRICT.reset().decode(ByteBuffer.wrap(b, offset, length));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    /**
     * The sequence alone and followed by an ASCII byte, each inside an array whose bytes either side would change
     * the verdict if read: an invalid 0xFF before, continuation bytes 0x80 after (they complete a truncated
     * sequence).
     */
    private static void assertVerdict(byte[] sequence) {
        for (boolean trailingAscii : new boolean[] {false, true}) {
            int length = sequence.length + (trailingAscii ? 1 : 0);
            byte[] padded = new byte[length + 6];
            Arrays.fill(padded, (byte) 0x80);
            padded[0] = padded[1] = (byte) 0xFF;
            System.arraycopy(sequence, 0, padded, 2, sequence.length);
            if (trailingAscii) {
                padded[2 + sequence.length] = 'a';
            }
            boolean expected = strictlyDecodes(padded, 2, length);
            assertEquals(expected, WireBuffer.wellFormedUtf8(padded, 2, length),
                    () -> HEX.formatHex(sequence) + (trailingAscii ? " then 'a'" : ""));
        }
    }

    /** Every byte alone, every byte after each lead byte, and a byte at each edge of the ranges after the others. */
    @Test
    void wellFormedUtf8IsTheStrictDecodersVerdictForOneAndTwoByteSequences() {
        int[] edges = {0x00, 0x7F, 0x80, 0xBF, 0xC0, 0xC2, 0xFF};
        for (int a = 0; a < 256; a++) {
            assertVerdict(new byte[] {(byte) a});
            for (int b = 0; b < 256; b++) {
                if (a >= 0xC0 || Arrays.binarySearch(edges, b) >= 0) {
                    assertVerdict(new byte[] {(byte) a, (byte) b});
                }
            }
        }
    }

    /**
     * The lead bytes from 0xE0 where the rules change (the first and last of each row of the table, the ones with
     * their own second-byte range, those past 0xF4) with every second byte, third and fourth bytes at and around
     * the continuation range 0x80..0xBF.
     */
    @Test
    void wellFormedUtf8IsTheStrictDecodersVerdictForThreeAndFourByteSequences() {
        int[] leads = {0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF7, 0xF8, 0xFF};
        int[] tails = {0x00, 0x7F, 0x80, 0xBF, 0xC0, 0xFF};
        for (int a : leads) {
            for (int b = 0; b < 256; b++) {
                for (int c : tails) {
                    assertVerdict(new byte[] {(byte) a, (byte) b, (byte) c});
                    if (a >= 0xF0) {
                        for (int d : new int[] {0x7F, 0x80, 0xBF, 0xC0}) {
                            assertVerdict(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d});
                        }
                    }
                }
            }
        }
    }

    /** The boundaries of table 3-7, named: the first and last of each row, and the byte just outside. */
    @Test
    void wellFormedUtf8AtTheBoundariesOfUnicodesTable() {
        String[] wellFormed = {"", "00", "7f", "c280", "dfbf", "e0a080", "e0bfbf", "e18080", "ecbfbf", "ed8080",
            "ed9fbf", "ee8080", "efbfbf", "f0908080", "f0bfbfbf", "f1808080", "f3bfbfbf", "f4808080", "f48fbfbf",
            "41c3a9e282acf09f9880"};
        String[] malformed = {"80", "bf", "c080", "c1bf", "c2", "c27f", "c2c0", "e09f80", "e0a0", "e0a07f", "eda080",
            "edbfbf", "f08f8080", "f09080", "f0908000", "f4908080", "f5808080", "ff", "41c3a9e282acf09f98"};
        for (String hex : wellFormed) {
            byte[] b = HEX.parseHex(hex);
            assertTrue(WireBuffer.wellFormedUtf8(b, 0, b.length), hex);
        }
        for (String hex : malformed) {
            byte[] b = HEX.parseHex(hex);
            assertEquals(false, WireBuffer.wellFormedUtf8(b, 0, b.length), hex);
        }
    }

    // ---- utf8 ----------------------------------------------------------------------------------------------

    /** Escapes '"' as \" and, when asked, every surrogate as \\uXXXX: the shape of JSON's escapes, 6 bytes at most. */
    private static final class Backslash extends WireBuffer.Escapes {
        Backslash(boolean surrogates) {
            super(surrogates, 6);
            ascii['"'] = true;
        }

        @Override
        int escape(char c, byte[] b, int p) {
            b[p++] = '\\';
            if (c == '"') {
                b[p++] = '"';
                return p;
            }
            b[p++] = 'u';
            for (int shift = 12; shift >= 0; shift -= 4) {
                b[p++] = (byte) "0123456789abcdef".charAt(c >> shift & 0xF);
            }
            return p;
        }
    }

    /** What utf8 must write: String.getBytes(UTF_8) of the part (an unpaired surrogate is '?'), with the escapes. */
    private static byte[] expectedUtf8(String s, int from, int to, Backslash escapes) {
        StringBuilder sb = new StringBuilder();
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (escapes != null && c == '"') {
                sb.append("\\\"");
            } else if (escapes != null && escapes.surrogates && Character.isSurrogate(c)) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Writes chars {@code from} to {@code to} of {@code s} after {@code prefix} bytes into buffers of every size from
     * {@code prefix} up to two bytes past the exact fit of the text and {@code after}, then the {@code after} bytes
     * unchecked (the caller's closing quote or NUL), and checks every byte: a buffer that was too small must have
     * grown, never have been written past.
     */
    private static void assertUtf8(String s, int from, int to, Backslash escapes, int after, int prefix) {
        byte[] text = expectedUtf8(s, from, to, escapes);
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        for (int k = 0; k < prefix; k++) {
            expected.write('#');
        }
        expected.writeBytes(text);
        for (int k = 0; k < after; k++) {
            expected.write('!');
        }
        int fit = prefix + text.length + after;
        for (int capacity = Math.max(prefix, fit - 40); capacity <= fit + 2; capacity++) {
            WireBuffer out = new WireBuffer(capacity);
            for (int k = 0; k < prefix; k++) {
                out.put('#');
            }
            out.utf8(s, from, to, escapes, after);
            for (int k = 0; k < after; k++) {
                out.put('!');
            }
            int c = capacity;
            assertArrayEquals(expected.toByteArray(), out.toByteArray(),
                    () -> "chars " + from + ".." + to + " of " + s.length() + ", buffer " + c + ", after " + after);
        }
    }

    @Test
    void utf8OfAPartOfAStringIsThatPartsJavaUtf8() {
        String s = "ab\"c\u00e9\u00ff\u0080\u007f\u07ff\u0800\u20ac\ud7ff\ue000\uffff\ud83d\ude00z\ud83d!\ude00\"";
        for (Backslash escapes : new Backslash[] {null, new Backslash(false), new Backslash(true)}) {
            for (int from = 0; from <= s.length(); from++) {
                for (int to = from; to <= s.length(); to++) {
                    for (int after = 0; after <= 2; after++) {
                        assertUtf8(s, from, to, escapes, after, from % 3);
                    }
                }
            }
        }
    }

    /**
     * Long strings go through in chunks of 4096 chars, each requiring its own room: the worst case of every chunk
     * (3 bytes a char, a pair's second half beyond the chunk, 6-byte escapes), at the chunk's length and one either
     * side, in buffers around the exact fit.
     */
    @Test
    void utf8OfLongStringsLeavesRoomForWhatFollows() {
        String threeBytes = "\u20ac";
        String pair = "\ud83d\ude00";
        for (int n : new int[] {4095, 4096, 4097}) {
            String ascii = "a".repeat(n);
            String wide = threeBytes.repeat(n);
            String pairAtTheEdge = threeBytes.repeat(4095) + pair + threeBytes.repeat(n - 4095);
            String quotes = "\"".repeat(n);
            String surrogates = "\ud800".repeat(n);
            for (int after = 0; after <= 1; after++) {
                assertUtf8(ascii, 0, n, null, after, 1);
                assertUtf8(ascii, 1, n, null, after, 0);
                assertUtf8(wide, 0, n, null, after, 1);
                assertUtf8(pairAtTheEdge, 0, pairAtTheEdge.length(), null, after, 0);
                assertUtf8(quotes, 0, n, new Backslash(false), after, 1);
                assertUtf8(surrogates, 0, n, new Backslash(true), after, 0);
                assertUtf8(surrogates, 0, n, null, after, 1);
            }
        }
    }

    // ---- room ----------------------------------------------------------------------------------------------

    @Test
    void appendAndBytesGrowTheBufferForTheirOwnRoom() {
        WireBuffer out = new WireBuffer(0);
        out.append(new byte[] {1, 2, 3});
        out.bytes(new byte[] {9, 4, 5, 9}, 1, 2);
        out.append(new byte[0]);
        out.append(new byte[] {6});
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6}, out.toByteArray());
    }

    @Test
    void aRecordPastTwoGigabytesIsRefused() {
        WireBuffer out = new WireBuffer(4);
        out.pos = Integer.MAX_VALUE - 10;  // as if that much were written: no 2 GB buffer needed to reach the limit
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> out.require(3));
        assertEquals("a record of more than 2 GB", e.getMessage());
        assertEquals(4, out.buf.length, "nothing allocated");
    }

    // ---- decimal -------------------------------------------------------------------------------------------

    @Test
    void decimalIsLongToString() {
        long[] values = {0, 1, -1, 9, 10, -10, 99, 100, 101, 999, 1000, Integer.MAX_VALUE, Integer.MAX_VALUE + 1L,
            Integer.MIN_VALUE, 4_294_967_295L, 9_999_999_999L, 10_000_000_000L, 999_999_999_999_999_999L,
            1_000_000_000_000_000_000L, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1};
        for (long v : values) {
            for (long w : new long[] {v, -v}) {
                WireBuffer out = new WireBuffer(3 + WireBuffer.MAX_DECIMAL);
                out.put('[');
                out.decimal(w);
                out.put(']');
                assertEquals("[" + w + "]", new String(out.toByteArray(), StandardCharsets.US_ASCII));
            }
        }
    }
}
