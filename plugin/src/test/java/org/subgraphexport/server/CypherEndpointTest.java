package org.subgraphexport.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.subgraphexport.server.ExportHttp.params;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.neo4j.graphdb.Transaction;
import org.subgraphexport.client.ClientFormats;
import org.subgraphexport.client.ExportRelationship;
import org.subgraphexport.client.Subgraph;
import org.subgraphexport.wire.Format;

/** The Cypher endpoint over real HTTP on an in-process Neo4j: graphs, not paths; read-only; errors before streaming. */
class CypherEndpointTest {
    @RegisterExtension
    static final InProcessNeo4j neo4j = InProcessNeo4j.withExtension();
    private static FixtureGraph fixture;
    private static ExportHttp http;
    /** Element ids of the lattice nodes and relationships, from Cypher. */
    private static Set<String> latticeNodes;
    private static Set<String> latticeRels;

    static final int LATTICE = 6; // 6x6 grid: 2^10-ish paths from corner to corner

    @BeforeAll
    static void start() {
        fixture = FixtureGraph.create(neo4j.defaultDatabaseService());
        http = new ExportHttp(neo4j.httpURI());
        try (Transaction tx = neo4j.defaultDatabaseService().beginTx()) {
            tx.execute("""
                    UNWIND range(0, $n - 1) AS i UNWIND range(0, $n - 1) AS j
                    CREATE (:Lat {i: i, j: j})""", Map.of("n", LATTICE));
            tx.execute("""
                    MATCH (a:Lat), (b:Lat)
                    WHERE (b.i = a.i + 1 AND b.j = a.j) OR (b.i = a.i AND b.j = a.j + 1)
                    CREATE (a)-[:L]->(b)""");
            latticeNodes = new HashSet<>(tx.execute("MATCH (n:Lat) RETURN collect(elementId(n)) AS ids")
                    .<List<String>>columnAs("ids").next());
            latticeRels = new HashSet<>(tx.execute("MATCH (:Lat)-[r:L]->(:Lat) RETURN collect(elementId(r)) AS ids")
                    .<List<String>>columnAs("ids").next());
            tx.commit();
        }
    }

    private static String body(String query, String paramsJson) {
        return "{\"query\": " + json(query) + ", \"params\": " + paramsJson + "}";
    }

    private static String json(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
    }

    @ParameterizedTest
    @ClientFormats
    void foundingQueriesReturnTheTraverseGraph(Format format) throws IOException {
        Subgraph traverse = http.traverse(format, params("label", "Object", "key", "id", "value", "1"));
        // The founding query shape, with the root included (*0..) and attached data followed to any depth
        // (PROPERTY*), so that it asks for the same subgraph traverse defines.
        Subgraph rows = http.cypher(format, body("""
                MATCH p = (root:Object)-[:CHILDREN*0..]->(child:Object) WHERE root.id = $rootId
                OPTIONAL MATCH q = (child)-[:PROPERTY*]->(prop)
                RETURN *""", "{\"rootId\": 1}"));
        Subgraph collected = http.cypher(format, body("""
                MATCH p = (root:Object)-[:CHILDREN*0..]->(child:Object) WHERE root.id = $rootId
                OPTIONAL MATCH q = (child)-[:PROPERTY*]->(prop)
                RETURN collect(DISTINCT p) AS paths, collect(DISTINCT q) AS nested""", "{\"rootId\": 1}"));
        for (Subgraph cypher : List.of(rows, collected)) {
            assertSameNodes(traverse, cypher);
            assertEquals(traverse.relationships().keySet(), cypher.relationships().keySet());
            assertEquals(traverse.nodes().size(), cypher.end().nodes());
            assertEquals(traverse.relationships().size(), cypher.end().relationships());
            assertFalse(cypher.end().truncated());
            assertEquals("", cypher.header().root());
        }
    }

    /** Node maps compared id by id: labels, and property values with arrays by content. */
    private static void assertSameNodes(Subgraph expected, Subgraph actual) {
        assertEquals(expected.nodes().keySet(), actual.nodes().keySet());
        for (var e : expected.nodes().entrySet()) {
            var a = actual.nodes().get(e.getKey());
            assertEquals(e.getValue().labels(), a.labels());
            assertEquals(e.getValue().properties().keySet(), a.properties().keySet());
            for (var p : e.getValue().properties().entrySet()) {
                assertTrue(FixtureGraph.deepEquals(p.getValue(), a.properties().get(p.getKey())), p.getKey());
            }
        }
    }

