package org.subgraphexport.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.junit.jupiter.params.ParameterizedTest;
import org.subgraphexport.encode.Encoders;
import org.subgraphexport.encode.FixtureStream;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;

/** The closing error record: the records before it are returned, then ExportFailedException. */
class ErrorRecordTest {
    @ParameterizedTest
    @ClientFormats
    void errorRecordRaisesExportFailedAfterThePrecedingRecords(Format format) throws IOException {
        FixtureStream fixture = FixtureStream.small();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = Encoders.open(format, out);
        fixture.write(w, fixture.tokens());
        w.error("Neo.ClientError.Foo", "boom");
        w.finish();

        try (ExportReader reader = ExportReader.open(format, new ByteArrayInputStream(out.toByteArray()))) {
            assertEquals(fixture.expected().header(), reader.header());
            assertInstanceOf(ExportNode.class, reader.next());
            assertInstanceOf(ExportNode.class, reader.next());
            ExportRelationship r = assertInstanceOf(ExportRelationship.class, reader.next());
            assertEquals(fixture.expected().relationships().values().iterator().next(), r);
            ExportFailedException e = assertThrows(ExportFailedException.class, reader::next);
            assertEquals("Neo.ClientError.Foo", e.code());
            assertEquals("boom", e.getMessage());
            assertSame(e, assertThrows(ExportFailedException.class, reader::next), "thrown again");
        }
    }

    @ParameterizedTest
    @ClientFormats
    void endRecordCountsAreChecked(Format format) throws IOException {
        FixtureStream fixture = FixtureStream.small();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = Encoders.open(format, out);
        fixture.write(w, fixture.tokens());
        w.end(5, 1, false);
        w.finish();
        CorruptStreamException e = assertThrows(CorruptStreamException.class,
                () -> Streams.decode(format, out.toByteArray()));
        assertTrue(e.getMessage().contains("5 nodes"), e.getMessage());
    }
}
