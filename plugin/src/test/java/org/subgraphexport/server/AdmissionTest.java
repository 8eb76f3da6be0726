package org.subgraphexport.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
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
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.Transaction;
import org.neo4j.server.configuration.ServerSettings;
import org.neo4j.server.web.JettyThreadCalculator;
import org.subgraphexport.client.BusyRetry;
import org.subgraphexport.client.ContentEncodings;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.ExportRequestException;
import org.subgraphexport.client.Subgraph;
import org.subgraphexport.config.ExportSettings;
import org.subgraphexport.testkit.RawHttp;

/**
 * The admission bounds at their defaults (derived from the HTTP server's threads), a cached response admitted and
 * ended by the stall timeout like a fresh export, and the Java client waiting out a busy server
 * ({@link BusyRetry}). Authentication is off, so the bound per user is per client address: clients bind to
 * different loopback addresses (127.0.0.x) to count as different users.
 */
class AdmissionTest {
    private static final long STALL_MILLIS = 3_000;
    /** A subgraph of 24 MB of string values: far more than a 4 KiB receive buffer and the socket buffers hold. */
    private static final int BULK_NODES = 48;
    private static final int BULK_VALUE_CHARS = 512 * 1024;
    private static final Pattern LIMITS =
            Pattern.compile("exports: at most (\\d+) at once, (\\d+) per user; the HTTP server has (\\d+) request threads");
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    // max_concurrent and max_concurrent_per_user at their default, 0: derived from Jetty's pool
    @RegisterExtension
    static final InProcessNeo4j neo4j = InProcessNeo4j.withExtension()
            .with(ExportSettings.RESPONSE_CACHE_SIZE, 64L << 20)
            .with(ExportSettings.WRITE_STALL_TIMEOUT, Duration.ofMillis(STALL_MILLIS));
    private static String bulkRoot;
    private static String smallRoot;

    @BeforeAll
    static void start() {
        try (Transaction tx = neo4j.defaultDatabaseService().beginTx()) {
            Node bulk = tx.createNode(Label.label("Bulk"));
            char[] value = new char[BULK_VALUE_CHARS];
            for (int i = 0; i < BULK_NODES; i++) {
                Arrays.fill(value, (char) ('a' + i % 26));
                tx.createNode(Label.label("BulkPart")).setProperty("text", new String(value));
            }
            tx.findNodes(Label.label("BulkPart")).forEachRemaining(
                    part -> bulk.createRelationshipTo(part, RelationshipType.withName("PROPERTY")));
            Node small = tx.createNode(Label.label("Small"));
            for (int i = 0; i < 99; i++) {
                small.createRelationshipTo(tx.createNode(Label.label("SmallChild")), RelationshipType.withName("CHILDREN"));
            }
            bulkRoot = bulk.getElementId();
            smallRoot = small.getElementId();
            tx.commit();
        }
    }

    private static String traverse(String root) {
        return "/extension/json/traverse?root=" + ExportHttp.enc(root);
    }

