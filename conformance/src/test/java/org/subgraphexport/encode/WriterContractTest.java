package org.subgraphexport.encode;

import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.TokenNames;
import org.subgraphexport.wire.Wire;
import org.subgraphexport.wire.Format;

import com.esotericsoftware.kryo.io.Output;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.subgraphexport.wire.ValueSink.ArrayKind;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What every writer promises besides its bytes: stream ownership, flushing, token look-ups, misuse checks. */
class WriterContractTest {
    @Test
    void formatsByPathSegmentAndMediaType() {
        for (Format f : Format.values()) {
            assertEquals(Optional.of(f), Format.fromPathSegment(f.pathSegment()));
        }
        assertEquals("kryo-lzf", Format.KRYO_LZF.pathSegment());
        assertEquals("application/x-subgraph-kryo-lzf", Format.KRYO_LZF.mediaType());
        assertEquals("application/bson", Format.BSON.mediaType());
        assertEquals(Optional.empty(), Format.fromPathSegment("JSON"));
        assertEquals(Optional.empty(), Format.fromPathSegment("xml"));
        assertEquals(Optional.empty(), Format.fromPathSegment(null));
    }

    @Test
    void jsonElementIdsArePrefixAndDecimalForEveryLong() throws IOException {
        Random random = new Random(20261123);
        long[] ids = new long[2000];
        long[] edges = {0, 1, 9, 10, 99, 100, 999_999_999, 1_000_000_000, Integer.MAX_VALUE, Integer.MAX_VALUE + 1L,
                999_999_999_999_999_999L, 1_000_000_000_000_000_000L, Long.MAX_VALUE, -1, -10, Long.MIN_VALUE};
        System.arraycopy(edges, 0, ids, 0, edges.length);
        for (int i = edges.length; i < ids.length; i++) {
            ids[i] = random.nextLong() >>> random.nextInt(64) ^ (random.nextInt(8) == 0 ? Long.MIN_VALUE : 0);
        }
        // a prefix JSON writes as it is (the bytes path), and one that needs escaping (the chars path)
        for (String prefix : new String[] {"4:3f1c2d4e-0000-4000-8000-00000000000a:", "4:\"db\\\u00e9:"}) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            GraphWriter w = Encoders.open(Format.JSON, out);
            w.header(new Header("neo4j", prefix + 0, prefix, "5:r:"), new LzfChunkTest.SimpleTokens());
            for (long id : ids) {
                w.beginRelationship(id, 0, id, Math.abs(id % 1000));
                w.endRelationship();
            }
            w.end(0, ids.length, false);
            w.finish();
            String json = out.toString(StandardCharsets.UTF_8);
            String quoted = prefix.replace("\\", "\\\\").replace("\"", "\\\"");
            int at = 0;
            for (long id : ids) {
                String expected = "\"id\":\"5:r:" + id + "\",\"type\":\"TYPE_0\",\"start\":\"" + quoted + id
                        + "\",\"end\":\"" + quoted + Math.abs(id % 1000) + "\"";
                int found = json.indexOf(expected, at);
                assertTrue(found >= 0, expected);
                at = found + expected.length();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void neverClosesTheTargetAndFlushesOnlyWhenFinishingOrPerBufferFill(Format format) throws IOException {
        TrackingStream target = new TrackingStream();
        FixtureStream fixture = FixtureStream.full();
        GraphWriter w = Encoders.open(format, target);
        fixture.write(w, fixture.tokens());
        w.end(0, 0, false);
        int flushesBeforeFinish = target.flushes;
        w.finish();
        assertFalse(target.closed, "closed the target");
        assertTrue(target.flushes > flushesBeforeFinish, "finish flushes");
        long uncompressed = format == Format.KRYO_LZF ? fixture.bytes(Format.KRYO).length : target.size();
        long bufferFills = uncompressed / Wire.KRYO_BUFFER + 1;
        assertTrue(target.flushes <= bufferFills + 1, target.flushes + " flushes for " + target.size() + " bytes");
        if (format == Format.BSON || format == Format.JSON) {
            assertEquals(0, flushesBeforeFinish, "no flush per record");
        }
        w.finish();  // idempotent
        assertFalse(target.closed);
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void asksForEachTokenNameOnce(Format format) throws IOException {
        FixtureStream fixture = FixtureStream.full();
        TokenNames names = fixture.tokens();
        Map<String, Integer> asked = new HashMap<>();
        TokenNames counting = new TokenNames() {
            @Override
            public String label(int id) {
                asked.merge("label " + id, 1, Integer::sum);
                return names.label(id);
            }

            @Override
            public String relationshipType(int id) {
                asked.merge("type " + id, 1, Integer::sum);
                return names.relationshipType(id);
            }

            @Override
            public String propertyKey(int id) {
                asked.merge("key " + id, 1, Integer::sum);
                return names.propertyKey(id);
            }
        };
        GraphWriter w = Encoders.open(format, new ByteArrayOutputStream());
        fixture.write(w, counting);
        assertTrue(asked.size() > 20);
        asked.forEach((token, times) -> assertEquals(1, times, token));
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void rejectsMisuseOfArrays(Format format) throws IOException {
        GraphWriter w = Encoders.open(format, new ByteArrayOutputStream());
        w.header(FixtureStream.HEADER, FixtureStream.compact().tokens());
        w.beginNode(1, new int[0], 0);
        w.property(5);
        w.beginArray(2, ArrayKind.INT);
        w.writeInt(1);
        assertThrows(IllegalStateException.class, () -> w.writeLong(2));
        assertThrows(IllegalStateException.class, () -> w.beginArray(1, ArrayKind.INT));
        assertThrows(IllegalStateException.class, () -> w.writeBytes(new byte[0]));
    }

    /**
     * The JSON and BSON writers keep the property and map-key protocol themselves: a call that would make malformed
     * output (a record or map ended where a value is due, two names in a row, a value without a name, a record
     * ended by the other kind's end, a record begun inside one) throws IllegalStateException and writes nothing,
     * and an error() after it ends the stream exactly as if the misuse had not been attempted. So do records, end()
     * and error() after finish(). (The Jackson references, {@link JacksonGraphWriter#json} and {@link
     * JacksonGraphWriter#bson}, throw Jackson's own IOException for some of these, write {@code {"k"}} in JSON or
     * a document cut short by the name's zero type byte in BSON for a record or map ended after a name, and let
     * endRelationship() end a node.)
     */
    @ParameterizedTest
    @EnumSource(value = Format.class, names = {"JSON", "BSON"})
    void refusesCallsThatWouldWriteMalformedOutput(Format format) throws IOException {
        List<ThrowingCall> misuse = List.of(
                w -> { node(w); w.property(1); w.endNode(); },
                w -> { node(w); w.property(1); w.property(2); },
                w -> { node(w); w.writeLong(1); },
                w -> { node(w); w.property(1); w.writeLong(1); w.writeLong(2); },
                w -> { w.endNode(); },
                w -> { node(w); w.endRelationship(); },
                w -> { w.beginRelationship(1, 0, 1, 1); w.endNode(); },
                w -> { node(w); w.beginNode(2, new int[0], 0); },
                w -> { row(w); w.beginMap(1); w.mapKey("a"); w.endMap(); },
                w -> { row(w); w.beginMap(2); w.mapKey("a"); w.mapKey("b"); },
                w -> { row(w); w.beginMap(1); w.writeLong(1); },
                w -> { row(w); w.beginList(1); w.mapKey("a"); },
                w -> { node(w); w.property(1); w.beginArray(1, ArrayKind.INT); w.property(2); });
        for (int i = 0; i < misuse.size(); i++) {
            String message = "after misuse " + i;
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            GraphWriter w = Encoders.open(format, out);
            w.header(FixtureStream.HEADER, new LzfChunkTest.SimpleTokens());
            w.columns(new String[] {"c"});
            ThrowingCall call = misuse.get(i);
            assertThrows(IllegalStateException.class, () -> call.run(w), format + " misuse " + i);
            w.error("Test.Code", message);
            w.finish();
            assertArrayEquals(withoutMisuse(format, message), out.toByteArray(), format + " misuse " + i);
            if (format == Format.JSON) {
                String errorRecord = ",{\"record\":\"error\",\"code\":\"Test.Code\",\"message\":\"" + message + "\"}]";
                assertTrue(out.toString(StandardCharsets.UTF_8).endsWith("\"names\":[\"c\"]}" + errorRecord));
            }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = Encoders.open(format, out);
        w.header(FixtureStream.HEADER, new LzfChunkTest.SimpleTokens());
        w.columns(new String[] {"c"});
        w.error("Test.Code", "finished");
        w.finish();
        byte[] finished = out.toByteArray();
        assertArrayEquals(withoutMisuse(format, "finished"), finished);
        assertThrows(IllegalStateException.class, () -> node(w));
        assertThrows(IllegalStateException.class, () -> row(w));
        assertThrows(IllegalStateException.class, () -> w.end(0, 0, false));
        assertThrows(IllegalStateException.class, () -> w.error("Test.Code", "again"));
        w.finish();
        assertArrayEquals(finished, out.toByteArray(), "wrote after finish()");
    }

    /** The stream of {@link #refusesCallsThatWouldWriteMalformedOutput} without the misuse. */
    private static byte[] withoutMisuse(Format format, String message) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = Encoders.open(format, out);
        w.header(FixtureStream.HEADER, new LzfChunkTest.SimpleTokens());
        w.columns(new String[] {"c"});
        w.error("Test.Code", message);
        w.finish();
        return out.toByteArray();
    }

    private interface ThrowingCall {
        void run(GraphWriter w) throws IOException;
    }

    private static void node(GraphWriter w) throws IOException {
        w.beginNode(1, new int[0], 0);
    }

    private static void row(GraphWriter w) throws IOException {
        w.beginRow();
    }

    /**
     * The Kryo string encoding is exactly String.getBytes(UTF_8), unpaired surrogates included, after its length as
     * Kryo's own Output writes a varint; across chunks of the encoder and buffer growth.
     */
    @Test
    void kryoStringsAreJavaUtf8() {
        Random random = new Random(3);
        for (int i = 0; i < 2000; i++) {
            int n = i < 100 ? i : i % 20 == 0 ? 4000 + random.nextInt(12000) : random.nextInt(2000);  // chunks, 3-byte lengths
            StringBuilder sb = new StringBuilder(n);
            for (int k = 0; k < n; k++) {
                sb.append(switch (random.nextInt(6)) {
                    case 0 -> (char) random.nextInt(0x80);
                    case 1 -> (char) (0x80 + random.nextInt(0x780));
                    case 2 -> (char) (0x800 + random.nextInt(0xD000));
                    case 3 -> (char) (0xD800 + random.nextInt(0x800));  // any surrogate, paired or not
                    case 4 -> "😀";
                    default -> (char) (0xE000 + random.nextInt(0x2000));
                });
            }
            String s = sb.toString();
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            WireBuffer out = new WireBuffer(16);  // tiny buffer: every longer string grows it
            out.require(1);
            out.put(0x55);  // not at offset 0
            out.kryoString(s);
            Output expected = new Output(16 + utf8.length);
            expected.writeByte(0x55);
            expected.writeVarInt(utf8.length, true);
            expected.writeBytes(utf8);
            assertArrayEquals(expected.toBytes(), out.toByteArray(), () -> "string " + s.chars().boxed().toList());
        }
    }

    /**
     * Stored strings may arrive as UTF-8 bytes ({@link ValueSink#writeUtf8}): every format writes exactly what it
     * writes for the decoded String — ASCII passed through (with JSON escaping), anything else decoded first, so
     * malformed bytes become U+FFFD as decoding makes them.
     */
    @ParameterizedTest
    @EnumSource(Format.class)
    void utf8BytesAreWrittenExactlyAsTheDecodedString(Format format) throws IOException {
        byte[][] samples = {
            new byte[0],
            "a".getBytes(StandardCharsets.UTF_8),
            "IfcWallStandardCase 42 mm".getBytes(StandardCharsets.UTF_8),
            "quote \" backslash \\ newline \n tab \t ctrl \u0001 del \u007f </script>".getBytes(StandardCharsets.UTF_8),
            "x".repeat(100_000).getBytes(StandardCharsets.UTF_8),
            "é😀 ünïcödé ✓".getBytes(StandardCharsets.UTF_8),
            {0x61, (byte) 0xC3},                      // truncated sequence
            {(byte) 0xED, (byte) 0xA0, (byte) 0x80},  // an encoded surrogate: malformed in UTF-8
            {(byte) 0xFF, 0x41},
        };
        ByteArrayOutputStream viaString = new ByteArrayOutputStream();
        ByteArrayOutputStream viaBytes = new ByteArrayOutputStream();
        for (boolean bytes : new boolean[] {false, true}) {
            GraphWriter w = Encoders.open(format, bytes ? viaBytes : viaString);
            w.header(FixtureStream.HEADER, new LzfChunkTest.SimpleTokens());
            w.beginNode(7, new int[] {1}, 1);
            for (int i = 0; i < samples.length; i++) {
                w.property(i);
                if (bytes) {
                    byte[] padded = new byte[samples[i].length + 5];  // at an offset, with bytes either side
                    Arrays.fill(padded, (byte) '#');
                    System.arraycopy(samples[i], 0, padded, 3, samples[i].length);
                    w.writeUtf8(padded, 3, samples[i].length);
                } else {
                    w.writeString(new String(samples[i], StandardCharsets.UTF_8));
                }
            }
            w.endNode();
            w.end(1, 0, false);
            w.finish();
        }
        assertArrayEquals(viaString.toByteArray(), viaBytes.toByteArray());
        assertTrue(format == Format.KRYO_LZF || viaBytes.size() > 100_000, "the long sample was written");
    }

    private static final class TrackingStream extends OutputStream {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int flushes;
        boolean closed;

        @Override
        public void write(int b) {
            bytes.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            bytes.write(b, off, len);
        }

        @Override
        public void flush() {
            flushes++;
        }

        @Override
        public void close() {
            closed = true;
        }

        int size() {
            return bytes.size();
        }
    }
}
