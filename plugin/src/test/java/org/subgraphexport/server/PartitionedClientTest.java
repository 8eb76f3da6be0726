package org.subgraphexport.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.subgraphexport.server.PartitionsTest.dealtBack;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.ToLongBiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Transaction;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilders;
import org.subgraphexport.client.ContentEncodings;
import org.subgraphexport.client.ElementId;
import org.subgraphexport.client.ExportEnd;
import org.subgraphexport.client.ExportHandler;
import org.subgraphexport.client.ExportHeader;
import org.subgraphexport.client.ExportNode;
import org.subgraphexport.client.ExportParser;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.ExportRecord;
import org.subgraphexport.client.ExportRelationship;
import org.subgraphexport.client.PartitionFailedException;
import org.subgraphexport.client.PartitionedExport;
import org.subgraphexport.client.StateChangedException;
import org.subgraphexport.config.ExportSettings;
import org.subgraphexport.wire.Format;

/**
 * {@link PartitionedExport}, the Java client's partitioned reads, against a real server over real HTTP: for every
 * record format and N in {1, 2, 3, 7}, the merged reader returns the single stream record for record, and the record
 * and streaming APIs on N threads deliver each of its records once. Through a TCP proxy in front of the server that
 * cuts chosen responses: a cut partition is fetched again alone, pinned to the state, with nothing lost or doubled;
 * one cut every time fails after its attempts. A commit between partition 0's answer and partition 1's request
 * (made by the proxy, before it passes the request on) restarts at the new state, or fails naming both states.
 */
class PartitionedClientTest {
    /** Objects in the tree: about 6 * OBJECTS records, 7 blocks and a bit: every partition of 7 has records. */
    private static final int OBJECTS = 300;
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static Neo4j neo4j;
    private static String root;
    private static CuttingProxy proxy;

    @BeforeAll
    static void start() throws IOException {
        neo4j = Neo4jBuilders.newInProcessBuilder()
                .withConfig(BoltConnector.enabled, false)
                .withConfig(ExportSettings.MAX_PARTITIONS_STREAMING, 8)  // the merged reader streams all 7 at once
                .withUnmanagedExtension("/extension", TraverseResource.class)
                .build();
        root = PartitionsTest.graph(neo4j.defaultDatabaseService(), OBJECTS);
        proxy = new CuttingProxy(neo4j.httpURI().getPort());
    }

    @AfterAll
    static void stop() throws IOException {
        if (proxy != null) proxy.close();
        if (neo4j != null) neo4j.close();
    }

    @BeforeEach
    void resetProxy() {
        proxy.reset();
    }

    /** The traverse URL of the root's export in {@code format} on {@code server} (the server itself or the proxy). */
    private static URI url(Format format, URI server) {
        return server.resolve("/extension/" + format.pathSegment() + "/traverse?root=" + ExportHttp.enc(root));
    }

    private static PartitionedExport direct(Format format, int n) {
        return PartitionedExport.of(HTTP, url(format, neo4j.httpURI()), n);
    }

    private static PartitionedExport proxied(Format format, int n) {
        return PartitionedExport.of(HTTP, url(format, proxy.uri()), n);
    }

    /** The single stream, as a reference. */
    record Single(ExportHeader header, List<ExportRecord> records, ExportEnd end) {}

    private static Single single(Format format) throws IOException {
        try (ExportReader reader = ExportReader.open(HTTP,
                ContentEncodings.request(url(format, neo4j.httpURI())).build())) {
            List<ExportRecord> records = new ArrayList<>();
            for (ExportRecord r; (r = reader.next()) != null; ) {
                if (r instanceof ExportEnd end) return new Single(reader.header(), records, end);
                records.add(r);
            }
            throw new AssertionError("no end record");
        }
    }

    /** Everything the merged reader returns, the end record last; its header checked if {@code state} is given. */
    private static List<ExportRecord> merged(PartitionedExport export, String state) throws IOException {
        try (ExportReader reader = export.open()) {
            if (state != null) assertEquals(new ExportHeader(2, "neo4j", root, state, 0, 1), reader.header());
            List<ExportRecord> records = new ArrayList<>();
            for (ExportRecord r; (r = reader.next()) != null; ) {
                records.add(r);
            }
            return records;
        }
    }

    private static List<ExportRecord> withEnd(Single single) {
        List<ExportRecord> all = new ArrayList<>(single.records());
        all.add(single.end());
        return all;
    }

