package org.subgraphexport.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.config.Setting;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilder;
import org.neo4j.harness.Neo4jBuilders;
import org.subgraphexport.bench.floor.FloorResource;
import org.subgraphexport.bench.floor.WalkOnlyResource;
import org.subgraphexport.config.ExportSettings;
import org.subgraphexport.testkit.DemoGraph;
import org.subgraphexport.server.TraverseResource;

/**
 * The server every end-to-end row talks to: an in-process Neo4j 2026.08.1 (the test harness) with HTTP and Bolt
 * on loopback, the extension at {@code /extension} and the benchmark's {@link FloorResource} and
 * {@link WalkOnlyResource} at {@code /floor}, holding the {@link DemoGraph} of a given size. The extension's response
 * cache is on ({@link #RESPONSE_CACHE_BYTES}); rows that must read the store say so per request
 * ({@code Cache-Control: no-cache, no-store}).
 *
 * <p>With a data folder, the graph is generated once into {@code <folder>/objects-<n>-seed-<s>-gen-<v>/data}
 * ({@code v}: {@link DemoGraph#GENERATOR_VERSION}, so a graph of an older generator is never reused) and reused by
 * later runs (the harness's own working folder is temporary, but {@code server.directories.data} points outside
 * it, so closing the harness keeps the store). A file {@code complete} marks a finished generation; a folder
 * without it is deleted and generated again. Without a folder, the graph is generated into a temporary one.
 *
 * <p>The page cache is sized to the store files (+25%, at least 64 MiB) unless a size is given: when the store
 * does not exist yet, the graph is generated with a provisional page cache and the server restarted.
 */
final class BenchServer implements AutoCloseable {
    private static final long MIB = 1L << 20;
    /** {@code server.subgraph_export.response_cache_size}: room for the kryo export at the founding size (44 MB). */
    static final long RESPONSE_CACHE_BYTES = 256 * MIB;

    final Neo4j neo4j;
    final GraphDatabaseService db;
    final DemoGraph.Result graph;
    final long pageCacheBytes;
    final long storeBytes;
    final Path storeDir;
    private final Path tempDir;

    private BenchServer(Neo4j neo4j, DemoGraph.Result graph, long pageCacheBytes, long storeBytes, Path storeDir,
            Path tempDir) {
        this.neo4j = neo4j;
        this.db = neo4j.defaultDatabaseService();
        this.graph = graph;
        this.pageCacheBytes = pageCacheBytes;
        this.storeBytes = storeBytes;
        this.storeDir = storeDir;
        this.tempDir = tempDir;
    }

    /**
     * Starts a server holding the demo graph of {@code objects} Objects.
     *
     * @param dataRoot  folder to keep generated graphs in, or null for a temporary one deleted on close
     * @param pageCache page cache size in bytes, or null to size it to the store
     */
    static BenchServer start(Path dataRoot, int objects, long seed, Long pageCache, PrintStream log) throws IOException {
        return start(dataRoot, objects, seed, pageCache, Map.of(), log);
    }

