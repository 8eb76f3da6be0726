package org.subgraphexport.read;

import java.io.IOException;
import org.neo4j.internal.kernel.api.RelationshipScanCursor;
import org.neo4j.internal.kernel.api.RelationshipTraversalCursor;

/**
 * One {@link Partition}'s share of a walk: the walker decides every record of the whole export, in its order; this
 * passes on the records the partition owns and drops the others unread. Numbering and the node limit are the whole
 * export's, so every partition numbers the same sequence and a {@code limit} cuts it at the same node in each.
 *
 * <p>A node that is not this partition's is counted without being read: it existed when the walk met it (a
 * relationship led to it). Only a concurrent delete can make its owner find it gone, and then the partitions'
 * sequences differ from there on; such a delete is a commit, which changes the database's state, and partitions
 * are exact only when they all read one state (the clients pin it with {@code state=}; the server then ends a
 * stream whose state moved with an error record).
 */
final class PartitionedOutput implements WalkOutput {
    private final WalkOutput owned;
    private final Partition partition;
    private final long limit;
    private long records;
    private long nodesDecided;
    private boolean truncated;

    /** {@code owned} writes this partition's records and must not apply a limit of its own. */
    PartitionedOutput(WalkOutput owned, Partition partition, long limit) {
        this.owned = owned;
        this.partition = partition;
        this.limit = limit;
    }

    @Override
    public boolean writeNode(long id) throws IOException {
        if (nodesDecided >= limit) {
            truncated = true;
            return false;
        }
        if (partition.owns(records++) && !owned.writeNode(id)) {
            return false; // deleted since the walk met it (the other partitions did not look: see the class comment)
        }
        nodesDecided++;
        return true;
    }

    @Override
    public void writeRelationship(RelationshipTraversalCursor rel) throws IOException {
        if (partition.owns(records++)) owned.writeRelationship(rel);
    }

    @Override
    public void writeRelationship(RelationshipScanCursor rel) throws IOException {
        if (partition.owns(records++)) owned.writeRelationship(rel);
    }

    @Override
    public void flush() throws IOException {
        owned.flush();
    }

    @Override
    public long nodes() {
        return owned.nodes();
    }

    @Override
    public long relationships() {
        return owned.relationships();
    }

    @Override
    public boolean truncated() {
        return truncated;
    }

    @Override
    public void close() {
        owned.close();
    }
}
