package org.subgraphexport.format;

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
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pins every format against a golden file of the {@link FixtureStream#compact() compact fixture} in
 * {@code src/test/resources/golden/fixture.<format>}: binary formats byte for byte, JSON semantically (both parsed
 * into trees of maps, lists and numbers, so whitespace and number spelling do not matter).
 *
 * <p>A change to these files is a change of the wire format: bump {@link Wire#VERSION} unless it is a pure
 * writer-side re-encoding that old decoders read identically. To regenerate after an intended change, run
 * {@code mvn -DbuildDir=target-fmt test -Dtest=GoldenFilesTest -Dgolden.update=true}, then review the diff
 * (the JSON one is readable) and commit the files.
 */
class GoldenFilesTest {
    private static final Path DIR = Path.of("src", "test", "resources", "golden");

    @ParameterizedTest
    @EnumSource(Format.class)
    void matchesGoldenFile(Format format) throws IOException {
        byte[] actual = FixtureStream.compact().bytes(format);
        Path file = DIR.resolve("fixture." + format.pathSegment());
        if (Boolean.getBoolean("golden.update")) {
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

    private static Object tree(byte[] json) throws IOException {
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
