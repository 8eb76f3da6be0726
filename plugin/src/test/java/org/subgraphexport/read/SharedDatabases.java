package org.subgraphexport.read;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;

/**
 * Embedded databases that live as long as the JVM: one per name, started and filled on first use, shut down and
 * deleted at exit. For test classes whose tests only add to their database: a mutation-testing run (PIT) launches
 * every test method on its own, once per mutant, and a database started per launch would cost seconds each time.
 */
final class SharedDatabases {
    private static final Map<String, DatabaseManagementService> STARTED = new HashMap<>();

    private SharedDatabases() {}

    /**
     * The DBMS named {@code name}, built with {@code configure} and then given to {@code fill}, both on first use
     * only (Neo4j's transaction monitor checks every hour: tests that want a timeout applied apply it themselves).
     */
    static synchronized DatabaseManagementService get(String name, Consumer<DatabaseManagementService> fill) {
        DatabaseManagementService dbms = STARTED.get(name);
        if (dbms != null) return dbms;
        Path home;
        try {
            home = Files.createTempDirectory("subgraph-export-" + name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        DatabaseManagementService started = new DatabaseManagementServiceBuilder(home)
                .setConfig(GraphDatabaseSettings.pagecache_memory, 16L << 20)
                .setConfig(GraphDatabaseSettings.transaction_monitor_check_interval, java.time.Duration.ofHours(1))
                // a cursor left open fails the transaction's close (Neo4j's own check, off by default)
                .setConfig(GraphDatabaseInternalSettings.track_cursor_close, true)
                .build();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            started.shutdown();
            try (Stream<Path> files = Files.walk(home)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException ignored) {
                // a temporary directory left behind
            }
        }, "shutdown " + name));
        fill.accept(started);
        STARTED.put(name, started);
        return started;
    }
}
