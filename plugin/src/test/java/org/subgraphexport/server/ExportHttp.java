package org.subgraphexport.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.Subgraph;
import org.subgraphexport.wire.Format;

/** Real HTTP calls to the extension, for tests. */
final class ExportHttp {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private final URI base;

    ExportHttp(URI serverUri) {
        this.base = serverUri.resolve("/extension/");
    }

    /** Sends {@code request}, the body as bytes. */
    static HttpResponse<byte[]> send(HttpRequest request) {
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    HttpResponse<byte[]> get(String pathAndQuery) {
        return send(HttpRequest.newBuilder(base.resolve(pathAndQuery)).GET().build());
    }

    /** GET, the body left as a stream (for {@code ExportReader.open(HttpResponse)}). */
    HttpResponse<InputStream> getStream(String pathAndQuery) {
        try {
            return HTTP.send(HttpRequest.newBuilder(base.resolve(pathAndQuery)).GET().build(),
                    HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** GET /{format}/traverse with the parameters (URL-encoded here), asserting 200 and the media type. */
    Subgraph traverse(Format format, Map<String, String> params) throws IOException {
        HttpResponse<byte[]> response = get(format.pathSegment() + "/traverse?" + query(params));
        assertEquals(200, response.statusCode(), () -> new String(response.body(), StandardCharsets.UTF_8));
        assertEquals(format.mediaType(), response.headers().firstValue("Content-Type").orElse("").split(";")[0]);
        try (ExportReader reader = ExportReader.open(format, new ByteArrayInputStream(response.body()))) {
            return Subgraph.read(reader);
        }
    }

    HttpResponse<byte[]> post(String pathAndQuery, String jsonBody) {
        try {
            return HTTP.send(HttpRequest.newBuilder(base.resolve(pathAndQuery))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(jsonBody)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** POST /{format}/cypher with the JSON body, asserting 200, decoded. */
    Subgraph cypher(Format format, String jsonBody) throws IOException {
        HttpResponse<byte[]> response = post(format.pathSegment() + "/cypher", jsonBody);
        assertEquals(200, response.statusCode(), () -> new String(response.body(), StandardCharsets.UTF_8));
        assertEquals(format.mediaType(), response.headers().firstValue("Content-Type").orElse("").split(";")[0]);
        try (ExportReader reader = ExportReader.open(format, new ByteArrayInputStream(response.body()))) {
            return Subgraph.read(reader);
        }
    }

    static String query(Map<String, String> params) {
        return params.entrySet().stream()
                .map(e -> enc(e.getKey()) + "=" + enc(e.getValue()))
                .collect(Collectors.joining("&"));
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    static Map<String, String> params(String... keyValues) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        return m;
    }
}
