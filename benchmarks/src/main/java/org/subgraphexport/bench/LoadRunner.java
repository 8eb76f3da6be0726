package org.subgraphexport.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.net.InetAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.Transaction;
import org.neo4j.graphdb.config.Setting;
import org.subgraphexport.client.BusyRetry;
import org.subgraphexport.client.ExportParser;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.ExportRequestException;
import org.subgraphexport.config.ExportSettings;
import org.subgraphexport.testkit.DemoGraph;
import org.subgraphexport.wire.Format;

/**
 * Issue 17's load figure: many export clients at once against one server. {@code small} clients export a root with
 * {@code smallChildren} children (1,000 nodes by default) and {@code large} clients the whole demo graph, all started
 * together, each with its own {@link HttpClient} and, by default, its own loopback address (127.0.x.y: with
 * authentication off that is its own user for the per-user bound). Clients use the Java client with its
 * {@link BusyRetry}: a {@code 503} with {@code Retry-After} is waited out within the busy-wait budget. Every response
 * must be complete (its end record, counts as the single-client answer) and byte-identical to the single-client
 * answer for the same request (SHA-256 of the body); the report gives the small exports' latency percentiles (from
 * the first request to the last byte decoded, waits included), the retries, and the heap in use, sampled every
 * 50 ms while the clients run (client and server share this JVM: the server's heap plus the clients').
 *
 * <p>Requests carry {@code Cache-Control: no-cache, no-store}: every export reads the store (the response cache is
 * on in {@link BenchServer}). No compression is asked for: the bodies are the identity coding.
 */
final class LoadRunner {
    private static final RelationshipType CHILDREN = RelationshipType.withName("CHILDREN");

    record Options(int objects, int small, int large, int smallChildren, int maxConcurrent, int maxPerUser,
            Duration busyWait, Format format, boolean distinctUsers, long seed, Path out, String command) {
        static Options quick(Path out) {
            return new Options(300, 20, 2, 99, 0, 0, Duration.ofSeconds(30), Format.KRYO, true,
                    DemoGraph.DEFAULT_SEED, out, "quick");
        }
    }

    /** What a client got for a request: the body's digest, and the decoded counts. */
    record Answer(byte[] sha256, long nodes, long relationships) {
        boolean sameAs(Answer other) {
            return Arrays.equals(sha256, other.sha256) && nodes == other.nodes && relationships == other.relationships;
        }
    }

    /** The single-client answer, its body's size, and how long it took each of three times. */
    record Reference(Answer answer, long bytes, List<Long> millis) {}

    /** One client's export: status 200 with its answer, or the final status and code; waits included in millis. */
    record Outcome(boolean large, long millis, int status, String code, Answer answer, int retries, String error) {}

    record Report(Options options, Environment environment, int threads, long graphNodes, long graphRelationships,
            Reference small, Reference large,
            List<Outcome> outcomes, long wallMillis, long heapBefore, long heapMax, long heapAfterGcMax, int collections,
            long heapAfter, int heapSamples) {

        List<Outcome> of(boolean large) {
            return outcomes.stream().filter(o -> o.large() == large).toList();
        }

        /** Outcomes that are complete and identical to the single-client answer. */
        long identical(boolean large) {
            Answer reference = (large ? this.large : small).answer();
            return of(large).stream().filter(o -> o.answer() != null && o.answer().sameAs(reference)).count();
        }
    }

    private LoadRunner() {}

    public static void main(String[] args) throws Exception {
        Options o = parse(args);
        Report report = run(o, System.out);
        Path md = write(report);
        System.out.println(Files.readString(md));
        System.out.println("written to " + md);
        boolean allGood = report.identical(false) == o.small() && report.identical(true) == o.large();
        System.exit(allGood ? 0 : 1);
    }

