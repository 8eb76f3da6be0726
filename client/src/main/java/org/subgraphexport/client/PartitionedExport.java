package org.subgraphexport.client;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.subgraphexport.client.internal.PartitionRequests;
import org.subgraphexport.client.internal.Partitions;
import org.subgraphexport.client.internal.RecordReader;

/**
 * One traverse export read as N partitions at once ({@code partitions=N&partition=i}, docs/wire-format.md §1.3),
 * over N HTTP streams pinned to one store state, each partition re-fetched alone when its stream is cut.
 *
 * <pre>{@code
 * URI url = URI.create("http://localhost:7474/extension/kryo/traverse?root=4%3A...%3A0");
 * PartitionedExport export = PartitionedExport.of(HttpClient.newHttpClient(), url, 4);
 * try (ExportReader reader = export.open()) {              // merged: exactly the single stream, in its order
 *     for (ExportRecord r; (r = reader.next()) != null; ) { ... }
 * }
 * ExportEnd end = export.read((partition, records) -> {     // or: on N threads, each partition as it comes
 *     for (ExportRecord r; (r = records.next()) != null; ) { ... }
 * });
 * }</pre>
 *
 * <p><b>State.</b> Partition 0 is asked first; its answer ({@code Subgraph-Export-State}) fixes the state, and every
 * other request, and every re-fetch, carries {@code state=} it. The partitions are one export of one state or the
 * read fails: when the database moved on (a {@code 412 Export.StateChanged}, the error record
 * {@code Export.StateChanged}, or partition 0's end record naming a later state than its header), {@link
 * OnStateChange#RESTART} (the default) starts every partition over, pinned to the new state, at most
 * {@link #restarts(int)} times (default 2); {@link OnStateChange#FAIL}, or the restarts spent, throws
 * {@link StateChangedException} naming both states.
 *
 * <p><b>Retries.</b> A partition whose stream is cut (an {@code IOException} of the connection, a truncated body,
 * which is a {@link CorruptStreamException}, a 5xx answer) is fetched again alone, pinned to the state, and the
 * records it already delivered are read past: a stream of one state is the same every time, so no record is lost
 * or delivered twice. At most {@link #attempts(int)} fetches per partition (default 3); then the read fails with
 * {@link PartitionFailedException}, the last failure its cause. Not retried: other refusals (4xx:
 * {@link ExportRequestException}), the server's error record ({@link ExportFailedException}: it said why), a
 * {@code 503 Export.ServerBusy} that outlasted the {@link BusyRetry} (default {@link BusyRetry#DEFAULT}). Any failure
 * of one partition, a consumer's exception included, cancels the others and is thrown once every consumer returned;
 * errors are never dropped.
 *
 * <p><b>Three ways to read.</b>
 * <ul>
 *   <li>{@link #open()}: one {@link ExportReader} returning exactly the single stream's records in its order, the
 *       partitions dealt back ({@link org.subgraphexport.wire.Wire#PARTITION_BLOCK} records from each in turn), each
 *       read on a thread of its own into a queue of a few blocks: memory stays bounded, and all N partitions stream at
 *       once (so N should not exceed the server's {@code server.subgraph_export.max_partitions_streaming}, its
 *       processors by default: a partition kept waiting behind the others' full queues fails with
 *       {@code 503 Export.ServerBusy}). {@code open} returns once every partition's stream began at one state; a state
 *       change before the first record was returned starts over (as the policy allows), after it {@code next}
 *       throws {@link StateChangedException}: records were handed out.</li>
 *   <li>{@link #read(RecordConsumer)}: the record API on {@link #concurrency(int)} threads, each partition's records
 *       to the consumer as they arrive.</li>
 *   <li>{@link #parse(ParserConsumer)}: the streaming API ({@link ExportParser}, {@link ExportHandler}) on as many
 *       threads.</li>
 * </ul>
 * With a consumer, a restart means records already handed over came from a state the export no longer reads: the
 * consumer's {@code restarted(oldState, newState)} is called (on the caller's thread, when no consumer runs) before
 * every partition is handed over again, and must discard what it received.
 *
 * <p>Immutable and thread-safe: each setting returns a new instance; each read is a read of its own.
 */