    @ParameterizedTest
    @ClientFormats
    void manyPathsGiveEachNodeAndRelationshipOnce(Format format) throws IOException {
        Subgraph g = http.cypher(format, body("""
                MATCH p = (s:Lat {i: 0, j: 0})-[:L*]->(t:Lat {i: $last, j: $last})
                RETURN p""", "{\"last\": " + (LATTICE - 1) + "}"));
        assertEquals(latticeNodes, g.nodes().keySet());
        assertEquals(latticeRels, g.relationships().keySet());
        assertEquals(latticeNodes.size(), g.end().nodes());
        assertEquals(latticeRels.size(), g.end().relationships());
    }

    @Test
    void listsMapsAndRelationshipsAloneBringTheirNodes() throws IOException {
        Subgraph nodesInAList = http.cypher(Format.KRYO, body(
                "MATCH (n:Lat) WITH collect(n) AS lattice RETURN {nested: [lattice, 42, 'x']} AS m, size(lattice) AS total", "{}"));
        assertEquals(latticeNodes, nodesInAList.nodes().keySet());
        assertTrue(nodesInAList.relationships().isEmpty());

        Subgraph relsOnly = http.cypher(Format.JSON, body("MATCH (:Lat)-[r:L]->(:Lat) RETURN r", "{}"));
        assertEquals(latticeRels, relsOnly.relationships().keySet());
        assertEquals(latticeNodes, relsOnly.nodes().keySet(), "end nodes are sent with the relationship");
        for (ExportRelationship r : relsOnly.relationships().values()) {
            assertEquals("L", r.type());
        }
    }

    @Test
    void elementIdAndScalarParameters() throws IOException {
        Subgraph g = http.cypher(Format.BSON, body("MATCH (n) WHERE elementId(n) = $id AND $flag AND $x > 1.5 RETURN n",
                "{\"id\": " + json(fixture.id("s1")) + ", \"flag\": true, \"x\": 2.5}"));
        assertEquals(Set.of(fixture.id("s1")), g.nodes().keySet());
        assertEquals("mm", g.nodes().get(fixture.id("s1")).properties().get("unit"));

        Subgraph empty = http.cypher(Format.KRYO_LZF, body("MATCH (n:NoSuchLabel) RETURN n", "{}"));
        assertEquals(0, empty.end().nodes());
        assertTrue(empty.nodes().isEmpty());
    }

    private static long[] databaseState() {
        try (Transaction tx = neo4j.defaultDatabaseService().beginTx()) {
            return new long[] {
                count(tx, "MATCH (n) RETURN count(n) AS c"),
                count(tx, "MATCH ()-[r]->() RETURN count(r) AS c"),
                count(tx, "CALL db.labels() YIELD label RETURN count(label) AS c"),
                count(tx, "MATCH (n) UNWIND keys(n) AS k RETURN count(k) AS c"),
                tx.execute("SHOW INDEXES").stream().count()
            };
        }
    }

