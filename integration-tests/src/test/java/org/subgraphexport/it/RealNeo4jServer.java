package org.subgraphexport.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.neo4j.driver.AuthToken;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;

/**
 * A real Neo4j Community server in its own JVM, installed the way a user installs the plugin: the server's jars
 * in HOME/lib (the runtime closure of org.neo4j:neo4j, resolved by the build into
 * {@code subgraphexport.it.neo4jLib}), the packaged, shaded plugin jar in HOME/plugins, and HOME/conf/neo4j.conf
 * made of docker/neo4j-extension.conf (what the README and the Docker image use) plus lines for this machine:
 * loopback addresses, free ports, no HTTPS, small memory.
 *
 * <p>Started like the {@code neo4j console} launcher starts it: {@code java <Neo4j's JVM flags> -cp
 * "plugins/*:conf/*:lib/*" org.neo4j.server.Neo4jCommunity} ({@code CommunityEntryPoint} on 5.26), with the java
 * of the JVM running the tests. The line is {@code subgraphexport.it.neo4jVersion}, its jars
 * {@code subgraphexport.it.neo4jLib}: the build runs the real-server tests once per line it supports.
 * {@link #close()} stops the process (and any children), waits for it and deletes HOME; set
 * {@code -Dsubgraphexport.it.keep=true} to keep HOME with its logs for a look.
 */
final class RealNeo4jServer implements AutoCloseable {
    static final Path PLUGIN_JAR = pathProperty("subgraphexport.it.pluginJar");
    static final Path CLIENT_JAR = pathProperty("subgraphexport.it.clientJar");
    static final Path NEO4J_LIB = pathProperty("subgraphexport.it.neo4jLib");
    static final Path ROOT_DIR = pathProperty("subgraphexport.it.rootDir");
    /** docker/: the image's files, which the real-server tests start the server with. */
    static final Path DOCKER_DIR = ROOT_DIR.resolve("docker");
    static final Path WORK_DIR = pathProperty("subgraphexport.it.workDir");
    static final String NEO4J_VERSION = property("subgraphexport.it.neo4jVersion");
    /** The conf fragment the README, the Docker image and this test share. */
    static final Path CONF_FRAGMENT = DOCKER_DIR.resolve("neo4j-extension.conf");

    static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    /** The Community server's main class: {@code CommunityEntryPoint} on 5.26, {@code Neo4jCommunity} since 2025.01. */
    private static final String MAIN_CLASS = atLeast(NEO4J_VERSION, "2025.01")
            ? "org.neo4j.server.Neo4jCommunity" : "org.neo4j.server.CommunityEntryPoint";
    /** Bolt's Netty shutdown quiet period (~15 s by default); the setting was renamed in 2026.04. */
    private static final String QUIET_PERIOD = atLeast(NEO4J_VERSION, "2026.04")
            ? "internal.dbms.bolt.netty_server_shutdown_quiet_period_duration=0s"
            : "internal.dbms.bolt.netty_server_shutdown_quiet_period=0";

    final Path home;
    final URI httpUri;
    final URI boltUri;
    private final Process process;
    private final Thread shutdownHook;

    private RealNeo4jServer(Path home, URI httpUri, URI boltUri, Process process, Thread shutdownHook) {
        this.home = home;
        this.httpUri = httpUri;
        this.boltUri = boltUri;
        this.process = process;
        this.shutdownHook = shutdownHook;
    }

    /**
     * Installs and starts a server in {@code WORK_DIR/name}.
     *
     * @param initialPassword null: {@code dbms.security.auth_enabled=false}; else auth enabled and this the
     *                        password of user neo4j, set with {@code neo4j-admin dbms set-initial-password} before
     *                        the first start (what the Docker image does with NEO4J_AUTH)
     * @param extraConf       more neo4j.conf lines
     */
    static RealNeo4jServer start(String name, String initialPassword, String... extraConf)
            throws IOException, InterruptedException {
        return start(name, initialPassword, List.of("-Xms256m", "-Xmx512m"), extraConf);
    }