    @Test
    void theDefaultBoundsAreHalfOfJettysRequestThreadsAndHalfOfThatPerUser() throws Exception {
        // What Neo4j's own calculator makes of server.threads.worker_count: the pool's threads less its acceptors and
        // selectors serve requests. Independent of the plugin, which reads the live pool.
        int workers = neo4j.config().get(ServerSettings.webserver_max_threads);
        JettyThreadCalculator jetty = new JettyThreadCalculator(workers);
        int requestThreads = requestThreads();
        int max = Math.max(1, requestThreads / 2);
        int perUser = derivedPerUser();
        System.out.printf("AdmissionTest: %d processors, server.threads.worker_count %d: Jetty pool %d threads, %d "
                + "acceptors, %d selectors; exports at once %d, per user %d%n", Runtime.getRuntime().availableProcessors(),
                workers, jetty.getMaxThreads(), jetty.getAcceptors(), jetty.getSelectors(), max, perUser);
        if (Runtime.getRuntime().availableProcessors() == 2) {
            // what docs/operations.md says a 2-core machine gets
            assertEquals(List.of(2, 12, 10, 5, 2), List.of(workers, jetty.getMaxThreads(), requestThreads, max, perUser));
        }
        List<Socket> held = new ArrayList<>();
        try {
            // one address: perUser exports stream, the next is refused naming the per-user setting
            for (int i = 0; i < perUser; i++) held.add(stalledExport(bulkRoot, "127.0.0.1", "no-cache, no-store"));
            for (Socket s : held) assertEquals("HTTP/1.1 200 OK", RawHttp.head(s).get(""));
            RawHttp.Response refused = RawHttp.get(neo4j.httpURI(), traverse(smallRoot));
            assertEquals(503, refused.status(), () -> refused.text().substring(0, 200));
            assertTrue(refused.text().contains(ExportSettings.MAX_CONCURRENT_PER_USER.name()), refused.text());
            // other addresses fill the server's bound; the one after is refused naming max_concurrent
            for (int i = perUser; i < max; i++) {
                Socket s = stalledExport(bulkRoot, "127.0.0." + (2 + i), "no-cache, no-store");
                held.add(s);
                assertEquals("HTTP/1.1 200 OK", RawHttp.head(s).get(""));
            }
            try (Socket next = stalledExport(smallRoot, "127.0.0.99", "no-cache, no-store")) {
                Map<String, String> head = RawHttp.head(next);
                assertEquals("HTTP/1.1 503 Service Unavailable", head.get(""));
                assertEquals("1", head.get("retry-after"));
            }
            Matcher logged = LIMITS.matcher(logs());
            assertTrue(logged.find(), "the bounds are logged at the first export");
            assertEquals(List.of(max, perUser, requestThreads),
                    List.of(Integer.parseInt(logged.group(1)), Integer.parseInt(logged.group(2)),
                            Integer.parseInt(logged.group(3))));
        } finally {
            for (Socket s : held) s.close();
        }
        awaitAdmitted("a small export once the held ones are closed");
    }

    /**
     * The partitions of one export streaming at once hold one slot of their user, however many they are, up to
     * max_partitions_streaming (default: the processors, at most max_concurrent); one more partition of that export is
     * refused naming that setting, while another export of the same user is still admitted.
     */
    @Test
    void thePartitionsOfOneExportHoldOneSlotOfTheirUserUpToMaxPartitionsStreaming() throws Exception {
        awaitAdmitted("before the test");
        int max = Math.max(1, requestThreads() / 2);
        int partitions = Math.min(Runtime.getRuntime().availableProcessors(), max);
        assumeTrue(partitions < max, "the server's bound must leave room for one more export");
        String path = traverse(bulkRoot) + "&partitions=" + (partitions + 1) + "&partition=";
        List<Socket> held = new ArrayList<>();
        try {
            // partition 0 holds every record of the bulk export (its 97 records are one block), so only its streams
            // stall; what admission counts is streams of the export, whichever partition each is
            for (int i = 0; i < partitions; i++) {
                Socket s = stalledRequest(path + 0, "127.0.0.1", "no-cache, no-store");
                held.add(s);
                assertEquals("HTTP/1.1 200 OK", RawHttp.head(s).get(""), "partition " + i);
            }
            RawHttp.Response refused = RawHttp.get(neo4j.httpURI(), path + partitions);
            assertEquals(503, refused.status(), () -> refused.text());
            assertTrue(refused.text().contains(ExportSettings.MAX_PARTITIONS_STREAMING.name()), refused.text());
            assertEquals("1", refused.headers().get("retry-after"));
            if (derivedPerUser() >= 2) {
                assertEquals(200, RawHttp.get(neo4j.httpURI(), traverse(smallRoot)).status(),
                        partitions + " partitions of one export hold one of the user's " + derivedPerUser() + " slots");
            }
        } finally {
            for (Socket s : held) s.close();
        }
        awaitAdmitted("a small export once the partitions are closed");
    }

