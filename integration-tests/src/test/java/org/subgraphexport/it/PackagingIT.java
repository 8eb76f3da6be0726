package org.subgraphexport.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * What ships, checked without a server: the plugin and client jars hold what they should, the server's lib/
 * is Neo4j's and nothing of ours, and the Docker assets agree with the build and with docker/neo4j-extension.conf
 * (the image cannot be built here, so its inputs are checked instead). Also the layout of the reactor (each
 * module's sources in its own packages) and the scripts: every one answers --help at once and touches nothing,
 * scripts/java-env.sh has the pom's JVM flags and never ends the shell that sources it.
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
        assertTrue(classes.contains("org/subgraphexport/client/ExportReader.class"));
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
        assertEquals("neo4j:${NEO4J_VERSION}", from.group(1), "the community image of the version the ARG names");
        Matcher version = Pattern.compile("(?m)^ARG\\s+NEO4J_VERSION=(\\S+)").matcher(dockerfile);
        assertTrue(version.find() && version.start() < from.start(), "ARG NEO4J_VERSION=<default> before FROM");
        assertEquals(RealNeo4jServer.NEO4J_VERSION, version.group(1), "by default the tested version");

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

    // ---- the reactor's layout ----

    /** The modules of the root pom and the only packages each one's main sources may declare. */
    private static final Map<String, Set<String>> MODULE_PACKAGES = new LinkedHashMap<>();

    static {
        MODULE_PACKAGES.put("wire", Set.of("org.subgraphexport.wire"));
        MODULE_PACKAGES.put("client", Set.of("org.subgraphexport.client", "org.subgraphexport.client.internal"));
        MODULE_PACKAGES.put("spark", Set.of("org.subgraphexport.spark"));
        MODULE_PACKAGES.put("testkit", Set.of("org.subgraphexport.testkit"));
        MODULE_PACKAGES.put("plugin", Set.of("org.subgraphexport.encode", "org.subgraphexport.read",
                "org.subgraphexport.neo4j", "org.subgraphexport.server", "org.subgraphexport.config"));
        MODULE_PACKAGES.put("conformance", Set.of()); // tests only
        MODULE_PACKAGES.put("lts", Set.of()); // tests only, from the plugin's test jar
        MODULE_PACKAGES.put("demo", Set.of("org.subgraphexport.demo"));
        MODULE_PACKAGES.put("integration-tests", Set.of()); // tests only
        MODULE_PACKAGES.put("benchmarks", Set.of("org.subgraphexport.bench", "org.subgraphexport.bench.floor",
                "org.subgraphexport.jmh"));
    }

    private static final Pattern PACKAGE_DECLARATION = Pattern.compile("(?m)^\\s*package\\s+([\\w.]+)\\s*;");

    /** The {@code <module>} entries of the {@code <modules>} of the pom at {@code pom} (not those of profiles). */
    private static List<String> modules(Path pom) throws Exception {
        Element project = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile()).getDocumentElement();
        List<String> modules = new ArrayList<>();
        for (Node n = project.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (!"modules".equals(n.getNodeName())) continue;
            for (Node m = n.getFirstChild(); m != null; m = m.getNextSibling()) {
                if ("module".equals(m.getNodeName())) modules.add(m.getTextContent().strip());
            }
        }
        return modules;
    }

    private static List<Path> files(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) return List.of();
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).sorted().toList();
        }
    }

    @Test
    void theReactorsModulesEachHoldOnlyTheirOwnPackages() throws Exception {
        Path root = RealNeo4jServer.ROOT_DIR;
        List<String> modules = modules(root.resolve("pom.xml"));
        assertEquals(new TreeSet<>(MODULE_PACKAGES.keySet()), new TreeSet<>(modules), "<modules> of the root pom.xml");
        assertEquals(modules.size(), new HashSet<>(modules).size(), () -> "a module listed twice: " + modules);
        // module -> source files in a package that is not its own
        Map<String, List<String>> foreign = new TreeMap<>();
        for (String module : modules) {
            assertTrue(Files.isRegularFile(root.resolve(module).resolve("pom.xml")), module + "/pom.xml");
            for (Path source : files(root.resolve(module).resolve("src/main/java"))) {
                if (!source.toString().endsWith(".java")) continue;
                Matcher m = PACKAGE_DECLARATION.matcher(Files.readString(source));
                String pkg = m.find() ? m.group(1) : "(the default package)";
                if (!MODULE_PACKAGES.get(module).contains(pkg)) {
                    foreign.computeIfAbsent(module, k -> new ArrayList<>()).add(root.relativize(source) + ": " + pkg);
                }
            }
        }
        assertEquals(Map.of(), foreign, "main sources outside their module's packages (PackagingIT.MODULE_PACKAGES)");
        for (String testsOnly : List.of("conformance", "lts", "integration-tests")) {
            assertEquals(List.of(), files(root.resolve(testsOnly).resolve("src/main")), testsOnly + " has tests only");
        }
    }

    // ---- what the jars hold ----

    /** Every entry name, in the jar's order, duplicates included. */
    private static List<String> entries(Path jar) throws IOException {
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            return zip.stream().map(ZipEntry::getName).toList();
        }
    }

    private static List<String> duplicates(List<String> names) {
        Set<String> seen = new HashSet<>();
        return names.stream().filter(n -> !seen.add(n)).toList();
    }

    private static boolean startsWithAny(String name, List<String> prefixes) {
        return prefixes.stream().anyMatch(name::startsWith);
    }

    @Test
    void pluginJarHoldsThePluginsPackagesTheRelocatedLibrariesAndTheSettingsServiceOnly() throws IOException {
        List<String> entries = entries(RealNeo4jServer.PLUGIN_JAR);
        // A jar shaded a second time (a build without clean) holds entries twice or an earlier jar inside.
        assertEquals(List.of(), duplicates(entries), "entries twice in the plugin jar");
        assertEquals(List.of(), entries.stream().filter(e -> e.endsWith(".jar") || e.contains("original-")).toList());
        List<String> packages = List.of("org/subgraphexport/wire/", "org/subgraphexport/encode/",
                "org/subgraphexport/read/", "org/subgraphexport/neo4j/", "org/subgraphexport/server/",
                "org/subgraphexport/config/", "org/subgraphexport/shaded/");
        List<String> classes = entries.stream().filter(e -> e.endsWith(".class")).toList();
        assertEquals(List.of(), classes.stream().filter(c -> !startsWithAny(c, packages)).toList(),
                "classes outside " + packages + " (client, demo, bench, jmh code does not belong in the plugin)");
        // Other files: only under META-INF/ (a file elsewhere would shadow the server's own, plugins/* come first).
        List<String> files = entries.stream().filter(e -> !e.endsWith("/") && !e.endsWith(".class")).toList();
        assertEquals(List.of(), files.stream().filter(f -> !f.startsWith("META-INF/")).toList(), "resources outside META-INF/");
        String service = "META-INF/services/org.neo4j.configuration.SettingsDeclaration";
        assertEquals(List.of(service), files.stream().filter(f -> f.startsWith("META-INF/services/")).toList(),
                "the server loads every service file of plugins/: the plugin declares its settings and nothing else");
        try (ZipFile zip = new ZipFile(RealNeo4jServer.PLUGIN_JAR.toFile());
                InputStream in = zip.getInputStream(zip.getEntry(service))) {
            List<String> implementations = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
            assertTrue(!implementations.isEmpty(), service);
            for (String implementation : implementations) {
                assertTrue(classes.contains(implementation.replace('.', '/') + ".class"), implementation + " in " + service);
            }
        }
    }

    /** The class-file major version of {@code entry} (61 = Java 17, 65 = Java 21). */
    private static int classFileMajor(ZipFile zip, ZipEntry entry) throws IOException {
        try (DataInputStream in = new DataInputStream(zip.getInputStream(entry))) {
            assertEquals(0xCAFEBABE, in.readInt(), () -> entry.getName() + " is not a class file");
            in.readUnsignedShort(); // minor
            return in.readUnsignedShort();
        }
    }

    @Test
    void clientJarHoldsClientWireAndLzfOnlyAllForJava17() throws IOException {
        List<String> entries = entries(RealNeo4jServer.CLIENT_JAR);
        assertEquals(List.of(), duplicates(entries), "entries twice in the client jar");
        List<String> classes = entries.stream().filter(e -> e.endsWith(".class")).toList();
        List<String> packages = List.of("org/subgraphexport/client/", "org/subgraphexport/wire/", "org/subgraphexport/shaded/lzf/");
        assertEquals(List.of(), classes.stream().filter(c -> !startsWithAny(c, packages)).toList(), "classes outside " + packages);
        // Named again for a clear message: what a client on an application's classpath must never bring along.
        for (String server : List.of("org/neo4j/", "org/subgraphexport/encode/")) {
            assertEquals(List.of(), classes.stream().filter(c -> c.startsWith(server)).toList(), server);
        }
        assertEquals(List.of(), classes.stream().filter(c -> c.contains("esotericsoftware")).toList(),
                "no Kryo library: the client decodes the Kryo format by hand");
        assertAllJava17(RealNeo4jServer.CLIENT_JAR, "the client is for applications on Java 17+");
    }

    @Test
    void sparkJarInThePythonPackageHoldsTheSourceAndTheClientOnlyAllForJava17() throws IOException {
        Path jars = RealNeo4jServer.ROOT_DIR.resolve("python/src/subgraph_export/jars");
        List<Path> found;
        try (var list = Files.list(jars)) {
            found = list.filter(p -> p.getFileName().toString().matches("subgraph-export-spark-.*\\.jar")).toList();
        }
        assertEquals(1, found.size(), "the Maven build of spark/ puts its one jar into " + jars + ": " + found);
        Path jar = found.get(0);
        List<String> entries = entries(jar);
        assertEquals(List.of(), duplicates(entries), "entries twice in the Spark jar");
        List<String> classes = entries.stream().filter(e -> e.endsWith(".class")).toList();
        List<String> packages = List.of("org/subgraphexport/spark/", "org/subgraphexport/client/",
                "org/subgraphexport/wire/", "org/subgraphexport/shaded/lzf/");
        assertEquals(List.of(), classes.stream().filter(c -> !startsWithAny(c, packages)).toList(),
                "classes outside " + packages + ": Spark and Arrow are the session's own");
        assertTrue(classes.contains("org/subgraphexport/spark/SubgraphExportSource.class"), "the source");
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            ZipEntry service = zip.getEntry("META-INF/services/org.apache.spark.sql.sources.DataSourceRegister");
            assertTrue(service != null, "Spark finds format(\"subgraph_export\") through this service file");
            assertEquals("org.subgraphexport.spark.SubgraphExportSource",
                    new String(zip.getInputStream(service).readAllBytes(), StandardCharsets.UTF_8).strip());
        }
        assertAllJava17(jar, "Spark 4 runs on Java 17");
    }

    @Test
    void pluginJarIsJava17Bytecode() throws IOException {
        assertAllJava17(RealNeo4jServer.PLUGIN_JAR, "the plugin loads on 5.26 servers, which run on Java 17 or 21");
    }

    /** Every class in {@code jar} is class-file major version 61 (Java 17) or older. */
    private static void assertAllJava17(Path jar, String why) throws IOException {
        // Java release -> classes compiled for it, for those newer than 17.
        Map<Integer, List<String>> tooNew = new TreeMap<>();
        int classes = 0;
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            for (ZipEntry entry : zip.stream().filter(e -> e.getName().endsWith(".class")).toList()) {
                classes++;
                int major = classFileMajor(zip, entry);
                if (major > 61) tooNew.computeIfAbsent(major - 44, k -> new ArrayList<>()).add(entry.getName());
            }
        }
        StringBuilder summary = new StringBuilder();
        int total = classes;
        tooNew.forEach((release, names) -> summary.append("\n  Java ").append(release).append(": ").append(names.size())
                .append(" of ").append(total).append(" classes, e.g. ").append(names.subList(0, Math.min(3, names.size()))));
        assertTrue(tooNew.isEmpty(), () -> why + " (class-file major version 61 at most):" + summary);
    }

    // ---- the scripts ----

    /** The scripts users run that are not in scripts/: the smoke test (docker/healthcheck.sh is the container's). */
    private static final List<String> OTHER_SCRIPTS = List.of("docker/smoke.sh");
    private static final Duration HELP_TIMEOUT = Duration.ofSeconds(10);

    /**
     * Every script a user runs: each executable file of scripts/ (a new one is covered without being named here;
     * scripts/java-env.sh is sourced, not run, and not executable), and {@link #OTHER_SCRIPTS}.
     */
    private static List<String> scripts() throws IOException {
        List<String> scripts = new ArrayList<>();
        try (Stream<Path> files = Files.list(RealNeo4jServer.ROOT_DIR.resolve("scripts"))) {
            files.filter(f -> Files.isRegularFile(f) && Files.isExecutable(f)).map(f -> "scripts/" + f.getFileName())
                    .sorted().forEach(scripts::add);
        }
        scripts.addAll(OTHER_SCRIPTS);
        return scripts;
    }

    private static Scripts.Result help(String script) throws IOException, InterruptedException {
        return Scripts.run(Map.of(), List.of("bash", script, "--help"), RealNeo4jServer.ROOT_DIR, HELP_TIMEOUT);
    }

    /** {@code git status --porcelain --untracked-files=all} of the checkout, or null if it is none (or no git). */
    private static String gitStatus() throws IOException, InterruptedException {
        if (!Scripts.onPath("git")) return null;
        Scripts.Result r = Scripts.run(Map.of(), List.of("git", "-C", RealNeo4jServer.ROOT_DIR.toString(), "status",
                "--porcelain", "--untracked-files=all"), null, Duration.ofSeconds(60));
        return r.exitCode() == 0 ? r.output() : null;
    }

    /**
     * {@code bash <script> --help}: exit 0 within 10 s, a line starting with "Usage:", and the checkout as it was
     * (its git status compared before and after each script; skipped, as an assumption, outside a git checkout).
     */
    @Test
    void everyScriptAnswersHelpAtOnceAndTouchesNothing() throws Exception {
        assumeTrue(Scripts.onPath("bash"), "needs bash");
        List<String> scripts = scripts();
        assertTrue(scripts.containsAll(List.of("scripts/demo", "scripts/test", "scripts/load", "scripts/neo4j-lines")),
                () -> "the scripts found: " + scripts);
        String before = gitStatus();
        Map<String, String> wrong = new LinkedHashMap<>();
        Map<String, String> changed = new LinkedHashMap<>();
        for (String script : scripts) {
            Scripts.Result r = help(script);
            if (r.exitCode() != 0 || r.output().lines().noneMatch(l -> l.startsWith("Usage:"))) {
                wrong.put(script, r.toString());
            }
            if (before != null) {
                String after = gitStatus();
                if (!before.equals(after)) changed.put(script, "before:\n" + before + "after:\n" + after);
                before = after;
            }
        }
        assertEquals(Map.of(), wrong, "`bash <script> --help`: exit 0 within " + HELP_TIMEOUT.toSeconds()
                + " s with a line starting with \"Usage:\"");
        assertEquals(Map.of(), changed, "`git status --porcelain --untracked-files=all` changed by `<script> --help`");
        assumeTrue(before != null, () -> "--help answered; not compared: " + RealNeo4jServer.ROOT_DIR
                + " is not a git checkout (or git is not on the PATH)");
    }

    @Test
    void javaEnvHasTheJvmFlagsOfThePom() throws Exception {
        assumeTrue(Scripts.onPath("bash"), "needs bash");
        String resolved = System.getProperty("subgraphexport.it.neo4jJvmFlags");
        assertTrue(resolved != null && !resolved.isBlank() && !resolved.contains("${"),
                () -> "system property subgraphexport.it.neo4jJvmFlags (the pom's neo4j.jvm.flags): " + resolved);
        List<String> pom = List.of(resolved.strip().split("\\s+"));
        Scripts.Result r = Scripts.run(Map.of("JAVA_HOME", System.getProperty("java.home")),
                List.of("bash", "-c", ". scripts/java-env.sh && printf '%s\\n' \"${NEO4J_JVM_FLAGS[@]}\""),
                RealNeo4jServer.ROOT_DIR, Duration.ofSeconds(60));
        assertEquals(0, r.exitCode(), r::toString);
        assertEquals(pom, r.output().lines().toList(),
                "NEO4J_JVM_FLAGS of scripts/java-env.sh vs neo4j.jvm.flags of pom.xml, for Java " + Runtime.version().feature());
    }

    @Test
    void sourcingJavaEnvNeverEndsTheCallersShell() throws Exception {
        assumeTrue(Scripts.onPath("bash"), "needs bash");
        for (String shellOptions : List.of("", "set -u; ")) {
            String command = shellOptions + "PATH=/usr/bin:/bin; JAVA_HOME=/nonexistent; . scripts/java-env.sh; "
                    + "echo \"still here $?\"";
            Scripts.Result r = Scripts.run(Map.of(), List.of("bash", "-c", command), RealNeo4jServer.ROOT_DIR,
                    Duration.ofSeconds(60));
            assertTrue(r.output().lines().anyMatch(l -> l.startsWith("still here ")), () -> command + "\n" + r);
        }
    }
}