    /**
     * As {@link #start(String, String, String...)}, with the server JVM's heap flags given (e.g.
     * {@code -Xms128m -Xmx128m}): the launcher's server.memory.heap.* settings become exactly these flags, and
     * running the main class directly, as here, they must be passed on the command line.
     */
    static RealNeo4jServer start(String name, String initialPassword, List<String> heapFlags, String... extraConf)
            throws IOException, InterruptedException {
        Path home = WORK_DIR.resolve(name);
        deleteRecursively(home);
        Files.createDirectories(home.resolve("logs"));
        try {
            installLib(home.resolve("lib"));
            Files.createDirectories(home.resolve("plugins"));
            Files.copy(PLUGIN_JAR, home.resolve("plugins").resolve(PLUGIN_JAR.getFileName()));
            int httpPort = freePort();
            int boltPort = freePort();
            writeConf(home, httpPort, boltPort, initialPassword != null, List.of(extraConf));
            if (initialPassword != null) {
                setInitialPassword(home, initialPassword);
            }
            URI httpUri = URI.create("http://127.0.0.1:" + httpPort);
            URI boltUri = URI.create("bolt://127.0.0.1:" + boltPort);

            List<String> command = new ArrayList<>(List.of(javaBinary()));
            command.addAll(jvmFlags());
            command.addAll(heapFlags);
            command.addAll(List.of("-cp", classpath(home, "plugins", "conf", "lib"),
                    MAIN_CLASS, "--home-dir=" + home, "--config-dir=" + home.resolve("conf")));
            long t0 = System.nanoTime();
            Process process = new ProcessBuilder(command)
                    .directory(home.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(home.resolve("logs/console.log").toFile())
                    .start();
            // Not left running if the test JVM is stopped (Ctrl-C) before close().
            Thread hook = new Thread(() -> stopProcessTree(process.toHandle()), "stop-neo4j-" + name);
            Runtime.getRuntime().addShutdownHook(hook);
            RealNeo4jServer server = new RealNeo4jServer(home, httpUri, boltUri, process, hook);
            try {
                server.awaitStarted(t0);
            } catch (RuntimeException | Error | InterruptedException e) {
                server.close();
                throw e;
            }
            System.out.printf("Neo4j %s (%s) started in %.1f s: %s, %s, HOME %s%n", NEO4J_VERSION, name,
                    (System.nanoTime() - t0) / 1e9, httpUri, boltUri, home);
            return server;
        } catch (IOException | RuntimeException | Error | InterruptedException e) {
            if (!Boolean.getBoolean("subgraphexport.it.keep")) deleteRecursively(home);
            throw e;
        }
    }

    /** Whether Neo4j {@code version} (e.g. 5.26.30, 2026.08.1) is {@code minimum} (e.g. 2026.04) or later. */
    static boolean atLeast(String version, String minimum) {
        String[] v = version.split("\\.");
        String[] m = minimum.split("\\.");
        for (int i = 0; i < m.length; i++) {
            int a = i < v.length ? Integer.parseInt(v[i]) : 0;
            int b = Integer.parseInt(m[i]);
            if (a != b) {
                return a > b;
            }
        }
        return true;
    }

    /** Neo4j's own JVM flags (what bin/neo4j adds), and nothing the test JVM happens to run with. */
    static List<String> jvmFlags() {
        List<String> flags = new ArrayList<>(List.of(
                "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "--add-opens=java.base/java.io=ALL-UNNAMED",
                "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                "--enable-native-access=ALL-UNNAMED"));
        if (Runtime.version().feature() >= 23) {
            flags.add("--sun-misc-unsafe-memory-access=allow"); // an unknown option before JDK 23
        }
        return flags;
    }

    static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** Hard links to the resolved jars (a copy where links are not possible): a lib/ folder like a tarball's. */
    private static void installLib(Path lib) throws IOException {
        Files.createDirectories(lib);
        try (Stream<Path> jars = Files.list(NEO4J_LIB)) {
            for (Path jar : jars.filter(p -> p.toString().endsWith(".jar")).toList()) {
                Path target = lib.resolve(jar.getFileName());
                try {
                    Files.createLink(target, jar);
                } catch (IOException | UnsupportedOperationException e) {
                    Files.copy(jar, target, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }

    private static void writeConf(Path home, int httpPort, int boltPort, boolean auth, List<String> extraConf)
            throws IOException {
        List<String> lines = new ArrayList<>(Files.readAllLines(CONF_FRAGMENT, StandardCharsets.UTF_8));
        lines.add("");
        lines.add("# ---- added by the integration test for this machine ----");
        lines.add("server.default_listen_address=127.0.0.1");
        lines.add("server.default_advertised_address=127.0.0.1");
        lines.add("server.http.listen_address=127.0.0.1:" + httpPort);
        lines.add("server.http.advertised_address=127.0.0.1:" + httpPort);
        lines.add("server.bolt.listen_address=127.0.0.1:" + boltPort);
        lines.add("server.bolt.advertised_address=127.0.0.1:" + boltPort);
        lines.add("server.https.enabled=false");
        lines.add("dbms.usage_report.enabled=false");
        lines.add("dbms.security.auth_enabled=" + auth);
        lines.add("server.memory.pagecache.size=32m");
        lines.add("db.tx_log.preallocate=false"); // else 256 MiB of transaction log per server on disk
        lines.add(QUIET_PERIOD);
        lines.addAll(extraConf);
        Path conf = Files.createDirectories(home.resolve("conf"));
        Files.write(conf.resolve("neo4j.conf"), lines, StandardCharsets.UTF_8);
    }

    /** {@code neo4j-admin dbms set-initial-password}: AdminTool with NEO4J_HOME and NEO4J_CONF, as bin/neo4j-admin runs it. */
    private static void setInitialPassword(Path home, String password) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(javaBinary()));
        command.addAll(jvmFlags());
        // plugins/ too, as bin/neo4j-admin has it: neo4j.conf may name the plugin's settings
        command.addAll(List.of("-cp", classpath(home, "plugins", "conf", "lib"), "org.neo4j.cli.AdminTool",
                "dbms", "set-initial-password", password));
        ProcessBuilder pb = new ProcessBuilder(command).directory(home.toFile()).redirectErrorStream(true)
                .redirectOutput(home.resolve("logs/set-initial-password.log").toFile());
        pb.environment().put("NEO4J_HOME", home.toString());
        pb.environment().put("NEO4J_CONF", home.resolve("conf").toString());
        Process p = pb.start();
        boolean exited = p.waitFor(60, TimeUnit.SECONDS);
        if (!exited) p.destroyForcibly().waitFor();
        String log = Files.readString(home.resolve("logs/set-initial-password.log"));
        assertTrue(exited && p.exitValue() == 0, () -> "neo4j-admin dbms set-initial-password failed:\n" + log);
        assertTrue(Files.isRegularFile(home.resolve("data/dbms/auth.ini")), () -> "no data/dbms/auth.ini:\n" + log);
    }

    private void awaitStarted(long t0) throws InterruptedException {
        Path neo4jLog = home.resolve("logs/neo4j.log");
        long deadline = t0 + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("Neo4j exited with " + process.exitValue() + " before it was ready\n" + logs());
            }
            if (answersHttp() && contains(neo4jLog, "Started.")) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("Neo4j did not answer on " + httpUri + " within " + START_TIMEOUT.toSeconds()
                + " s\n" + logs());
    }

    private boolean answersHttp() throws InterruptedException {
        try {
            HttpResponse<Void> r = HTTP.send(HttpRequest.newBuilder(httpUri.resolve("/")).timeout(Duration.ofSeconds(2))
                    .GET().build(), HttpResponse.BodyHandlers.discarding());
            return r.statusCode() == 200;
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean contains(Path file, String text) {
        try {
            return Files.isRegularFile(file) && Files.readString(file).contains(text);
        } catch (IOException e) {
            return false;
        }
    }

    /** The end of the server's logs, for failure messages. */
    String logs() {
        StringBuilder sb = new StringBuilder();
        for (String name : List.of("console.log", "neo4j.log", "debug.log")) {
            Path file = home.resolve("logs").resolve(name);
            sb.append("---- ").append(file).append(" (last 60 lines) ----\n");
            try {
                List<String> lines = Files.isRegularFile(file) ? Files.readAllLines(file) : List.of("(none)");
                lines.subList(Math.max(0, lines.size() - 60), lines.size()).forEach(l -> sb.append(l).append('\n'));
            } catch (IOException | UncheckedIOException e) {
                sb.append("(unreadable: ").append(e).append(")\n");
            }
        }
        return sb.toString();
    }

    /** The server JVM's process id (for jcmd). */
    long pid() {
        return process.pid();
    }

    // ---- HTTP ----

    /** An Authorization header value for HTTP Basic. */
    static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    HttpResponse<byte[]> send(HttpRequest.Builder request, String authorization) {
        if (authorization != null) request.header("Authorization", authorization);
        try {
            return HTTP.send(request.timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    HttpResponse<byte[]> get(String pathAndQuery, String authorization) {
        return send(HttpRequest.newBuilder(httpUri.resolve(pathAndQuery)).GET(), authorization);
    }

    /** POST /db/{db}/query/v2 as JSON; the raw response. */
    HttpResponse<byte[]> queryApi(String database, String statement, Map<String, ?> parameters, String authorization) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("statement", statement);
        body.put("parameters", parameters);
        try {
            return send(HttpRequest.newBuilder(httpUri.resolve("/db/" + database + "/query/v2"))
                    .header("Content-Type", "application/json").header("Accept", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body))), authorization);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs {@code statement} through the Query API, asserts 202, and returns {@code data.values} (rows of values). */
    JsonNode query(String statement, String authorization) {
        HttpResponse<byte[]> r = queryApi("neo4j", statement, Map.of(), authorization);
        String body = new String(r.body(), StandardCharsets.UTF_8);
        assertEquals(202, r.statusCode(), () -> statement + "\n" + body);
        try {
            JsonNode json = JSON.readTree(body);
            assertTrue(json.path("errors").isMissingNode() || json.path("errors").isEmpty(), body);
            return json.path("data").path("values");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A two-column query's rows as a map from the first column to the second. */
    Map<String, String> queryMap(String statement, String authorization) {
        Map<String, String> m = new LinkedHashMap<>();
        for (JsonNode row : query(statement, authorization)) {
            assertTrue(m.put(row.get(0).asText(), row.get(1).asText()) == null, "duplicate key " + row.get(0));
        }
        return m;
    }

    /** The Bolt driver logs through System.Logger (java.util.logging here): no INFO lines in the test output. */
    private static final java.util.logging.Logger DRIVER_LOG = java.util.logging.Logger.getLogger("org.neo4j.driver");

    static {
        DRIVER_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    /** A Bolt driver for this server. */
    Driver bolt(AuthToken auth) {
        return GraphDatabase.driver(boltUri, auth);
    }

    // ---- stopping ----

    @Override
    public void close() {
        long t0 = System.nanoTime();
        stopProcessTree(process.toHandle());
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // the hook stops it
        }
        System.out.printf("Neo4j (%s) stopped in %.1f s%n", home.getFileName(), (System.nanoTime() - t0) / 1e9);
        if (Boolean.getBoolean("subgraphexport.it.keep")) {
            System.out.println("kept " + home);
        } else {
            deleteRecursively(home);
        }
    }

    /** SIGTERM (Neo4j shuts down cleanly), then SIGKILL for anything still alive after 30 s. */
    private static void stopProcessTree(ProcessHandle root) {
        List<ProcessHandle> all = new ArrayList<>(root.descendants().toList());
        all.add(0, root);
        all.forEach(ProcessHandle::destroy);
        for (ProcessHandle p : all) {
            try {
                p.onExit().get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                p.destroyForcibly();
                try {
                    p.onExit().get(10, TimeUnit.SECONDS);
                } catch (Exception ignored) {
                    // reported by the caller's failing deletion, if at all
                }
            }
        }
    }

    // ---- files ----

    static String classpath(Path home, String... dirs) {
        return String.join(java.io.File.pathSeparator,
                Stream.of(dirs).map(d -> home.resolve(d) + java.io.File.separator + "*").toList());
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    /** Deletes files and folders; never follows a symbolic link out of {@code dir}. */
    static void deleteRecursively(Path dir) {
        if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) return;
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.delete(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    if (e != null) throw e;
                    Files.delete(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }

    private static String property(String name) {
        String value = System.getProperty(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("system property " + name + " is not set: run the integration tests "
                    + "through README's test command (scripts/test), whose mvn verify packages the plugin and passes it");
        }
        return value;
    }

    private static Path pathProperty(String name) {
        return Path.of(property(name)).toAbsolutePath().normalize();
    }
}
