package org.subgraphexport.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.function.Function;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;
import org.subgraphexport.config.ExportSettings;
import org.subgraphexport.testkit.DemoGraph;
import org.subgraphexport.encode.Encoders;
import org.subgraphexport.read.ExportState;
import org.subgraphexport.read.Partition;
import org.subgraphexport.read.SharedWalks;
import org.subgraphexport.read.StoreState;
import org.subgraphexport.read.SubgraphWalker;
import org.subgraphexport.read.TraverseExport;
import org.subgraphexport.read.WalkSpec;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;

/**
 * Single-threaded against parallel walk, in-process, no HTTP: the walk into a writer that encodes nothing, and the
 * walk plus encoding (Kryo unless {@code modes} says otherwise) into a discarding stream. Variants run round-robin
 * (one run of each per round) so that the noise of a shared machine hits them alike; prints every run and the medians.
 *
 * <pre>
 * scripts/probe [dataDir] [objects] [runs] [warmups] [threads] [modes]
 * </pre>
 * The export is the production one ({@link TraverseExport#run}); {@code threads}: comma-separated read-thread counts
 * ({@code server.subgraph_export.read_threads}), default {@code 1,2}; {@code 1p8}: 8 partitions, read one after the
 * other with 1 read thread each, their times and counts summed (the CPU a partitioned export costs in all);
 * {@code 1c8}: the same 8 partitions at once, each on a thread of its own with a transaction of its own, sharing one
 * walk of the topology as the server does ({@link SharedWalks}, default size): wall time until the last one ends,
 * thread CPU summed over the 8 threads, counts summed.
 * {@code modes}: comma-separated {@code walk} (no output) or {@code walk+FORMAT} with a format's path segment;
 * default {@code walk,walk+kryo}. The demo graph is generated into {@code dataDir} (default {@code target-par/probe-db}) once
 * and reused; page cache 1 GiB.
 */
