package org.subgraphexport.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.subgraphexport.config.ExportSettings;

/** Repeats are free: ETags with 304, the server-side response cache, and its invalidation by commits. */
class RepeatsTest {
    @RegisterExtension
    static final InProcessNeo4j neo4j = InProcessNeo4j.withExtension()
            .with(ExportSettings.RESPONSE_CACHE_SIZE, 8L << 20);
    private static FixtureGraph fixture;

    @BeforeAll
    static void start() {
        fixture = FixtureGraph.create(neo4j.defaultDatabaseService());
    }

    private static HttpResponse<byte[]> get(String format, String ifNoneMatch) {
        HttpRequest.Builder request = HttpRequest.newBuilder(neo4j.httpURI().resolve(
                "/extension/" + format + "/traverse?root=" + ExportHttp.enc(fixture.id("root"))));
        if (ifNoneMatch != null) request.header("If-None-Match", ifNoneMatch);
        return ExportHttp.send(request.build());
    }

    /** GET kryo traverse of the root with these request headers (name, value, name, value...). */
    private static HttpResponse<byte[]> getWith(String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(neo4j.httpURI().resolve(
                "/extension/kryo/traverse?root=" + ExportHttp.enc(fixture.id("root"))));
        for (int i = 0; i < headers.length; i += 2) request.header(headers[i], headers[i + 1]);
        return ExportHttp.send(request.build());
    }

    private static boolean hit(HttpResponse<?> r) {
        assertEquals(200, r.statusCode());
        return r.headers().firstValue(ETags.CACHE_HEADER).map("hit"::equals).orElse(false);
    }

    private static String etag(HttpResponse<?> r) {
        return r.headers().firstValue("ETag").orElseThrow(() -> new AssertionError("no ETag"));
    }

    @Test
    void aRepeatIsA304OrServedFromTheCacheUntilTheNextCommit() {
        neo4j.defaultDatabaseService().executeTransactionally("CREATE (:Unrelated)"); // start from a fresh version
        HttpResponse<byte[]> first = get("kryo", null);
        assertEquals(200, first.statusCode());
        String tag = etag(first);
        assertTrue(tag.matches("\"[0-9a-f]{32}\""), tag);
        assertEquals("no-cache", first.headers().firstValue("Cache-Control").orElse(""));
        assertTrue(first.headers().firstValue(ETags.CACHE_HEADER).isEmpty(), "the first export reads the store");

        HttpResponse<byte[]> revalidated = get("kryo", tag);
        assertEquals(304, revalidated.statusCode());
        assertEquals(0, revalidated.body().length);
        assertEquals(tag, etag(revalidated));

        HttpResponse<byte[]> repeat = get("kryo", null);
        assertEquals(200, repeat.statusCode());
        assertEquals("hit", repeat.headers().firstValue(ETags.CACHE_HEADER).orElse(""));
        assertEquals(tag, etag(repeat));
        assertArrayEquals(first.body(), repeat.body());

        HttpResponse<byte[]> otherFormat = get("json", null);
        assertNotEquals(tag, etag(otherFormat), "the tag covers the format");
        assertEquals(304, get("kryo", "\"other\", " + tag).statusCode(), "any listed tag matches");

        neo4j.defaultDatabaseService().executeTransactionally(
                "MATCH (n) WHERE elementId(n) = $id SET n.name = 'renamed'", java.util.Map.of("id", fixture.id("a")));
        HttpResponse<byte[]> afterCommit = get("kryo", tag);
        assertEquals(200, afterCommit.statusCode(), "a commit makes the old tag stale");
        assertNotEquals(tag, etag(afterCommit));
        assertTrue(afterCommit.headers().firstValue(ETags.CACHE_HEADER).isEmpty(), "read from the store again");
        assertFalse(java.util.Arrays.equals(first.body(), afterCommit.body()));
        assertTrue(new String(afterCommit.body(), StandardCharsets.ISO_8859_1).contains("renamed"));
    }

