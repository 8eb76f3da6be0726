package org.subgraphexport.jmh;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Transaction;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;
import org.subgraphexport.testkit.DemoGraph;
import org.subgraphexport.encode.Encoders;
import org.subgraphexport.read.TraverseExport;
import org.subgraphexport.read.WalkSpec;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;

/**
 * The benchmarks' data: the {@link DemoGraph} of a given size in an embedded database, generated once into
 * {@code <data>/objects-<n>-seed-<s>-gen-<v>} ({@code v}: {@link DemoGraph#GENERATOR_VERSION}) and reused by later
 * forks and runs ({@code <data>} is the system property {@code subgraphexport.jmh.data}, default
 * {@code <tmpdir>/subgraph-export-jmh}); and its traverse export as kryo
 * bytes, cached next to it, from which the serializer benchmark builds its in-memory records.
 */
final class DemoData implements AutoCloseable {
    static final long SEED = DemoGraph.DEFAULT_SEED;

    final DatabaseManagementService dbms;
    final GraphDatabaseService db;
    final DemoGraph.Result graph;
    final long rootId;

    private DemoData(DatabaseManagementService dbms, DemoGraph.Result graph, long rootId) {
        this.dbms = dbms;
        this.db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        this.graph = graph;
        this.rootId = rootId;
    }

    static Path home(int objects) {
        String root = System.getProperty("subgraphexport.jmh.data",
                Path.of(System.getProperty("java.io.tmpdir"), "subgraph-export-jmh").toString());
        // The generator version in the name: a graph (and its cached export) of an older generator is never reused.
        return Path.of(root).toAbsolutePath().resolve(
                "objects-" + objects + "-seed-" + SEED + "-gen-" + DemoGraph.GENERATOR_VERSION);
    }

    /** Opens (generating it the first time) the embedded database holding the demo graph of {@code objects}. */
    static DemoData open(int objects) throws IOException {
        Path home = home(objects);
        if (Files.isDirectory(home) && !Files.exists(home.resolve("complete"))) {
            deleteTree(home);
        }
        Files.createDirectories(home);
        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home)
                .setConfig(GraphDatabaseSettings.pagecache_memory, 1L << 30)
                .setConfig(GraphDatabaseSettings.keep_logical_logs, "keep_none")
                .setConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
                .build();
        try {
            GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
            DemoGraph.Result graph = DemoGraph.read(db).orElse(null);
            if (graph == null) {
                DemoGraph.generate(db, objects, SEED, done -> {});
                graph = DemoGraph.read(db).orElseThrow();
                Files.writeString(home.resolve("complete"), graph + "\n");
            }
            if (!graph.complete() || graph.objects() != objects
                    || graph.generatorVersion() != DemoGraph.GENERATOR_VERSION) {
                throw new IllegalStateException(home + " holds " + graph + "; delete it");
            }
            long rootId;
            try (Transaction tx = db.beginTx()) {
                Node root = tx.getNodeByElementId(graph.rootElementId());
                rootId = id(root);
            }
            return new DemoData(dbms, graph, rootId);
        } catch (RuntimeException | IOException e) {
            dbms.shutdown();
            throw e;
        }
    }

    @SuppressWarnings("removal")
    static long id(org.neo4j.graphdb.Entity entity) {
        return entity.getId();
    }

    /** The traverse export of the demo graph of {@code objects} as kryo bytes (cached in the data folder). */
    static byte[] kryoExport(int objects) throws IOException {
        Path file = home(objects).resolveSibling(home(objects).getFileName() + ".kryo");
        if (Files.exists(file)) {
            return Files.readAllBytes(file);
        }
        byte[] bytes;
        try (DemoData data = open(objects)) {
            bytes = data.export(Format.KRYO);
        }
        Path tmp = Files.createTempFile(file.getParent(), "export", ".tmp");
        Files.write(tmp, bytes);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return bytes;
    }

    /** The traverse export (default expand and attach) in {@code format}. */
    byte[] export(Format format) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (Transaction tx = db.beginTx()) {
            GraphWriter writer = Encoders.open(format, out);
            TraverseExport.run((InternalTransaction) tx, rootId, spec(), writer);
            writer.finish();
        }
        return out.toByteArray();
    }

    /** The traverse endpoint's defaults: CHILDREN> members, PROPERTY> attached, no depth or node limit. */
    static WalkSpec spec() {
        return new WalkSpec(WalkSpec.DEFAULT_EXPAND, WalkSpec.DEFAULT_ATTACH, Integer.MAX_VALUE, Long.MAX_VALUE);
    }

    @Override
    public void close() {
        dbms.shutdown();
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
