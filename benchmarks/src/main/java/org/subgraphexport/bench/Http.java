package org.subgraphexport.bench;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

/**
 * The HTTP client of every HTTP row: one {@link HttpClient} (HTTP/1.1, keep-alive), responses read as a stream
 * while they arrive, never collected first. Bodies are counted as the decoder reads them.
 */
final class Http {
    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();

    private Http() {}

    /**
     * What every ordinary row of this project sends: read the store ({@code no-cache}: not from the server's response
     * cache) and keep nothing ({@code no-store}: no copy of the response is made for the cache).
     */
    static final String[] BYPASS_CACHE = {"Cache-Control", "no-cache, no-store"};

    /** GET with extra request headers given as name, value, name, value...; 200 or 202 expected. */
    static Body get(URI uri, String accept, String... headers) throws IOException {
        return send(with(HttpRequest.newBuilder(uri).header("Accept", accept), headers).GET().build(), false);
    }

    /** As {@link #get}, but a 304 Not Modified is an answer too (see {@link Body#status()}). */
    static Body getConditional(URI uri, String accept, String... headers) throws IOException {
        return send(with(HttpRequest.newBuilder(uri).header("Accept", accept), headers).GET().build(), true);
    }

    static Body post(URI uri, String accept, String json, String... headers) throws IOException {
        return send(with(HttpRequest.newBuilder(uri), headers)
                .header("Accept", accept)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build(), false);
    }

    private static HttpRequest.Builder with(HttpRequest.Builder builder, String... headers) {
        for (int i = 0; i < headers.length; i += 2) {
            builder.header(headers[i], headers[i + 1]);
        }
        return builder;
    }

    private static Body send(HttpRequest request, boolean notModifiedIsAnAnswer) throws IOException {
        HttpResponse<InputStream> response;
        try {
            response = CLIENT.send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        int status = response.statusCode();
        if (status != 200 && status != 202 && !(status == 304 && notModifiedIsAnAnswer)) {
            String text;
            try (InputStream in = response.body()) {
                text = new String(in.readNBytes(2000), StandardCharsets.UTF_8);
            }
            throw new IOException(request.method() + " " + request.uri() + " answered " + status + ": " + text);
        }
        return new Body(response.body(), status, response.headers());
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /** A JSON string literal (quotes included). */
    static String jsonString(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 16).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }

    /** A response body that counts the bytes read from it. */
    static final class Body extends FilterInputStream {
        private final int status;
        private final HttpHeaders headers;
        private long count;
        private boolean eof;
        private boolean closed;
        /** Reads paced to this many bits per second (a slow link simulated); 0: as fast as they come. */
        private long bitsPerSecond;
        private long firstRead;

        Body(InputStream in, int status, HttpHeaders headers) {
            super(in);
            this.status = status;
            this.headers = headers;
        }

        long count() {
            return count;
        }

        /** Paces the reads from now on so that the body arrives at no more than {@code bitsPerSecond}. */
        Body paced(long bitsPerSecond) {
            this.bitsPerSecond = bitsPerSecond;
            return this;
        }

        boolean closed() {
            return closed;
        }

        /**
         * After a read: sleeps until the bytes read so far would have taken their time on the link, counted from the
         * first read. The socket buffers fill meanwhile and the server waits, as behind a slow link.
         */
        private void pace() throws IOException {
            if (bitsPerSecond <= 0) return;
            long now = System.nanoTime();
            if (firstRead == 0) firstRead = now;
            long due = firstRead + (long) (count * 8 * 1e9 / bitsPerSecond);
            if (due - now > 1_000_000) {
                try {
                    Thread.sleep((due - now) / 1_000_000, (int) ((due - now) % 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
            }
        }

        int status() {
            return status;
        }

        /** The first value of a response header, or null. */
        String header(String name) {
            return headers.firstValue(name).orElse(null);
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0) count++;
            else eof = true;
            pace();
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            if (n > 0) count += n;
            else if (n < 0) eof = true;
            pace();
            return n;
        }

        @Override
        public void close() throws IOException {
            closed = true;
            super.close();
        }

        @Override
        public long skip(long n) throws IOException {
            long s = in.skip(n);
            count += s;
            return s;
        }

        /**
         * Reads what is left (a decoder that stopped at its closing record leaves nothing); returns its length. A
         * decoder that read to the end may have closed the stream already (Jackson, the LZF stream): then 0.
         */
        long drain() {
            if (closed) {
                if (!eof) throw new IllegalStateException("the decoder closed the body before its end");
                return 0;
            }
            try {
                byte[] buffer = new byte[8192];
                long rest = 0;
                for (int n; (n = read(buffer, 0, buffer.length)) >= 0; ) {
                    rest += n;
                }
                return rest;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
