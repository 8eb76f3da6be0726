package org.subgraphexport.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.subgraphexport.client.Streams.assertSubgraph;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.subgraphexport.encode.FixtureStream;
import org.subgraphexport.encode.RowsFixture;
import org.subgraphexport.wire.Format;

/**
 * The streaming API ({@link ExportParser}) against the record API ({@link ExportReader}): every golden file and every
 * round-trip fixture decodes to the same values through both (a differential test; {@link Streams#decode} runs both
 * and {@link StreamedReader} checks the streaming contract), and what only the streaming API has: handler exceptions,
 * ids without a number, JSON fields out of the writer's order.
 */
class StreamingApiTest {
    private static final Path GOLDEN = Path.of("src", "test", "resources", "golden");

    @ParameterizedTest
    @ClientFormats
    void goldenFilesDecodeToTheSameValuesThroughBothApis(Format format) throws IOException {
        byte[] fixture = Files.readAllBytes(GOLDEN.resolve("fixture." + format.pathSegment()));
        assertSubgraph(FixtureStream.compact().expected(), Streams.decode(format, fixture));
        assertSubgraph(FixtureStream.compact().expected(), Streams.decodeTiny(format, fixture));
        byte[] rows = Files.readAllBytes(GOLDEN.resolve("rows." + format.pathSegment()));
        assertSubgraph(RowsFixture.standard().expected(), Streams.decode(format, rows));
        assertSubgraph(RowsFixture.standard().expected(), Streams.decodeTiny(format, rows));
    }

    @ParameterizedTest
    @ClientFormats
    void roundTripFixturesDecodeToTheSameValuesThroughBothApis(Format format) throws IOException {
        for (FixtureStream f : List.of(FixtureStream.small(), FixtureStream.compact(), FixtureStream.full())) {
            assertSubgraph(f.expected(), Streams.decode(format, f.bytes(format)));
        }
    }

    @ParameterizedTest
    @ClientFormats
    void primitivesArriveUnboxedAndIdsAsPrefixAndNumber(Format format) throws IOException {
        List<String> calls = new ArrayList<>();
        ExportHandler handler = new ExportHandler() {
            @Override
            public void node(ElementId id) {
                calls.add("node " + id.prefix() + "|" + id.number());
            }

            @Override
            public void property(String key) {
                calls.add(key);
            }

            @Override
            public void longValue(long value) {
                calls.add("long " + value);
            }

            @Override
            public void booleanValue(boolean value) {
                calls.add("boolean " + value);
            }

            @Override
            public void objectValue(Object value) {
                calls.add("object " + value.getClass().getSimpleName());
            }
        };
        try (ExportParser parser = ExportParser.open(format,
                new ByteArrayInputStream(FixtureStream.compact().bytes(format)))) {
            assertEquals(format, parser.format());
            assertEquals(ExportParser.Kind.NODE, parser.next(handler));
        }
        // the root node of the fixture, its first properties: name, bool, boolFalse, byte, short, int, ..., long
        assertEquals(List.of("node " + FixtureStream.NODE_PREFIX + "|0", "name", "object String", "bool",
                "boolean true", "boolFalse", "boolean false", "byte", "object Byte", "short", "object Short", "int",
                "object Integer", "intZero", "object Integer", "long", "long 9223372036854775807"), calls.subList(0, 17));
    }