    private static long count(Transaction tx, String query) {
        return (long) tx.execute(query).next().get("c");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "CREATE (n:Written) RETURN n",
        "MERGE (n:Written {k: 1}) RETURN n",
        "MATCH (n:Lat {i: 0, j: 0}) SET n.touched = true RETURN n",
        "MATCH (n:Lat {i: 0, j: 0}) DETACH DELETE n",
        "MATCH (n:Lat {i: 0, j: 0}) REMOVE n:Lat RETURN n",
        "CREATE INDEX written_idx FOR (n:Written) ON (n.k)",
        "CALL db.createLabel('Written')",
        "MATCH (n:Lat) WITH n LIMIT 1 CALL (n) { CREATE (n)-[:W]->(:Written) } RETURN n",
    })
    void writesAreRefusedAndChangeNothing(String query) {
        long[] before = databaseState();
        HttpResponse<byte[]> response = http.post("kryo/cypher", body(query, "{}"));
        String text = new String(response.body(), StandardCharsets.UTF_8);
        assertEquals(400, response.statusCode(), text);
        assertTrue(text.contains("\"code\":\"" + CypherResource.WRITE_REFUSED + "\""), text);
        assertTrue(text.contains("read-only"), text);
        org.junit.jupiter.api.Assertions.assertArrayEquals(before, databaseState(), "database changed by: " + query);
    }

    private void assertError(HttpResponse<byte[]> response, int status, String code, String messagePart) {
        String text = new String(response.body(), StandardCharsets.UTF_8);
        assertEquals(status, response.statusCode(), text);
        assertTrue(text.contains("\"code\":\"" + code + "\""), text);
        assertTrue(text.contains(messagePart), () -> text + " should mention " + messagePart);
    }

    @Test
    void badRequestsAreAnsweredBeforeStreaming() {
        assertError(http.post("kryo/cypher", body("MATCH (n RETURN n", "{}")), 400, "Neo.ClientError.Statement.SyntaxError", "");
        assertError(http.post("kryo/cypher", body("MATCH (n) WHERE n.id = $missing RETURN n", "{}")), 400,
                "Neo.ClientError.Statement.ParameterMissing", "missing");
        assertError(http.post("kryo/cypher", ""), 400, "Export.InvalidParameter", "missing body");
        assertError(http.post("kryo/cypher", body("EXPLAIN MATCH (n) RETURN n", "{}")), 400, "Export.InvalidParameter", "EXPLAIN");
        assertError(http.post("kryo/cypher", body("PROFILE MATCH (n) RETURN n", "{}")), 400, "Neo.ClientError.Statement.ArgumentError", "");
        assertError(http.post("kryo/cypher", "{\"query\": "), 400, "Export.InvalidParameter", "not valid JSON");
        assertError(http.post("kryo/cypher", "[1,2]"), 400, "Export.InvalidParameter", "JSON object");
        assertError(http.post("kryo/cypher", "{\"params\": {}}"), 400, "Export.InvalidParameter", "missing query");
        assertError(http.post("kryo/cypher", "{\"query\": 5}"), 400, "Export.InvalidParameter", "query must be a string");
        assertError(http.post("kryo/cypher", "{\"query\": \"RETURN 1\", \"extra\": 1}"), 400, "Export.InvalidParameter", "unknown field 'extra'");
        assertError(http.post("kryo/cypher", "{\"query\": \"RETURN 1\", \"params\": " + "[".repeat(100) + "]".repeat(100) + "}"),
                400, "Export.InvalidParameter", "");
        assertError(http.post("kryo/cypher?db=nosuchdb", body("RETURN 1", "{}")), 404, "Export.DatabaseNotFound", "nosuchdb");
        assertError(http.post("kryo/cypher?mode=tables", body("RETURN 1", "{}")), 400, "Export.InvalidParameter", "'graph' (the default) or 'rows'");
        assertError(http.post("yaml/cypher", body("RETURN 1", "{}")), 404, "Export.UnknownFormat", "kryo-lzf");
    }

    @ParameterizedTest
    @ClientFormats
    void rowsModeRoundTripsScalarsOfEveryType(Format format) throws IOException {
        Subgraph graphOnly = http.cypher(format, body("RETURN 42 AS i, [1, 'a'] AS l", "{}"));
        assertTrue(graphOnly.rows().isEmpty() && graphOnly.columns().isEmpty(), "graph mode sends no rows");
        assertTrue(graphOnly.nodes().isEmpty());
        Subgraph rows = cypherRows(format, """
                RETURN 42 AS i, -1.5 AS f, 'ünï ✓' AS s, true AS b, null AS n,
                       date('2020-02-29') AS d, localtime('23:59:59.999999999') AS lt,
                       time('10:00:00.000000001-05:00') AS t, localdatetime('1969-12-31T23:59:59.000000005') AS ldt,
                       datetime('2021-10-31T02:30:00.000000123[Europe/Berlin]') AS dt,
                       duration({months: 14, days: -3, seconds: 5, nanoseconds: 7}) AS dur,
                       point({x: 1.5, y: -2}) AS pt, point({longitude: 12.5, latitude: 56.1, height: 100.25}) AS geo,
                       [1, 'a', null, [true]] AS l, {k: 1, nested: {x: [1, 2]}, empty: {}} AS m, [] AS e""", "{}");
        assertEquals(List.of("i", "f", "s", "b", "n", "d", "lt", "t", "ldt", "dt", "dur", "pt", "geo", "l", "m", "e"), rows.columns());
        assertEquals(1, rows.rows().size());
        assertEquals(1, rows.end().rows());
        List<Object> v = rows.rows().get(0).values();
        assertEquals(42L, v.get(0));
        assertEquals(-1.5, v.get(1));
        assertEquals("ünï ✓", v.get(2));
        assertEquals(true, v.get(3));
        assertEquals(null, v.get(4));
        assertEquals(java.time.LocalDate.of(2020, 2, 29), v.get(5));
        assertEquals(java.time.LocalTime.of(23, 59, 59, 999_999_999), v.get(6));
        assertEquals(java.time.OffsetTime.of(10, 0, 0, 1, java.time.ZoneOffset.ofHours(-5)), v.get(7));
        assertEquals(java.time.LocalDateTime.of(1969, 12, 31, 23, 59, 59, 5), v.get(8));
        assertEquals(java.time.ZonedDateTime.of(java.time.LocalDateTime.of(2021, 10, 31, 2, 30, 0, 123),
                java.time.ZoneId.of("Europe/Berlin")), v.get(9));
        assertEquals(new org.subgraphexport.client.DurationValue(14, -3, 5, 7), v.get(10));
        assertEquals(new org.subgraphexport.client.PointValue(7203, new double[] {1.5, -2}), v.get(11));
        assertEquals(new org.subgraphexport.client.PointValue(4979, new double[] {12.5, 56.1, 100.25}), v.get(12));
        assertEquals(java.util.Arrays.asList(1L, "a", null, List.of(true)), v.get(13));
        assertEquals(Map.of("k", 1L, "nested", Map.of("x", List.of(1L, 2L)), "empty", Map.of()), v.get(14));
        assertEquals(List.of(), v.get(15));
    }

    @ParameterizedTest
    @ClientFormats
    void rowsModeCarriesEveryPropertyTypeAndRefersToEntitiesSentOnce(Format format) throws IOException {
        Subgraph rows = cypherRows(format, """
                MATCH p = (root)-[r:CHILDREN]->(child) WHERE elementId(root) = $root
                RETURN properties(root) AS props, {from: root, via: r, to: [child]} AS m, p
                ORDER BY child.id""", "{\"root\": " + json(fixture.id("root")) + "}");
        assertEquals(List.of("props", "m", "p"), rows.columns());
        assertEquals(2, rows.rows().size(), "root -> a and root -> b");
        assertEquals(set(fixture.ids("root", "a", "b")), rows.nodes().keySet(), "each node once, before its rows");
        assertEquals(set(fixture.ids("root>a", "root>b")), rows.relationships().keySet());
        @SuppressWarnings("unchecked")
        Map<String, Object> props = (Map<String, Object>) rows.rows().get(0).values().get(0);
        for (Map.Entry<String, Object[]> e : FixtureGraph.ALL_TYPES.entrySet()) {
            Object expected = e.getValue()[1];
            Object actual = props.get(e.getKey());
            // Cypher itself hands some stored arrays (temporal, point, duration) over as lists: same elements
            if (expected.getClass().isArray() && actual instanceof List<?> list) {
                actual = list.toArray((Object[]) java.lang.reflect.Array.newInstance(expected.getClass().getComponentType(), 0));
            }
            assertTrue(FixtureGraph.deepEquals(expected, actual), e.getKey() + ": " + props.get(e.getKey()));
        }
        Object m = rows.rows().get(0).values().get(1);
        assertEquals(Map.of("from", new org.subgraphexport.client.NodeRef(fixture.id("root")),
                "via", new org.subgraphexport.client.RelationshipRef(fixture.id("root>a")),
                "to", List.of(new org.subgraphexport.client.NodeRef(fixture.id("a")))), m);
        assertEquals(new org.subgraphexport.client.PathValue(fixture.ids("root", "a"), fixture.ids("root>a")),
                rows.rows().get(0).values().get(2));
        assertEquals(new org.subgraphexport.client.PathValue(fixture.ids("root", "b"), fixture.ids("root>b")),
                rows.rows().get(1).values().get(2));
    }

    private static Set<String> set(List<String> ids) {
        return new HashSet<>(ids);
    }

    private static Subgraph cypherRows(Format format, String query, String params) throws IOException {
        HttpResponse<byte[]> response = http.post(format.pathSegment() + "/cypher?mode=rows", body(query, params));
        assertEquals(200, response.statusCode(), () -> new String(response.body(), StandardCharsets.UTF_8));
        try (var reader = org.subgraphexport.client.ExportReader.open(format, new java.io.ByteArrayInputStream(response.body()))) {
            return Subgraph.read(reader);
        }
    }

    @Test
    void aFailureAfterTheFirstRowEndsTheStreamWithAnErrorRecord() {
        // The first row is fine; the second divides by zero while the response is already streaming.
        HttpResponse<byte[]> response = http.post("kryo/cypher",
                body("UNWIND [1, 0] AS x MATCH (n:Lat {i: 0, j: 0}) RETURN n, 1 / x AS boom", "{}"));
        assertEquals(200, response.statusCode());
        var error = org.junit.jupiter.api.Assertions.assertThrows(org.subgraphexport.client.ExportFailedException.class, () -> {
            try (var reader = org.subgraphexport.client.ExportReader.open(Format.KRYO, new java.io.ByteArrayInputStream(response.body()))) {
                Subgraph.read(reader);
            }
        });
        assertEquals("Neo.ClientError.Statement.ArithmeticError", error.code());
    }
}
