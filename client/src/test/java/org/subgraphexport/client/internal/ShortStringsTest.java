package org.subgraphexport.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.subgraphexport.wire.Wire;

/**
 * {@link ShortStrings}: the string of the bytes asked for, whatever lies around them (the words are read whole and
 * masked), strings that differ in their ninth to sixteenth byte or only in length kept apart, the wire format's own
 * strings returned as the very instances the decoders' switches hold, a string seen before returned again.
 */
class ShortStringsTest {
    /** {@code s} at {@code offset} in an array of noise, padded as the callers' buffers are. */
    private static byte[] placed(String s, int offset, Random random) {
        byte[] b = new byte[offset + s.length() + 2 * Long.BYTES];
        random.nextBytes(b);
        byte[] ascii = s.getBytes(StandardCharsets.ISO_8859_1);
        System.arraycopy(ascii, 0, b, offset, ascii.length);
        return b;
    }

    @Test
    void theBytesAskedForAndNoOthers() {
        Random random = new Random(3);
        ShortStrings cache = ShortStrings.seeded();
        for (int round = 0; round < 2000; round++) {
            int length = random.nextInt(ShortStrings.MAX_LENGTH + 1);
            char[] c = new char[length];
            for (int i = 0; i < length; i++) {
                c[i] = (char) (random.nextInt(3) == 0 ? 'a' + random.nextInt(3) : random.nextInt(128));
            }
            String s = new String(c);
            int offset = random.nextInt(20);
            assertEquals(s, cache.get(placed(s, offset, random), offset, length), () -> Arrays.toString(c));
        }
    }

    @Test
    void nearStringsAreKeptApart() {
        Random random = new Random(4);
        ShortStrings cache = ShortStrings.seeded();
        String[] near = {"abcdefgh", "abcdefgh1", "abcdefgh2", "abcdefgh\0", "abcdefg", "a", "a\0", "", "\0",
            "abcdefghijklmnop", "abcdefghijklmnoq", "bbcdefghijklmnop", "abcdefghijklmno"};
        for (int round = 0; round < 3; round++) {
            for (String s : near) {
                assertEquals(s, cache.get(placed(s, round, random), round, s.length()));
            }
        }
    }

    @Test
    void aStringSeenBeforeIsTheSameInstance() {
        Random random = new Random(5);
        ShortStrings cache = ShortStrings.seeded();
        String first = cache.get(placed("Person", 0, random), 0, 6);
        assertSame(first, cache.get(placed("Person", 3, random), 3, 6));
        String longer = cache.get(placed("KNOWS_SINCE_2020", 1, random), 1, 16);
        assertSame(longer, cache.get(placed("KNOWS_SINCE_2020", 0, random), 0, 16));
    }

    @Test
    void theWireFormatsOwnStringsAreItsInstances() {
        Random random = new Random(6);
        ShortStrings cache = ShortStrings.seeded();
        for (String own : new String[] {Wire.Json.RECORD, Wire.Json.RELATIONSHIPS, Wire.Json.PROPERTIES,
                Wire.Json.PARTITIONS, Wire.Json.R_COLUMNS, Wire.Json.STATE, "FLOAT64", "INT8"}) {
            byte[] b = placed(new String(own), 2, random);
            assertSame(own.equals("FLOAT64") || own.equals("INT8")
                    ? org.subgraphexport.wire.ValueSink.VectorKind.valueOf(own).name() : own,
                    cache.get(b, 2, own.length()), own);
        }
    }

    @Test
    void aFullCacheStillAnswersRight() {
        Random random = new Random(7);
        ShortStrings cache = ShortStrings.seeded();
        String[] many = new String[5000];
        for (int i = 0; i < many.length; i++) {
            many[i] = "v" + i;
            assertEquals(many[i], cache.get(placed(many[i], i % 9, random), i % 9, many[i].length()));
        }
        for (int i = many.length - 1; i >= 0; i--) {
            assertEquals(many[i], cache.get(placed(many[i], 0, random), 0, many[i].length()));
        }
    }

    @Test
    void wordsAreLittleEndianAndMasked() {
        byte[] b = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
        assertEquals(0x0807060504030201L, ShortStrings.word(b, 0, 8));
        assertEquals(0x0807060504030201L, ShortStrings.word(b, 0, 12));
        assertEquals(0x0000000504030201L, ShortStrings.word(b, 0, 5));
        assertEquals(0x01L, ShortStrings.word(b, 0, 1));
        assertEquals(0L, ShortStrings.word(b, 0, 0));
        assertEquals(0x000F0E0D0C0B0A09L, ShortStrings.word(b, 8, 7));
    }
}