    @ParameterizedTest
    @EnumSource(value = Format.class, names = "ARROW", mode = EnumSource.Mode.EXCLUDE)  // the Java client: no arrow
    void everyWayOfReadingGivesTheSingleStreamExactly(Format format) throws IOException {
        Single whole = single(format);
        for (int n : new int[] {1, 2, 3, 7}) {
            PartitionedExport export = direct(format, n);
            assertEquals(withEnd(whole), merged(export, whole.header().state()), n + " partitions merged");

            Records records = new Records(n);
            assertEquals(whole.end(), export.read(records), "the end record: counts summed, the state");
            assertEquals(whole.records(), dealtBack(records.parts), n + " partitions of records");
            assertEquals(whole.records().size(), new HashSet<>(ids(records.parts)).size(), "each record once");

            Signatures parsed = new Signatures(n);
            assertEquals(whole.end(), export.parse(parsed));
            assertEquals(signatures(whole.records()), dealtBack(parsed.parts), n + " partitions parsed");
            assertEquals(List.of(), records.restarts, "no restart");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Format.class, names = "ARROW", mode = EnumSource.Mode.EXCLUDE)
    void aPartitionCutMidStreamIsFetchedAgainAloneWithNothingLostOrDoubled(Format format) throws IOException {
        Single whole = single(format);
        PartitionedExport export = proxied(format, 3);
        export.read(new Records(3));
        long size = proxy.responseBytes(1, 1);
        assertTrue(size > 4000, "partition 1's response has " + size + " bytes");
        for (String way : List.of("merged", "records", "parsed")) {
            proxy.reset();
            proxy.cut = (partition, fetch) -> partition == 1 && fetch == 1 ? size / 2 : -1;
            Records records = new Records(3);
            AtomicInteger beforeCut = new AtomicInteger(-1);
            proxy.onRequest = (partition, fetch) -> {
                if (partition == 1 && fetch == 2) beforeCut.set(records.parts.get(1).size());
            };
            switch (way) {
                case "merged" -> assertEquals(withEnd(whole), merged(export, whole.header().state()));
                case "records" -> {
                    assertEquals(whole.end(), export.read(records));
                    assertEquals(whole.records(), dealtBack(records.parts), way);
                    // kryo-lzf: the partition is one LZF chunk (64 KiB) that decodes whole or not at all
                    assertTrue(beforeCut.get() > 0 || format == Format.KRYO_LZF,
                            "records delivered before the cut, read past after it: " + beforeCut.get());
                }
                default -> {
                    Signatures parsed = new Signatures(3);
                    assertEquals(whole.end(), export.parse(parsed));
                    assertEquals(signatures(whole.records()), dealtBack(parsed.parts), way);
                }
            }
            assertEquals(Map.of(0, 1, 1, 2, 2, 1), proxy.fetchCounts(), way + ": only the cut partition again");
            assertEquals(size / 2, proxy.responseBytes(1, 1), way + ": cut");
            String again = proxy.target(1, 2);
            assertTrue(again.contains("&state=" + ExportHttp.enc(whole.header().state())), again);
            assertTrue(!proxy.target(0, 1).contains("state="), "partition 0 asks first, without a state");
            assertTrue(proxy.target(2, 1).contains("&state="), "the others carry partition 0's state");
        }
    }

    @Test
    void aPartitionCutEveryTimeFailsAfterItsAttemptsAndCancelsTheOthers() throws IOException {
        PartitionedExport export = proxied(Format.KRYO, 3).attempts(2);
        proxy.plain = false;  // a compressed body cut in the middle
        export.read(new Records(3));
        long size = proxy.responseBytes(2, 1);
        for (String way : List.of("merged", "records")) {
            proxy.reset();
            proxy.plain = false;
            proxy.cut = (partition, fetch) -> partition == 2 ? size / 2 : -1;
            PartitionFailedException failed = assertThrows(PartitionFailedException.class,
                    () -> {
                        if (way.equals("merged")) merged(export, null);
                        else export.read(new Records(3));
                    }, way);
            assertEquals(2, failed.partition());
            assertEquals(3, failed.partitions());
            assertEquals(2, failed.attempts());
            assertEquals(2, proxy.fetchCounts().get(2), way + ": fetched as often as the attempts allow");
            assertInstanceOf(IOException.class, failed.getCause());
            assertEquals(1, failed.getCause().getSuppressed().length, "the first attempt's failure");
            assertTrue(failed.getMessage().startsWith("partition 2 of 3 failed 2 attempts"), failed.getMessage());
        }
    }

    @Test
    void aConsumersExceptionFailsTheReadAsItWasThrown() {
        IllegalStateException mine = new IllegalStateException("the consumer's own failure");
        PartitionedExport export = direct(Format.JSON, 3);
        assertSame(mine, assertThrows(IllegalStateException.class, () -> export.read((partition, records) -> {
            records.next();
            if (partition == 1) throw mine;
            while (records.next() != null) { }
        })));
        IllegalStateException early = assertThrows(IllegalStateException.class,
                () -> export.read((partition, records) -> records.next()));
        assertTrue(early.getMessage().contains("returned before its end record"), early.getMessage());
    }

    /** A commit when partition 1 is first requested: after partition 0 answered, before partition 1 is read. */
    private static String commitBeforePartition1() throws IOException {
        String before = single(Format.KRYO).header().state();
        AtomicBoolean done = new AtomicBoolean();
        proxy.onRequest = (partition, fetch) -> {
            if (partition == 1 && done.compareAndSet(false, true)) {
                try (Transaction tx = neo4j.defaultDatabaseService().beginTx()) {
                    Node child = tx.createNode(Label.label("Object"));
                    child.setProperty("name", "committed between partitions");
                    tx.getNodeByElementId(root).createRelationshipTo(child, FixtureGraph.CHILDREN);
                    tx.commit();
                }
            }
        };
        return before;
    }

    @Test
    void aCommitBetweenPartitionsRestartsAtTheNewState() throws IOException {
        for (String way : List.of("merged", "records", "parsed")) {
            proxy.reset();
            String before = commitBeforePartition1();
            PartitionedExport export = proxied(Format.KRYO, 3);
            Records records = new Records(3);
            Signatures parsed = new Signatures(3);
            List<ExportRecord> result = switch (way) {
                case "merged" -> merged(export, null);
                case "records" -> List.of(export.read(records));
                default -> List.of(export.parse(parsed));
            };
            Single after = single(Format.KRYO);
            String now = after.header().state();
            assertNotEquals(before, now, way + ": the commit happened");
            switch (way) {
                case "merged" -> assertEquals(withEnd(after), result);
                case "records" -> {
                    assertEquals(List.of(before + " -> " + now), records.restarts);
                    assertEquals(after.records(), dealtBack(records.parts));
                    assertEquals(List.of(after.end()), result);
                }
                default -> {
                    assertEquals(List.of(before + " -> " + now), parsed.restarts);
                    assertEquals(signatures(after.records()), dealtBack(parsed.parts));
                }
            }
            assertEquals(2, proxy.fetchCounts().get(1), way + ": partition 1 refused (412), then read anew");
        }
    }

    @Test
    void aCommitBetweenPartitionsFailsNamingBothStatesWhenAskedTo() throws IOException {
        for (String way : List.of("merged", "records", "parsed")) {
            proxy.reset();
            String before = commitBeforePartition1();
            PartitionedExport export = proxied(Format.KRYO, 3).onStateChange(PartitionedExport.OnStateChange.FAIL);
            StateChangedException changed = assertThrows(StateChangedException.class, () -> {
                switch (way) {
                    case "merged" -> merged(export, null);
                    case "records" -> export.read(new Records(3));
                    default -> export.parse(new Signatures(3));
                }
            }, way);
            String now = single(Format.KRYO).header().state();
            assertEquals(before, changed.oldState());
            assertEquals(now, changed.newState());
            assertTrue(changed.getMessage().contains(before) && changed.getMessage().contains(now),
                    changed.getMessage());
        }
    }

    // ---- consumers ---------------------------------------------------------------------------------------------

    /** What a consumer received, per partition in order; dropped on a restart, which is noted. */
    abstract static class Received<T> {
        final List<List<T>> parts = new ArrayList<>();
        final List<String> restarts = new CopyOnWriteArrayList<>();

        Received(int n) {
            for (int i = 0; i < n; i++) parts.add(Collections.synchronizedList(new ArrayList<>()));
        }

        public void restarted(String oldState, String newState) {
            restarts.add(oldState + " -> " + newState);
            parts.forEach(List::clear);
        }
    }

    /** The record API's records. */
    static final class Records extends Received<ExportRecord> implements PartitionedExport.RecordConsumer {
        Records(int n) {
            super(n);
        }

        @Override
        public void accept(int partition, ExportReader records) throws IOException {
            assertEquals(partition, records.header().partition());
            assertEquals(parts.size(), records.header().partitions());
            for (ExportRecord r; (r = records.next()) != null; ) {
                if (!(r instanceof ExportEnd)) parts.get(partition).add(r);
            }
        }
    }

    /** The streaming API's records, each as a signature string built from the handler's calls. */
    static final class Signatures extends Received<String> implements PartitionedExport.ParserConsumer {
        Signatures(int n) {
            super(n);
        }

        @Override
        public void accept(int partition, ExportParser parser) throws IOException {
            StringBuilder record = new StringBuilder();
            ExportHandler handler = new ExportHandler() {
                @Override
                public void node(ElementId id) {
                    record.setLength(0);
                    record.append("node ").append(id);
                }

                @Override
                public void label(String label) {
                    record.append(" :").append(label);
                }

                @Override
                public void relationship(ElementId id, String type, ElementId start, ElementId end) {
                    record.setLength(0);
                    record.append("relationship ").append(id).append(' ').append(type).append(' ').append(start)
                            .append(' ').append(end);
                }

                @Override
                public void property(String key) {
                    record.append(' ').append(key).append('=');
                }

                @Override
                public void objectValue(Object value) {
                    record.append(show(value));
                }
            };
            for (ExportParser.Kind kind; (kind = parser.next(handler)) != null; ) {
                if (kind != ExportParser.Kind.END) parts.get(partition).add(record.toString());
            }
        }
    }

    private static List<String> signatures(List<ExportRecord> records) {
        List<String> all = new ArrayList<>();
        for (ExportRecord r : records) {
            StringBuilder s = new StringBuilder();
            Map<String, Object> properties;
            if (r instanceof ExportNode n) {
                s.append("node ").append(n.id());
                n.labels().forEach(label -> s.append(" :").append(label));
                properties = n.properties();
            } else {
                ExportRelationship rel = (ExportRelationship) r;
                s.append("relationship ").append(rel.id()).append(' ').append(rel.type()).append(' ')
                        .append(rel.start()).append(' ').append(rel.end());
                properties = rel.properties();
            }
            properties.forEach((key, value) -> s.append(' ').append(key).append('=').append(show(value)));
            all.add(s.toString());
        }
        return all;
    }

    private static String show(Object value) {
        return value != null && value.getClass().isArray()
                ? Arrays.deepToString(new Object[] {value}) : String.valueOf(value);
    }

    private static List<String> ids(List<List<ExportRecord>> parts) {
        List<String> ids = new ArrayList<>();
        for (List<ExportRecord> part : parts) {
            for (ExportRecord r : part) ids.add(r instanceof ExportNode n ? n.id() : ((ExportRelationship) r).id());
        }
        return ids;
    }

    // ---- the proxy ---------------------------------------------------------------------------------------------

    /**
     * A TCP proxy on 127.0.0.1 in front of the server's HTTP port. It reads each request's head (GET requests: no
     * body; the JDK client sends one request at a time per connection), counts the fetches of each partition
     * ({@code partition=i}), runs {@link #onRequest} before passing the request on, and lets through only
     * {@link #cut} bytes of the response (then closes both sides), or all of it for -1. Requests go on without
     * {@code Accept-Encoding} unless {@link #plain} is off.
     */
    static final class CuttingProxy implements AutoCloseable {
        private static final Pattern PARTITION = Pattern.compile("[?&]partition=(\\d+)");
        private static final Pattern ACCEPT_ENCODING = Pattern.compile("(?im)^accept-encoding:[^\\r]*\\r\\n");
        /** How long a cut waits after its last bytes (the JDK client drops what it has not read when it fails). */
        private static final long LINGER_MILLIS = 200;
        private final ServerSocket listener;
        private final int serverPort;
        private final ExecutorService threads = Executors.newCachedThreadPool(task -> {
            Thread t = new Thread(task, "cutting-proxy");
            t.setDaemon(true);
            return t;
        });
        private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
        /** Per partition, its fetches in order: the request target and the response bytes let through. */
        private final Map<Integer, List<Fetch>> fetches = new ConcurrentHashMap<>();
        volatile ToLongBiFunction<Integer, Integer> cut;
        volatile BiConsumer<Integer, Integer> onRequest;
        /**
         * Whether requests go on without {@code Accept-Encoding}: a compressed body cut in half may decompress to
         * nothing at all (a zstd block is decoded whole), a plain one to half its records.
         */
        volatile boolean plain;

        record Fetch(String target, AtomicLong bytes) {}

        CuttingProxy(int serverPort) throws IOException {
            this.serverPort = serverPort;
            this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            reset();
            threads.execute(this::accept);
        }

        URI uri() {
            return URI.create("http://127.0.0.1:" + listener.getLocalPort() + "/");
        }

        void reset() {
            fetches.clear();
            cut = (partition, fetch) -> -1;
            onRequest = (partition, fetch) -> { };
            plain = true;
        }

        Map<Integer, Integer> fetchCounts() {
            Map<Integer, Integer> counts = new TreeMap<>();
            fetches.forEach((partition, list) -> counts.put(partition, list.size()));
            return counts;
        }

        long responseBytes(int partition, int fetch) {
            return fetches.get(partition).get(fetch - 1).bytes().get();
        }

        String target(int partition, int fetch) {
            return fetches.get(partition).get(fetch - 1).target();
        }

        private void accept() {
            while (!listener.isClosed()) {
                try {
                    Socket client = listener.accept();
                    Socket server = new Socket(InetAddress.getLoopbackAddress(), serverPort);
                    sockets.add(client);
                    sockets.add(server);
                    Connection connection = new Connection(client, server);
                    threads.execute(connection::requests);
                    threads.execute(connection::responses);
                } catch (IOException closed) {
                    return;
                }
            }
        }

        @Override
        public void close() throws IOException {
            listener.close();
            for (Socket s : sockets) s.close();
            threads.shutdownNow();
        }

        private final class Connection {
            private final Socket client;
            private final Socket server;
            /** Bytes of the current response still to let through; -1: all. */
            private final AtomicLong budget = new AtomicLong(-1);
            private volatile Fetch current;

            Connection(Socket client, Socket server) {
                this.client = client;
                this.server = server;
            }

            void requests() {
                try (InputStream in = new BufferedInputStream(client.getInputStream())) {
                    OutputStream out = server.getOutputStream();
                    ByteArrayOutputStream head = new ByteArrayOutputStream();
                    for (int b; (b = in.read()) >= 0; ) {
                        head.write(b);
                        byte[] h = head.toByteArray();
                        int n = h.length;
                        if (n >= 4 && h[n - 4] == '\r' && h[n - 3] == '\n' && h[n - 2] == '\r' && h[n - 1] == '\n') {
                            String request = new String(h, StandardCharsets.ISO_8859_1);
                            request(request);
                            out.write((plain ? ACCEPT_ENCODING.matcher(request).replaceAll("") : request)
                                    .getBytes(StandardCharsets.ISO_8859_1));
                            out.flush();
                            head.reset();
                        }
                    }
                } catch (IOException closed) {
                    // either side went
                } finally {
                    closeBoth();
                }
            }

            private void request(String head) {
                String target = head.substring(0, head.indexOf('\r')).split(" ")[1];
                Matcher m = PARTITION.matcher(target);
                int partition = m.find() ? Integer.parseInt(m.group(1)) : -1;
                Fetch fetch = new Fetch(target, new AtomicLong());
                List<Fetch> list = fetches.computeIfAbsent(partition, p -> new CopyOnWriteArrayList<>());
                list.add(fetch);
                current = fetch;
                onRequest.accept(partition, list.size());
                budget.set(cut.applyAsLong(partition, list.size()));
            }

            void responses() {
                try (InputStream in = server.getInputStream()) {
                    OutputStream out = client.getOutputStream();
                    byte[] buffer = new byte[8192];
                    for (int n; (n = in.read(buffer)) >= 0; ) {
                        long left = budget.get();
                        int pass = left < 0 ? n : (int) Math.min(n, left);
                        out.write(buffer, 0, pass);
                        out.flush();
                        current.bytes().addAndGet(pass);
                        if (left >= 0) {
                            budget.set(left - pass);
                            if (left - pass == 0) {  // the cut, a moment after the last bytes: the client reads them
                                Thread.sleep(LINGER_MILLIS);
                                return;
                            }
                        }
                    }
                } catch (IOException closed) {
                    // either side went
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    closeBoth();
                }
            }

            private void closeBoth() {
                try {
                    client.close();
                    server.close();
                } catch (IOException ignored) {
                    // closed already
                }
                sockets.remove(client);
                sockets.remove(server);
            }
        }
    }
}
