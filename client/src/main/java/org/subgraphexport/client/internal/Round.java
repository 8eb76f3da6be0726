package org.subgraphexport.client.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.subgraphexport.client.ExportEnd;
import org.subgraphexport.client.ExportHeader;
import org.subgraphexport.client.ExportRecord;
import org.subgraphexport.client.StateChangedException;
import org.subgraphexport.wire.Format;

/**
 * One reading of the N partitions of an export at one store state, shared by the threads that read them: the
 * state (given, or fixed by partition 0's answer, which the other partitions wait for), each partition's header,
 * end record and open response body, and the first failure, which ends the round: it closes the open bodies, wakes
 * every wait and runs the owner's cancellation (interrupting the readers). Every later call of a reader fails with
 * {@link Cancelled}. For the merged reader, a small bounded queue of record blocks per partition.
 */
final class Round {
    /** Blocks a partition's queue holds for the merged reader: a block being filled and one being read come on top. */
    static final int QUEUED_BLOCKS = 2;

    private final int partitions;
    private final Runnable cancel;
    private String state;
    private Format format;
    private final ExportHeader[] headers;
    private final ExportEnd[] ends;
    private final InputStream[] bodies;
    private final List<ArrayDeque<List<ExportRecord>>> blocks = new ArrayList<>();
    private int answered;
    private int finished;
    private Throwable failure;

    /**
     * @param state  the state every partition is pinned to; null: partition 0 asks without and its answer fixes it
     * @param cancel run once when the round fails (e.g. interrupting the reading threads)
     */
    Round(int partitions, String state, Runnable cancel) {
        this.partitions = partitions;
        this.state = state;
        this.cancel = cancel;
        this.headers = new ExportHeader[partitions];
        this.ends = new ExportEnd[partitions];
        this.bodies = new InputStream[partitions];
        for (int i = 0; i < partitions; i++) {
            blocks.add(new ArrayDeque<>());
        }
    }

    /** A reader's call after its round failed: the read is being cancelled because of another failure. */
    static final class Cancelled extends IOException {
        private static final long serialVersionUID = 1L;

        Cancelled(Throwable because) {
            super("the partitions' read is cancelled: " + because);
        }
    }

    int partitions() {
        return partitions;
    }

    /**
     * The state partition {@code partition} must ask for, null for partition 0 while none is known (its answer fixes
     * it); the other partitions wait for that answer.
     */
    synchronized String stateFor(int partition) throws IOException {
        while (state == null && partition != 0 && failure == null) {
            await();
        }
        check();
        return state;
    }

    /** The state the round reads (null before partition 0 answered, in a round that did not know it). */
    synchronized String state() {
        return state;
    }

    /** Remembers the open response body of {@code partition}, to close it if the round fails; closes it if it has. */
    void opened(int partition, InputStream body) throws IOException {
        synchronized (this) {
            if (failure == null) {
                bodies[partition] = body;
                return;
            }
        }
        body.close();
        check();
    }

    /** {@code partition}'s stream began with {@code header} (its first fetch, or a re-fetch). */
    synchronized void answered(int partition, ExportHeader header, Format format) {
        if (state == null) {
            state = header.state();
        }
        this.format = format;
        if (headers[partition] == null) {
            headers[partition] = header;
            answered++;
        }
        notifyAll();
    }

    /** {@code partition} was read to its end record. */
    synchronized void finished(int partition, ExportEnd end) {
        ends[partition] = end;
        bodies[partition] = null;
        finished++;
        notifyAll();
    }

    /**
     * Ends the round with {@code t}, if it is the first failure: closes the open bodies and runs the cancellation.
     * Later failures (mostly the cancellation's own) are dropped.
     */
    void fail(Throwable t) {
        List<InputStream> open = new ArrayList<>();
        synchronized (this) {
            if (failure != null) {
                return;
            }
            failure = t;
            for (InputStream body : bodies) {
                if (body != null) open.add(body);
            }
            notifyAll();
        }
        for (InputStream body : open) {
            try {
                body.close();
            } catch (IOException | RuntimeException ignored) {
                // the connection goes anyway
            }
        }
        cancel.run();
    }

    /** {@link StateChangedException} from {@code oldState} to {@code newState}, the round failed with it. */
    StateChangedException changed(String oldState, String newState) {
        StateChangedException changed = new StateChangedException(oldState, newState);
        fail(changed);
        return changed;
    }

    synchronized Throwable failure() {
        return failure;
    }

    /** Throws {@link Cancelled} if the round failed. */
    synchronized void check() throws Cancelled {
        if (failure != null) {
            throw new Cancelled(failure);
        }
    }

    /** Waits until every partition's stream began or the round failed; returns the failure or null. */
    synchronized Throwable awaitAnswered() throws InterruptedIOException {
        while (answered < partitions && failure == null) {
            await();
        }
        return failure;
    }

    /** Waits until every partition was read to its end or the round failed; returns the failure or null. */
    synchronized Throwable awaitFinished() throws InterruptedIOException {
        while (finished < partitions && failure == null) {
            await();
        }
        return failure;
    }

    synchronized ExportHeader header(int partition) {
        return headers[partition];
    }

    /** The partitions' format (the URL names it), once one answered. */
    synchronized Format format() {
        return format;
    }

    /**
     * The whole export's end record: the partitions' counts summed, {@code truncated} (the whole export's, the same in
     * every partition) and the state. Only once every partition finished.
     */
    synchronized ExportEnd end() {
        long nodes = 0;
        long relationships = 0;
        long rows = 0;
        boolean truncated = false;
        for (ExportEnd end : ends) {
            nodes += end.nodes();
            relationships += end.relationships();
            rows += end.rows();
            truncated |= end.truncated();
        }
        return new ExportEnd(nodes, relationships, truncated, rows, state);
    }

    // ---- the merged reader's blocks ----------------------------------------------------------------------------

    /** Queues a block of {@code partition}'s records, waiting while its queue is full. */
    synchronized void put(int partition, List<ExportRecord> block) throws IOException {
        ArrayDeque<List<ExportRecord>> queue = blocks.get(partition);
        while (queue.size() >= QUEUED_BLOCKS && failure == null) {
            await();
        }
        check();
        queue.add(block);
        notifyAll();
    }

    /**
     * The next block of {@code partition}'s records, waiting for it; null once the partition is read to its end and
     * its blocks are taken.
     *
     * @throws IOException the round's failure itself (an unchecked one unchecked, as it was thrown)
     */
    synchronized List<ExportRecord> take(int partition) throws IOException {
        ArrayDeque<List<ExportRecord>> queue = blocks.get(partition);
        while (queue.isEmpty() && ends[partition] == null && failure == null) {
            await();
        }
        if (failure != null) {
            throw rethrow(failure);
        }
        List<ExportRecord> block = queue.poll();
        notifyAll();
        return block;
    }

    /** {@code t} to throw: an IOException as it is; an unchecked exception or error is thrown here. */
    static IOException rethrow(Throwable t) {
        if (t instanceof IOException e) return e;
        if (t instanceof RuntimeException e) throw e;
        if (t instanceof Error e) throw e;
        return new IOException(t);
    }

    private void await() throws InterruptedIOException {
        try {
            wait();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while reading the partitions of an export");
        }
    }
}
