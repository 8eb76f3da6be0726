package org.subgraphexport.client;

/**
 * The closing record of a complete stream. Decoders check the counts against the records they returned.
 *
 * @param nodes         node records in the stream
 * @param relationships relationship records in the stream
 * @param truncated     true if the server stopped at a limit: the subgraph has more than was sent
 * @param rows          row records in the stream (rows streams; 0 in a graph stream)
 */
public record ExportEnd(long nodes, long relationships, boolean truncated, long rows) implements ExportRecord {
    /** The closing record of a graph stream (no rows). */
    public ExportEnd(long nodes, long relationships, boolean truncated) {
        this(nodes, relationships, truncated, 0);
    }
}
