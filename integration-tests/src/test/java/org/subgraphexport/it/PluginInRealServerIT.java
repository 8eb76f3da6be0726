package org.subgraphexport.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.Record;
import org.neo4j.graphdb.config.Setting;
import org.subgraphexport.client.ClientFormats;
import org.subgraphexport.client.DurationValue;
import org.subgraphexport.client.ExportFailedException;
import org.subgraphexport.client.ExportNode;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.ExportRelationship;
import org.subgraphexport.client.ExportRow;
import org.subgraphexport.client.PointValue;
import org.subgraphexport.client.Subgraph;
import org.subgraphexport.wire.Format;

/**
 * The packaged plugin jar in a real Neo4j Community server (see {@link RealNeo4jServer}), authentication off:
 * every format of the traverse endpoint decoded by the client jar, the README's client example compiled and run on
 * Java 17, the server's own Query API and Bolt still working with the plugin on the classpath, and docker/smoke.sh
 * and docker/healthcheck.sh against it.
 *
 * <p>The fixture is loaded through the Query API; element ids come back from it too, so nothing here depends on
 * how the server numbers entities.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PluginInRealServerIT {
    /**
     * Under root (Object id 1): root -CHILDREN-> a, b; a, b -CHILDREN-> c (two paths); c -CHILDREN-> root (a
     * cycle); a -PROPERTY-> s1; c -PROPERTY-> seq -PROPERTY{index}-> s2, s3. Outside: outside -CHILDREN-> a.
     * Every node has a unique name; relationships are named start>end.
     */
    static final String FIXTURE = """
            CREATE (root:Object:Root {id: 1, name: 'root', flag: true, count: 42, ratio: -0.25,
                    greeting: 'héllo wörld ✓ 😀', tags: ['a', '', 'ü😀'], weights: [1.5, -2.0], ids: [1, 2, 3],
                    born: date('2020-02-29'), at: datetime('2021-06-01T12:30:00.000000123[Europe/Berlin]'),
                    span: duration({months: 14, days: -3, seconds: 5, nanoseconds: 7}),
                    location: point({x: 1.5, y: -2.0}), geo: point({longitude: 12.5, latitude: 56.1})})
            CREATE (a:Object {id: 2, name: 'a'}), (b:Object {id: 3, name: 'b'}), (c:Object {id: 4, name: 'c'}),
                   (outside:Object {id: 99, name: 'outside'}),
                   (s1:Structure {name: 's1', unit: 'mm', value: 1.5}),
                   (seq:Sequence {name: 'seq'}), (s2:Structure {name: 's2', v: 0}), (s3:Structure {name: 's3', v: 1})
            CREATE (root)-[:CHILDREN {since: date('2001-01-01')}]->(a), (root)-[:CHILDREN]->(b),
                   (a)-[:CHILDREN]->(c), (b)-[:CHILDREN]->(c), (c)-[:CHILDREN]->(root),
                   (a)-[:PROPERTY {name: 'dims'}]->(s1), (c)-[:PROPERTY {name: 'list'}]->(seq),
                   (seq)-[:PROPERTY {index: 0}]->(s2), (seq)-[:PROPERTY {index: 1}]->(s3),
                   (outside)-[:CHILDREN]->(a)
            """;

    private RealNeo4jServer server;
    /** Element ids by fixture name: nodes by name, relationships as "start>end". */
    private final Map<String, String> ids = new LinkedHashMap<>();

    @BeforeAll
    void startServerAndLoadFixture() throws Exception {
        server = RealNeo4jServer.start("no-auth", null);
        server.query(FIXTURE, null);
        ids.putAll(server.queryMap("MATCH (n) RETURN n.name, elementId(n)", null));
        ids.putAll(server.queryMap("MATCH (s)-[r]->(e) RETURN s.name + '>' + e.name, elementId(r)", null));
        assertEquals(9 + 10, ids.size(), ids::toString);
    }

    @AfterAll
    void stopServer() {
        if (server != null) server.close();
    }

    private Set<String> ids(String... names) {
        Set<String> result = new HashSet<>();
        for (String name : names) {
            String id = ids.get(name);
            assertTrue(id != null, name);
            result.add(id);
        }
        return result;
    }

    @Test
    void theServerIsTheCommunityServerTheBuildTargets() throws IOException {
        HttpResponse<byte[]> r = server.get("/", null);
        assertEquals(200, r.statusCode());
        JsonNode discovery = RealNeo4jServer.JSON.readTree(r.body());
        assertEquals(RealNeo4jServer.NEO4J_VERSION, discovery.path("neo4j_version").asText(), discovery::toString);
        assertEquals("community", discovery.path("neo4j_edition").asText(), discovery::toString);
    }

    @ParameterizedTest
    @ClientFormats
    void traverseExportsExactlyTheSubgraph(Format format) throws IOException {
        Subgraph g = ExportRequest.traverse("root", ids.get("root")).export(server, format, null);

        assertEquals(ids("root", "a", "b", "c", "s1", "seq", "s2", "s3"), g.nodes().keySet());
        assertEquals(ids("root>a", "root>b", "a>c", "b>c", "c>root", "a>s1", "c>seq", "seq>s2", "seq>s3"),
                g.relationships().keySet());
        assertEquals(8, g.end().nodes());
        assertEquals(9, g.end().relationships());
        assertFalse(g.end().truncated());
        assertEquals("neo4j", g.header().database());
        assertEquals(ids.get("root"), g.header().root());

        ExportNode root = g.nodes().get(ids.get("root"));
        assertEquals(Set.of("Object", "Root"), Set.copyOf(root.labels()));
        Map<String, Object> expected = new LinkedHashMap<>();
        expected.put("id", 1L);
        expected.put("name", "root");
        expected.put("flag", true);
        expected.put("count", 42L);
        expected.put("ratio", -0.25);
        expected.put("greeting", "héllo wörld ✓ 😀");
        expected.put("tags", new String[] {"a", "", "ü😀"});
        expected.put("weights", new double[] {1.5, -2.0});
        expected.put("ids", new long[] {1, 2, 3});
        expected.put("born", LocalDate.of(2020, 2, 29));
        expected.put("at", ZonedDateTime.of(2021, 6, 1, 12, 30, 0, 123, ZoneId.of("Europe/Berlin")));
        expected.put("span", new DurationValue(14, -3, 5, 7));
        expected.put("location", new PointValue(7203, new double[] {1.5, -2.0}));
        expected.put("geo", new PointValue(4326, new double[] {12.5, 56.1}));
        // ExportNode.equals compares property maps by content, arrays included.
        assertEquals(new ExportNode(root.id(), root.labels(), expected), root);

        ExportRelationship rootA = g.relationships().get(ids.get("root>a"));
        assertEquals("CHILDREN", rootA.type());
        assertEquals(ids.get("root"), rootA.start());
        assertEquals(ids.get("a"), rootA.end());
        assertEquals(Map.of("since", LocalDate.of(2001, 1, 1)), rootA.properties());
        assertEquals(Map.of("index", 1L), g.relationships().get(ids.get("seq>s3")).properties());
        ExportNode s1 = g.nodes().get(ids.get("s1"));
        assertEquals(List.of("Structure"), s1.labels());
        assertEquals(Map.of("name", "s1", "unit", "mm", "value", 1.5), s1.properties());
        assertArrayEquals(new double[] {1.5, -2.0}, ((PointValue) root.properties().get("location")).coordinates());
    }

    @ParameterizedTest
    @ClientFormats
    void rootByLabelKeyValueWithMaxDepth(Format format) throws IOException {
        Subgraph g = ExportRequest.traverse("label", "Object", "key", "id", "value", "1", "maxDepth", "1")
                .export(server, format, null);

        assertEquals(ids.get("root"), g.header().root());
        assertEquals(ids("root", "a", "b", "s1"), g.nodes().keySet());
        assertEquals(ids("root>a", "root>b", "a>s1"), g.relationships().keySet());
    }

    /**
     * The Cypher endpoint in both modes on this server line: graph mode gives exactly the entities the query
     * returned, rows mode the values. It runs the user's query with the caller's access restricted to reads, which
     * Neo4j spells differently per line ({@code org.subgraphexport.neo4j.Neo4jLine}).
     */
    @ParameterizedTest
    @ClientFormats
    void cypherExportsGraphAndRows(Format format) throws IOException {
        Subgraph g = ExportRequest.cypher("MATCH (r:Root)-[rel:CHILDREN]->(m) RETURN r, rel, m")
                .export(server, format, null);
        assertEquals(ids("root", "a", "b"), g.nodes().keySet());
        assertEquals(ids("root>a", "root>b"), g.relationships().keySet());
        assertEquals(3, g.end().nodes());
        assertEquals(2, g.end().relationships());
        assertEquals(Map.of("since", LocalDate.of(2001, 1, 1)), g.relationships().get(ids.get("root>a")).properties());
        assertEquals(Map.of("id", 2L, "name", "a"), g.nodes().get(ids.get("a")).properties());

        Subgraph rows = ExportRequest.cypher("MATCH (n:Object) WHERE n.id < 4 RETURN n.id AS id, n.name AS name "
                + "ORDER BY id", "mode", "rows").export(server, format, null);
        assertEquals(List.of("id", "name"), rows.columns());
        assertEquals(List.of(List.of(1L, "root"), List.of(2L, "a"), List.of(3L, "b")),
                rows.rows().stream().map(ExportRow::values).toList());
    }

    @Test
    void cypherRefusesWritesAndChangesNothing() throws IOException {
        HttpResponse<byte[]> r = ExportRequest.cypher("CREATE (:Written {by: 'export'}) RETURN 1")
                .send(server, Format.KRYO, null);
        String body = new String(r.body(), StandardCharsets.UTF_8);
        assertEquals(400, r.statusCode(), body);
        assertEquals("Export.WriteQueryRefused", RealNeo4jServer.JSON.readTree(body).path("code").asText(), body);
        assertEquals(0, server.query("MATCH (n:Written) RETURN count(n)", null).get(0).get(0).asLong());
    }

    /**
     * A {@code timeout=} the export applies itself (Neo4j's monitor would notice seconds later), reading the
     * transaction's timeout through the member this line has ({@code Neo4jLine.timeoutNanos}): the stream ends
     * with Neo4j's TransactionTimedOut as its error record at the walk's first check.
     */
    @Test
    void anExportOverItsTimeoutEndsWithTheTimeoutRecord() throws IOException {
        HttpResponse<byte[]> r = ExportRequest.traverse("root", ids.get("root"), "timeout", "1ms")
                .send(server, Format.JSON, null);
        assertEquals(200, r.statusCode(), () -> new String(r.body(), StandardCharsets.UTF_8));
        ExportFailedException failure = assertThrows(ExportFailedException.class, () -> {
            try (ExportReader reader = ExportReader.open(Format.JSON, new ByteArrayInputStream(r.body()))) {
                while (reader.next() != null) {
                    // the header, and the records before the first check
                }
            }
        });
        assertTrue(failure.code().startsWith("Neo.ClientError.Transaction.TransactionTimedOut"), failure.code());
    }

    /**
     * Content-Encoding from the server's own zstd-jni (its lib/, not the plugin jar) and the JDK's gzip: each
     * format's body decoded by the zstd tool and GZIPInputStream is the identity body. Identity is refused, because
     * the fixture's exports are smaller than the default compression_min_size.
     */
    @ParameterizedTest
    @EnumSource(value = Format.class, names = "KRYO_LZF", mode = EnumSource.Mode.EXCLUDE)
    void compressedWithTheServersZstdAndTheJdksGzip(Format format) throws Exception {
        String path = ExportRequest.traverse("root", ids.get("root")).uri(server.httpUri, format).toString();
        HttpResponse<byte[]> identity = server.send(HttpRequest.newBuilder(URI.create(path)), null);
        assertEquals(200, identity.statusCode());
        for (String coding : List.of("zstd", "gzip")) {
            HttpResponse<byte[]> r = server.send(HttpRequest.newBuilder(URI.create(path))
                    .header("Accept-Encoding", coding + ", identity;q=0"), null);
            assertEquals(200, r.statusCode());
            assertEquals(coding, r.headers().firstValue("Content-Encoding").orElse("identity"), format + " " + coding);
            assertEquals("Accept-Encoding", r.headers().firstValue("Vary").orElse(""));
            byte[] decoded;
            if (coding.equals("gzip")) {
                decoded = new GZIPInputStream(new ByteArrayInputStream(r.body())).readAllBytes();
            } else {
                Path file = Files.createTempFile("real-server", ".zst");
                Path out = file.resolveSibling(file.getFileName() + ".out");
                Files.write(file, r.body());
                run(List.of("zstd", "-d", "-q", "-f", file.toString(), "-o", out.toString()));
                decoded = Files.readAllBytes(out);
                Files.delete(file);
                Files.delete(out);
            }
            assertArrayEquals(identity.body(), decoded, format + " " + coding);
        }
    }

    /**
     * The README's Java client example, as a user copies it: the first {@code ```java} block under "## The Java
     * client" in README.md, compiled with a Java 17 javac against the client jar alone (it needs no other jar), run with
     * Java 17's java against a kryo and a json traverse export of the fixture. Proves that the example compiles
     * against the API as it is, that the client jar runs on Java 17, and what the example prints.
     */
    @Test
    void readmeJavaClientExampleRunsOnJava17() throws Exception {
        Path jdk17 = jdk17();
        // README says every build runs the example on Java 17: without one this fails rather than skip unnoticed
        assertTrue(jdk17 != null, "no JDK 17 under /usr/lib/jvm (a release file with JAVA_VERSION=\"17...\"): README's"
                + " Java client example is checked on Java 17 in every build; install one (e.g. openjdk-17-jdk)");
        Path dir = Files.createTempDirectory("readme-example");
        try {
            Path source = dir.resolve("ExportExample.java");
            Files.writeString(source, readmeJavaBlock(RealNeo4jServer.ROOT_DIR.resolve("README.md"),
                    "## The Java client"));
            String classpath = RealNeo4jServer.CLIENT_JAR.toString(); // the client jar alone: it needs no other jar
            Path classes = Files.createDirectories(dir.resolve("classes"));
            run(List.of(jdk17.resolve("bin/javac").toString(), "-cp", classpath,
                    "-d", classes.toString(), source.toString()));
            String root = ids.get("root");
            for (String format : List.of("kryo", "json")) {
                String url = server.httpUri + "/extension/" + format + "/traverse?root="
                        + URLEncoder.encode(root, StandardCharsets.UTF_8);
                String out = run(List.of(jdk17.resolve("bin/java").toString(),
                        "-cp", classes + File.pathSeparator + classpath, "ExportExample", url));
                assertEquals("database neo4j, root " + root + "\n8 nodes, 9 relationships, truncated: false\n", out,
                        format);
            }
        } finally {
            RealNeo4jServer.deleteRecursively(dir);
        }
    }

    /** The body of the first {@code ```java} fenced block after the line {@code heading}. */
    static String readmeJavaBlock(Path readme, String heading) throws IOException {
        List<String> lines = Files.readAllLines(readme, StandardCharsets.UTF_8);
        int h = lines.indexOf(heading);
        assertTrue(h >= 0, () -> readme + " has no line " + heading);
        int start = -1;
        for (int i = h + 1; i < lines.size() && start < 0; i++) {
            if (lines.get(i).strip().equals("```java")) start = i + 1;
            else if (lines.get(i).startsWith("## ")) break;
        }
        assertTrue(start > 0, () -> "no ```java block under " + heading + " in " + readme);
        StringBuilder java = new StringBuilder();
        for (int i = start; i < lines.size(); i++) {
            if (lines.get(i).strip().equals("```")) return java.toString();
            java.append(lines.get(i)).append('\n');
        }
        throw new AssertionError("the ```java block under " + heading + " in " + readme + " is not closed");
    }

    /**
     * A JDK 17 under /usr/lib/jvm: a directory whose {@code release} file says {@code JAVA_VERSION="17...} and that
     * has bin/javac and bin/java; null if there is none.
     */
    static Path jdk17() throws IOException {
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) return null;
        List<Path> candidates;
        try (Stream<Path> list = Files.list(jvms)) {
            candidates = list.sorted().toList();
        }
        for (Path jdk : candidates) {
            Path release = jdk.resolve("release");
            if (!Files.isRegularFile(release) || !Files.isExecutable(jdk.resolve("bin/javac"))
                    || !Files.isExecutable(jdk.resolve("bin/java"))) continue;
            boolean is17 = Files.readAllLines(release, StandardCharsets.ISO_8859_1).stream()
                    .anyMatch(l -> l.startsWith("JAVA_VERSION=\"17"));
            if (is17) return jdk.toRealPath();
        }
        return null;
    }

    /** Runs {@code command}, asserts exit 0 within 120 s, returns its standard output. */
    private static String run(List<String> command) throws IOException, InterruptedException {
        Path err = Files.createTempFile("readme-example", ".err");
        try {
            Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
            p.getOutputStream().close();
            CompletableFuture<byte[]> stdout = CompletableFuture.supplyAsync(() -> {
                try (InputStream in = p.getInputStream()) {
                    return in.readAllBytes();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
                throw new AssertionError("timed out after 120 s: " + command);
            }
            String out = new String(stdout.join(), StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), () -> command + "\nstdout:\n" + out + "stderr:\n" + readString(err));
            return out;
        } finally {
            Files.deleteIfExists(err);
        }
    }

    private static String readString(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return e.toString();
        }
    }

    /** Also what the Docker healthcheck relies on: a lookup that matches nothing is the extension's own 404. */
    @Test
    void noMatchingRootIs404RootNotFound() throws IOException {
        HttpResponse<byte[]> r = server.get(
                "/extension/json/traverse?label=SubgraphExportHealthCheck&key=id&value=0", null);
        assertEquals(404, r.statusCode());
        JsonNode error = RealNeo4jServer.JSON.readTree(r.body());
        assertEquals("Export.RootNotFound", error.path("code").asText(), error::toString);
    }

    @Test
    void dockerHealthcheckScriptSeesTheExtension() throws Exception {
        assumeTrue(Scripts.onPath("wget") && Scripts.onPath("sh"), "needs sh and wget");
        Scripts.Result result = Scripts.run(Map.of("HEALTHCHECK_BASE_URL", server.httpUri.toString(), "NEO4J_AUTH", "none"),
                List.of("sh", RealNeo4jServer.DOCKER_DIR.resolve("healthcheck.sh").toString()));
        assertEquals(0, result.exitCode(), result::toString);
    }

    /**
     * The plugin's own neo4j.conf settings (a SettingsDeclaration listed in META-INF/services) must survive
     * shading and be known to the real server: with strict config validation an undeclared name in neo4j.conf
     * stops the server. Reads the declared names from the plugin jar, so it follows renames.
     */
    @Test
    void pluginSettingsAreKnownToTheServer() throws Exception {
        List<String> declared = declaredSettings(RealNeo4jServer.PLUGIN_JAR);
        JsonNode rows = RealNeo4jServer.JSON.readTree(server.queryApi("neo4j", "SHOW SETTINGS $names YIELD name RETURN name",
                Map.of("names", declared), null).body()).path("data").path("values");
        Set<String> known = new HashSet<>();
        rows.forEach(row -> known.add(row.path(0).asText()));
        assertEquals(Set.copyOf(declared), known, rows::toString);
        System.out.println("plugin settings known to the server: " + known);
    }

    /** Names of the settings the plugin jar declares through META-INF/services (none: empty). */
    static List<String> declaredSettings(Path jar) throws Exception {
        List<String> names = new ArrayList<>();
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            ZipEntry services = zip.getEntry("META-INF/services/org.neo4j.configuration.SettingsDeclaration");
            if (services == null) return names;
            List<String> classes = new String(zip.getInputStream(services).readAllBytes(), StandardCharsets.UTF_8)
                    .lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
            // Neo4j's classes from the test classpath, the declaring classes from the plugin jar.
            try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()},
                    PluginInRealServerIT.class.getClassLoader())) {
                for (String className : classes) {
                    for (Field field : Class.forName(className, true, loader).getFields()) {
                        if (Modifier.isStatic(field.getModifiers()) && Setting.class.isAssignableFrom(field.getType())) {
                            names.add(((Setting<?>) field.get(null)).name());
                        }
                    }
                }
            }
        }
        return names;
    }

    @Test
    void queryApiStillAnswers() throws IOException {
        HttpResponse<byte[]> r = server.queryApi("neo4j", "MATCH (n:Object) RETURN count(n) AS objects", Map.of(), null);
        assertEquals(202, r.statusCode(), () -> new String(r.body(), StandardCharsets.UTF_8));
        JsonNode data = RealNeo4jServer.JSON.readTree(r.body()).path("data");
        assertEquals("objects", data.path("fields").path(0).asText(), data::toString);
        assertEquals(5, data.path("values").path(0).path(0).asInt(), data::toString);
    }

    @Test
    void boltStillAnswers() {
        try (Driver driver = server.bolt(AuthTokens.none())) {
            Record one = driver.executableQuery("RETURN 1 AS one").execute().records().get(0);
            assertEquals(1, one.get("one").asInt());
            Record objects = driver.executableQuery("MATCH (n:Object) RETURN count(n) AS n").execute().records().get(0);
            assertEquals(5, objects.get("n").asInt());
        }
    }

    /** docker/smoke.sh as a user runs it: every format downloaded with curl and decoded by SmokeDecode.java. */
    @Test
    void smokeScriptPasses() throws Exception {
        assumeTrue(Scripts.onPath("bash") && Scripts.onPath("curl"), "needs bash and curl");
        Scripts.Result result = Scripts.smoke(server.httpUri.toString(), "label=Object", "key=id", "value=1");
        System.out.println("docker/smoke.sh " + result);
        assertEquals(0, result.exitCode(), result::toString);
        assertTrue(result.output().contains("OK: every format decoded to the same subgraph"), result::toString);
        for (Format f : Format.values()) {
            if (!f.clientDecodes()) {
                continue;  // smoke.sh decodes with the Java client
            }
            assertTrue(result.output().lines().anyMatch(l -> l.startsWith(f.pathSegment() + " ") && l.contains(" 8 nodes")),
                    () -> f + " line missing\n" + result);
        }
    }
}
