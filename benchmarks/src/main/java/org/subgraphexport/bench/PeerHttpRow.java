package org.subgraphexport.bench;

import java.io.IOException;

/**
 * The peers over Neo4j's own HTTP endpoints, each with the peers' Cypher query (one row per Object): the Query API
 * ({@code POST /db/neo4j/query/v2}, plain JSON), and the transactional endpoint ({@code POST /db/neo4j/tx/commit})
 * as JSON and as Jolt. Decoded by {@link JsonEntities} while the body streams in.
 */
final class PeerHttpRow implements Row {
    enum Api {
        QUERY_API("query-api json", "POST /db/neo4j/query/v2, application/json"),
        TX_JSON("tx/commit json", "POST /db/neo4j/tx/commit, application/json (row and meta), the query with "
                + "relationship end ids added (TX_ROW_QUERY)"),
        TX_JOLT("tx/commit jolt v1", "POST /db/neo4j/tx/commit, application/vnd.neo4j.jolt+json-seq (numeric ids)"),
        TX_JOLT_V2("tx/commit jolt v2", "POST /db/neo4j/tx/commit, application/vnd.neo4j.jolt-v2+json-seq (element ids)");

        final String label;
        final String description;

        Api(String label, String description) {
            this.label = label;
            this.description = description;
        }
    }

    private final Api api;
    private final String database;
    private final String rootElementId;
    private final String cypher;
    private final String txRowQuery;

    /**
     * @param cypher     the peers' query
     * @param txRowQuery the same with each relationship's missing end id returned next to it, for the transactional
     *                   endpoint's JSON, whose row format carries no relationship ends (its graph format does, but at
     *                   the founding size it filled an 8 GB heap; see the results)
     */
    PeerHttpRow(Api api, String database, String rootElementId, String cypher, String txRowQuery) {
        this.api = api;
        this.database = database;
        this.rootElementId = rootElementId;
        this.cypher = cypher;
        this.txRowQuery = txRowQuery;
    }

    @Override
    public String name() {
        return api.label;
    }

    @Override
    public String description() {
        return api.description;
    }

    @Override
    public Kind kind() {
        return Kind.ALTERNATIVE;
    }

    @Override
    public Outcome run(Endpoints endpoints, boolean keepIds) throws IOException {
        String statement = Http.jsonString(cypher);
        String parameters = "{\"root\":" + Http.jsonString(rootElementId) + "}";
        long start = System.nanoTime();
        Tally tally = new Tally(keepIds);
        Http.Body body;
        switch (api) {
            case QUERY_API -> {
                body = Http.post(endpoints.http().resolve("/db/" + database + "/query/v2"), "application/json",
                        "{\"statement\":" + statement + ",\"parameters\":" + parameters + "}");
                JsonEntities.plain(body, tally);
            }
            case TX_JSON -> {
                body = Http.post(endpoints.http().resolve("/db/" + database + "/tx/commit"), "application/json",
                        "{\"statements\":[{\"statement\":" + Http.jsonString(txRowQuery) + ",\"parameters\":"
                                + parameters + "}]}");
                JsonEntities.plain(body, tally);
            }
            case TX_JOLT, TX_JOLT_V2 -> {
                String accept = api == Api.TX_JOLT ? "application/vnd.neo4j.jolt+json-seq"
                        : "application/vnd.neo4j.jolt-v2+json-seq";
                body = Http.post(endpoints.http().resolve("/db/" + database + "/tx/commit"), accept,
                        "{\"statements\":[{\"statement\":" + statement + ",\"parameters\":" + parameters + "}]}");
                JsonEntities.jolt(body, tally);
            }
            default -> throw new AssertionError(api);
        }
        body.drain();
        body.close();
        return new Outcome(body.count(), tally.nodes(), tally.relationships(), System.nanoTime() - start, tally);
    }
}
