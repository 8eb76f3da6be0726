package org.subgraphexport.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.subgraphexport.wire.Format;

/**
 * {@link BusyRetry} against a real HTTP server (the JDK's) that answers the first attempts as a busy export server
 * does: {@code 503}, {@code Retry-After}, the {@code Export.ServerBusy} JSON body; then a JSON export stream.
 */
class BusyRetryTest {
    private static final byte[] BUSY = "{\"status\":503,\"code\":\"Export.ServerBusy\",\"message\":\"the server is streaming its maximum of 1 exports (server.subgraph_export.max_concurrent); retry later\"}"
            .getBytes(StandardCharsets.UTF_8);
    private static final byte[] EXPORT = ("[{\"record\":\"header\",\"version\":1,\"database\":\"neo4j\",\"root\":\"\"},"
            + "{\"record\":\"end\",\"nodes\":0,\"relationships\":0,\"truncated\":false}]").getBytes(StandardCharsets.UTF_8);
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private HttpServer server;
    /** When each request arrived (nanoTime), and its body. */
    private final List<Long> arrivals = new CopyOnWriteArrayList<>();
    private final List<String> bodies = new CopyOnWriteArrayList<>();

    /** A server whose answer to the n-th request (0-based) is {@code answer.apply(n)}: a Retry-After value, or null for the export. */
    private URI serve(IntFunction<String[]> answer) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> respond(exchange, answer.apply(arrivals.size())));
        server.start();
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/extension/json/cypher");
    }

    /** {@code headers}: name/value pairs for a 503, or null for the 200 export. */
    private void respond(HttpExchange exchange, String[] headers) throws IOException {
        arrivals.add(System.nanoTime());
        try (InputStream in = exchange.getRequestBody(); OutputStream out = exchange.getResponseBody()) {
            bodies.add(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            byte[] body = headers == null ? EXPORT : BUSY;
            exchange.getResponseHeaders().set("Content-Type",
                    headers == null ? Format.JSON.mediaType() : "application/json");
            for (int i = 0; headers != null && i < headers.length; i += 2) {
                exchange.getResponseHeaders().set(headers[i], headers[i + 1]);
            }
            exchange.sendResponseHeaders(headers == null ? 200 : 503, body.length);
            out.write(body);
        }
    }

    @AfterEach
    void stop() {
        if (server != null) server.stop(0);
    }

    private static HttpRequest post(URI uri) {
        return HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"query\": \"MATCH (n) RETURN n\"}")).build();
    }

    private static String[] retryAfter(String value) {
        return new String[] {"Retry-After", value};
    }

    @Test
    void aBusyAnswerIsWaitedOutForRetryAfterPlusJitterAndTheSameRequestSentAgain() throws Exception {
        URI uri = serve(n -> n == 0 ? retryAfter("1") : null);
        try (ExportReader reader = ExportReader.open(HTTP, post(uri))) {  // BusyRetry.DEFAULT
            assertEquals("neo4j", reader.header().database());
            assertTrue(reader.next() instanceof ExportEnd);
        }
        assertEquals(2, arrivals.size());
        long waitedMillis = (arrivals.get(1) - arrivals.get(0)) / 1_000_000;
        assertTrue(waitedMillis >= 1_000 && waitedMillis < 1_250 + 500, "waited " + waitedMillis + " ms");
        assertEquals(List.of("{\"query\": \"MATCH (n) RETURN n\"}", "{\"query\": \"MATCH (n) RETURN n\"}"), bodies);
    }

    @Test
    void withoutABudgetTheBusyAnswerRaisesTheRequestExceptionWithStatusAndCode() throws Exception {
        URI uri = serve(n -> retryAfter("1"));
        ExportRequestException busy = assertThrows(ExportRequestException.class,
                () -> ExportReader.open(BusyRetry.NONE.send(HTTP, post(uri))));
        assertEquals(503, busy.status());
        assertEquals("Export.ServerBusy", busy.code());
        assertTrue(busy.getMessage().contains("server.subgraph_export.max_concurrent"), busy.getMessage());
        assertEquals(1, arrivals.size());
        assertEquals(BusyRetry.NONE, BusyRetry.upTo(Duration.ZERO));
    }

    @Test
    void retriesStopWhenTheWaitsWouldExceedTheBudget() throws Exception {
        // Retry-After: 0 still waits 100 ms (+ up to 25 ms): two waits fit in 250 ms, a third does not
        URI uri = serve(n -> retryAfter("0"));
        List<Duration> waits = new CopyOnWriteArrayList<>();
        HttpResponse<InputStream> last = BusyRetry.upTo(Duration.ofMillis(250)).onBusy(waits::add).send(HTTP, post(uri));
        assertEquals(503, last.statusCode());
        assertEquals(3, arrivals.size());
        assertEquals(2, waits.size(), "the listener hears of each wait: " + waits);
        for (Duration wait : waits) assertTrue(wait.toMillis() >= 100 && wait.toMillis() <= 125, wait::toString);
        last.body().close();
    }

    @Test
    void aRetryAfterLongerThanWhatIsLeftOfTheBudgetIsNotWaitedFor() throws Exception {
        URI uri = serve(n -> retryAfter("5"));
        long t0 = System.nanoTime();
        ExportRequestException busy = assertThrows(ExportRequestException.class,
                () -> ExportReader.open(BusyRetry.upTo(Duration.ofSeconds(2)).send(HTTP, post(uri))));
        assertEquals(503, busy.status());
        assertEquals(1, arrivals.size());
        assertTrue(System.nanoTime() - t0 < 1_000_000_000L, "answered without waiting");
    }

    @Test
    void onlyA503WithRetryAfterIsRetried() throws Exception {
        List<String[]> answers = new ArrayList<>();
        answers.add(new String[0]);  // a 503 without Retry-After: a database unavailable, say
        URI uri = serve(n -> n < answers.size() ? answers.get(n) : null);
        ExportRequestException unavailable = assertThrows(ExportRequestException.class,
                () -> ExportReader.open(HTTP, post(uri)));
        assertEquals(503, unavailable.status());
        assertEquals(1, arrivals.size());
        // an unparseable Retry-After is no Retry-After
        answers.add(retryAfter("soon"));
        assertThrows(ExportRequestException.class, () -> ExportReader.open(HTTP, post(uri)));
        assertEquals(2, arrivals.size());
    }

    @Test
    void anHttpDateRetryAfterIsAWaitUntilThatTime() throws Exception {
        String past = DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC).minusMinutes(1));
        String inASecond = DateTimeFormatter.RFC_1123_DATE_TIME.format(
                ZonedDateTime.now(ZoneOffset.UTC).plusSeconds(2).withNano(0));
        URI uri = serve(n -> n == 0 ? retryAfter(past) : n == 1 ? retryAfter(inASecond) : null);
        try (ExportParser parser = ExportParser.open(HTTP, post(uri))) {
            assertEquals(ExportParser.Kind.END, parser.next(value -> { }));
        }
        assertEquals(3, arrivals.size());
        long firstWait = (arrivals.get(1) - arrivals.get(0)) / 1_000_000;
        long secondWait = (arrivals.get(2) - arrivals.get(1)) / 1_000_000;
        assertTrue(firstWait >= 100 && firstWait < 125 + 500, "a date in the past waits the minimum: " + firstWait);
        assertTrue(secondWait >= 900 && secondWait < 2_500 + 500, "until the date: " + secondWait + " ms");
    }

    /** An interrupt ends the send, whether it comes before the request or during a wait, with the flag set again. */
    @Test
    void anInterruptEndsTheSendWithTheInterruptSetAgain() throws Exception {
        URI uri = serve(n -> retryAfter("5"));
        BusyRetry retry = BusyRetry.upTo(Duration.ofSeconds(30));
        Thread.currentThread().interrupt();
        try {
            InterruptedIOException before = assertThrows(InterruptedIOException.class, () -> retry.send(HTTP, post(uri)));
            assertEquals("interrupted while sending " + uri, before.getMessage());
            assertTrue(Thread.interrupted(), "the interrupt is set again");
        } finally {
            Thread.interrupted();
        }
        assertEquals(0, arrivals.size());

        Thread sender = Thread.currentThread();
        Thread interrupter = new Thread(() -> {
            while (arrivals.isEmpty()) Thread.onSpinWait();
            try {
                Thread.sleep(300); // the sender is waiting out Retry-After: 5
            } catch (InterruptedException e) {
                return;
            }
            sender.interrupt();
        });
        interrupter.start();
        try {
            InterruptedIOException waiting = assertThrows(InterruptedIOException.class, () -> retry.send(HTTP, post(uri)));
            assertEquals("interrupted while waiting to retry " + uri, waiting.getMessage());
            assertTrue(Thread.interrupted(), "the interrupt is set again");
        } finally {
            interrupter.join();
            Thread.interrupted();
        }
        assertEquals(1, arrivals.size());
        assertEquals(Duration.ofSeconds(30), retry.budget());
        assertEquals("BusyRetry(up to PT30S)", retry.toString());
    }

    @Test
    void aNegativeBudgetIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> BusyRetry.upTo(Duration.ofSeconds(-1)));
    }

    @Test
    void theRetryAfterValueIsSecondsOrAnHttpDate() {
        assertEquals(java.util.OptionalLong.of(3000), BusyRetry.retryAfterMillis(" 3 "));
        assertEquals(java.util.OptionalLong.of(0), BusyRetry.retryAfterMillis("Sun, 06 Nov 1994 08:49:37 GMT"));
        assertEquals(java.util.OptionalLong.of(99_999_999_999_999_000L), BusyRetry.retryAfterMillis("99999999999999"));
        assertEquals(java.util.OptionalLong.of(Long.MAX_VALUE), BusyRetry.retryAfterMillis("99999999999999999999"));
        assertEquals(java.util.OptionalLong.empty(), BusyRetry.retryAfterMillis("soon"));
        assertEquals(java.util.OptionalLong.empty(), BusyRetry.retryAfterMillis((String) null));
        assertEquals(java.util.OptionalLong.empty(), BusyRetry.retryAfterMillis(" "));
    }
}
