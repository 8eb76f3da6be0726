package org.subgraphexport.format;

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
 * <p>A writer never closes the stream it was given: {@link #finish} flushes and completes the encoding; the
 * owner of the stream (the servlet container) closes it.
 */
public interface GraphWriter extends ValueSink {
    void header(Header header, TokenNames tokens) throws IOException;

    void beginNode(long id, int[] labels, int labelCount) throws IOException;

    void endNode() throws IOException;

    void beginRelationship(long id, int type, long startNode, long endNode) throws IOException;

    void endRelationship() throws IOException;

    /** Starts one property of the current node or relationship; exactly one value call follows. */
    void property(int key) throws IOException;

    /** Closing record of a complete stream. */
    void end(long nodes, long relationships, boolean truncated) throws IOException;

    /** Closing record of a failed stream: what went wrong after streaming had started. */
    void error(String code, String message) throws IOException;

    /** Writes what is buffered and completes the encoding, without closing the underlying stream. */
    void finish() throws IOException;
}
