package org.subgraphexport.client.internal;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.subgraphexport.client.ExportEnd;
import org.subgraphexport.client.ExportHeader;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.ExportRecord;
import org.subgraphexport.client.StateChangedException;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.Wire;

/**
 * The N partitions of an export as one {@link ExportReader} of the single stream: a thread per partition reads it
 * into blocks of {@link Wire#PARTITION_BLOCK} records, a few blocks queued at most ({@link Round#put}), and
 * {@link #next} deals them back, a block from each partition in turn, which is the single stream's order
 * (docs/wire-format.md §1.3). {@link #open} returns once every partition's stream began at one state; a state change
 * before the first record was returned starts the partitions over (as the policy allows); after it, it fails.
 */
final class MergedReader implements ExportReader {
    private final Partitions partitions;
    private final int count;
    private ExecutorService pool;
    private Round round;
    private int restarts;
    private ExportHeader header;
    private boolean returned;
    private List<ExportRecord> block = List.of();
    private int at;
    private int turn;
    private boolean[] exhausted;
    private int left;
    private boolean ended;
    private IOException failure;

    MergedReader(Partitions partitions) {
        this.partitions = partitions;
        this.count = partitions.requests().partitions();
    }

    /** Starts the partitions and waits until every one's stream began; a state change meanwhile starts over. */
    MergedReader open() throws IOException {
        try {
            begin(null);
        } catch (IOException | RuntimeException | Error e) {
            stop();
            throw e;
        }
        return this;
    }

    private void begin(String state) throws IOException {
        while (true) {
            pool = Partitions.pool(count);
            Round r = new Round(count, state, pool::shutdownNow);
            round = r;
            for (int i = 0; i < count; i++) {
                int partition = i;
                pool.execute(() -> partitions.read(r, partition, (p, stream) -> fill(r, p, new RecordReader(stream))));
            }
            Throwable failed = r.awaitAnswered();
            if (failed == null) {
                ExportHeader first = r.header(0);
                header = new ExportHeader(first.version(), first.database(), first.root(), first.state(), 0, 1);
                block = List.of();
                at = 0;
                turn = 0;
                exhausted = new boolean[count];
                left = count;
                return;
            }
            stop();
            state = partitions.restartState(failed, restarts++);
        }
    }

    /** Reads a partition into blocks of {@link Wire#PARTITION_BLOCK} records, the last one shorter. */
    private static void fill(Round round, int partition, ExportReader records) throws IOException {
        List<ExportRecord> filling = new ArrayList<>(Wire.PARTITION_BLOCK);
        for (ExportRecord r; (r = records.next()) != null; ) {
            if (r instanceof ExportEnd) {
                if (!filling.isEmpty()) round.put(partition, filling);
            } else {
                filling.add(r);
                if (filling.size() == Wire.PARTITION_BLOCK) {
                    round.put(partition, filling);
                    filling = new ArrayList<>(Wire.PARTITION_BLOCK);
                }
            }
        }
    }

    @Override
    public ExportHeader header() {
        return header;
    }

    @Override
    public Format format() {
        return round.format();
    }

    @Override
    public ExportRecord next() throws IOException {
        if (failure != null) {
            throw failure;
        }
        try {
            while (true) {
                if (at < block.size()) {
                    returned = true;
                    return block.get(at++);
                }
                if (left == 0) {
                    if (ended) return null;
                    ended = true;
                    stop();
                    return round.end();
                }
                int p = turn;
                turn = (turn + 1) % count;
                if (exhausted[p]) continue;
                block = List.of();
                at = 0;
                List<ExportRecord> next;
                try {
                    next = round.take(p);
                } catch (StateChangedException changed) {
                    if (returned) throw changed;
                    stop();
                    begin(partitions.restartState(changed, restarts++));
                    continue;
                }
                if (next == null) {
                    exhausted[p] = true;
                    left--;
                } else {
                    block = next;
                }
            }
        } catch (IOException e) {
            failure = e;
            stop();
            throw e;
        } catch (RuntimeException | Error e) {
            failure = new IOException(e);
            stop();
            throw e;
        }
    }

    @Override
    public void close() {
        stop();
    }

    /** Cancels the partitions still reading and waits a little for their threads. */
    private void stop() {
        if (pool == null) return;
        round.fail(new Round.Cancelled(new IOException("the merged reader was closed")));
        pool.shutdownNow();
        try {
            pool.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        pool = null;
    }
}
