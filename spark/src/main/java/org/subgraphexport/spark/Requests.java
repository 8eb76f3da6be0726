package org.subgraphexport.spark;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import org.subgraphexport.client.BusyRetry;
import org.subgraphexport.client.ExportRequestException;
import org.subgraphexport.client.internal.Decoders;
import org.subgraphexport.wire.Wire;

/**
 * Sending a request to the plugin as the Python package does ({@code _http.py}): {@code Accept} the Arrow stream,
 * HTTP Basic credentials, a busy server's {@code 503} with {@code Retry-After} asked again after the wait it names
 * (plus up to a quarter, at most 30 s of waiting per request; the wait read by the client's {@link BusyRetry}), any other refusal as {@link ExportRequestException}
 * with the server's code and message. {@code httpTimeout} bounds the connect and every read.
 */
final class Requests {
    static final String STATE_HEADER = "Subgraph-Export-State";
    private static final long BUSY_WAIT_MILLIS = 30_000, MIN_WAIT_MILLIS = 100;

    private Requests() {}

    /** A refusal: the status, the server's code and message, and the state it names (412). */
    static final class Refused extends ExportRequestException {
        private static final long serialVersionUID = 1L;
        final String state;

        Refused(ExportRequestException e, String state) {
            super(e.status(), e.code(), e.getMessage());
            this.state = state == null ? "" : state;
        }

        @Override
        public String getMessage() {
            return "HTTP " + status() + (code() == null ? "" : " " + code()) + ": " + super.getMessage();
        }
    }

    /** The body of a 200 answer (an Arrow stream); a refusal throws {@link Refused}. */
    static InputStream open(Settings settings, String url) throws IOException {
        long waited = 0;
        while (true) {
            HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
            c.setConnectTimeout(settings.httpTimeoutMillis);
            c.setReadTimeout(settings.httpTimeoutMillis);
            c.setRequestProperty("Accept", Wire.MEDIA_ARROW);
            // one request per connection, as the Python package asks: a partition's stream is long, a new connection
            // costs nothing beside it, and nothing in between (a proxy) has to support keep-alive
            c.setRequestProperty("Connection", "close");
            if (settings.authorization != null) c.setRequestProperty("Authorization", settings.authorization);
            int status = c.getResponseCode();
            if (status == 200) {
                String type = c.getContentType();
                if (type == null || !type.startsWith(Wire.MEDIA_ARROW)) {
                    c.getInputStream().close();
                    throw new IOException("expected " + Wire.MEDIA_ARROW + ", the server answered '" + type + "'");
                }
                return new Body(c);
            }
            OptionalLong after = status == 503 ? BusyRetry.retryAfterMillis(c.getHeaderField("Retry-After"))
                    : OptionalLong.empty();
            if (after.isPresent()) {
                long base = Math.min(Math.max(MIN_WAIT_MILLIS, after.getAsLong()), BUSY_WAIT_MILLIS + 1);
                long wait = base + ThreadLocalRandom.current().nextLong(base / 4 + 1);
                if (waited + wait <= BUSY_WAIT_MILLIS) {
                    try (InputStream body = c.getErrorStream()) {
                        if (body != null) body.readAllBytes();
                    }
                    try {
                        Thread.sleep(wait);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new InterruptedIOException("interrupted while waiting to ask again: " + url);
                    }
                    waited += wait;
                    continue;
                }
            }
            try (InputStream body = c.getErrorStream()) {
                throw new Refused(Decoders.refused(status, body), c.getHeaderField(STATE_HEADER));
            }
        }
    }

    /** A response body that, closed before its end, drops the connection (the server stops at once). */
    private static final class Body extends java.io.FilterInputStream {
        private final HttpURLConnection connection;
        private boolean ended;

        Body(HttpURLConnection connection) throws IOException {
            super(connection.getInputStream());
            this.connection = connection;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            ended |= b < 0;
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            ended |= n < 0;
            return n;
        }

        @Override
        public void close() throws IOException {
            if (ended) {
                super.close();
            } else {
                connection.disconnect();
            }
        }
    }
}
