package org.subgraphexport.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.subgraphexport.server.ExportHttp.enc;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Transaction;
import org.subgraphexport.client.Delta;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.Subgraph;
import org.subgraphexport.config.ExportSettings;
import org.subgraphexport.read.ChangeJournal;

/**
 * The change journal overflowing: with {@code delta_journal_size} of 1,000 bytes (a one-property transaction costs
 * 72), a delta since a state the journal dropped answers 410 {@code Export.DeltaUnavailable} before streaming, a delta
 * since a state it still holds answers 200, and the Java client's refresh falls back to the whole export by itself.
 */
class DeltaJournalOverflowTest {
    @RegisterExtension
    static final InProcessNeo4j neo4j = InProcessNeo4j.withExtension().with(ExportSettings.DELTA_JOURNAL_SIZE, 1000L);

    @Test
    void aStateTheJournalDroppedIsGoneAndTheClientReadsTheWholeExport() throws IOException {
        String root;
        String child;
        try (Transaction tx = neo4j.defaultDatabaseService().beginTx()) {
            Node r = tx.createNode(Label.label("Object"));
            Node c = tx.createNode(Label.label("Object"));
            r.createRelationshipTo(c, FixtureGraph.CHILDREN);
            root = r.getElementId();
            child = c.getElementId();
            tx.commit();
        }
        ExportHttp http = new ExportHttp(neo4j.httpURI());
        String query = "root=" + enc(root);
        HttpClient client = HttpClient.newHttpClient();
        URI export = neo4j.httpURI().resolve("/extension/bson/traverse?" + query);
        Subgraph old = Delta.refresh(client, export, null);  // the first request starts the journal
        for (int i = 0; i < 30; i++) {  // 30 * 72 bytes: the journal keeps the last 13
            set(child, i);
        }
        Subgraph recent = Delta.refresh(client, export, null);
        set(child, 100);

        HttpResponse<byte[]> gone = http.get("bson/traverse?" + query + "&since=" + enc(old.header().state()));
        assertEquals(410, gone.statusCode(), () -> new String(gone.body(), StandardCharsets.UTF_8));
        String body = new String(gone.body(), StandardCharsets.UTF_8);
        assertTrue(body.contains(ChangeJournal.UNAVAILABLE), body);
        assertTrue(body.contains("server.subgraph_export.delta_journal_size"), body);
        assertEquals(recent.header().state().replaceAll(":\\d+$", ""),
                gone.headers().firstValue(ExportStates.HEADER).orElseThrow().replaceAll(":\\d+$", ""));

        HttpResponse<byte[]> ok = http.get("bson/traverse?" + query + "&since=" + enc(recent.header().state()));
        assertEquals(200, ok.statusCode());
        try (ExportReader reader = ExportReader.open(new ByteArrayInputStream(ok.body()))) {
            Subgraph applied = Delta.apply(recent, reader);
            assertEquals(100L, applied.nodes().get(child).properties().get("n"));
        }

        Subgraph refreshed = old.refresh(client, export);  // 410, then the whole export
        assertEquals(DeltaTest.canon(Delta.refresh(client, export, null)), DeltaTest.canon(refreshed));
        assertEquals(100L, refreshed.nodes().get(child).properties().get("n"));
    }

    private static void set(String node, long n) {
        try (Transaction tx = neo4j.defaultDatabaseService().beginTx()) {
            tx.getNodeByElementId(node).setProperty("n", n);
            tx.commit();
        }
    }
}
