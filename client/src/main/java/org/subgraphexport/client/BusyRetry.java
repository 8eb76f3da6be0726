package org.subgraphexport.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * Sends an export request and waits out the server's "busy" answers: {@code 503 Service Unavailable} with a
 * {@code Retry-After} header ({@code Export.ServerBusy}: more exports streaming than the server or the user may run
 * at once). Such a request is sent again after the seconds the server names plus a small random jitter (up to a
 * quarter of the wait, so that clients turned away together do not return together), as long as the waits add up
 * to no more than the budget. Nothing else is retried: no other status, no 503 without {@code Retry-After}, no
 * failure after the response started. When the budget is spent (or a wait would exceed what is left of it), the last
 * 503 is returned as it is, and {@link ExportReader#open(HttpResponse)} raises its {@link ExportRequestException}
 * (status 503, code {@code Export.ServerBusy}).
 *
 * <pre>{@code
 * HttpRequest request = ContentEncodings.request(URI.create(url)).build();
 * try (ExportReader reader = ExportReader.open(HttpClient.newHttpClient(), request)) {   // BusyRetry.DEFAULT
 *     ...
 * }
 * HttpResponse<InputStream> response = BusyRetry.upTo(Duration.ofMinutes(2)).send(http, request);   // or NONE
 * }</pre>
 *
 * <p>Immutable and thread-safe. The request is sent as it is each time; a body publisher must be repeatable (the
 * JDK's {@code ofString} and {@code ofByteArray} are).
 */
public final class BusyRetry {
    /** Waits up to 30 s in all: what {@link ExportReader#open(HttpClient, HttpRequest)} uses. */
    public static final BusyRetry DEFAULT = new BusyRetry(Duration.ofSeconds(30), wait -> { });
    /** Never retries: a busy server's 503 is returned at once. */
    public static final BusyRetry NONE = new BusyRetry(Duration.ZERO, wait -> { });

    /** Most bytes of a 503 body read before it is dropped (the server's is a short JSON object). */
    private static final int MAX_BUSY_BODY = 64 * 1024;
    /** The shortest wait, also for {@code Retry-After: 0}: the number of retries stays bounded by the budget. */
    private static final long MIN_WAIT_MILLIS = 100;

    private final Duration budget;
    private final Consumer<Duration> onBusy;

    private BusyRetry(Duration budget, Consumer<Duration> onBusy) {
        this.budget = budget;
        this.onBusy = onBusy;
    }

    /**
     * Retries while the waits (the server's {@code Retry-After} plus jitter) add up to at most {@code budget};
     * {@link Duration#ZERO} is {@link #NONE}.
     *
     * @throws IllegalArgumentException if {@code budget} is negative
     */
    public static BusyRetry upTo(Duration budget) {
        if (budget.isNegative()) throw new IllegalArgumentException("negative retry budget: " + budget);
        return budget.isZero() ? NONE : new BusyRetry(budget, wait -> { });
    }

    /**
     * The same budget, and {@code listener} told of each wait before it begins (to log or count retries); it runs
     * on the sending thread and must not block.
     */
    public BusyRetry onBusy(Consumer<Duration> listener) {
        return new BusyRetry(budget, listener);
    }

    /** The most time spent waiting between attempts. */
    public Duration budget() {
        return budget;
    }

    /**
     * Sends {@code request} with {@code BodyHandlers.ofInputStream()}, again after each busy answer while the budget
     * lasts, and returns the first response that is not a retryable 503, or the last 503.
     *
     * @throws IOException as {@link HttpClient#send} does; {@link InterruptedIOException} if interrupted while
     *                     waiting (the interrupt flag is set again)
     */
    public HttpResponse<InputStream> send(HttpClient http, HttpRequest request) throws IOException {
        long waitedMillis = 0;
        while (true) {
            HttpResponse<InputStream> response;
            try {
                response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while sending " + request.uri());
            }
            OptionalLong retryAfter = response.statusCode() == 503 ? retryAfterMillis(response) : OptionalLong.empty();
            if (retryAfter.isEmpty()) return response;
            long base = Math.min(Math.max(MIN_WAIT_MILLIS, retryAfter.getAsLong()), budget.toMillis() + 1);
            long wait = base + ThreadLocalRandom.current().nextLong(base / 4 + 1);
            if (waitedMillis + wait > budget.toMillis()) return response;
            try (InputStream body = response.body()) {
                body.readNBytes(MAX_BUSY_BODY);  // read to the end, so that the connection can be reused
            }
            onBusy.accept(Duration.ofMillis(wait));
            try {
                Thread.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting to retry " + request.uri());
            }
            waitedMillis += wait;
        }
    }

    /**
     * The wait {@code Retry-After} asks for (RFC 9110, section 10.2.3): delay-seconds, or an HTTP-date (the time
     * until it, at least 0); empty without the header or with a value that is neither.
     */
    static OptionalLong retryAfterMillis(HttpResponse<?> response) {
        return retryAfterMillis(response.headers().firstValue("Retry-After").orElse(null));
    }

    /** As {@link #retryAfterMillis(HttpResponse)}, from the header's value (null: none). */
    public static OptionalLong retryAfterMillis(String header) {
        String value = header == null ? "" : header.strip();
        if (value.isEmpty()) return OptionalLong.empty();
        if (value.chars().allMatch(c -> c >= '0' && c <= '9')) {
            try {
                return OptionalLong.of(Math.multiplyExact(Long.parseLong(value), 1000L));
            } catch (ArithmeticException | NumberFormatException tooLong) {
                return OptionalLong.of(Long.MAX_VALUE);  // beyond any budget: not retried
            }
        }
        try {
            ZonedDateTime at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME);
            return OptionalLong.of(Math.max(0, Duration.between(ZonedDateTime.now(at.getZone()), at).toMillis()));
        } catch (DateTimeParseException e) {
            return OptionalLong.empty();
        }
    }

    @Override
    public String toString() {
        return "BusyRetry(up to " + budget + ")";
    }
}
