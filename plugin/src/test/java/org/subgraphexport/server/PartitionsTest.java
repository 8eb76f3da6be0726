package org.subgraphexport.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.subgraphexport.server.ExportHttp.params;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Transaction;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilders;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;
import org.subgraphexport.client.ClientFormats;
import org.subgraphexport.client.ExportEnd;
import org.subgraphexport.client.ExportFailedException;
import org.subgraphexport.client.ExportHeader;
import org.subgraphexport.client.ExportNode;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.ExportRecord;
import org.subgraphexport.client.ExportRelationship;
import org.subgraphexport.encode.Encoders;
import org.subgraphexport.read.ExportState;
import org.subgraphexport.read.Partition;
import org.subgraphexport.read.TraverseExport;
import org.subgraphexport.read.WalkSpec;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.Wire;

/**
 * Partitioned traverse exports ({@code partitions=N&partition=i}) and the store state ({@code state=},
 * {@code Subgraph-Export-State}) over real HTTP on an in-process Neo4j: for every record format and N in
 * {1, 2, 3, 7, 1000}, the partitions together are exactly the single stream (every record once, and dealt back in
 * blocks of {@link Wire#PARTITION_BLOCK} they are the single stream record for record); bad values are refused
 * before streaming; a pinned state the database left is a 412.
 */
class PartitionsTest {
    /** Objects in the tree: with two attached nodes each, about 4 * OBJECTS records, a dozen blocks and more. */
    private static final int OBJECTS = 900;
    private static Neo4j neo4j;
    private static ExportHttp http;
    private static String root;

    @BeforeAll
    static void start() {
        neo4j = Neo4jBuilders.newInProcessBuilder()
                .withConfig(BoltConnector.enabled, false)
                .withUnmanagedExtension("/extension", TraverseResource.class)
                .build();
        root = graph(neo4j.defaultDatabaseService(), OBJECTS);
        http = new ExportHttp(neo4j.httpURI());
    }

    @AfterAll
    static void stop() {
        if (neo4j != null) neo4j.close();
    }

