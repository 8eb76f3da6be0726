package org.subgraphexport.bench;

import java.io.IOException;
import org.subgraphexport.client.ExportEnd;
import org.subgraphexport.client.Node;
import org.subgraphexport.client.Record;
import org.subgraphexport.client.RecordReader;
import org.subgraphexport.client.Relationship;
import org.subgraphexport.format.Format;

/**
 * This project: {@code GET /extension/{format}/traverse?root=…} or {@code POST /extension/{format}/cypher} (graph
 * mode), decoded by the project's {@link RecordReader} straight from the HTTP stream, record by record, counting.
 */
final class ExportRow implements Row {
    enum Endpoint { TRAVERSE, CYPHER }

    private final Endpoint endpoint;
    private final Format format;
    private final String rootElementId;
    private final String cypher;

    ExportRow(Endpoint endpoint, Format format, String rootElementId, String cypher) {
        this.endpoint = endpoint;
        this.format = format;
        this.rootElementId = rootElementId;
        this.cypher = cypher;
    }

    @Override
    public String name() {
        return (endpoint == Endpoint.TRAVERSE ? "traverse " : "cypher ") + format.pathSegment();
    }

    @Override
    public String description() {
        return endpoint == Endpoint.TRAVERSE
                ? "GET /extension/" + format.pathSegment() + "/traverse?root=…, RecordReader over the HTTP stream"
                : "POST /extension/" + format.pathSegment() + "/cypher (graph mode, the peers' query), RecordReader over the HTTP stream";
    }

    @Override
    public Kind kind() {
        return Kind.PROJECT;
    }

    @Override
    public Outcome run(Endpoints endpoints, boolean keepIds) throws IOException {
        long start = System.nanoTime();
        Http.Body body = endpoint == Endpoint.TRAVERSE
                ? Http.get(endpoints.http().resolve("/extension/" + format.pathSegment() + "/traverse?root="
                        + Http.enc(rootElementId)), format.mediaType())
                : Http.post(endpoints.http().resolve("/extension/" + format.pathSegment() + "/cypher"),
                        format.mediaType(), "{\"query\":" + Http.jsonString(cypher) + ",\"params\":{\"root\":"
                                + Http.jsonString(rootElementId) + "}}");
        Tally tally = decode(format, body, keepIds);
        long nanos = System.nanoTime() - start;
        return new Outcome(body.count(), tally.nodes(), tally.relationships(), nanos, tally);
    }

    /** Decodes a whole export stream, counting; closes {@code body}. */
    static Tally decode(Format format, Http.Body body, boolean keepIds) throws IOException {
        Tally tally = new Tally(keepIds);
        try (RecordReader reader = RecordReader.open(format, body)) {
            for (Record r; (r = reader.next()) != null; ) {
                if (r instanceof Node n) {
                    tally.node(n.id());
                } else if (r instanceof Relationship rel) {
                    tally.relationship(rel.id());
                } else if (r instanceof ExportEnd end) {
                    if (end.truncated()) throw new IllegalStateException("export truncated");
                } else {
                    throw new IllegalStateException("unexpected record in a graph export: " + r);
                }
            }
            long rest = body.drain();
            if (rest != 0) throw new IllegalStateException(rest + " bytes after the end record");
        }
        return tally;
    }
}