    @Test
    void aStalledClientOnACachedResponseHoldsASlotUntilTheStallTimeoutEndsIt() throws Exception {
        awaitAdmitted("before the test");
        HttpResponse<byte[]> fill = ExportHttp.send(HttpRequest.newBuilder(neo4j.httpURI().resolve(traverse(bulkRoot)))
                .header("Cache-Control", "no-cache").build());
        assertEquals(200, fill.statusCode());
        int size = fill.body().length;
        assertTrue(size > 20_000_000, "the response is far larger than the socket buffers: " + size);
        int endedBefore = count(logs(), "cached export to json client ended early: the client read nothing for "
                + STALL_MILLIS + " ms");

        // Clients of one address take the cached response and stop reading: every slot of that "user" is held
        List<Socket> stalled = new ArrayList<>();
        for (int i = 0; i < derivedPerUser(); i++) stalled.add(stalledExport(bulkRoot, "127.0.0.1", null));
        long t0 = System.nanoTime();
        try {
            for (Socket s : stalled) {
                Map<String, String> head = RawHttp.head(s);
                assertEquals("HTTP/1.1 200 OK", head.get(""));
                assertEquals("hit", head.get(ETags.CACHE_HEADER.toLowerCase(Locale.ROOT)), head::toString);
            }
            RawHttp.Response third = RawHttp.get(neo4j.httpURI(), traverse(smallRoot));
            assertEquals(503, third.status(), "cache hits count against the bounds");
            assertEquals("1", third.headers().get("retry-after"));
            // the stall timeout ends both, well before Jetty's idle timeout (30 s): the slots come back
            long freedMillis = awaitAdmitted("after the stalled cache hits");
            long sinceStall = (System.nanoTime() - t0) / 1_000_000;
            System.out.printf("AdmissionTest: stalled cache hits ended; slot free again %d ms after they started%n",
                    sinceStall);
            assertTrue(sinceStall >= STALL_MILLIS - 500 && sinceStall < STALL_MILLIS + 5_000,
                    "freed " + sinceStall + " ms after the stall began (" + freedMillis + " ms of polling)");
            for (Socket s : stalled) {
                long received = drain(s);
                assertTrue(received < size, "the aborted response ended short: " + received + " of " + size);
            }
        } finally {
            for (Socket s : stalled) s.close();
        }
        assertEquals(endedBefore + stalled.size(), count(logs(), "cached export to json client ended early: the client read nothing for "
                + STALL_MILLIS + " ms"), "the server logged each as ended by the stall timeout");
    }

