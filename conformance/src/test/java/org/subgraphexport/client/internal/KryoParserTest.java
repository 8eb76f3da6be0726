package org.subgraphexport.client.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.esotericsoftware.kryo.io.Output;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.subgraphexport.client.CorruptStreamException;
import org.subgraphexport.client.ExportEnd;
import org.subgraphexport.client.ExportFailedException;
import org.subgraphexport.client.ExportHeader;
import org.subgraphexport.client.ExportLeft;
import org.subgraphexport.client.ExportNode;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.ExportRecord;
import org.subgraphexport.client.PointValue;
import org.subgraphexport.client.Streams;
import org.subgraphexport.client.Subgraph;
import org.subgraphexport.client.VectorValue;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.Wire;

/**
 * {@link KryoParser} on streams built byte by byte: the version 2 header's partition check at its bounds and the
 * delta record after it, left records, the closing record's flag, token indexes at the dictionary's edge, and the
 * exact error of each malformed value (boolean byte, point dimension, vector kind, empty path). HostileInputTest
 * checks that hostile bytes fail as corrupt; these pin which bytes are accepted and what they decode to.
 */
class KryoParserTest {
    /** A version 2 header (partition {@code partition} of {@code partitions}), then {@code body}. */
    private static byte[] v2(long partition, long partitions, Consumer<Output> body) {
        Output o = new Output(256, -1);
        o.writeBytes(new byte[] {Wire.MAGIC_0, Wire.MAGIC_1, Wire.MAGIC_2, 2, Wire.HEADER});
        for (String s : new String[] {"db", "n:0", "n:", "r:", "s1"}) {
            string(o, s);
        }
        o.writeVarInt((int) partition, true);
        o.writeVarInt((int) partitions, true);
        body.accept(o);
        return o.toBytes();
    }

    /** A version 1 header, then {@code body}. */
    private static byte[] v1(Consumer<Output> body) {
        Output o = new Output(256, -1);
        o.writeBytes(new byte[] {Wire.MAGIC_0, Wire.MAGIC_1, Wire.MAGIC_2, 1, Wire.HEADER});
        for (String s : new String[] {"db", "n:0", "n:", "r:"}) {
            string(o, s);
        }
        body.accept(o);
        return o.toBytes();
    }

    private static void string(Output o, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        o.writeVarInt(b.length, true);
        o.writeBytes(b);
    }

    /** A double as the wire has it: its IEEE bits, big-endian. */
    private static void dbl(Output o, double d) {
        o.writeBytes(ByteBuffer.allocate(8).putDouble(d).array());
    }

    /** The closing record of a version 2 graph stream. */
    private static void end(Output o, long nodes, long relationships, int truncated) {
        o.writeByte(Wire.END);
        o.writeVarLong(nodes, true);
        o.writeVarLong(relationships, true);
        o.writeByte(truncated);
        string(o, "s1");
    }

    /** A version 1 node 1 without labels whose one property "k" has tag {@code tag}; the value's bytes follow. */
    private static void propertyTag(Output o, int tag) {
        o.writeByte(Wire.NODE);
        o.writeVarLong(1, true);
        o.writeVarInt(0, true);
        o.writeByte(Wire.PROPERTY);
        o.writeVarInt(0, true);
        string(o, "k");
        o.writeByte(tag);
    }

    /** The value of property "k" of the one node of a version 1 stream whose value bytes {@code value} writes. */
    private static Object value(int tag, Consumer<Output> value) throws IOException {
        Subgraph s = Streams.decode(Format.KRYO, v1(o -> {
            propertyTag(o, tag);
            value.accept(o);
            o.writeByte(Wire.PROPERTIES_END);
            o.writeByte(Wire.END);
            o.writeVarLong(1, true);
            o.writeVarLong(0, true);
            o.writeByte(0);
        }));
        return s.nodes().get("n:1").properties().get("k");
    }

    private static String corrupt(byte[] bytes) {
        CorruptStreamException e = assertThrows(CorruptStreamException.class, () -> Streams.decode(Format.KRYO, bytes));
        return e.getMessage();
    }

    private static void assertCorrupt(String expectedPart, byte[] bytes) {
        String message = corrupt(bytes);
        assertTrue(message.contains(expectedPart), () -> "expected '" + expectedPart + "' in: " + message);
    }

