package org.subgraphexport.wire;

/**
 * What every stream starts with.
 *
 * @param database       the database name the export read from
 * @param root           element id of the root node (for the Cypher endpoint: empty)
 * @param nodeIdPrefix   prefix that, followed by a node's numeric id in decimal, gives its element id
 * @param relIdPrefix    the same for relationships
 * @param state          the store state the export read (an opaque token: the database and its last committed
 *                       transaction when the read began); empty when there is none
 * @param partition      which partition of the export this stream is, {@code 0 <= partition < partitions}
 * @param partitions     how many partitions the export is cut into (1: the whole export)
 * @param since          a delta stream's earlier state ({@code since=}): the writer follows the header with a
 *                       {@code delta} record; empty for a whole export
 */
public record Header(String database, String root, String nodeIdPrefix, String relIdPrefix, String state, int partition,
        int partitions, String since) {
    /** An export (not a delta). */
    public Header(String database, String root, String nodeIdPrefix, String relIdPrefix, String state, int partition,
            int partitions) {
        this(database, root, nodeIdPrefix, relIdPrefix, state, partition, partitions, "");
    }

    /** A whole export (partition 0 of 1) without a state. */
    public Header(String database, String root, String nodeIdPrefix, String relIdPrefix) {
        this(database, root, nodeIdPrefix, relIdPrefix, "", 0, 1);
    }

    /** Whether this is a delta stream's header. */
    public boolean delta() {
        return !since.isEmpty();
    }

    public Header {
        if (since == null) throw new IllegalArgumentException("since is null (empty: not a delta)");
        if (partitions < 1 || partition < 0 || partition >= partitions) {
            throw new IllegalArgumentException("partition " + partition + " of " + partitions);
        }
    }
}
