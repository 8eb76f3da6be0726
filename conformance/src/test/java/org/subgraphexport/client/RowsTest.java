package org.subgraphexport.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.subgraphexport.client.Streams.assertSubgraph;
import static org.subgraphexport.client.Streams.decode;
import static org.subgraphexport.client.Streams.decodeTiny;
import static org.subgraphexport.encode.RowsFixture.list;
import static org.subgraphexport.encode.RowsFixture.map;

import com.fasterxml.jackson.core.exc.StreamWriteException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.subgraphexport.encode.Encoders;
import org.subgraphexport.encode.RowsFixture;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.ValueSink.ArrayKind;
import org.subgraphexport.wire.Wire;

/**
 * Rows streams (Cypher {@code mode=rows}): every format round-trips the rows fixture record by record, lists and
 * maps nest up to {@link Wire#MAX_NESTING} levels, the writers refuse misuse, and {@link Subgraph#read} checks that
 * references resolve.
 */
class RowsTest {
    private static final RowsFixture FIXTURE = RowsFixture.standard();

    @ParameterizedTest
    @ClientFormats
    void rowsFixtureRoundTrips(Format format) throws IOException {
        byte[] bytes = FIXTURE.bytes(format);
        assertSubgraph(FIXTURE.expected(), decode(format, bytes));
        assertSubgraph(FIXTURE.expected(), decodeTiny(format, bytes));
    }

    @ParameterizedTest
    @ClientFormats
    void recordsComeInStreamOrder(Format format) throws IOException {
        try (ExportReader reader = ExportReader.open(format, new ByteArrayInputStream(FIXTURE.bytes(format)))) {
            assertEquals("", reader.header().root());
            List<ExportRecord> records = new ArrayList<>();
            for (ExportRecord r; (r = reader.next()) != null; ) {
                records.add(r);
            }
            ExportEnd end = assertInstanceOf(ExportEnd.class, records.removeLast());
            assertEquals(new ExportEnd(3, 2, false, 4, RowsFixture.STATE), end);
            assertEquals(FIXTURE.records(), records);
            ExportRow first = (ExportRow) records.get(4);
            assertEquals(RowsFixture.COLUMNS.size(), first.values().size());
            assertNull(first.values().get(5));
            assertThrows(UnsupportedOperationException.class, () -> first.values().set(0, null));
        }
    }

    @ParameterizedTest
    @ClientFormats
    void writingIsDeterministic(Format format) {
        assertArrayEquals(FIXTURE.bytes(format), RowsFixture.standard().bytes(format));
    }

    @ParameterizedTest
    @ClientFormats
    void listsAndMapsNestUpToTheLimit(Format format) throws IOException {
        Object deepest = RowsFixture.deep(Wire.MAX_NESTING);
        Object mixed = 1L;
        for (int i = 0; i < Wire.MAX_NESTING; i++) {
            mixed = i % 2 == 0 ? list(mixed) : map("k", mixed);
        }
        for (Object value : new Object[] {deepest, mixed}) {
            byte[] bytes = oneRow(format, value);
            Subgraph s = decode(format, bytes);
            Streams.assertRowValue("deep", value, s.rows().getFirst().values().getFirst());
        }
    }

    /**
     * On a thread with little stack, the deepest rows decode or fail cleanly, never with a StackOverflowError
     * (whether 128 KiB suffices depends on JIT state: interpreted frames are larger).
     */
    @ParameterizedTest
    @ClientFormats
    void tooLittleStackForTheDeepestRowsFailsCleanly(Format format) throws Exception {
        byte[] bytes = oneRow(format, RowsFixture.deep(Wire.MAX_NESTING));
        Throwable[] thrown = new Throwable[2];
        Thread small = new Thread(null, () -> {
            try {
                decode(format, new ByteArrayInputStream(bytes));  // the record API
            } catch (Throwable t) {
                thrown[0] = t;
            }
            try {
                Streams.decodeStreamed(format, new ByteArrayInputStream(bytes));  // the streaming API
            } catch (Throwable t) {
                thrown[1] = t;
            }
        }, "small stack", 128 * 1024);
        small.start();
        small.join();
        for (Throwable t : thrown) {
            if (t != null) {
                CorruptStreamException e = assertInstanceOf(CorruptStreamException.class, t);
                assertTrue(e.getMessage().contains("thread's stack"), e.getMessage());
            }
        }
    }

    @ParameterizedTest
    @ClientFormats
    void theWriterRefusesDeeperNesting(Format format) throws IOException {
        GraphWriter w = rowsWriter(format, new ByteArrayOutputStream(), 1);
        w.beginRow();
        for (int i = 0; i < Wire.MAX_NESTING; i++) {
            w.beginList(1);
        }
        assertThrows(IllegalStateException.class, () -> w.beginList(1));
        assertThrows(IllegalStateException.class, () -> w.beginMap(0));
    }

    @ParameterizedTest
    @ClientFormats
    void rowOnlyValuesAreRefusedOutsideRows(Format format) throws IOException {
        GraphWriter w = Encoders.open(format, new ByteArrayOutputStream());
        w.header(RowsFixture.HEADER, RowsFixture.standard().tokens());
        assertThrows(IllegalStateException.class, w::writeNull);
        assertThrows(IllegalStateException.class, () -> w.beginList(0));
        assertThrows(IllegalStateException.class, () -> w.beginRow());  // no columns
        w.beginNode(1, new int[] {0}, 1);
        w.property(0);
        assertThrows(IllegalStateException.class, w::writeNull);
        assertThrows(IllegalStateException.class, () -> w.beginMap(1));
        assertThrows(IllegalStateException.class, () -> w.writeNodeRef(1));
        assertThrows(IllegalStateException.class, () -> w.writeRelationshipRef(1));
        assertThrows(IllegalStateException.class, () -> w.writePath(new long[] {1}, new long[0]));
        assertThrows(IllegalStateException.class, () -> w.mapKey("k"));
        w.writeLong(1);
        w.endNode();
        assertThrows(IllegalStateException.class, () -> w.columns(new String[] {"a"}));  // not right after header
    }

