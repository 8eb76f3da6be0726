package org.subgraphexport.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.subgraphexport.server.ExportHttp.params;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.subgraphexport.client.Subgraph;
import org.subgraphexport.config.ExportSettings;
import org.subgraphexport.wire.Format;

/** The plugin's own settings in force: server maxima for depth, nodes and time. */
class ServerLimitsTest {
    @RegisterExtension
    static final InProcessNeo4j neo4j = InProcessNeo4j.withExtension()
            .with(ExportSettings.MAX_DEPTH, 1)
            .with(ExportSettings.MAX_NODES, 5L)
            .with(ExportSettings.MAX_TIMEOUT, Duration.ofSeconds(10));
    private static FixtureGraph fixture;
    private static ExportHttp http;

    @BeforeAll
    static void start() {
        fixture = FixtureGraph.create(neo4j.defaultDatabaseService());
        http = new ExportHttp(neo4j.httpURI());
    }

    private void assertRejected(String query, String messagePart) {
        HttpResponse<byte[]> response = http.get("kryo/traverse?root=" + ExportHttp.enc(fixture.id("root")) + query);
        String body = new String(response.body(), StandardCharsets.UTF_8);
        assertEquals(400, response.statusCode(), body);
        assertTrue(body.contains(messagePart), body);
    }

    @Test
    void askingForMoreThanTheServerAllowsIsA400NamingTheSetting() {
        assertRejected("&maxDepth=2", "server.subgraph_export.max_depth");
        assertRejected("&limit=6", "server.subgraph_export.max_nodes");
        assertRejected("&timeout=11s", "server.subgraph_export.max_timeout");
    }

    @Test
    void aCutMadeByAServerMaximumIsReportedAsTruncation() throws IOException {
        // maxDepth defaults to the server's 1: root, a, b and a's attached s1; d lies beyond, so: truncated.
        Subgraph capped = http.traverse(Format.KRYO, params("root", fixture.id("root")));
        assertEquals(new HashSet<>(fixture.ids("root", "a", "b", "s1")), capped.nodes().keySet());
        assertTrue(capped.end().truncated());

        // The same depth asked for explicitly is what the caller wanted: not truncated.
        Subgraph asked = http.traverse(Format.KRYO, params("root", fixture.id("root"), "maxDepth", "1"));
        assertEquals(capped.nodes().keySet(), asked.nodes().keySet());
        assertFalse(asked.end().truncated());

        // Depth 1 from d: d's only child is root, and attached data: seq, s2, s3, s4 -> 6 nodes > max 5.
        Subgraph fromD = http.traverse(Format.JSON, params("root", fixture.id("d"), "maxDepth", "1"));
        assertEquals(5, fromD.nodes().size());
        assertTrue(fromD.end().truncated());
    }

    @Test
    void theCypherEndpointStopsAtTheNodeMaximumToo() throws IOException {
        Subgraph g = http.cypher(Format.KRYO, "{\"query\": \"MATCH (n) RETURN n ORDER BY elementId(n)\"}");
        assertEquals(5, g.nodes().size());
        assertTrue(g.end().truncated());
    }
}
