package org.subgraphexport.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.ZstdInputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.subgraphexport.client.ContentEncodings;
import org.subgraphexport.client.CorruptStreamException;
import org.subgraphexport.client.ExportFailedException;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.Subgraph;
import org.subgraphexport.config.ExportSettings;
import org.subgraphexport.testkit.DemoGraph;
import org.subgraphexport.wire.Format;

/**
 * HTTP compression: every format in every content coding, decoded by decompressors that are not the server's
 * (the JDK's GZIPInputStream, zstd-jni's ZstdInputStream, the {@code zstd} command line tool), against the same
 * export sent uncompressed; the negotiation of Accept-Encoding; tags and the response cache per coding; errors
 * while streaming; truncated frames.
 */
class CompressionTest {
    private static final int OBJECTS = 1500;
    private static final String CYPHER = "{\"query\": \"MATCH (o:Object)-[r:PROPERTY]->(p) RETURN o, r, p\"}";
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    @RegisterExtension
    static final InProcessNeo4j neo4j = InProcessNeo4j.withExtension()
            .with(GraphDatabaseSettings.transaction_monitor_check_interval, java.time.Duration.ofHours(1))
            .with(ExportSettings.RESPONSE_CACHE_SIZE, 64L << 20);
    private static DemoGraph.Result demo;
    private static URI base;

    @BeforeAll
    static void start() {
        demo = DemoGraph.generate(neo4j.defaultDatabaseService(), OBJECTS, DemoGraph.DEFAULT_SEED, done -> {});
        base = neo4j.httpURI().resolve("/extension/");
    }

    private static String traverse(Format format, String extra) {
        return format.pathSegment() + "/traverse?root=" + ExportHttp.enc(demo.rootElementId()) + extra;
    }

