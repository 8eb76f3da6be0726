package org.subgraphexport.read;

import java.io.IOException;
import org.neo4j.internal.kernel.api.RelationshipScanCursor;
import org.neo4j.internal.kernel.api.RelationshipTraversalCursor;

/**
 * Where {@link SubgraphWalker} sends the records it decided to emit, in stream order. {@link EntityWriter} reads
 * and writes each record on the spot (the single-threaded walk); {@link ParallelEntityWriter} queues them and
 * has worker threads read their labels and properties while the walking thread encodes, in the same order.
 *
 * <p>The node limit is enforced here, so both implementations cut the stream at the same record.
 */
interface WalkOutput extends AutoCloseable {
    /**
     * Emits the node record of {@code id}. Returns false, emitting nothing, if the limit is reached (then
     * {@link #truncated()} is true) or the node no longer exists. (The parallel implementation finds a deleted
     * node only when it reads the record later, and then skips it together with its relationships.)
     */
    boolean writeNode(long id) throws IOException;

    /**
     * Emits the relationship under a cursor the caller positioned; both end nodes were emitted before. One method
     * per cursor type, not one for their common supertype: that supertype is {@code RelationshipCursor} since
     * 2025.x and {@code RelationshipDataAccessor} on 5.26, while both cursor types exist on every line.
     */
    void writeRelationship(RelationshipTraversalCursor rel) throws IOException;

    /** As {@link #writeRelationship(RelationshipTraversalCursor)}, for a relationship found by id. */
    void writeRelationship(RelationshipScanCursor rel) throws IOException;

    /** Writes whatever is still pending; after it, {@link #nodes()} and {@link #relationships()} are final. */
    default void flush() throws IOException {}

    /** Nodes written (after {@link #flush()}: all of them). */
    long nodes();

    /** Relationships written (after {@link #flush()}: all of them). */
    long relationships();

    /** Whether the limit stopped a node from being emitted. */
    boolean truncated();

    @Override
    void close();
}