    @Test
    void partitionsAreReadWithinTheirBounds() throws IOException {
        for (int[] ok : new int[][] {{0, 1}, {1, 2}, {2, 3}, {0, 1000}}) {
            Subgraph s = Streams.decode(Format.KRYO, v2(ok[0], ok[1], o -> end(o, 0, 0, 0)));
            assertEquals(new ExportHeader(2, "db", "n:0", "s1", ok[0], ok[1], ""), s.header());
            assertEquals(new ExportEnd(0, 0, false, 0, "s1"), s.end());
        }
        assertCorrupt("partition 0 of 0", v2(0, 0, o -> end(o, 0, 0, 0)));
        assertCorrupt("partition 1 of 1", v2(1, 1, o -> end(o, 0, 0, 0)));
        assertCorrupt("partition 3 of 2", v2(3, 2, o -> end(o, 0, 0, 0)));
        assertCorrupt("partition 4294967295 of 2", v2(-1, 2, o -> end(o, 0, 0, 0)));
        assertCorrupt("partition 0 of 4294967295", v2(0, -1, o -> end(o, 0, 0, 0)));
    }

    @Test
    void aDeltaRecordAfterTheHeaderNamesTheEarlierStateAndLeftRecordsFollow() throws IOException {
        byte[] bytes = v2(0, 1, o -> {
            o.writeByte(Wire.DELTA);
            string(o, "s0");
            o.writeByte(Wire.LEFT_NODE);
            o.writeVarLong(5, true);
            o.writeByte(Wire.NODE);
            o.writeVarLong(7, true);
            o.writeVarInt(0, true);
            o.writeByte(Wire.PROPERTIES_END);
            o.writeByte(Wire.LEFT_RELATIONSHIP);
            o.writeVarLong(300, true);
            end(o, 1, 0, 0);
        });
        List<ExportRecord> records = new ArrayList<>();
        try (ExportReader reader = ExportReader.open(Format.KRYO, new ByteArrayInputStream(bytes))) {
            assertEquals(new ExportHeader(2, "db", "n:0", "s1", 0, 1, "s0"), reader.header());
            for (ExportRecord r = reader.next(); r != null; r = reader.next()) {
                records.add(r);
            }
        }
        assertEquals(4, records.size(), records.toString());
        assertEquals(new ExportLeft("n:5", true), records.get(0));
        assertEquals("n:7", assertInstanceOf(ExportNode.class, records.get(1)).id());
        assertEquals(new ExportLeft("r:300", false), records.get(2));
        assertEquals(new ExportEnd(1, 0, false, 0, "s1"), records.get(3));
    }

    @Test
    void leftRecordsOnlyInADelta() {
        assertCorrupt("a left record in a stream that is not a delta", v2(0, 1, o -> {
            o.writeByte(Wire.LEFT_NODE);
            o.writeVarLong(5, true);
        }));
        assertCorrupt("a left record in a stream that is not a delta", v2(0, 1, o -> {
            o.writeByte(Wire.LEFT_RELATIONSHIP);
            o.writeVarLong(5, true);
        }));
    }

    @Test
    void theTruncatedFlagIsZeroOrOne() throws IOException {
        assertEquals(new ExportEnd(0, 0, true, 0, "s1"),
                Streams.decode(Format.KRYO, v2(0, 1, o -> end(o, 0, 0, 1))).end());
        assertCorrupt("truncated flag 2, expected 0 or 1", v2(0, 1, o -> end(o, 0, 0, 2)));
    }

    @Test
    void aRowsStreamOfNoColumnsCountsItsRows() throws IOException {
        Subgraph s = Streams.decode(Format.KRYO, v2(0, 1, o -> {
            o.writeByte(Wire.COLUMNS);
            o.writeVarInt(0, true);
            o.writeByte(Wire.ROW);
            o.writeByte(Wire.ROW);
            o.writeByte(Wire.END);
            o.writeVarLong(0, true);
            o.writeVarLong(0, true);
            o.writeByte(0);
            o.writeVarLong(2, true);
            string(o, "s1");
        }));
        assertEquals(List.of(), s.columns());
        assertEquals(2, s.rows().size());
        assertEquals(new ExportEnd(0, 0, false, 2, "s1"), s.end());
    }

