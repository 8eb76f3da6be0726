package org.subgraphexport.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.subgraphexport.encode.Encoders;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Header;

/**
 * {@link Delta#apply}: a delta stream's nodes and relationships put into a copy of the export, its left ids removed,
 * the result's header and end at the delta's state; and each refusal with its message (not a delta, another base
 * state, a partition as base, an id the export lacks, a relationship left without its end node).
 */
class DeltaApplyTest {
    @FunctionalInterface
    private interface Body {
        void write(GraphWriter w) throws IOException;
    }

    private static byte[] stream(Header header, Body body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            GraphWriter w = Encoders.open(Format.KRYO, out);
            w.header(header, RoundTripTest.names());
            body.write(w);
            w.finish();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static void node(GraphWriter w, long id, long value) throws IOException {
        w.beginNode(id, new int[0], 0);
        w.property(0);
        w.writeLong(value);
        w.endNode();
    }

    private static void rel(GraphWriter w, long id, long start, long end) throws IOException {
        w.beginRelationship(id, 0, start, end);
        w.endRelationship();
    }

    /** Nodes 1, 2, 3 (k0 = 10 times the id), relationships 10: 1 -> 2 and 11: 2 -> 3, at state s1. */
    private static Subgraph base() throws IOException {
        return Streams.decode(Format.KRYO, stream(new Header("db", "n:1", "n:", "r:", "s1", 0, 1), w -> {
            node(w, 1, 10);
            node(w, 2, 20);
            node(w, 3, 30);
            rel(w, 10, 1, 2);
            rel(w, 11, 2, 3);
            w.end(3, 2, false, "s1");
        }));
    }

    private static Subgraph apply(Subgraph base, String since, Body body) throws IOException {
        byte[] delta = stream(new Header("db", "n:1", "n:", "r:", "s2", 0, 1, since), body);
        try (ExportReader reader = ExportReader.open(Format.KRYO, new ByteArrayInputStream(delta))) {
            return Delta.apply(base, reader);
        }
    }

    @Test
    void aDeltaPutsRemovesAndMovesToItsState() throws IOException {
        Subgraph result = apply(base(), "s1", w -> {
            node(w, 2, 21);          // changed
            node(w, 4, 40);          // new
            w.leftRelationship(11);
            w.leftNode(3);
            rel(w, 12, 4, 1);
            w.end(2, 1, true, "s2");
        });
        assertEquals(new ExportHeader(2, "db", "n:1", "s2", 0, 1), result.header());
        assertEquals(List.of("n:1", "n:2", "n:4"), List.copyOf(result.nodes().keySet()));
        assertEquals(Map.of("k0", 21L), result.nodes().get("n:2").properties());
        assertEquals(Map.of("k0", 40L), result.nodes().get("n:4").properties());
        assertEquals(List.of("r:10", "r:12"), List.copyOf(result.relationships().keySet()));
        assertEquals(new ExportEnd(3, 2, true, 0, "s2"), result.end());
    }

    @Test
    void refusals() throws IOException {
        Subgraph base = base();
        byte[] whole = stream(new Header("db", "n:1", "n:", "r:", "s2", 0, 1), w -> w.end(0, 0, false, "s2"));
        try (ExportReader reader = ExportReader.open(Format.KRYO, new ByteArrayInputStream(whole))) {
            assertEquals("not a delta stream (its header has no since)",
                    assertThrows(IllegalArgumentException.class, () -> Delta.apply(base, reader)).getMessage());
        }
        assertEquals("a delta since s0 does not apply to an export of state s1", assertThrows(
                IllegalArgumentException.class, () -> apply(base, "s0", w -> w.end(0, 0, false, "s2"))).getMessage());
        Subgraph partition = new Subgraph(new ExportHeader(2, "db", "n:1", "s1", 0, 2), base.nodes(),
                base.relationships(), base.end());
        assertEquals("deltas apply to a whole graph export", assertThrows(IllegalArgumentException.class,
                () -> apply(partition, "s1", w -> w.end(0, 0, false, "s2"))).getMessage());
        assertEquals("the delta removes node n:9, which the export does not hold", assertThrows(
                CorruptStreamException.class, () -> apply(base, "s1", w -> {
                    w.leftNode(9);
                    w.end(0, 0, false, "s2");
                })).getMessage());
        assertEquals("the delta removes relationship r:9, which the export does not hold", assertThrows(
                CorruptStreamException.class, () -> apply(base, "s1", w -> {
                    w.leftRelationship(9);
                    w.end(0, 0, false, "s2");
                })).getMessage());
        assertEquals("after the delta, relationship r:11 lacks its end node n:3", assertThrows(
                CorruptStreamException.class, () -> apply(base, "s1", w -> {
                    w.leftNode(3);
                    w.end(0, 0, false, "s2");
                })).getMessage());
        assertEquals("after the delta, relationship r:10 lacks its end node n:1", assertThrows(
                CorruptStreamException.class, () -> apply(base, "s1", w -> {
                    w.leftRelationship(11);
                    w.leftNode(1);
                    w.end(0, 0, false, "s2");
                })).getMessage());
    }
}
