package org.subgraphexport.encode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.subgraphexport.client.ClientFormats;
import org.subgraphexport.wire.Format;

/**
 * Pins every format against golden files in {@code src/test/resources/golden}: {@code fixture.<format>} of the
 * {@link FixtureStream#compact() compact fixture} (a graph stream) and {@code rows.<format>} of the
 * {@link RowsFixture#standard() rows fixture} (a rows stream, not in {@code arrow}); binary formats byte for byte, JSON semantically
 * (both parsed into trees of maps, lists and numbers, so whitespace and number spelling do not matter).
 *
 * <p>A change to these files is a change of the wire format: bump {@link Wire#VERSION} unless it is a pure
 * writer-side re-encoding that old decoders read identically. To regenerate after an intended change, run
 * {@code mvn -DbuildDir=target-fmt test -Dtest=GoldenFilesTest -Dgolden.update=true} (or
 * {@code -Dgolden.update=rows} for the rows files only, {@code =fixture} for the graph ones, {@code =partitioned} for
 * {@link PartitionedFixture}'s), then review the
 * diff (the JSON one is readable) and commit the files.
 */
class GoldenFilesTest {
    private static final Path DIR = Path.of("src", "test", "resources", "golden");

    @ParameterizedTest
    @EnumSource(Format.class)
    void matchesGoldenFile(Format format) throws IOException {
        compare(format, "fixture", FixtureStream.compact().bytes(format));
    }

    @ParameterizedTest
    @ClientFormats(rows = true)  // arrow carries no rows
    void rowsMatchGoldenFile(Format format) throws IOException {
        compare(format, "rows", RowsFixture.standard().bytes(format));
    }

    /** {@link PartitionedFixture}: the single stream and its three partitions, for the Python package's join. */
    @ParameterizedTest
    @CsvSource({"0, 1", "0, 3", "1, 3", "2, 3"})
    void partitionsMatchGoldenFiles(int partition, int partitions) throws IOException {
        compare(Format.ARROW, "partitioned-" + partition + "-of-" + partitions,
                PartitionedFixture.partition(partition, partitions));
    }

    private static void compare(Format format, String name, byte[] actual) throws IOException {
        Path file = DIR.resolve(name + "." + format.pathSegment());
        String update = System.getProperty("golden.update", "false");
        if (update.equals("true") || update.equals(name.startsWith("partitioned") ? "partitioned" : name)) {
            Files.createDirectories(DIR);
            Files.write(file, actual);
        }
        assertTrue(Files.exists(file), file + " missing; generate it with -Dgolden.update=true");
        byte[] expected = Files.readAllBytes(file);
        if (format == Format.JSON) {
            assertEquals(tree(expected), tree(actual));
        } else {
            assertArrayEquals(expected, actual, "differs from " + file);
        }
    }

    static Object tree(byte[] json) throws IOException {
        try (JsonParser p = new JsonFactory().createParser(json)) {
            Object tree = value(p, p.nextToken());
            assertEquals(null, p.nextToken(), "content after the JSON value");
            return tree;
        }
    }

    private static Object value(JsonParser p, JsonToken t) throws IOException {
        switch (t) {
            case START_OBJECT -> {
                Map<String, Object> m = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    m.put(name, value(p, p.nextToken()));
                }
                return m;
            }
            case START_ARRAY -> {
                List<Object> l = new ArrayList<>();
                for (JsonToken e; (e = p.nextToken()) != JsonToken.END_ARRAY; ) {
                    l.add(value(p, e));
                }
                return l;
            }
            case VALUE_NUMBER_INT -> {
                return p.getBigIntegerValue();
            }
            case VALUE_NUMBER_FLOAT -> {
                return p.getDoubleValue();
            }
            case VALUE_STRING -> {
                return p.getText();
            }
            case VALUE_TRUE, VALUE_FALSE -> {
                return t == JsonToken.VALUE_TRUE;
            }
            case VALUE_NULL -> {
                return "null";
            }
            default -> throw new IllegalStateException("unexpected " + t);
        }
    }
}
