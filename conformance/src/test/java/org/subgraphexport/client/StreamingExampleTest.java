package org.subgraphexport.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.subgraphexport.encode.FixtureStream;
import org.subgraphexport.wire.Format;

/**
 * The streaming example of docs/streaming-api.md, as a user copies it: the {@code ```java} block under its title,
 * compiled with {@code --release 17} against the client's classes, the wire spec and jackson-core alone, run on an
 * export file of the fixture in every format; it must print the counts the record API finds in the same file.
 */
class StreamingExampleTest {
    private static final Path DOC = Path.of("..", "docs", "streaming-api.md");

    @TempDir
    Path dir;

    @ParameterizedTest
    @ClientFormats
    void readmeStreamingExampleCompilesForJava17AndCountsWhatTheRecordApiFinds(Format format) throws Exception {
        Path source = dir.resolve("StreamingExample.java");
        Files.writeString(source, javaBlock("# The streaming client API"));
        String classpath = String.join(File.pathSeparator, jar(ExportParser.class), jar(Format.class),
                jar(JsonToken.class));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int rc = javac.run(null, null, errors, "--release", "17", "-cp", classpath, "-d", dir.toString(),
                source.toString());
        assertEquals(0, rc, errors.toString(StandardCharsets.UTF_8));

        byte[] bytes = FixtureStream.compact().bytes(format);
        Path export = dir.resolve("export." + format.pathSegment());
        Files.write(export, bytes);
        Subgraph s = Streams.decode(format, bytes);
        long longs = 0;
        for (ExportNode n : s.nodes().values()) {
            longs += n.properties().values().stream().filter(v -> v instanceof Long).count();
        }
        for (ExportRelationship r : s.relationships().values()) {
            longs += r.properties().values().stream().filter(v -> v instanceof Long).count();
        }
        assertTrue(longs > 0, "the fixture has long values");

        PrintStream out = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()},
                getClass().getClassLoader())) {
            System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
            loader.loadClass("StreamingExample").getMethod("main", String[].class)
                    .invoke(null, (Object) new String[] {export.toUri().toString()});
        } finally {
            System.setOut(out);
        }
        assertEquals(s.nodes().size() + " nodes, " + s.relationships().size() + " relationships, " + longs
                + " long values\n", printed.toString(StandardCharsets.UTF_8));
    }

    /** The body of the first {@code ```java} block after the line {@code heading} in docs/streaming-api.md. */
    private static String javaBlock(String heading) throws IOException {
        List<String> lines = Files.readAllLines(DOC, StandardCharsets.UTF_8);
        int h = lines.indexOf(heading);
        assertTrue(h >= 0, () -> DOC + " has no line " + heading);
        int start = h + 1;
        while (!lines.get(start).strip().equals("```java")) {
            assertTrue(!lines.get(start).startsWith("#"), () -> "no ```java block under " + heading);
            start++;
        }
        StringBuilder java = new StringBuilder();
        for (int i = start + 1; !lines.get(i).strip().equals("```"); i++) {
            java.append(lines.get(i)).append('\n');
        }
        return java.toString();
    }

    /** The class folder or jar {@code c} was loaded from. */
    private static String jar(Class<?> c) throws URISyntaxException {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
