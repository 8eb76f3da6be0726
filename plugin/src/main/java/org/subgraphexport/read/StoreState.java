package org.subgraphexport.read;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.io.layout.DatabaseLayout;
import org.neo4j.io.pagecache.PageCache;
import org.neo4j.io.pagecache.PagedFile;
import org.neo4j.io.pagecache.context.CursorContext;
import org.neo4j.io.pagecache.context.CursorContextFactory;
import org.neo4j.kernel.internal.GraphDatabaseAPI;
import org.neo4j.storageengine.api.TransactionIdStore;

/**
 * Facts about a database's store that are not part of the graph: the last committed transaction (what a cached
 * export's freshness is judged by) and the page cache (what a warm-up loads). Internal Neo4j APIs, resolved
 * from the database's dependency resolver; the same on every supported line (LinkageIT) and covered by tests.
 */
public final class StoreState {
    private StoreState() {}

    /** The database's id and its last committed transaction: together they change whenever the data can have. */
    public static String version(GraphDatabaseService db) {
        GraphDatabaseAPI api = (GraphDatabaseAPI) db;
        long tx = api.getDependencyResolver().resolveDependency(TransactionIdStore.class).getLastCommittedTransactionId();
        return api.databaseId().databaseId().uuid() + ":" + tx;
    }

    /** What a warm-up did. */
    public record Warmup(String database, int files, long pages, long bytes, long nanos) {}

    /**
     * Loads every page of every store file the database has mapped in the page cache ({@code PagedFile.touch}),
     * so the first export does not pay for disk reads. Community Edition has no warmer of its own.
     */
    public static Warmup warmUp(GraphDatabaseService db) throws IOException {
        GraphDatabaseAPI api = (GraphDatabaseAPI) db;
        PageCache pageCache = api.getDependencyResolver().resolveDependency(PageCache.class);
        Path directory = api.getDependencyResolver().resolveDependency(DatabaseLayout.class).databaseDirectory();
        long start = System.nanoTime();
        int files = 0;
        long pages = 0;
        long bytes = 0;
        List<PagedFile> mappings = pageCache.listExistingMappings(); // the database's page cache: its files only
        try (CursorContext context = CursorContextFactory.NULL_CONTEXT_FACTORY.create("subgraph-export warm-up")) {
            for (PagedFile file : mappings) {
                if (!file.path().startsWith(directory)) {
                    continue;
                }
                files++;
                long last = file.getLastPageId();
                for (long page = 0; page <= last; page += 1024) {
                    pages += file.touch(page, (int) Math.min(1024, last - page + 1), context);
                }
                bytes += file.fileSize();
            }
        }
        // the mappings are the database's own: borrowed, not closed here
        return new Warmup(db.databaseName(), files, pages, bytes, System.nanoTime() - start);
    }
}
