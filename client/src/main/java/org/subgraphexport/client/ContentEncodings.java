package org.subgraphexport.client;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import org.subgraphexport.client.internal.ZstdDecoding;

/**
 * HTTP compression of export responses ({@code Content-Encoding}), for any HTTP client: what to ask for, and how
 * to undo it. {@link ExportReader#open(java.net.http.HttpResponse)} applies {@link #decode} itself.
 *
 * <p>{@code gzip} comes from the JDK. {@code zstd} needs zstd-jni ({@code com.github.luben:zstd-jni}) on the class
 * path, an optional dependency of the client: without it {@link #acceptEncoding} does not offer zstd, and a zstd
 * body fails with an {@code IOException} that says so.
 */
public final class ContentEncodings {
    private static final boolean ZSTD = zstdAvailable();

    private ContentEncodings() {}

    private static boolean zstdAvailable() {
        try {
            return ZstdDecoding.available();
        } catch (LinkageError noZstdJni) {
            return false;
        }
    }

    /** The {@code Accept-Encoding} value to send: {@code "zstd, gzip"}, or {@code "gzip"} without zstd-jni. */
    public static String acceptEncoding() {
        return ZSTD ? "zstd, gzip" : "gzip";
    }

    /** A GET request builder for an export URL, asking for every coding this client decodes. */
    public static HttpRequest.Builder request(URI export) {
        return HttpRequest.newBuilder(export).header("Accept-Encoding", acceptEncoding());
    }

    /**
     * The body with its {@code Content-Encoding} undone: null, empty or {@code identity} leave it as it is;
     * {@code gzip} (or {@code x-gzip}) and {@code zstd} decompress; several codings are undone last to first. A body
     * that ends inside a frame or is not valid in its coding raises {@link CorruptStreamException} when read; a
     * failure of {@code body} itself passes unchanged.
     *
     * @throws IOException if a coding is unknown, or zstd-jni is not on the class path for zstd
     */
    public static InputStream decode(String contentEncoding, InputStream body) throws IOException {
        if (contentEncoding == null) return body;
        String[] codings = contentEncoding.split(",");
        Guard raw = new Guard(body);
        InputStream in = raw;
        for (int i = codings.length - 1; i >= 0; i--) {
            String coding = codings[i].strip().toLowerCase(Locale.ROOT);
            in = switch (coding) {
                case "", "identity" -> in;
                case "gzip", "x-gzip" -> new Checked(gzip(in, raw), raw, "gzip");
                case "zstd" -> new Checked(zstd(in), raw, "zstd");
                default -> throw new IOException("unsupported Content-Encoding '" + coding + "': this client decodes "
                        + "gzip and zstd");
            };
        }
        return in == raw ? body : in;
    }

    private static InputStream zstd(InputStream in) throws IOException {
        if (!ZSTD) {
            throw new IOException("the response is zstd-compressed, and zstd-jni (com.github.luben:zstd-jni) is not "
                    + "on the class path: add it, or ask without zstd (ContentEncodings.acceptEncoding())");
        }
        return ZstdDecoding.open(in);
    }

    /** The JDK's gzip decoder, which reads the gzip header at once: a bad or missing one is a corrupt body. */
    private static InputStream gzip(InputStream in, Guard raw) throws IOException {
        try {
            return new GZIPInputStream(in, 64 * 1024);
        } catch (IOException e) {
            if (raw.failure != null) throw e;
            throw new CorruptStreamException("the gzip body has no valid gzip header: " + e.getMessage(), e);
        }
    }

    /** A filter whose single-byte read goes through its array read, the one place that does the work. */
    private abstract static class ArrayReads extends FilterInputStream {
        ArrayReads(InputStream in) {
            super(in);
        }

        @Override
        public final int read() throws IOException {
            byte[] one = new byte[1];
            int n;
            while ((n = read(one, 0, 1)) == 0) {
                // a decompressor may return 0 bytes before its first output
            }
            return n < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public abstract int read(byte[] b, int off, int len) throws IOException;
    }

    /** Remembers whether the body itself failed, so that a decompressor's failure can be told from it. */
    private static final class Guard extends ArrayReads {
        IOException failure;
        long count;

        Guard(InputStream in) {
            super(in);
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            try {
                int n = in.read(b, off, len);
                if (n > 0) count += n;
                return n;
            } catch (IOException e) {
                throw failure = e;
            }
        }
    }

    /** A decompressing stream whose own failures (truncated, corrupt) become {@link CorruptStreamException}. */
    private static final class Checked extends ArrayReads {
        private final Guard raw;
        private final String coding;

        Checked(InputStream decompressor, Guard raw, String coding) {
            super(decompressor);
            this.raw = raw;
            this.coding = coding;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            try {
                int n = in.read(b, off, len);
                if (n < 0 && raw.count == 0) {  // zstd-jni reads an empty body as an empty stream
                    throw new CorruptStreamException("the " + coding + " body is empty: not even a frame header");
                }
                return n;
            } catch (IOException e) {
                if (raw.failure != null || e instanceof CorruptStreamException) throw e;
                throw new CorruptStreamException("the " + coding + " body is truncated or corrupt: " + e.getMessage(), e);
            }
        }
    }
}
