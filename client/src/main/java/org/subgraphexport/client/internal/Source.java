package org.subgraphexport.client.internal;

import java.io.IOException;
import java.io.InputStream;
import org.subgraphexport.client.CorruptStreamException;

/**
 * The caller's stream, counting bytes and remembering its own failures, so that a decoder can tell an I/O error
 * of the source (passed on unchanged) from a decoding error about the bytes (a {@link CorruptStreamException}).
 */
final class Source extends InputStream {
    private final InputStream in;
    private long count;
    private IOException failure;

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

    @Override
    public int read() throws IOException {
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
            return in.available();
        } catch (IOException e) {
            throw failure = e;
        }
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
