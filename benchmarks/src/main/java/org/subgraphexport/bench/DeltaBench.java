package org.subgraphexport.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Transaction;
import org.neo4j.graphdb.event.TransactionData;
import org.neo4j.graphdb.event.TransactionEventListener;
import org.subgraphexport.client.ElementId;
import org.subgraphexport.client.ExportHandler;
import org.subgraphexport.client.ExportParser;
import org.subgraphexport.neo4j.Neo4jLine;
import org.subgraphexport.read.ChangeJournal;
import org.subgraphexport.read.StoreState;
import org.subgraphexport.testkit.DemoGraph;
import org.subgraphexport.wire.Format;

/**
 * Delta exports against the whole export and a 304, and the change journal's write-path cost; one in-process server
 * holding the demo graph.
 *
 * <p><b>Reads</b> (kryo traverse of the demo root, the body read and dropped, the response cache bypassed): the whole
 * export; {@code If-None-Match} with its ETag (304); a delta with nothing changed ({@code since=} the state now); a
 * delta after 1% of the subgraph's nodes changed (a property set on every 100th node of the export, in one
 * transaction), always since the state before that change. Rows take turns, round after round; medians of wall time
 * and bytes.
 *
 * <p><b>Writes</b>: small transactions (one property set on one node each, a committed transaction per call, on one
 * thread), in blocks of {@code --tx} transactions, in turn with no listener, with an empty listener asking for the
 * data the journal asks for (what Neo4j itself spends for any listener), and with the journal's listener
 * ({@link ChangeJournal#stop}: the listener is the plugin's only hook on the write path); medians of the blocks'
 * transactions per second, and the committing thread's CPU per transaction.
 *
 * <pre>scripts/bench --delta [--objects N] [--runs N] [--warmup N] [--tx N] [--blocks N] [--data-dir D] [--out FILE]</pre>
 */
public final class DeltaBench {
    private DeltaBench() {}

