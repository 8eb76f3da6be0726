package org.subgraphexport.bench;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.subgraphexport.bench.floor.FloorResource;
import org.subgraphexport.client.ExportEnd;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.ExportRecord;
import org.subgraphexport.testkit.DemoGraph;
import org.subgraphexport.wire.Format;

/**
 * The end-to-end table: every way of getting the subgraph under the demo graph's root to a Java client, against one
 * running server, in one run, each after warm-up, median of several runs. See {@link #usage()} and README
 * "Benchmarks". {@code scripts/bench} runs it at the founding size; {@link EndToEndQuickTest} runs the quick mode.
 *
 * <p>Method: the page cache is loaded first ({@code POST /extension/warmup}). Then per row: one untimed pass through
 * a {@link ByteCountingProxy} (it counts the bytes on the wire and what was decoded), then {@code warmup} untimed
 * runs, then {@code runs} timed runs. Rows take turns (run 1 of every row, then run 2 of every row, ...; the order
 * rotates each round) so that drift of the shared machine spreads over all rows, and a full GC precedes every timed
 * run.
 *
 * <p>The server runs with the response cache on ({@link BenchServer#RESPONSE_CACHE_BYTES}), but every ordinary row
 * sends {@code Cache-Control: no-cache, no-store}, so it reads the store each time and no copy is kept; only the
 * rows {@code traverse kryo cached} and {@code traverse kryo 304} measure repeats.
 */
public final class EndToEndRunner {
    /**
     * The peers' query, {@link DemoGraph#SUBGRAPH_QUERY}. The cypher rows of this project run the same query, so they
     * differ from the peers only in transport and encoding.
     */
    public static final String PEER_QUERY = DemoGraph.SUBGRAPH_QUERY;

    /**
     * The peers' query for the transactional endpoint's JSON: its row format sends a relationship as its property map
     * (and its id and type in {@code meta}) without start and end, so each relationship comes with the element id of
     * the end it would otherwise lack (a CHILDREN relationship starts at the row's Object, an attached relationship
     * ends at the node next to it).
     */
    static final String TX_ROW_QUERY = """
            MATCH (root) WHERE elementId(root) = $root
            MATCH (root)-[:CHILDREN]->*(o)
            RETURN o,
              COLLECT { MATCH (o)-[c:CHILDREN]->(k) RETURN [c, elementId(k)] } AS children,
              COLLECT { MATCH (o)-[:PROPERTY]->*(s)-[r:PROPERTY]->(x) RETURN [r, elementId(s), x] } AS attached""";

    static final String DATABASE = GraphDatabaseSettings.DEFAULT_DATABASE_NAME;

    private EndToEndRunner() {}

