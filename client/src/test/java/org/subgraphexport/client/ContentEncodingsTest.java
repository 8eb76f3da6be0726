package org.subgraphexport.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/**
 * {@link ContentEncodings}: what is asked for, every coding undone (stacked ones last to first, names in any case
 * and spacing), the exact refusals, and the line between a corrupt body ({@link CorruptStreamException}) and a
 * failing one (its own exception, unchanged).
 */
class ContentEncodingsTest {
    private static final byte[] DATA = data();

    private static byte[] data() {
        byte[] b = new byte[100_000];
        Random random = new Random(5);
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (random.nextInt(4) == 0 ? random.nextInt() : 'a' + i % 7);
        }
        return b;
    }

    private static byte[] gzip(byte[] b) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream g = new GZIPOutputStream(out)) {
            g.write(b);
        }
        return out.toByteArray();
    }

    private static byte[] decode(String coding, byte[] body) throws IOException {
        try (InputStream in = ContentEncodings.decode(coding, new ByteArrayInputStream(body))) {
            return in.readAllBytes();
        }
    }

    /** Reads single bytes: the filters' one-byte read goes through their array read. */
    private static byte[] decodeByteByByte(String coding, byte[] body) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (InputStream in = ContentEncodings.decode(coding, new ByteArrayInputStream(body))) {
            for (int b; (b = in.read()) >= 0; ) {
                out.write(b);
            }
        }
        return out.toByteArray();
    }

    @Test
    void asksForZstdAndGzip() {
        assertEquals("zstd, gzip", ContentEncodings.acceptEncoding());
        assertEquals("zstd, gzip", ContentEncodings.request(URI.create("http://h/x")).build().headers()
                .firstValue("Accept-Encoding").orElseThrow());
    }

    @Test
    void identityLeavesTheBodyAsItIs() throws IOException {
        InputStream body = new ByteArrayInputStream(DATA);
        assertSame(body, ContentEncodings.decode(null, body));
        assertSame(body, ContentEncodings.decode("", body));
        assertSame(body, ContentEncodings.decode("identity", body));
        assertSame(body, ContentEncodings.decode(" Identity , ", body));
    }

    @Test
    void everyCodingIsUndoneLastFirst() throws IOException {
        byte[] gz = gzip(DATA);
        byte[] zst = Zstd.compress(DATA);
        assertArrayEquals(DATA, decode("gzip", gz));
        assertArrayEquals(DATA, decode("x-gzip", gz));
        assertArrayEquals(DATA, decode(" GZIP ", gz));
        assertArrayEquals(DATA, decode("zstd", zst));
        assertArrayEquals(DATA, decode("ZSTD", zst));
        assertArrayEquals(DATA, decode("gzip, zstd", Zstd.compress(gz)));
        assertArrayEquals(DATA, decode("zstd,gzip", gzip(zst)));
        assertArrayEquals(DATA, decode("identity, gzip", gz));
        assertArrayEquals(DATA, decodeByteByByte("gzip", gz));
        assertArrayEquals(DATA, decodeByteByByte("zstd", zst));
    }

    @Test
    void unknownCodingsAreRefused() {
        IOException e = assertThrows(IOException.class, () -> decode("br", DATA));
        assertEquals("unsupported Content-Encoding 'br': this client decodes gzip and zstd", e.getMessage());
        IOException second = assertThrows(IOException.class, () -> decode("Deflate, identity", DATA));
        assertEquals("unsupported Content-Encoding 'deflate': this client decodes gzip and zstd", second.getMessage());
    }

    @Test
    void corruptBodiesAreCorruptStreams() throws IOException {
        byte[] gz = gzip(DATA);
        byte[] zst = Zstd.compress(DATA);
        CorruptStreamException header = assertThrows(CorruptStreamException.class, () -> decode("gzip", DATA));
        assertTrue(header.getMessage().startsWith("the gzip body has no valid gzip header: "), header.getMessage());
        CorruptStreamException cut = assertThrows(CorruptStreamException.class,
                () -> decode("gzip", Arrays.copyOf(gz, gz.length / 2)));
        assertTrue(cut.getMessage().startsWith("the gzip body is truncated or corrupt: "), cut.getMessage());
        CorruptStreamException zcut = assertThrows(CorruptStreamException.class,
                () -> decode("zstd", Arrays.copyOf(zst, zst.length / 2)));
        assertTrue(zcut.getMessage().startsWith("the zstd body is truncated or corrupt: "), zcut.getMessage());
        CorruptStreamException empty = assertThrows(CorruptStreamException.class, () -> decode("zstd", new byte[0]));
        assertEquals("the zstd body is empty: not even a frame header", empty.getMessage());
        CorruptStreamException gzEmpty = assertThrows(CorruptStreamException.class, () -> decode("gzip", new byte[0]));
        assertTrue(gzEmpty.getMessage().startsWith("the gzip body has no valid gzip header: "), gzEmpty.getMessage());
    }

    @Test
    void aFailingBodyPassesUnchanged() throws IOException {
        byte[] gz = gzip(DATA);
        byte[] zst = Zstd.compress(DATA);
        for (String coding : new String[] {"gzip", "zstd"}) {
            byte[] body = coding.equals("gzip") ? gz : zst;
            for (int failAt : new int[] {0, body.length / 2}) {
                IOException reset = new IOException("connection reset");
                InputStream failing = new InputStream() {
                    private int at;

                    @Override
                    public int read() throws IOException {
                        throw new AssertionError("array reads only");
                    }

                    @Override
                    public int read(byte[] b, int off, int len) throws IOException {
                        if (at >= failAt) {
                            throw reset;
                        }
                        int n = Math.min(len, failAt - at);
                        System.arraycopy(body, at, b, off, n);
                        at += n;
                        return n;
                    }
                };
                IOException e = assertThrows(IOException.class, () -> {
                    try (InputStream in = ContentEncodings.decode(coding, failing)) {
                        in.readAllBytes();
                    }
                }, coding + " failing at " + failAt);
                assertSame(reset, e, coding + " failing at " + failAt);
            }
        }
    }
}
