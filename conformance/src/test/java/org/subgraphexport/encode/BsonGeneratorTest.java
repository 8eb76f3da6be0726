package org.subgraphexport.encode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.core.JsonGenerationException;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SerializedString;
import de.undercouch.bson4jackson.BsonFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link BsonGenerator} writes exactly the bytes bson4jackson's generator writes for the same calls: seeded random
 * documents (nested documents and arrays, every value kind the graph writer uses, names and strings with
 * multi-byte characters, surrogate pairs and NUL inside strings) through both, compared document by document.
 */
class BsonGeneratorTest {
    private static final BsonFactory REFERENCE = new BsonFactory();

    static {
        REFERENCE.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
    }

    @Test
    void writesWhatBson4jacksonWrites() throws IOException {
        for (int seed = 0; seed < 300; seed++) {
            ByteArrayOutputStream ours = new ByteArrayOutputStream();
            ByteArrayOutputStream theirs = new ByteArrayOutputStream();
            JsonGenerator a = new BsonGenerator(ours);
            JsonGenerator b = REFERENCE.createGenerator(theirs);
            Random random = new Random(seed);
            int documents = 1 + random.nextInt(4);
            for (int d = 0; d < documents; d++) {
                long state = random.nextLong();
                document(a, new Random(state), 0, false);
                document(b, new Random(state), 0, true);
                a.flush();
                b.flush();
                assertArrayEquals(theirs.toByteArray(), ours.toByteArray(), "seed " + seed + ", document " + d);
            }
            a.close();
            b.close();
            assertArrayEquals(theirs.toByteArray(), ours.toByteArray(), "seed " + seed + " after close");
        }
    }

    /**
     * A document with random fields; {@code depth} bounds the nesting. UTF-8 bytes go to bson4jackson as a String:
     * its {@code writeUTF8String} and {@code writeRawUTF8String} write a wrong length (without the final NUL) and
     * read up to {@code length} instead of {@code offset + length}; the graph writer only ever used its String path.
     */
    private static void document(JsonGenerator g, Random r, int depth, boolean reference) throws IOException {
        g.writeStartObject();
        int fields = r.nextInt(6);
        for (int i = 0; i < fields; i++) {
            if (r.nextBoolean()) {
                g.writeFieldName(text(r, true));
            } else {
                g.writeFieldName(new SerializedString(text(r, true)));
            }
            value(g, r, depth, reference);
        }
        g.writeEndObject();
    }

    private static void value(JsonGenerator g, Random r, int depth, boolean reference) throws IOException {
        switch (r.nextInt(depth < 4 ? 14 : 12)) {
            case 0 -> g.writeString(text(r, false));
            case 1 -> {
                char[] c = ("xx" + text(r, false) + "yy").toCharArray();
                g.writeString(c, 2, c.length - 4);
            }
            case 2 -> g.writeString(new SerializedString(text(r, false)));
            case 3 -> {
                byte[] ascii = new byte[r.nextInt(40) + 3];
                for (int i = 0; i < ascii.length; i++) ascii[i] = (byte) r.nextInt(0x80);
                boolean raw = r.nextBoolean();
                if (reference) {
                    g.writeString(new String(ascii, 1, ascii.length - 3, StandardCharsets.US_ASCII));
                } else if (raw) {
                    g.writeRawUTF8String(ascii, 1, ascii.length - 3);
                } else {
                    g.writeUTF8String(ascii, 1, ascii.length - 3);
                }
            }
            case 4 -> g.writeNumber(r.nextInt());
            case 5 -> g.writeNumber(r.nextBoolean() ? r.nextLong() : r.nextInt(100));
            case 6 -> g.writeNumber(switch (r.nextInt(5)) {
                case 0 -> Double.NaN;
                case 1 -> -0.0;
                case 2 -> Double.NEGATIVE_INFINITY;
                case 3 -> Double.longBitsToDouble(r.nextLong());
                default -> r.nextDouble() * 1e6;
            });
            case 7 -> g.writeNumber(r.nextBoolean() ? Float.intBitsToFloat(r.nextInt()) : r.nextFloat());
            case 8 -> g.writeBoolean(r.nextBoolean());
            case 9 -> g.writeNull();
            case 10 -> {
                byte[] bytes = new byte[r.nextInt(20)];
                r.nextBytes(bytes);
                g.writeBinary(bytes);
            }
            case 11 -> g.writeString("");
            case 12 -> document(g, r, depth + 1, reference);
            default -> {
                g.writeStartArray();
                int n = r.nextInt(r.nextInt(10) == 0 ? 120 : 5);  // indexes of two and three digits too
                for (int i = 0; i < n; i++) {
                    value(g, r, depth + 1, reference);
                }
                g.writeEndArray();
            }
        }
    }

    /** Random text: ASCII mostly, two- and three-byte characters, surrogate pairs; NUL only in values. */
    private static String text(Random r, boolean name) {
        StringBuilder sb = new StringBuilder();
        int n = r.nextInt(r.nextInt(8) == 0 ? 300 : 12);
        for (int i = 0; i < n; i++) {
            switch (r.nextInt(10)) {
                case 0 -> sb.append((char) (0x80 + r.nextInt(0x780)));
                case 1 -> sb.append((char) (0x800 + r.nextInt(0xD000 - 0x800)));
                case 2 -> sb.appendCodePoint(0x10000 + r.nextInt(0x100000));
                case 3 -> sb.append(name ? 'n' : '\u0000');
                default -> sb.append((char) (0x20 + r.nextInt(0x5F)));
            }
        }
        return sb.toString();
    }

    @Test
    void aDocumentGoesOutOnlyWhenComplete() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BsonGenerator g = new BsonGenerator(out);
        g.writeStartObject();
        g.writeFieldName("a");
        g.writeNumber(1);
        g.flush();
        assertEquals(0, out.size(), "an unfinished document stays in the generator");
        g.writeEndObject();
        g.flush();
        assertArrayEquals(new byte[] {12, 0, 0, 0, 0x10, 'a', 0, 1, 0, 0, 0, 0}, out.toByteArray());
    }

    @Test
    void refusesWhatBsonCannotHold() throws IOException {
        BsonGenerator g = new BsonGenerator(new ByteArrayOutputStream());
        assertThrows(JsonGenerationException.class, () -> g.writeNumber(1), "a value outside a document");
        assertThrows(JsonGenerationException.class, g::writeStartArray, "an array outside a document");
        g.writeStartObject();
        assertThrows(IllegalArgumentException.class, () -> g.writeFieldName("a\u0000b"));
        assertThrows(JsonGenerationException.class, () -> g.writeNumber(1), "a value without a name");
        g.writeFieldName("ok");
        assertThrows(JsonGenerationException.class, () -> g.writeFieldName("twice"));
        assertThrows(UnsupportedOperationException.class, () -> g.writeRaw("x"));
        assertThrows(UnsupportedOperationException.class, () -> g.writeNumber("1"));
    }
}
