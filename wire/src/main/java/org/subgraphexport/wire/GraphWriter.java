package org.subgraphexport.wire;

import java.io.IOException;

/**
 * The one seam between walking the graph and encoding bytes: the read side calls it, each format implements it.
 *
 * <p>Call order: {@link #header}, then any number of nodes and relationships, then exactly one of
 * {@link #end} or {@link #error}, then {@link #finish}. A node is {@link #beginNode}, a {@link #property} call
 * followed by exactly one value call per property, {@link #endNode}; a relationship likewise. Ids are the
 * numeric part of the element id; the header carries the prefixes that turn them back into element ids.
 * Token ids (labels, types, keys) are the database's own; the writer asks {@link TokenNames} for a name the
 * first time it meets an id and refers to it by number (binary formats) or pre-encoded name (JSON) afterwards.
 *
 * <p><b>Rows streams</b> (the Cypher endpoint's {@code mode=rows}): {@link #columns} once, right after
 * {@link #header}; then rows, each {@link #beginRow}, exactly one value per column (any {@link ValueSink} call,
 * including the row-only ones: null, lists, maps, node and relationship references, paths), {@link #endRow};
 * mixed with nodes and relationships as above. Every node and relationship a row refers to (directly, in a
 * list or map, or in a path) is written as a record before that row, and a relationship's end nodes before the
 * relationship; the writer does not check this, the decoders' {@code Subgraph} does. {@link #end} then also
 * records the number of rows, which the writer counts itself.
 *
 * <p><b>Errors.</b> {@link #error} may be called at any point after {@link #header} returned: between records,
 * inside a node or relationship (after {@link #property} before its value, between array elements), inside a
 * row or a nested list or map, even after a call that threw. The unfinished record is dropped, whole, and the
 * error record follows the last complete record, so a decoder returns every complete record before it intact
 * and then raises the error; a JSON stream stays well-formed JSON. After {@link #error} only {@link #finish}
 * may follow. The price: a writer holds back the record it is writing (and everything since it last handed
 * {@link Wire#HAND_OVER_BYTES} bytes to the target), so one record is in memory whole, however large (a node with a
 * 100 MB property, a row with a list of a million elements). Calling {@link #error} (or {@link #end}) before
 * {@link #header} returned, or after the closing record, is a programming error: it throws
 * {@link IllegalStateException} and writes nothing (there is no stream to end yet, or it has ended).
 *
 * <p>A writer never closes the stream it was given: {@link #finish} flushes and completes the encoding; the
 * owner of the stream (the servlet container) closes it.
 */
public interface GraphWriter extends ValueSink {
    void header(Header header, TokenNames tokens) throws IOException;

    void beginNode(long id, int[] labels, int labelCount) throws IOException;

    void endNode() throws IOException;

    void beginRelationship(long id, int type, long startNode, long endNode) throws IOException;

    void endRelationship() throws IOException;

    /**
     * Delta streams ({@link Header#delta()}): a node of the earlier export that is not in this one. A record of its
     * own, between records like a node. Writers of the formats implement it; others refuse.
     */
    default void leftNode(long id) throws IOException {
        throw new UnsupportedOperationException("this writer writes no delta streams");
    }

    /** Delta streams: a relationship of the earlier export that is not in this one (as {@link #leftNode}). */
    default void leftRelationship(long id) throws IOException {
        throw new UnsupportedOperationException("this writer writes no delta streams");
    }

    /** Starts one property of the current node or relationship; exactly one value call follows. */
    void property(int key) throws IOException;

    /**
     * Makes this a rows stream with these column names (in order; at most {@link Wire#MAX_LENGTH}): called
     * once, right after {@link #header}, before any other record.
     *
     * @throws IllegalStateException if called anywhere else
     */
    void columns(String[] names) throws IOException;

    /** Starts a row; exactly one value per column follows, then {@link #endRow}. Only after {@link #columns}. */
    void beginRow() throws IOException;

    /** @throws IllegalStateException if the row has not received exactly one value per column */
    void endRow() throws IOException;

    /**
     * Closing record of a complete stream; in a rows stream it also carries the number of rows written.
     *
     * @throws IllegalStateException before {@link #header}, inside a record, or after the closing record
     */
    void end(long nodes, long relationships, boolean truncated) throws IOException;

    /**
     * As {@link #end(long, long, boolean)}, naming the store state when the stream ended ({@link Header#state()}'s
     * kind of token). The formats' writers carry it; a writer that does not (a test's, a benchmark's) drops it.
     */
    default void end(long nodes, long relationships, boolean truncated, String state) throws IOException {
        end(nodes, relationships, truncated);
    }

    /**
     * Closing record of a failed stream: what went wrong after streaming had started. Valid at any point after
     * {@link #header} returned; an unfinished record is dropped (see the class comment).
     *
     * @throws IllegalStateException before {@link #header} returned (a programming error: with no stream
     *                               started there is nothing to end; answer the request with an HTTP error
     *                               instead), or after the closing record
     */
    void error(String code, String message) throws IOException;

    /** Writes what is buffered and completes the encoding, without closing the underlying stream. */
    void finish() throws IOException;

    /**
     * Releases what the writer holds (buffers, a compressor thread) without completing the stream: for a stream
     * that cannot be completed because its target failed. Safe after {@link #finish} and more than once.
     */
    default void abort() {}
}