    @Test
    void cacheControlNoStoreKeepsNothingAndNoCacheReadsTheStore() {
        neo4j.defaultDatabaseService().executeTransactionally("CREATE (:Unrelated)"); // a version nothing is cached for
        HttpResponse<byte[]> bypass = getWith("Cache-Control", "no-cache, no-store");
        assertFalse(hit(bypass), "no-cache reads the store");
        String tag = etag(bypass);
        assertEquals("no-cache", bypass.headers().firstValue("Cache-Control").orElse(""));

        HttpResponse<byte[]> noStore = getWith("Cache-Control", "no-store");
        assertFalse(hit(noStore), "the no-store response before was not kept");
        assertEquals(tag, etag(noStore));
        assertFalse(hit(getWith()), "nor was this one: the first ordinary request reads the store, and keeps it");
        HttpResponse<byte[]> kept = getWith();
        assertTrue(hit(kept), "the ordinary request before kept its response");
        assertArrayEquals(bypass.body(), kept.body(), "same bytes from the store and from the cache");
        assertTrue(hit(getWith("Cache-Control", "no-store")), "no-store alone may still be served from the cache");

        HttpResponse<byte[]> noCache = getWith("Cache-Control", "NO-CACHE");
        assertFalse(hit(noCache), "no-cache (any case) is never served from the cache");
        assertArrayEquals(kept.body(), noCache.body());
        assertFalse(hit(getWith("Cache-Control", "max-age=0", "Cache-Control", "no-cache")), "in a second header too");
        assertFalse(hit(getWith("Cache-Control", "max-age=0,no-cache=\"x\"")), "with an argument too");
        assertTrue(hit(getWith("Cache-Control", "max-age=0, no-transform")), "other directives change nothing");
        HttpResponse<byte[]> pragma = getWith("Pragma", "No-Cache");
        assertFalse(hit(pragma), "Pragma: no-cache without Cache-Control means no-cache");
        assertArrayEquals(kept.body(), pragma.body());
        assertTrue(hit(getWith("Pragma", "no-cache", "Cache-Control", "no-store")), "with Cache-Control, Pragma is ignored");
        assertTrue(hit(getWith("Pragma", "x-other")), "other pragmas change nothing");

        HttpResponse<byte[]> revalidated = getWith("If-None-Match", tag, "Cache-Control", "no-cache, no-store");
        assertEquals(304, revalidated.statusCode(), "If-None-Match still answers 304");
        assertEquals(0, revalidated.body().length);

        // After a commit: a no-cache response (without no-store) replaces the stale entry.
        neo4j.defaultDatabaseService().executeTransactionally("CREATE (:Unrelated)");
        HttpResponse<byte[]> refreshed = getWith("Cache-Control", "no-cache");
        assertFalse(hit(refreshed));
        assertNotEquals(tag, etag(refreshed));
        HttpResponse<byte[]> fromRefresh = getWith();
        assertTrue(hit(fromRefresh), "kept by the no-cache request");
        assertEquals(etag(refreshed), etag(fromRefresh));
        assertArrayEquals(refreshed.body(), fromRefresh.body());
    }

    @Test
    void warmUpLoadsTheStoreAndSaysHowMuch() {
        URI warmup = neo4j.httpURI().resolve("/extension/warmup");
        HttpResponse<byte[]> response = ExportHttp.send(HttpRequest.newBuilder(warmup).POST(HttpRequest.BodyPublishers.noBody()).build());
        String body = new String(response.body(), StandardCharsets.UTF_8);
        assertEquals(200, response.statusCode(), body);
        assertTrue(body.matches("\\{\"database\":\"neo4j\",\"files\":[1-9][0-9]*,\"pages\":[1-9][0-9]*,\"bytes\":[1-9][0-9]*,\"millis\":[0-9]+}"), body);

        HttpResponse<byte[]> unknown = ExportHttp.send(HttpRequest.newBuilder(URI.create(warmup + "?db=nosuchdb"))
                .POST(HttpRequest.BodyPublishers.noBody()).build());
        assertEquals(404, unknown.statusCode());
    }
}
