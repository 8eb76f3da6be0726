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
 */
public record ExportHeader(int version, String database, String root, String state, int partition, int partitions)
        implements ExportRecord {
    /** A whole export's header without a state (as a version 1 stream has it). */
    public ExportHeader(int version, String database, String root) {
        this(version, database, root, "", 0, 1);
    }
}