    private static Options parse(String[] args) {
        Map<String, String> a = new LinkedHashMap<>();
        for (String arg : args) {
            if (arg.equals("-h") || arg.equals("--help")) {
                System.out.println(usage());
                System.exit(0);
            }
            int eq = arg.indexOf('=');
            if (!arg.startsWith("--") || eq < 0) throw new IllegalArgumentException("expected --name=value: " + arg);
            a.put(arg.substring(2, eq), arg.substring(eq + 1));
        }
        Options o = new Options(
                Integer.parseInt(a.getOrDefault("objects", Integer.toString(DemoGraph.DEFAULT_OBJECTS))),
                Integer.parseInt(a.getOrDefault("small", "200")),
                Integer.parseInt(a.getOrDefault("large", "10")),
                Integer.parseInt(a.getOrDefault("small-children", "999")),
                Integer.parseInt(a.getOrDefault("max-concurrent", "0")),
                Integer.parseInt(a.getOrDefault("max-per-user", "0")),
                Duration.ofSeconds(Long.parseLong(a.getOrDefault("busy-wait", "30"))),
                Format.valueOf(a.getOrDefault("format", "kryo").toUpperCase(Locale.ROOT).replace('-', '_')),
                !Boolean.parseBoolean(a.getOrDefault("same-user", "false")),
                Long.parseLong(a.getOrDefault("seed", Long.toString(DemoGraph.DEFAULT_SEED))),
                Path.of(a.getOrDefault("out", "benchmarks/results/load.md")),
                heapPrefix() + "scripts/load" + (args.length == 0 ? "" : " " + String.join(" ", args)));
        a.keySet().removeAll(List.of("objects", "small", "large", "small-children", "max-concurrent", "max-per-user",
                "busy-wait", "format", "same-user", "seed", "out"));
        if (!a.isEmpty()) throw new IllegalArgumentException("unknown options " + a.keySet() + "\n" + usage());
        return o;
    }

    /** {@code LOAD_HEAP=…} as scripts/load was given it (passed on as a system property), unless the default. */
    private static String heapPrefix() {
        String heap = System.getProperty("subgraphexport.load.heap", "4g");
        return heap.equals("4g") ? "" : "LOAD_HEAP=" + heap + " ";
    }

    static String usage() {
        return """
                LoadRunner: many export clients at once against one in-process server (issue 17's load figure)
                  --objects=N          demo graph size (the large exports' root is its root). Default 10000
                  --small=N            clients exporting the small root. Default 200
                  --large=N            clients exporting the whole demo graph. Default 10
                  --small-children=N   children of the small root (nodes = N + 1). Default 999
                  --max-concurrent=N   server.subgraph_export.max_concurrent (0: the server's default). Default 0
                  --max-per-user=N     server.subgraph_export.max_concurrent_per_user (0: default). Default 0
                  --busy-wait=S        each client's BusyRetry budget in seconds (0: no retry). Default 30
                  --format=F           kryo, kryo-lzf, json, bson. Default kryo
                  --same-user=true     every client from 127.0.0.1 (one user for the per-user bound). Default false
                  --out=FILE           the markdown report. Default benchmarks/results/load.md
                """;
    }

