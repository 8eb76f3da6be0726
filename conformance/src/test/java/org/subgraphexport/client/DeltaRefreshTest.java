package org.subgraphexport.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.subgraphexport.encode.Encoders;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Header;

/**
 * {@link Delta#refresh} against a scripted export server (the JDK's HTTP server): each request gets the next answer
 * of a script. The delta is asked for with {@code since=} the copy's state and applied; the whole export is read
 * instead when the server cannot answer the delta (410 or the error record {@code Export.DeltaUnavailable}), after
 * three deltas in which commits fell or that met a transient error, or when the copy has no state; a whole export
 * that never reads at one state comes back with an empty state; other errors pass.
 */
class DeltaRefreshTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private HttpServer server;
    private final List<String> queries = new CopyOnWriteArrayList<>();
    private final Deque<Answer> script = new ArrayDeque<>();

    private record Answer(int status, byte[] body) {}

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    private URI serve(Answer... answers) throws IOException {
        script.addAll(List.of(answers));
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            queries.add(exchange.getRequestURI().getRawQuery());
            Answer a = script.poll();
            try (exchange; OutputStream out = exchange.getResponseBody()) {
                exchange.getResponseHeaders().add("Content-Type",
                        a.status() == 200 ? Format.KRYO.mediaType() : "application/json");
                exchange.sendResponseHeaders(a.status(), a.body().length);
                out.write(a.body());
            }
        });
        server.start();
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/extension/kryo/traverse?root=n%3A1");
    }

    private static byte[] stream(Header header, Function<GraphWriter, Void> body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = Encoders.open(Format.KRYO, out);
        try {
            w.header(header, RoundTripTest.names());
            body.apply(w);
            w.finish();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static void node(GraphWriter w, long id) {
        try {
            w.beginNode(id, new int[0], 0);
            w.endNode();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void end(GraphWriter w, long nodes, String state) {
        try {
            w.end(nodes, 0, false, state);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The whole export at {@code state}, its end at {@code endState}: nodes 1 and {@code other}. */
    private static Answer whole(String state, String endState, long other) {
        return new Answer(200, stream(new Header("db", "n:1", "n:", "r:", state, 0, 1), w -> {
            node(w, 1);
            node(w, other);
            end(w, 2, endState);
            return null;
        }));
    }

    /** A delta since {@code since} at {@code state} (end at {@code endState}): node 2 left, node 3 new. */
    private static Answer delta(String since, String state, String endState) {
        return new Answer(200, stream(new Header("db", "n:1", "n:", "r:", state, 0, 1, since), w -> {
            try {
                w.leftNode(2);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            node(w, 3);
            end(w, 1, endState);
            return null;
        }));
    }

    /** A stream that fails with {@code code}: a delta since {@code since}, or a whole export if it is empty. */
    private static Answer errorRecord(String code, String since) {
        return new Answer(200, stream(new Header("db", "n:1", "n:", "r:", "s9", 0, 1, since), w -> {
            try {
                w.error(code, "failed");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return null;
        }));
    }

    private static Answer refused(int status, String code) {
        return new Answer(status, ("{\"status\":" + status + ",\"code\":\"" + code + "\",\"message\":\"no\"}")
                .getBytes(StandardCharsets.UTF_8));
    }

    private static Subgraph decoded(Answer a) throws IOException {
        return Streams.decode(Format.KRYO, new ByteArrayInputStream(a.body()));
    }

    private static final String WHOLE = "root=n%3A1";
    private static final String SINCE_S1 = "root=n%3A1&since=s1";

    @Test
    void theFirstTimeTheWholeExportThenTheDeltaApplied() throws IOException {
        Answer first = whole("s1", "s1", 2);
        URI export = serve(first, delta("s1", "s2", "s2"));
        Subgraph copy = Delta.refresh(HTTP, export, null);
        assertEquals(decoded(first), copy);
        Subgraph now = copy.refresh(HTTP, export);
        assertEquals(decoded(whole("s2", "s2", 3)), now);
        assertEquals(List.of(WHOLE, SINCE_S1), queries);
    }

    @Test
    void aDeltaTheServerCannotAnswerIsAWholeExport() throws IOException {
        Subgraph base = decoded(whole("s1", "s1", 2));
        Answer now = whole("s2", "s2", 3);
        URI export = serve(refused(410, Delta.UNAVAILABLE), now, errorRecord(Delta.UNAVAILABLE, "s1"), now);
        assertEquals(decoded(now), Delta.refresh(HTTP, export, base));
        assertEquals(decoded(now), Delta.refresh(HTTP, export, base));
        assertEquals(List.of(SINCE_S1, WHOLE, SINCE_S1, WHOLE), queries);
    }

    @Test
    void deltasWithCommitsInsideOrTransientErrorsAreReadAgainThriceThenTheWhole() throws IOException {
        Subgraph base = decoded(whole("s1", "s1", 2));
        Answer now = whole("s3", "s3", 3);
        URI export = serve(delta("s1", "s2", "s3"), errorRecord("Neo.TransientError.Transaction.Outdated", "s1"),
                delta("s1", "s2", "s3"), now);
        assertEquals(decoded(now), Delta.refresh(HTTP, export, base));
        assertEquals(List.of(SINCE_S1, SINCE_S1, SINCE_S1, WHOLE), queries);
    }

    @Test
    void aDeltaAtOneStateOnTheSecondAttempt() throws IOException {
        Subgraph base = decoded(whole("s1", "s1", 2));
        URI export = serve(delta("s1", "s2", "s3"), delta("s1", "s3", "s3"));
        Subgraph now = Delta.refresh(HTTP, export, base);
        assertEquals(decoded(whole("s3", "s3", 3)), now);
        assertEquals(List.of(SINCE_S1, SINCE_S1), queries);
    }

    @Test
    void aCopyWithoutStateIsReadWhole() throws IOException {
        Subgraph stateless = decoded(whole("", "", 2));
        Answer now = whole("s2", "s2", 3);
        URI export = serve(now);
        assertEquals(decoded(now), Delta.refresh(HTTP, export, stateless));
        assertEquals(List.of(WHOLE), queries);
    }

    @Test
    void aWholeExportNeverAtOneStateComesBackWithoutState() throws IOException {
        URI export = serve(whole("s1", "s2", 2), errorRecord("Neo.TransientError.X", ""), whole("s2", "s3", 2));
        Subgraph copy = Delta.refresh(HTTP, export, null);
        assertEquals(new ExportHeader(2, "db", "n:1", "", 0, 1), copy.header());
        assertEquals(new ExportEnd(2, 0, false, 0, "s3"), copy.end());
        assertEquals(List.of("n:1", "n:2"), List.copyOf(copy.nodes().keySet()));
        assertEquals(List.of(WHOLE, WHOLE, WHOLE), queries);
    }

    @Test
    void otherErrorsPass() throws IOException {
        Subgraph base = decoded(whole("s1", "s1", 2));
        URI export = serve(refused(400, "Export.BadRequest"), errorRecord("Neo.ClientError.X", "s1"),
                errorRecord("Neo.TransientError.A", ""), errorRecord("Neo.TransientError.B", ""),
                errorRecord("Neo.TransientError.C", ""));
        assertEquals("Export.BadRequest",
                assertThrows(ExportRequestException.class, () -> Delta.refresh(HTTP, export, base)).code());
        assertEquals("Neo.ClientError.X",
                assertThrows(ExportFailedException.class, () -> Delta.refresh(HTTP, export, base)).code());
        assertEquals("Neo.TransientError.C",
                assertThrows(ExportFailedException.class, () -> Delta.refresh(HTTP, export, null)).code());
        assertEquals(List.of(SINCE_S1, SINCE_S1, WHOLE, WHOLE, WHOLE), queries);
    }
}
