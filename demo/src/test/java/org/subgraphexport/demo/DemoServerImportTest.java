package org.subgraphexport.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.server.CommunityBootstrapper;
import org.neo4j.server.NeoBootstrapper;

/**
 * {@code scripts/demo}'s server, started with the demo's own settings ({@link DemoServer#settings}) and the
 * plugin's extension: LOAD CSV through the extension's Cypher endpoint reads the demo's import folder and nothing
 * outside it. (Without {@code server.directories.import} an embedded server's LOAD CSV reads any file the JVM can.)
 */
class DemoServerImportTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @TempDir
    static Path home;

    private static CommunityBootstrapper server;
    private static URI cypherRows;

    @BeforeAll
    static void start() throws IOException {
        int httpPort = freePort();
        DemoServer.Options o = DemoServer.Options.parse(new String[] {
            "--data-dir", home.toString(), "--port", Integer.toString(httpPort), "--page-cache", "16m"});
        Files.createDirectories(DemoServer.importDir(o));
        Files.writeString(DemoServer.importDir(o).resolve("demo.csv"), "first\nsecond\n");
        server = new CommunityBootstrapper();
        int rc = server.start(DemoServer.home(o), null, DemoServer.settings(o, freePort()), false, false);
        assertEquals(NeoBootstrapper.OK, rc, "the demo's server started");
        cypherRows = URI.create("http://127.0.0.1:" + httpPort + "/extension/json/cypher?mode=rows");
    }

    @AfterAll
    static void stop() {
        if (server != null) server.stop();
    }

    /** A file the JVM can read, outside the import folder (as /etc/passwd is): its absolute path as a file URL. */
    @Test
    void loadCsvOutsideTheImportFolderIsRefused() throws Exception {
        Path secret = Files.writeString(home.resolve("secret.csv"), "not-for-the-client\n");
        HttpResponse<String> r = cypher("LOAD CSV FROM '" + secret.toUri() + "' AS l RETURN l");
        assertEquals(400, r.statusCode(), r::body);
        assertTrue(r.body().contains("\"code\":\"Neo.ClientError.Statement.ExternalResourceFailed\""), r::body);
        assertFalse(r.body().contains("not-for-the-client"), r::body);
    }

    @Test
    void loadCsvReadsTheImportFolder() throws Exception {
        HttpResponse<String> r = cypher("LOAD CSV FROM 'file:///demo.csv' AS l RETURN l");
        assertEquals(200, r.statusCode(), r::body);
        for (String line : List.of("first", "second")) {
            assertTrue(r.body().contains("{\"record\":\"row\",\"values\":[[\"" + line + "\"]]}"), r::body);
        }
        assertTrue(r.body().contains("\"rows\":2"), r::body);
    }

    private static HttpResponse<String> cypher(String query) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(cypherRows).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"query\": \"" + query + "\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }
}