    @Test
    void theJavaClientWaitsOutABusyServerAndGivesUpWithTheBusyErrorWithoutABudget() throws Exception {
        awaitAdmitted("before the test");
        HttpRequest request = ContentEncodings.request(neo4j.httpURI().resolve(traverse(smallRoot))).build();
        List<Socket> held = new ArrayList<>();
        try {
            // hold every slot of this address
            while (held.size() < derivedPerUser()) {
                Socket s = stalledExport(bulkRoot, "127.0.0.1", "no-cache, no-store");
                held.add(s);
                assertEquals("HTTP/1.1 200 OK", RawHttp.head(s).get(""));
            }
            ExportRequestException busy = assertThrows(ExportRequestException.class,
                    () -> ExportReader.open(BusyRetry.NONE.send(HTTP, request)));
            assertEquals(503, busy.status());
            assertEquals(ExportAdmission.BUSY, busy.code());

            // released 1.5 s from now: the default retry (Retry-After: 1 plus jitter, up to 30 s) gets through
            Thread release = Thread.ofVirtual().start(() -> {
                try {
                    Thread.sleep(1_500);
                    for (Socket s : held) s.close();
                } catch (InterruptedException | IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            long t0 = System.nanoTime();
            try (ExportReader reader = ExportReader.open(HTTP, request)) {
                assertEquals(100, Subgraph.read(reader).nodes().size());
            }
            long tookMillis = (System.nanoTime() - t0) / 1_000_000;
            release.join();
            System.out.printf("AdmissionTest: the client got through %d ms after its first busy answer%n", tookMillis);
            assertTrue(tookMillis >= 1_000, "it waited for the slot: " + tookMillis + " ms");
        } finally {
            for (Socket s : held) s.close();
        }
    }

    @Test
    void headRequestsGiveTheirSlotBack() throws Exception {
        awaitAdmitted("before the test");
        for (int i = 0; i < derivedPerUser() + 2; i++) {
            RawHttp.Response head = RawHttp.send(neo4j.httpURI(), "HEAD",
                    traverse(smallRoot).getBytes(StandardCharsets.ISO_8859_1), "", null);
            assertEquals(200, head.status(), "HEAD " + i);
            assertEquals(0, head.body().length);
        }
        assertEquals(0, awaitAdmitted("after HEAD requests, more than a user's slots") / 1000,
                "a GET is admitted at once");
    }

    /** Threads of the server's Jetty pool that serve requests, by Neo4j's own calculator from its settings. */
    private static int requestThreads() {
        JettyThreadCalculator jetty = new JettyThreadCalculator(neo4j.config().get(ServerSettings.webserver_max_threads));
        return jetty.getMaxThreads() - jetty.getAcceptors() - jetty.getSelectors();
    }

    /** The default bound per user: half of the default bound, which is half of the request threads. */
    private static int derivedPerUser() {
        return Math.max(1, Math.max(1, requestThreads() / 2) / 2);
    }

    /** Polls with single requests from 127.0.0.1 until one is admitted (200); returns how long that took, in ms. */
    private static long awaitAdmitted(String when) throws InterruptedException {
        long t0 = System.nanoTime();
        long deadline = t0 + Duration.ofSeconds(STALL_MILLIS / 1000 + 15).toNanos();
        RawHttp.Response r;
        while ((r = RawHttp.get(neo4j.httpURI(), traverse(smallRoot))).status() == 503 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertEquals(200, r.status(), when);
        return (System.nanoTime() - t0) / 1_000_000;
    }

    private static String logs() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        neo4j.printLogs(new PrintStream(out, true, StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    private static int count(String text, String what) {
        return text.split(Pattern.quote(what), -1).length - 1;
    }

    /**
     * A GET of the JSON traverse of {@code root} from the local address {@code from}, with a 4 KiB receive buffer,
     * never read beyond what {@link #responseHead} takes; {@code cacheControl} as the request header, or none.
     */
    private static Socket stalledExport(String root, String from, String cacheControl) throws IOException {
        return stalledRequest(traverse(root), from, cacheControl);
    }

    /** As {@link #stalledExport}, for any path. */
    private static Socket stalledRequest(String path, String from, String cacheControl) throws IOException {
        URI server = neo4j.httpURI();
        Socket socket = new Socket();
        socket.setReceiveBufferSize(4096);
        socket.bind(new InetSocketAddress(from, 0));
        socket.connect(new InetSocketAddress(server.getHost(), server.getPort()), 2_000);
        socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: " + server.getAuthority() + "\r\n"
                + (cacheControl == null ? "" : "Cache-Control: " + cacheControl + "\r\n") + "\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        return socket;
    }

    /** Reads what is left until the server's end of the connection (or a reset): the bytes received. */
    private static long drain(Socket socket) throws IOException {
        socket.setSoTimeout(10_000);
        InputStream in = socket.getInputStream();
        byte[] buffer = new byte[64 * 1024];
        long received = 0;
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) received += n;
        } catch (IOException reset) {
            assertFalse(reset instanceof java.net.SocketTimeoutException, "the server never ended the connection");
        }
        return received;
    }
}
