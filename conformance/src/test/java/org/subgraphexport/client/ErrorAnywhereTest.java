package org.subgraphexport.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.subgraphexport.encode.Encoders;
import org.subgraphexport.encode.FixtureStream;
import org.subgraphexport.encode.RowsFixture;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.TokenNames;
import org.subgraphexport.wire.ValueSink.ArrayKind;
import org.subgraphexport.wire.Wire;

/**
 * {@link GraphWriter#error} at any point after the header: the fixture streams' writer calls are recorded, and for
 * every position in them (after beginNode, after property() before its value, between array elements, inside a
 * vector's record, inside rows, lists and maps, between records) a fresh writer replays the calls before it, then
 * writes an error. The decoder must return exactly the complete records before the failed one, then raise
 * {@link ExportFailedException} with the code and message (never {@link CorruptStreamException}); JSON must be
 * well-formed and end with the error record.
 */
class ErrorAnywhereTest {
    private static final String CODE = "Neo.TransientError.Transaction.Terminated";
    private static final Set<String> RECORD_ENDS = Set.of("endNode", "endRelationship", "endRow", "columns");
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    static Stream<Arguments> fixtures() {
        List<Arguments> args = new ArrayList<>();
        for (Format f : Format.values()) {
            if (!f.clientDecodes()) {
                continue;  // arrow: python/tests read its error batches
            }
            args.add(Arguments.of(f, "compact"));
            args.add(Arguments.of(f, "rows"));
            args.add(Arguments.of(f, "full"));  // records larger than every buffer
        }
        return args.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("fixtures")
    void errorAtEveryCallPosition(Format format, String fixture) throws IOException {
        List<Call> calls = record(fixture);
        List<ExportRecord> all = allRecords(format, calls);
        int completed = 0;
        for (int cut = 1; cut <= calls.size(); cut++) {
            if (RECORD_ENDS.contains(calls.get(cut - 1).method().getName())) {
                completed++;
            }
            String message = "failed after call " + cut + " (" + calls.get(cut - 1).method().getName() + ") ✗";
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            GraphWriter w = Encoders.open(format, out);
            for (Call c : calls.subList(0, cut)) {
                c.replay(w);
            }
            w.error(CODE, message);
            w.finish();
            byte[] bytes = out.toByteArray();
            String where = format + " " + fixture + " cut " + cut + " of " + calls.size();

            List<ExportRecord> records = new ArrayList<>();
            try (ExportReader reader = ExportReader.open(format, new ByteArrayInputStream(bytes))) {
                ExportFailedException e = assertThrows(ExportFailedException.class, () -> {
                    for (ExportRecord r; (r = reader.next()) != null; ) {
                        records.add(r);
                    }
                }, where);
                assertEquals(CODE, e.code(), where);
                assertEquals(message, e.getMessage(), where);
            }
            assertEquals(all.subList(0, completed), records, where);
            if (format == Format.JSON) {
                JsonNode tree = JSON.readTree(bytes);  // well-formed, nothing after the array
                assertEquals(completed + 2, tree.size(), where);
                JsonNode last = tree.get(tree.size() - 1);
                assertEquals("error", last.get("record").asText(), where);
                assertEquals(CODE, last.get("code").asText(), where);
            }
        }
    }

    @ParameterizedTest
    @ClientFormats
    void errorAfterACallThatThrew(Format format) throws IOException {
        FixtureStream fixture = FixtureStream.small();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = Encoders.open(format, out);
        fixture.write(w, fixture.tokens());
        w.beginNode(7, new int[0], 0);
        w.property(5);
        w.beginArray(3, ArrayKind.INT);
        w.writeInt(1);
        assertThrows(IllegalStateException.class, () -> w.writeLong(2));
        w.error(CODE, "misuse");
        w.finish();
        Subgraph expected = fixture.expected();
        List<ExportRecord> records = readUntilFailure(format, out.toByteArray(), "misuse");
        assertEquals(expected.nodes().size() + expected.relationships().size(), records.size());
    }

    /** A token lookup that fails (say, the transaction was terminated) inside a record. */
    @ParameterizedTest
    @ClientFormats
    void errorAfterATokenLookupFailed(Format format) throws IOException {
        TokenNames failing = new TokenNames() {
            @Override
            public String label(int id) {
                if (id == 9) {
                    throw new IllegalStateException("terminated");
                }
                return "L" + id;
            }

            @Override
            public String relationshipType(int id) {
                return "T" + id;
            }

            @Override
            public String propertyKey(int id) {
                return "k" + id;
            }
        };
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = Encoders.open(format, out);
        w.header(FixtureStream.HEADER, failing);
        w.beginNode(1, new int[] {1}, 1);
        w.property(1);
        w.writeString("kept");
        w.endNode();
        assertThrows(IllegalStateException.class, () -> w.beginNode(2, new int[] {2, 9}, 2));
        w.error(CODE, "terminated");
        w.finish();
        List<ExportRecord> records = readUntilFailure(format, out.toByteArray(), "terminated");
        assertEquals(List.of(new ExportNode(FixtureStream.NODE_PREFIX + 1, List.of("L1"),
                java.util.Map.of("k1", "kept"))), records);
    }

    @ParameterizedTest
    @ClientFormats
    void errorBeforeTheHeaderIsAProgrammingError(Format format) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = Encoders.open(format, out);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> w.error(CODE, "too early"));
        assertTrue(e.getMessage().contains("before header()"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> w.end(0, 0, false));
        assertEquals(0, out.size());
    }

