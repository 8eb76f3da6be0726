package org.subgraphexport.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.subgraphexport.encode.Encoders;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.TokenNames;
import org.subgraphexport.wire.Wire;

/**
 * {@link PartitionedExport} against a small export server (the JDK's HTTP server) that answers
 * {@code partitions=N&partition=i[&state=s]} as the plugin does: record k of the single stream in partition
 * {@code (k / 256) % N}, each partition with its own header and end record at the server's current state, a
 * {@code 412 Export.StateChanged} naming the new state when the state asked for is gone. The merged reader returns
 * exactly the single stream; the consumers get each partition's records in order; cut streams are fetched again and
 * read past what was returned; a state change restarts or fails as configured.
 */
class PartitionedExportTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    /** 700 nodes (ids 0..699), then 500 relationships i -> i + 1: 1,200 records, five blocks of 256. */
    private static final int NODES = 700;
    private static final int RELATIONSHIPS = 500;

    private HttpServer server;
    private volatile String state = "s1";
    /** Each request's query, in arrival order. */
    private final List<String> queries = new CopyOnWriteArrayList<>();
    /** Each request's Authorization and X-Trace headers ("-" when absent), in arrival order. */
    private final List<String> headers = new CopyOnWriteArrayList<>();
    /** Partition -> the HTTP status of its next answers (an error body each), before any export is answered. */
    private final Map<Integer, List<Integer>> refusals = new ConcurrentHashMap<>();
    /** Partition -> how many of its next answers are cut after this many bytes. */
    private final Map<Integer, List<Integer>> cuts = new ConcurrentHashMap<>();
    /** After this many answered requests the state moves to "s2" (-1: never). */
    private volatile int moveAfter = -1;
    /** Whether the state moves on (s1 to s2, s2 to s3, ...) with every export the server answers. */
    private volatile boolean moveAfterEachAnswer;
    private final AtomicInteger answered = new AtomicInteger();

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    private URI serve() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::respond);
        server.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(8));
        server.start();
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/extension/kryo/traverse?root=n%3A0");
    }

    private void respond(HttpExchange exchange) throws IOException {
        String query = exchange.getRequestURI().getRawQuery();
        queries.add(query);
        headers.add(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")) + " "
                + exchange.getRequestHeaders().getFirst("X-Trace"));
        Map<String, String> params = new HashMap<>();
        for (String p : query.split("&")) {
            String[] kv = p.split("=", 2);
            params.put(kv[0], URLDecoder.decode(kv[1], StandardCharsets.UTF_8));
        }
        int partitions = Integer.parseInt(params.get("partitions"));
        int partition = Integer.parseInt(params.get("partition"));
        String now = state;
        if (answered.incrementAndGet() == moveAfter) {
            state = "s2";
        }
        if (moveAfterEachAnswer) {
            synchronized (this) {  // one answer per state: of two requests for it, the second is refused
                now = state;
                String asked = params.get("state");
                if (asked == null || asked.equals(now)) {
                    state = "s" + (Integer.parseInt(now.substring(1)) + 1);
                }
            }
        }
        try (exchange; OutputStream out = exchange.getResponseBody()) {
            List<Integer> refused = refusals.get(partition);
            if (refused != null && !refused.isEmpty()) {
                int status = refused.remove(0);
                byte[] body = ("{\"status\":" + status + ",\"code\":\"Test.Refused\",\"message\":\"refused\"}")
                        .getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                exchange.sendResponseHeaders(status, body.length);
                out.write(body);
                return;
            }
            String asked = params.get("state");
            if (asked != null && !asked.equals(now)) {
                byte[] body = ("{\"status\":412,\"code\":\"Export.StateChanged\",\"message\":\"the database moved on\"}")
                        .getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Subgraph-Export-State", now);
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                exchange.sendResponseHeaders(412, body.length);
                out.write(body);
                return;
            }
            byte[] body = partition(now, partition, partitions);
            List<Integer> cut = cuts.get(partition);
            if (cut != null && !cut.isEmpty()) {
                body = java.util.Arrays.copyOf(body, Math.min(body.length, cut.remove(0)));
            }
            exchange.getResponseHeaders().add("Content-Type", Format.KRYO.mediaType());
            exchange.getResponseHeaders().add("Subgraph-Export-State", now);
            exchange.sendResponseHeaders(200, body.length);
            out.write(body);
        }
    }

    /** The records of partition {@code partition} of {@code partitions}, at {@code state}, as the plugin deals them. */
    static byte[] partition(String state, int partition, int partitions) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            GraphWriter w = Encoders.open(Format.KRYO, out);
            w.header(new Header("db", "n:0", "n:", "r:", state, partition, partitions), NAMES);
            long nodes = 0, relationships = 0;
            for (int k = 0; k < NODES + RELATIONSHIPS; k++) {
                if ((k / Wire.PARTITION_BLOCK) % partitions != partition) {
                    continue;
                }
                if (k < NODES) {
                    w.beginNode(k, new int[] {k % 3}, 1);
                    w.property(0);
                    w.writeLong(k * 10L);
                    w.endNode();
                    nodes++;
                } else {
                    int r = k - NODES;
                    w.beginRelationship(r, 0, r, r + 1);
                    w.endRelationship();
                    relationships++;
                }
            }
            w.end(nodes, relationships, false, state);
            w.finish();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static final TokenNames NAMES = new TokenNames() {
        @Override
        public String label(int id) {
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

    /** The single stream's records (partition 0 of 1, at {@code state}), header first. */
    private static List<ExportRecord> single(String state) throws IOException {
        List<ExportRecord> records = new ArrayList<>();
        try (ExportReader r = ExportReader.open(Format.KRYO,
                new java.io.ByteArrayInputStream(partition(state, 0, 1)))) {
            records.add(r.header());
            for (ExportRecord x; (x = r.next()) != null; ) {
                records.add(x);
            }
        }
        return records;
    }

    private static List<ExportRecord> all(ExportReader reader) throws IOException {
        List<ExportRecord> records = new ArrayList<>();
        try (reader) {
            records.add(reader.header());
            for (ExportRecord x; (x = reader.next()) != null; ) {
                records.add(x);
            }
            assertNull(reader.next());
        }
        return records;
    }

    @Test
    void theMergedReaderReturnsTheSingleStream() throws IOException {
        URI export = serve();
        List<ExportRecord> expected = single("s1");
        for (int n : new int[] {1, 2, 3, 5, 7}) {
            queries.clear();
            assertEquals(expected, all(PartitionedExport.of(HTTP, export, n).open()), n + " partitions");
            assertEquals(n, queries.size(), queries.toString());
            assertTrue(queries.contains("root=n%3A0&partitions=" + n + "&partition=0"), queries.toString());
            for (int i = 1; i < n; i++) {
                assertTrue(queries.contains("root=n%3A0&partitions=" + n + "&partition=" + i + "&state=s1"),
                        queries.toString());
            }
        }
    }

    /** Headers given to the export go with every partition's request; the busy-retry setting is the one given. */
    @Test
    void everyRequestCarriesTheHeadersGiven() throws IOException {
        URI export = serve();
        PartitionedExport configured = PartitionedExport.of(HTTP, export, 3).header("Authorization", "Basic bmVvNGo6eA==")
                .header("X-Trace", "t1").busyRetry(BusyRetry.NONE);
        assertEquals(single("s1"), all(configured.open()));
        assertEquals(List.of("Basic bmVvNGo6eA== t1", "Basic bmVvNGo6eA== t1", "Basic bmVvNGo6eA== t1"), headers);
        headers.clear();
        assertEquals(single("s1"), all(PartitionedExport.of(HTTP, export, 2).open()));
        assertEquals(List.of("null null", "null null"), headers, "none given, none sent");
    }

    @Test
    void eachPartitionGoesToTheConsumerInOrderAndTheEndsAreSummed() throws IOException {
        URI export = serve();
        int n = 3;
        Map<Integer, List<ExportRecord>> got = new ConcurrentHashMap<>();
        ExportEnd end = PartitionedExport.of(HTTP, export, n).concurrency(2).read((partition, records) -> {
            List<ExportRecord> list = new ArrayList<>();
            list.add(records.header());
            for (ExportRecord x; (x = records.next()) != null; ) {
                list.add(x);
            }
            got.put(partition, list);
        });
        assertEquals(new ExportEnd(NODES, RELATIONSHIPS, false, 0, "s1"), end);
        for (int i = 0; i < n; i++) {
            assertEquals(all(ExportReader.open(Format.KRYO, new java.io.ByteArrayInputStream(partition("s1", i, n)))),
                    got.get(i), "partition " + i);
        }
    }

    @Test
    void theParserConsumerSeesEveryRecordOnce() throws IOException {
        URI export = serve();
        AtomicInteger nodes = new AtomicInteger(), relationships = new AtomicInteger();
        ExportEnd end = PartitionedExport.of(HTTP, export, 4).parse((partition, parser) -> {
            assertEquals(partition, parser.header().partition());
            for (ExportParser.Kind k; (k = parser.next(value -> { })) != null; ) {
                if (k == ExportParser.Kind.NODE) nodes.incrementAndGet();
                if (k == ExportParser.Kind.RELATIONSHIP) relationships.incrementAndGet();
            }
        });
        assertEquals(new ExportEnd(NODES, RELATIONSHIPS, false, 0, "s1"), end);
        assertEquals(NODES, nodes.get());
        assertEquals(RELATIONSHIPS, relationships.get());
    }

    @Test
    void aCutStreamIsFetchedAgainAndReadPastWhatWasReturned() throws IOException {
        URI export = serve();
        int cut = partition("s1", 1, 2).length / 2;
        cuts.put(1, new ArrayList<>(List.of(cut, cut / 2)));
        assertEquals(single("s1"), all(PartitionedExport.of(HTTP, export, 2).open()));
        List<String> partitionOne = queries.stream().filter(q -> q.contains("partition=1")).toList();
        assertEquals(List.of("root=n%3A0&partitions=2&partition=1&state=s1",
                "root=n%3A0&partitions=2&partition=1&state=s1", "root=n%3A0&partitions=2&partition=1&state=s1"),
                partitionOne);
    }

    @Test
    void aPartitionCutAsOftenAsItsAttemptsFails() throws IOException {
        URI export = serve();
        cuts.put(1, new ArrayList<>(List.of(100, 100)));
        PartitionFailedException e = assertThrows(PartitionFailedException.class,
                () -> all(PartitionedExport.of(HTTP, export, 2).attempts(2).open()));
        assertEquals(1, e.partition());
        assertEquals(2, e.partitions());
        assertEquals(2, e.attempts());
        assertTrue(e.getMessage().startsWith("partition 1 of 2 failed 2 attempts;"), e.getMessage());
        assertInstanceOf(CorruptStreamException.class, e.getCause());
        assertEquals(1, e.getCause().getSuppressed().length);
        cuts.put(0, new ArrayList<>(List.of(50)));
        PartitionFailedException once = assertThrows(PartitionFailedException.class,
                () -> PartitionedExport.of(HTTP, export, 2).attempts(1).read((p, r) -> all(r)));
        assertEquals(0, once.partition());
        assertTrue(once.getMessage().startsWith("partition 0 of 2 failed 1 attempt;"), once.getMessage());
    }

    /**
     * A partition refused with a server error (status 500 and up) is fetched again within its attempts; one refused
     * with a client error (400) is not: the read fails with the server's refusal at once.
     */
    @Test
    void aServerErrorIsRetriedAndAClientErrorIsNot() throws IOException {
        URI export = serve();
        refusals.put(1, new ArrayList<>(List.of(500)));
        assertEquals(single("s1"), all(PartitionedExport.of(HTTP, export, 2).attempts(2).open()));
        assertEquals(3, queries.size(), "partition 1 asked twice: " + queries);

        queries.clear();
        refusals.put(1, new ArrayList<>(List.of(400)));
        ExportRequestException refused = assertThrows(ExportRequestException.class,
                () -> PartitionedExport.of(HTTP, export, 2).attempts(3).read((p, r) -> all(r)));
        assertEquals(400, refused.status());
        assertEquals("Test.Refused", refused.code());
        assertEquals(2, queries.size(), "partition 1 asked once: " + queries);
    }

    @Test
    void aStateChangeRestartsEveryPartitionAtTheNewState() throws IOException {
        URI export = serve();
        moveAfter = 1;  // partition 0 answers at s1, then the database moves on
        List<String> restarts = Collections.synchronizedList(new ArrayList<>());
        ExportEnd end = PartitionedExport.of(HTTP, export, 2).read(new PartitionedExport.RecordConsumer() {
            @Override
            public void accept(int partition, ExportReader records) throws IOException {
                all(records);
            }

            @Override
            public void restarted(String oldState, String newState) {
                restarts.add(oldState + "->" + newState);
            }
        });
        assertEquals(List.of("s1->s2"), restarts);
        assertEquals(new ExportEnd(NODES, RELATIONSHIPS, false, 0, "s2"), end);
    }

    /**
     * A database that moves on with every export it answers: in each round one partition is answered and the other
     * refused, so the partitions restart as often as allowed (2), each time at the new state, then the read fails with
     * the last change. The consumers run on daemon threads.
     */
    @Test
    void restartsStopAtTheNumberAllowed() throws IOException {
        URI export = serve();
        moveAfterEachAnswer = true;
        List<String> restarts = Collections.synchronizedList(new ArrayList<>());
        List<Boolean> daemons = Collections.synchronizedList(new ArrayList<>());
        StateChangedException e = assertThrows(StateChangedException.class, () -> PartitionedExport.of(HTTP, export, 2)
                .restarts(2).read(new PartitionedExport.RecordConsumer() {
                    @Override
                    public void accept(int partition, ExportReader records) throws IOException {
                        daemons.add(Thread.currentThread().isDaemon());
                        all(records);
                    }

                    @Override
                    public void restarted(String oldState, String newState) {
                        restarts.add(oldState + "->" + newState);
                    }
                }));
        assertEquals(List.of("s1->s2", "s2->s3"), restarts);
        assertEquals("s3", e.oldState());
        assertEquals("s4", e.newState());
        assertTrue(!daemons.isEmpty() && !daemons.contains(false), daemons::toString);
    }

    @Test
    void aStateChangeFailsWhenToldTo() throws IOException {
        URI export = serve();
        moveAfter = 1;
        StateChangedException e = assertThrows(StateChangedException.class, () -> PartitionedExport.of(HTTP, export, 2)
                .onStateChange(PartitionedExport.OnStateChange.FAIL).read((p, r) -> all(r)));
        assertEquals("s1", e.oldState());
        assertEquals("s2", e.newState());
        moveAfter = answered.get() + 1;
        state = "s1";
        StateChangedException spent = assertThrows(StateChangedException.class, () -> PartitionedExport.of(HTTP,
                export, 2).restarts(0).read((p, r) -> all(r)));
        assertEquals("s1", spent.oldState());
        assertEquals("s2", spent.newState());
    }

    @Test
    void settingsAreChecked() {
        URI export = URI.create("http://h/extension/kryo/traverse?root=1");
        assertEquals("partitions must be at least 1, got 0",
                assertThrows(IllegalArgumentException.class, () -> PartitionedExport.of(HTTP, export, 0)).getMessage());
        for (String bad : new String[] {"partitions=2", "partition=0", "state=s"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> PartitionedExport.of(HTTP, URI.create(export + "&" + bad), 2));
            assertTrue(e.getMessage().startsWith("the export URL names '" + bad.split("=")[0] + "'"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> PartitionedExport.of(HTTP, URI.create("/relative"), 2));
        assertThrows(IllegalArgumentException.class, () -> PartitionedExport.of(HTTP, URI.create(export + "#f"), 2));
        PartitionedExport p = PartitionedExport.of(HTTP, URI.create("http://h/x"), 3);
        assertEquals(3, p.partitions());
        assertEquals("concurrency must be at least 1, got 0",
                assertThrows(IllegalArgumentException.class, () -> p.concurrency(0)).getMessage());
        assertEquals("attempts must be at least 1, got 0",
                assertThrows(IllegalArgumentException.class, () -> p.attempts(0)).getMessage());
        assertEquals("restarts must be at least 0, got -1",
                assertThrows(IllegalArgumentException.class, () -> p.restarts(-1)).getMessage());
        assertEquals("PartitionedExport(http://h/x, 3 partitions, 1 threads, 4 attempts, RESTART up to 0 times)",
                p.concurrency(1).attempts(4).restarts(0).toString());
        assertEquals("PartitionedExport(http://h/x, 3 partitions, 2 threads, 1 attempts, FAIL)",
                p.concurrency(2).attempts(1).onStateChange(PartitionedExport.OnStateChange.FAIL).toString());
    }
}
