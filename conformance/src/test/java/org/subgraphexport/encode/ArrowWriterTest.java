package org.subgraphexport.encode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.ValueSink.ArrayKind;

/**
 * The {@code arrow} writer's own cases, pinned as golden files that {@code python/tests/test_golden.py} reads with
 * pyarrow's IPC reader (the oracle: the Java client does not decode arrow) and checks value by value:
 * {@code arrow-fallback.arrow} (a key whose type changes, values beyond the Arrow types' range, a key and a label
 * first seen after the first batch) and {@code arrow-error.arrow} (an error in the middle of a node). Regenerate
 * with {@code -Dgolden.update=arrow}, as {@link GoldenFilesTest} says.
 */
class ArrowWriterTest {
    private static final Path DIR = Path.of("src", "test", "resources", "golden");
    /** Rows per batch in these streams, and nodes in the fallback stream: more than one batch. */
    static final int BATCH = 8, NODES = BATCH + 2;

    @Test
    void fallbackStreamMatchesItsGoldenFile() throws IOException {
        compare("arrow-fallback", fallbackStream());
    }

    /**
     * docs/wire-format.md section 5's delta example in arrow (pinned as {@code arrow-delta.arrow}, read by pyarrow in
     * python/tests/test_golden.py): {@code subgraph.since} in the schema metadata, the groups {@code left:node} and
     * {@code left:relationship} as the union's children 2 and 3.
     */
    @Test
    void deltaStreamMatchesItsGoldenFile() throws IOException {
        compare("arrow-delta", WorkedExampleTest.delta(Format.ARROW));
    }

    @Test
    void errorStreamMatchesItsGoldenFile() throws IOException {
        compare("arrow-error", errorStream());
    }

    @Test
    void messagesAreFramedAndTheStreamEndsWithTheEndOfStreamMarker() throws IOException {
        byte[] b = fallbackStream();
        int messages = 0;
        int p = 0;
        while (true) {
            assertEquals(-1, int32le(b, p), "continuation marker at " + p);
            int metadata = int32le(b, p + 4);
            p += 8;
            if (metadata == 0) {
                break;
            }
            assertEquals(0, metadata % 8, "metadata padded to 8");
            long body = bodyLength(b, p);
            p += metadata + (int) body;
            assertEquals(0, p % 8);
            messages++;
        }
        assertEquals(b.length, p, "nothing after the end-of-stream marker");
        // schema, 2 dictionaries, batch 1, deltas of the labels and the types, batch 2, the closing batch
        assertEquals(8, messages);
    }

