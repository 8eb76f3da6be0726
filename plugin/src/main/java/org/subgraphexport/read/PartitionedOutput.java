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
 *
 * <p>Two extras serve {@link SharedWalks}: a {@link Sequence} is told every record of the sequence (the producer of a
 * shared walk records it for the partitions that replay it), and records before {@code resumeAt} are passed over
 * unwritten (a partition that replayed them from a shared walk and then walks the topology itself).
 */
final class PartitionedOutput implements WalkOutput {
    /** Told each record of the walk's sequence, in order, whoever owns it. */
    interface Sequence {
        void node(long id);

        void relationship(long id);
    }

    private final WalkOutput owned;
    private final Partition partition;
    private final long limit;
    private final long resumeAt;
    private final Sequence sequence;
    private long records;
    private long nodesDecided;
    private boolean truncated;

    /** {@code owned} writes this partition's records and must not apply a limit of its own. */
    PartitionedOutput(WalkOutput owned, Partition partition, long limit) {
        this(owned, partition, limit, 0, null);
    }

    /**
     * As above; records before {@code resumeAt} are not written (they were already), and {@code sequence}, if not
     * null, is told every record.
     */
    PartitionedOutput(WalkOutput owned, Partition partition, long limit, long resumeAt, Sequence sequence) {
        this.owned = owned;
        this.partition = partition;
        this.limit = limit;
        this.resumeAt = resumeAt;
        this.sequence = sequence;
    }

    @Override
    public boolean writeNode(long id) throws IOException {
        if (nodesDecided >= limit) {
            truncated = true;
            return false;
        }
        if (sequence != null) sequence.node(id);
        if (owns(records++) && !owned.writeNode(id)) {
            return false; // deleted since the walk met it (the other partitions did not look: see the class comment)
        }
        nodesDecided++;
        return true;
    }

    @Override
    public void writeRelationship(RelationshipTraversalCursor rel) throws IOException {
        if (sequence != null) sequence.relationship(rel.relationshipReference());
        if (owns(records++)) owned.writeRelationship(rel);
    }

    @Override
    public void writeRelationship(RelationshipScanCursor rel) throws IOException {
        if (sequence != null) sequence.relationship(rel.relationshipReference());
        if (owns(records++)) owned.writeRelationship(rel);
    }

    private boolean owns(long record) {
        return record >= resumeAt && partition.owns(record);
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
