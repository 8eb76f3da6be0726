package org.subgraphexport.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.kernel.internal.Version;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.ExportRecord;
import org.subgraphexport.testkit.DemoGraph;
import org.subgraphexport.wire.Format;

/**
 * The Python package's tests ({@code python/tests}, pytest) against the packaged plugin in a real Neo4j server, with
 * authentication: this test starts the server, loads a fixture with a value of every type Cypher can create, and runs
 * pytest with the server's URL and credentials in the environment ({@code SUBGRAPH_EXPORT_URL},
 * {@code SUBGRAPH_EXPORT_AUTH}). pyarrow reads the {@code arrow} exports; the tests compare every node, relationship
 * and value with the {@code json} export of the same request, and pin the errors (status and code, in-band). Before
 * pytest runs, this test checks that the Java client decodes the {@code kryo} and the {@code json} export of those
 * same requests into equal records, so that pytest's comparison holds against the Java client's decoding too.
 *
 * <p>A second server (no authentication) holds a small demo graph ({@link DemoGraph}, {@value #DEMO_OBJECTS} Objects,
 * the default seed), generated in this JVM into an embedded store that the server then opens
 * ({@code server.directories.data}): the graph-learning tests ({@code test_ml_live.py}) read it at
 * {@code SUBGRAPH_EXPORT_DEMO_URL}.
 *
 * <p>The interpreter is {@code python/.venv}, which {@code scripts/test} creates and fills ({@code pip install
 * "./python[test]"}) before Maven runs; without it this test fails and says so.
 */
class PythonClientIT {
    private static final String PASSWORD = "py-secret-123";
    static final Path PYTHON_DIR = RealNeo4jServer.ROOT_DIR.resolve("python");
    static final Path PYTHON = PYTHON_DIR.resolve(".venv/bin/python");
    static final Path GOLDEN_DIR = Path.of(System.getProperty("subgraphexport.it.goldenDir", "")).toAbsolutePath();
    /** Objects in the demo graph of the graph-learning tests: about 2,000 nodes, seconds to generate. */
    static final int DEMO_OBJECTS = 300;

