package org.subgraphexport.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The wire spec's own behaviour, pinned value by value (issue 29: mutation testing): the format table, the header's
 * partition check at its boundaries, the array element tags of both encodings, and the default methods every writer
 * inherits. The rest of the spec is constants, pinned byte for byte by the golden files and the worked examples.
 */
class WireSpecTest {

    @Test
    void formatsByPathSegmentExactAndLowerCase() {
        assertEquals(Optional.of(Format.JSON), Format.fromPathSegment("json"));
        assertEquals(Optional.of(Format.BSON), Format.fromPathSegment("bson"));
        assertEquals(Optional.of(Format.KRYO), Format.fromPathSegment("kryo"));
        assertEquals(Optional.of(Format.KRYO_LZF), Format.fromPathSegment("kryo-lzf"));
        assertEquals(Optional.of(Format.ARROW), Format.fromPathSegment("arrow"));
        assertEquals(Optional.empty(), Format.fromPathSegment("JSON"));
        assertEquals(Optional.empty(), Format.fromPathSegment("kryo_lzf"));
        assertEquals(Optional.empty(), Format.fromPathSegment(""));
    }

    @Test
    void formatsNameTheirMediaTypesAndWhatTheyCarry() {
        assertEquals("application/json", Format.JSON.mediaType());
        assertEquals("application/bson", Format.BSON.mediaType());
        assertEquals("application/x-subgraph-kryo", Format.KRYO.mediaType());
        assertEquals("application/x-subgraph-kryo-lzf", Format.KRYO_LZF.mediaType());
        assertEquals("application/vnd.apache.arrow.stream", Format.ARROW.mediaType());
        assertEquals("kryo-lzf", Format.KRYO_LZF.pathSegment());
        for (Format f : Format.values()) {
            boolean records = f != Format.ARROW;
            assertEquals(records, f.clientDecodes(), f::name);
            assertEquals(records, f.carriesRows(), f::name);
        }
    }

    @Test
    void headerAcceptsEveryPartitionOfTheExportAndNothingElse() {
        Header whole = new Header("db", "4:x:1", "4:x:", "5:x:");
        assertEquals(new Header("db", "4:x:1", "4:x:", "5:x:", "", 0, 1), whole);
        assertEquals(2, new Header("db", "", "n", "r", "s", 2, 3).partition());
        assertEquals(0, new Header("db", "", "n", "r", "s", 0, 3).partition());
        IllegalArgumentException last = assertThrows(IllegalArgumentException.class,
                () -> new Header("db", "", "n", "r", "s", 3, 3));
        assertEquals("partition 3 of 3", last.getMessage());
        assertEquals("partition -1 of 3",
                assertThrows(IllegalArgumentException.class, () -> new Header("db", "", "n", "r", "s", -1, 3))
                        .getMessage());
        assertEquals("partition 0 of 0",
                assertThrows(IllegalArgumentException.class, () -> new Header("db", "", "n", "r", "s", 0, 0))
                        .getMessage());
    }

    @Test
    void arrayElementTagsFollowTheKindsInTagOrder() {
        int[] kryo = Arrays.stream(ValueSink.ArrayKind.values()).mapToInt(Wire::elementTag).toArray();
        assertArrayEquals(new int[] {0x01, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09,
            0x0B, 0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x0C, 0x12}, kryo);
        String[] json = Arrays.stream(ValueSink.ArrayKind.values()).map(Wire.Json::arrayTag).toArray(String[]::new);
        assertArrayEquals(new String[] {"boolean[]", "short[]", "int[]", "long[]", "float[]", "double[]", "char[]",
            "string[]", "point[]", "date[]", "localtime[]", "time[]", "localdatetime[]", "datetime[]", "duration[]",
            "uuid[]"}, json);
    }

    @Test
    void asciiMeansEveryByteOfTheRangeBelow0x80() {
        byte[] b = {(byte) 0x80, 'a', 0x7F, 'b', (byte) 0xC3};
        assertTrue(ValueSink.isAscii(b, 1, 3), "0x61 0x7F 0x62");
        assertTrue(ValueSink.isAscii(b, 1, 0), "empty");
        assertTrue(ValueSink.isAscii(new byte[] {0x00}, 0, 1), "NUL is ASCII");
        assertFalse(ValueSink.isAscii(b, 0, 2), "0x80 at the offset");
        assertFalse(ValueSink.isAscii(b, 1, 4), "0xC3 at the last byte");
        assertFalse(ValueSink.isAscii(new byte[] {(byte) 0xFF}, 0, 1), "0xFF");
    }

    @Test
    void writeUtf8DecodesItsRangeAndReplacesMalformedBytes() throws Exception {
        List<String> calls = new ArrayList<>();
        ValueSink sink = recording(ValueSink.class, calls);
        byte[] utf8 = "xé€y".getBytes(StandardCharsets.UTF_8); // 78 C3A9 E282AC 79
        sink.writeUtf8(utf8, 1, 5);
        sink.writeUtf8(new byte[] {'a', (byte) 0xC3}, 0, 2);
        assertEquals(List.of("writeString[é€]", "writeString[a\uFFFD]"), calls);
    }

    @Test
    void endWithAStateEndsTheStreamWithTheSameCountsWhereTheWriterDropsTheState() throws Exception {
        List<String> calls = new ArrayList<>();
        GraphWriter writer = recording(GraphWriter.class, calls);
        writer.end(7, 9, true, "db:12");
        writer.end(0, 1, false, "");
        writer.abort();
        assertEquals(List.of("end[7, 9, true]", "end[0, 1, false]"), calls);
    }

    /** A T whose default methods run as written and whose other methods record their name and arguments. */
    private static <T> T recording(Class<T> type, List<String> calls) {
        InvocationHandler h = (proxy, method, args) -> {
            if (method.isDefault()) {
                return InvocationHandler.invokeDefault(proxy, method, args);
            }
            calls.add(method.getName() + Arrays.toString(args));
            return null;
        };
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, h));
    }
}