    @Test
    void rowsAreRefusedAndMisplacedCallsThrowBeforeWriting() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = Encoders.open(Format.ARROW, out);
        assertThrows(IllegalStateException.class, () -> w.columns(new String[] {"c"}));
        w.header(FixtureStream.HEADER, new LzfChunkTest.SimpleTokens());
        assertThrows(UnsupportedOperationException.class, () -> w.columns(new String[] {"c"}));
        assertThrows(IllegalStateException.class, w::beginRow);
        assertThrows(IllegalStateException.class, w::writeNull);
        assertThrows(IllegalStateException.class, () -> w.beginList(1));
        w.beginNode(1, new int[0], 0);
        assertThrows(IllegalStateException.class, () -> w.writeLong(1));  // no property()
        w.property(1);
        w.writeLong(1);
        assertThrows(IllegalStateException.class, () -> w.endRelationship());
        w.endNode();
        assertEquals(0, out.size(), "the schema waits for the first batch");
        w.end(1, 0, false);
        w.finish();
        byte[] b = out.toByteArray();
        assertArrayEquals(new byte[] {-1, -1, -1, -1, 0, 0, 0, 0}, Arrays.copyOfRange(b, b.length - 8, b.length));
    }

    /**
     * NODES nodes with label 0; key 1 a long, a string at node 5 (a second column), a double at node 8 (a type first
     * seen after the schema: fallback); key 2 dates and date-times out of range; key 3 only in the second batch; the
     * last node also has label 9 (a label set first seen after the schema: the catch-all group); relationships
     * 0 -> 1 of type 0 (the catch-all group) with a date-time array, one out of range.
     */
    static byte[] fallbackStream() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = ArrowGraphWriter.arrow(out, BATCH);
        w.header(FixtureStream.HEADER, new LzfChunkTest.SimpleTokens());
        for (int i = 0; i < NODES; i++) {
            boolean late = i >= BATCH;
            boolean lastNode = i == NODES - 1;
            w.beginNode(i, lastNode ? new int[] {0, 9} : new int[] {0}, lastNode ? 2 : 1);
            w.property(1);
            if (i == 5) {
                w.writeString("five");                                    // key1: another type -> its own column
            } else if (i == BATCH) {
                w.writeDouble(i + 0.5);                                   // after the schema -> fallback
            } else {
                w.writeLong(i);
            }
            if (i < 4) {
                w.property(2);
                switch (i) {
                    case 0 -> w.writeDate(LocalDate.of(2024, 2, 29));     // key2: date column
                    case 1 -> w.writeDate(LocalDate.MAX);                 // beyond date32 -> fallback
                    case 2 -> w.writeDate(LocalDate.of(-5000, 1, 1));     // fits date32
                    default -> w.writeLocalDateTime(LocalDateTime.of(2300, 1, 1, 0, 0));  // beyond timestamp[ns]
                }
            }
            if (late) {
                w.property(3);                                            // key3: after the schema -> fallback
                w.writeDouble(0.5);
            }
            w.endNode();
        }
        for (int i = 0; i < 2; i++) {
            w.beginRelationship(i, 0, 0, 1);
            w.property(4);
            w.beginArray(2, ArrayKind.DATE_TIME);
            w.writeDateTime(ZonedDateTime.of(2020, 1, 1, 12, 0, 0, 1, ZoneId.of("Europe/Berlin")));
            w.writeDateTime(i == 0 ? ZonedDateTime.of(2021, 1, 1, 0, 0, 0, 0, ZoneId.of("Z"))
                    : ZonedDateTime.of(1500, 1, 1, 0, 0, 0, 0, ZoneId.of("Z")));  // out of range: the whole array
            w.endArray();
            w.endRelationship();
        }
        w.end(NODES, 2, true, FixtureStream.STATE);
        w.finish();
        return out.toByteArray();
    }

    /** Two nodes, then an error while the third node's second property is written. */
    static byte[] errorStream() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = Encoders.open(Format.ARROW, out);
        w.header(FixtureStream.HEADER, new LzfChunkTest.SimpleTokens());
        for (int i = 0; i < 2; i++) {
            w.beginNode(i, new int[] {0}, 1);
            w.property(1);
            w.writeString("n" + i);
            w.endNode();
        }
        w.beginNode(2, new int[] {1}, 1);
        w.property(1);
        w.writeString("dropped");
        w.property(2);
        w.beginArray(3, ArrayKind.LONG);
        w.writeLong(1);
        w.error("Neo.TransientError.Transaction.Terminated", "The transaction has been terminated.");
        w.finish();
        return out.toByteArray();
    }

    private static void compare(String name, byte[] actual) throws IOException {
        Path file = DIR.resolve(name + ".arrow");
        String update = System.getProperty("golden.update", "false");
        if (update.equals("true") || update.equals("arrow")) {
            Files.write(file, actual);
        }
        assertTrue(Files.exists(file), file + " missing; generate it with -Dgolden.update=arrow");
        assertArrayEquals(Files.readAllBytes(file), actual, "differs from " + file);
    }

    private static int int32le(byte[] b, int p) {
        return b[p] & 0xFF | (b[p + 1] & 0xFF) << 8 | (b[p + 2] & 0xFF) << 16 | b[p + 3] << 24;
    }

    /** The Message's bodyLength (slot 3), read through its vtable. */
    private static long bodyLength(byte[] b, int fb) {
        int table = fb + int32le(b, fb);
        int vtable = table - int32le(b, table);
        int field = (b[vtable + 4 + 2 * 3] & 0xFF) | (b[vtable + 5 + 2 * 3] & 0xFF) << 8;
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = v << 8 | (b[table + field + i] & 0xFF);
        }
        return v;
    }
}
