package org.subgraphexport.encode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.ValueSink.ArrayKind;
import org.subgraphexport.wire.ValueSink.VectorKind;
import org.subgraphexport.wire.Wire;

/**
 * The byte writers' room checks (kryo, kryo-lzf, JSON, BSON): every {@link GraphWriter} call requires the room it
 * writes, so the buffer's size never shows in the bytes. Each script is written once into the writer's own buffer and
 * once with the buffer set, before every call, to exactly what was written so far plus 0 to 32 bytes of slack (JSON
 * and BSON: 96; a buffer that a large value grew to its exact size is in that state), so that for some slack a
 * call's bytes end exactly at the buffer's end (a small header's, a new type's relationship record's, the longest
 * values'); both streams must be the same bytes.
 */
class KryoGraphWriterTest {
    private interface Script {
        void write(GraphWriter w) throws IOException;
    }

    /** The scripts: every record, every value type and array kind, rows with lists, maps and paths, delta, error. */
    private static final Script[] SCRIPTS = {
        w -> FixtureStream.compact().write(w),
        w -> RowsFixture.standard().write(w),
        KryoGraphWriterTest::delta,
        KryoGraphWriterTest::error,
        KryoGraphWriterTest::longPath,
        w -> longest(w, "4:db:"),
        w -> longest(w, "4:d\u00e9\"b:"),  // a prefix JSON escapes: its own room checks
        KryoGraphWriterTest::longestRows,
    };

    /**
     * Every id, count and value at its longest text (JSON spells numbers out; the room each call asks for is its
     * worst case): ids and counts at Long.MIN_VALUE and MAX_VALUE, the partition numbers at Integer.MAX_VALUE, the
     * longest doubles and floats, bytes, shorts and ints at their minimum, in properties, arrays, points, vectors,
     * lists, maps, references and paths, a delta's left records; the id prefix as given.
     */
    private static void longest(GraphWriter w, String prefix) throws IOException {
        double d = -2.2250738585072014E-308;  // 24 chars, as long as a double's text gets
        float f = -1.17549435E-38f;
        w.header(new Header("neo4j", "", prefix, "5" + prefix, "db:7", Integer.MAX_VALUE - 1, Integer.MAX_VALUE, "db:6"),
                FixtureStream.tokens(new String[] {"L"}, new String[] {"T"}, new String[] {"k"}));
        w.leftNode(Long.MIN_VALUE);
        w.leftRelationship(Long.MIN_VALUE);
        w.beginNode(Long.MIN_VALUE, new int[] {0}, 1);
        w.property(0);
        w.writeByte(Byte.MIN_VALUE);
        w.property(0);
        w.writeShort(Short.MIN_VALUE);
        w.property(0);
        w.writeInt(Integer.MIN_VALUE);
        w.property(0);
        w.writeLong(Long.MIN_VALUE);
        w.property(0);
        w.writeDouble(d);
        w.property(0);
        w.writeFloat(f);
        w.property(0);
        w.writeDouble(Double.NEGATIVE_INFINITY);
        w.property(0);
        w.writePoint(Integer.MIN_VALUE, new double[] {d, d, d});
        w.property(0);
        w.writeDuration(Long.MIN_VALUE, Long.MIN_VALUE, Long.MIN_VALUE, 999_999_999);
        w.property(0);
        w.writeVector(VectorKind.FLOAT64, new double[] {d, d});
        w.property(0);
        w.writeVector(VectorKind.INT64, new long[] {Long.MIN_VALUE});
        for (ArrayKind kind : new ArrayKind[] {
            ArrayKind.SHORT,
            ArrayKind.INT, ArrayKind.LONG,
            ArrayKind.FLOAT, ArrayKind.DOUBLE,
            ArrayKind.POINT}) {
            w.property(0);
            w.beginArray(2, kind);
            for (int i = 0; i < 2; i++) {
                switch (kind) {
                    case SHORT -> w.writeShort(Short.MIN_VALUE);
                    case INT -> w.writeInt(Integer.MIN_VALUE);
                    case LONG -> w.writeLong(Long.MIN_VALUE);
                    case FLOAT -> w.writeFloat(f);
                    case DOUBLE -> w.writeDouble(d);
                    default -> w.writePoint(Integer.MIN_VALUE, new double[] {d, d, d});
                }
            }
            w.endArray();
        }
        w.endNode();
        w.beginRelationship(Long.MIN_VALUE, 0, Long.MIN_VALUE, Long.MAX_VALUE);
        w.property(0);
        w.writeBytes(new byte[] {-1, -2, -3, -4, -5});
        w.endRelationship();
        w.end(Long.MAX_VALUE, Long.MIN_VALUE, true, "db:8");
        w.finish();
    }