public final class PartitionedExport {
    /** What a state change does: start over at the new state, or fail. */
    public enum OnStateChange { RESTART, FAIL }

    /** Receives each partition as an {@link ExportReader}, on the thread that reads it. */
    @FunctionalInterface
    public interface RecordConsumer {
        /**
         * Reads {@code records}, partition {@code partition}'s, to its end: {@link ExportReader#next} until it returns
         * null (after the partition's {@link ExportEnd}). Records come in the single stream's order within the
         * partition; re-fetches happen inside {@code next}. An exception thrown here (let the reader's pass) fails
         * the read; returning before the end record too. Called on one of
         * {@link PartitionedExport#concurrency(int)} threads, for several partitions at once: the consumer must be
         * thread-safe.
         */
        void accept(int partition, ExportReader records) throws IOException;

        /**
         * Every partition is read again, from its start, at {@code newState}: discard what was received at
         * {@code oldState}. Called on the thread of {@link PartitionedExport#read}, when no {@code accept} runs.
         * Default: nothing.
         */
        default void restarted(String oldState, String newState) throws IOException {}
    }

    /** Receives each partition as an {@link ExportParser}, on the thread that reads it. */
    @FunctionalInterface
    public interface ParserConsumer {
        /**
         * Parses partition {@code partition} to its end: {@link ExportParser#next} until it returns null (after
         * {@link ExportParser.Kind#END}). Re-fetches happen inside {@code next}; a record whose decoding was cut is
         * decoded again from its start, so the handler may see the first calls of a record twice (a new
         * {@code node}, {@code relationship}, {@code columns} or {@code row} call begins the record anew): act on a
         * record when {@code next} returns its kind. Otherwise as {@link RecordConsumer#accept}.
         */
        void accept(int partition, ExportParser parser) throws IOException;

        /** As {@link RecordConsumer#restarted}. */
        default void restarted(String oldState, String newState) throws IOException {}
    }

    private final HttpClient http;
    private final URI export;
    private final int partitions;
    private final int concurrency;
    private final int attempts;
    private final OnStateChange onStateChange;
    private final int restarts;
    private final BusyRetry busyRetry;
    private final List<String> headers;

    private PartitionedExport(HttpClient http, URI export, int partitions, int concurrency, int attempts,
            OnStateChange onStateChange, int restarts, BusyRetry busyRetry, List<String> headers) {
        this.http = http;
        this.export = export;
        this.partitions = partitions;
        this.concurrency = concurrency;
        this.attempts = attempts;
        this.onStateChange = onStateChange;
        this.restarts = restarts;
        this.busyRetry = busyRetry;
        this.headers = headers;
    }

    /**
     * The export at {@code export}, a traverse URL with its parameters
     * ({@code http://host:7474/extension/kryo/traverse?root=...}), read as {@code partitions} partitions.
     *
     * @throws IllegalArgumentException if {@code partitions < 1}, or the URL is not absolute, has a fragment, or
     *                                  already names {@code partitions}, {@code partition} or {@code state}
     */
    public static PartitionedExport of(HttpClient http, URI export, int partitions) {
        Objects.requireNonNull(http, "http");
        if (partitions < 1) throw new IllegalArgumentException("partitions must be at least 1, got " + partitions);
        if (!export.isAbsolute() || export.getRawFragment() != null) {
            throw new IllegalArgumentException("an absolute export URL without a fragment is needed, got " + export);
        }
        String query = export.getRawQuery() == null ? "" : export.getRawQuery();
        for (String parameter : query.split("&")) {
            String name = parameter.split("=", 2)[0];
            if (name.equals("partitions") || name.equals("partition") || name.equals("state")) {
                throw new IllegalArgumentException("the export URL names '" + name + "': PartitionedExport adds "
                        + "partitions, partition and state itself");
            }
        }
        return new PartitionedExport(http, export, partitions,
                Math.min(partitions, Runtime.getRuntime().availableProcessors()), 3, OnStateChange.RESTART, 2,
                BusyRetry.DEFAULT, List.of());
    }

