package org.subgraphexport.client.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.subgraphexport.client.CorruptStreamException;
import org.subgraphexport.client.ExportRequestException;
import org.subgraphexport.wire.Format;

/**
 * What the client makes of a refused request's body (the server's or Neo4j's JSON error, or text), and how it tells
 * a stream's format from its first bytes when no Content-Type names it.
 */
class DecodersTest {
    private static ExportRequestException refused(String body) {
        return Decoders.refused(503, new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)));
    }

    private static void assertRefused(String code, String message, ExportRequestException e) {
        assertEquals(503, e.status());
        assertEquals(code, e.code());
        assertEquals(message, e.getMessage());
    }

    @Test
    void aJsonErrorBodyGivesItsCodeAndMessage() {
        assertRefused("Export.RootNotFound", "no node",
                refused("{\"status\":404,\"code\":\"Export.RootNotFound\",\"message\":\"no node\"}"));
        assertRefused("A", "", refused("{\"code\":\"A\"}"));
        assertRefused(null, "only a message", refused("{\"message\":\"only a message\"}"));
        // a value that is an object is skipped whole: its own code and message are not the body's
        assertRefused("A", "m", refused("{\"data\":{\"code\":\"X\",\"message\":\"inner\"},\"code\":\"A\",\"message\":\"m\"}"));
        assertRefused(null, "{\"other\":1}", refused("{\"other\":1}"));
    }

    @Test
    void neo4jsErrorsGiveTheFirstErrorsCodeAndTheRestOfTheBodyIsStillRead() {
        assertRefused("Neo.ClientError.Security.Unauthorized", "No authentication header supplied.",
                refused("{\"errors\":[{\"code\":\"Neo.ClientError.Security.Unauthorized\","
                        + "\"message\":\"No authentication header supplied.\"}]}"));
        // the later errors (here with an array inside) are skipped to the list's end, and the fields after it read
        assertRefused("Neo.A", "top", refused("{\"errors\":[{\"code\":\"Neo.A\"},{\"code\":\"B\",\"data\":[1,[2]]},"
                + "{\"code\":\"C\"}],\"message\":\"top\"}"));
    }

    @Test
    void otherBodiesGiveTheirTextUpTo1000Characters() {
        String exactly = "x".repeat(Decoders.MAX_ERROR_TEXT);
        assertRefused(null, exactly, refused("  " + exactly + "\n"));
        assertRefused(null, exactly + "...", refused(exactly + "y"));
        assertRefused(null, "HTTP 503", refused(""));
        assertRefused(null, "HTTP 503", Decoders.refused(503, null));
        assertRefused(null, "{\"errors\":[1", refused("{\"errors\":[1"));
    }

    @Test
    void aBodyThatCannotBeReadSaysSoAndCarriesTheReason() {
        IOException gone = new IOException("connection reset");
        InputStream failing = new InputStream() {
            @Override
            public int read() throws IOException {
                throw gone;
            }
        };
        ExportRequestException e = Decoders.refused(502, failing);
        assertEquals(502, e.status());
        assertNull(e.code());
        assertEquals("HTTP 502; the error body could not be read: java.io.IOException: connection reset", e.getMessage());
        assertArrayEquals(new Throwable[] {gone}, e.getSuppressed());
    }

    private static Format detect(byte[] bytes) throws IOException {
        return Decoders.detect(new Source(new ByteArrayInputStream(bytes)));
    }

    @Test
    void jsonIsDetectedAfterAtMost4095BytesOfWhitespace() throws IOException {
        String spaces = " \t\r\n".repeat(Decoders.MAX_LEADING_WHITESPACE / 4);
        assertEquals(Format.JSON, detect((spaces.substring(1) + "[{}]").getBytes(StandardCharsets.UTF_8)));
        CorruptStreamException tooMany =
                assertThrows(CorruptStreamException.class, () -> detect((spaces + "[{}]").getBytes(StandardCharsets.UTF_8)));
        assertTrue(tooMany.getMessage().startsWith("not an export stream: it starts with 20 09 0d 0a 20"),
                tooMany.getMessage());
        byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, ' ', '['};
        assertEquals(Format.JSON, detect(bom));
    }

    @Test
    void aStreamOfNoBytesIsEmptyAndAZeroByteIsNot() {
        CorruptStreamException empty = assertThrows(CorruptStreamException.class, () -> detect(new byte[0]));
        assertEquals("empty stream (0 bytes read): no export format to detect", empty.getMessage());
        CorruptStreamException zero = assertThrows(CorruptStreamException.class, () -> detect(new byte[] {0, 1}));
        assertTrue(zero.getMessage().startsWith("not an export stream: it starts with 00 01, none of kryo"),
                zero.getMessage());
    }

    @Test
    void aContentTypeNamesAFormatByItsMediaTypeWhateverItsParametersAndCase() {
        assertEquals(Format.JSON, Decoders.ofMediaType("Application/JSON; charset=utf-8").orElseThrow());
        assertEquals(Format.KRYO, Decoders.ofMediaType(Format.KRYO.mediaType()).orElseThrow());
        assertTrue(Decoders.ofMediaType(";" + Format.KRYO.mediaType()).isEmpty(), "nothing before the parameters");
        assertTrue(Decoders.ofMediaType("text/plain").isEmpty());
    }
}
