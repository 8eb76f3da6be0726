package org.subgraphexport.encode;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.subgraphexport.wire.Header;

/**
 * The JSON writer's element ids: a prefix of printable ASCII without a quote or a backslash (Neo4j's) is copied as
 * bytes, any other is escaped as every string is; either way Jackson must read back the prefix and the id exactly.
 */
class JsonGraphWriterTest {
    @Test
    void elementIdsOfEveryPrefixReadBackExactly() throws IOException {
        for (String prefix : List.of("4:db:", " ~:", "a\"b:", "a\\b:", "a\u0001b:", "a\u007fb:", "\u00e9:", "\u4e2d:",
                "")) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            JsonGraphWriter w = JsonGraphWriter.json(out);
            w.header(new Header("neo4j", prefix + 5, prefix, "r" + prefix, "s", 0, 1),
                    FixtureStream.tokens(new String[] {"L"}, new String[] {"T"}, new String[0]));
            w.beginNode(5, new int[] {0}, 1);
            w.endNode();
            w.beginRelationship(-7, 0, 5, Long.MAX_VALUE);
            w.endRelationship();
            w.end(1, 1, false, "s");
            w.finish();
            JsonNode records = new ObjectMapper().readTree(out.toByteArray());
            String p = prefix;
            assertEquals(prefix + 5, records.get(1).get("id").asText(), () -> "prefix " + p);
            assertEquals("r" + prefix + -7, records.get(2).get("id").asText(), () -> "prefix " + p);
            assertEquals(prefix + 5, records.get(2).get("start").asText(), () -> "prefix " + p);
            assertEquals(prefix + Long.MAX_VALUE, records.get(2).get("end").asText(), () -> "prefix " + p);
        }
    }
}
