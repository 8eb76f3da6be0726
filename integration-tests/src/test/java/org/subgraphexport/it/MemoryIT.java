package org.subgraphexport.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.subgraphexport.client.ExportEnd;
import org.subgraphexport.client.ExportNode;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.ExportRecord;
import org.subgraphexport.client.ExportRelationship;
import org.subgraphexport.wire.Format;

/**
 * Constant server memory, measured: a real server (the packaged plugin, see {@link RealNeo4jServer}) with a
 * {@value #HEAP_MB} MB heap holds a subgraph whose export is several times the heap (a root with {@value #CHILDREN}
 * children, each carrying a 100 KB string and a 50 KB byte array, random so that LZF cannot shrink them). Every
 * format is exported in full and streamed through the client decoder record by record, never collected; the
 * counts, the end record and every child's values are checked. The server's heap in use after a full GC
 * ({@code jcmd <pid> GC.run}, then {@code GC.heap_info}) is measured before the exports and after each one, and
 * must return to where it started (within {@value #MARGIN_MB} MB). The same subgraph through the Cypher endpoint
 * (Kryo) is checked the same way.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MemoryIT {
    static final int HEAP_MB = 128;
    static final int CHILDREN = 8_000;
    static final int STRING_CHARS = 100_000;
    static final int BYTES = 50_000;
    static final int BATCH = 100;
    static final int MARGIN_MB = 32;
    /** Each format's export must be at least this many times the server's maximum heap. */
    static final int RATIO = 3;

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private RealNeo4jServer server;
    private String rootId;
    private long loadMillis;

    @BeforeAll
    void startAndLoad() throws Exception {
        server = RealNeo4jServer.start("memory", null, List.of("-Xms" + HEAP_MB + "m", "-Xmx" + HEAP_MB + "m"));
        long t0 = System.nanoTime();
        Random random = new Random(20261122);
        try (Driver bolt = server.bolt(AuthTokens.none())) {
            rootId = bolt.executableQuery("CREATE (r:MemRoot {name: 'root'}) RETURN elementId(r) AS id")
                    .execute().records().get(0).get("id").asString();
            for (int from = 1; from <= CHILDREN; from += BATCH) {
                // One string and one byte array per batch, sent once and stored for each node of the batch: the
                // load transaction stays ~15 MB, and no two nodes share an LZF window (8 KiB) with each other.
                bolt.executableQuery("""
                        MATCH (r:MemRoot)
                        UNWIND range($from, $to) AS i
                        CREATE (r)-[:CHILDREN {i: i}]->(:Big {i: i, s: $s, b: $b})""")
                        .withParameters(Map.of("from", from, "to", Math.min(CHILDREN, from + BATCH - 1),
                                "s", randomText(random, STRING_CHARS), "b", randomBytes(random, BYTES)))
                        .execute();
            }
        }
        loadMillis = (System.nanoTime() - t0) / 1_000_000;
        System.out.printf("MemoryIT: loaded %,d children (%,d MB of property data) in %.1f s%n", CHILDREN,
                (long) CHILDREN * (STRING_CHARS + BYTES) >> 20, loadMillis / 1e3);
    }

    @AfterAll
    void stop() {
        if (server != null) server.close();
    }

    @Test
    void everyFormatExportsInFullAndTheHeapReturnsToWhereItStarted() throws Exception {
        long maxHeap = maxHeapBytes();
        assertEquals((long) HEAP_MB << 20, maxHeap, "the server runs with the heap this test asks for");
        long before = heapUsedAfterGc();
        System.out.printf("MemoryIT: server max heap %d MB, heap used after GC before the exports: %.1f MB%n",
                maxHeap >> 20, before / 1048576.0);

        long after = before;
        for (Format format : Format.values()) {
            long t0 = System.nanoTime();
            long bytes = format.clientDecodes() ? exportAndCheck(format) : arrowExportAndCheck();
            double seconds = (System.nanoTime() - t0) / 1e9;
            after = heapUsedAfterGc();
            String line = String.format("%-8s %,15d bytes (%4.1fx max heap) in %5.1f s (%6.1f MB/s); heap used after GC %.1f MB",
                    format.pathSegment(), bytes, (double) bytes / maxHeap, seconds, bytes / 1048576.0 / seconds,
                    after / 1048576.0);
            System.out.println("MemoryIT: " + line);
            assertTrue(bytes >= RATIO * maxHeap, () -> format + " export of " + bytes
                    + " bytes is not " + RATIO + "x the server's max heap " + maxHeap);
            assertTrue(after <= before + ((long) MARGIN_MB << 20), String.format(
                    "heap used after GC grew from %.1f MB to %.1f MB with the %s export", before / 1048576.0,
                    after / 1048576.0, format));
        }
        // A partitioned export: three partitions, one after the other, together every child once; the heap stays flat.
        long p0 = System.nanoTime();
        BitSet children = new BitSet(CHILDREN + 1);
        long partitionedBytes = 0;
        long[] counts = new long[2];
        for (int i = 0; i < 3; i++) {
            partitionedBytes += exportAndCheck(Format.KRYO, HttpRequest.newBuilder(server.httpUri.resolve(
                    "/extension/kryo/traverse?partitions=3&partition=" + i + "&root="
                            + URLEncoder.encode(rootId, StandardCharsets.UTF_8))).GET(), true, children, counts);
        }
        assertEquals(CHILDREN, children.cardinality(), "the partitions together: every child once");
        assertEquals(CHILDREN + 1, counts[0], "partitioned: nodes");
        assertEquals(CHILDREN, counts[1], "partitioned: relationships");
        after = heapUsedAfterGc();
        System.out.printf("MemoryIT: kryo in 3 partitions %,15d bytes in %5.1f s; heap used after GC %.1f MB%n",
                partitionedBytes, (System.nanoTime() - p0) / 1e9, after / 1048576.0);
        assertTrue(after <= before + ((long) MARGIN_MB << 20), String.format(
                "heap used after GC grew from %.1f MB to %.1f MB with the partitioned export", before / 1048576.0,
                after / 1048576.0));

        // The Cypher endpoint streams the same subgraph while the query runs (one row per child).
        long t0 = System.nanoTime();
        long bytes = exportAndCheck(Format.KRYO, HttpRequest.newBuilder(server.httpUri.resolve("/extension/kryo/cypher"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                        "{\"query\": \"MATCH (r:MemRoot)-[c:CHILDREN]->(b:Big) RETURN r, c, b\"}")), false);
        double seconds = (System.nanoTime() - t0) / 1e9;
        after = heapUsedAfterGc();
        System.out.printf("MemoryIT: cypher/kryo %,15d bytes (%4.1fx max heap) in %5.1f s (%6.1f MB/s); heap used after GC %.1f MB%n",
                bytes, (double) bytes / maxHeap, seconds, bytes / 1048576.0 / seconds, after / 1048576.0);
        assertTrue(after <= before + ((long) MARGIN_MB << 20), String.format(
                "heap used after GC grew from %.1f MB to %.1f MB with the Cypher export", before / 1048576.0, after / 1048576.0));

        System.out.printf("MemoryIT: load %.1f s; heap used after GC: before %.1f MB, after all exports %.1f MB "
                + "(max heap %d MB)%n", loadMillis / 1e3, before / 1048576.0, after / 1048576.0, maxHeap >> 20);
        String log = Files.readString(server.home.resolve("logs/neo4j.log"));
        assertFalse(log.contains("OutOfMemoryError"), "the server ran out of heap:\n" + server.logs());
    }

    private long exportAndCheck(Format format) throws Exception {
        return exportAndCheck(format, traverse(format), true);
    }

    /** The traverse export of the big subgraph in {@code format}. */
    private HttpRequest.Builder traverse(Format format) {
        return HttpRequest.newBuilder(server.httpUri.resolve("/extension/" + format.pathSegment() + "/traverse?root="
                + URLEncoder.encode(rootId, StandardCharsets.UTF_8))).GET();
    }

    /**
     * Streams the arrow export (the Java client reads no arrow; pytest checks its values) and checks that it ends
     * complete: the closing batch's metadata with the exact counts, then the end-of-stream marker. Returns its bytes.
     */
    private long arrowExportAndCheck() throws Exception {
        HttpResponse<InputStream> response = HTTP.send(traverse(Format.ARROW).timeout(Duration.ofMinutes(3)).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, response.statusCode(), () -> "arrow: " + body(response));
        byte[] tail = new byte[4096];
        long count = 0;
        try (InputStream in = response.body()) {
            byte[] buffer = new byte[1 << 16];
            for (int n; (n = in.read(buffer)) > 0; count += n) {
                int keep = Math.min(n, tail.length);
                System.arraycopy(tail, keep, tail, 0, tail.length - keep);
                System.arraycopy(buffer, n - keep, tail, tail.length - keep, keep);
            }
        }
        assertArrayEquals(new byte[] {-1, -1, -1, -1, 0, 0, 0, 0}, Arrays.copyOfRange(tail, tail.length - 8,
                tail.length), "arrow: the end-of-stream marker last");
        String closing = new String(tail, StandardCharsets.ISO_8859_1);
        for (String s : new String[] {"subgraph.record", "end", "subgraph.nodes", Integer.toString(CHILDREN + 1),
                "subgraph.relationships", Integer.toString(CHILDREN), "subgraph.truncated", "false"}) {
            assertTrue(closing.contains(s), "arrow: the closing batch's metadata has " + s);
        }
        return count;
    }

    /** Streams one full export through the client decoder, checking every record; returns the bytes received. */
    private long exportAndCheck(Format format, HttpRequest.Builder request, boolean traverse) throws Exception {
        BitSet seen = new BitSet(CHILDREN + 1);
        long[] counts = new long[2];
        long bytes = exportAndCheck(format, request, traverse, seen, counts);
        assertEquals(CHILDREN + 1, counts[0], format + " nodes");
        assertEquals(CHILDREN, counts[1], format + " relationships");
        assertEquals(CHILDREN, seen.cardinality(), format + ": every child once");
        return bytes;
    }

    /**
     * Streams one export (or one partition of it) through the client decoder, checking every record, marking each
     * child in {@code seen} (none twice) and adding the nodes and relationships to {@code counts}; the end record
     * must count exactly the stream's records and name the state its header names. Returns the bytes received.
     */
    private long exportAndCheck(Format format, HttpRequest.Builder request, boolean traverse, BitSet seen,
            long[] counts) throws Exception {
        HttpResponse<InputStream> response = HTTP.send(request.timeout(Duration.ofMinutes(3)).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, response.statusCode(), () -> format + ": " + body(response));
        CountingStream counted = new CountingStream(response.body());
        long nodes = 0;
        long relationships = 0;
        ExportEnd end = null;
        String state;
        try (ExportReader reader = ExportReader.open(format, counted)) {
            assertEquals(traverse ? rootId : "", reader.header().root());
            state = reader.header().state();
            assertEquals(response.headers().firstValue("Subgraph-Export-State").orElse(null), state);
            for (ExportRecord r; (r = reader.next()) != null; ) {
                switch (r) {
                    case ExportNode n -> {
                        nodes++;
                        if (n.labels().contains("Big")) {
                            int i = Math.toIntExact((Long) n.properties().get("i"));
                            assertFalse(seen.get(i), "child " + i + " twice");
                            seen.set(i);
                            assertEquals(STRING_CHARS, assertInstanceOf(String.class, n.properties().get("s")).length());
                            assertEquals(BYTES, assertInstanceOf(byte[].class, n.properties().get("b")).length);
                        } else {
                            assertEquals(rootId, n.id());
                        }
                    }
                    case ExportRelationship rel -> {
                        relationships++;
                        assertEquals("CHILDREN", rel.type());
                        assertEquals(rootId, rel.start());
                    }
                    case ExportEnd e -> end = e;
                    default -> throw new AssertionError(format + ": unexpected record " + r);
                }
            }
            assertNull(reader.next());
        }
        assertNotNull(end, format + ": no end record");
        assertEquals(new ExportEnd(nodes, relationships, false, 0, state), end, format + " end record");
        counts[0] += nodes;
        counts[1] += relationships;
        return counted.count;
    }

    private static String body(HttpResponse<InputStream> response) {
        try (InputStream in = response.body()) {
            return new String(in.readNBytes(2000), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return e.toString();
        }
    }

    // ---- the server's heap, through jcmd ----

    private static final Pattern HEAP_USED = Pattern.compile("garbage-first heap\\s+total reserved \\d+K, committed \\d+K, used (\\d+)K");
    private static final Pattern MAX_HEAP = Pattern.compile("-XX:MaxHeapSize=(\\d+)");

    /** Heap in use after a full collection ({@code jcmd GC.run}: System.gc(), a full, compacting GC with G1). */
    private long heapUsedAfterGc() throws Exception {
        jcmd("GC.run");
        String info = jcmd("GC.heap_info");
        Matcher m = HEAP_USED.matcher(info);
        assertTrue(m.find(), () -> "no G1 heap line in jcmd GC.heap_info:\n" + info);
        return Long.parseLong(m.group(1)) * 1024;
    }

    private long maxHeapBytes() throws Exception {
        String flags = jcmd("VM.flags");
        Matcher m = MAX_HEAP.matcher(flags);
        assertTrue(m.find(), () -> "no MaxHeapSize in jcmd VM.flags:\n" + flags);
        return Long.parseLong(m.group(1));
    }

    private String jcmd(String command) throws Exception {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Process p = new ProcessBuilder(jcmd.toString(), Long.toString(server.pid()), command)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, () -> "jcmd " + command + " failed:\n" + out);
        return out;
    }

    // ---- data ----

    private static final char[] ALPHABET =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".toCharArray();

    private static String randomText(Random random, int chars) {
        char[] c = new char[chars];
        for (int i = 0; i < chars; i++) c[i] = ALPHABET[random.nextInt(ALPHABET.length)];
        return new String(c);
    }

    private static byte[] randomBytes(Random random, int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private static final class CountingStream extends FilterInputStream {
        long count;

        CountingStream(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) count++;
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) count += n;
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = super.skip(n);
            count += skipped;
            return skipped;
        }
    }
}
