package org.subgraphexport.encode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.ZstdInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Optional;
import java.util.Random;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/**
 * The HTTP content codings ({@link ContentCoding}) and their compressor ({@link AsyncBlockOutputStream#open}): the
 * names a request may use, and every byte written, in any pieces, around the 128 KiB block edges, read back by
 * zstd-jni and the JDK's gzip; writes after {@code finish} refused; a failing target's own exception surfaces.
 */
class ContentCodingTest {
    private static final int BLOCK = AsyncBlockOutputStream.CODING_BLOCK;

    @Test
    void namesAreReadCaseInsensitivelyWithXGzipForGzip() {
        assertEquals(Optional.of(ContentCoding.ZSTD), ContentCoding.of("zstd"));
        assertEquals(Optional.of(ContentCoding.ZSTD), ContentCoding.of("ZStd"));
        assertEquals(Optional.of(ContentCoding.GZIP), ContentCoding.of("GZIP"));
        assertEquals(Optional.of(ContentCoding.GZIP), ContentCoding.of("x-gzip"));
        assertEquals(Optional.of(ContentCoding.GZIP), ContentCoding.of("X-Gzip"));
        assertEquals(Optional.of(ContentCoding.IDENTITY), ContentCoding.of("Identity"));
        assertEquals(Optional.empty(), ContentCoding.of("br"));
        assertEquals(Optional.empty(), ContentCoding.of("gzip "));
        assertEquals(Optional.empty(), ContentCoding.of("x-zstd"));
        assertEquals("zstd", ContentCoding.ZSTD.token());
        assertEquals("gzip", ContentCoding.GZIP.token());
        assertEquals("identity", ContentCoding.IDENTITY.token());
        // zstd-jni is on this module's test class path and loads its native library here
        assertTrue(ContentCoding.ZSTD.available());
        assertTrue(ContentCoding.GZIP.available() && ContentCoding.IDENTITY.available());
        assertTrue(ZstdCoding.available());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> AsyncBlockOutputStream.open(ContentCoding.IDENTITY, new ByteArrayOutputStream(), 1));
        assertEquals("identity is no compression", e.getMessage());
    }

    private static byte[] data(int length) {
        byte[] b = new byte[length];
        Random random = new Random(length);
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (random.nextInt(3) == 0 ? random.nextInt() : 'a' + i % 11);
        }
        return b;
    }

    private static byte[] decode(ContentCoding coding, byte[] body) throws IOException {
        try (InputStream in = coding == ContentCoding.ZSTD ? new ZstdInputStream(new ByteArrayInputStream(body))
                : new GZIPInputStream(new ByteArrayInputStream(body))) {
            return in.readAllBytes();
        }
    }

    /** Writes {@code data} in pieces of {@code piece} bytes (1: the single-byte write), flushing after each. */
    private static byte[] encode(ContentCoding coding, byte[] data, int piece) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AsyncBlockOutputStream s = AsyncBlockOutputStream.open(coding, out, 3);
        for (int at = 0; at < data.length; at += piece) {
            if (piece == 1) {
                s.write(data[at]);
            } else {
                s.write(data, at, Math.min(piece, data.length - at));
            }
            s.flush();
        }
        s.finish();
        s.finish();  // a second finish is a no-op
        s.close();
        IOException e = assertThrows(IOException.class, () -> s.write(new byte[1], 0, 1));
        assertEquals("stream already finished", e.getMessage());
        return out.toByteArray();
    }

    @Test
    void everyByteComesBackAroundTheBlockEdges() throws IOException {
        for (ContentCoding coding : new ContentCoding[] {ContentCoding.ZSTD, ContentCoding.GZIP}) {
            for (int length : new int[] {0, 1, BLOCK - 1, BLOCK, BLOCK + 1, 5 * BLOCK + 7}) {
                byte[] data = data(length);
                byte[] whole = encode(coding, data, Math.max(1, length));
                assertArrayEquals(data, decode(coding, whole), coding + " " + length);
                // flush() does not cut a block: the same bytes in pieces are the same stream
                assertArrayEquals(whole, encode(coding, data, 1000), coding + " " + length + " in pieces");
            }
            byte[] small = data(300);
            assertArrayEquals(small, decode(coding, encode(coding, small, 1)), coding + " byte by byte");
        }
    }

    @Test
    void aFailingTargetsExceptionSurfacesToTheWriter() throws IOException {
        IOException gone = new IOException("the client went away");
        OutputStream failing = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw gone;
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                throw gone;
            }
        };
        for (ContentCoding coding : new ContentCoding[] {ContentCoding.ZSTD, ContentCoding.GZIP}) {
            AsyncBlockOutputStream s = AsyncBlockOutputStream.open(coding, failing, 3);
            byte[] data = data(8 * BLOCK);
            // from the write that next hands over or waits for a block, or from finish: the target's own exception
            IOException e = assertThrows(IOException.class, () -> {
                s.write(data, 0, data.length);
                s.finish();
            }, coding.toString());
            assertSame(gone, e, coding.toString());
        }
    }
}
