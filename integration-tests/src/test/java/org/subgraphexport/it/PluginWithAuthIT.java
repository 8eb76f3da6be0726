package org.subgraphexport.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.exceptions.AuthenticationException;
import org.subgraphexport.client.ClientFormats;
import org.subgraphexport.client.Subgraph;
import org.subgraphexport.wire.Format;

/**
 * The packaged plugin jar in a real server with {@code dbms.security.auth_enabled=true} and the initial password
 * set by {@code neo4j-admin dbms set-initial-password} (as the Docker image does with NEO4J_AUTH): the
 * extension's URLs need HTTP Basic credentials like the server's own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PluginWithAuthIT {
    private static final String PASSWORD = "it-secret-123";
    private static final String RIGHT = RealNeo4jServer.basic("neo4j", PASSWORD);
    private static final String WRONG = RealNeo4jServer.basic("neo4j", PASSWORD + "x");

    private RealNeo4jServer server;
    private Map<String, String> ids;

    @BeforeAll
    void startServerAndLoadFixture() throws Exception {
        // After 3 failed logins Neo4j locks the user for 5 s (429, even with the right password): the tests below
        // fail on purpose more often than that, in any order.
        server = RealNeo4jServer.start("auth", PASSWORD, "dbms.security.auth_max_failed_attempts=0");
        server.query("CREATE (:Object {id: 1, name: 'root'})-[:CHILDREN]->(:Object {id: 2, name: 'child'})", RIGHT);
        ids = server.queryMap("MATCH (n) RETURN n.name, elementId(n)", RIGHT);
    }

    @AfterAll
    void stopServer() {
        if (server != null) server.close();
    }

    private ExportRequest rootExport() {
        return ExportRequest.traverse("root", ids.get("root"));
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void noCredentialsIs401(Format format) {
        HttpResponse<byte[]> r = rootExport().send(server, format, null);
        assertEquals(401, r.statusCode(), () -> new String(r.body(), StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void wrongCredentialsIs401(Format format) {
        HttpResponse<byte[]> r = rootExport().send(server, format, WRONG);
        assertEquals(401, r.statusCode(), () -> new String(r.body(), StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @ClientFormats
    void rightCredentialsExport(Format format) throws IOException {
        Subgraph g = rootExport().export(server, format, RIGHT);
        assertEquals(Set.of(ids.get("root"), ids.get("child")), g.nodes().keySet());
        assertEquals(1, g.relationships().size());
        assertEquals("CHILDREN", g.relationships().values().iterator().next().type());
        assertEquals(2, g.end().nodes());
    }

    @Test
    void queryApiAndBoltNeedCredentialsToo() {
        assertEquals(401, server.queryApi("neo4j", "RETURN 1", Map.of(), null).statusCode());
        assertEquals(202, server.queryApi("neo4j", "RETURN 1", Map.of(), RIGHT).statusCode());
        try (Driver driver = server.bolt(AuthTokens.basic("neo4j", PASSWORD))) {
            assertEquals(1, driver.executableQuery("RETURN 1 AS one").execute().records().get(0).get("one").asInt());
        }
        try (Driver driver = server.bolt(AuthTokens.basic("neo4j", "wrong-password"))) {
            assertThrows(AuthenticationException.class, () -> driver.executableQuery("RETURN 1").execute());
        }
    }

    /** docker/smoke.sh with -u, and without it: then it reports the 401 and fails. Also its element-id form. */
    @Test
    void smokeScriptWithCredentials() throws Exception {
        assumeTrue(Scripts.onPath("bash") && Scripts.onPath("curl"), "needs bash and curl");
        String base = server.httpUri.toString();
        Scripts.Result ok = Scripts.smoke("-u", "neo4j:" + PASSWORD, base, ids.get("root"));
        assertEquals(0, ok.exitCode(), ok::toString);
        assertTrue(ok.output().contains("OK: every format decoded to the same subgraph"), ok::toString);
        Scripts.Result denied = Scripts.smoke(base, ids.get("root"));
        assertNotEquals(0, denied.exitCode(), denied::toString);
        assertTrue(denied.output().contains("answered 401"), denied::toString);
    }

    /** The Docker healthcheck takes its credentials from NEO4J_AUTH, in the image's "neo4j/<password>" form. */
    @Test
    void dockerHealthcheckScriptUsesNeo4jAuth() throws Exception {
        assumeTrue(Scripts.onPath("wget") && Scripts.onPath("sh"), "needs sh and wget");
        List<String> script = List.of("sh", RealNeo4jServer.DOCKER_DIR.resolve("healthcheck.sh").toString());
        String base = server.httpUri.toString();
        Scripts.Result right = Scripts.run(Map.of("HEALTHCHECK_BASE_URL", base, "NEO4J_AUTH", "neo4j/" + PASSWORD), script);
        assertEquals(0, right.exitCode(), right::toString);
        Scripts.Result rightWithReset = Scripts.run(
                Map.of("HEALTHCHECK_BASE_URL", base, "NEO4J_AUTH", "neo4j/" + PASSWORD + "/true"), script);
        assertEquals(0, rightWithReset.exitCode(), rightWithReset::toString);
        Scripts.Result wrong = Scripts.run(Map.of("HEALTHCHECK_BASE_URL", base, "NEO4J_AUTH", "neo4j/nope-nope"), script);
        assertNotEquals(0, wrong.exitCode(), wrong::toString);
        Scripts.Result none = Scripts.run(Map.of("HEALTHCHECK_BASE_URL", base, "NEO4J_AUTH", "none"), script);
        assertNotEquals(0, none.exitCode(), none::toString);
    }
}