    /** Threads for {@link #read} and {@link #parse} (default: the partitions, at most the processors). */
    public PartitionedExport concurrency(int threads) {
        if (threads < 1) throw new IllegalArgumentException("concurrency must be at least 1, got " + threads);
        return new PartitionedExport(http, export, partitions, threads, attempts, onStateChange, restarts, busyRetry,
                headers);
    }

    /** Fetches per partition at most, the first included (default 3). */
    public PartitionedExport attempts(int attempts) {
        if (attempts < 1) throw new IllegalArgumentException("attempts must be at least 1, got " + attempts);
        return new PartitionedExport(http, export, partitions, concurrency, attempts, onStateChange, restarts,
                busyRetry, headers);
    }

    /** What a state change does (default {@link OnStateChange#RESTART}). */
    public PartitionedExport onStateChange(OnStateChange what) {
        return new PartitionedExport(http, export, partitions, concurrency, attempts, Objects.requireNonNull(what),
                restarts, busyRetry, headers);
    }

    /** Restarts at most, with {@link OnStateChange#RESTART} (default 2). */
    public PartitionedExport restarts(int max) {
        if (max < 0) throw new IllegalArgumentException("restarts must be at least 0, got " + max);
        return new PartitionedExport(http, export, partitions, concurrency, attempts, onStateChange, max, busyRetry,
                headers);
    }

    /** How each request waits out a busy server (default {@link BusyRetry#DEFAULT}). */
    public PartitionedExport busyRetry(BusyRetry retry) {
        return new PartitionedExport(http, export, partitions, concurrency, attempts, onStateChange, restarts,
                Objects.requireNonNull(retry), headers);
    }

    /** A header every request carries, e.g. {@code Authorization}; may be given several times. */
    public PartitionedExport header(String name, String value) {
        List<String> more = new ArrayList<>(headers);
        more.add(Objects.requireNonNull(name));
        more.add(Objects.requireNonNull(value));
        return new PartitionedExport(http, export, partitions, concurrency, attempts, onStateChange, restarts,
                busyRetry, List.copyOf(more));
    }

    /** How many partitions. */
    public int partitions() {
        return partitions;
    }

    /**
     * Reads the export on {@link #concurrency(int)} threads, each partition handed to {@code consumer} as an
     * {@link ExportReader}, and returns the whole export's end record (the partitions' counts summed, the state)
     * once every partition was read to its end.
     *
     * @throws StateChangedException    the database moved on, with {@link OnStateChange#FAIL} or the restarts spent
     * @throws PartitionFailedException a partition failed all its attempts
     * @throws IOException              any other failure, a consumer's included, as it was thrown
     */
    public ExportEnd read(RecordConsumer consumer) throws IOException {
        return machinery().each(concurrency,
                (partition, stream) -> consumer.accept(partition, new RecordReader(stream)), consumer::restarted);
    }

    /** As {@link #read}, each partition handed to {@code consumer} as an {@link ExportParser}. */
    public ExportEnd parse(ParserConsumer consumer) throws IOException {
        return machinery().each(concurrency, consumer::accept, consumer::restarted);
    }

    /**
     * One reader over all partitions: exactly the single stream's records, in its order, then the whole export's
     * {@link ExportEnd}; its header is partition 0's as the single stream has it (partition 0 of 1). Reads every
     * partition at once, a thread each. Close it to cancel the partitions still streaming.
     */
    public ExportReader open() throws IOException {
        return machinery().merged();
    }

    private Partitions machinery() {
        return new Partitions(new PartitionRequests(http, export, partitions, headers, busyRetry), attempts,
                onStateChange == OnStateChange.RESTART, restarts);
    }

    @Override
    public String toString() {
        return "PartitionedExport(" + export + ", " + partitions + " partitions, " + concurrency + " threads, "
                + attempts + " attempts, " + onStateChange + (onStateChange == OnStateChange.RESTART
                ? " up to " + restarts + " times" : "") + ")";
    }
}
