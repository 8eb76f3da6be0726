package org.subgraphexport.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.Transaction;
import org.subgraphexport.client.ExportFailedException;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.Subgraph;
import org.subgraphexport.config.ExportSettings;
import org.subgraphexport.testkit.DemoGraph;
import org.subgraphexport.wire.Format;

/**
 * What users of other exports complain about: clients that leave (from a separate 50 MB subgraph, far more than
 * the sockets hold), exports over budget, many clients at once, writers during an export (on a demo graph).
 */
class ReliabilityTest {
    private static final int OBJECTS = 3000;
    /** A separate subgraph of 48 MB of string values (~50 MB as JSON or Kryo), for clients that leave. */
    private static final int BULK_NODES = 96;
    private static final int BULK_VALUE_CHARS = 512 * 1024;
    private static final int BULK_RECEIVE_BUFFER = 16 * 1024;
    private static String bulkRoot;
    @RegisterExtension
    static final InProcessNeo4j neo4j = InProcessNeo4j.withExtension()
            .with(GraphDatabaseSettings.transaction_monitor_check_interval, Duration.ofHours(1))
            // thirty-two exports at once, all from this address: above the default bounds (SlowClientsIT)
            .with(ExportSettings.MAX_CONCURRENT, 32)
            .with(ExportSettings.MAX_CONCURRENT_PER_USER, 32);
    private static DemoGraph.Result demo;
    private static URI base;
    private static final HttpClient HTTP = HttpClient.newBuilder().build();

    @BeforeAll
    static void start() {
        demo = DemoGraph.generate(neo4j.defaultDatabaseService(), OBJECTS, DemoGraph.DEFAULT_SEED, done -> {});
        base = neo4j.httpURI().resolve("/extension/");
        try (Transaction tx = neo4j.defaultDatabaseService().beginTx()) {
            Node root = tx.createNode(Label.label("Bulk"));
            char[] value = new char[BULK_VALUE_CHARS];
            for (int i = 0; i < BULK_NODES; i++) {
                Arrays.fill(value, (char) ('a' + i % 26));
                Node child = tx.createNode(Label.label("BulkPart"));
                child.setProperty("text", new String(value));
                root.createRelationshipTo(child, RelationshipType.withName("PROPERTY"));
            }
            bulkRoot = root.getElementId();
            tx.commit();
        }
    }

    private static URI traverse(Format format, String extra) {
        return base.resolve(format.pathSegment() + "/traverse?root=" + ExportHttp.enc(demo.rootElementId()) + extra);
    }

    /** Transactions other than the one asking, as SHOW TRANSACTIONS lists them. */
    private static long otherTransactions() {
        try (Transaction tx = neo4j.defaultDatabaseService().beginTx()) {
            return tx.execute("SHOW TRANSACTIONS YIELD currentQuery RETURN currentQuery").stream()
                    .filter(row -> !String.valueOf(row.get("currentQuery")).contains("SHOW TRANSACTIONS"))
                    .count();
        }
    }

    private static void awaitNoOtherTransactions(String why) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        long others;
        while ((others = otherTransactions()) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(0, others, "transactions left open " + why);
    }

    @Test
    void aClientThatLeavesEndsTheExportAndItsTransaction() throws Exception {
        awaitNoOtherTransactions("before the test");
        int threadsBefore = Thread.activeCount();
        int endedEarlyBefore = endedEarly();
        for (int i = 0; i < 10; i++) {
            Format format = i % 2 == 0 ? Format.JSON : Format.KRYO;
            // A plain socket with a small receive buffer: what the sockets hold is far less than the export (a
            // client with autotuned buffers took all of a 7 MB export in before it had read 4 KiB).
            try (Socket socket = new Socket()) {
                socket.setReceiveBufferSize(BULK_RECEIVE_BUFFER);
                socket.connect(new InetSocketAddress(base.getHost(), base.getPort()));
                String get = "GET " + base.getRawPath() + format.pathSegment() + "/traverse?root="
                        + ExportHttp.enc(bulkRoot) + " HTTP/1.1\r\nHost: localhost\r\n\r\n";
                socket.getOutputStream().write(get.getBytes(StandardCharsets.US_ASCII));
                InputStream in = socket.getInputStream();
                byte[] start = in.readNBytes(4096);
                assertTrue(new String(start, StandardCharsets.ISO_8859_1).startsWith("HTTP/1.1 200 "),
                        new String(start, 0, 40, StandardCharsets.ISO_8859_1));
                Thread.sleep(300);
                assertEquals(1, otherTransactions(), "the export is still running while the client holds it (" + format
                        + "): it outlasts what the sockets can hold, so the server sees the client leave");
            } // closing with unread data resets the connection: the server's next write fails
            awaitNoOtherTransactions("after client " + i + " left");
        }
        assertEquals(endedEarlyBefore + 10, endedEarly(), "the server logged each client that left");
        assertTrue(Thread.activeCount() <= threadsBefore + 8,
                "threads grew from " + threadsBefore + " to " + Thread.activeCount());
    }

    /** How many exports the server logged as ended by their client. */
    private static int endedEarly() {
        ByteArrayOutputStream logs = new ByteArrayOutputStream();
        neo4j.printLogs(new PrintStream(logs, true, StandardCharsets.UTF_8));
        return logs.toString(StandardCharsets.UTF_8).split("client ended early", -1).length - 1;
    }