    /**
     * A tree of Objects (CHILDREN), each with a Structure and a Sequence attached (PROPERTY); besides, a Structure
     * shared by two Objects of different branches, a CHILDREN cycle back to the root and a second path to an Object:
     * the cases where a node is reached more than once. Returns the root's element id.
     */
    static String graph(GraphDatabaseService db, int count) {
        try (Transaction tx = db.beginTx()) {
            List<Node> objects = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                Node o = tx.createNode(Label.label("Object"));
                o.setProperty("id", (long) i);
                o.setProperty("name", "object " + i);
                if (i > 0) objects.get((i - 1) / 3).createRelationshipTo(o, FixtureGraph.CHILDREN);
                Node s = tx.createNode(Label.label("Structure"));
                s.setProperty("weight", i * 0.5);
                Node q = tx.createNode(Label.label("Sequence"), Label.label("Ordered"));
                q.setProperty("values", new long[] {i, i + 1L});
                o.createRelationshipTo(s, FixtureGraph.PROPERTY).setProperty("slot", "s" + i);
                s.createRelationshipTo(q, FixtureGraph.PROPERTY);
                objects.add(o);
            }
            Node shared = tx.createNode(Label.label("Structure"));
            shared.setProperty("shared", true);
            objects.get(5).createRelationshipTo(shared, FixtureGraph.PROPERTY);
            objects.get(count - 1).createRelationshipTo(shared, FixtureGraph.PROPERTY);
            objects.get(count - 2).createRelationshipTo(objects.get(0), FixtureGraph.CHILDREN);  // a cycle
            objects.get(1).createRelationshipTo(objects.get(count - 3), FixtureGraph.CHILDREN);   // a second path
            String id = objects.get(0).getElementId();
            tx.commit();
            return id;
        }
    }

    /** One decoded stream: its header, records in order, end record. */
    record Stream(ExportHeader header, List<ExportRecord> records, ExportEnd end, String stateHeader) {}

    private static Stream fetch(Format format, String query) throws IOException {
        HttpResponse<byte[]> response = http.get(format.pathSegment() + "/traverse?" + query);
        assertEquals(200, response.statusCode(), () -> new String(response.body(), StandardCharsets.UTF_8));
        try (ExportReader reader = ExportReader.open(format, new ByteArrayInputStream(response.body()))) {
            List<ExportRecord> records = new ArrayList<>();
            for (ExportRecord r; (r = reader.next()) != null; ) {
                if (r instanceof ExportEnd end) {
                    return new Stream(reader.header(), records, end,
                            response.headers().firstValue(ExportStates.HEADER).orElse(null));
                }
                records.add(r);
            }
            throw new AssertionError("no end record");
        }
    }

    @ParameterizedTest
    @ClientFormats  // arrow: PythonClientIT
    void thePartitionsTogetherAreTheSingleStreamExactly(Format format) throws IOException {
        Stream whole = fetch(format, "root=" + ExportHttp.enc(root));
        assertEquals(3L * OBJECTS + 1, count(whole, ExportNode.class), "nodes: 3 per Object and the shared one");
        assertEquals(whole.header().state(), whole.end().state(), "no commit while reading");
        assertEquals(whole.stateHeader(), whole.header().state());
        assertEquals(0, whole.header().partition());
        assertEquals(1, whole.header().partitions());
        for (int n : new int[] {1, 2, 3, 7, 1000}) {
            List<Stream> parts = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Stream part = fetch(format, "root=" + ExportHttp.enc(root) + "&partitions=" + n + "&partition=" + i);
                assertEquals(i, part.header().partition());
                assertEquals(n, part.header().partitions());
                assertEquals(whole.header().state(), part.header().state(), "one state");
                assertEquals(whole.header().state(), part.end().state());
                assertEquals(whole.header().root(), part.header().root());
                assertEquals(count(part, ExportNode.class), part.end().nodes(), "end counts its own nodes");
                assertEquals(count(part, ExportRelationship.class), part.end().relationships());
                assertFalse(part.end().truncated());
                parts.add(part);
            }
            assertEquals(whole.records(), dealtBack(parts.stream().map(Stream::records).toList()),
                    n + " partitions dealt back in blocks");
            Set<String> ids = new HashSet<>();
            long records = 0;
            for (Stream part : parts) {
                for (ExportRecord r : part.records()) {
                    assertTrue(ids.add(id(r)), () -> id(r) + " in two partitions");
                    records++;
                }
            }
            assertEquals(whole.records().size(), records);
            if (n == 1000) {
                assertEquals(0, parts.get(999).records().size(), "a partition beyond the records is empty");
            }
        }
    }

    @Test
    void aLimitCutsTheWholeExportAtTheSameNodeInEveryPartition() throws IOException {
        Stream whole = fetch(Format.KRYO, "root=" + ExportHttp.enc(root) + "&limit=700");
        assertTrue(whole.end().truncated());
        List<Stream> parts = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            parts.add(fetch(Format.KRYO, "root=" + ExportHttp.enc(root) + "&limit=700&partitions=3&partition=" + i));
            assertTrue(parts.get(i).end().truncated(), "truncated is the whole export's");
        }
        assertEquals(whole.records(), dealtBack(parts.stream().map(Stream::records).toList()));
        assertEquals(700, parts.stream().mapToLong(p -> p.end().nodes()).sum());
    }

    @Test
    void aStateTheDatabaseLeftIsRefusedWith412AndTheCurrentOneIsServed() throws IOException {
        Stream before = fetch(Format.JSON, "root=" + ExportHttp.enc(root));
        String state = before.header().state();
        assertTrue(state.matches("[0-9a-f-]{36}:\\d+"), state);
        Stream pinned = fetch(Format.JSON, "root=" + ExportHttp.enc(root) + "&partitions=2&partition=1&state="
                + ExportHttp.enc(state));
        assertEquals(state, pinned.end().state());
        try (Transaction tx = neo4j.defaultDatabaseService().beginTx()) {
            tx.createNode(Label.label("Elsewhere"));
            tx.commit();
        }
        HttpResponse<byte[]> stale = http.get("kryo/traverse?root=" + ExportHttp.enc(root) + "&state="
                + ExportHttp.enc(state));
        assertEquals(412, stale.statusCode());
        String body = new String(stale.body(), StandardCharsets.UTF_8);
        assertTrue(body.contains("\"code\":\"Export.StateChanged\"") && body.contains(state), body);
        String now = stale.headers().firstValue(ExportStates.HEADER).orElseThrow();
        assertNotEquals(state, now);
        assertTrue(body.contains(now), "the message names both states: " + body);
        assertEquals(now, fetch(Format.KRYO, "root=" + ExportHttp.enc(root) + "&state=" + ExportHttp.enc(now))
                .header().state());
    }

    /**
     * A partition is a representation of its own: its ETag differs from the whole export's and from another
     * partition's, answers 304 in If-None-Match, and the partition goes out gzip-compressed when asked, the same
     * bytes once decompressed.
     */
    @Test
    void aPartitionHasItsOwnETagAnswers304AndIsCompressedWhenAsked() throws IOException {
        java.net.URI uri = neo4j.httpURI().resolve("/extension/kryo/traverse?root=" + ExportHttp.enc(root)
                + "&partitions=3&partition=1");
        HttpResponse<byte[]> identity = ExportHttp.send(java.net.http.HttpRequest.newBuilder(uri).build());
        assertEquals(200, identity.statusCode());
        String tag = identity.headers().firstValue("ETag").orElseThrow();
        String whole = http.get("kryo/traverse?root=" + ExportHttp.enc(root)).headers().firstValue("ETag").orElseThrow();
        String other = http.get("kryo/traverse?root=" + ExportHttp.enc(root) + "&partitions=3&partition=2").headers()
                .firstValue("ETag").orElseThrow();
        assertEquals(3, Set.of(tag, whole, other).size(), "three representations, three tags");
        HttpResponse<byte[]> unchanged = ExportHttp.send(java.net.http.HttpRequest.newBuilder(uri)
                .header("If-None-Match", tag).build());
        assertEquals(304, unchanged.statusCode());
        assertEquals(0, unchanged.body().length);
        HttpResponse<byte[]> gzip = ExportHttp.send(java.net.http.HttpRequest.newBuilder(uri)
                .header("Accept-Encoding", "gzip").build());
        assertEquals(200, gzip.statusCode());
        assertEquals("gzip", gzip.headers().firstValue("Content-Encoding").orElse(""));
        try (java.util.zip.GZIPInputStream in = new java.util.zip.GZIPInputStream(new ByteArrayInputStream(gzip.body()))) {
            org.junit.jupiter.api.Assertions.assertArrayEquals(identity.body(), in.readAllBytes());
        }
    }

    @Test
    void badPartitionAndStateValuesAre400NamingTheParameter() {
        String r = "root=" + ExportHttp.enc(root);
        String current = http.get("json/traverse?" + r).headers().firstValue(ExportStates.HEADER).orElseThrow();
        String otherDatabase = "00000000-0000-0000-0000-000000000000" + current.substring(current.indexOf(':'));
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("&partitions=0&partition=0", "partitions must be at least 1");
        cases.put("&partitions=-1&partition=0", "partitions must be a non-negative integer");
        cases.put("&partitions=two&partition=0", "partitions must be a non-negative integer");
        cases.put("&partitions=4097&partition=0", "partitions 4097 exceeds the server's maximum 4096");
        cases.put("&partitions=3&partition=3", "partition must be less than partitions (3)");
        cases.put("&partitions=3&partition=-1", "partition must be a non-negative integer");
        cases.put("&partitions=3", "partition is missing");
        cases.put("&partition=0", "partitions is missing");
        cases.put("&partitions=2&partitions=2&partition=0", "partitions");
        cases.put("&state=yesterday", "state must be a Subgraph-Export-State token");
        cases.put("&state=" + ExportHttp.enc(otherDatabase), "is a state of another database");
        cases.forEach((query, message) -> {
            HttpResponse<byte[]> response = http.get("kryo/traverse?" + r + query);
            String body = new String(response.body(), StandardCharsets.UTF_8);
            assertEquals(400, response.statusCode(), query + ": " + body);
            assertTrue(body.contains("\"code\":\"Export.InvalidParameter\"") && body.contains(message),
                    query + ": " + body);
        });
    }

    /**
     * A pinned stream whose database moves while it reads ends with the error record Export.StateChanged instead of
     * its end record (the records before it valid); one whose database moved before its header has no records. The
     * state supplier stands for the database: the first read says one state, the next another.
     */
    @Test
    void aPinnedStreamWhoseDatabaseMovesEndsWithTheStateChangedErrorRecord() throws IOException {
        GraphDatabaseService db = neo4j.defaultDatabaseService();
        for (String[] states : new String[][] {{"s:1", "s:2"}, {"s:2", "s:2"}}) {
            int[] reads = {0};
            ExportState moving = new ExportState(() -> states[Math.min(reads[0]++, 1)], "s:1");
            java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
            org.subgraphexport.wire.GraphWriter out = Encoders.open(Format.KRYO, bytes);
            try (Transaction tx = db.beginTx()) {
                InternalTransaction itx = (InternalTransaction) tx;
                ExportState.Changed changed = org.junit.jupiter.api.Assertions.assertThrows(ExportState.Changed.class,
                        () -> TraverseExport.run(itx, itx.elementIdMapper().nodeId(root), new WalkSpec(WalkSpec.DEFAULT_EXPAND, WalkSpec.DEFAULT_ATTACH, Integer.MAX_VALUE, Long.MAX_VALUE),
                                new Partition(2, 0), 1, moving, out));
                assertTrue(changed.getMessage().contains("from state s:1 to s:2"), changed.getMessage());
                out.error(changed.code(), changed.getMessage());  // as ExportOutput does
                out.finish();
            }
            try (ExportReader reader = ExportReader.open(Format.KRYO, new ByteArrayInputStream(bytes.toByteArray()))) {
                assertEquals(states[0], reader.header().state());
                long records = 0;
                ExportFailedException failed = null;
                try {
                    while (reader.next() != null) records++;
                } catch (ExportFailedException e) {
                    failed = e;
                }
                assertTrue(failed != null && failed.code().equals(ExportState.CHANGED), "error record");
                if (states[0].equals("s:1")) {
                    assertTrue(records > 2 * Wire.PARTITION_BLOCK, "the partition's records came before: " + records);
                } else {
                    assertEquals(0, records, "moved before the header: nothing read");
                }
            }
        }
    }

    /** Partitions dealt back: {@link Wire#PARTITION_BLOCK} records from each in turn, until all are taken. */
    static <T> List<T> dealtBack(List<List<T>> parts) {
        List<T> all = new ArrayList<>();
        int[] at = new int[parts.size()];
        for (boolean more = true; more; ) {
            more = false;
            for (int p = 0; p < parts.size(); p++) {
                List<T> records = parts.get(p);
                int end = Math.min(records.size(), at[p] + Wire.PARTITION_BLOCK);
                all.addAll(records.subList(at[p], end));
                more |= end < records.size();
                at[p] = end;
            }
        }
        return all;
    }

    private static long count(Stream s, Class<? extends ExportRecord> kind) {
        return s.records().stream().filter(kind::isInstance).count();
    }

    private static String id(ExportRecord r) {
        return r instanceof ExportNode n ? n.id() : ((ExportRelationship) r).id();
    }
}
