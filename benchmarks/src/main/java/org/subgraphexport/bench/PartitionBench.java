package org.subgraphexport.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.subgraphexport.client.ExportParser;
import org.subgraphexport.config.ExportSettings;
import org.subgraphexport.testkit.DemoGraph;
import org.subgraphexport.read.StoreState;
import org.subgraphexport.wire.Format;

/**
 * Partitioned exports against the single stream: {@code GET /extension/kryo/traverse?root=…} whole, and with
 * {@code partitions=N} for N in {2, 4, 8}, the N partitions read at once on N client threads, the body read and
 * dropped ({@code bytes}) or decoded with the streaming API ({@code decoded}); one in-process server holding the demo
 * graph, the extension at {@code server.subgraph_export.read_threads=1} so that the single stream is one thread's
 * work (the fair comparison the partitions are measured against). Rows take turns, round after round; medians.
 *
 * <p>Server CPU: the CPU time of every Java thread of the JVM but the client's (the request threads, the reader pool,
 * the server's own), summed over the row's run, from {@link ThreadMXBean#getThreadCpuTime}; the client's threads are
 * named {@code bench-client-*} and {@code HttpClient-*} ({@link Http}'s client). GC and JIT threads are not Java threads and are not counted.
 *
 * <pre>scripts/bench --partitions [--objects N] [--runs N] [--warmup N] [--data-dir D] [--out FILE]</pre>
 */
public final class PartitionBench {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final int[] PARTITIONS = {1, 2, 4, 8};

    private PartitionBench() {}

    /** One row: N partitions read at once (1: the whole export), decoded or not. */
    record Row(int partitions, boolean decoded) {
        String name() {
            return "traverse kryo " + (partitions == 1 ? "whole" : partitions + " partitions") + (decoded ? ", decoded"
                    : ", bytes");
        }
    }

    public static void main(String[] args) throws Exception {
        int objects = DemoGraph.FOUNDING_OBJECTS;
        int runs = 9;
        int warmups = 2;
        Path dataRoot = Path.of("target/bench-db");
        Path out = Path.of("benchmarks/results/partitions.md");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--objects" -> objects = Integer.parseInt(args[++i].replace("_", ""));
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--warmup" -> warmups = Integer.parseInt(args[++i]);
                case "--data-dir" -> dataRoot = Path.of(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--help", "-h" -> {
                    System.out.println("PartitionBench [--objects N] [--runs N] [--warmup N] [--data-dir D] [--out FILE]");
                    return;
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        PrintStream log = System.out;
        AtomicInteger clientThreads = new AtomicInteger();
        ExecutorService pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "bench-client-" + clientThreads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        try (BenchServer server = BenchServer.start(dataRoot, objects, DemoGraph.DEFAULT_SEED, null,
                Map.of(ExportSettings.READ_THREADS, 1, ExportSettings.MAX_PARTITIONS_STREAMING, 8,
                        ExportSettings.MAX_CONCURRENT, 16, ExportSettings.MAX_CONCURRENT_PER_USER, 16), log)) {
            StoreState.Warmup warm = StoreState.warmUp(server.db);
            String root = server.graph.rootElementId();
            URI base = server.neo4j.httpURI().resolve("/extension/kryo/traverse?root="
                    + URLEncoder.encode(root, StandardCharsets.UTF_8));
            List<Row> rows = new ArrayList<>();
            for (int n : PARTITIONS) {
                rows.add(new Row(n, false));
                rows.add(new Row(n, true));
            }
            Map<Row, long[]> wall = new LinkedHashMap<>();
            Map<Row, long[]> cpu = new LinkedHashMap<>();
            Map<Row, long[]> bytes = new HashMap<>();
            for (Row row : rows) {
                wall.put(row, new long[runs]);
                cpu.put(row, new long[runs]);
                bytes.put(row, new long[1]);
            }
            log.printf("graph: %,d nodes, %,d relationships; page cache warmed: %,d bytes; %d processors%n",
                    server.graph.nodes(), server.graph.relationships(), warm.bytes(),
                    Runtime.getRuntime().availableProcessors());
            String loadBefore = Files.readString(Path.of("/proc/loadavg")).strip();
            for (int round = -warmups; round < runs; round++) {
                for (int k = 0; k < rows.size(); k++) {
                    Row row = rows.get(Math.floorMod(k + round, rows.size()));  // the order rotates every round
                    System.gc();
                    Map<Long, Long> cpu0 = serverCpu();
                    long t0 = System.nanoTime();
                    long[] result = run(pool, base, row);
                    long t = System.nanoTime() - t0;
                    long used = delta(cpu0, serverCpu());
                    if (result[1] != server.graph.nodes() + server.graph.relationships() && row.decoded()) {
                        throw new IllegalStateException(row.name() + ": " + result[1] + " records");
                    }
                    bytes.get(row)[0] = result[0];
                    if (round >= 0) {
                        wall.get(row)[round] = t;
                        cpu.get(row)[round] = used;
                    }
                }
            }
            String loadAfter = Files.readString(Path.of("/proc/loadavg")).strip();
            String table = table(rows, wall, cpu, bytes, server, runs, warmups, loadBefore, loadAfter);
            log.println(table);
            Files.createDirectories(out.toAbsolutePath().getParent());
            Files.writeString(out, table);
        } finally {
            pool.shutdownNow();
        }
    }

    /** Reads the row's partitions at once; returns the bytes and the records decoded (or -1 when not decoded). */
    private static long[] run(ExecutorService pool, URI base, Row row) throws Exception {
        List<Future<long[]>> parts = new ArrayList<>();
        for (int i = 0; i < row.partitions(); i++) {
            URI uri = row.partitions() == 1 ? base
                    : URI.create(base + "&partitions=" + row.partitions() + "&partition=" + i);
            parts.add(pool.submit(() -> one(uri, row.decoded())));
        }
        long[] sum = new long[2];
        for (Future<long[]> f : parts) {
            long[] r = f.get();
            sum[0] += r[0];
            sum[1] += r[1];
        }
        return sum;
    }

    private static long[] one(URI uri, boolean decoded) throws IOException {
        try (Http.Body body = Http.get(uri, Format.KRYO.mediaType(), Http.BYPASS_CACHE)) {
            if (!decoded) {
                body.transferTo(OutputStream.nullOutputStream());
                return new long[] {body.count(), -1};
            }
            TouchingHandler handler = new TouchingHandler();
            long records = 0;
            try (ExportParser parser = ExportParser.open(Format.KRYO, body)) {
                for (ExportParser.Kind kind; (kind = parser.next(handler)) != null; ) {
                    if (kind != ExportParser.Kind.END) records++;
                }
            }
            return new long[] {body.count(), records};
        }
    }

    /** CPU time of every live Java thread that is not the client's, by thread id. */
    static Map<Long, Long> serverCpu() {
        Map<Long, Long> cpu = new HashMap<>();
        for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (info == null || info.getThreadName().startsWith("bench-client-")
                    || info.getThreadName().startsWith("HttpClient-") || info.getThreadId() == Thread.currentThread().getId()) {
                continue;
            }
            long t = THREADS.getThreadCpuTime(info.getThreadId());
            if (t >= 0) cpu.put(info.getThreadId(), t);
        }
        return cpu;
    }