    @Test
    void anExportOverItsTimeoutEndsWithAnErrorRecord() throws Exception {
        // Neo4j's transaction monitor checks once an hour here: the export applies its budget itself, within
        // 1024 nodes, however fast it is (a few MB of JSON that the socket buffers can hold in full). Both read
        // paths: one reading thread (JSON goes single-threaded at once on two cores) and the parallel batches.
        for (Format format : List.of(Format.JSON, Format.KRYO)) {
            byte[] body = HTTP.send(HttpRequest.newBuilder(traverse(format, "&timeout=1ms")).build(),
                    HttpResponse.BodyHandlers.ofByteArray()).body();
            assertTimedOut(format, body);
        }
        awaitNoOtherTransactions("after the timed-out exports");
    }

    @Test
    void aCypherExportOverItsTimeoutEndsWithAnErrorRecordEvenWithoutNodes() throws Exception {
        // Rows without a node never reach the entity writer's check; the row loop checks too.
        HttpResponse<byte[]> response = HTTP.send(HttpRequest.newBuilder(
                        base.resolve(Format.JSON.pathSegment() + "/cypher?mode=rows&timeout=1ms"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"query\": \"UNWIND range(1, 5000000) AS i RETURN i\"}"))
                .build(), HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, response.statusCode());
        assertTimedOut(Format.JSON, response.body());
        awaitNoOtherTransactions("after the timed-out Cypher export");
    }

    private static void assertTimedOut(Format format, byte[] body) {
        ExportFailedException failure = assertThrows(ExportFailedException.class, () -> {
            try (ExportReader reader = ExportReader.open(format, new ByteArrayInputStream(body))) {
                while (reader.next() != null) {
                    // records before the budget ran out
                }
            }
        }, format.pathSegment());
        assertTrue(failure.code().startsWith("Neo.ClientError.Transaction.TransactionTimedOut"), failure.code());
    }

    @Test
    void badTimeoutsAreRejected() {
        for (String bad : List.of("fast", "-1s", "0", "1.5s", "10d")) {
            HttpResponse<byte[]> response = new ExportHttp(neo4j.httpURI())
                    .get("kryo/traverse?root=" + ExportHttp.enc(demo.rootElementId()) + "&timeout=" + ExportHttp.enc(bad));
            assertEquals(400, response.statusCode(), bad);
        }
    }

    @Test
    void thirtyTwoClientsAtOnceGetIdenticalCompleteExports() throws Exception {
        List<CompletableFuture<HttpResponse<byte[]>>> calls = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            calls.add(HTTP.sendAsync(HttpRequest.newBuilder(traverse(Format.KRYO, "")).build(),
                    HttpResponse.BodyHandlers.ofByteArray()));
        }
        byte[] first = null;
        for (CompletableFuture<HttpResponse<byte[]>> call : calls) {
            HttpResponse<byte[]> response = call.get();
            assertEquals(200, response.statusCode());
            if (first == null) {
                first = response.body();
            } else {
                assertArrayEquals(first, response.body(), "every client receives the same bytes");
            }
        }
        try (ExportReader reader = ExportReader.open(Format.KRYO, new ByteArrayInputStream(first))) {
            Subgraph g = Subgraph.read(reader);
            // the demo graph: everything but its info node hangs under the root
            assertEquals(demo.nodes(), g.nodes().size());
            assertEquals(demo.relationships(), g.relationships().size());
            assertFalse(g.end().truncated());
        }
    }

    @Test
    void exportsStayWellFormedWhileWritersChangeTheGraph() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong writes = new AtomicLong();
        Thread writer = new Thread(() -> {
            Label extra = Label.label("Extra");
            RelationshipType property = RelationshipType.withName("PROPERTY");
            long id = 2;
            while (!stop.get()) {
                try (Transaction tx = neo4j.defaultDatabaseService().beginTx()) {
                    Node object = tx.findNode(Label.label("Object"), "id", id++ % OBJECTS + 1);
                    Node added = tx.createNode(extra);
                    added.setProperty("n", id);
                    object.createRelationshipTo(added, property);
                    tx.findNodes(extra).stream().limit(1).forEach(n -> {
                        n.getRelationships().forEach(r -> r.delete());
                        n.delete();
                    });
                    tx.commit();
                    writes.incrementAndGet();
                }
            }
        });
        writer.start();
        try {
            for (int i = 0; i < 8; i++) {
                for (Format format : Format.values()) {
                    if (!format.clientDecodes()) {
                        continue;  // arrow: PythonClientIT
                    }
                    HttpResponse<byte[]> response = HTTP.send(HttpRequest.newBuilder(traverse(format, "")).build(),
                            HttpResponse.BodyHandlers.ofByteArray());
                    assertEquals(200, response.statusCode());
                    try (ExportReader reader = ExportReader.open(format, new ByteArrayInputStream(response.body()))) {
                        Subgraph g = Subgraph.read(reader); // checks ids unique, end nodes first, counts match
                        long objects = g.nodes().values().stream().filter(n -> n.labels().contains("Object")).count();
                        assertEquals(OBJECTS, objects, "the writers never touch Objects");
                    }
                }
            }
        } finally {
            stop.set(true);
            writer.join();
        }
        assertTrue(writes.get() > 0, "the writer ran");
        // leave the graph as the other tests expect it
        try (Transaction tx = neo4j.defaultDatabaseService().beginTx()) {
            tx.execute("MATCH (n:Extra) DETACH DELETE n");
            tx.commit();
        }
    }

    @Test
    void theServerStillAnswersTheDatabaseAfterAll() {
        try (Transaction tx = neo4j.defaultDatabaseService().beginTx()) {
            Map<String, Object> row = tx.execute("MATCH (n:Object) RETURN count(n) AS c").next();
            assertEquals((long) OBJECTS, row.get("c"));
        }
    }
}
