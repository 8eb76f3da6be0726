package org.subgraphexport.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.subgraphexport.server.ExportHttp.params;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.subgraphexport.client.ClientFormats;
import org.subgraphexport.client.ExportNode;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.ExportRelationship;
import org.subgraphexport.client.ExportRequestException;
import org.subgraphexport.client.Subgraph;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.Wire;

/** The traverse endpoint over real HTTP on an in-process Neo4j, every format decoded by the client. */
class TraverseEndpointTest {
    @RegisterExtension
    static final InProcessNeo4j neo4j = InProcessNeo4j.withExtension();
    private static FixtureGraph fixture;
    private static ExportHttp http;

    @BeforeAll
    static void start() {
        fixture = FixtureGraph.create(neo4j.defaultDatabaseService());
        http = new ExportHttp(neo4j.httpURI());
    }

    private Set<String> nodeIds(Subgraph g) {
        return g.nodes().keySet();
    }

    private Set<String> relIds(Subgraph g) {
        return g.relationships().keySet();
    }

    private static Set<String> set(List<String> ids) {
        return new HashSet<>(ids);
    }

    /** Every relationship comes with both end nodes, and the end record counts what was sent. */
    private static void assertWellFormed(Subgraph g) {
        for (ExportRelationship r : g.relationships().values()) {
            assertTrue(g.nodes().containsKey(r.start()), "start of " + r);
            assertTrue(g.nodes().containsKey(r.end()), "end of " + r);
        }
        assertEquals(g.nodes().size(), g.end().nodes());
        assertEquals(g.relationships().size(), g.end().relationships());
    }

    @ParameterizedTest
    @ClientFormats
    void exportsExactlyTheSubgraphWithEveryValue(Format format) throws IOException {
        Subgraph g = http.traverse(format, params("root", fixture.id("root")));

        assertEquals(set(fixture.ids("root", "a", "b", "d", "s1", "seq", "s2", "s3", "s4")), nodeIds(g));
        assertEquals(set(fixture.ids("root>a", "root>b", "a>d", "b>d", "d>root", "a>s1", "d>seq", "seq>s2", "seq>s3", "s3>s4")), relIds(g));
        assertFalse(g.end().truncated());
        assertWellFormed(g);
        assertEquals(Wire.VERSION, g.header().version());
        assertEquals("neo4j", g.header().database());
        assertEquals(fixture.id("root"), g.header().root());

        ExportNode root = g.nodes().get(fixture.id("root"));
        assertEquals(Set.of("Object", "Root"), new HashSet<>(root.labels()));
        assertEquals(1L, root.properties().get("id"));
        assertEquals("root", root.properties().get("name"));
        for (Map.Entry<String, Object[]> e : FixtureGraph.ALL_TYPES.entrySet()) {
            Object expected = e.getValue()[1];
            Object actual = root.properties().get(e.getKey());
            assertTrue(FixtureGraph.deepEquals(expected, actual),
                    () -> e.getKey() + ": expected " + describe(expected) + " but got " + describe(actual));
        }
        assertEquals(FixtureGraph.ALL_TYPES.size() + 2, root.properties().size());

        ExportRelationship rootA = g.relationships().get(fixture.id("root>a"));
        assertEquals("CHILDREN", rootA.type());
        assertEquals(fixture.id("root"), rootA.start());
        assertEquals(fixture.id("a"), rootA.end());
        assertEquals(Map.of("since", LocalDate.of(2001, 1, 1)), rootA.properties());
        ExportRelationship seqS3 = g.relationships().get(fixture.id("seq>s3"));
        assertEquals("PROPERTY", seqS3.type());
        assertEquals(Map.of("index", 1L), seqS3.properties());
        ExportNode s1 = g.nodes().get(fixture.id("s1"));
        assertEquals(List.of("Structure"), s1.labels());
        assertEquals(Map.of("name", "s1", "unit", "mm", "value", 1.5), s1.properties());
    }

    /** The client's open(HttpResponse): the format from the Content-Type, refusals as ExportRequestException. */
    @ParameterizedTest
    @ClientFormats
    void clientOpensTheHttpResponseItself(Format format) throws IOException {
        Subgraph expected = http.traverse(format, params("root", fixture.id("root")));
        HttpResponse<InputStream> ok = http.getStream(format.pathSegment() + "/traverse?"
                + ExportHttp.query(params("root", fixture.id("root"))));
        try (ExportReader reader = ExportReader.open(ok)) {
            assertEquals(format, reader.format());
            assertEquals(expected, Subgraph.read(reader));
        }

        HttpResponse<InputStream> missing = http.getStream(format.pathSegment() + "/traverse?"
                + ExportHttp.query(params("label", "NoSuchLabel", "key", "id", "value", "1")));
        ExportRequestException e = assertThrows(ExportRequestException.class, () -> ExportReader.open(missing));
        assertEquals(404, e.status());
        assertEquals(ApiError.ROOT_NOT_FOUND, e.code());
        assertTrue(e.getMessage().contains("NoSuchLabel"), e.getMessage());
    }

