package org.subgraphexport.client.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.subgraphexport.client.ExportEnd;
import org.subgraphexport.client.ExportFailedException;
import org.subgraphexport.client.ExportHandler;
import org.subgraphexport.client.ExportHeader;
import org.subgraphexport.client.ExportParser;
import org.subgraphexport.client.ExportRequestException;
import org.subgraphexport.client.PartitionFailedException;
import org.subgraphexport.client.StateChangedException;
import org.subgraphexport.wire.Format;

/**
 * One partition of a {@link Round} as one {@link ExportParser} that outlives its HTTP streams: a stream cut by a
 * connection failure, a truncated body ({@link org.subgraphexport.client.CorruptStreamException}) or a 5xx answer is
 * fetched again, pinned to the round's state, and the records already returned are read past (a stream of one state
 * is the same stream every time), so that {@link #next} returns each record once. At most {@code attempts} fetches;
 * then {@link PartitionFailedException}. A record whose decoding was cut is decoded again from its start: the handler
 * may see its first calls twice, and a record is only returned once it is complete.
 *
 * <p>Not retried: a refusal other than a 5xx (the request is wrong), a {@code 503 Export.ServerBusy} that outlasted
 * the busy retries, the server's error record (it said why; a state change aside), an interrupt. The state is checked
 * at both ends: a {@code 412 Export.StateChanged}, the error record {@code Export.StateChanged}, or an end record
 * naming another state than the stream began in fail the round with {@link StateChangedException}.
 */
final class PartitionStream implements ExportParser {
    static final String STATE_HEADER = "Subgraph-Export-State";
    static final String STATE_CHANGED = "Export.StateChanged";
    private static final String SERVER_BUSY = "Export.ServerBusy";
    /** Reads past a record without looking at it. */
    private static final ExportHandler SKIP = value -> { };

    private final PartitionRequests requests;
    private final int attempts;
    private final Round round;
    private final int partition;
    private final List<IOException> failures = new ArrayList<>();
    private ExportParser parser;
    private ExportHeader header;
    private ExportEnd end;
    private long returned;
    private int fetches;

    PartitionStream(PartitionRequests requests, int attempts, Round round, int partition) {
        this.requests = requests;
        this.attempts = attempts;
        this.round = round;
        this.partition = partition;
    }

    /** Fetches the partition (retrying as {@link #next} does) and reads its header. */
    PartitionStream open() throws IOException {
        parser = fetch();
        header = parser.header();
        return this;
    }

    @Override
    public ExportHeader header() {
        return header;
    }

    @Override
    public Format format() {
        return parser.format();
    }

    @Override
    public ExportEnd end() {
        return end;
    }

    @Override
    public Kind next(ExportHandler handler) throws IOException {
        if (end != null) {
            return null;
        }
        while (true) {
            round.check();
            Kind kind;
            try {
                kind = parser.next(handler);
            } catch (IOException e) {
                close(parser);
                failed(e);
                parser = fetch();
                continue;
            }
            if (kind == Kind.END) {
                ExportEnd last = parser.end();
                if (!last.state().equals(header.state())) {
                    throw round.changed(header.state(), last.state());
                }
                end = last;
            } else {
                returned++;
            }
            return kind;
        }
    }

    @Override
    public void close() throws IOException {
        if (parser != null) {
            parser.close();
        }
    }

    /**
     * Remembers a failed attempt, or throws: {@code e} itself if a new fetch cannot help, or
     * {@link PartitionFailedException} once the attempts are spent. The error record {@code Export.StateChanged} is
     * not counted: the next fetch, pinned to the state the database left, is answered 412 and names the new state.
     */
    private void failed(IOException e) throws IOException {
        if (e instanceof ExportFailedException f && STATE_CHANGED.equals(f.code())) {
            round.check();
            return;
        }
        if (!retryable(e)) {
            throw e;
        }
        round.check();  // a stream closed because the round failed: not a failure of this partition
        failures.add(e);
        if (fetches >= attempts) {
            IOException last = failures.remove(failures.size() - 1);
            failures.forEach(last::addSuppressed);
            throw new PartitionFailedException(partition, round.partitions(), fetches, last);
        }
    }

    private static boolean retryable(IOException e) {
        if (e instanceof ExportRequestException refused) {
            return refused.status() >= 500 && !SERVER_BUSY.equals(refused.code());
        }
        return !(e instanceof ExportFailedException || e instanceof StateChangedException
                || e instanceof InterruptedIOException || e instanceof NotRetried || e instanceof Round.Cancelled);
    }

    /** Fetches the partition until a stream begins, reading past the records already returned. */
    private ExportParser fetch() throws IOException {
        while (true) {
            String state = round.stateFor(partition);
            fetches++;
            try {
                return begin(state);
            } catch (IOException e) {
                failed(e);
            }
        }
    }

    private ExportParser begin(String state) throws IOException {
        HttpResponse<InputStream> response = requests.send(partition, state);
        round.opened(partition, response.body());
        if (response.statusCode() == 412 && state != null) {
            String now = response.headers().firstValue(STATE_HEADER).orElse("");
            try {
                ExportParser.open(response).close();  // reads the body: the refusal's code and message
            } catch (ExportRequestException refused) {
                if (STATE_CHANGED.equals(refused.code())) {
                    throw round.changed(state, now);
                }
                throw refused;
            }
        }
        ExportParser p = ExportParser.open(response);
        try {
            ExportHeader h = p.header();
            if (h.partition() != partition || h.partitions() != round.partitions()) {
                throw new NotRetried("asked for partition " + partition + " of " + round.partitions()
                        + ", the server sent partition " + h.partition() + " of " + h.partitions()
                        + ": it does not know partitions (wire format version 2)");
            }
            if (h.state().isEmpty()) {
                throw new NotRetried("the server names no store state (wire format version 2): the partitions "
                        + "cannot be pinned to one state");
            }
            if (state != null && !state.equals(h.state())) {
                throw round.changed(state, h.state());
            }
            if (header != null && !header.equals(h)) {
                throw new NotRetried("partition " + partition + " fetched again begins with " + h
                        + ", not as before: " + header);
            }
            round.answered(partition, h, p.format());
            for (long k = 0; k < returned; k++) {
                Kind kind = p.next(SKIP);
                if (kind == null || kind == Kind.END) {
                    throw new NotRetried("partition " + partition + " fetched again at state " + h.state()
                            + " has " + k + " records, fewer than the " + returned + " already read");
                }
            }
            return p;
        } catch (IOException | RuntimeException e) {
            close(p);
            throw e;
        }
    }

    private static void close(ExportParser p) {
        try {
            p.close();
        } catch (IOException ignored) {
            // a cut stream: nothing more to learn from it
        }
    }

    /** A failure a new fetch cannot mend. */
    static final class NotRetried extends IOException {
        private static final long serialVersionUID = 1L;

        NotRetried(String message) {
            super(message);
        }
    }
}
