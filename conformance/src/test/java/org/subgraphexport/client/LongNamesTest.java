package org.subgraphexport.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.subgraphexport.encode.Encoders;
import org.subgraphexport.encode.FixtureStream;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Header;

/**
 * Id prefixes, labels, types and property keys longer than the writers' first buffers (the BSON writer builds its
 * token names and prefixes in 64-byte templates that must grow), with non-ASCII chars, read back exactly by the
 * client in every format it decodes.
 */
class LongNamesTest {
    private static final String PREFIX = "4:" + "p".repeat(100) + "\u00e9:";
    private static final String REL_PREFIX = "5:" + "q".repeat(70) + ":";
    private static final String LABEL = "L".repeat(100) + "\u4e2d", TYPE = "T".repeat(90) + "\u00fc",
            KEY = "k".repeat(120) + "\u00df";

    @ParameterizedTest
    @ClientFormats
    void longTokenNamesAndPrefixesReadBackExactly(Format format) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = Encoders.open(format, out);
        w.header(new Header("neo4j", PREFIX + 1, PREFIX, REL_PREFIX, "s", 0, 1),
                FixtureStream.tokens(new String[] {LABEL}, new String[] {TYPE}, new String[] {KEY}));
        w.beginNode(1, new int[] {0}, 1);
        w.property(0);
        w.writeString("v");
        w.endNode();
        w.beginRelationship(2, 0, 1, 1);
        w.property(0);
        w.writeLong(-3);
        w.endRelationship();
        w.end(1, 1, false, "s");
        w.finish();
        List<ExportRecord> records = new ArrayList<>();
        try (ExportReader reader = ExportReader.open(format, new ByteArrayInputStream(out.toByteArray()))) {
            assertEquals(PREFIX + 1, reader.header().root());
            for (ExportRecord r; (r = reader.next()) != null; ) {
                records.add(r);
            }
        }
        assertEquals(new ExportNode(PREFIX + 1, List.of(LABEL), Map.of(KEY, "v")), records.get(0));
        assertEquals(new ExportRelationship(REL_PREFIX + 2, TYPE, PREFIX + 1, PREFIX + 1, Map.of(KEY, -3L)),
                records.get(1));
        assertEquals(new ExportEnd(1, 1, false, 0, "s"), records.get(2));
        assertEquals(3, records.size());
    }
}
