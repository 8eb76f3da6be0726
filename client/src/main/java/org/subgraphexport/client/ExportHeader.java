package org.subgraphexport.client;

/**
 * The first record of a stream.
 *
 * @param version    the wire format version ({@link org.subgraphexport.wire.Wire#VERSION}; 1 or 2)
 * @param database   the database the export read from
 * @param root       element id of the root node; empty for exports without one
 * @param state      the store state the export read (the {@code Subgraph-Export-State} token: database and last
 *                   committed transaction when the read began); empty in a version 1 stream
 * @param partition  which partition of the export this stream carries ({@code 0 <= partition < partitions})
 * @param partitions how many partitions the export was cut into (1: the whole export)
 * @param since      a delta stream's earlier state (the {@code since=} it answers: {@link ExportLeft} records may
 *                   follow, and {@link Delta} applies it); empty for a whole export
 */
public record ExportHeader(int version, String database, String root, String state, int partition, int partitions,
        String since) implements ExportRecord {
    /** A whole export's header (not a delta). */
    public ExportHeader(int version, String database, String root, String state, int partition, int partitions) {
        this(version, database, root, state, partition, partitions, "");
    }

    /** Whether this is a delta stream's header. */
    public boolean delta() {
        return !since.isEmpty();
    }

    /** A whole export's header without a state (as a version 1 stream has it). */
    public ExportHeader(int version, String database, String root) {
        this(version, database, root, "", 0, 1);
    }
}
