package org.subgraphexport.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;
import org.subgraphexport.demo.DemoGraph;
import org.subgraphexport.format.Format;
import org.subgraphexport.format.GraphWriter;
import org.subgraphexport.format.Header;
import org.subgraphexport.format.TokenNames;
import org.subgraphexport.read.StoreState;
import org.subgraphexport.read.SubgraphWalker;
import org.subgraphexport.read.WalkSpec;
import org.subgraphexport.read.Walkers;

/**
 * Single-threaded against parallel walk, in-process, no HTTP: the walk into a writer that encodes nothing, and the
 * walk plus Kryo encoding into a discarding stream. Variants run round-robin (one run of each per round) so that
 * the noise of a shared machine hits them alike; prints every run and the medians.
 *
 * <pre>
 * mvn -o -q -DbuildDir=target-par test-compile dependency:build-classpath -Dmdep.outputFile=target-par/cp.txt
 * java -Xms4g -Xmx4g --add-opens=... -cp target-par/test-classes:target-par/classes:$(cat target-par/cp.txt) \
 *   org.subgraphexport.bench.ParallelWalkProbe [dataDir] [objects] [runs] [warmups] [variants]
 * </pre>
 * {@code variants}: comma-separated {@code threads[/batchRecords[/minConcurrency]]}, default {@code 1,2} (batches of
 * 512, and the production minimum concurrency 1.3 below which a walk goes on single-threaded; 0 never does). The demo graph is
 * generated into {@code dataDir} (default {@code target-par/probe-db}) once and reused; page cache 1 GiB.
 */
