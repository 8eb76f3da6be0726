package org.subgraphexport.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.subgraphexport.wire.Format;

/** Test helpers: decoding byte arrays, slow input streams, deep comparison of subgraphs. */
public final class Streams {
    private Streams() {}

    /**
     * Decodes {@code bytes} with both APIs, the record API ({@link ExportReader}) and the streaming one
     * ({@link ExportParser}, through {@link StreamedReader}), and checks that they agree: the same records value for
     * value, or the same exception with the same message. Returns the record API's result or throws its exception.
     */
    public static Subgraph decode(Format format, byte[] bytes) throws IOException {
        return both(format, () -> new ByteArrayInputStream(bytes));
    }

    /** As {@link #decode(Format, byte[])}, each API reading through a {@link #tiny} stream. */
    public static Subgraph decodeTiny(Format format, byte[] bytes) throws IOException {
        return both(format, () -> tiny(bytes));
    }

    /** The record API only: {@code in} can be read once. */
    public static Subgraph decode(Format format, InputStream in) throws IOException {
        return decode(ExportReader.open(format, in));
    }

    /** The streaming API only, through {@link StreamedReader}: {@code in} can be read once. */
    public static Subgraph decodeStreamed(Format format, InputStream in) throws IOException {
        return decode(StreamedReader.open(format, in));
    }

    private static Subgraph decode(ExportReader opened) throws IOException {
        try (ExportReader reader = opened) {
            Subgraph s = Subgraph.read(reader);
            assertEquals(null, reader.next(), "null after the end record");
            assertEquals(null, reader.next(), "null forever");
            return s;
        }
    }

    private static Subgraph both(Format format, Supplier<InputStream> input) throws IOException {
        Subgraph records = null;
        Exception recordsFailure = null;
        try {
            records = decode(format, input.get());
        } catch (IOException | RuntimeException e) {
            recordsFailure = e;
        }
        Subgraph streamed = null;
        Exception streamedFailure = null;
        try {
            streamed = decodeStreamed(format, input.get());
        } catch (IOException | RuntimeException e) {
            streamedFailure = e;
        }
        if (recordsFailure == null && streamedFailure == null) {
            assertSubgraph(records, streamed);
            return records;
        }
        String both = "record API: " + recordsFailure + "; streaming API: " + streamedFailure;
        assertEquals(recordsFailure == null ? null : recordsFailure.getClass(),
                streamedFailure == null ? null : streamedFailure.getClass(), both);
        assertEquals(recordsFailure.getMessage(), streamedFailure.getMessage(), both);
        if (recordsFailure instanceof IOException e) {
            throw e;
        }
        throw (RuntimeException) recordsFailure;
    }

    /** Returns at most one byte per read call. */
    public static InputStream tiny(byte[] bytes) {
        return new FilterInputStream(new ByteArrayInputStream(bytes)) {
            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return super.read(b, off, Math.min(len, 1));
            }
        };
    }

    /**
     * Reads of seeded random sizes, 1 to 257 bytes: tokens split between two reads, and after a short read the bytes
     * of an earlier, longer one still in the reader's buffer beyond the new input. Like {@link #chunks}, it says no
     * byte is available, so a BufferedInputStream over it returns each read as it comes.
     */
    public static InputStream ragged(byte[] bytes, long seed) {
        Random sizes = new Random(seed);
        return chunked(bytes, () -> 1 + sizes.nextInt(257));
    }

    /** Reads of the given sizes in turn (then the rest in one read): to put a buffer's edge at a chosen byte. */
    public static InputStream chunks(byte[] bytes, int... sizes) {
        int[] next = {0};
        return chunked(bytes, () -> next[0] < sizes.length ? sizes[next[0]++] : Integer.MAX_VALUE);
    }

    private static InputStream chunked(byte[] bytes, IntSupplier size) {
        return new FilterInputStream(new ByteArrayInputStream(bytes)) {
            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return super.read(b, off, Math.min(len, size.getAsInt()));
            }

            @Override
            public int available() {
                return 0;  // as a socket's stream may say: nothing can be read without blocking
            }
        };
    }

    /** Asserts equality record by record, value by value: classes, array contents, property order. */
    public static void assertSubgraph(Subgraph expected, Subgraph actual) {
        assertEquals(expected.header(), actual.header());
        assertEquals(List.copyOf(expected.nodes().keySet()), List.copyOf(actual.nodes().keySet()), "node order");
        assertEquals(List.copyOf(expected.relationships().keySet()), List.copyOf(actual.relationships().keySet()));
        for (ExportNode e : expected.nodes().values()) {
            ExportNode a = actual.nodes().get(e.id());
            assertEquals(e.labels(), a.labels(), e.id());
            assertProperties(e.id(), e.properties(), a.properties());
            assertEquals(e, a);
            assertEquals(e.hashCode(), a.hashCode());
        }
        for (ExportRelationship e : expected.relationships().values()) {
            ExportRelationship a = actual.relationships().get(e.id());
            assertEquals(e.type(), a.type());
            assertEquals(e.start(), a.start());
            assertEquals(e.end(), a.end());
            assertProperties(e.id(), e.properties(), a.properties());
            assertEquals(e, a);
        }
        assertEquals(expected.end(), actual.end());
        assertEquals(expected.columns(), actual.columns(), "columns");
        assertEquals(expected.rows().size(), actual.rows().size(), "rows");
        for (int i = 0; i < expected.rows().size(); i++) {
            assertRowValue("row " + i, expected.rows().get(i).values(), actual.rows().get(i).values());
        }
        assertEquals(expected, actual);
        assertEquals(expected.hashCode(), actual.hashCode());
    }

    /** Row values: null, classes, list order, map key order, arrays by content, all the way down. */
    static void assertRowValue(String where, Object expected, Object actual) {
        if (expected == null) {
            assertEquals(null, actual, where);
        } else if (expected instanceof List<?> e) {
            List<?> a = assertInstanceOf(List.class, actual, where);
            assertEquals(e.size(), a.size(), where + ": size");
            for (int i = 0; i < e.size(); i++) {
                assertRowValue(where + "[" + i + "]", e.get(i), a.get(i));
            }
        } else if (expected instanceof Map<?, ?> e) {
            Map<?, ?> a = assertInstanceOf(Map.class, actual, where);
            assertEquals(List.copyOf(e.keySet()), List.copyOf(a.keySet()), where + ": keys in order");
            for (Map.Entry<?, ?> entry : e.entrySet()) {
                assertRowValue(where + "." + entry.getKey(), entry.getValue(), a.get(entry.getKey()));
            }
        } else {
            assertEquals(expected.getClass(), actual == null ? null : actual.getClass(), where);
            assertTrue(Objects.deepEquals(expected, actual), () -> where + ": expected "
                    + Arrays.deepToString(new Object[] {expected}) + " but was "
                    + Arrays.deepToString(new Object[] {actual}));
        }
    }

    static void assertProperties(String id, Map<String, Object> expected, Map<String, Object> actual) {
        assertEquals(List.copyOf(expected.keySet()), List.copyOf(actual.keySet()), id + ": property order");
        for (Map.Entry<String, Object> e : expected.entrySet()) {
            Object a = actual.get(e.getKey());
            String where = id + "." + e.getKey();
            assertEquals(e.getValue().getClass(), a.getClass(), where);
            assertTrue(Objects.deepEquals(e.getValue(), a), () -> where + ": expected "
                    + Arrays.deepToString(new Object[] {e.getValue()}) + " but was "
                    + Arrays.deepToString(new Object[] {a}));
        }
    }
}