    @Test
    void tokenIndexesUpToTheDictionarySize() throws IOException {
        // label 0 defined, then used again by index 0; index 2 with one defined is refused, so is -1
        Subgraph s = Streams.decode(Format.KRYO, v1(o -> {
            for (long id = 1; id <= 2; id++) {
                o.writeByte(Wire.NODE);
                o.writeVarLong(id, true);
                o.writeVarInt(1, true);
                o.writeVarInt(0, true);
                if (id == 1) {
                    string(o, "L");
                }
                o.writeByte(Wire.PROPERTIES_END);
            }
            o.writeByte(Wire.END);
            o.writeVarLong(2, true);
            o.writeVarLong(0, true);
            o.writeByte(0);
        }));
        assertEquals(List.of("L"), s.nodes().get("n:2").labels());
        assertCorrupt("label index 2 but the stream has defined only 1", v1(o -> {
            o.writeByte(Wire.NODE);
            o.writeVarLong(1, true);
            o.writeVarInt(2, true);
            o.writeVarInt(0, true);
            string(o, "L");
            o.writeVarInt(2, true);
        }));
        assertCorrupt("relationship type index 4294967295 but the stream has defined only 0", v1(o -> {
            o.writeByte(Wire.RELATIONSHIP);
            o.writeVarLong(1, true);
            o.writeVarInt(-1, true);
        }));
    }

    @Test
    void booleansArePreciselyZeroOrOne() throws IOException {
        assertEquals(Boolean.TRUE, value(Wire.T_BOOLEAN, o -> o.writeByte(1)));
        assertEquals(Boolean.FALSE, value(Wire.T_BOOLEAN, o -> o.writeByte(0)));
        assertCorrupt("boolean byte 2, expected 0 or 1", v1(o -> {
            propertyTag(o, Wire.T_BOOLEAN);
            o.writeByte(2);
        }));
    }

    @Test
    void pointsHaveTwoOrThreeCoordinates() throws IOException {
        PointValue p2 = (PointValue) value(Wire.T_POINT, o -> {
            o.writeVarInt(7203, true);
            o.writeByte(2);
            dbl(o, 1.5);
            dbl(o, -2);
        });
        assertEquals(7203, p2.srid());
        assertArrayEquals(new double[] {1.5, -2}, p2.coordinates());
        PointValue p3 = (PointValue) value(Wire.T_POINT, o -> {
            o.writeVarInt(9157, true);
            o.writeByte(3);
            dbl(o, 1);
            dbl(o, 2);
            dbl(o, 3);
        });
        assertArrayEquals(new double[] {1, 2, 3}, p3.coordinates());
        for (int dimension : new int[] {1, 4}) {
            assertCorrupt("point dimension " + dimension + ", expected 2 or 3", v1(o -> {
                propertyTag(o, Wire.T_POINT);
                o.writeVarInt(7203, true);
                o.writeByte(dimension);
                o.writeBytes(new byte[32]);
            }));
        }
    }

    @Test
    void vectorKindsEndAtFloat64() throws IOException {
        VectorValue v = (VectorValue) value(Wire.T_VECTOR, o -> {
            o.writeByte(Wire.VECTOR_FLOAT64);
            o.writeVarInt(1, true);
            dbl(o, 0.25);
        });
        assertArrayEquals(new double[] {0.25}, (double[]) v.values());
        assertCorrupt("unknown vector kind 6", v1(o -> {
            propertyTag(o, Wire.T_VECTOR);
            o.writeByte(6);
            o.writeVarInt(0, true);
        }));
    }

    /** An input stream that answers every other read with 0 bytes: the parser asks for one byte then, never spins. */
    @Test
    void readsThatReturnNothingAreAskedForOneByte() throws IOException {
        byte[] bytes = v2(0, 1, o -> {
            o.writeByte(Wire.NODE);
            o.writeVarLong(1L << 40, true);
            o.writeVarInt(0, true);
            o.writeByte(Wire.PROPERTY);
            o.writeVarInt(0, true);
            string(o, "k");
            o.writeByte(Wire.T_DOUBLE);
            dbl(o, -0.125);
            o.writeByte(Wire.PROPERTIES_END);
            end(o, 1, 0, 0);
        });
        InputStream stuttering = new ByteArrayInputStream(bytes) {
            private boolean nothing;

            @Override
            public synchronized int read(byte[] b, int off, int len) {
                nothing = !nothing;
                return nothing ? 0 : super.read(b, off, Math.min(len, 3));
            }
        };
        Subgraph s = Streams.decode(Format.KRYO, stuttering);
        assertEquals(-0.125, s.nodes().get("n:" + (1L << 40)).properties().get("k"));
        assertEquals(new ExportEnd(1, 0, false, 0, "s1"), s.end());
    }