    static Report run(Options o, PrintStream log) throws Exception {
        Environment environment = Environment.capture();
        Map<Setting<?>, Object> settings = Map.of(ExportSettings.MAX_CONCURRENT, o.maxConcurrent(),
                ExportSettings.MAX_CONCURRENT_PER_USER, o.maxPerUser());
        try (BenchServer server = BenchServer.start(null, o.objects(), o.seed(), null, settings, log)) {
            String smallRoot = createSmallRoot(server, o.smallChildren());
            URI small = export(server, o.format(), smallRoot);
            URI large = export(server, o.format(), server.graph.rootElementId());
            HttpClient single = HttpClient.newHttpClient();
            // single-client answers, three times each (the first warms up): all three must agree
            Reference smallReference = reference(single, small, o.format());
            Reference largeReference = reference(single, large, o.format());
            log.printf("single client: small %s ms (%,d bytes), large %s ms (%,d bytes)%n", smallReference.millis(),
                    smallReference.bytes(), largeReference.millis(), largeReference.bytes());

            long heapBefore = BenchServer.heapUsedAfterGc();
            MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
            AtomicLong heapMax = new AtomicLong();
            AfterGc afterGc = AfterGc.listen();
            AtomicInteger samples = new AtomicInteger();
            Thread sampler = Thread.ofPlatform().daemon().name("load-heap-sampler").start(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    heapMax.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
                    samples.incrementAndGet();
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });

            int clients = o.small() + o.large();
            Outcome[] outcomes = new Outcome[clients];
            CountDownLatch ready = new CountDownLatch(clients);
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            boolean[] largeAt = new boolean[clients];  // the large clients spread evenly among the small ones
            for (int k = 0; k < o.large(); k++) largeAt[(int) ((k + 0.5) * clients / o.large())] = true;
            for (int i = 0; i < clients; i++) {
                boolean isLarge = largeAt[i];
                int index = i;
                HttpClient.Builder builder = HttpClient.newBuilder();
                if (o.distinctUsers()) builder.localAddress(loopback(i));
                HttpClient http = builder.build();
                URI uri = isLarge ? large : small;
                threads.add(Thread.ofPlatform().name("load-client-" + i).start(() -> {
                    ready.countDown();
                    try {
                        go.await();
                        outcomes[index] = exportOnce(http, uri, o, isLarge);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }));
            }
            ready.await();
            long t0 = System.nanoTime();
            go.countDown();
            for (Thread t : threads) t.join();
            long wallMillis = (System.nanoTime() - t0) / 1_000_000;
            sampler.interrupt();
            sampler.join();
            afterGc.close();
            long heapAfter = BenchServer.heapUsedAfterGc();
            DemoGraph.Result graph = server.graph;
            return new Report(o, environment, clients, graph.nodes(), graph.relationships(), smallReference,
                    largeReference, List.of(outcomes), wallMillis, heapBefore, heapMax.get(),
                    afterGc.max.get(), afterGc.collections.get(), heapAfter, samples.get());
        }
    }

    /** 127.0.x.y for client i, never .0, .1 (the server's side) or .255. */
    private static InetAddress loopback(int i) throws IOException {
        return InetAddress.getByAddress(new byte[] {127, 0, (byte) (i / 250), (byte) (2 + i % 250)});
    }

    private static String createSmallRoot(BenchServer server, int children) {
        try (Transaction tx = server.db.beginTx()) {
            Node root = tx.createNode(Label.label("LoadSmall"));
            root.setProperty("name", "load small root");
            for (int i = 0; i < children; i++) {
                Node child = tx.createNode(Label.label("LoadChild"));
                child.setProperty("i", i);
                child.setProperty("name", "child " + i);
                root.createRelationshipTo(child, CHILDREN);
            }
            String id = root.getElementId();
            tx.commit();
            return id;
        }
    }

    private static URI export(BenchServer server, Format format, String root) {
        return server.http().resolve("/extension/" + format.pathSegment() + "/traverse?root="
                + URLEncoder.encode(root, StandardCharsets.UTF_8));
    }

    private static HttpRequest request(URI uri) {
        return HttpRequest.newBuilder(uri).header("Cache-Control", "no-cache, no-store").build();
    }