    /** Command-line options. */
    record Options(int objects, long seed, int runs, int warmups, Path dataRoot, Path outDir, Long pageCache,
            boolean keepIds, Pattern rows, int boltFetchSize, List<Integer> scaling, int scalingRuns, boolean joltV2) {

        static Options defaults() {
            return new Options(DemoGraph.FOUNDING_OBJECTS, DemoGraph.DEFAULT_SEED, 5, 2, Path.of("target/bench-db"),
                    Path.of("benchmarks/results"), null, false, null, 1000, List.of(), 5, false);
        }

        /** The quick mode of the test suite: a small graph in a temporary folder, one timed run, ids compared. */
        static Options quick(Path outDir) {
            return new Options(300, DemoGraph.DEFAULT_SEED, 1, 0, null, outDir, 64L << 20, true, null, 1000,
                    List.of(), 1, true);
        }

        static Options parse(String[] args) {
            Options o = defaults();
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                String value = null;
                int eq = arg.indexOf('=');
                if (arg.startsWith("--") && eq > 0) {
                    value = arg.substring(eq + 1);
                    arg = arg.substring(0, eq);
                }
                if (arg.equals("--help") || arg.equals("-h")) {
                    System.out.println(usage());
                    System.exit(0);
                }
                if (arg.equals("--quick")) {
                    o = quick(o.outDir);
                    continue;
                }
                if (arg.equals("--jolt-v2")) {
                    o = new Options(o.objects, o.seed, o.runs, o.warmups, o.dataRoot, o.outDir, o.pageCache, o.keepIds,
                            o.rows, o.boltFetchSize, o.scaling, o.scalingRuns, true);
                    continue;
                }
                if (arg.equals("--keep-ids")) {
                    o = new Options(o.objects, o.seed, o.runs, o.warmups, o.dataRoot, o.outDir, o.pageCache, true,
                            o.rows, o.boltFetchSize, o.scaling, o.scalingRuns, o.joltV2);
                    continue;
                }
                if (arg.equals("--scaling") && value == null
                        && (i + 1 >= args.length || args[i + 1].startsWith("--"))) {
                    value = "10000,100000,1000000";
                } else if (value == null) {
                    if (i + 1 >= args.length) throw new IllegalArgumentException(arg + " needs a value\n" + usage());
                    value = args[++i];
                }
                switch (arg) {
                    case "--objects" -> o = new Options(Integer.parseInt(value.replace("_", "")), o.seed, o.runs,
                            o.warmups, o.dataRoot, o.outDir, o.pageCache, o.keepIds, o.rows, o.boltFetchSize,
                            o.scaling, o.scalingRuns, o.joltV2);
                    case "--seed" -> o = new Options(o.objects, Long.parseLong(value), o.runs, o.warmups, o.dataRoot,
                            o.outDir, o.pageCache, o.keepIds, o.rows, o.boltFetchSize, o.scaling, o.scalingRuns, o.joltV2);
                    case "--runs" -> o = new Options(o.objects, o.seed, positive(arg, value), o.warmups, o.dataRoot,
                            o.outDir, o.pageCache, o.keepIds, o.rows, o.boltFetchSize, o.scaling,
                            positive(arg, value), o.joltV2);
                    case "--warmup" -> o = new Options(o.objects, o.seed, o.runs, Integer.parseInt(value), o.dataRoot,
                            o.outDir, o.pageCache, o.keepIds, o.rows, o.boltFetchSize, o.scaling, o.scalingRuns, o.joltV2);
                    case "--data-dir" -> o = new Options(o.objects, o.seed, o.runs, o.warmups, Path.of(value),
                            o.outDir, o.pageCache, o.keepIds, o.rows, o.boltFetchSize, o.scaling, o.scalingRuns, o.joltV2);
                    case "--out" -> o = new Options(o.objects, o.seed, o.runs, o.warmups, o.dataRoot, Path.of(value),
                            o.pageCache, o.keepIds, o.rows, o.boltFetchSize, o.scaling, o.scalingRuns, o.joltV2);
                    case "--page-cache" -> o = new Options(o.objects, o.seed, o.runs, o.warmups, o.dataRoot, o.outDir,
                            bytes(value), o.keepIds, o.rows, o.boltFetchSize, o.scaling, o.scalingRuns, o.joltV2);
                    case "--rows" -> o = new Options(o.objects, o.seed, o.runs, o.warmups, o.dataRoot, o.outDir,
                            o.pageCache, o.keepIds, Pattern.compile(value), o.boltFetchSize, o.scaling,
                            o.scalingRuns, o.joltV2);
                    case "--bolt-fetch-size" -> o = new Options(o.objects, o.seed, o.runs, o.warmups, o.dataRoot,
                            o.outDir, o.pageCache, o.keepIds, o.rows, Integer.parseInt(value), o.scaling,
                            o.scalingRuns, o.joltV2);
                    case "--scaling" -> o = new Options(o.objects, o.seed, o.runs, o.warmups, o.dataRoot, o.outDir,
                            o.pageCache, o.keepIds, o.rows, o.boltFetchSize,
                            Arrays.stream(value.split(",")).map(s -> Integer.parseInt(s.strip().replace("_", "")))
                                    .toList(), o.scalingRuns, o.joltV2);
                    default -> throw new IllegalArgumentException("unknown option " + arg + "\n" + usage());
                }
            }
            return o;
        }

        private static int positive(String option, String value) {
            int n = Integer.parseInt(value);
            if (n < 1) throw new IllegalArgumentException(option + " must be >= 1");
            return n;
        }

