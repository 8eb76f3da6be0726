package org.subgraphexport.client.internal;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import org.subgraphexport.client.CorruptStreamException;

/**
 * The caller's stream, counting bytes and remembering its own failures, so that a decoder can tell an I/O error
 * of the source (passed on unchanged) from a decoding error about the bytes (a {@link CorruptStreamException}).
 * Before decoding starts, {@link #peek} looks at the first bytes (format detection) without consuming them: they
 * are read again, and counted, by the decoder.
 */
final class Source extends InputStream {
    private final InputStream in;
    private long count;
    private IOException failure;
    /** Bytes peeked and not yet read: {@code ahead[aheadPos..aheadEnd)}. */
    private byte[] ahead;
    private int aheadPos;
    private int aheadEnd;

    Source(InputStream in) {
        this.in = in;
    }

    long count() {
        return count;
    }

    /** True if {@code e}, or one of its causes, was thrown by the source stream. */
    boolean threw(Throwable e) {
        for (Throwable t = e; t != null && failure != null; t = t.getCause()) {
            if (t == failure) {
                return true;
            }
        }
        return false;
    }

    /**
     * Byte {@code i} (0-based) of what has not been read yet, reading ahead from the stream as far as needed
     * (blocking until those bytes arrive), without consuming it; -1 if the stream ends before it.
     */
    int peek(int i) throws IOException {
        if (ahead == null) {
            ahead = new byte[Math.max(16, i + 1)];
        }
        while (aheadEnd - aheadPos <= i) {
            if (aheadPos + i >= ahead.length) {
                ahead = Arrays.copyOf(ahead, Math.max(ahead.length * 2, aheadPos + i + 1));
            }
            int n;
            try {
                n = in.read(ahead, aheadEnd, ahead.length - aheadEnd);
                if (n == 0) {  // a stream that returns 0 is asked for a single byte, which blocks
                    int one = in.read();
                    if (one >= 0) {
                        ahead[aheadEnd] = (byte) one;
                        n = 1;
                    } else {
                        n = -1;
                    }
                }
            } catch (IOException e) {
                throw failure = e;
            }
            if (n < 0) {
                return -1;
            }
            aheadEnd += n;
        }
        return ahead[aheadPos + i] & 0xFF;
    }

    /** The bytes peeked so far and not read: at most {@code max} of them. */
    byte[] peeked(int max) {
        return ahead == null ? new byte[0] : Arrays.copyOfRange(ahead, aheadPos, Math.min(aheadEnd, aheadPos + max));
    }

    @Override
    public int read() throws IOException {
        if (aheadPos < aheadEnd) {
            count++;
            return ahead[aheadPos++] & 0xFF;
        }
        try {
            int b = in.read();
            if (b >= 0) {
                count++;
            }
            return b;
        } catch (IOException e) {
            throw failure = e;
        }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (aheadPos < aheadEnd && len > 0) {
            int n = Math.min(len, aheadEnd - aheadPos);
            System.arraycopy(ahead, aheadPos, b, off, n);
            aheadPos += n;
            count += n;
            return n;
        }
        try {
            int n = in.read(b, off, len);
            if (n > 0) {
                count += n;
            }
            return n;
        } catch (IOException e) {
            throw failure = e;
        }
    }

    @Override
    public int available() throws IOException {
        try {
            return (aheadEnd - aheadPos) + in.available();
        } catch (IOException e) {
            throw failure = e;
        }
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