    @ParameterizedTest
    @ClientFormats
    void aHandlersExceptionPassesUnchangedAndLeavesTheParserUnusable(Format format) throws IOException {
        IllegalStateException mine = new IllegalStateException("the handler's own");
        try (ExportParser parser = ExportParser.open(format,
                new ByteArrayInputStream(FixtureStream.compact().bytes(format)))) {
            IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> parser.next(value -> {
                throw mine;
            }));
            assertSame(mine, thrown);
            IllegalStateException after = assertThrows(IllegalStateException.class, () -> parser.next(v -> { }));
            assertSame(mine, after.getCause());
        }
    }

    @Test
    void jsonFieldsInAnotherOrderArriveInTheWritersOrder() throws IOException {
        String json = "[{\"record\":\"header\",\"version\":1,\"database\":\"d\",\"root\":\"\"},"
                + "{\"record\":\"node\",\"properties\":{\"b\":{\"int\":2},\"a\":1},\"labels\":[\"L\"],\"id\":\"n\"},"
                + "{\"record\":\"node\",\"id\":\"4:x:7\",\"properties\":{\"c\":true},\"labels\":[]},"
                + "{\"record\":\"relationship\",\"properties\":{\"w\":1.5},\"end\":\"4:x:7\",\"type\":\"T\","
                + "\"start\":\"n\",\"id\":\"5:x:-3\"},"
                + "{\"record\":\"end\",\"nodes\":2,\"relationships\":1,\"truncated\":false}]";
        List<String> calls = new ArrayList<>();
        ExportHandler handler = new ExportHandler() {
            @Override
            public void node(ElementId id) {
                calls.add("node " + id + " " + id.hasNumber() + " " + id.prefix() + "|" + id.number());
            }

            @Override
            public void label(String label) {
                calls.add("label " + label);
            }

            @Override
            public void relationship(ElementId id, String type, ElementId start, ElementId end) {
                calls.add("relationship " + id.prefix() + "|" + id.number() + " " + type + " " + start + " " + end);
            }

            @Override
            public void property(String key) {
                calls.add(key);
            }

            @Override
            public void intValue(int value) {
                calls.add("int " + value);
            }

            @Override
            public void longValue(long value) {
                calls.add("long " + value);
            }

            @Override
            public void doubleValue(double value) {
                calls.add("double " + value);
            }

            @Override
            public void end(long nodes, long relationships, boolean truncated, long rows) {
                calls.add("end " + nodes + " " + relationships);
            }

            @Override
            public void objectValue(Object value) {
                calls.add("object " + value);
            }
        };
        try (ExportParser parser = ExportParser.open(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)))) {
            List<ExportParser.Kind> kinds = new ArrayList<>();
            for (ExportParser.Kind k; (k = parser.next(handler)) != null; ) {
                kinds.add(k);
            }
            assertEquals(List.of(ExportParser.Kind.NODE, ExportParser.Kind.NODE, ExportParser.Kind.RELATIONSHIP,
                    ExportParser.Kind.END), kinds);
            assertNull(parser.next(handler));
        }
        assertEquals(List.of("node n false n|0", "label L", "b", "int 2", "a", "long 1",
                "node 4:x:7 true 4:x:|7", "c", "object true",
                "relationship 5:x:|-3 T n 4:x:7", "w", "double 1.5", "end 2 1"), calls);
        // and the record API builds the same records from the same calls
        Subgraph s = Streams.decode(Format.JSON, json.getBytes(StandardCharsets.UTF_8));
        assertEquals(List.of("n", "4:x:7"), List.copyOf(s.nodes().keySet()));
        assertEquals(List.of("b", "a"), List.copyOf(s.nodes().get("n").properties().keySet()));
    }

    @Test
    void aFieldTwiceInOneRecordIsCorrupt() {
        String json = "[{\"record\":\"header\",\"version\":1,\"database\":\"d\",\"root\":\"\"},"
                + "{\"record\":\"node\",\"id\":\"n\",\"labels\":[],\"properties\":{},\"id\":\"m\"},"
                + "{\"record\":\"end\",\"nodes\":1,\"relationships\":0,\"truncated\":false}]";
        CorruptStreamException e = assertThrows(CorruptStreamException.class,
                () -> Streams.decode(Format.JSON, json.getBytes(StandardCharsets.UTF_8)));
        assertTrue(e.getMessage().endsWith("field 'id' twice in one record"), e.getMessage());
        assertFalse(e.getMessage().isEmpty());
    }
}
