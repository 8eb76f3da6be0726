package org.subgraphexport.demo;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;
import org.neo4j.kernel.internal.Version;
import org.neo4j.server.CommunityBootstrapper;
import org.neo4j.server.NeoBootstrapper;
import org.subgraphexport.server.TraverseResource;
import org.subgraphexport.testkit.DemoGraph;
import org.subgraphexport.wire.Format;

/**
 * Starts a Neo4j Community server in this JVM (HTTP, Bolt and this project's unmanaged extension mounted at
 * {@code /extension}), fills an empty database with the {@link DemoGraph}, and prints ready-to-paste curl commands.
 * Ctrl-C stops it. Run through {@code scripts/demo}; {@code --help} lists the options.
 *
 * <p>The server is Neo4j's own {@link CommunityBootstrapper} (what {@code neo4j console} runs), started with
 * {@link NeoBootstrapper#start(Path, Path, Map, boolean, boolean)}: the data folder is the Neo4j home (data/, logs/,
 * run/ and import/ are created under it), there is no neo4j.conf, all settings come from the overrides built here.
 */
public final class DemoServer {

    /** The plugin's mounted package: the resources Jersey scans. */
    static final String EXTENSION_PACKAGE = TraverseResource.class.getPackageName();
    static final String EXTENSION_MOUNT = "/extension";
    private static final int DEFAULT_HTTP_PORT = 7474;
    private static final int DEFAULT_BOLT_PORT = 7687;
    private static final String LOOPBACK = "127.0.0.1";

    private DemoServer() {}

    /** Every format's path segment, in the wire spec's order. */
    static List<String> formats() {
        return Arrays.stream(Format.values()).map(Format::pathSegment).toList();
    }

    /** Command-line options. */
    record Options(
            Path dataDir,
            int httpPort,
            Integer boltPort,
            int objects,
            boolean objectsGiven,
            long seed,
            boolean seedGiven,
            String pageCache,
            boolean reset,
            int batchNodes) {

        static Options parse(String[] args) {
            Path dataDir = Path.of("demo-data");
            int httpPort = DEFAULT_HTTP_PORT;
            Integer boltPort = null;
            int objects = DemoGraph.DEFAULT_OBJECTS;
            boolean objectsGiven = false;
            long seed = DemoGraph.DEFAULT_SEED;
            boolean seedGiven = false;
            String pageCache = "1g";
            boolean reset = false;
            int batchNodes = DemoGraph.DEFAULT_BATCH_NODES;
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                String value = null;
                int eq = arg.indexOf('=');
                if (arg.startsWith("--") && eq > 0) {
                    value = arg.substring(eq + 1);
                    arg = arg.substring(0, eq);
                }
                switch (arg) {
                    case "-h", "--help" -> throw new UsageException(null, 0);
                    case "--founding-size" -> {
                        objects = DemoGraph.FOUNDING_OBJECTS;
                        objectsGiven = true;
                    }
                    case "--reset" -> reset = true;
                    case "--data-dir", "--port", "--bolt-port", "--objects", "--seed", "--page-cache", "--batch-nodes" -> {
                        if (value == null) {
                            if (i + 1 >= args.length) {
                                throw new UsageException(arg + " needs a value", 2);
                            }
                            value = args[++i];
                        }
                        switch (arg) {
                            case "--data-dir" -> dataDir = Path.of(value);
                            case "--port" -> httpPort = port(arg, value, false);
                            case "--bolt-port" -> boltPort = port(arg, value, true);
                            case "--objects" -> {
                                objects = (int) number(arg, value, 1, Integer.MAX_VALUE);
                                objectsGiven = true;
                            }
                            case "--seed" -> {
                                seed = number(arg, value, Long.MIN_VALUE, Long.MAX_VALUE);
                                seedGiven = true;
                            }
                            case "--page-cache" -> {
                                if (!value.matches("(?i)\\d+[kmg]?")) {
                                    throw new UsageException("--page-cache: expected a size like 512m or 1g: " + value, 2);
                                }
                                pageCache = value;
                            }
                            case "--batch-nodes" -> batchNodes = (int) number(arg, value, 1, Integer.MAX_VALUE);
                            default -> throw new AssertionError(arg);
                        }
                    }
                    default -> throw new UsageException("unknown option: " + args[i], 2);
                }
            }
            return new Options(
                    dataDir, httpPort, boltPort, objects, objectsGiven, seed, seedGiven, pageCache, reset, batchNodes);
        }

        private static long number(String option, String value, long min, long max) {
            try {
                long n = Long.parseLong(value.replace("_", ""));
                if (n < min || n > max) {
                    throw new UsageException(option + ": out of range [" + min + ", " + max + "]: " + value, 2);
                }
                return n;
            } catch (NumberFormatException e) {
                throw new UsageException(option + ": not a number: " + value, 2);
            }
        }