public final class ParallelWalkProbe {
    private ParallelWalkProbe() {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args.length > 0 ? args[0] : "target-par/probe-db");
        int objects = args.length > 1 ? Integer.parseInt(args[1]) : DemoGraph.FOUNDING_OBJECTS;
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 9;
        int warmups = args.length > 3 ? Integer.parseInt(args[3]) : 5;
        String[] variants = (args.length > 4 ? args[4] : "1,2").split(",");
        List<String> modes = List.of((args.length > 5 ? args[5] : "walk,walk+kryo").split(","));
        for (String mode : modes) {
            writer(mode);  // fails early on an unknown mode
        }

        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(dir)
                .setConfig(GraphDatabaseSettings.pagecache_memory, 1L << 30)
                .build();
        try {
            GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
            DemoGraph.Result graph = DemoGraph.read(db).orElse(null);
            if (graph == null) {
                System.out.printf("generating %,d Objects into %s%n", objects, dir);
                DemoGraph.generate(db, objects, DemoGraph.DEFAULT_SEED, p -> {});
                graph = DemoGraph.read(db).orElseThrow();
            } else if (graph.objects() != objects) {
                throw new IllegalStateException(dir + " holds " + graph.objects() + " Objects, not " + objects);
            }
            StoreState.Warmup warm = StoreState.warmUp(db);
            System.out.printf("graph: %,d nodes, %,d relationships, %,d property values; page cache warmed: %,d bytes%n",
                    graph.nodes(), graph.relationships(), graph.properties(), warm.bytes());
            System.out.printf("machine: %d processors, %s %s, max heap %,d MiB%n", Runtime.getRuntime().availableProcessors(),
                    System.getProperty("java.vm.name"), System.getProperty("java.runtime.version"),
                    Runtime.getRuntime().maxMemory() >> 20);
            WalkSpec spec = new WalkSpec(WalkSpec.DEFAULT_EXPAND, WalkSpec.DEFAULT_ATTACH, Integer.MAX_VALUE, Long.MAX_VALUE);
            String rootElementId = graph.rootElementId();

            Map<String, long[]> nanos = new LinkedHashMap<>();
            Map<String, long[]> processCpu = new LinkedHashMap<>();
            Map<String, long[]> threadCpu = new LinkedHashMap<>();
            Map<String, long[]> allocated = new LinkedHashMap<>();
            Map<String, long[]> busiest = new LinkedHashMap<>();
            SharedWalks walks = SharedWalks.of(dbms, ExportSettings.PARTITION_SHARE_SIZE.defaultValue());
            List<Runnable> order = new ArrayList<>();
            for (String mode : modes) {
                for (String v : variants) {
                    String[] parts = v.split("[pc]");
                    int threads = Integer.parseInt(parts[0]);
                    int partitions = parts.length > 1 ? Integer.parseInt(parts[1]) : 1;
                    SharedWalks shared = v.contains("c") ? walks : null;
                    String name = mode + " threads=" + v;
                    long[] times = new long[runs];
                    long[] cpu = new long[runs];
                    long[] own = new long[runs];
                    long[] alloc = new long[runs];
                    long[] most = new long[runs];
                    nanos.put(name, times);
                    processCpu.put(name, cpu);
                    threadCpu.put(name, own);
                    allocated.put(name, alloc);
                    busiest.put(name, most);
                    long expectNodes = graph.nodes();
                    long expectRels = graph.relationships();
                    int[] run = {-warmups};
                    order.add(() -> {
                        long cpu0 = OS.getProcessCpuTime();
                        Measured m = shared == null
                                ? once(db, rootElementId, spec, threads, partitions, writer(mode), expectNodes, expectRels)
                                : concurrently(db, shared, rootElementId, spec, threads, partitions, writer(mode),
                                        expectNodes, expectRels);
                        if (run[0] >= 0) {
                            times[run[0]] = m.nanos();
                            cpu[run[0]] = OS.getProcessCpuTime() - cpu0;
                            own[run[0]] = m.cpuNanos();
                            alloc[run[0]] = m.allocated();
                            most[run[0]] = m.busiestCpuNanos();
                        }
                        run[0]++;
                    });
                }
            }
            for (int round = 0; round < warmups + runs; round++) {
                for (Runnable r : order) r.run();
            }
            System.out.println();
            System.out.printf("%-28s %10s %10s %12s %12s %12s %14s   wall per run (ms)%n", "variant", "median ms",
                    "min ms", "process cpu", "walker cpu", "busiest cpu", "walker B/node");
            for (Map.Entry<String, long[]> e : nanos.entrySet()) {
                long[] sorted = e.getValue().clone();
                Arrays.sort(sorted);
                System.out.printf("%-28s %10.1f %10.1f %12.1f %12.1f %12.1f %14.0f   %s%n", e.getKey(),
                        median(sorted) / 1e6, sorted[0] / 1e6, median(processCpu.get(e.getKey())) / 1e6,
                        median(threadCpu.get(e.getKey())) / 1e6, median(busiest.get(e.getKey())) / 1e6,
                        median(allocated.get(e.getKey())) / graph.nodes(),
                        Arrays.stream(e.getValue()).mapToObj(t -> String.format("%.0f", t / 1e6)).toList());
            }
            System.out.println("walker cpu: the request threads' CPU (summed over partitions); busiest cpu: the most one"
                    + " partition's thread used (with idle processors, the wall time of partitions at once); shared walks: "
                    + walks.stats());
        } finally {
            dbms.shutdown();
        }
    }

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();

    /** The writer a mode names: nothing, or a format's. */
    private static Function<OutputStream, GraphWriter> writer(String mode) {
        if (mode.equals("walk")) {
            return out -> new DiscardingWriter();
        }
        Format format = mode.startsWith("walk+") ? Format.fromPathSegment(mode.substring("walk+".length())).orElse(null)
                : null;
        if (format == null) {
            throw new IllegalArgumentException("mode " + mode
                    + ": walk or walk+FORMAT (json, bson, kryo, kryo-lzf)");
        }
        return out -> Encoders.open(format, out);
    }

    private static double median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
    }

    /**
     * Wall time, the request threads' CPU time and their allocations, summed over partitions, and the CPU time of the
     * partition that used the most.
     */
    private record Measured(long nanos, long cpuNanos, long allocated, long busiestCpuNanos) {}

    /** The partitions one after the other on this thread. */
    private static Measured once(GraphDatabaseService db, String rootElementId, WalkSpec spec, int threads, int partitions,
            Function<OutputStream, GraphWriter> writer, long expectNodes, long expectRels) {
        long own0 = THREADS.getCurrentThreadCpuTime();
        long alloc0 = THREADS.getCurrentThreadAllocatedBytes();
        long busiest = 0;
        long t = 0;
        long nodes = 0;
        long relationships = 0;
        for (int p = 0; p < partitions; p++) {
            try (Transaction tx = db.beginTx()) {
                InternalTransaction itx = (InternalTransaction) tx;
                long rootId = itx.elementIdMapper().nodeId(rootElementId);
                GraphWriter out = writer.apply(OutputStream.nullOutputStream());
                long start = System.nanoTime();
                long cpu0 = THREADS.getCurrentThreadCpuTime();
                SubgraphWalker.Result result =
                        TraverseExport.run(itx, rootId, spec, new Partition(partitions, p), threads,
                                ExportState.NONE, out);
                out.finish();
                t += System.nanoTime() - start;
                busiest = Math.max(busiest, THREADS.getCurrentThreadCpuTime() - cpu0);
                nodes += result.nodes();
                relationships += result.relationships();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
        check(nodes, relationships, expectNodes, expectRels);
        return new Measured(t, THREADS.getCurrentThreadCpuTime() - own0, THREADS.getCurrentThreadAllocatedBytes() - alloc0,
                busiest);
    }

    /**
     * The partitions at once, each on a thread of its own in a transaction of its own, through {@code walks}: the
     * threads begin their transactions, then start together; wall time until the last ends.
     */
    private static Measured concurrently(GraphDatabaseService db, SharedWalks walks, String rootElementId, WalkSpec spec,
            int threads, int partitions, Function<OutputStream, GraphWriter> writer, long expectNodes, long expectRels) {
        CyclicBarrier ready = new CyclicBarrier(partitions + 1);
        long[] nodes = new long[partitions];
        long[] relationships = new long[partitions];
        long[] cpu = new long[partitions];
        long[] alloc = new long[partitions];
        Throwable[] failures = new Throwable[partitions];
        List<Thread> running = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            int index = p;
            Thread thread = new Thread(() -> {
                try (Transaction tx = db.beginTx()) {
                    InternalTransaction itx = (InternalTransaction) tx;
                    long rootId = itx.elementIdMapper().nodeId(rootElementId);
                    SharedWalks.Share share = walks.share(StoreState.version(db));
                    GraphWriter out = writer.apply(OutputStream.nullOutputStream());
                    ready.await();
                    long own0 = THREADS.getCurrentThreadCpuTime();
                    long alloc0 = THREADS.getCurrentThreadAllocatedBytes();
                    SubgraphWalker.Result result = TraverseExport.run(
                            itx, rootId, spec, new Partition(partitions, index), threads, share, out);
                    out.finish();
                    cpu[index] = THREADS.getCurrentThreadCpuTime() - own0;
                    alloc[index] = THREADS.getCurrentThreadAllocatedBytes() - alloc0;
                    nodes[index] = result.nodes();
                    relationships[index] = result.relationships();
                } catch (Throwable e) {
                    failures[index] = e;
                }
            }, "probe-partition-" + p);
            thread.start();
            running.add(thread);
        }
        long t;
        try {
            ready.await();
            long start = System.nanoTime();
            for (Thread thread : running) thread.join();
            t = System.nanoTime() - start;
        } catch (InterruptedException | BrokenBarrierException e) {
            throw new IllegalStateException(e);
        }
        for (Throwable failure : failures) {
            if (failure != null) throw new IllegalStateException("a partition failed", failure);
        }
        check(Arrays.stream(nodes).sum(), Arrays.stream(relationships).sum(), expectNodes, expectRels);
        return new Measured(t, Arrays.stream(cpu).sum(), Arrays.stream(alloc).sum(), Arrays.stream(cpu).max().orElse(0));
    }

    private static void check(long nodes, long relationships, long expectNodes, long expectRels) {
        if (nodes != expectNodes || relationships != expectRels) {
            throw new IllegalStateException("walked " + nodes + "/" + relationships + ", expected " + expectNodes + "/"
                    + expectRels);
        }
    }
}
