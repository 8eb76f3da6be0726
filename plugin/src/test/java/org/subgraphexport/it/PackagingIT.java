package org.subgraphexport.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/**
 * What ships, checked without a server: the plugin and client jars hold what they should, the server's lib/
 * is Neo4j's and nothing of ours, and the Docker assets agree with the build and with docker/neo4j-extension.conf
 * (the image cannot be built here, so its inputs are checked instead).
 */
class PackagingIT {
    private static final Path DOCKERFILE = RealNeo4jServer.DOCKER_DIR.resolve("Dockerfile");
    private static final Path COMPOSE = RealNeo4jServer.DOCKER_DIR.resolve("compose.yaml");

    private static List<String> classes(Path jar) throws IOException {
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            return zip.stream().map(ZipEntry::getName).filter(n -> n.endsWith(".class")).toList();
        }
    }

    @Test
    void pluginJarBundlesOnlyRelocatedLibraries() throws IOException {
        List<String> classes = classes(RealNeo4jServer.PLUGIN_JAR);
        // Anything outside our namespace would replace the server's own copy for the whole server (plugins/* first).
        assertEquals(List.of(), classes.stream().filter(c -> !c.startsWith("org/subgraphexport/")).toList());
        assertTrue(classes.contains("org/subgraphexport/shaded/lzf/lzf/LZFEncoder.class"));
        // The Kryo format is written without the Kryo library: none of it, nor what it brings, is bundled.
        assertEquals(List.of(), classes.stream().filter(c -> c.contains("esotericsoftware") || c.contains("objenesis")
                || c.contains("reflectasm") || c.contains("minlog")).toList());
        assertTrue(classes.contains("org/subgraphexport/server/TraverseResource.class"));
        assertEquals(List.of(), classes.stream().filter(c -> c.contains("bson4jackson")).toList(),
                "BSON is written by the project's own generator");
        // Jersey scans the mounted package recursively: nothing shaded may land inside it.
        assertEquals(List.of(), classes.stream().filter(c -> c.startsWith("org/subgraphexport/server/")
                && c.contains("/shaded/")).toList());
    }

    @Test
    void clientJarHasNoServerCode() throws IOException {
        List<String> classes = classes(RealNeo4jServer.CLIENT_JAR);
        assertTrue(classes.contains("org/subgraphexport/client/RecordReader.class"));
        assertEquals(List.of(), classes.stream().filter(c -> !c.startsWith("org/subgraphexport/client/")
                && !c.startsWith("org/subgraphexport/wire/") && !c.startsWith("org/subgraphexport/shaded/lzf/")).toList());
    }

    @Test
    void serverLibIsNeo4jsRuntimeClosureAndNothingOfOurs() throws IOException {
        List<String> jars;
        try (Stream<Path> files = Files.list(RealNeo4jServer.NEO4J_LIB)) {
            jars = files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".jar")).sorted().toList();
        }
        System.out.println("server lib/: " + jars.size() + " jars from " + RealNeo4jServer.NEO4J_LIB);
        assertTrue(jars.contains("neo4j-" + RealNeo4jServer.NEO4J_VERSION + ".jar"), jars::toString);
        assertTrue(jars.contains("jakarta.ws.rs-api-2.1.6.jar"), "the JAX-RS API we compile against is the server's");
        assertTrue(jars.stream().anyMatch(j -> j.startsWith("neo4j-java-driver-")), "the Query API needs the driver");
        for (String foreign : List.of("junit", "opentest4j", "neo4j-harness", "kryo", "compress-lzf", "bson4jackson",
                "objenesis", "subgraph-export")) {
            assertTrue(jars.stream().noneMatch(j -> j.startsWith(foreign)), () -> foreign + " in " + jars);
        }
    }

    /** Settings of docker/neo4j-extension.conf, in file order. */
    static Map<String, String> confFragment() throws IOException {
        Map<String, String> settings = new LinkedHashMap<>();
        for (String line : Files.readAllLines(RealNeo4jServer.CONF_FRAGMENT, StandardCharsets.UTF_8)) {
            String l = line.strip();
            if (l.isEmpty() || l.startsWith("#")) continue;
            int eq = l.indexOf('=');
            assertTrue(eq > 0, () -> "not key=value: " + line);
            settings.put(l.substring(0, eq).strip(), l.substring(eq + 1).strip());
        }
        return settings;
    }

    /** The image's naming of a setting as an environment variable: NEO4J_, '_' doubled, '.' as '_'. */
    static String envName(String setting) {
        return "NEO4J_" + setting.replace("_", "__").replace(".", "_");
    }

    @Test
    void dockerfileSetsExactlyTheSettingsOfTheConfFragment() throws IOException {
        Map<String, String> fragment = confFragment();
        assertTrue(fragment.containsKey("server.unmanaged_extension_classes"), fragment::toString);
        Map<String, String> env = new LinkedHashMap<>();
        Matcher m = Pattern.compile("(?m)^ENV\\s+(NEO4J_\\w+)=(\"([^\"]*)\"|(\\S*))\\s*$")
                .matcher(Files.readString(DOCKERFILE));
        while (m.find()) {
            env.put(m.group(1), m.group(3) != null ? m.group(3) : m.group(4));
        }
        Map<String, String> expected = new LinkedHashMap<>();
        fragment.forEach((k, v) -> expected.put(envName(k), v));
        assertEquals(expected, env, "docker/Dockerfile ENV lines vs docker/neo4j-extension.conf");
    }

    @Test
    void dockerfileBuildsOnTheTestedNeo4jWithTheBuiltJar() throws IOException {
        String dockerfile = Files.readString(DOCKERFILE);
        Matcher from = Pattern.compile("(?m)^FROM\\s+(\\S+)").matcher(dockerfile);
        assertTrue(from.find());
        assertEquals("neo4j:" + RealNeo4jServer.NEO4J_VERSION, from.group(1), "community image of the tested version");

        Matcher arg = Pattern.compile("(?m)^ARG\\s+PLUGIN_JAR=(\\S+)").matcher(dockerfile);
        assertTrue(arg.find(), "ARG PLUGIN_JAR=<default>");
        String defaultJar = arg.group(1);
        assertEquals(RealNeo4jServer.ROOT_DIR.relativize(RealNeo4jServer.PLUGIN_JAR).toString(), defaultJar);
        // The BuildKit ignore file must let that jar into the build context.
        List<String> ignore = Files.readAllLines(RealNeo4jServer.DOCKER_DIR.resolve("Dockerfile.dockerignore"));
        assertTrue(ignore.stream().filter(l -> l.startsWith("!"))
                        .anyMatch(l -> FileSystems.getDefault().getPathMatcher("glob:" + l.substring(1)).matches(Path.of(defaultJar))),
                "docker/Dockerfile.dockerignore excludes " + defaultJar);
    }

    @Test
    void composeHealthcheckRunsTheScriptTheImageInstalls() throws IOException {
        Matcher copy = Pattern.compile("(?m)^COPY\\s.*docker/healthcheck\\.sh\\s+(\\S+)\\s*$").matcher(Files.readString(DOCKERFILE));
        assertTrue(copy.find(), "Dockerfile copies docker/healthcheck.sh");
        String compose = Files.readString(COMPOSE);
        assertTrue(compose.contains("test: [\"CMD\", \"" + copy.group(1) + "\"]"), "compose healthcheck runs " + copy.group(1));
        assertTrue(compose.contains("dockerfile: docker/Dockerfile"));
        for (String setting : List.of("server.memory.heap.initial_size", "server.memory.heap.max_size",
                "server.memory.pagecache.size")) {
            assertTrue(compose.contains(envName(setting) + ": \"${" + envName(setting) + ":-"), setting);
        }
    }
}
