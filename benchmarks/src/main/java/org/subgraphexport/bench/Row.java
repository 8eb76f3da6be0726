package org.subgraphexport.bench;

import java.net.URI;

/** One way of getting the subgraph under the root to the client: a peer, an export of this project, or the floor. */
interface Row {
    enum Kind {
        /** What users would pick instead today. */
        ALTERNATIVE,
        /** This project's endpoints. */
        PROJECT,
        /**
         * Reference rows: the wire floor (no database, the bytes of a kryo export served from memory) and the walk
         * alone (the traverse endpoint's walk into a writer that encodes nothing, no output).
         */
        FLOOR
    }

    /** Where the server listens: directly, or through the byte-counting proxy. */
    record Endpoints(URI http, URI bolt) {}

    /**
     * One run, timed from sending the request to the last record decoded (and the response drained).
     *
     * @param bodyBytes bytes of the response body as the client's decoder read them (HTTP after de-chunking), or -1
     *                  when the client library does not expose them (Bolt)
     * @param nodes     nodes decoded, -1 if the row does not decode
     */
    record Outcome(long bodyBytes, long nodes, long relationships, long nanos, Tally tally) {}

    String name();

    String description();

    Kind kind();

    /** Why this row's counts may differ from the others', or null if they must agree. */
    default String countsNote() {
        return null;
    }

    /**
     * Called once, directly (not through the byte-counting proxy), right before the row's untimed first pass: for
     * what the row needs in place and must not count, such as a filled response cache or an ETag.
     */
    default void prepare(Endpoints direct) throws Exception {}

    Outcome run(Endpoints endpoints, boolean keepIds) throws Exception;
}