    private static String describe(Object o) {
        if (o == null) return "null";
        if (o.getClass().isArray()) {
            StringBuilder sb = new StringBuilder(o.getClass().getComponentType().getSimpleName()).append("[");
            for (int i = 0; i < java.lang.reflect.Array.getLength(o); i++) sb.append(java.lang.reflect.Array.get(o, i)).append(",");
            return sb.append("]").toString();
        }
        return o + " (" + o.getClass().getSimpleName() + ")";
    }

    static List<Format> formats() {
        return Arrays.stream(Format.values()).filter(Format::clientDecodes).toList();  // arrow: PythonClientIT
    }

    @ParameterizedTest
    @MethodSource("formats")
    void maxDepthLimitsExpansionButNotAttachments(Format format) throws IOException {
        Subgraph g = http.traverse(format, params("root", fixture.id("root"), "maxDepth", "1"));
        assertEquals(set(fixture.ids("root", "a", "b", "s1")), nodeIds(g));
        assertEquals(set(fixture.ids("root>a", "root>b", "a>s1")), relIds(g));
        assertWellFormed(g);

        Subgraph zero = http.traverse(format, params("root", fixture.id("root"), "maxDepth", "0"));
        assertEquals(set(fixture.ids("root")), nodeIds(zero));
        assertEquals(Set.of(), relIds(zero));
    }

    @Test
    void incomingExpansionWalksAgainstTheArrows() throws IOException {
        Subgraph g = http.traverse(Format.KRYO, params("root", fixture.id("a"), "expand", "<CHILDREN"));
        assertEquals(set(fixture.ids("a", "root", "w", "d", "b", "s1", "seq", "s2", "s3", "s4")), nodeIds(g));
        assertEquals(set(fixture.ids("root>a", "w>a", "d>root", "a>d", "b>d", "root>b", "a>s1", "d>seq", "seq>s2", "seq>s3", "s3>s4")), relIds(g));
        assertWellFormed(g);
    }

    @Test
    void bothDirectionsEmitEachRelationshipOnce() throws IOException {
        Subgraph g = http.traverse(Format.JSON, params("root", fixture.id("root"), "expand", "CHILDREN", "attach", ""));
        assertEquals(set(fixture.ids("root", "a", "b", "d", "w")), nodeIds(g));
        assertEquals(set(fixture.ids("root>a", "root>b", "d>root", "a>d", "w>a", "b>d")), relIds(g));
        assertWellFormed(g);
    }

    @Test
    void severalTypesAndAnEmptyAttach() throws IOException {
        Subgraph g = http.traverse(Format.BSON, params("root", fixture.id("root"), "expand", "CHILDREN>|OTHER>", "attach", ""));
        assertEquals(set(fixture.ids("root", "a", "b", "d", "z")), nodeIds(g));
        assertEquals(set(fixture.ids("root>a", "root>b", "a>d", "b>d", "d>root", "root>z")), relIds(g));
    }

    @Test
    void attachOnlyFromAnAttachedRoot() throws IOException {
        Subgraph g = http.traverse(Format.KRYO_LZF, params("root", fixture.id("seq")));
        assertEquals(set(fixture.ids("seq", "s2", "s3", "s4")), nodeIds(g));
        assertEquals(set(fixture.ids("seq>s2", "seq>s3", "s3>s4")), relIds(g));
    }

    @ParameterizedTest
    @MethodSource("formats")
    void limitCutsTheStreamAndSaysSo(Format format) throws IOException {
        Subgraph three = http.traverse(format, params("root", fixture.id("root"), "limit", "3"));
        assertEquals(3, three.nodes().size());
        assertTrue(three.end().truncated());
        assertTrue(three.nodes().containsKey(fixture.id("root")));
        assertWellFormed(three);

        Subgraph exact = http.traverse(format, params("root", fixture.id("root"), "limit", "9"));
        assertEquals(9, exact.nodes().size());
        assertFalse(exact.end().truncated(), "limit equal to the subgraph size does not truncate");

        Subgraph none = http.traverse(format, params("root", fixture.id("root"), "limit", "0"));
        assertEquals(0, none.nodes().size());
        assertTrue(none.end().truncated());
    }

    @Test
    void rootByLabelKeyAndTypedValue() throws IOException {
        Subgraph byLong = http.traverse(Format.KRYO, params("label", "Object", "key", "id", "value", "2"));
        assertEquals(fixture.id("a"), byLong.header().root());
        assertEquals(set(fixture.ids("a", "d", "root", "b", "s1", "seq", "s2", "s3", "s4")), nodeIds(byLong));

        Subgraph byString = http.traverse(Format.KRYO, params("label", "Structure", "key", "name", "value", "s3"));
        assertEquals(set(fixture.ids("s3", "s4")), nodeIds(byString));
        Subgraph byQuoted = http.traverse(Format.KRYO, params("label", "Structure", "key", "name", "value", "\"s3\""));
        assertEquals(fixture.id("s3"), byQuoted.header().root());
    }