    @ParameterizedTest
    @ClientFormats
    void nothingAfterTheClosingRecord(Format format) throws IOException {
        GraphWriter w = Encoders.open(format, new ByteArrayOutputStream());
        w.header(FixtureStream.HEADER, RoundTripTest.names());
        w.end(0, 0, false);
        assertThrows(IllegalStateException.class, () -> w.error(CODE, "late"));
        assertThrows(IllegalStateException.class, () -> w.end(0, 0, false));
        GraphWriter failed = Encoders.open(format, new ByteArrayOutputStream());
        failed.header(FixtureStream.HEADER, RoundTripTest.names());
        failed.error(CODE, "first");
        assertThrows(IllegalStateException.class, () -> failed.error(CODE, "second"));
        assertThrows(IllegalStateException.class, () -> failed.end(0, 0, false));
    }

    /** The target never sees part of a record: what error() drops was never written. */
    @ParameterizedTest
    @ClientFormats
    void aRecordReachesTheTargetOnlyWhenComplete(Format format) throws IOException {
        CountingStream target = new CountingStream();
        GraphWriter w = Encoders.open(format, target);
        w.header(FixtureStream.HEADER, RoundTripTest.names());
        for (int i = 0; i < 3; i++) {
            long before = target.bytes;
            w.beginNode(i, new int[0], 0);
            w.property(0);
            w.writeString("x".repeat(300_000));       // several times every buffer
            w.property(1);
            w.writeBytes(new byte[200_000]);
            // kryo-lzf compresses on its own thread: complete records only are handed to it, but their
            // chunks reach the target later; the decode at the end checks the content
            if (format != Format.KRYO_LZF) {
                assertEquals(before, target.bytes, "node " + i + " written in part");
            }
            w.endNode();
            if (format != Format.KRYO_LZF) {
                assertTrue(target.bytes > before, "a complete record beyond 64 KiB goes out at its end");
            }
        }
        w.beginNode(3, new int[0], 0);
        w.property(0);
        w.writeString("y".repeat(300_000));
        w.error(CODE, "dropped");
        w.finish();
        List<ExportRecord> records = readUntilFailure(format, target.out.toByteArray(), "dropped");
        assertEquals(3, records.size());
    }

    @Test
    void kryoErrorReplacesTheUnfinishedRecordByteForByte() throws IOException {
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        GraphWriter a = Encoders.open(Format.KRYO, expected);
        a.header(FixtureStream.HEADER, RoundTripTest.names());
        a.error(CODE, "m");
        a.finish();
        ByteArrayOutputStream actual = new ByteArrayOutputStream();
        GraphWriter b = Encoders.open(Format.KRYO, actual);
        b.header(FixtureStream.HEADER, RoundTripTest.names());
        b.beginNode(1, new int[] {0}, 1);
        b.property(0);
        b.error(CODE, "m");
        b.finish();
        assertEquals(java.util.Arrays.toString(expected.toByteArray()), java.util.Arrays.toString(actual.toByteArray()));
    }

    // ---- helpers ------------------------------------------------------------------------------------------

    private static List<ExportRecord> readUntilFailure(Format format, byte[] bytes, String message) throws IOException {
        List<ExportRecord> records = new ArrayList<>();
        try (ExportReader reader = ExportReader.open(format, new ByteArrayInputStream(bytes))) {
            ExportFailedException e = assertThrows(ExportFailedException.class, () -> {
                for (ExportRecord r; (r = reader.next()) != null; ) {
                    records.add(r);
                }
            });
            assertEquals(message, e.getMessage());
        }
        return records;
    }

    /** The complete stream's records after the header, without the end record. */
    private static List<ExportRecord> allRecords(Format format, List<Call> calls) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = Encoders.open(format, out);
        long nodes = 0, rels = 0;
        for (Call c : calls) {
            c.replay(w);
            nodes += c.method().getName().equals("endNode") ? 1 : 0;
            rels += c.method().getName().equals("endRelationship") ? 1 : 0;
        }
        w.end(nodes, rels, false);
        w.finish();
        List<ExportRecord> records = new ArrayList<>();
        try (ExportReader reader = ExportReader.open(format, new ByteArrayInputStream(out.toByteArray()))) {
            for (ExportRecord r; (r = reader.next()) != null; ) {
                records.add(r);
            }
        }
        if (!(records.removeLast() instanceof ExportEnd)) {
            fail("no end record");
        }
        return records;
    }

    private static List<Call> record(String fixture) throws IOException {
        List<Call> calls = new ArrayList<>();
        GraphWriter recorder = (GraphWriter) Proxy.newProxyInstance(GraphWriter.class.getClassLoader(),
                new Class<?>[] {GraphWriter.class}, (proxy, method, args) -> {
                    calls.add(new Call(method, args == null ? new Object[0] : args));
                    return null;
                });
        switch (fixture) {
            case "compact" -> {
                FixtureStream f = FixtureStream.compact();
                f.write(recorder, f.tokens());
            }
            case "full" -> {
                FixtureStream f = FixtureStream.full();
                f.write(recorder, f.tokens());
            }
            case "rows" -> {
                RowsFixture f = RowsFixture.standard();
                f.writeRecords(recorder, f.tokens());
            }
            default -> throw new IllegalArgumentException(fixture);
        }
        assertTrue(calls.size() > 100, fixture + ": " + calls.size() + " calls");
        return calls;
    }

    private record Call(Method method, Object[] args) {
        void replay(GraphWriter w) throws IOException {
            try {
                method.invoke(w, args);
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof IOException io) {
                    throw io;
                }
                throw new IllegalStateException(e.getCause());
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private static final class CountingStream extends OutputStream {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        long bytes;

        @Override
        public void write(int b) {
            out.write(b);
            bytes++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            out.write(b, off, len);
            bytes += len;
        }
    }

    static {
        assertEquals(64 * 1024, Wire.HAND_OVER_BYTES);
    }
}
