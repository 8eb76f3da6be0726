package org.subgraphexport.encode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.TokenNames;

/**
 * docs/wire-format.md section 5, "Worked example", is this writer's output: the graph stream in Kryo, Kryo + LZF and
 * JSON, and its BSON header and end documents, byte for byte. A change here is a change of that section.
 */
class WorkedExampleTest {
    static final String STATE = "db:42";
    private static final List<String> LABELS = List.of("Person");
    private static final List<String> TYPES = List.of("KNOWS");
    private static final List<String> KEYS = List.of("name", "age", "since");

    static byte[] example(Format format) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = Encoders.open(format, out);
        w.header(new Header("neo4j", "4:db:0", "4:db:", "5:db:", STATE, 0, 1), tokens());
        w.beginNode(0, new int[] {0}, 1);
        w.property(0);
        w.writeString("Ann");
        w.property(1);
        w.writeLong(42);
        w.endNode();
        w.beginNode(1, new int[] {0}, 1);
        w.property(0);
        w.writeString("Bob");
        w.property(1);
        w.writeInt(-3);
        w.endNode();
        w.beginRelationship(7, 0, 0, 1);
        w.property(2);
        w.writeDate(LocalDate.of(2020, 1, 31));
        w.endRelationship();
        w.end(2, 1, false, STATE);
        w.finish();
        return out.toByteArray();
    }

    /**
     * Section 5's delta example: since {@code db:42}, at {@code db:45}, node 1 changed ({@code age} -4), relationship 8
     * joined, relationship 7 left.
     */
    static byte[] delta(Format format) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = Encoders.open(format, out);
        w.header(new Header("neo4j", "4:db:0", "4:db:", "5:db:", "db:45", 0, 1, STATE), tokens());
        w.beginNode(1, new int[] {0}, 1);
        w.property(0);
        w.writeString("Bob");
        w.property(1);
        w.writeInt(-4);
        w.endNode();
        w.beginRelationship(8, 0, 0, 1);
        w.endRelationship();
        w.leftRelationship(7);
        w.end(1, 1, false, "db:45");
        w.finish();
        return out.toByteArray();
    }

    @Test
    void deltaKryo() throws IOException {
        String kryo = HexFormat.of().formatHex(delta(Format.KRYO));
        assertEquals("53475802" + "01" + "056e656f346a" + "06343a64623a30" + "05343a64623a" + "05353a64623a"
                + "0564623a3435" + "00" + "01"
                + "08" + "0564623a3432"
                + "02" + "01" + "01" + "0006506572736f6e" + "0100046e616d65" + "0903426f62" + "010103616765" + "0407"
                + "00"
                + "0308" + "00054b4e4f5753" + "0001" + "00"
                + "0a07"
                + "04010100" + "0564623a3435", kryo);
        assertEquals(101, kryo.length() / 2);
    }

    @Test
    void deltaJson() throws IOException {
        String json = new String(delta(Format.JSON), StandardCharsets.UTF_8);
        assertEquals("[{\"record\":\"header\",\"version\":2,\"database\":\"neo4j\",\"root\":\"4:db:0\",\"state\":\"db:45\","
                + "\"partition\":0,\"partitions\":1,\"since\":\"db:42\"},{\"record\":\"node\",\"id\":\"4:db:1\",\"labels\":"
                + "[\"Person\"],\"properties\":{\"name\":\"Bob\",\"age\":{\"int\":-4}}},{\"record\":\"relationship\","
                + "\"id\":\"5:db:8\",\"type\":\"KNOWS\",\"start\":\"4:db:0\",\"end\":\"4:db:1\",\"properties\":{}},"
                + "{\"record\":\"left\",\"relationship\":\"5:db:7\"},"
                + "{\"record\":\"end\",\"nodes\":1,\"relationships\":1,\"truncated\":false,\"state\":\"db:45\"}]", json);
    }

    @Test
    void deltaBsonHeaderAndLeft() throws IOException {
        String bson = HexFormat.of().formatHex(delta(Format.BSON));
        String header = "8b000000" + "027265636f7264000700000068656164657200" + "1076657273696f6e0002000000"
                + "02646174616261736500060000006e656f346a00" + "02726f6f740007000000343a64623a3000"
                + "027374617465000600000064623a343500" + "10706172746974696f6e0000000000"
                + "10706172746974696f6e730001000000" + "0273696e6365000600000064623a343200" + "00";
        String left = "2f000000" + "027265636f726400050000006c65667400"
                + "0272656c6174696f6e736869700007000000353a64623a3700" + "00";
        assertEquals(header, bson.substring(0, header.length()));
        assertTrue(bson.contains(left), bson);
    }

    private static TokenNames tokens() {
        return new TokenNames() {
            @Override
            public String label(int id) {
                return LABELS.get(id);
            }

            @Override
            public String relationshipType(int id) {
                return TYPES.get(id);
            }

            @Override
            public String propertyKey(int id) {
                return KEYS.get(id);
            }
        };
    }

    @Test
    void kryo() throws IOException {
        byte[] kryo = example(Format.KRYO);
        assertEquals("53475802" + "01" + "056e656f346a" + "06343a64623a30" + "05343a64623a" + "05353a64623a"
                + "0564623a3432" + "00" + "01"
                + "02" + "00" + "01" + "0006506572736f6e" + "0100046e616d65" + "0903416e6e" + "0101036167" + "65"
                + "0554" + "00"
                + "02010100" + "01000903426f62" + "01010405" + "00"
                + "0307" + "00054b4e4f5753" + "0001" + "010205" + "73696e6365" + "0de89d02" + "00"
                + "04020100" + "0564623a3432", HexFormat.of().formatHex(kryo));
        assertEquals(120, kryo.length);
        byte[] lzf = example(Format.KRYO_LZF);
        assertEquals("5a560000" + "78" + HexFormat.of().formatHex(kryo), HexFormat.of().formatHex(lzf));
    }

    @Test
    void json() throws IOException {
        String json = new String(example(Format.JSON), StandardCharsets.UTF_8);
        assertEquals("[{\"record\":\"header\",\"version\":2,\"database\":\"neo4j\",\"root\":\"4:db:0\",\"state\":\"db:42\","
                + "\"partition\":0,\"partitions\":1},{\"record\":\"node\",\"id\":\"4:db:0\",\"labels\":[\"Person\"],"
                + "\"properties\":{\"name\":\"Ann\",\"age\":42}},{\"record\":\"node\",\"id\":\"4:db:1\",\"labels\":"
                + "[\"Person\"],\"properties\":{\"name\":\"Bob\",\"age\":{\"int\":-3}}},{\"record\":\"relationship\","
                + "\"id\":\"5:db:7\",\"type\":\"KNOWS\",\"start\":\"4:db:0\",\"end\":\"4:db:1\",\"properties\":"
                + "{\"since\":{\"date\":\"2020-01-31\"}}},{\"record\":\"end\",\"nodes\":2,\"relationships\":1,"
                + "\"truncated\":false,\"state\":\"db:42\"}]", json);
        assertEquals(510, json.length());
    }

    @Test
    void bsonHeaderAndEnd() throws IOException {
        String bson = HexFormat.of().formatHex(example(Format.BSON));
        String header = "7a000000" + "027265636f7264000700000068656164657200" + "1076657273696f6e0002000000"
                + "02646174616261736500060000006e656f346a00" + "02726f6f740007000000343a64623a3000"
                + "027374617465000600000064623a343200" + "10706172746974696f6e0000000000"
                + "10706172746974696f6e730001000000" + "00";
        String end = "58000000" + "027265636f72640004000000656e6400" + "126e6f6465730002000000" + "00000000"
                + "1272656c6174696f6e73686970730001000000" + "00000000" + "087472756e636174656400" + "00"
                + "027374617465000600000064623a343200" + "00";
        assertEquals(header, bson.substring(0, header.length()));
        assertEquals(end, bson.substring(bson.length() - end.length()));
        assertEquals(2 * 577, bson.length());
    }
}