    /** A stream that ends where a zero-byte read would have been taken for its end. */
    @Test
    void anEmptyReadAtTheEndIsTheEnd() {
        byte[] bytes = v2(0, 1, o -> { });
        InputStream zeroThenEnd = new ByteArrayInputStream(bytes) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return available() == 0 ? 0 : super.read(b, off, len);
            }
        };
        CorruptStreamException e = assertThrows(CorruptStreamException.class,
                () -> Streams.decode(Format.KRYO, zeroThenEnd));
        assertTrue(e.getMessage().startsWith("stream truncated after 1 records"), e.getMessage());
    }

    /** A declared length of at most Wire.MAX_LENGTH is taken (the stream then ends inside it); one more is refused. */
    @Test
    void lengthsUpToTheLimitAreTaken() {
        byte[] atLimit = v1(o -> {
            propertyTag(o, Wire.T_BYTES);
            o.writeVarInt(Wire.MAX_LENGTH, true);
            o.writeBytes(new byte[100]);
        });
        String message = corrupt(atLimit);
        assertTrue(message.startsWith("stream truncated after 1 records"), message);
        assertCorrupt("byte array length " + (Wire.MAX_LENGTH + 1) + " outside 0.." + Wire.MAX_LENGTH, v1(o -> {
            propertyTag(o, Wire.T_BYTES);
            o.writeVarInt(Wire.MAX_LENGTH + 1, true);
            o.writeBytes(new byte[100]);
        }));
    }

    @Test
    void aVersion1HeaderHasNoState() throws IOException {
        Subgraph s = Streams.decode(Format.KRYO, v1(o -> {
            o.writeByte(Wire.END);
            o.writeVarLong(0, true);
            o.writeVarLong(0, true);
            o.writeByte(0);
        }));
        assertEquals(new ExportHeader(1, "db", "n:0"), s.header());
        assertEquals(new ExportEnd(0, 0, false, 0, ""), s.end());
    }

    @Test
    void nothingMayFollowAnErrorRecord() {
        byte[] error = v2(0, 1, o -> {
            o.writeByte(Wire.ERROR);
            string(o, "Neo.X");
            string(o, "failed");
        });
        ExportFailedException e = assertThrows(ExportFailedException.class, () -> Streams.decode(Format.KRYO, error));
        assertEquals("Neo.X", e.code());
        byte[] more = java.util.Arrays.copyOf(error, error.length + 1);
        assertCorrupt("bytes after the closing record", more);
    }

    /** Long ASCII strings that share their first 16 bytes are not taken for one another (only short ones are cached). */
    @Test
    void longStringsSharingTheirFirstSixteenBytesStayApart() throws IOException {
        String[] values = {"abcdefghijklmnopX1", "abcdefghijklmnopX2", "abcdefghijklmnopq", "abcdefghijklmnopr"};
        Subgraph s = Streams.decode(Format.KRYO, v1(o -> {
            for (int i = 0; i < values.length; i++) {
                o.writeByte(Wire.NODE);
                o.writeVarLong(i, true);
                o.writeVarInt(0, true);
                o.writeByte(Wire.PROPERTY);
                o.writeVarInt(0, true);
                if (i == 0) {
                    string(o, "k");
                }
                o.writeByte(Wire.T_STRING);
                string(o, values[i]);
                o.writeByte(Wire.PROPERTIES_END);
            }
            o.writeByte(Wire.END);
            o.writeVarLong(values.length, true);
            o.writeVarLong(0, true);
            o.writeByte(0);
        }));
        for (int i = 0; i < values.length; i++) {
            assertEquals(values[i], s.nodes().get("n:" + i).properties().get("k"));
        }
    }

    /** A var-int's fifth byte carries 4 bits: more is malformed, whether the var-int is buffered whole or not. */
    @Test
    void aVarIntsFifthByteHasFourBits() {
        for (int fifth : new int[] {0x10, 0x1F, 0x7F}) {
            byte[] bytes = v1(o -> {
                o.writeByte(Wire.NODE);
                o.writeVarLong(1, true);
                o.writeBytes(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) fifth});
                o.writeBytes(new byte[8]);
            });
            assertCorrupt("malformed var-int", bytes);  // buffered whole
            CorruptStreamException e = assertThrows(CorruptStreamException.class,
                    () -> Streams.decodeTiny(Format.KRYO, bytes));   // a byte at a time
            assertTrue(e.getMessage().contains("malformed var-int"), e.getMessage());
        }
        // 0x0F is the largest fifth byte: 0xFFFFFFFF, a label count of -1, refused as a length
        assertCorrupt("label count length -1 outside", v1(o -> {
            o.writeByte(Wire.NODE);
            o.writeVarLong(1, true);
            o.writeBytes(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F});
            o.writeBytes(new byte[8]);
        }));
    }

    /**
     * Fixed-width values (a float64 vector's elements) that straddle the end of the parser's 64 KiB buffer, at
     * every alignment: the bytes left in the buffer move to its start and the rest is read after them.
     */
    @Test
    void fixedWidthValuesAcrossTheBufferEnd() throws IOException {
        for (int shift = 0; shift < 9; shift++) {
            Subgraph s = Streams.decode(Format.KRYO, vectorAfter(65_536 - 60 + shift));
            VectorValue v = (VectorValue) s.nodes().get("n:1").properties().get("v");
            assertArrayEquals(new double[] {-1.0625, -2.125, -3.1875, -4.25, -5.3125, -6.375}, (double[]) v.values(),
                    "shift " + shift);
        }
    }

    /** A node whose byte array of {@code pad} bytes is followed by a float64 vector of six values. */
    private static byte[] vectorAfter(int pad) {
        return v1(o -> {
            o.writeByte(Wire.NODE);
            o.writeVarLong(1, true);
            o.writeVarInt(0, true);
            o.writeByte(Wire.PROPERTY);
            o.writeVarInt(0, true);
            string(o, "p");
            o.writeByte(Wire.T_BYTES);
            o.writeVarInt(pad, true);
            o.writeBytes(new byte[pad]);
            o.writeByte(Wire.PROPERTY);
            o.writeVarInt(1, true);
            string(o, "v");
            o.writeByte(Wire.T_VECTOR);
            o.writeByte(Wire.VECTOR_FLOAT64);
            o.writeVarInt(6, true);
            for (int i = 0; i < 6; i++) {
                dbl(o, -1.0625 * (i + 1));
            }
            o.writeByte(Wire.PROPERTIES_END);
            o.writeByte(Wire.END);
            o.writeVarLong(1, true);
            o.writeVarLong(0, true);
            o.writeByte(0);
        });
    }

    /**
     * After a double straddled the buffer end, the refill fills the buffer, no more: a one-byte key at every position
     * around the buffer's end (the byte array before it sweeps) reads right, however the refill was aligned.
     */
    @Test
    void aShortStringJustAfterARefillAtEveryPosition() throws IOException {
        for (int shift : new int[] {1, 3, 5, 7}) {
            int pad = 65_494 + shift;  // the double at 65,528 + shift: 3 or 1 of its bytes before the buffer end
            for (int m = 65_536 - 30; m < 65_536 - 2; m++) {
                int blob = m;
                byte[] bytes = v1(o -> {
                    o.writeByte(Wire.NODE);
                    o.writeVarLong(1, true);
                    o.writeVarInt(0, true);
                    o.writeByte(Wire.PROPERTY);
                    o.writeVarInt(0, true);
                    string(o, "p");
                    o.writeByte(Wire.T_BYTES);
                    o.writeVarInt(pad, true);
                    o.writeBytes(new byte[pad]);
                    o.writeByte(Wire.PROPERTY);
                    o.writeVarInt(1, true);
                    string(o, "d");
                    o.writeByte(Wire.T_DOUBLE);
                    dbl(o, 0.5);
                    o.writeByte(Wire.PROPERTY);
                    o.writeVarInt(2, true);
                    string(o, "b");
                    o.writeByte(Wire.T_BYTES);
                    o.writeVarInt(blob, true);
                    o.writeBytes(new byte[blob]);
                    o.writeByte(Wire.PROPERTY);
                    o.writeVarInt(3, true);
                    string(o, "q");
                    o.writeByte(Wire.T_STRING);
                    string(o, "z");
                    o.writeByte(Wire.PROPERTIES_END);
                    o.writeByte(Wire.END);
                    o.writeVarLong(1, true);
                    o.writeVarLong(0, true);
                    o.writeByte(0);
                });
                Subgraph s = Streams.decode(Format.KRYO, bytes);
                java.util.Map<String, Object> p = s.nodes().get("n:1").properties();
                assertEquals(List.of("p", "d", "b", "q"), List.copyOf(p.keySet()), "shift " + shift + ", m " + m);
                assertEquals(0.5, p.get("d"));
                assertEquals("z", p.get("q"));
            }
        }
    }
}