public final class ParallelWalkProbe {
    private ParallelWalkProbe() {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args.length > 0 ? args[0] : "target-par/probe-db");
        int objects = args.length > 1 ? Integer.parseInt(args[1]) : DemoGraph.FOUNDING_OBJECTS;
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 9;
        int warmups = args.length > 3 ? Integer.parseInt(args[3]) : 5;
        String[] variants = (args.length > 4 ? args[4] : "1,2").split(",");

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
            List<Runnable> order = new ArrayList<>();
            for (String mode : List.of("walk", "walk+kryo")) {
                for (String v : variants) {
                    String[] parts = v.split("/");
                    int threads = Integer.parseInt(parts[0]);
                    int batch = parts.length > 1 ? Integer.parseInt(parts[1]) : 512;
                    double minConcurrency = parts.length > 2 ? Double.parseDouble(parts[2]) : 1.3;
                    String name = mode + " threads=" + v;
                    long[] times = new long[runs];
                    long[] cpu = new long[runs];
                    long[] own = new long[runs];
                    long[] alloc = new long[runs];
                    nanos.put(name, times);
                    processCpu.put(name, cpu);
                    threadCpu.put(name, own);
                    allocated.put(name, alloc);
                    long expectNodes = graph.nodes();
                    long expectRels = graph.relationships();
                    int[] run = {-warmups};
                    order.add(() -> {
                        long cpu0 = OS.getProcessCpuTime();
                        long own0 = THREADS.getCurrentThreadCpuTime();
                        long alloc0 = THREADS.getCurrentThreadAllocatedBytes();
                        long t = once(db, rootElementId, spec, threads, batch, minConcurrency, mode.equals("walk+kryo"), expectNodes, expectRels);
                        if (run[0] >= 0) {
                            times[run[0]] = t;
                            cpu[run[0]] = OS.getProcessCpuTime() - cpu0;
                            own[run[0]] = THREADS.getCurrentThreadCpuTime() - own0;
                            alloc[run[0]] = THREADS.getCurrentThreadAllocatedBytes() - alloc0;
                        }
                        run[0]++;
                    });
                }
            }
            for (int round = 0; round < warmups + runs; round++) {
                for (Runnable r : order) r.run();
            }
            System.out.println();
            System.out.printf("%-28s %10s %10s %12s %12s %14s   wall per run (ms)%n", "variant", "median ms", "min ms",
                    "process cpu", "walker cpu", "walker B/node");
            for (Map.Entry<String, long[]> e : nanos.entrySet()) {
                long[] sorted = e.getValue().clone();
                Arrays.sort(sorted);
                System.out.printf("%-28s %10.1f %10.1f %12.1f %12.1f %14.0f   %s%n", e.getKey(), median(sorted) / 1e6,
                        sorted[0] / 1e6, median(processCpu.get(e.getKey())) / 1e6,
                        median(threadCpu.get(e.getKey())) / 1e6, median(allocated.get(e.getKey())) / graph.nodes(),
                        Arrays.stream(e.getValue()).mapToObj(t -> String.format("%.0f", t / 1e6)).toList());
            }
        } finally {
            dbms.shutdown();
        }
    }

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();

    private static double median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
    }

    private static long once(GraphDatabaseService db, String rootElementId, WalkSpec spec, int threads, int batch,
            double minConcurrency, boolean kryo, long expectNodes, long expectRels) {
        try (Transaction tx = db.beginTx()) {
            InternalTransaction itx = (InternalTransaction) tx;
            long rootId = itx.elementIdMapper().nodeId(rootElementId);
            GraphWriter out = kryo ? Format.KRYO.open(OutputStream.nullOutputStream()) : new NullWriter();
            long start = System.nanoTime();
            SubgraphWalker.Result result = Walkers.export(itx, rootId, spec, threads, batch, minConcurrency, out);
            out.finish();
            long t = System.nanoTime() - start;
            if (result.nodes() != expectNodes || result.relationships() != expectRels) {
                throw new IllegalStateException("walked " + result + ", expected " + expectNodes + "/" + expectRels);
            }
            return t;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Encodes nothing; folds every value into a field so that nothing is optimised away. */
    static final class NullWriter implements GraphWriter {
        long sink;

        @Override public void header(Header header, TokenNames tokens) {}
        @Override public void beginNode(long id, int[] labels, int labelCount) { sink += id + labelCount; }
        @Override public void endNode() {}
        @Override public void beginRelationship(long id, int type, long startNode, long endNode) { sink += id + type; }
        @Override public void endRelationship() {}
        @Override public void property(int key) { sink += key; }
        @Override public void columns(String[] names) {}
        @Override public void beginRow() {}
        @Override public void endRow() {}
        @Override public void end(long nodes, long relationships, boolean truncated) {}
        @Override public void error(String code, String message) {}
        @Override public void finish() {}
        @Override public void writeBoolean(boolean value) { sink += value ? 1 : 0; }
        @Override public void writeByte(byte value) { sink += value; }
        @Override public void writeShort(short value) { sink += value; }
        @Override public void writeInt(int value) { sink += value; }
        @Override public void writeLong(long value) { sink += value; }
        @Override public void writeFloat(float value) { sink += (long) value; }
        @Override public void writeDouble(double value) { sink += (long) value; }
        @Override public void writeChar(char value) { sink += value; }
        @Override public void writeString(String value) { sink += value.length(); }
        @Override public void writeUtf8(byte[] utf8, int offset, int length) { sink += length; }
        @Override public void writeBytes(byte[] value) { sink += value.length; }
        @Override public void writePoint(int srid, double[] coordinates) { sink += srid; }
        @Override public void writeDuration(long months, long days, long seconds, int nanos) { sink += seconds; }
        @Override public void writeDate(LocalDate value) { sink += value.getDayOfMonth(); }
        @Override public void writeLocalTime(LocalTime value) { sink += value.getNano(); }
        @Override public void writeTime(OffsetTime value) { sink += value.getNano(); }
        @Override public void writeLocalDateTime(LocalDateTime value) { sink += value.getNano(); }
        @Override public void writeDateTime(ZonedDateTime value) { sink += value.getNano(); }
        @Override public void writeUuid(long mostSignificantBits, long leastSignificantBits) { sink += leastSignificantBits; }
        @Override public void writeVector(VectorKind kind, Object values) { sink += kind.ordinal(); }
        @Override public void beginArray(int size, ArrayKind kind) { sink += size; }
        @Override public void endArray() {}
        @Override public void writeNull() {}
        @Override public void beginList(int size) {}
        @Override public void endList() {}
        @Override public void beginMap(int size) {}
        @Override public void mapKey(String key) {}
        @Override public void endMap() {}
        @Override public void writeNodeRef(long id) {}
        @Override public void writeRelationshipRef(long id) {}
        @Override public void writePath(long[] nodeIds, long[] relationshipIds) {}
    }
}
