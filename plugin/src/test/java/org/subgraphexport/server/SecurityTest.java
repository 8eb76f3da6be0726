package org.subgraphexport.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.graphdb.GraphDatabaseService;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.Subgraph;
import org.subgraphexport.wire.Format;

/**
 * With auth enabled: every endpoint answers as the Query API does for the same credentials, and an export reads
 * as the authenticated user (not with the full access an extension's beginTx() would have).
 */
class SecurityTest {
    @RegisterExtension
    static final InProcessNeo4j neo4j = InProcessNeo4j.withExtension()
            .with(BoltConnector.enabled, true)  // Bolt on, as before
            .with(GraphDatabaseSettings.auth_enabled, true)
            .with(GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period, Duration.ZERO);
    private static FixtureGraph fixture;
    private static URI base;
    // HTTP/1.1: over h2c, Jetty answers a POST it refuses (401) by resetting the stream, which the JDK client
    // sometimes reports as an IOException instead of the 401 (seen once in a clean-clone run)
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    static void start() {
        GraphDatabaseService system = neo4j.databaseManagementService().database("system");
        system.executeTransactionally("CREATE USER alice SET PASSWORD 'alice-secret' CHANGE NOT REQUIRED");
        system.executeTransactionally("CREATE USER bob SET PASSWORD 'bob-secret' CHANGE REQUIRED");
        // wrong passwords go to carol: three failures lock a user out for a while (429), as Neo4j does
        system.executeTransactionally("CREATE USER carol SET PASSWORD 'carol-secret' CHANGE NOT REQUIRED");
        fixture = FixtureGraph.create(neo4j.defaultDatabaseService());
        neo4j.defaultDatabaseService().executeTransactionally(
                "CREATE (:Marker {name: 'alice'}), (:Marker {name: 'bob'}), (:Marker {name: ''})");
        base = neo4j.httpURI();
    }

    private static HttpResponse<byte[]> send(HttpRequest.Builder request, String credentials) {
        if (credentials != null) {
            request.header("Authorization", "Basic "
                    + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
        }
        try {
            return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static HttpRequest.Builder traverse() {
        return HttpRequest.newBuilder(base.resolve("/extension/kryo/traverse?root=" + ExportHttp.enc(fixture.id("root"))));
    }

    private static HttpRequest.Builder cypher(String query) {
        return HttpRequest.newBuilder(base.resolve("/extension/kryo/cypher"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"query\": \"" + query + "\"}"));
    }

    private static HttpRequest.Builder queryApi() {
        return HttpRequest.newBuilder(base.resolve("/db/neo4j/query/v2"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"statement\": \"RETURN 1\"}"));
    }

    @Test
    void credentialsAreCheckedLikeTheQueryApi() {
        for (String credentials : new String[] {null, "carol:wrong", "nobody:alice-secret"}) {
            int expected = send(queryApi(), credentials).statusCode();
            assertEquals(401, expected, "the Query API's answer to " + credentials);
            assertEquals(expected, send(traverse(), credentials).statusCode(), "traverse, " + credentials);
            assertEquals(expected, send(cypher("RETURN 1"), credentials).statusCode(), "cypher, " + credentials);
        }
        assertEquals(202, send(queryApi(), "alice:alice-secret").statusCode());
        assertEquals(200, send(traverse(), "alice:alice-secret").statusCode());
    }

    @Test
    void aUserWhosePasswordMustChangeCannotExport() {
        HttpResponse<byte[]> query = send(queryApi(), "bob:bob-secret");
        assertTrue(query.statusCode() >= 400, "the Query API refuses bob too: " + query.statusCode());
        for (HttpRequest.Builder request : new HttpRequest.Builder[] {traverse(), cypher("RETURN 1")}) {
            HttpResponse<byte[]> response = send(request, "bob:bob-secret");
            String body = new String(response.body(), StandardCharsets.UTF_8);
            assertEquals(403, response.statusCode(), body);
            assertTrue(body.contains("\"code\":\"Neo.ClientError.Security.CredentialsExpired\""), body);
            assertTrue(body.contains("bob"), body);
        }
    }

    @Test
    void theExportReadsAsTheAuthenticatedUser() throws Exception {
        // A long-running export query; while it runs, SHOW TRANSACTIONS names the user it runs as.
        var running = HTTP.sendAsync(cypher("UNWIND range(1, 5000000) AS x MATCH (m:Marker) WHERE x > 0 RETURN m")
                        .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("alice:alice-secret".getBytes(StandardCharsets.UTF_8)))
                        .build(), HttpResponse.BodyHandlers.ofByteArray());
        String seen = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (seen == null && System.nanoTime() < deadline && !running.isDone()) {
            try (var tx = neo4j.defaultDatabaseService().beginTx()) {
                seen = tx.execute("SHOW TRANSACTIONS YIELD username, currentQuery, metaData "
                                + "WHERE currentQuery CONTAINS 'Marker' AND NOT currentQuery CONTAINS 'SHOW' RETURN username, metaData").stream()
                        .map(row -> row.get("username") + " " + row.get("metaData"))
                        .findFirst().orElse(null);
            }
            Thread.sleep(10);
        }
        assertEquals("alice {app=subgraph-export}", seen, "the export transaction, seen while it ran");
        HttpResponse<byte[]> response = running.get();
        assertEquals(200, response.statusCode(), new String(response.body(), StandardCharsets.UTF_8));
        try (ExportReader reader = ExportReader.open(Format.KRYO, new ByteArrayInputStream(response.body()))) {
            assertEquals(3, Subgraph.read(reader).nodes().size());
        }
        HttpResponse<byte[]> export = send(traverse(), "alice:alice-secret");
        try (ExportReader reader = ExportReader.open(Format.KRYO, new ByteArrayInputStream(export.body()))) {
            assertEquals(9, Subgraph.read(reader).nodes().size());
        }
    }
}