        private static long bytes(String value) {
            String v = value.strip().toLowerCase();
            long unit = v.endsWith("g") ? 1L << 30 : v.endsWith("m") ? 1L << 20 : v.endsWith("k") ? 1L << 10 : 1;
            return Long.parseLong(unit == 1 ? v : v.substring(0, v.length() - 1)) * unit;
        }
    }

    static String usage() {
        return """
                EndToEndRunner [options]   (scripts/bench passes its arguments here)
                  --objects N         Objects in the demo graph (default: the founding size, 97254)
                  --runs N            timed runs per row, median reported (default 5)
                  --warmup N          untimed runs per row after the first pass (default 2)
                  --scaling [a,b,c]   instead of the table: kryo traverse at these sizes (default 10000,100000,1000000)
                  --data-dir DIR      where generated graphs are kept and reused (default target/bench-db)
                  --out DIR           where results are written (default benchmarks/results)
                  --page-cache SIZE   e.g. 2g (default: the store files' size + 25%)
                  --rows REGEX        only rows whose name matches
                  --bolt-fetch-size N the driver's fetch size (default 1000; -1 all at once)
                  --keep-ids          compare node and relationship ids across rows, not only counts
                  --jolt-v2           add tx/commit Jolt v2 (element ids): 80-100 s per run at the founding size
                  --quick             small graph in a temporary folder, one run, ids compared (the test suite's mode)""";
    }

    /**
     * Runs the table (or the scaling run) and exits: 0 on success, 1 if a row failed or counts disagree. It always
     * exits explicitly, since Neo4j's and the driver's threads would keep a failed JVM alive.
     */
    public static void main(String[] args) {
        int status;
        try {
            status = runMain(Options.parse(args));
        } catch (Throwable t) {
            t.printStackTrace();
            status = 1;
        }
        System.exit(status);
    }

    private static int runMain(Options options) throws Exception {
        if (!options.scaling().isEmpty()) {
            Scaling.Result result = Scaling.run(options, System.out);
            Path md = Results.writeScaling(result, options.outDir());
            System.out.println(Files.readString(md));
            System.out.println("written: " + md.toAbsolutePath() + " and "
                    + options.outDir().resolve(Results.SCALING_PNG).toAbsolutePath());
            return 0;
        }
        Table table = run(options, System.out);
        Path md = Results.writeTable(table, options.outDir());
        System.out.println(Files.readString(md));
        System.out.println("written: " + md.toAbsolutePath() + " and " + Results.chartPath(options.outDir()).toAbsolutePath());
        int status = 0;
        if (!table.countsAgree()) {
            System.err.println("COUNTS DISAGREE: see the table");
            status = 1;
        }
        if (options.keepIds()) {
            String ids = compareIds(table);
            System.out.println(ids == null ? "ids: every decoding row decoded the same node and relationship ids" : ids);
            if (ids != null) status = 1;
        }
        return status;
    }

    /** One row's measurements. */
    record Measured(Row row, long wireBytes, Row.Outcome first, long[] nanos, String problem) {
        long medianNanos() {
            long[] sorted = nanos.clone();
            Arrays.sort(sorted);
            int n = sorted.length;
            return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        }

        long minNanos() {
            return Arrays.stream(nanos).min().orElse(0);
        }

        long maxNanos() {
            return Arrays.stream(nanos).max().orElse(0);
        }
    }

    /** The end-to-end table and the settings it was measured with. */
    record Table(Options options, Environment environment, DemoGraph.Result graph, String rootElementId,
            long pageCacheBytes, long storeBytes, long heapBefore, long heapAfter, List<Measured> rows,
            String warmup) {

        /** The row of that name, or null (not run, e.g. filtered out with --rows, or failed). */
        Measured row(String name) {
            return rows.stream().filter(m -> m.row().name().equals(name) && m.problem() == null).findFirst()
                    .orElse(null);
        }

        /** Median of the fastest alternative. */
        long fastestAlternativeNanos() {
            return rows.stream().filter(m -> m.row().kind() == Row.Kind.ALTERNATIVE && m.problem() == null)
                    .mapToLong(Measured::medianNanos).min().orElse(0);
        }

        /** True if every decoding row decoded exactly the demo graph's nodes and relationships. */
        boolean countsAgree() {
            return rows.stream().allMatch(m -> countsProblem(m) == null);
        }

        /** Why a row's counts are not the expected ones, or null. */
        String countsProblem(Measured m) {
            if (m.problem() != null) return m.problem();
            if (m.first().nodes() < 0) return null; // does not decode (its note says so)
            if (m.first().nodes() != graph.nodes() || m.first().relationships() != graph.relationships()) {
                return "decoded " + m.first().nodes() + " nodes and " + m.first().relationships()
                        + " relationships, expected " + graph.nodes() + " and " + graph.relationships();
            }
            return null;
        }
    }

    /** Runs the table. */
    static Table run(Options o, PrintStream log) throws Exception {
        Environment environment = Environment.capture();
        try (BenchServer server = BenchServer.start(o.dataRoot(), o.objects(), o.seed(), o.pageCache(), log)) {
            DemoGraph.Result graph = server.graph;
            String root = graph.rootElementId();
            log.printf("server up: %s, bolt %s; graph %,d Objects, %,d nodes, %,d relationships; store %,d bytes, "
                            + "page cache %,d bytes%n", server.http(), server.bolt(), graph.objects(), graph.nodes(),
                    graph.relationships(), server.storeBytes, server.pageCacheBytes);

            String warmup = warmUp(server);
            log.println("page cache warm-up: POST /extension/warmup?db=" + DATABASE + " answered " + warmup);

            byte[] kryo = fetch(server, root);
            FloorResource.serve(kryo);
            log.printf("floor: %,d bytes of the kryo export served from memory%n", kryo.length);

            BoltRow bolt = new BoltRow(DATABASE, root, PEER_QUERY, o.boltFetchSize());
            try {
                return measure(o, environment, server, bolt, warmup, log);
            } finally {
                bolt.close();
            }
        }
    }

    /**
     * The links of the compression rows: loopback as it is, and 1 Gbit/s and 100 Mbit/s simulated by pacing the
     * client's reads (README "Benchmarks").
     */
    static final long[] LINKS = {0, 1_000_000_000L, 100_000_000L};

    private static Table measure(Options o, Environment environment, BenchServer server, BoltRow bolt, String warmup,
            PrintStream log) throws Exception {
        DemoGraph.Result graph = server.graph;
        String root = graph.rootElementId();
        List<Row> rows = new ArrayList<>();
        rows.add(bolt);
        for (PeerHttpRow.Api api : PeerHttpRow.Api.values()) {
            if (api == PeerHttpRow.Api.TX_JOLT_V2 && !o.joltV2()) continue;
            rows.add(new PeerHttpRow(api, DATABASE, root, PEER_QUERY, TX_ROW_QUERY));
        }
        for (ExtensionRow.Endpoint endpoint : ExtensionRow.Endpoint.values()) {
            for (Format format : Format.values()) {
                if (format.clientDecodes()) {
                    rows.add(new ExtensionRow(endpoint, format, root, PEER_QUERY));
                }
            }
        }
        for (long link : LINKS) {
            if (link > 0) {  // the plain rows on the simulated link; on loopback they are the rows above
                rows.add(ExtensionRow.traverse(Format.KRYO, null, link, root));
                rows.add(ExtensionRow.traverse(Format.KRYO_LZF, null, link, root));
            }
            rows.add(ExtensionRow.traverse(Format.KRYO, "zstd", link, root));
            rows.add(ExtensionRow.traverse(Format.JSON, "zstd", link, root));
            rows.add(ExtensionRow.traverse(Format.JSON, "gzip", link, root));
        }
        rows.add(ExtensionRow.traverse(Format.ARROW, ExtensionRow.Mode.BYTES, root));  // the Java client reads no arrow
        for (Format format : Format.values()) {
            if (format.clientDecodes()) rows.add(ExtensionRow.traverse(format, ExtensionRow.Mode.STREAM, root));
        }
        rows.add(ExtensionRow.traverse(Format.KRYO, ExtensionRow.Mode.BYTES, root));
        rows.add(ExtensionRow.traverse(Format.KRYO, ExtensionRow.Mode.CACHED, root));
        rows.add(ExtensionRow.traverse(Format.KRYO, ExtensionRow.Mode.NOT_MODIFIED, root));
        rows.add(new WalkOnlyRow(root));
        rows.add(new FloorRow(false));
        rows.add(new FloorRow(true));
        if (o.rows() != null) {
            rows.removeIf(r -> !o.rows().matcher(r.name()).find());
        }

        Row.Endpoints direct = new Row.Endpoints(server.http(), server.bolt());
        long heapBefore = BenchServer.heapUsedAfterGc();
        List<Measured> measured = new ArrayList<>();
        try (ByteCountingProxy httpProxy = new ByteCountingProxy(server.http());
                ByteCountingProxy boltProxy = new ByteCountingProxy(server.bolt())) {
            Row.Endpoints proxied = new Row.Endpoints(httpProxy.via(server.http()), boltProxy.via(server.bolt()));
            log.println("first pass (through the byte-counting proxy):");
            for (Row row : rows) {
                ByteCountingProxy proxy = row instanceof BoltRow ? boltProxy : httpProxy;
                long before = proxy.bytesToClient();
                Row.Outcome first;
                String problem = null;
                try {
                    row.prepare(direct);
                    before = proxy.bytesToClient();
                    first = row.run(proxied, o.keepIds());
                } catch (Exception e) {
                    first = new Row.Outcome(-1, -1, -1, 0, null);
                    problem = "failed: " + e;
                    e.printStackTrace(log);
                }
                Thread.sleep(100); // let the proxy count what trails the response (Bolt's RESET answer)
                long wire = proxy.bytesToClient() - before;
                measured.add(new Measured(row, wire, first, new long[o.runs()], problem));
                log.printf("  %-22s %,14d bytes on the wire  %,9d nodes  %,9d relationships  %8.3f s%s%n",
                        row.name(), wire, first.nodes(), first.relationships(), first.nanos() / 1e9,
                        problem == null ? "" : "  " + problem);
            }
        }
        bolt.close(); // the proxy's connections
        for (int w = 0; w < o.warmups(); w++) {
            log.printf("warm-up %d/%d%n", w + 1, o.warmups());
            for (Measured m : measured) {
                if (m.problem() == null) m.row().run(direct, false);
            }
        }
        for (int run = 0; run < o.runs(); run++) {
            log.printf("run %d/%d:", run + 1, o.runs());
            for (int k = 0; k < measured.size(); k++) {
                Measured m = measured.get((k + run) % measured.size());
                if (m.problem() != null) continue;
                BenchServer.heapUsedAfterGc(); // a full GC before every timed run: no row pays for another's garbage
                Row.Outcome outcome = m.row().run(direct, false);
                if (outcome.nodes() != m.first().nodes() || outcome.relationships() != m.first().relationships()) {
                    throw new IllegalStateException(m.row().name() + " decoded " + outcome.nodes() + "/"
                            + outcome.relationships() + " in run " + (run + 1) + " but " + m.first().nodes()
                            + "/" + m.first().relationships() + " in the first pass");
                }
                m.nanos()[run] = outcome.nanos();
                log.printf(" %s %.3f s;", m.row().name(), outcome.nanos() / 1e9);
            }
            log.println();
        }
        bolt.close();
        long heapAfter = BenchServer.heapUsedAfterGc();
        return new Table(o, environment, graph, root, server.pageCacheBytes, server.storeBytes, heapBefore,
                heapAfter, measured, warmup);
    }

    /** {@code POST /extension/warmup?db=neo4j}: loads the store into the page cache; its JSON answer. */
    static String warmUp(BenchServer server) throws IOException {
        try (Http.Body body = Http.post(server.http().resolve("/extension/warmup?db=" + DATABASE), "application/json",
                "")) {
            return new String(body.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
        }
    }

    /** The kryo traverse export's bytes, as the server sends them. */
    static byte[] fetch(BenchServer server, String root) throws IOException {
        try (InputStream in = Http.get(server.http().resolve("/extension/kryo/traverse?root=" + Http.enc(root)),
                Format.KRYO.mediaType(), Http.BYPASS_CACHE)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream(1 << 20);
            in.transferTo(out);
            return out.toByteArray();
        }
    }

    /** Ids decoded by each row that kept them, for the quick mode's comparison; rows without ids are skipped. */
    static String compareIds(Table table) {
        Measured reference = null;
        for (Measured m : table.rows()) {
            Tally t = m.first().tally();
            if (t == null || t.nodeIds() == null) continue;
            if (reference == null) {
                reference = m;
                continue;
            }
            Tally r = reference.first().tally();
            if (!Objects.equals(t.nodeIds(), r.nodeIds())) {
                return m.row().name() + ": node ids differ from " + reference.row().name() + ": "
                        + difference(t.nodeIds(), r.nodeIds());
            }
            if (!Objects.equals(t.relationshipIds(), r.relationshipIds())) {
                return m.row().name() + ": relationship ids differ from " + reference.row().name() + ": "
                        + difference(t.relationshipIds(), r.relationshipIds());
            }
        }
        return null;
    }

    private static String difference(Set<String> a, Set<String> b) {
        List<String> onlyA = a.stream().filter(x -> !b.contains(x)).limit(5).toList();
        List<String> onlyB = b.stream().filter(x -> !a.contains(x)).limit(5).toList();
        return "only here " + onlyA + ", only there " + onlyB;
    }

    /** Reads a kryo traverse export record by record, pausing halfway to measure the heap; returns the heap then. */
    static long heapMidExport(BenchServer server, String root, long expectedRecords) throws IOException {
        try (Http.Body body = Http.get(server.http().resolve("/extension/kryo/traverse?root=" + Http.enc(root)),
                Format.KRYO.mediaType(), Http.BYPASS_CACHE);
                ExportReader reader = ExportReader.open(Format.KRYO, body)) {
            long records = 0;
            long heap = -1;
            for (ExportRecord r; (r = reader.next()) != null; ) {
                if (++records == expectedRecords / 2) {
                    heap = BenchServer.heapUsedAfterGc();
                }
                if (r instanceof ExportEnd) break;
            }
            return heap;
        }
    }
}
