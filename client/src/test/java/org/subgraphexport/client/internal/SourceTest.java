package org.subgraphexport.client.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

/**
 * The decoder's view of the caller's stream: bytes peeked (format detection) are read again and counted once, the
 * count is exact whichever read method is used, {@code available} includes what was peeked, and the stream's own
 * failures are told apart from others.
 */
class SourceTest {
    /** Bytes 0, 1, ..., n - 1 as (byte) values, so byte 200 reads as 200 and byte 0 as 0. */
    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) i;
        return b;
    }

    /** Delivers at most {@code step} bytes a read, and answers 0 to every other multi-byte read (as a socket may). */
    private static InputStream trickle(byte[] data, int step) {
        return new InputStream() {
            int pos;
            boolean zero;

            @Override
            public int read() {
                return pos < data.length ? data[pos++] & 0xFF : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (pos == data.length) return -1;
                zero = !zero;
                if (zero || len == 0) return 0;
                int n = Math.min(step, Math.min(len, data.length - pos));
                System.arraycopy(data, pos, b, off, n);
                pos += n;
                return n;
            }

            @Override
            public int available() {
                return data.length - pos;
            }
        };
    }

    @Test
    void peekedBytesAreReadAgainAndCountedOnce() throws IOException {
        byte[] data = bytes(256);
        Source source = new Source(trickle(data, 3));
        assertEquals(0, source.peek(0), "byte 0, which a single-byte read delivers after a read of 0");
        assertEquals(20, source.peek(20), "past the first 16 bytes of look-ahead");
        assertEquals(5, source.peek(5));
        assertArrayEquals(new byte[] {0, 1, 2, 3}, source.peeked(4));
        assertEquals(0, source.count(), "peeking reads nothing");

        assertEquals(0, source.read());
        assertEquals(1, source.read());
        assertEquals(2, source.count());
        assertEquals(2, source.peek(0), "what is not read yet");
        assertEquals(30, source.peek(28), "further than the look-ahead held, after reads");
        byte[] buffer = new byte[10];
        assertEquals(0, source.read(buffer, 0, 0), "a read of 0 bytes consumes nothing");
        assertEquals(10, source.read(buffer, 0, 10));
        assertArrayEquals(new byte[] {2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, buffer);
        assertEquals(12, source.count());

        byte[] rest = new byte[300];
        int n = 0;
        while (n < 244) {
            int r = source.read(rest, n, rest.length - n);
            assertTrue(r >= 0, "the stream ends after byte 255");
            n += r;
        }
        assertEquals(244, n);
        for (int i = 0; i < 244; i++) assertEquals((byte) (12 + i), rest[i]);
        assertEquals(256, source.count());
        assertEquals(-1, source.read());
        assertEquals(-1, source.read(rest, 0, 1));
        assertEquals(-1, source.peek(0));
        assertEquals(256, source.count(), "the end is not counted");
    }

    @Test
    void singleByteReadsCountEveryByteAndReturnItUnsigned() throws IOException {
        Source source = new Source(new ByteArrayInputStream(new byte[] {0, (byte) 200, (byte) 255}));
        assertEquals(200, source.peek(1));
        assertEquals(0, source.read());
        assertEquals(200, source.read());
        assertEquals(2, source.count());
        assertEquals(255, source.read(), "the last byte peeked");
        assertEquals(3, source.count());
        assertEquals(-1, source.read());
        assertEquals(3, source.count());

        Source direct = new Source(new ByteArrayInputStream(new byte[] {0, 7}));
        assertEquals(0, direct.read(), "byte 0 from the stream is a byte, not the end");
        assertEquals(1, direct.count());
    }

    @Test
    void aPeekPastTheEndIsMinusOneAndKeepsWhatWasRead() throws IOException {
        Source source = new Source(trickle(bytes(5), 2));
        assertEquals(-1, source.peek(5));
        assertEquals(4, source.peek(4));
        assertArrayEquals(bytes(5), source.peeked(100));
        assertArrayEquals(new byte[0], new Source(new ByteArrayInputStream(new byte[0])).peeked(4), "nothing peeked");
    }

    @Test
    void availableCountsThePeekedBytesAndTheStreams() throws IOException {
        Source source = new Source(new ByteArrayInputStream(bytes(100)));
        assertEquals(100, source.available());
        assertEquals(9, source.peek(9)); // reads ahead the 16 bytes of the first look-ahead
        assertEquals(100, source.available());
        assertEquals(0, source.read());
        assertEquals(99, source.available());
        assertEquals(15, source.read(new byte[50], 0, 50), "a read takes the peeked bytes first, and only them");
        assertEquals(84, source.available());
    }

    @Test
    void theStreamsOwnFailuresAreRecognisedWhereverTheyAreWrapped() throws IOException {
        IOException broken = new IOException("broken");
        InputStream failing = new InputStream() {
            @Override
            public int read() throws IOException {
                throw broken;
            }

            @Override
            public int available() throws IOException {
                throw broken;
            }
        };
        Source source = new Source(failing);
        IOException other = new IOException("another");
        assertFalse(source.threw(other), "nothing failed yet");
        assertSame(broken, assertThrows(IOException.class, source::read));
        assertTrue(source.threw(broken));
        assertTrue(source.threw(new RuntimeException(new IllegalStateException(broken))), "as a cause");
        assertFalse(source.threw(other));
        assertFalse(source.threw(null));
        assertSame(broken, assertThrows(IOException.class, () -> source.read(new byte[4], 0, 4)));
        assertSame(broken, assertThrows(IOException.class, () -> source.peek(0)));
        assertSame(broken, assertThrows(IOException.class, source::available));
        assertEquals(0, source.count());
    }
}
