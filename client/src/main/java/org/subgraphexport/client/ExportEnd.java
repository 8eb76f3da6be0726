package org.subgraphexport.client;

/**
 * The closing record of a complete stream. Decoders check the counts against the records they returned.
 *
 * @param nodes         node records in the stream
 * @param relationships relationship records in the stream
 * @param truncated     true if the server stopped at a limit: the subgraph has more than was sent
 * @param rows          row records in the stream (rows streams; 0 in a graph stream)
 * @param state         the store state when the stream ended: equal to the header's, no commit happened while the
 *                      export read; empty in a version 1 stream
 */
public record ExportEnd(long nodes, long relationships, boolean truncated, long rows, String state)
        implements ExportRecord {
    /** The closing record of a rows stream without a state. */
    public ExportEnd(long nodes, long relationships, boolean truncated, long rows) {
        this(nodes, relationships, truncated, rows, "");
    }

    /** The closing record of a graph stream (no rows) without a state. */
    public ExportEnd(long nodes, long relationships, boolean truncated) {
        this(nodes, relationships, truncated, 0);
    }
}
