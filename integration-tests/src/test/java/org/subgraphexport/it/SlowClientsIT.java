package org.subgraphexport.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.subgraphexport.testkit.RawHttp;
import org.subgraphexport.wire.Format;

/**
 * Clients that start a big export and stop reading (a 4 KiB receive buffer, never read, socket left open), and what
 * the server's other users see meanwhile: the Query API and another user's small export answer within a second,
 * exports above the bounds get 503 with Retry-After, every connection gets a status line, and a stalled export's
 * transaction ends after the write-stall time. A client that leaves while a Cypher query computes, writing nothing,
 * ends its transaction within seconds. Authentication is on: the bound per user is keyed by user name.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SlowClientsIT {
    static final int BIG_CHILDREN = 2_000;
    static final int SMALL_CHILDREN = 999;
    static final int STALLED = 200;
    static final int MAX_CONCURRENT = 4;
    static final int MAX_PER_USER = 2;
    static final long STALL_MILLIS = 2_000;
    private static final String PASSWORD = "it-secret-123";
    private static final String NEO4J = RealNeo4jServer.basic("neo4j", PASSWORD);
    private static final String OTHER = RealNeo4jServer.basic("other", PASSWORD);

    private RealNeo4jServer server;
    private String bigRoot;
    private String smallRoot;

    @BeforeAll
    void startAndLoad() throws Exception {
        server = RealNeo4jServer.start("slow-clients", PASSWORD,
                "server.subgraph_export.max_concurrent=" + MAX_CONCURRENT,
                "server.subgraph_export.max_concurrent_per_user=" + MAX_PER_USER,
                "server.subgraph_export.write_stall_timeout=" + STALL_MILLIS + "ms");
        HttpResponse<byte[]> user = server.queryApi("system",
                "CREATE USER other SET PASSWORD '" + PASSWORD + "' CHANGE NOT REQUIRED", Map.of(), NEO4J);
        assertEquals(202, user.statusCode(), () -> new String(user.body(), StandardCharsets.UTF_8));
        // 2,000 children of 20,000 characters each: a 40 MB JSON response, far more than the socket buffers hold
        bigRoot = createChildren("BigRoot", "Big {i: i, s: $s}", BIG_CHILDREN, 500, "abcdefghij".repeat(2_000));
        smallRoot = createChildren("SmallRoot", "Small {i: i}", SMALL_CHILDREN, 1_000, "");
    }

    /** A root with {@code n} children, committed every {@code batch}. */
    private String createChildren(String rootLabel, String child, int n, int batch, String s) throws IOException {
        String root = rootId(server.queryApi("neo4j", "CREATE (r:" + rootLabel + ") RETURN elementId(r)", Map.of(),
                NEO4J));
        rootId(server.queryApi("neo4j", "MATCH (r:" + rootLabel + ") UNWIND range(1, $n) AS i CALL (r, i) { CREATE (r)"
                + "-[:CHILDREN]->(:" + child + ") } IN TRANSACTIONS OF " + batch + " ROWS RETURN 1 LIMIT 1",
                Map.of("n", n, "s", s), NEO4J));
        return root;
    }

    private static String rootId(HttpResponse<byte[]> r) throws IOException {
        assertEquals(202, r.statusCode(), () -> new String(r.body(), StandardCharsets.UTF_8));
        JsonNode json = RealNeo4jServer.JSON.readTree(r.body());
        assertTrue(json.path("errors").isMissingNode() || json.path("errors").isEmpty(), json::toString);
        return json.path("data").path("values").path(0).path(0).asText();
    }

    @AfterAll
    void stop() {
        if (server != null) server.close();
    }

    @Test
    void otherUsersAreServedWhileExportClientsStall() throws Exception {
        // once before, so that neither the Query API nor the small export is timed on its first, cold call
        server.queryApi("neo4j", "RETURN 1 AS one", Map.of(), NEO4J);
        ExportRequest.traverse("root", smallRoot).export(server, Format.KRYO, OTHER);
        List<Socket> stalled = new ArrayList<>();
        try {
            for (int i = 0; i < STALLED; i++) {
                stalled.add(stalledExport(bigRoot, NEO4J));
            }
            // Every connection gets a status line: 200 (admitted, then stalled) or 503 with Retry-After. Reading the
            // head only leaves the admitted ones stalled on their bodies.
            Map<String, Integer> statusLines = new TreeMap<>();
            Map<String, String> busyHeaders = null;
            for (Socket s : stalled) {
                Map<String, String> head = RawHttp.head(s);
                statusLines.merge(head.get(""), 1, Integer::sum);
                if (busyHeaders == null && head.get("").startsWith("HTTP/1.1 503")) busyHeaders = head;
            }
            System.out.println("SlowClientsIT: status lines of the stalled clients: " + statusLines);
            assertEquals(STALLED, statusLines.getOrDefault("HTTP/1.1 200 OK", 0)
                    + statusLines.getOrDefault("HTTP/1.1 503 Service Unavailable", 0), statusLines::toString);
            assertTrue(statusLines.getOrDefault("HTTP/1.1 200 OK", 0) >= MAX_PER_USER, statusLines::toString);
            assertTrue(busyHeaders != null, statusLines::toString);
            assertEquals("1", busyHeaders.get("retry-after"), busyHeaders::toString);

            List<Long> queryMillis = new ArrayList<>();
            List<Long> exportMillis = new ArrayList<>();
            for (int round = 0; round < 3; round++) {
                long t0 = System.nanoTime();
                HttpResponse<byte[]> q = server.queryApi("neo4j", "RETURN 1 AS one", Map.of(), NEO4J);
                queryMillis.add((System.nanoTime() - t0) / 1_000_000);
                assertEquals(202, q.statusCode(), () -> new String(q.body(), StandardCharsets.UTF_8));
                t0 = System.nanoTime();
                long nodes = ExportRequest.traverse("root", smallRoot).export(server, Format.KRYO, OTHER).nodes().size();
                exportMillis.add((System.nanoTime() - t0) / 1_000_000);
                assertEquals(SMALL_CHILDREN + 1, nodes);
            }
            System.out.printf("SlowClientsIT: %d stalled export clients: Query API %s ms, another user's %,d-node "
                    + "export %s ms%n", STALLED, queryMillis, SMALL_CHILDREN + 1, exportMillis);
            assertTrue(queryMillis.stream().allMatch(ms -> ms < 1_000), "Query API took " + queryMillis + " ms");
            assertTrue(exportMillis.stream().allMatch(ms -> ms < 1_000), "the small export took " + exportMillis + " ms");
        } finally {
            for (Socket s : stalled) s.close();
        }
    }

    @Test
    void aStalledExportEndsAndReleasesItsTransactionAfterTheStallTime() throws Exception {
        awaitExportTransactions(0, 10_000); // the other test's stalled exports, if it ran first
        try (Socket stalled = stalledExport(bigRoot, OTHER)) {
            long t0 = System.nanoTime();
            awaitExportTransactions(1, 5_000);
            awaitExportTransactions(0, STALL_MILLIS + 5_000);
            long endedMillis = (System.nanoTime() - t0) / 1_000_000;
            System.out.printf("SlowClientsIT: the stalled export's transaction ended %d ms after it was seen%n",
                    endedMillis);
            assertTrue(endedMillis >= STALL_MILLIS - 500, "ended after " + endedMillis + " ms");
            assertEquals("HTTP/1.1 200 OK", RawHttp.head(stalled).get(""));
            // the slot is free again: the same user exports the small subgraph at once
            assertEquals(SMALL_CHILDREN + 1,
                    ExportRequest.traverse("root", smallRoot).export(server, Format.JSON, OTHER).nodes().size());
        }
    }

    @Test
    void aThirdExportOfOneUserIs503WithRetryAfterAndTheBodySaysWhy() throws Exception {
        awaitExportTransactions(0, 10_000);
        try (Socket first = stalledExport(bigRoot, OTHER); Socket second = stalledExport(bigRoot, OTHER)) {
            awaitExportTransactions(2, 5_000);
            HttpResponse<byte[]> third = ExportRequest.traverse("root", smallRoot).send(server, Format.JSON, OTHER);
            String body = new String(third.body(), StandardCharsets.UTF_8);
            assertEquals(503, third.statusCode(), body);
            assertEquals("1", third.headers().firstValue("Retry-After").orElse(""));
            assertEquals("Export.ServerBusy", RealNeo4jServer.JSON.readTree(body).path("code").asText(), body);
            assertTrue(body.contains("server.subgraph_export.max_concurrent_per_user"), body);
            // another user still gets through
            assertEquals(SMALL_CHILDREN + 1,
                    ExportRequest.traverse("root", smallRoot).export(server, Format.JSON, NEO4J).nodes().size());
        }
    }

    @Test
    void aClientThatLeavesWhileTheQueryIsStillComputingEndsItsTransactionWithinSeconds() throws Exception {
        awaitExportTransactions(0, 10_000);
        // tens of seconds without a row: nothing is written while it runs
        byte[] body = "{\"query\": \"UNWIND range(1, 2000000000) AS x WITH x WHERE x < 0 RETURN x\"}"
                .getBytes(StandardCharsets.UTF_8);
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress(server.httpUri.getHost(), server.httpUri.getPort()), 2_000);
        socket.getOutputStream().write(("POST /extension/json/cypher HTTP/1.1\r\nHost: " + server.httpUri.getAuthority()
                + "\r\nAuthorization: " + OTHER + "\r\nContent-Type: application/json\r\nContent-Length: "
                + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().write(body);
        socket.getOutputStream().flush();
        awaitExportTransactions(1, 5_000);
        long t0 = System.nanoTime();
        socket.close();
        awaitExportTransactions(0, 10_000);
        long endedMillis = (System.nanoTime() - t0) / 1_000_000;
        System.out.printf("SlowClientsIT: a client left during the query; its transaction ended %d ms later%n",
                endedMillis);
        assertTrue(endedMillis < 3_000, "ended after " + endedMillis + " ms");
    }

    /** Waits until SHOW TRANSACTIONS lists exactly {@code count} export transactions. */
    private void awaitExportTransactions(int count, long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
        int seen;
        do {
            seen = server.query("SHOW TRANSACTIONS YIELD metaData WHERE metaData.app = 'subgraph-export' "
                    + "RETURN count(*)", NEO4J).get(0).get(0).asInt();
            if (seen == count) return;
            Thread.sleep(100);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("SHOW TRANSACTIONS lists " + seen + " export transactions, not " + count
                + ", after " + timeoutMillis + " ms");
    }

    /** Sends a JSON export request of {@code root} with a 4 KiB receive buffer and never reads the answer. */
    private Socket stalledExport(String root, String authorization) throws IOException {
        Socket socket = new Socket();
        socket.setReceiveBufferSize(4096);
        socket.connect(new InetSocketAddress(server.httpUri.getHost(), server.httpUri.getPort()), 2_000);
        URI uri = ExportRequest.traverse("root", root).uri(server.httpUri, Format.JSON);
        socket.getOutputStream().write(("GET " + uri.getRawPath() + "?" + uri.getRawQuery() + " HTTP/1.1\r\n"
                + "Host: " + server.httpUri.getAuthority() + "\r\nAuthorization: " + authorization + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        return socket;
    }
}
