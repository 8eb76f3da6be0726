package org.subgraphexport.client.internal;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.subgraphexport.client.ExportEnd;
import org.subgraphexport.client.ExportParser;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.PartitionedExport;
import org.subgraphexport.client.StateChangedException;

/**
 * The machinery under {@link PartitionedExport}: reads the N partitions of an export in {@link Round}s, one
 * {@link PartitionStream} per partition on a pool of threads, and starts a new round, pinned to the new state, when
 * the database moved on and the policy allows it.
 *
 * @param restart     whether a state change starts the partitions over ({@code RESTART}) or fails ({@code FAIL})
 * @param maxRestarts how many times at most
 */
public record Partitions(PartitionRequests requests, int attempts, boolean restart, int maxRestarts) {
    /** What a thread does with its partition's stream; it must read the stream to its end record. */
    public interface Task {
        void run(int partition, ExportParser stream) throws IOException;
    }

    /** Told that the partitions start over at another state. */
    public interface Restarted {
        void restarted(String oldState, String newState) throws IOException;
    }

    /**
     * Runs {@code task} for every partition on {@code threads} threads and returns the whole export's end record once
     * every partition was read to its end; throws the first failure once every task has returned.
     */
    public ExportEnd each(int threads, Task task, Restarted restarted) throws IOException {
        String state = null;
        for (int restarts = 0; ; restarts++) {
            ExecutorService pool = pool(threads);
            Round round = new Round(requests.partitions(), state, pool::shutdownNow);
            try {
                for (int i = 0; i < requests.partitions(); i++) {
                    int partition = i;
                    pool.execute(() -> read(round, partition, task));
                }
                round.awaitFinished();
            } catch (InterruptedIOException e) {
                round.fail(e);
                throw e;
            } finally {
                stop(pool);
            }
            Throwable failure = round.failure();
            if (failure == null) {
                return round.end();
            }
            state = restartState(failure, restarts);
            StateChangedException changed = (StateChangedException) failure;
            restarted.restarted(changed.oldState(), changed.newState());
        }
    }

    /** One reader over all partitions, dealt back into the single stream's order. */
    public ExportReader merged() throws IOException {
        return new MergedReader(this).open();
    }

    /** Reads {@code partition} in {@code round} with {@code task}; any failure fails the round. */
    void read(Round round, int partition, Task task) {
        PartitionStream stream = new PartitionStream(requests, attempts, round, partition);
        try {
            stream.open();
            task.run(partition, stream);
            if (stream.end() == null) {
                throw new IllegalStateException("the consumer of partition " + partition + " returned before its end"
                        + " record: read each partition to its end (until next returns null), or throw to stop the"
                        + " read");
            }
            round.finished(partition, stream.end());
        } catch (Throwable t) {
            round.fail(t);
        } finally {
            try {
                stream.close();
            } catch (IOException ignored) {
                // read to its end, or the round failed already
            }
        }
    }

    /**
     * The state to start over at after {@code failure} (null: not known, partition 0 fixes it again), or
     * {@code failure} thrown: FAIL, the restarts spent, or no state change.
     */
    String restartState(Throwable failure, int restarts) throws IOException {
        if (failure instanceof StateChangedException changed && restart && restarts < maxRestarts) {
            return changed.newState().isEmpty() ? null : changed.newState();
        }
        throw Round.rethrow(failure);
    }

    static ExecutorService pool(int threads) {
        AtomicInteger count = new AtomicInteger();
        return Executors.newFixedThreadPool(threads, task -> {
            Thread t = new Thread(task, "subgraph-export-partitions-" + count.getAndIncrement());
            t.setDaemon(true);
            return t;
        });
    }

    /** Waits for the pool's tasks to return (a failed round has interrupted them); gives up if interrupted. */
    static void stop(ExecutorService pool) {
        pool.shutdown();
        try {
            while (!pool.awaitTermination(1, TimeUnit.SECONDS)) {
                // a consumer still returning from its partition
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