    @Test
    void pytestPassesAgainstTheRealServer() throws Exception {
        // The demo store is written by this JVM's Neo4j, which only a server of its version opens. The LTS execution
        // includes this test only when -Dit.test names it.
        assumeTrue(Version.getNeo4jVersion().equals(RealNeo4jServer.NEO4J_VERSION),
                () -> "the Python tests run on the newest line only, not " + RealNeo4jServer.NEO4J_VERSION);
        assertTrue(Files.isExecutable(PYTHON), PYTHON + " missing: scripts/test creates it (python3 -m venv python/.venv"
                + " && python/.venv/bin/pip install './python[test]')");
        Path demoStore = generateDemoStore();
        try (RealNeo4jServer server = RealNeo4jServer.start("python", PASSWORD);
                RealNeo4jServer demo = RealNeo4jServer.start("python-demo", null,
                        "server.directories.data=" + demoStore.resolve("data"))) {
            String auth = RealNeo4jServer.basic("neo4j", PASSWORD);
            server.query(FIXTURE, auth);
            URI base = server.httpUri;
            for (String request : List.of("traverse?label=Object&key=id&value=1", "cypher")) {
                List<ExportRecord> kryo = decode(base, Format.KRYO, request, auth);
                assertEquals(kryo, decode(base, Format.JSON, request, auth), request + ": kryo and json decoded");
                assertEquals(9, kryo.size(), request + ": 4 nodes, 4 relationships and the end");
            }
            ProcessBuilder pb = new ProcessBuilder(PYTHON.toString(), "-m", "pytest", "-q", "-p", "no:cacheprovider",
                    PYTHON_DIR.resolve("tests").toString())
                    .directory(PYTHON_DIR.toFile())
                    .redirectErrorStream(true);
            String url = server.httpUri.toString();
            pb.environment().put("SUBGRAPH_EXPORT_URL", url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
            pb.environment().put("SUBGRAPH_EXPORT_AUTH", "neo4j:" + PASSWORD);
            String demoUrl = demo.httpUri.toString();
            pb.environment().put("SUBGRAPH_EXPORT_DEMO_URL",
                    demoUrl.endsWith("/") ? demoUrl.substring(0, demoUrl.length() - 1) : demoUrl);
            // conformance's golden files, unpacked from its test jar by this module's build
            pb.environment().put("SUBGRAPH_EXPORT_GOLDEN", GOLDEN_DIR.toString());
            Process p = pb.start();
            byte[] output = p.getInputStream().readAllBytes();
            assertTrue(p.waitFor(10, TimeUnit.MINUTES), "pytest did not finish");
            String text = new String(output, StandardCharsets.UTF_8);
            System.out.println("PythonClientIT: pytest\n" + text);
            assertEquals(0, p.exitValue(), text);
            List<String> lines = text.lines().toList();
            assertTrue(lines.get(lines.size() - 1).matches(".*\\d+ passed.*") && !text.contains("skipped"),
                    "every test ran, none skipped:\n" + text);
        }
    }

    /** The demo graph of {@value #DEMO_OBJECTS} Objects in an embedded store (its {@code data/} for a server). */
    private static Path generateDemoStore() {
        Path home = RealNeo4jServer.WORK_DIR.resolve("python-demo-store");
        RealNeo4jServer.deleteRecursively(home);
        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home)
                .setConfig(GraphDatabaseSettings.pagecache_memory, 32L << 20)
                .setConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
                .build();
        try {
            DemoGraph.Result graph = DemoGraph.generate(dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME),
                    DEMO_OBJECTS, DemoGraph.DEFAULT_SEED, done -> {});
            assertTrue(graph.complete() && graph.objects() == DEMO_OBJECTS, graph.toString());
        } finally {
            dbms.shutdown();
        }
        return home;
    }

    /** The records of one export (the pytest suite's traverse request, or its Cypher query), as the client decodes. */
    private static List<ExportRecord> decode(URI base, Format format, String request, String auth) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(
                base.resolve("/extension/" + format.pathSegment() + "/" + request)).header("Authorization", auth);
        if (request.equals("cypher")) {
            b.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                    "{\"query\": \"" + CYPHER + "\", \"params\": {\"id\": 1}}"));
        }
        HttpResponse<InputStream> response = HttpClient.newHttpClient().send(b.build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, response.statusCode(), request);
        List<ExportRecord> records = new ArrayList<>();
        try (ExportReader reader = ExportReader.open(format, response.body())) {
            for (ExportRecord r; (r = reader.next()) != null; ) {
                records.add(r);
            }
        }
        return records;
    }

    /** test_live.py's Cypher graph-mode query, the same text. */
    private static final String CYPHER = "MATCH p = (r:Object {id: $id})-[:CHILDREN*0..]->(c) OPTIONAL MATCH "
            + "q = (c)-[:PROPERTY*]->() RETURN p, q";

    /**
     * Objects 1 -> 2 -> 3 (CHILDREN) with a Structure hung off 2 (PROPERTY); a value of each type Cypher can store,
     * some beyond the Arrow types' range (year 10000 date-time), a key whose type differs between nodes, keys named like
 * the element id columns the readers add.
     */
    static final String FIXTURE = """
            CREATE (r:Object {id: 1, name: 'root', flag: true, n: -5, x: 1.5, s: 'ünïcödé ✓ 😀',
                    pt: point({x: 1.0, y: 2.0}), pt3: point({longitude: 12.99, latitude: 55.61, height: 10.0}),
                    dur: duration('P1Y2M3DT4H5M6.000000007S'), d: date('2020-02-29'), dFar: date('-5000-01-01'),
                    lt: localtime('23:59:59.999999999'), t: time('10:15:30.000000001+14:00'),
                    ldt: localdatetime('1969-12-31T23:59:59.5'),
                    zdt: datetime('2015-07-04T19:32:24.123456789[Europe/Berlin]'),
                    zdtOffset: datetime('2015-07-04T19:32:24+05:30'), zdtFar: datetime('+10000-01-01T00:00Z'),
                    ints: [1, -2, 3], floats: [0.5, -0.0], strs: ['a', ''], bools: [true, false],
                    dates: [date('2020-01-01'), date('1900-12-31')],
                    zdts: [datetime('2020-01-01T00:00[Europe/Paris]')], pts: [point({x: 0.0, y: 0.0})],
                    durs: [duration('PT1S')], lts: [localtime('00:00')]})
            CREATE (a:Object:Extra {id: 2, name: 'a', n: 'mixed type'})
            CREATE (c:Object {id: 3, name: 'c', element_id: 'a property'})
            CREATE (s:Structure {v: [1.5, 2.5], k: 'nested'})
            CREATE (r)-[:CHILDREN {since: date('2021-01-01'), w: 0.25}]->(a)
            CREATE (a)-[:CHILDREN {target_element_id: 3}]->(c)
            CREATE (a)-[:PROPERTY {order: 0}]->(s)
            CREATE (c)-[:CHILDREN {loop: true}]->(r)
            """;
}
