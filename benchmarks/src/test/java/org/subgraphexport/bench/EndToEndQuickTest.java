package org.subgraphexport.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The end-to-end runner's quick mode (small graph, one run), so that it never rots: every row must return the same
 * subgraph (same counts, and the same node and relationship ids), and the results must be written. It asserts no
 * timing.
 */
class EndToEndQuickTest {
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void everyRowDecodesTheSameSubgraph(@TempDir Path out) throws Exception {
        EndToEndRunner.Options options = EndToEndRunner.Options.quick(out);
        EndToEndRunner.Table table = EndToEndRunner.run(options, System.out);

        assertEquals(37, table.rows().size(), "rows: bolt, 4 HTTP peers, 8 exports, 3 compressed on loopback, "
                + "5 each at 1 Gbit/s and 100 Mbit/s, arrow bytes, 4 streaming, kryo bytes/cached/304, walk only, "
                + "2 floor");
        assertTrue(table.graph().nodes() > 1000, "a graph with some substance: " + table.graph());
        for (EndToEndRunner.Measured m : table.rows()) {
            assertNull(table.countsProblem(m), m.row().name());
            assertTrue(m.wireBytes() > 0, m.row().name() + " bytes on the wire");
            if (m.first().nodes() >= 0) {
                assertEquals(table.graph().nodes(), m.first().nodes(), m.row().name() + " nodes");
                assertEquals(table.graph().relationships(), m.first().relationships(), m.row().name() + " relationships");
            }
        }
        assertNull(EndToEndRunner.compareIds(table));
        assertEquals(table.graph().nodes(), table.row("walk only").first().nodes(), "walk only: the server's count");
        assertEquals(table.row("traverse kryo").first().bodyBytes(), table.row("traverse kryo bytes").first().bodyBytes());
        assertEquals(table.row("traverse kryo").first().bodyBytes(), table.row("traverse kryo cached").first().bodyBytes());
        assertEquals(0, table.row("traverse kryo 304").first().bodyBytes());
        assertTrue(table.warmup().matches("\\{\"database\":\"neo4j\",\"files\":\\d+,\"pages\":[1-9]\\d*,.*"),
                table.warmup());

        Path md = Results.writeTable(table, out);
        String text = Files.readString(md);
        assertTrue(text.contains("| **traverse kryo** |"), "markdown table");
        assertTrue(text.contains("*traverse kryo bytes*") && text.contains("÷ *walk only*"), "target 2 figure");
        assertTrue(text.contains("- The wire alone (the same bytes from memory") && text.contains("*floor raw bytes*"), "its floor");
        assertTrue(text.contains("LZF ratio, traverse: kryo") && text.contains("LZF ratio, cypher: kryo"), "LZF ratios");
        assertTrue(text.contains("- Page cache warm-up: `POST /extension/warmup?db=neo4j` before the first pass loaded"),
                "warm-up in the setup");
        assertTrue(Files.size(Results.chartPath(out)) > 1000, "chart");

        Scaling.Result scaling = Scaling.run(new EndToEndRunner.Options(120, options.seed(), 1, 0, null, out,
                64L << 20, false, null, 1000, List.of(120), 1, false), System.out);
        Scaling.Point point = scaling.points().get(0);
        assertTrue(point.heapMid() > 0 && point.heapBefore() > 0 && point.heapAfter() > 0, "heap measured");
        assertTrue(Files.readString(Results.writeScaling(scaling, out)).contains("| 120 |"), "scaling table");
    }
}