    /** The single-client answer: three times one at a time (the first warms up), all three the same. */
    private static Reference reference(HttpClient http, URI uri, Format format) throws IOException {
        Reference first = null;
        List<Long> millis = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            long t0 = System.nanoTime();
            HttpResponse<InputStream> response = BusyRetry.NONE.send(http, request(uri));
            if (response.statusCode() != 200) {
                ExportReader.open(response).close();  // raises the refusal with the server's code
                throw new IllegalStateException("status " + response.statusCode() + " for " + uri);
            }
            byte[] body;
            try (InputStream in = response.body()) {
                body = in.readAllBytes();
            }
            Answer answer = read(new ByteArrayInputStream(body), format);
            millis.add((System.nanoTime() - t0) / 1_000_000);
            if (first == null) {
                first = new Reference(answer, body.length, millis);
            } else if (!first.answer().sameAs(answer)) {
                throw new IllegalStateException("the single-client answers differ for " + uri);
            }
        }
        return first;
    }

    private static Outcome exportOnce(HttpClient http, URI uri, Options o, boolean large) {
        AtomicInteger retries = new AtomicInteger();
        long t0 = System.nanoTime();
        try {
            HttpResponse<InputStream> response = BusyRetry.upTo(o.busyWait()).onBusy(wait -> retries.incrementAndGet())
                    .send(http, request(uri));
            if (response.statusCode() != 200) {
                try {
                    ExportReader.open(response).close();
                } catch (ExportRequestException refused) {
                    return new Outcome(large, millis(t0), refused.status(), refused.code(), null, retries.get(),
                            refused.getMessage());
                }
                return new Outcome(large, millis(t0), response.statusCode(), "", null, retries.get(), "not 200");
            }
            Answer answer = read(response.body(), o.format());
            return new Outcome(large, millis(t0), 200, "", answer, retries.get(), null);
        } catch (IOException | RuntimeException e) {
            return new Outcome(large, millis(t0), -1, "", null, retries.get(), e.toString());
        }
    }

    private static long millis(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }

    /** Decodes the whole body (to its end record: complete, or an exception) while hashing every byte of it. */
    private static Answer read(InputStream body, Format format) throws IOException {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        DigestInputStream hashed = new DigestInputStream(body, sha);
        long nodes = 0;
        long relationships = 0;
        try (ExportParser parser = ExportParser.open(format, hashed)) {
            for (ExportParser.Kind kind; (kind = parser.next(value -> { })) != null; ) {
                if (kind == ExportParser.Kind.NODE) nodes++;
                if (kind == ExportParser.Kind.RELATIONSHIP) relationships++;
            }
            hashed.transferTo(OutputStream.nullOutputStream());  // whatever follows the end record is hashed too
        }
        return new Answer(sha.digest(), nodes, relationships);
    }

    /** The heap in use after each garbage collection (JMX notifications), the largest seen, until closed. */
    private static final class AfterGc implements NotificationListener, AutoCloseable {
        final AtomicLong max = new AtomicLong();
        final AtomicInteger collections = new AtomicInteger();
        private final List<NotificationEmitter> emitters = new ArrayList<>();

        static AfterGc listen() {
            AfterGc listener = new AfterGc();
            for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
                if (gc instanceof NotificationEmitter emitter) {
                    emitter.addNotificationListener(listener, null, null);
                    listener.emitters.add(emitter);
                }
            }
            return listener;
        }

        @Override
        public void handleNotification(Notification notification, Object handback) {
            if (!notification.getType().equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) return;
            GarbageCollectionNotificationInfo info =
                    GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
            long used = info.getGcInfo().getMemoryUsageAfterGc().entrySet().stream()
                    .filter(pool -> HEAP_POOLS.contains(pool.getKey()))
                    .mapToLong(pool -> pool.getValue().getUsed()).sum();
            max.accumulateAndGet(used, Math::max);
            collections.incrementAndGet();
        }

        @Override
        public void close() throws ListenerNotFoundException {
            for (NotificationEmitter emitter : emitters) emitter.removeNotificationListener(this);
        }
    }

    private static final Set<String> HEAP_POOLS = ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(pool -> pool.getType() == MemoryType.HEAP).map(MemoryPoolMXBean::getName)
            .collect(Collectors.toUnmodifiableSet());

    /** Nearest-rank percentile of sorted values. */
    static long percentile(List<Long> sorted, double p) {
        if (sorted.isEmpty()) return -1;
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size(), rank) - 1));
    }

    static Path write(Report r) throws IOException {
        Options o = r.options();
        Environment e = r.environment();
        StringBuilder md = new StringBuilder();
        md.append("# Load: ").append(o.small()).append(" small and ").append(o.large())
                .append(" large exports at once\n\n");
        md.append("Command: `").append(o.command()).append("` (").append(e.date()).append(")\n\n");
        md.append(String.format(Locale.ROOT, "- Small: a root with %,d children (%,d nodes, %,d relationships; %,d bytes "
                + "of %s). Large: the whole demo graph of %,d Objects (%,d nodes, %,d relationships; %,d bytes).%n",
                o.smallChildren(), r.small().answer().nodes(), r.small().answer().relationships(), r.small().bytes(),
                o.format().pathSegment(), o.objects(), r.large().answer().nodes(), r.large().answer().relationships(),
                r.large().bytes()));
        md.append(String.format(Locale.ROOT, "- %d clients started together, each its own HttpClient%s; the Java client's "
                + "`BusyRetry.upTo(%ds)` waits out `503` + `Retry-After`. Every request `Cache-Control: no-cache, "
                + "no-store` (reads the store), identity coding.%n", r.threads(),
                o.distinctUsers() ? " from its own loopback address (its own user: authentication is off)"
                        : ", all from 127.0.0.1 (one user)", o.busyWait().toSeconds()));
        md.append(String.format(Locale.ROOT, "- Server bounds: `max_concurrent=%s`, `max_concurrent_per_user=%s`%s.%n",
                o.maxConcurrent(), o.maxPerUser(), o.maxConcurrent() == 0
                        ? " (0: derived from Jetty's request threads, logged as `exports: at most …`)" : ""));
        md.append(String.format(Locale.ROOT, "- Single client, the same requests one at a time (3 runs, the first warms "
                + "up): small %s ms, large %s ms.%n%n", r.small().millis(), r.large().millis()));

        md.append("| exports | complete and identical | latency p50 | p90 | p99 | max | clients that waited (503 + Retry-After) | waits | final 503 | other failures |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|\n");
        for (boolean large : List.of(false, true)) {
            List<Outcome> of = r.of(large);
            List<Long> sorted = of.stream().map(Outcome::millis).sorted().toList();
            long waited = of.stream().filter(x -> x.retries() > 0).count();
            long waits = of.stream().mapToLong(Outcome::retries).sum();
            long busy = of.stream().filter(x -> x.status() == 503).count();
            long other = of.stream().filter(x -> x.status() != 200 && x.status() != 503).count();
            md.append(String.format(Locale.ROOT, "| %s (%d) | %d of %d | %,d ms | %,d ms | %,d ms | %,d ms | %d | %d | %d | %d |%n",
                    large ? "large" : "small", of.size(), r.identical(large), of.size(), percentile(sorted, 50),
                    percentile(sorted, 90), percentile(sorted, 99), percentile(sorted, 100), waited, waits, busy, other));
        }
        md.append(String.format(Locale.ROOT, "%nAll %d clients done in %,d ms. Latency: from the first request to the last "
                + "byte decoded, waits included.%n%n", r.threads(), r.wallMillis()));
        md.append(String.format(Locale.ROOT, "Heap (client and server share the JVM) while the clients ran: at most "
                + "**%s in use after a collection** (the largest heap left by any of the %d GCs meanwhile: live data, plus "
                + "old garbage no collection had reached yet); at most %s in use including garbage not yet collected "
                + "(sampled every 50 ms, %d samples; G1 lets the young generation grow into the free heap). A full GC "
                + "before the clients started left %s, one at the end %s.%n%n", mib(r.heapAfterGcMax()),
                r.collections(), mib(r.heapMax()), r.heapSamples(), mib(r.heapBefore()), mib(r.heapAfter())));
        List<String> failures = r.outcomes().stream().filter(x -> x.error() != null).map(x -> (x.large() ? "large: " : "small: ")
                + x.status() + " " + x.code() + " " + x.error()).distinct().limit(10).toList();
        if (!failures.isEmpty()) {
            md.append("Failures (distinct, at most 10):\n\n");
            failures.forEach(f -> md.append("- ").append(f).append('\n'));
            md.append('\n');
        }
        md.append("## Setup\n\n");
        md.append(String.format(Locale.ROOT, "- Machine: %s, %d cores, %s. Shared and noisy. Load average (1/5/15 min) at "
                + "the start %s, at the end %s.%n", e.cpu(), e.processors(), e.os(), e.loadAtStart(),
                Environment.loadAverage()));
        md.append(String.format(Locale.ROOT, "- JVM: %s; max heap %s; GC %s.%n", e.jvm(), mib(e.maxHeapBytes()), e.gc()));
        md.append(String.format(Locale.ROOT, "- Server: Neo4j %s Community in-process (neo4j-harness, `BenchServer`), HTTP "
                + "on 127.0.0.1, the graph generated into a temporary store (seed %d), page cache sized to the store.%n",
                e.neo4j(), o.seed()));
        Path out = o.out();
        if (out.getParent() != null) Files.createDirectories(out.getParent());
        Files.writeString(out, md.toString());
        return out;
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%,d MiB", bytes >> 20);
    }
}