    static long delta(Map<Long, Long> before, Map<Long, Long> after) {
        long sum = 0;
        for (Map.Entry<Long, Long> e : after.entrySet()) {
            sum += e.getValue() - before.getOrDefault(e.getKey(), 0L);
        }
        return sum;
    }

    private static double median(long[] values) {
        long[] s = values.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
    }

    private static String table(List<Row> rows, Map<Row, long[]> wall, Map<Row, long[]> cpu, Map<Row, long[]> bytes,
            BenchServer server, int runs, int warmups, String loadBefore, String loadAfter) {
        StringBuilder b = new StringBuilder();
        b.append("# Partitioned exports: N partitions read at once against the single stream\n\n");
        b.append(String.format(Locale.ROOT, "Measured %s. Demo graph: %,d nodes and %,d relationships under the root. "
                + "Median of %d timed runs per row after %d warm-up rounds; rows take turns, the order rotating every "
                + "round; a GC before every run. Server: in-process Neo4j 2026.08.1 (harness), "
                + "`server.subgraph_export.read_threads=1`, page cache warm. Client: java.net.http, one thread per "
                + "partition, in the same JVM (and on the same %d cores) as the server. Load average before %s, after %s.%n%n",
                Instant.now().toString().substring(0, 16), server.graph.nodes(), server.graph.relationships(), runs,
                warmups, Runtime.getRuntime().availableProcessors(), loadBefore, loadAfter));
        b.append("Command: `scripts/bench --partitions` (PartitionBench).\n\n");
        b.append("| row | body bytes | wall (median) | min - max | wall / whole | server CPU (median) | CPU / whole |\n");
        b.append("|---|---:|---:|---:|---:|---:|---:|\n");
        for (Row row : rows) {
            Row whole = new Row(1, row.decoded());
            long[] w = wall.get(row).clone();
            Arrays.sort(w);
            b.append(String.format(Locale.ROOT, "| %s | %,d | %.3f s | %.3f - %.3f s | %.2f | %.3f s | %.2f |%n",
                    row.name(), bytes.get(row)[0], median(w) / 1e9, w[0] / 1e9, w[w.length - 1] / 1e9,
                    median(wall.get(row)) / median(wall.get(whole)), median(cpu.get(row)) / 1e9,
                    median(cpu.get(row)) / median(cpu.get(whole))));
        }
        b.append("\n*Server CPU*: CPU time of the JVM's Java threads but the client's, summed over the run (request "
                + "threads, the reader pool, the server's own); GC and JIT threads are not counted. *bytes*: the body "
                + "read and dropped; *decoded*: every record through the streaming API (`ExportParser` and a handler "
                + "touching every part), counts checked.\n");
        return b.toString();
    }
}