        private static int port(String option, String value, boolean zeroAllowed) {
            return (int) number(option, value, zeroAllowed ? 0 : 1, 65535);
        }
    }

    static final class UsageException extends RuntimeException {
        final int exitCode;

        UsageException(String message, int exitCode) {
            super(message);
            this.exitCode = exitCode;
        }
    }

    static String usage() {
        return """
                Usage: scripts/demo [options]

                Starts Neo4j %s (Community) in-process with the subgraph-export extension mounted at %s,
                generates the demo graph if the database is empty, and prints curl commands for every format.
                Ctrl-C stops it.

                Options:
                  --data-dir DIR      Neo4j home for the demo (data/, logs/, run/ and import/ under it). Default: ./demo-data
                  --port N            HTTP port on 127.0.0.1. Default: %d
                  --bolt-port N       Bolt port on 127.0.0.1; 0 = any free port. Default: %d, or a free port if taken
                  --objects N         Objects in the generated tree, root included. Default: %,d
                  --founding-size     Same as --objects %d (the founding case: ~583k nodes, ~3.5M property values)
                  --seed S            Random seed of the generator. Default: %d
                  --page-cache SIZE   Neo4j page cache, e.g. 512m, 2g. Default: 1g
                  --reset             Delete everything in the database first, then generate again
                  --batch-nodes N     Nodes per write transaction while generating. Default: %,d
                  -h, --help          This help

                The graph is only generated into an empty database; an existing demo graph is reused as is
                (pass --reset to regenerate it with other --objects/--seed). LOAD CSV reads file:/// URLs from
                DIR/import only.
                JVM options can be added through the DEMO_JAVA_OPTS environment variable (e.g. -Xmx8g).
                """
                .formatted(
                        Version.getNeo4jVersion(),
                        EXTENSION_MOUNT,
                        DEFAULT_HTTP_PORT,
                        DEFAULT_BOLT_PORT,
                        DemoGraph.DEFAULT_OBJECTS,
                        DemoGraph.FOUNDING_OBJECTS,
                        DemoGraph.DEFAULT_SEED,
                        DemoGraph.DEFAULT_BATCH_NODES);
    }

    public static void main(String[] args) {
        Options options;
        try {
            options = Options.parse(args);
        } catch (UsageException e) {
            if (e.getMessage() != null) {
                System.err.println("demo: " + e.getMessage());
                System.err.println("Try --help.");
            } else {
                System.out.print(usage());
            }
            System.exit(e.exitCode);
            return;
        }
        try {
            System.exit(run(options));
        } catch (CancellationException e) {
            err.println();
            err.println("demo: generation interrupted; the next start will ask for --reset");
            System.exit(130);
        } catch (Exception e) {
            System.err.println();
            System.err.println("demo: failed: " + e);
            e.printStackTrace(System.err);
            System.exit(1);
        }
    }

    private static final PrintStream err = System.err;
    private static volatile boolean stopping;

    static int run(Options o) throws Exception {
        Path home = home(o);
        Files.createDirectories(importDir(o));
        if (!isFree(o.httpPort())) {
            err.printf(
                    "demo: HTTP port %d on %s is in use (another Neo4j or demo?). Stop it or pass --port N.%n",
                    o.httpPort(), LOOPBACK);
            return 2;
        }
        int boltPort = boltPort(o.boltPort(), o.httpPort());
        if (boltPort < 0) {
            err.printf("demo: Bolt port %d on %s is in use. Pass --bolt-port N (0 = any free port).%n",
                    o.boltPort(), LOOPBACK);
            return 2;
        }

        Map<String, String> settings = settings(o, boltPort);
        err.printf("demo: starting Neo4j %s in %s (logs in %s) ...%n", Version.getNeo4jVersion(), home,
                home.resolve("logs"));
        long startNanos = System.nanoTime();
        CommunityBootstrapper bootstrapper = new CommunityBootstrapper();
        // Installs Neo4j's own SIGINT/SIGTERM handlers (System.exit) and a shutdown hook that stops the DBMS.
        int rc = bootstrapper.start(home, null, settings, false, false);
        if (rc != NeoBootstrapper.OK) {
            err.printf("demo: Neo4j did not start (exit code %d); see %s%n", rc, home.resolve("logs/neo4j.log"));
            return rc;
        }
        DatabaseManagementService dbms = bootstrapper.getDatabaseManagementService();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(dbms), "demo-shutdown"));
        err.printf("demo: Neo4j started in %.1f s%n", seconds(System.nanoTime() - startNanos));

        GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        DemoGraph.Result result = prepareGraph(db, o);
        if (result == null) {
            return 3;
        }
        printInstructions(System.out, o, home, boltPort, result);
        // The server runs on Neo4j's threads; Ctrl-C (System.exit) ends this wait and runs the shutdown hooks.
        new CountDownLatch(1).await();
        return 0;
    }

    /** Runs in a shutdown hook, concurrently with Neo4j's own hook: DBMS shutdown is synchronized and idempotent. */
    private static void stop(DatabaseManagementService dbms) {
        stopping = true;
        err.println();
        err.println("demo: stopping ...");
        long t = System.nanoTime();
        try {
            dbms.shutdown();
            err.printf("demo: stopped (%.1f s)%n", seconds(System.nanoTime() - t));
        } catch (RuntimeException e) {
            err.println("demo: stopped with an error: " + e);
        }
    }

    /** The Neo4j home: the data folder, absolute. */
    static Path home(Options o) {
        return o.dataDir().toAbsolutePath().normalize();
    }

    /** Where LOAD CSV's {@code file:///} URLs point: {@code import/} in the Neo4j home. */
    static Path importDir(Options o) {
        return home(o).resolve("import");
    }

    static Map<String, String> settings(Options o, int boltPort) {
        Map<String, String> s = new LinkedHashMap<>();
        // Without an import folder an embedded server's LOAD CSV reads any file the JVM can (file:///etc/passwd),
        // also through the extension's Cypher endpoint: file:/// URLs resolve inside this folder only.
        s.put("server.directories.import", importDir(o).toString());
        s.put("server.unmanaged_extension_classes", EXTENSION_PACKAGE + "=" + EXTENSION_MOUNT);
        s.put("server.default_listen_address", LOOPBACK);
        s.put("server.default_advertised_address", LOOPBACK);
        s.put("server.http.enabled", "true");
        s.put("server.http.listen_address", LOOPBACK + ":" + o.httpPort());
        s.put("server.http.advertised_address", LOOPBACK + ":" + o.httpPort());
        s.put("server.https.enabled", "false");
        s.put("server.bolt.enabled", "true");
        s.put("server.bolt.listen_address", LOOPBACK + ":" + boltPort);
        s.put("server.bolt.advertised_address", LOOPBACK + ":" + boltPort);
        s.put("dbms.security.auth_enabled", "false");
        s.put("dbms.usage_report.enabled", "false");
        s.put("internal.dbms.bolt.netty_server_shutdown_quiet_period_duration", "0s");
        s.put("server.memory.pagecache.size", o.pageCache());
        // A demo does not need transaction logs for backups: keep the folder small after checkpoints.
        s.put("db.tx_log.rotation.retention_policy", "keep_none");
        s.put("db.tx_log.preallocate", "false"); // else each database starts with a 256 MiB log file
        s.put("db.tx_log.rotation.size", "64M");
        return s;
    }

    /**
     * Returns the graph's {@link DemoGraph.Result}, generating it if the database is empty; null (after explaining
     * why on stderr) if the database holds something else.
     */
    private static DemoGraph.Result prepareGraph(GraphDatabaseService db, Options o) throws Exception {
        if (o.reset()) {
            deleteEverything(db);
        }
        var existing = DemoGraph.read(db);
        if (existing.isPresent()) {
            DemoGraph.Result r = existing.get();
            if (!r.complete()) {
                err.printf(
                        "demo: the database holds an incomplete demo graph (%,d Objects; generation was interrupted?)."
                                + "%n      Run again with --reset to regenerate it.%n",
                        r.objects());
                return null;
            }
            err.printf("demo: reusing the demo graph in the database (%,d Objects, seed %d, generated in %.1f s)%n",
                    r.objects(), r.seed(), r.elapsed().toMillis() / 1000.0);
            if ((o.objectsGiven() && o.objects() != r.objects()) || (o.seedGiven() && o.seed() != r.seed())) {
                err.printf("demo: note: --objects/--seed ignored; pass --reset to regenerate with --objects %d"
                        + " --seed %d%n", o.objects(), o.seed());
            }
            return r;
        }
        long nodes;
        try (Transaction tx = db.beginTx();
                var result = tx.execute("MATCH (n) RETURN count(n) AS c")) {
            nodes = ((Number) result.next().get("c")).longValue();
        }
        if (nodes > 0) {
            err.printf("demo: the database is not empty (%,d nodes) and holds no demo graph; not generating."
                    + "%n      Use another --data-dir, or --reset to delete everything in it.%n", nodes);
            return null;
        }
        return generate(db, o);
    }

    private static void deleteEverything(GraphDatabaseService db) {
        err.print("demo: --reset: deleting everything in the database ...");
        long t = System.nanoTime();
        db.executeTransactionally(
                "MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS");
        err.printf(" done in %.1f s%n", seconds(System.nanoTime() - t));
    }

    private static DemoGraph.Result generate(GraphDatabaseService db, Options o) {
        DemoGraph.Result plan = DemoGraph.plan(o.objects(), o.seed());
        err.printf("demo: generating the demo graph: %,d Objects (seed %d): %,d nodes, %,d relationships,"
                + " %,d property values%n", plan.objects(), plan.seed(), plan.nodes(), plan.relationships(),
                plan.properties());
        Progress progress = new Progress(o.objects());
        DemoGraph.Result r = DemoGraph.generate(db, o.objects(), o.seed(), o.batchNodes(), progress);
        progress.finish();
        err.printf("demo: generated %,d nodes, %,d relationships, %,d property values in %.1f s (%,.0f nodes/s)%n",
                r.nodes(), r.relationships(), r.properties(), r.elapsed().toMillis() / 1000.0,
                r.nodes() / Math.max(1e-3, r.elapsed().toNanos() / 1e9));
        return r;
    }

    /** A single updating line on stderr. Throws (aborting the generation) once a shutdown has started. */
    private static final class Progress implements java.util.function.LongConsumer {
        private final long total;
        private final long start = System.nanoTime();
        private long lastPrint;
        private long lastDone = -1;

        Progress(long total) {
            this.total = total;
        }

        @Override
        public void accept(long done) {
            if (stopping) {
                throw new CancellationException("shutting down");
            }
            long now = System.nanoTime();
            if (done < total && now - lastPrint < 200_000_000L && done != 0) {
                return;
            }
            if (done == lastDone) {
                return;
            }
            lastPrint = now;
            lastDone = done;
            double secs = seconds(now - start);
            double rate = secs > 0 ? done / secs : 0;
            String eta = rate > 0 && done < total ? String.format(Locale.ROOT, ", ~%.0f s left", (total - done) / rate) : "";
            err.printf(Locale.ROOT, "\rdemo: %5.1f%%  %,d / %,d Objects  %,.0f Objects/s  %.1f s%s    ",
                    100.0 * done / total, done, total, rate, secs, eta);
            err.flush();
        }

        void finish() {
            accept(total);
            err.println();
        }
    }

    static void printInstructions(PrintStream out, Options o, Path home, int boltPort, DemoGraph.Result r) {
        String base = "http://" + LOOPBACK + ":" + o.httpPort();
        String root = URLEncoder.encode(r.rootElementId(), StandardCharsets.UTF_8);
        String w = "-w '%{http_code} %{size_download} bytes %{time_total} s\\n'";
        StringBuilder b = new StringBuilder();
        b.append('\n');
        b.append("Neo4j ").append(Version.getNeo4jVersion()).append(" (Community) running in this process, data in ")
                .append(home).append('\n');
        b.append("  HTTP   ").append(base).append("/   (auth disabled)\n");
        b.append("  Bolt   bolt://").append(LOOPBACK).append(':').append(boltPort).append('\n');
        b.append("  Extension: ").append(base).append(EXTENSION_MOUNT).append("  (package ").append(EXTENSION_PACKAGE)
                .append(")\n\n");
        b.append(String.format(Locale.ROOT,
                "Demo graph: %,d Objects (seed %d, depth %d): %,d nodes, %,d relationships, %,d property values%n",
                r.objects(), r.seed(), r.maxDepth(), r.nodes(), r.relationships(), r.properties()));
        b.append("Root Object: id=").append(r.rootId()).append("  elementId=").append(r.rootElementId())
                .append("\n\n");
        b.append("Export the subgraph under the root:\n");
        for (String format : formats()) {
            b.append("  curl -sS -o ").append(fileName(format)).append(' ').append(w).append(" '").append(base)
                    .append(EXTENSION_MOUNT).append('/').append(format).append("/traverse?root=").append(root)
                    .append("'\n");
        }
        b.append("Or find the root by label/key/value:\n");
        for (String format : formats()) {
            b.append("  curl -sS -o ").append(fileName(format)).append(' ').append(w).append(" '").append(base)
                    .append(EXTENSION_MOUNT).append('/').append(format).append("/traverse?label=Object&key=id&value=")
                    .append(r.rootId()).append("'\n");
        }
        b.append("\nPress Ctrl-C to stop.\n");
        out.print(b);
        out.flush();
    }

    private static String fileName(String format) {
        return "export." + format.replace('-', '.');
    }

    private static boolean isFree(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(InetAddress.getByName(LOOPBACK), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The requested Bolt port, or the default if free, or any free port; -1 if an explicit port is taken. */
    private static int boltPort(Integer requested, int httpPort) throws IOException {
        if (requested != null && requested != 0) {
            return isFree(requested) ? requested : -1;
        }
        if (requested == null && DEFAULT_BOLT_PORT != httpPort && isFree(DEFAULT_BOLT_PORT)) {
            return DEFAULT_BOLT_PORT;
        }
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
            return s.getLocalPort();
        }
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }
}
