package org.subgraphexport.read;

import java.util.function.Supplier;
import org.neo4j.graphdb.GraphDatabaseService;

/**
 * The store state an export names in its header and end record ({@code Subgraph-Export-State}: the database and
 * its last committed transaction, {@link StoreState#version}), and the state a request pinned with {@code state=}.
 * A pinned export reads exactly that state or fails: {@link #require} throws {@link Changed} when the database
 * has moved on, which the stream reports as its error record with code {@value #CHANGED}.
 */
public final class ExportState {
    /** The error code of an export whose database is no longer (or was not) in the pinned state. */
    public static final String CHANGED = "Export.StateChanged";

    /** No state: an export that reads none names {@code ""}, and nothing is pinned (tests, benchmarks). */
    public static final ExportState NONE = new ExportState(() -> "", null);

    private final Supplier<String> current;
    private final String pinned;

    /** {@code current} gives the state now; {@code pinned} is the state the request requires, or null. */
    public ExportState(Supplier<String> current, String pinned) {
        this.current = current;
        this.pinned = pinned;
    }

    public static ExportState of(GraphDatabaseService db, String pinned) {
        return new ExportState(() -> StoreState.version(db), pinned);
    }

    /** The state now. */
    public String now() {
        return current.get();
    }

    /** Throws {@link Changed} if a state was pinned and {@code state} is another. */
    public void require(String state) {
        if (pinned != null && !pinned.equals(state)) {
            throw new Changed(pinned, state);
        }
    }

    /** The database is no longer in the state the request pinned. */
    public static final class Changed extends RuntimeException {
        public Changed(String pinned, String now) {
            super("the database moved on from state " + pinned + " to " + now
                    + " (a transaction committed): read the export again, all of its partitions, without state= or with"
                    + " the new state");
        }

        public String code() {
            return CHANGED;
        }
    }
}