    @ParameterizedTest
    @ClientFormats
    void theWriterChecksCounts(Format format) throws IOException {
        GraphWriter w = rowsWriter(format, new ByteArrayOutputStream(), 2);
        assertThrows(IllegalStateException.class, () -> w.columns(new String[] {"again"}));
        w.beginRow();
        w.writeLong(1);
        assertThrows(IllegalStateException.class, w::endRow);            // one value missing
        w.beginList(2);
        w.writeNull();
        assertThrows(IllegalStateException.class, w::endList);           // one element missing
        w.beginMap(1);
        assertMisuse(w::writeNull);                                      // a value without its key
        w.mapKey("k");
        w.beginArray(1, ArrayKind.INT);
        assertThrows(IllegalStateException.class, w::writeNull);         // inside a typed array
        assertThrows(IllegalStateException.class, () -> w.beginList(0));
        w.writeInt(5);
        w.endArray();
        w.endMap();
        w.endList();
        assertThrows(IllegalArgumentException.class, () -> w.writePath(new long[] {1, 2}, new long[0]));
        assertThrows(IllegalStateException.class, () -> w.end(0, 0, false));  // inside a row
        w.endRow();
        w.end(0, 0, false);
        w.finish();
    }

    @ParameterizedTest
    @ClientFormats
    void anEmptyRowsStreamHasColumnsAndZeroRows(Format format) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = Encoders.open(format, out);
        w.header(RowsFixture.HEADER, RowsFixture.standard().tokens());
        w.columns(new String[0]);
        w.beginRow();
        w.endRow();
        w.end(0, 0, true);
        w.finish();
        Subgraph s = decode(format, out.toByteArray());
        assertEquals(List.of(), s.columns());
        assertEquals(List.of(new ExportRow(List.of())), s.rows());
        assertEquals(new ExportEnd(0, 0, true, 1), s.end());
    }

    @ParameterizedTest
    @ClientFormats
    void subgraphRejectsReferencesToRecordsNotYetReceived(Format format) throws IOException {
        for (Object value : new Object[] {RowsFixture.n(5), RowsFixture.r(5), list(map("x", RowsFixture.n(5))),
                RowsFixture.path(new long[] {0, 5}, new long[] {10})}) {
            CorruptStreamException e = assertThrows(CorruptStreamException.class,
                    () -> decode(format, oneRow(format, value)), value.toString());
            assertTrue(e.getMessage().contains(":5"), e.getMessage());
        }
        // a path whose relationship does not connect its neighbours
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = rowsWriter(format, out, 1);
        for (long id : new long[] {0, 1, 2}) {
            w.beginNode(id, new int[0], 0);
            w.endNode();
        }
        w.beginRelationship(10, 0, 0, 1);
        w.endRelationship();
        w.beginRow();
        w.writePath(new long[] {0, 2}, new long[] {10});
        w.endRow();
        w.end(3, 1, false);
        w.finish();
        CorruptStreamException e = assertThrows(CorruptStreamException.class, () -> decode(format, out.toByteArray()));
        assertTrue(e.getMessage().contains("does not connect"), e.getMessage());
    }

    @Test
    void rowEqualityGoesByContent() {
        ExportRow a = new ExportRow(list(new byte[] {1}, list(new int[] {2}), map("k", new String[] {"x"}), null));
        ExportRow b = new ExportRow(list(new byte[] {1}, list(new int[] {2}), map("k", new String[] {"x"}), null));
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertEquals("ExportRow[[1], [[2]], {k=[x]}, null]", a.toString());
        assertNotEquals(a, new ExportRow(list(new byte[] {2}, list(new int[] {2}), map("k", new String[] {"x"}), null)));
        assertThrows(IllegalArgumentException.class, () -> new PathValue(List.of(), List.of()));
    }

    /**
     * Misuse the Kryo writer detects itself ({@link IllegalStateException}) and the Jackson writers leave to
     * Jackson's own structure checks ({@code StreamWriteException}); either way nothing is written.
     */
    private static void assertMisuse(org.junit.jupiter.api.function.Executable call) {
        Throwable t = assertThrows(Exception.class, call);
        assertTrue(t instanceof IllegalStateException || t instanceof StreamWriteException, t.toString());
    }

    /** A rows writer after header and {@code columns} columns. */
    private static GraphWriter rowsWriter(Format format, ByteArrayOutputStream out, int columns) throws IOException {
        GraphWriter w = Encoders.open(format, out);
        w.header(RowsFixture.HEADER, RowsFixture.standard().tokens());
        String[] names = new String[columns];
        for (int i = 0; i < columns; i++) {
            names[i] = "c" + i;
        }
        w.columns(names);
        return w;
    }

    /** A rows stream with nodes 0 and 1, relationship 10 (0 to 1) and one row holding {@code value}. */
    private static byte[] oneRow(Format format, Object value) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = rowsWriter(format, out, 1);
        w.beginNode(0, new int[0], 0);
        w.endNode();
        w.beginNode(1, new int[0], 0);
        w.endNode();
        w.beginRelationship(10, 0, 0, 1);
        w.endRelationship();
        w.beginRow();
        RowsFixture.writeRowValue(w, value);
        w.endRow();
        w.end(2, 1, false);
        w.finish();
        return out.toByteArray();
    }
}