    private void assertError(String pathAndQuery, int status, String code, String messagePart) {
        HttpResponse<byte[]> response = http.get(pathAndQuery);
        String body = new String(response.body(), StandardCharsets.UTF_8);
        assertEquals(status, response.statusCode(), body);
        assertEquals("application/json", response.headers().firstValue("Content-Type").orElse("").split(";")[0], body);
        assertTrue(body.contains("\"code\":\"" + code + "\""), body);
        assertTrue(body.contains("\"status\":" + status), body);
        assertTrue(body.contains(messagePart), () -> body + " should mention " + messagePart);
    }

    @Test
    void everyBadRequestIsRejectedBeforeStreaming() {
        String root = ExportHttp.enc(fixture.id("root"));
        assertError("xml/traverse?root=" + root, 404, "Export.UnknownFormat", "json, bson, kryo, kryo-lzf");
        assertError("kryo/traverse", 400, "Export.InvalidParameter", "missing root");
        assertError("kryo/traverse?root=nonsense", 400, "Export.InvalidParameter", "not a node element id");
        String otherDb = fixture.id("root").replaceFirst(":[0-9a-f-]+:", ":00000000-0000-0000-0000-000000000000:");
        assertError("kryo/traverse?root=" + ExportHttp.enc(otherDb), 400, "Export.InvalidParameter", "not a node element id");
        String missing = fixture.id("root").replaceFirst(":[0-9]+$", ":987654");
        assertError("kryo/traverse?root=" + ExportHttp.enc(missing), 404, "Export.RootNotFound", "no node");
        assertError("kryo/traverse?label=Object&key=id&value=12345", 404, "Export.RootNotFound", "12345 (long)");
        assertError("kryo/traverse?label=Object&key=id&value=%222%22", 404, "Export.RootNotFound", "(string)");
        assertError("kryo/traverse?label=Structure&key=unit&value=x&root=" + root, 400, "Export.InvalidParameter", "not both");
        assertError("kryo/traverse?label=Object&key=id", 400, "Export.InvalidParameter", "missing value");
        assertError("kryo/traverse?label=Structure&key=name&value=nope", 404, "Export.RootNotFound", "no :Structure");
        assertError("kryo/traverse?label=Object&key=nothing&value=1", 404, "Export.RootNotFound", "nothing");
        fixtureDuplicate();
        assertError("kryo/traverse?label=Dup&key=k&value=1", 409, "Export.AmbiguousRoot", "more than one");
        assertError("kryo/traverse?root=" + root + "&expand=CHILD%20REN", 400, "Export.InvalidParameter", "expand");
        assertError("kryo/traverse?root=" + root + "&expand=%3CA%3E", 400, "Export.InvalidParameter", "both '<' and '>'");
        assertError("kryo/traverse?root=" + root + "&attach=X)%20DETACH%20DELETE%20n", 400, "Export.InvalidParameter", "attach");
        assertError("kryo/traverse?root=" + root + "&expand=PROPERTY", 400, "Export.InvalidParameter", "both expand and attach");
        assertError("kryo/traverse?root=" + root + "&maxDepth=two", 400, "Export.InvalidParameter", "maxDepth must be a non-negative integer");
        assertError("kryo/traverse?root=" + root + "&maxDepth=-1", 400, "Export.InvalidParameter", "maxDepth");
        assertError("kryo/traverse?root=" + root + "&maxDepth=99999999999", 400, "Export.InvalidParameter", "at most");
        assertError("kryo/traverse?root=" + root + "&limit=-5", 400, "Export.InvalidParameter", "limit");
        assertError("kryo/traverse?root=" + root + "&limit=1.5", 400, "Export.InvalidParameter", "limit");
        assertError("kryo/traverse?root=" + root + "&db=nosuchdb", 404, "Export.DatabaseNotFound", "nosuchdb");
        assertError("kryo/traverse?root=" + root + "&maxdepth=2", 400, "Export.InvalidParameter", "unknown query parameter 'maxdepth'");
        assertError("kryo/traverse?root=" + root + "&root=" + root, 400, "Export.InvalidParameter", "2 times");
    }

    private static void fixtureDuplicate() {
        try (var tx = neo4j.defaultDatabaseService().beginTx()) {
            if (!tx.findNodes(org.neo4j.graphdb.Label.label("Dup")).hasNext()) {
                tx.createNode(org.neo4j.graphdb.Label.label("Dup")).setProperty("k", 1L);
                tx.createNode(org.neo4j.graphdb.Label.label("Dup")).setProperty("k", 1.0);
            }
            tx.commit();
        }
    }

    @Test
    void namedDatabaseParameterReadsThatDatabase() throws IOException {
        Subgraph g = http.traverse(Format.JSON, params("root", fixture.id("root"), "db", "neo4j", "maxDepth", "0"));
        assertEquals("neo4j", g.header().database());
        assertEquals(Set.of(fixture.id("root")), g.nodes().keySet().stream().collect(Collectors.toSet()));
    }
}