    /** As {@link #start(Path, int, long, Long, PrintStream)}, with more server settings (the extension's bounds, say). */
    static BenchServer start(Path dataRoot, int objects, long seed, Long pageCache, Map<Setting<?>, Object> settings,
            PrintStream log) throws IOException {
        Path tempDir = null;
        Path home;
        if (dataRoot == null) {
            tempDir = Files.createTempDirectory("subgraph-bench-");
            home = tempDir;
        } else {
            home = dataRoot.toAbsolutePath().resolve(
                    "objects-" + objects + "-seed-" + seed + "-gen-" + DemoGraph.GENERATOR_VERSION);
            if (Files.isDirectory(home) && !Files.exists(home.resolve("complete"))) {
                log.println("deleting " + home + ": an earlier generation did not complete");
                deleteTree(home);
            }
        }
        Files.createDirectories(home);
        Path data = home.resolve("data");
        boolean exists = Files.exists(home.resolve("complete"));
        long store = exists ? storeBytes(data) : 0;
        long cache = pageCache != null ? pageCache : exists ? sizedTo(store) : 512 * MIB;

        Neo4j neo4j = build(data, cache, settings);
        try {
            Optional<DemoGraph.Result> found = DemoGraph.read(neo4j.defaultDatabaseService());
            if (found.isPresent() && found.get().complete() && found.get().objects() == objects
                    && found.get().seed() == seed && found.get().generatorVersion() == DemoGraph.GENERATOR_VERSION) {
                return new BenchServer(neo4j, found.get(), cache, store, home, tempDir);
            }
            if (found.isPresent()) {
                throw new IllegalStateException(home + " holds another graph: " + found.get() + "; delete it");
            }
            log.printf("generating the demo graph: %,d Objects, seed %d, into %s%n", objects, seed, data);
            long t0 = System.nanoTime();
            long[] lastReport = {t0};
            DemoGraph.Result generated = DemoGraph.generate(neo4j.defaultDatabaseService(), objects, seed, done -> {
                long now = System.nanoTime();
                if (now - lastReport[0] > 10_000_000_000L) {
                    lastReport[0] = now;
                    log.printf("  %,d Objects%n", done);
                }
            });
            log.printf("generated %,d nodes and %,d relationships in %.1f s%n", generated.nodes(),
                    generated.relationships(), (System.nanoTime() - t0) / 1e9);
            Files.writeString(home.resolve("complete"), generated + "\n");
            if (pageCache != null) {
                return new BenchServer(neo4j, DemoGraph.read(neo4j.defaultDatabaseService()).orElseThrow(), cache,
                        storeBytes(data), home, tempDir);
            }
        } catch (RuntimeException | IOException | Error e) {
            neo4j.close();
            throw e;
        }
        // Restart with the page cache sized to the store that now exists.
        neo4j.close();
        store = storeBytes(data);
        cache = sizedTo(store);
        Neo4j sized = build(data, cache, settings);
        return new BenchServer(sized, DemoGraph.read(sized.defaultDatabaseService()).orElseThrow(), cache, store, home,
                tempDir);
    }

    private static Neo4j build(Path data, long pageCacheBytes, Map<Setting<?>, Object> settings) {
        // Bolt's Netty would otherwise wait ~10 s for quiet on close; a Duration since 2026.04, whole seconds before
        // (scripts/bench --neo4j runs this on older lines too)
        @SuppressWarnings("unchecked")
        Setting<Object> quietPeriod = (Setting<Object>) (Setting<?>) GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period;
        Neo4jBuilder builder = Neo4jBuilders.newInProcessBuilder()
                .withConfig(GraphDatabaseSettings.data_directory, data)
                .withConfig(GraphDatabaseSettings.pagecache_memory, pageCacheBytes)
                .withConfig(BoltConnector.enabled, true)
                .withConfig(quietPeriod, quietPeriod.defaultValue() instanceof Duration ? Duration.ZERO : (Object) 0)
                .withConfig(GraphDatabaseSettings.keep_logical_logs, "keep_none")
                .withConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
                .withConfig(GraphDatabaseSettings.logical_log_rotation_threshold, 64 * MIB)
                .withConfig(ExportSettings.RESPONSE_CACHE_SIZE, RESPONSE_CACHE_BYTES)
                .withUnmanagedExtension("/extension", TraverseResource.class) // the whole package (PLATFORM.md)
                .withUnmanagedExtension("/floor", FloorResource.class); // FloorResource and WalkOnlyResource
        for (Map.Entry<Setting<?>, Object> setting : settings.entrySet()) {
            builder = withSetting(builder, setting.getKey(), setting.getValue());
        }
        return builder.build();
    }

    @SuppressWarnings("unchecked")
    private static <T> Neo4jBuilder withSetting(Neo4jBuilder builder, Setting<T> setting, Object value) {
        return builder.withConfig(setting, (T) value);
    }

    /** Store files plus 25%, rounded up to MiB, at least 64 MiB. */
    private static long sizedTo(long storeBytes) {
        long wanted = storeBytes + storeBytes / 4;
        return Math.max(64 * MIB, (wanted + MIB - 1) / MIB * MIB);
    }

    /** Bytes of the default database's store files (what goes through the page cache), transaction logs excluded. */
    static long storeBytes(Path data) throws IOException {
        Path databases = data.resolve("databases").resolve(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        if (!Files.isDirectory(databases)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(databases)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> {
                try {
                    return Files.size(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).sum();
        }
    }

    URI http() {
        return neo4j.httpURI();
    }

    URI bolt() {
        return neo4j.boltURI();
    }

    /** Heap in use after a full GC: this JVM runs client and server, so it is the server's heap plus the client's. */
    static long heapUsedAfterGc() {
        for (int i = 0; i < 2; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    @Override
    public void close() throws IOException {
        neo4j.close();
        if (tempDir != null) {
            deleteTree(tempDir);
        }
    }

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
