package org.subgraphexport.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import de.undercouch.bson4jackson.BsonFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.subgraphexport.client.CorruptStreamException;
import org.subgraphexport.client.ExportEnd;
import org.subgraphexport.client.ExportHeader;
import org.subgraphexport.client.Streams;
import org.subgraphexport.client.Subgraph;
import org.subgraphexport.wire.Format;

/**
 * {@link TokenParser} (JSON and BSON) on hand-written records: the version 2 header's partition fields at their
 * bounds, with the exact error of each refusal. HostileInputTest checks that hostile records fail as corrupt; these
 * pin which are accepted and what the refusal says.
 */
class TokenParserTest {
    private static final String END = ",{\"record\":\"end\",\"nodes\":0,\"relationships\":0,\"truncated\":false,"
            + "\"state\":\"s1\"}]";

    private static String header(String partitionFields) {
        return "[{\"record\":\"header\",\"version\":2,\"database\":\"db\",\"root\":\"\",\"state\":\"s1\""
                + partitionFields + "}";
    }

    /** JSON records as {@code format}: JSON as is, BSON one document per record. */
    private static byte[] encode(Format format, String json) {
        if (format == Format.JSON) {
            return json.getBytes(StandardCharsets.UTF_8);
        }
        try (JsonParser p = new JsonFactory().createParser(json)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            JsonGenerator g = new BsonFactory().createGenerator(out);
            p.nextToken();
            while (p.nextToken() == JsonToken.START_OBJECT) {
                g.copyCurrentStructure(p);
                g.flush();
            }
            g.close();
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void assertCorrupt(Format format, String expectedPart, String json) {
        CorruptStreamException e = assertThrows(CorruptStreamException.class,
                () -> Streams.decode(format, encode(format, json)));
        assertTrue(e.getMessage().contains(expectedPart), () -> "expected '" + expectedPart + "' in: " + e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(value = Format.class, names = {"JSON", "BSON"})
    void partitionsAreReadWithinTheirBounds(Format format) throws IOException {
        for (long[] ok : new long[][] {{0, 1}, {1, 2}, {2, 3}, {Integer.MAX_VALUE - 1, Integer.MAX_VALUE}}) {
            Subgraph s = Streams.decode(format, encode(format,
                    header(",\"partition\":" + ok[0] + ",\"partitions\":" + ok[1]) + END));
            assertEquals(new ExportHeader(2, "db", "", "s1", (int) ok[0], (int) ok[1], ""), s.header());
            assertEquals(new ExportEnd(0, 0, false, 0, "s1"), s.end());
        }
        assertCorrupt(format, "partition 1 of 1", header(",\"partition\":1,\"partitions\":1") + END);
        assertCorrupt(format, "partition 3 of 2", header(",\"partition\":3,\"partitions\":2") + END);
        assertCorrupt(format, "integer -1 outside 0..2147483646", header(",\"partition\":-1,\"partitions\":2") + END);
        assertCorrupt(format, "integer 2147483647 outside 0..2147483646",
                header(",\"partition\":2147483647,\"partitions\":2") + END);
        assertCorrupt(format, "integer 0 outside 1..2147483647", header(",\"partition\":0,\"partitions\":0") + END);
        assertCorrupt(format, "integer 2147483648 outside 1..2147483647",
                header(",\"partition\":0,\"partitions\":2147483648") + END);
        assertCorrupt(format, "header without 'partition' and 'partitions'", header(",\"partitions\":2") + END);
        assertCorrupt(format, "header without 'partition' and 'partitions'", header(",\"partition\":0") + END);
        assertCorrupt(format, "header without 'partition' and 'partitions'", header("") + END);
    }

    @ParameterizedTest
    @EnumSource(value = Format.class, names = {"JSON", "BSON"})
    void aDeltaHeaderNamesItsEarlierState(Format format) throws IOException {
        Subgraph s = Streams.decode(format, encode(format,
                header(",\"partition\":0,\"partitions\":1,\"since\":\"s0\"") + END));
        assertEquals(new ExportHeader(2, "db", "", "s1", 0, 1, "s0"), s.header());
    }

    @ParameterizedTest
    @EnumSource(value = Format.class, names = {"JSON", "BSON"})
    void theEndRecordsFields(Format format) throws IOException {
        String head = header(",\"partition\":0,\"partitions\":1");
        String rowsHead = head + ",{\"record\":\"columns\",\"names\":[\"a\"]}";
        assertEquals(new ExportEnd(0, 0, true, 0, "s2"), Streams.decode(format, encode(format, head
                + ",{\"record\":\"end\",\"nodes\":0,\"relationships\":0,\"truncated\":true,\"state\":\"s2\"}]"))
                .end());
        assertEquals(new ExportEnd(0, 0, false, 0, "s1"), Streams.decode(format, encode(format, rowsHead
                + ",{\"record\":\"end\",\"nodes\":0,\"relationships\":0,\"truncated\":false,\"rows\":0,"
                + "\"state\":\"s1\"}]")).end());
        assertCorrupt(format, "end record without counts", head
                + ",{\"record\":\"end\",\"relationships\":0,\"truncated\":false,\"state\":\"s1\"}]");
        assertCorrupt(format, "end record without counts", head
                + ",{\"record\":\"end\",\"nodes\":0,\"truncated\":false,\"state\":\"s1\"}]");
        assertCorrupt(format, "end record of a rows stream without 'rows'", rowsHead
                + ",{\"record\":\"end\",\"nodes\":0,\"relationships\":0,\"truncated\":false,\"state\":\"s1\"}]");
        assertCorrupt(format, "record without 'state'", head
                + ",{\"record\":\"end\",\"nodes\":0,\"relationships\":0,\"truncated\":false}]");
        assertCorrupt(format, "record without 'truncated'", head
                + ",{\"record\":\"end\",\"nodes\":0,\"relationships\":0,\"state\":\"s1\"}]");
    }
}