    /** Rows with the longest values in lists, maps, references and paths. */
    private static void longestRows(GraphWriter w) throws IOException {
        double d = -2.2250738585072014E-308;
        w.header(FixtureStream.HEADER, FixtureStream.tokens(new String[0], new String[0], new String[0]));
        w.columns(new String[] {"a", "b", "c", "d", "e"});
        w.beginRow();
        w.beginList(3);
        w.writeDouble(d);
        w.writeLong(Long.MIN_VALUE);
        w.writePoint(Integer.MIN_VALUE, new double[] {d, d, d});
        w.endList();
        w.beginMap(2);
        w.mapKey("x");
        w.writeDouble(d);
        w.mapKey("y");
        w.writeNull();
        w.endMap();
        w.writeNodeRef(Long.MIN_VALUE);
        w.writeRelationshipRef(Long.MIN_VALUE);
        w.writePath(new long[] {Long.MIN_VALUE, Long.MIN_VALUE}, new long[] {Long.MIN_VALUE});
        w.endRow();
        w.end(0, 0, false, "s");
        w.finish();
    }

    /** A path whose ids all take a varlong's 9 bytes: the path's room is its worst case, and it is needed. */
    private static void longPath(GraphWriter w) throws IOException {
        w.header(FixtureStream.HEADER, FixtureStream.tokens(new String[0], new String[0], new String[0]));
        w.columns(new String[] {"p"});
        w.beginRow();
        w.writePath(new long[] {-1, Long.MIN_VALUE, 1L << 62}, new long[] {-5, Long.MAX_VALUE});
        w.endRow();
        w.end(0, 0, false, "s");
        w.finish();
    }

    private static void delta(GraphWriter w) throws IOException {
        w.header(new Header("neo4j", "", "4:db:", "5:db:", "db:7", 1, 4, "db:\u00e9 3"),
                FixtureStream.tokens(new String[] {"L"}, new String[] {"T"}, new String[] {"k"}));
        w.leftNode(Long.MAX_VALUE);
        w.leftRelationship(300);
        w.beginNode(1L << 60, new int[] {0}, 1);
        w.property(0);
        w.writeString("x".repeat(130));
        w.endNode();
        w.end(1, 0, true, "db:8");
        w.finish();
    }

    private static void error(GraphWriter w) throws IOException {
        w.header(FixtureStream.HEADER, FixtureStream.tokens(new String[] {"L"}, new String[] {"T"}, new String[] {"k"}));
        w.beginNode(5, new int[0], 0);
        w.property(0);
        w.beginArray(3, ArrayKind.INT);
        w.writeInt(1);
        w.error("Neo.ClientError.\u00e9", "m\u00fcssage ".repeat(20));
        w.finish();
    }