    /** GET with these request headers (name, value, ...). */
    private static HttpResponse<byte[]> get(String pathAndQuery, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(pathAndQuery));
        for (int i = 0; i < headers.length; i += 2) request.header(headers[i], headers[i + 1]);
        return ExportHttp.send(request.build());
    }

    private static HttpResponse<byte[]> postCypher(Format format, String extra, String body, String acceptEncoding) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(format.pathSegment() + "/cypher" + extra))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (acceptEncoding != null) request.header("Accept-Encoding", acceptEncoding);
        return ExportHttp.send(request.build());
    }

    private static String encoding(HttpResponse<?> r) {
        return r.headers().firstValue("Content-Encoding").orElse("identity");
    }

    private static String etag(HttpResponse<?> r) {
        return r.headers().firstValue("ETag").orElseThrow(() -> new AssertionError("no ETag"));
    }

    /** The body decompressed by the JDK or zstd-jni, whichever its Content-Encoding names. */
    private static byte[] decodeIndependently(HttpResponse<byte[]> r) throws IOException {
        try (InputStream in = switch (encoding(r)) {
            case "zstd" -> new ZstdInputStream(new ByteArrayInputStream(r.body()));
            case "gzip" -> new GZIPInputStream(new ByteArrayInputStream(r.body()));
            case "identity" -> new ByteArrayInputStream(r.body());
            default -> throw new AssertionError(encoding(r));
        }) {
            return in.readAllBytes();
        }
    }

    /** The body decompressed by the {@code zstd} command line tool (Debian's /usr/bin/zstd). */
    private static byte[] zstdCli(byte[] compressed) throws IOException, InterruptedException {
        Path file = Files.createTempFile("compression-test", ".zst");
        try {
            Files.write(file, compressed);
            Process zstd = new ProcessBuilder("zstd", "-d", "-c", "-q", file.toString())
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            byte[] out = zstd.getInputStream().readAllBytes();
            assertEquals(0, zstd.waitFor(), "zstd -d exit status");
            return out;
        } finally {
            Files.delete(file);
        }
    }

    @Test
    void everyFormatInEveryCodingIsTheIdentityBodyCompressed() throws Exception {
        for (Format format : Format.values()) {
            for (boolean cypher : new boolean[] {false, true}) {
                String what = format.pathSegment() + (cypher ? " cypher" : " traverse");
                HttpResponse<byte[]> identity = cypher ? postCypher(format, "", CYPHER, null)
                        : get(traverse(format, ""), "Cache-Control", "no-cache, no-store");
                assertEquals(200, identity.statusCode(), what);
                assertEquals("identity", encoding(identity), what + ": no Accept-Encoding, no coding");
                assertTrue(identity.body().length > 2 * 128 * 1024 || format == Format.KRYO_LZF,
                        what + " spans several compression blocks: " + identity.body().length);
                for (String coding : List.of("zstd", "gzip")) {
                    HttpResponse<byte[]> coded = cypher ? postCypher(format, "", CYPHER, coding)
                            : get(traverse(format, ""), "Accept-Encoding", coding, "Cache-Control", "no-cache, no-store");
                    assertEquals(200, coded.statusCode(), what);
                    if (format == Format.KRYO_LZF) {
                        assertEquals("identity", encoding(coded), "kryo-lzf is never compressed twice");
                        assertTrue(coded.headers().firstValue("Vary").isEmpty(), "kryo-lzf does not vary");
                        assertArrayEquals(identity.body(), coded.body());
                        continue;
                    }
                    assertEquals(coding, encoding(coded), what);
                    assertEquals("Accept-Encoding", coded.headers().firstValue("Vary").orElse(""), what);
                    assertTrue(coded.body().length * 2 < identity.body().length,
                            what + " " + coding + ": " + coded.body().length + " of " + identity.body().length);
                    assertArrayEquals(identity.body(), decodeIndependently(coded), what + " " + coding);
                    if (coding.equals("zstd")) {
                        assertArrayEquals(identity.body(), zstdCli(coded.body()), what + " by the zstd tool");
                    }
                    if (!cypher) {
                        assertEquals(etag(identity).replaceAll("\"$", "-" + coding + "\""), etag(coded),
                                "a tag per coding");
                    }
                }
            }
        }
    }

    @Test
    void theClientAsksForAndDecodesBothCodings() throws Exception {
        Subgraph plain = new ExportHttp(neo4j.httpURI()).traverse(Format.KRYO,
                ExportHttp.params("root", demo.rootElementId()));
        assertEquals("zstd, gzip", ContentEncodings.acceptEncoding(), "zstd-jni is on the test class path");
        for (Format format : Format.values()) {
            if (!format.clientDecodes()) continue;  // arrow: the compressed bytes are checked above, pyarrow reads it
            for (String coding : List.of(ContentEncodings.acceptEncoding(), "gzip")) {
                HttpResponse<InputStream> response = HTTP.send(ContentEncodings.request(base.resolve(
                                traverse(format, ""))).setHeader("Accept-Encoding", coding).build(),
                        HttpResponse.BodyHandlers.ofInputStream());
                String expected = format == Format.KRYO_LZF ? "identity" : coding.equals("gzip") ? "gzip" : "zstd";
                assertEquals(expected, encoding(response), format + " " + coding);
                try (ExportReader reader = ExportReader.open(response)) {
                    Subgraph read = Subgraph.read(reader);
                    assertEquals(plain.nodes(), read.nodes(), format + " " + coding);
                    assertEquals(plain.relationships(), read.relationships(), format + " " + coding);
                }
            }
        }
    }

    /** The README's curl commands: {@code curl --compressed}, and {@code Accept-Encoding: zstd} piped to zstd -d. */
    @Test
    void curlAsTheReadmeShows() throws Exception {
        byte[] json = get(traverse(Format.JSON, "")).body();
        byte[] kryo = get(traverse(Format.KRYO, "")).body();
        String url = base.resolve(traverse(Format.JSON, "")).toString();
        assertArrayEquals(json, shell("curl -sS --compressed '" + url + "'"));
        String kryoUrl = base.resolve(traverse(Format.KRYO, "")).toString();
        assertArrayEquals(kryo, shell("curl -sS -H 'Accept-Encoding: zstd' '" + kryoUrl + "' | zstd -d"));
    }

    private static byte[] shell(String command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("bash", "-o", "pipefail", "-c", command)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertEquals(0, p.waitFor(), command);
        return out;
    }

    /** Accept-Encoding value, and the coding the server must answer a JSON traverse with. */
    @Test
    void acceptEncodingIsNegotiatedAsRfc9110Says() {
        Map<String, String> cases = new java.util.LinkedHashMap<>();
        cases.put("", "identity");                          // empty: no coding wanted
        cases.put("gzip", "gzip");
        cases.put("zstd", "zstd");
        cases.put("gzip, zstd", "zstd");                    // a tie: the server's preference
        cases.put("*", "zstd");
        cases.put("gzip;q=0, *", "zstd");
        cases.put("zstd;q=0, *", "gzip");
        cases.put("zstd;q=0.5, gzip", "gzip");
        cases.put("zstd;q=0.5, gzip;q=0.4", "zstd");
        cases.put("ZSTD;Q=0.2, X-GZIP;q=0.3", "gzip");      // case-insensitive, x-gzip is gzip
        cases.put("br, deflate", "identity");               // unknown codings only
        cases.put("br, identity;q=0", "identity");          // nothing acceptable: identity anyway (RFC 9110 SHOULD)
        cases.put("*;q=0", "identity");
        cases.put("identity", "identity");
        cases.put("gzip;q=0.5, identity", "identity");      // identity preferred by q-value
        cases.put("zstd, identity;q=0", "zstd");
        cases.put("zstd;q=bad, gzip", "gzip");              // a malformed element is ignored
        cases.put("zstd;q=1.5, gzip", "gzip");
        cases.put("gzip;q=0.001", "gzip");
        cases.put("zstd;q=0.000", "identity");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            HttpResponse<byte[]> r = get(traverse(Format.JSON, ""), "Accept-Encoding", c.getKey());
            assertEquals(200, r.statusCode(), c.getKey());
            assertEquals(c.getValue(), encoding(r), "Accept-Encoding: " + c.getKey());
            assertEquals("Accept-Encoding", r.headers().firstValue("Vary").orElse(""), c.getKey());
        }
        HttpResponse<byte[]> lzf = get(traverse(Format.KRYO_LZF, ""), "Accept-Encoding", "zstd, identity;q=0");
        assertEquals("identity", encoding(lzf), "kryo-lzf: identity even when refused");
    }

    @Test
    void aSmallResponseGoesOutUncompressedUnlessIdentityIsRefused() throws IOException {
        String small = traverse(Format.JSON, "&limit=1");
        HttpResponse<byte[]> identity = get(small, "Cache-Control", "no-store");
        assertTrue(identity.body().length < 1024, "below the default minimum: " + identity.body().length);
        HttpResponse<byte[]> asked = get(small, "Accept-Encoding", "zstd", "Cache-Control", "no-store");
        assertEquals("identity", encoding(asked), "below compression_min_size");
        assertEquals(etag(identity), etag(asked), "the identity representation, with its tag");
        assertArrayEquals(identity.body(), asked.body());
        HttpResponse<byte[]> refused = get(small, "Accept-Encoding", "zstd, identity;q=0", "Cache-Control", "no-store");
        assertEquals("zstd", encoding(refused));
        assertArrayEquals(identity.body(), decodeIndependently(refused));
        assertEquals(etag(identity).replaceAll("\"$", "-zstd\""), etag(refused));
    }

    @Test
    void ifNoneMatchAnswersForEveryAcceptableCodingAndTheCacheKeepsCodingsApart() throws IOException {
        neo4j.defaultDatabaseService().executeTransactionally("CREATE (:Unrelated)"); // a version nothing is cached for
        String path = traverse(Format.KRYO, "");
        HttpResponse<byte[]> zstd = get(path, "Accept-Encoding", "zstd");
        HttpResponse<byte[]> gzip = get(path, "Accept-Encoding", "gzip");
        HttpResponse<byte[]> identity = get(path);
        String zstdTag = etag(zstd), gzipTag = etag(gzip), identityTag = etag(identity);
        assertEquals(identityTag.replaceAll("\"$", "-zstd\""), zstdTag);
        assertEquals(identityTag.replaceAll("\"$", "-gzip\""), gzipTag);
        for (HttpResponse<byte[]> first : List.of(zstd, gzip, identity)) {
            assertTrue(first.headers().firstValue(ETags.CACHE_HEADER).isEmpty(), "the first of each reads the store");
        }

        HttpResponse<byte[]> gzipKept = get(path, "Accept-Encoding", "gzip;q=0.5, zstd;q=0.1, identity;q=0");
        assertEquals("hit", gzipKept.headers().firstValue(ETags.CACHE_HEADER).orElse(""));
        assertEquals("gzip", encoding(gzipKept));
        assertEquals(gzipTag, etag(gzipKept));
        assertArrayEquals(gzip.body(), gzipKept.body());
        HttpResponse<byte[]> zstdKept = get(path, "Accept-Encoding", "zstd, gzip");
        assertEquals("zstd", encoding(zstdKept));
        assertEquals(zstdTag, etag(zstdKept));
        assertArrayEquals(zstd.body(), zstdKept.body());
        assertArrayEquals(identity.body(), decodeIndependently(zstdKept));
        HttpResponse<byte[]> identityKept = get(path, "Accept-Encoding", "br");
        assertEquals("identity", encoding(identityKept));
        assertEquals(identityTag, etag(identityKept));
        assertArrayEquals(identity.body(), identityKept.body());

        // If-None-Match: a 304 names the tag it matched, of any coding this request accepts; no other
        HttpResponse<byte[]> notModified = get(path, "Accept-Encoding", "zstd, gzip", "If-None-Match", gzipTag);
        assertEquals(304, notModified.statusCode());
        assertEquals(gzipTag, etag(notModified));
        assertEquals("Accept-Encoding", notModified.headers().firstValue("Vary").orElse(""));
        assertEquals(304, get(path, "Accept-Encoding", "zstd", "If-None-Match", "\"x\", W/" + zstdTag).statusCode(),
                "weak comparison, any listed tag");
        assertEquals(304, get(path, "Accept-Encoding", "zstd", "If-None-Match", identityTag).statusCode(),
                "identity is acceptable here");
        HttpResponse<byte[]> refused = get(path, "Accept-Encoding", "zstd, identity;q=0", "If-None-Match", identityTag);
        assertEquals(200, refused.statusCode(), "identity refused: its tag does not match");
        assertEquals(zstdTag, etag(refused));
        HttpResponse<byte[]> other = get(path, "Accept-Encoding", "gzip", "If-None-Match", zstdTag);
        assertEquals(200, other.statusCode(), "zstd is not acceptable here: its tag does not match");
        assertEquals("gzip", encoding(other));
        assertEquals(304, get(path, "Accept-Encoding", "gzip", "If-None-Match", "*").statusCode());
    }

    /**
     * The exports time out (within 1024 nodes, possibly before the first KiB: identity refused, so that the coding
     * does not depend on how far they got).
     */
    @Test
    void aFailureWhileStreamingEndsInACompleteFrameWithTheErrorRecord() throws Exception {
        for (String coding : List.of("zstd", "gzip")) {
            String accept = coding + ", identity;q=0";
            for (Format format : List.of(Format.JSON, Format.BSON, Format.KRYO)) {
                HttpResponse<byte[]> traverse = get(traverse(format, "&timeout=1ms"), "Accept-Encoding", accept,
                        "Cache-Control", "no-cache");  // a kept response would come at once, whatever the timeout
                assertTimedOut(format, coding, traverse);
            }
            HttpResponse<byte[]> rows = postCypher(Format.JSON, "?mode=rows&timeout=1ms",
                    "{\"query\": \"UNWIND range(1, 5000000) AS i RETURN i\"}", accept);
            assertTimedOut(Format.JSON, coding, rows);
        }
    }

    /** A whole frame (the independent decoder reads it to its end), and in it every record up to the error. */
    private static void assertTimedOut(Format format, String coding, HttpResponse<byte[]> response) throws IOException {
        assertEquals(200, response.statusCode());
        assertEquals(coding, encoding(response), format + " " + coding);
        byte[] decoded = decodeIndependently(response);
        if (coding.equals("zstd")) {
            assertArrayEquals(decoded, assertDoesNotFail(() -> zstdCli(response.body())));
        }
        ExportFailedException failure = assertThrows(ExportFailedException.class, () -> {
            try (ExportReader reader = ExportReader.open(format, new ByteArrayInputStream(decoded))) {
                while (reader.next() != null) {
                    // records before the budget ran out
                }
            }
        }, format + " " + coding);
        assertTrue(failure.code().startsWith("Neo.ClientError.Transaction.TransactionTimedOut"), failure.code());
    }

    private interface Call {
        byte[] get() throws Exception;
    }

    private static byte[] assertDoesNotFail(Call call) {
        try {
            return call.get();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aTruncatedFrameIsACorruptStreamAtEveryCut() throws IOException {
        for (String coding : List.of("zstd", "gzip")) {
            HttpResponse<byte[]> r = get(traverse(Format.KRYO, ""), "Accept-Encoding", coding);
            byte[] body = r.body();
            assertArrayEquals(decodeIndependently(r), ContentEncodings.decode(coding,
                    new ByteArrayInputStream(body)).readAllBytes(), "the whole frame decodes");
            for (int cut = 0; cut < body.length; cut += cut < 64 || cut > body.length - 64 ? 1 : 997) {
                byte[] part = java.util.Arrays.copyOf(body, cut);
                int at = cut;
                assertThrows(CorruptStreamException.class,
                        () -> ContentEncodings.decode(coding, new ByteArrayInputStream(part)).readAllBytes(),
                        () -> coding + " cut at " + at + " of " + body.length);
            }
            byte[] half = java.util.Arrays.copyOf(body, body.length / 2);
            assertThrows(CorruptStreamException.class, () -> {
                try (ExportReader reader = ExportReader.open(Format.KRYO,
                        ContentEncodings.decode(coding, new ByteArrayInputStream(half)))) {
                    while (reader.next() != null) {
                        // records in the first half
                    }
                }
            }, coding);
        }
        assertFalse(ContentEncodings.acceptEncoding().isEmpty());
    }
}