    public static void main(String[] args) throws Exception {
        int objects = DemoGraph.FOUNDING_OBJECTS;
        int runs = 9;
        int warmups = 2;
        int txPerBlock = 500;
        int blocks = 12;
        Path dataRoot = Path.of("target/bench-db");
        Path out = Path.of("benchmarks/results/delta.md");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--objects" -> objects = Integer.parseInt(args[++i].replace("_", ""));
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--warmup" -> warmups = Integer.parseInt(args[++i]);
                case "--tx" -> txPerBlock = Integer.parseInt(args[++i]);
                case "--blocks" -> blocks = Integer.parseInt(args[++i]);
                case "--data-dir" -> dataRoot = Path.of(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--help", "-h" -> {
                    System.out.println("DeltaBench [--objects N] [--runs N] [--warmup N] [--tx N] [--blocks N] [--data-dir D] [--out FILE]");
                    return;
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        PrintStream log = System.out;
        try (BenchServer server = BenchServer.start(dataRoot, objects, DemoGraph.DEFAULT_SEED, null, Map.of(), log)) {
            StoreState.Warmup warm = StoreState.warmUp(server.db);
            String root = server.graph.rootElementId();
            String base = server.neo4j.httpURI().resolve("/extension/kryo/traverse").toString() + "?root="
                    + URLEncoder.encode(root, StandardCharsets.UTF_8);
            log.printf("graph: %,d nodes, %,d relationships; page cache warmed: %,d bytes; %d processors%n",
                    server.graph.nodes(), server.graph.relationships(), warm.bytes(),
                    Runtime.getRuntime().availableProcessors());
            String loadBefore = Files.readString(Path.of("/proc/loadavg")).strip();

            // the first request starts the journal; the whole export's node ids pick the 1% to change
            List<String> nodeIds = new ArrayList<>();
            String etag;
            String before;
            try (Http.Body body = Http.get(URI.create(base), Format.KRYO.mediaType(), Http.BYPASS_CACHE);
                    ExportParser parser = ExportParser.open(Format.KRYO, body)) {
                ExportHandler ids = new ExportHandler() {
                    @Override
                    public void node(ElementId id) {
                        nodeIds.add(id.toString());
                    }

                    @Override
                    public void objectValue(Object value) {}
                };
                while (parser.next(ids) != null) {
                    // every record
                }
                etag = body.header("ETag");
                before = parser.header().state();
            }
            int changed = 0;
            try (Transaction tx = server.db.beginTx()) {
                for (int i = 0; i < nodeIds.size(); i += 100) {
                    Node n = tx.getNodeByElementId(nodeIds.get(i));
                    n.setProperty("delta_bench", (long) i);
                    changed++;
                }
                tx.commit();
            }
            String now = StoreState.version(server.db);
            log.printf("changed %,d of %,d nodes (%.2f%%): state %s -> %s%n", changed, nodeIds.size(),
                    100.0 * changed / nodeIds.size(), before, now);
            String[] names = {"whole export", "304 (If-None-Match)", "delta, nothing changed", "delta, 1% of nodes changed"};
            long[][] wall = new long[names.length][runs];
            long[][] cpu = new long[names.length][runs];
            long[] bytes = new long[names.length];
            String freshTag;
            try (Http.Body body = Http.get(URI.create(base), Format.KRYO.mediaType(), Http.BYPASS_CACHE)) {
                body.transferTo(OutputStream.nullOutputStream());
                freshTag = body.header("ETag");
            }
            for (int round = -warmups; round < runs; round++) {
                for (int k = 0; k < names.length; k++) {
                    int row = Math.floorMod(k + round, names.length);
                    System.gc();
                    Map<Long, Long> cpu0 = PartitionBench.serverCpu();
                    long t0 = System.nanoTime();
                    long n = switch (row) {
                        case 0 -> read(Http.get(URI.create(base), Format.KRYO.mediaType(), Http.BYPASS_CACHE));
                        case 1 -> read(Http.getConditional(URI.create(base), Format.KRYO.mediaType(), "If-None-Match",
                                freshTag));
                        case 2 -> read(Http.get(URI.create(base + "&since=" + Http.enc(now)), Format.KRYO.mediaType()));
                        default -> read(Http.get(URI.create(base + "&since=" + Http.enc(before)),
                                Format.KRYO.mediaType()));
                    };
                    long t = System.nanoTime() - t0;
                    long used = PartitionBench.delta(cpu0, PartitionBench.serverCpu());
                    bytes[row] = n;
                    if (round >= 0) {
                        wall[row][round] = t;
                        cpu[row][round] = used;
                    }
                }
            }

            // writes: blocks with no listener, with an empty listener that asks Neo4j for what the journal asks (Neo4j's
            // own cost of building the transaction's data for a listener), and with the journal, in turn
            long[][] txPerSecond = new long[3][blocks];
            long[][] cpuPerTx = new long[3][blocks];
            List<String> targets = nodeIds.subList(0, Math.min(nodeIds.size(), 10_000));
            var threads = ManagementFactory.getThreadMXBean();
            var dbms = server.neo4j.databaseManagementService();
            String database = server.db.databaseName();
            TransactionEventListener<Object> empty = new EmptyListener();
            for (int block = -3; block < 3 * blocks; block++) {
                int variant = Math.floorMod(block, 3);
                ChangeJournal.stop(dbms, server.db);
                if (variant == 1) dbms.registerTransactionEventListener(database, empty);
                if (variant == 2) ChangeJournal.of(dbms, server.db, 16L << 20);
                long c0 = threads.getCurrentThreadCpuTime();
                long t0 = System.nanoTime();
                for (int i = 0; i < txPerBlock; i++) {
                    try (Transaction tx = server.db.beginTx()) {
                        tx.getNodeByElementId(targets.get(i % targets.size())).setProperty("w", (long) i);
                        tx.commit();
                    }
                }
                long t = System.nanoTime() - t0;
                long c = threads.getCurrentThreadCpuTime() - c0;
                if (variant == 1) dbms.unregisterTransactionEventListener(database, empty);
                if (block >= 0) {
                    txPerSecond[variant][block / 3] = (long) (txPerBlock * 1e9 / t);
                    cpuPerTx[variant][block / 3] = c / txPerBlock;
                }
            }
            String loadAfter = Files.readString(Path.of("/proc/loadavg")).strip();

            StringBuilder md = new StringBuilder();
            md.append("# Delta exports: cost against the whole export and a 304; the journal's write-path cost\n\n");
            md.append(String.format(Locale.ROOT, "%s, `scripts/bench --delta --objects %d --runs %d --warmup %d --tx %d --blocks %d`"
                    + " (DeltaBench); demo graph: %,d nodes, %,d relationships under the root; %d processors; JVM %s;"
                    + " load average before %s, after %s.%n%n", Instant.now(), objects, runs, warmups, txPerBlock, blocks,
                    server.graph.nodes(), server.graph.relationships(), Runtime.getRuntime().availableProcessors(),
                    Runtime.version(), loadBefore, loadAfter));
            md.append(String.format(Locale.ROOT, "Changed: a property set on %,d of the export's %,d nodes (every "
                    + "100th, %.2f%%), one transaction; every delta row is since the state before it.%n%n", changed,
                    nodeIds.size(), 100.0 * changed / nodeIds.size()));
            md.append("Server CPU: every Java thread's CPU time but the client's (request threads, reader pool), summed per"
                    + " request (PartitionBench's measure); the machine is shared, so CPU is the steadier figure.\n\n");
            md.append("| kryo traverse | median wall ms | x whole | median server CPU ms | x whole | bytes | x whole |\n"
                    + "|---|---:|---:|---:|---:|---:|---:|\n");
            double whole = median(wall[0]);
            double wholeCpu = median(cpu[0]);
            for (int row = 0; row < names.length; row++) {
                double m = median(wall[row]);
                double c = median(cpu[row]);
                md.append(String.format(Locale.ROOT, "| %s | %.1f | %.3f | %.1f | %.3f | %,d | %.4f |%n", names[row],
                        m / 1e6, m / whole, c / 1e6, c / wholeCpu, bytes[row], (double) bytes[row] / bytes[0]));
            }
            md.append(String.format(Locale.ROOT, "%nWrites: blocks of %,d transactions, each setting one long property "
                    + "on one node and committing, one thread, %d blocks each way, in turn.%n%n", txPerBlock, blocks));
            md.append("| listener | median tx/s | x none | median CPU µs/tx | x none |\n|---|---:|---:|---:|---:|\n");
            String[] listeners = {"none (journal stopped)",
                    "an empty listener asking for what the journal asks (Neo4j's own cost)", "change journal"};
            for (int v = 0; v < 3; v++) {
                md.append(String.format(Locale.ROOT, "| %s | %,.0f | %.3f | %.1f | %.3f |%n", listeners[v],
                        median(txPerSecond[v]), median(txPerSecond[v]) / median(txPerSecond[0]),
                        median(cpuPerTx[v]) / 1e3, median(cpuPerTx[v]) / median(cpuPerTx[0])));
            }
            md.append(String.format(Locale.ROOT, "%nPer block, tx/s (none | empty listener | journal): %s | %s | %s%n",
                    Arrays.toString(txPerSecond[0]), Arrays.toString(txPerSecond[1]), Arrays.toString(txPerSecond[2])));
            log.println(md);
            Files.createDirectories(out.toAbsolutePath().getParent());
            Files.writeString(out, md.toString());
        }
    }

    private static long read(Http.Body body) throws IOException {
        try (body) {
            body.transferTo(OutputStream.nullOutputStream());
            return body.count();
        }
    }

    private static double median(long[] values) {
        long[] s = values.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
    }

    /** Does nothing, but asks Neo4j for the transaction data the journal's listener asks for. */
    private static final class EmptyListener implements TransactionEventListener<Object> {
        @Override
        public Object beforeCommit(TransactionData data, Transaction transaction, GraphDatabaseService db) {
            return null;
        }

        @Override
        public void afterCommit(TransactionData data, Object state, GraphDatabaseService db) {}

        @Override
        public void afterRollback(TransactionData data, Object state, GraphDatabaseService db) {}

        @SuppressWarnings("rawtypes")
        public Set transactionDataSelection() {
            return Neo4jLine.removedPropertyKeysOnly();
        }
    }
}
