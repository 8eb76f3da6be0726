package org.subgraphexport.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The upgrade alarm: the packaged plugin jar linked ahead of time ({@link LinkageCheck}) against the {@code lib/}
 * of every Neo4j line the build assembles (today 5.26.30 and 2026.08.1, {@code subgraphexport.it.linkageLibs}).
 * A class, method or field the plugin uses that a line lacks or changed is named here, with the plugin class that
 * uses it, instead of surfacing as a NoSuchMethodError in a user's export. {@code scripts/neo4j-lines} runs the
 * same check against any release on Maven Central.
 */
class LinkageIT {
    static List<Path> lines() {
        return Arrays.stream(System.getProperty("subgraphexport.it.linkageLibs").split(","))
                .map(String::strip).map(Path::of).toList();
    }

    @ParameterizedTest
    @MethodSource("lines")
    void thePluginLinksAgainstTheServersJars(Path lib) throws IOException {
        assertTrue(Files.isDirectory(lib), lib + " is not a directory");
        assertEquals(List.of(), LinkageCheck.problems(RealNeo4jServer.PLUGIN_JAR, lib), "against " + lib);
    }

    /** The check can fail: the same jar against the JDK alone misses Neo4j, JAX-RS and Jackson, and says so. */
    @Test
    void theCheckNamesWhatIsMissing() throws IOException {
        Path empty = Files.createTempDirectory("empty-lib");
        try {
            List<String> problems = LinkageCheck.problems(RealNeo4jServer.PLUGIN_JAR, empty);
            assertTrue(problems.contains(
                    "missing class org.neo4j.kernel.api.KernelTransaction  (used by org.subgraphexport.read.Budget)"),
                    problems::toString);
            assertTrue(problems.stream().anyMatch(p -> p.startsWith("org.subgraphexport.neo4j.Neo4jLine cannot be loaded")),
                    problems::toString);
        } finally {
            Files.delete(empty);
        }
    }
}
