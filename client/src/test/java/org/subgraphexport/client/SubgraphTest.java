package org.subgraphexport.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What {@link Subgraph#read} refuses in a stream, each with the message that names the record at fault. */
class SubgraphTest {
    private static final String HEADER = "{\"record\":\"header\",\"version\":1,\"database\":\"neo4j\",\"root\":\"\"}";
    private static final String COLUMNS = "{\"record\":\"columns\",\"names\":[\"p\"]}";
    private static final String ANN = "{\"record\":\"node\",\"id\":\"4:db:0\",\"labels\":[],\"properties\":{}}";
    private static final String BOB = "{\"record\":\"node\",\"id\":\"4:db:1\",\"labels\":[],\"properties\":{}}";
    private static final String KNOWS = "{\"record\":\"relationship\",\"id\":\"5:db:7\",\"type\":\"KNOWS\","
            + "\"start\":\"4:db:0\",\"end\":\"4:db:1\",\"properties\":{}}";

    private static Subgraph read(String... records) throws IOException {
        String json = "[" + String.join(",", records) + "]";
        try (ExportReader reader = ExportReader.open(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)))) {
            return Subgraph.read(reader);
        }
    }

    @Test
    void aRelationshipBeforeEitherEndNodeNamesThatNode() {
        assertEquals("relationship 5:db:7 before its end node 4:db:1",
                assertThrows(CorruptStreamException.class, () -> read(HEADER, ANN, KNOWS)).getMessage());
        assertEquals("relationship 5:db:7 before its end node 4:db:0",
                assertThrows(CorruptStreamException.class, () -> read(HEADER, BOB, KNOWS)).getMessage());
    }

    @Test
    void aDeltaStreamIsAppliedToAnExportNotReadAsOne() {
        String deltaHeader = "{\"record\":\"header\",\"version\":2,\"database\":\"neo4j\",\"root\":\"4:db:0\","
                + "\"state\":\"db:45\",\"partition\":0,\"partitions\":1,\"since\":\"db:42\"}";
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> read(deltaHeader, "{\"record\":\"left\",\"relationship\":\"5:db:7\"}",
                        "{\"record\":\"end\",\"nodes\":0,\"relationships\":0,\"truncated\":false,\"state\":\"db:45\"}"));
        assertEquals("a delta stream is applied to an export: Delta.apply", e.getMessage());
    }

    @Test
    void aPathInARowMustNameNodesAlreadyRead() throws IOException {
        String end = "{\"record\":\"end\",\"nodes\":2,\"relationships\":1,\"truncated\":false,\"rows\":1}";
        Subgraph ok = read(HEADER, COLUMNS, ANN, BOB, KNOWS, "{\"record\":\"row\",\"values\":[{\"path\":{\"nodes\":"
                + "[\"4:db:0\",\"4:db:1\"],\"relationships\":[\"5:db:7\"]}}]}", end);
        assertEquals(1, ok.rows().size());
        CorruptStreamException unknown = assertThrows(CorruptStreamException.class, () -> read(HEADER, COLUMNS, ANN,
                "{\"record\":\"row\",\"values\":[{\"path\":{\"nodes\":[\"4:db:9\"],\"relationships\":[]}}]}", end));
        assertEquals("row 0 refers to node 4:db:9 before its node record", unknown.getMessage());
    }
}
