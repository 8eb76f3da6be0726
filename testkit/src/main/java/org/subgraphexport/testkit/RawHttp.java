package org.subgraphexport.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket, for requests java.net.http refuses to send: a request target with malformed
 * percent-escapes, raw control bytes or non-ASCII bytes. One request per connection ({@code Connection: close});
 * the response body is read to the end and de-chunked. {@link #head} reads only a response's head, for clients that
 * then stall on the body.
 */
public final class RawHttp {
    public record Response(int status, Map<String, String> headers, byte[] body) {
        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        public String contentType() {
            return headers.getOrDefault("content-type", "");
        }
    }

    private RawHttp() {}

    /** Sends {@code method target} (bytes as given, ISO-8859-1) with the extra header lines and body. */
    public static Response send(URI server, String method, byte[] target, String extraHeaders, byte[] body) {
        try (Socket socket = new Socket(server.getHost(), server.getPort())) {
            socket.setSoTimeout(60_000);
            OutputStream out = socket.getOutputStream();
            ByteArrayOutputStream request = new ByteArrayOutputStream();
            request.write((method + " ").getBytes(StandardCharsets.ISO_8859_1));
            request.write(target);
            request.write((" HTTP/1.1\r\nHost: " + server.getHost() + ":" + server.getPort() + "\r\nConnection: close\r\n"
                    + extraHeaders + (body == null ? "" : "Content-Length: " + body.length + "\r\n") + "\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            if (body != null) request.write(body);
            // Jetty may answer (414, 431) and close before it has read a huge request: write on another thread,
            // read here, and keep what arrived before a reset.
            byte[] bytes = request.toByteArray();
            Thread writer = Thread.ofVirtual().start(() -> {
                try {
                    out.write(bytes);
                    out.flush();
                } catch (IOException ignored) {
                    // the server closed the connection early; its answer is read below
                }
            });
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[8192];
            try {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    received.write(buffer, 0, n);
                }
            } catch (IOException e) {
                if (received.size() == 0) throw e;
            }
            writer.join(10_000);
            return parse(received.toByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * The status line (key "") and the headers (lower-case names) the server sent on {@code socket}, read byte by byte
     * so that the body stays unread, for at most 5 s; a connection closed or reset before a status line gives an empty
     * status line.
     */
    public static Map<String, String> head(Socket socket) throws IOException {
        socket.setSoTimeout(5_000);
        InputStream in = socket.getInputStream();
        Map<String, String> head = new LinkedHashMap<>();
        StringBuilder line = new StringBuilder();
        try {
            for (int b; (b = in.read()) != -1; ) {
                if (b != '\n') {
                    line.append((char) b);
                    continue;
                }
                String text = line.toString().strip();
                line.setLength(0);
                if (head.isEmpty()) {
                    head.put("", text);
                } else if (text.isEmpty()) {
                    return head;
                } else {
                    int colon = text.indexOf(':');
                    head.put(text.substring(0, colon).strip().toLowerCase(Locale.ROOT), text.substring(colon + 1).strip());
                }
            }
        } catch (IOException e) {
            // reset by the server: what was read so far
        }
        head.putIfAbsent("", "");
        return head;
    }

    public static Response get(URI server, String target) {
        return send(server, "GET", target.getBytes(StandardCharsets.ISO_8859_1), "", null);
    }

    private static Response parse(byte[] raw) throws IOException {
        int headEnd = indexOf(raw, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), 0);
        if (headEnd < 0) throw new IOException("no complete response head in " + raw.length + " bytes");
        String[] lines = new String(raw, 0, headEnd, StandardCharsets.ISO_8859_1).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) headers.put(lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).strip());
        }
        byte[] body = java.util.Arrays.copyOfRange(raw, headEnd + 4, raw.length);
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = dechunk(body);
        }
        return new Response(status, headers, body);
    }

    private static byte[] dechunk(byte[] chunked) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int at = 0;
        while (true) {
            int eol = indexOf(chunked, new byte[] {'\r', '\n'}, at);
            if (eol < 0) throw new IOException("bad chunking");
            String size = new String(chunked, at, eol - at, StandardCharsets.ISO_8859_1).split(";")[0].strip();
            int n = Integer.parseInt(size, 16);
            if (n == 0) return out.toByteArray();
            out.write(chunked, eol + 2, n);
            at = eol + 2 + n + 2;
        }
    }

    private static int indexOf(byte[] haystack, byte[] needle, int from) {
        outer:
        for (int i = from; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) continue outer;
            }
            return i;
        }
        return -1;
    }
}