    /**
     * The script's bytes; with {@code slack} >= 0, the buffer set to its content plus slack before every call (cut
     * or padded: only cutting left a call the room the calls before it had not used, smaller than slack, and some
     * exact fits were never met).
     */
    private static byte[] write(Format format, Script script, int slack) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        GraphWriter target = Encoders.open(format, bytes);
        WireBuffer out = ((ByteRecordWriter) target).out;
        GraphWriter tight = (GraphWriter) Proxy.newProxyInstance(GraphWriter.class.getClassLoader(),
                new Class<?>[] {GraphWriter.class}, (proxy, method, args) -> {
                    if (slack >= 0) {  // exactly slack bytes of room, cut or padded: not what the last call left
                        out.buf = Arrays.copyOf(out.buf, out.pos + slack);
                    }
                    try {
                        return method.invoke(target, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        script.write(slack >= 0 ? tight : target);
        return bytes.toByteArray();
    }

    /** The same for JSON and BSON (ByteRecordWriters too), whose records and values take more room: slack to 96. */
    @ParameterizedTest
    @EnumSource(value = Format.class, names = {"KRYO", "KRYO_LZF", "JSON", "BSON"})
    void everyCallRequiresTheRoomItWrites(Format format) throws IOException {
        int most = format == Format.KRYO || format == Format.KRYO_LZF ? 32 : 96;
        for (Script script : SCRIPTS) {
            byte[] expected = write(format, script, -1);
            assertTrue(expected.length > 20);
            for (int slack = 0; slack <= most; slack++) {  // up to a whole small header or a new type's record
                int s = slack;
                assertArrayEquals(expected, write(format, script, slack), () -> "slack " + s);
            }
        }
    }

    /** Writes the header and a node whose one property is {@code length} bytes; returns the writer, not finished. */
    private static KryoGraphWriter nodeOfBytes(ByteArrayOutputStream target, int length) throws IOException {
        KryoGraphWriter w = KryoGraphWriter.kryo(target);
        w.header(FixtureStream.HEADER, FixtureStream.tokens(new String[0], new String[0], new String[] {"k"}));
        w.beginNode(1, new int[0], 0);
        w.property(0);
        w.writeBytes(new byte[length]);
        w.endNode();
        return w;
    }

    /**
     * The buffer goes to the target at the end of the record that fills it to {@link Wire#HAND_OVER_BYTES} bytes,
     * exactly at that size, and not one byte earlier.
     */
    @Test
    void theBufferIsHandedOverAtTheRecordEndThatReachesTheThreshold() throws IOException {
        int probe = 60_000;  // its length varint has 3 bytes, as the threshold's neighbours do
        int length = probe + Wire.HAND_OVER_BYTES - nodeOfBytes(new ByteArrayOutputStream(), probe).out.pos;
        ByteArrayOutputStream below = new ByteArrayOutputStream();
        KryoGraphWriter w = nodeOfBytes(below, length - 1);
        assertEquals(0, below.size(), "one byte short of the threshold: kept");
        assertEquals(Wire.HAND_OVER_BYTES - 1, w.out.pos);
        ByteArrayOutputStream at = new ByteArrayOutputStream();
        w = nodeOfBytes(at, length);
        assertEquals(Wire.HAND_OVER_BYTES, at.size(), "at the threshold: handed over");
        assertEquals(0, w.out.pos);
        w.end(1, 0, false);
        w.finish();
        assertTrue(at.size() > Wire.HAND_OVER_BYTES, "the end record follows");
    }

    /** Kryo's bytes of a string on this wire: varint UTF-8 length, the bytes. */
    private static void kryoString(ByteArrayOutputStream b, String s) {
        byte[] utf8 = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        b.write(utf8.length);  // every string here is shorter than 128 bytes
        b.writeBytes(utf8);
    }

    /**
     * A rows stream may have no columns: its rows are empty (a row tag each), and its end record carries the row
     * count (every rows stream's does) before the state: the whole stream byte by byte.
     */
    @Test
    void aRowsStreamWithoutColumnsEndsWithItsRowCount() throws IOException {
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        KryoGraphWriter w = KryoGraphWriter.kryo(written);
        Header header = new Header("db", "", "4:", "5:", "s1", 0, 1);
        w.header(header, FixtureStream.tokens(new String[0], new String[0], new String[0]));
        w.columns(new String[0]);
        w.beginRow();
        w.endRow();
        w.beginRow();
        w.endRow();
        w.end(3, 4, false, "s2");
        w.finish();
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        expected.writeBytes(new byte[] {Wire.MAGIC_0, Wire.MAGIC_1, Wire.MAGIC_2, Wire.VERSION, Wire.HEADER});
        for (String s : new String[] {"db", "", "4:", "5:", "s1"}) {
            kryoString(expected, s);
        }
        expected.writeBytes(new byte[] {0, 1, Wire.COLUMNS, 0, Wire.ROW, Wire.ROW, Wire.END, 3, 4, 0, 2});
        kryoString(expected, "s2");  // partition 0 of 1; no columns; two empty rows; 3 nodes, 4 relationships, 2 rows
        assertArrayEquals(expected.toByteArray(), written.toByteArray());
    }

    /**
     * The error record byte by byte: its tag, the code and the message as Kryo strings (a null message as the empty
     * string), after the complete records, the unfinished one dropped.
     */
    @Test
    void anErrorRecordIsItsTagCodeAndMessage() throws IOException {
        for (String message : new String[] {"m\u00e9ssage", null}) {
            ByteArrayOutputStream written = new ByteArrayOutputStream();
            KryoGraphWriter w = KryoGraphWriter.kryo(written);
            w.header(new Header("db", "", "4:", "5:", "s1", 0, 1), FixtureStream.tokens(new String[0],
                    new String[0], new String[0]));
            w.beginNode(1, new int[0], 0);
            w.error("Neo.ClientError.X", message);
            w.finish();
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            expected.writeBytes(new byte[] {Wire.MAGIC_0, Wire.MAGIC_1, Wire.MAGIC_2, Wire.VERSION, Wire.HEADER});
            for (String s : new String[] {"db", "", "4:", "5:", "s1"}) {
                kryoString(expected, s);
            }
            expected.writeBytes(new byte[] {0, 1, Wire.ERROR});
            kryoString(expected, "Neo.ClientError.X");
            kryoString(expected, message == null ? "" : message);
            assertArrayEquals(expected.toByteArray(), written.toByteArray(), "message " + message);
        }
    }

    /** A path that is not one node more than relationships is refused before anything of it is written. */
    @Test
    void aPathOfTheWrongShapeIsRefused() throws IOException {
        KryoGraphWriter w = KryoGraphWriter.kryo(new ByteArrayOutputStream());
        w.header(FixtureStream.HEADER, FixtureStream.tokens(new String[0], new String[0], new String[0]));
        w.columns(new String[] {"p"});
        w.beginRow();
        int at = w.out.pos;
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> w.writePath(new long[] {1, 2}, new long[] {3, 4}));
        assertEquals("a path has one node more than relationships, not 2 and 2", e.getMessage());
        assertEquals(at, w.out.pos, "nothing written");
    }
}
