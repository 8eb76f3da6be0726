package org.subgraphexport.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.Subgraph;
import org.subgraphexport.wire.Format;

/**
 * One call of an export endpoint of the extension, independent of the format: {@link #send} puts the format into
 * the URL, {@link #export} also checks 200 and the media type and decodes the stream with the client.
 *
 * <p>{@link #traverse} and {@link #cypher} build the two endpoints' calls; the tests run either through every
 * format the same way.
 */
record ExportRequest(String endpoint, String method, String query, String body) {

    /** {@code GET /extension/{format}/traverse?<params>}, the parameters URL-encoded in the given order. */
    static ExportRequest traverse(String... keyValues) {
        return new ExportRequest("traverse", "GET", query(keyValues), null);
    }

    /**
     * {@code POST /extension/{format}/cypher?<params>} with body {@code {"query": cypher}} (no parameters; the
     * query must not contain a double quote or a backslash).
     */
    static ExportRequest cypher(String cypher, String... keyValues) {
        return new ExportRequest("cypher", "POST", query(keyValues), "{\"query\": \"" + cypher + "\"}");
    }

    private static String query(String... keyValues) {
        Map<String, String> params = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            params.put(keyValues[i], keyValues[i + 1]);
        }
        return params.entrySet().stream()
                .map(e -> enc(e.getKey()) + "=" + enc(e.getValue()))
                .collect(Collectors.joining("&"));
    }

    URI uri(URI server, Format format) {
        return server.resolve("/extension/" + format.pathSegment() + "/" + endpoint + (query.isEmpty() ? "" : "?" + query));
    }

    HttpResponse<byte[]> send(RealNeo4jServer server, Format format, String authorization) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(server.httpUri, format));
        if (body == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        }
        return server.send(request, authorization);
    }

    /** Sends, asserts 200 with the format's media type, and decodes the whole stream with the client. */
    Subgraph export(RealNeo4jServer server, Format format, String authorization) throws IOException {
        HttpResponse<byte[]> r = send(server, format, authorization);
        assertEquals(200, r.statusCode(), () -> format + " " + this + ": " + new String(r.body(), StandardCharsets.UTF_8));
        assertEquals(format.mediaType(), r.headers().firstValue("Content-Type").orElse("").split(";")[0].strip());
        try (ExportReader reader = ExportReader.open(format, new ByteArrayInputStream(r.body()))) {
            return Subgraph.read(reader);
        }
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
