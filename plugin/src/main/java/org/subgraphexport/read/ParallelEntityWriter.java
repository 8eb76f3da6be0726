package org.subgraphexport.read;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.neo4j.internal.kernel.api.Read;
import org.neo4j.internal.kernel.api.RelationshipScanCursor;
import org.neo4j.internal.kernel.api.RelationshipTraversalCursor;
import org.neo4j.kernel.api.ExecutionContext;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.kernel.api.Statement;
import org.subgraphexport.wire.GraphWriter;

/**
 * The parallel {@link WalkOutput}: the walking thread decides what is emitted and in which order (the walk's
 * order, the same limit as {@link EntityWriter}), but instead of reading each record's labels and properties on
 * the spot it appends the record to a batch; worker threads read whole batches with their own cursors; the
 * walking thread writes finished batches to the {@link GraphWriter}, in the order they were filled. The stream is
 * therefore record for record the one the single-threaded walk writes, given the same data; the writer is only
 * ever called from the walking thread.
 *
 * <p>Existence is checked by the reader, not when the walker accepts a node (that would read every node once
 * more on the walking thread, which is the busier one): a node deleted after the walk met it is skipped when its
 * batch is written, with every relationship that touches it, but it has counted towards the limit.
 *
 * <h2>Threads and the transaction</h2>
 * Workers read inside the export's own transaction through kernel <em>execution contexts</em>, the mechanism
 * Neo4j's parallel Cypher runtime uses: with a statement acquired on the walking thread,
 * {@link KernelTransaction#createExecutionContext()} gives each worker its own storage reader, cursors, page
 * cursor context and memory tracker (reporting to the transaction's pool), under the transaction's security
 * context. The worker calls {@link ExecutionContext#complete()} when done; the walking thread then
 * {@link ExecutionContext#close() closes} it, and closes the statement last. Kernel reads on a context check that
 * the transaction is still open, so a terminated export (timeout, client gone) stops its workers too.
 *
 * <h2>The ring</h2>
 * Batches live in a ring of {@code slots} reused slots, numbered by sequence: the walker fills slot
 * {@code published} and publishes it by incrementing {@code published}; any reader (a worker, or the walking
 * thread when it would otherwise wait) takes the oldest unread batch by incrementing {@code claimed}; the walking
 * thread writes batches from {@code written} on as they finish. At most {@code slots} batches are between being
 * filled and being written, and a batch holds at most {@link #DEFAULT_BATCH_RECORDS} records and about
 * {@link #BATCH_BYTES} of values (sized from the records written so far; the first batches hold
 * {@value #FIRST_BATCH_RECORDS} records), so memory stays flat whatever the size of the subgraph or of its values.
 * Workers are started only when the walk fills its first batch: a small subgraph is read by the walking thread
 * alone, and with no idle worker in the pool the walk goes on exactly as the single-threaded one.
 *
 * <h2>Going single-threaded</h2>
 * Batching costs CPU of its own (about 15% more than reading on the spot: relationships are read a second time,
 * values are kept and handed over), which only pays when workers run while the walking thread works. After
 * {@value #CHECK_AFTER_BATCHES} batches and 100 ms the walk compares the CPU time its threads used with the wall-clock time:
 * below {@value #MIN_CONCURRENCY} processors' worth (the machine has no idle processor: a busy server, other
 * processes, a container with one CPU), it lets the workers finish the batches they hold, writes every batch, and
 * goes on as the single-threaded walk does. The same happens from the start when the pool has no idle worker, or
 * the JVM sees a single processor. Either way the stream is unchanged.
 *
 * <h2>Failures</h2>
 * A worker that fails marks its batch; the walking thread throws that failure when it reaches the batch (after
 * writing every batch before it), so it becomes the stream's error record. Any exit from the walk, including
 * an {@link IOException} from the writer when the client is gone, goes through {@link #close()}, which stops the
 * workers, waits for them to complete their contexts, and closes contexts and statement before the transaction
 * is closed. Workers come from {@link ReaderPool}; when it has no idle thread the walking thread reads alone.
 */
final class ParallelEntityWriter implements WalkOutput {
    /** Most records per batch: big enough that hand-overs cost little, small enough that readers share the work. */
    static final int DEFAULT_BATCH_RECORDS = 512;
    /** Records in the first batches, before the size of a record is known. */
    private static final int FIRST_BATCH_RECORDS = 32;
    /**
     * Estimated heap bytes of values one batch should hold: batches of heavy records (large strings or arrays) get
     * fewer records, so the ring holds a few MiB whatever the data. A record heavier than this is a batch alone.
     */
    static final long BATCH_BYTES = 1L << 20;
    /**
     * Estimated heap bytes the batches between the walker and the writer should hold together. Only records heavier
     * than {@link #BATCH_BYTES} make this bind: then fewer batches (at least two) are in flight.
     */
    static final long RING_BYTES = 4L << 20;
    /** Bytes counted per record besides its values (ids, offsets). */
    private static final long RECORD_BYTES = 48;
    /** Batches read in parallel before the walk checks that the workers actually ran alongside it. */
    static final int CHECK_AFTER_BATCHES = 64;
    /**
     * ... and at least this long: the first batches are small and the stream is only starting (the client, TCP), so a
     * shorter look measured the ramp-up, not the walk (20-40 ms windows gave anything from 0.7 to 1.4 processors).
     */
    static final long CHECK_AFTER_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /**
     * Below this many threads' worth of CPU per unit of wall-clock time over those batches, the workers only took
     * turns with the walking thread (no idle processor: a busy server, other processes), and the walk goes on
     * single-threaded: batching costs CPU of its own, which only pays when the reading really runs in parallel.
     */
    static final double MIN_CONCURRENCY = 1.3;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final boolean CPU_TIME = THREADS.isCurrentThreadCpuTimeSupported() && THREADS.isThreadCpuTimeEnabled();
    /** How long the walking thread waits for a worker's batch before it looks again (it is woken earlier). */
    private static final long WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final KernelTransaction ktx;
    private final Read read;
    private final GraphWriter out;
    private final ValueBridge values;
    private final long limit;
    private final int wantedWorkers;
    /** The slots, made when first filled (a small export needs one). */
    private final RecordBatch[] ring;
    private final int batchRecords;
    private final BatchReader ownReader;
    private final Thread walker = Thread.currentThread();

    /** Batches {@code [0, published)} are filled; readers may take them. Written by the walking thread only. */
    private volatile long published;
    /** Batches {@code [0, claimed)} were taken by a reader. */
    private final AtomicLong claimed = new AtomicLong();
    /** Batches {@code [0, written)} went to the writer. Walking thread only. */
    private long written;
    /** No more batches will be published. */
    private volatile boolean ended;
    /** Workers must stop now (the walk is over, successfully or not). */
    private volatile boolean stopped;
    /** Workers must take no more batches, but finish the one they hold (the walk goes on without them). */
    private volatile boolean retiring;
    /** CPU time the workers spent reading batches. */
    private final AtomicLong workerCpuNanos = new AtomicLong();
    /** A worker failed outside of any batch (setting up its cursors). */
    private volatile Throwable workerFailure;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition workAvailable = lock.newCondition();
    /** Workers waiting on {@link #workAvailable}; changed under {@link #lock}. */
    private volatile int idleWorkers;

    private final double minConcurrency;
    private long checkAt = -1;
    private long checkWallStart;
    private long checkCpuStart;
    private boolean workersRequested;
    private Statement statement;
    private final List<Worker> workers = new ArrayList<>();

    private long acceptedNodes;
    private long nodes;
    private long relationships;
    private boolean truncated;
    /** Nodes found gone by a reader after the walker had accepted them; their relationships are skipped. */
    private LongIdSet gone;
    private int[] labelBuffer = new int[8];
    /** Records the next batch gathers: from the weight of the records written so far (see {@link #BATCH_BYTES}). */
    private int nextTarget;
    /** Batches that may be published and not yet written: the ring's size, fewer when records are very heavy. */
    private int window;
    /** Set when no worker could be started: from then on records are read and written on the spot. */
    private EntityWriter direct;

    /**
     * @param workers      worker threads to ask {@link ReaderPool} for (the walking thread reads too)
     * @param batchRecords records per batch
     * @param minConcurrency see {@link #MIN_CONCURRENCY} (tests force or forbid going single-threaded)
     */
    ParallelEntityWriter(KernelTransaction ktx, GraphWriter out, long limit, int workers, int batchRecords,
            double minConcurrency) {
        if (workers < 1) throw new IllegalArgumentException("workers must be >= 1");
        if (batchRecords < 1) throw new IllegalArgumentException("batchRecords must be >= 1");
        this.ktx = ktx;
        this.read = ktx.dataRead();
        this.out = out;
        this.values = new ValueBridge(out);
        this.limit = limit;
        this.wantedWorkers = workers;
        this.minConcurrency = minConcurrency;
        // Enough slots that every reader has one batch in hand and one waiting, plus the one being filled.
        this.ring = new RecordBatch[2 * (workers + 1) + 1];
        this.batchRecords = batchRecords;
        this.nextTarget = Math.min(batchRecords, FIRST_BATCH_RECORDS);
        this.window = ring.length;
        filling().target = nextTarget;
        this.ownReader = new BatchReader(read, ktx.cursors(), ktx.cursorContext(), ktx.memoryTracker());
    }

    @Override
    public boolean writeNode(long id) throws IOException {
        if (direct != null) {
            return direct.writeNode(id);
        }
        if (acceptedNodes >= limit) {
            truncated = true;
            return false;
        }
        if ((acceptedNodes & Budget.CHECK_MASK) == 0) {
            Budget.check(ktx);
        }
        RecordBatch batch = filling();
        batch.addNode(id);
        acceptedNodes++;
        if (batch.isFull()) {
            publish(true);
        }
        return true;
    }

    @Override
    public void writeRelationship(RelationshipTraversalCursor rel) throws IOException {
        if (direct == null) {
            queue(rel.relationshipReference(), rel.type(), rel.sourceNodeReference(), rel.targetNodeReference());
        } else if (!isGone(rel.sourceNodeReference()) && !isGone(rel.targetNodeReference())) {
            direct.writeRelationship(rel);
        }
    }

    @Override
    public void writeRelationship(RelationshipScanCursor rel) throws IOException {
        if (direct == null) {
            queue(rel.relationshipReference(), rel.type(), rel.sourceNodeReference(), rel.targetNodeReference());
        } else if (!isGone(rel.sourceNodeReference()) && !isGone(rel.targetNodeReference())) {
            direct.writeRelationship(rel);
        }
    }

    private void queue(long id, int type, long source, long target) throws IOException {
        RecordBatch batch = filling();
        batch.addRelationship(id, type, source, target);
        if (batch.isFull()) {
            publish(true);
        }
    }

    @Override
    public void flush() throws IOException {
        if (!filling().isEmpty()) {
            publish(false);
        }
        ended = true;
        wakeIdleWorkers();
        while (written < published) {
            helpOrWait();
        }
    }

    @Override
    public long nodes() {
        return direct == null ? nodes : nodes + direct.nodes();
    }

    @Override
    public long relationships() {
        return direct == null ? relationships : relationships + direct.relationships();
    }

    @Override
    public boolean truncated() {
        return truncated || direct != null && direct.truncated();
    }

    /** The slot the walker is filling: the one {@link #published} will number next. */
    private RecordBatch filling() {
        int index = (int) (published % ring.length);
        RecordBatch batch = ring[index];
        if (batch == null) {
            batch = ring[index] = new RecordBatch(batchRecords);
        }
        return batch;
    }

    private RecordBatch slot(long sequence) {
        return ring[(int) (sequence % ring.length)];
    }

    private void publish(boolean more) throws IOException {
        published = published + 1; // single writer; the volatile write hands the batch to readers
        if (more && !workersRequested) {
            startWorkers();
        }
        wakeIdleWorkers();
        writeFinished();
        if (checkAt >= 0 && published >= checkAt && more && (System.nanoTime() - checkWallStart >= CHECK_AFTER_NANOS
                || minConcurrency > Runtime.getRuntime().availableProcessors())) {  // unreachable: no need to wait
            checkAt = -1;
            if (!ranInParallel()) {
                retireWorkers();
            }
        }
        if (workers.isEmpty()) {
            // No worker to be had (the pool is busy with other exports), or none that ran alongside: write what is
            // batched, then go on as the single-threaded walk does, reading each record on the spot.
            while (written < published) {
                helpOrWait();
            }
            if (more) {
                direct = new EntityWriter(ktx, out, limit - acceptedNodes);
            }
            return;
        }
        while (published - written >= window) {
            helpOrWait();
        }
        filling().target = nextTarget;
    }

    /**
     * Makes progress on the oldest unwritten batch: writes it if it is read; else reads the oldest unclaimed batch
     * on this thread (that may be this very one); else waits until a worker finishes one.
     */
    private void helpOrWait() throws IOException {
        RecordBatch head = slot(written);
        if (!head.isFinished()) {
            long next = claimed.get();
            if (next < published && claimed.compareAndSet(next, next + 1)) {
                RecordBatch batch = slot(next);
                try {
                    ownReader.read(batch, () -> false);
                    batch.finish(null);
                } catch (RuntimeException | Error e) {
                    batch.finish(e);
                    throw e;
                }
            } else if (!head.isFinished()) {
                LockSupport.parkNanos(this, WAIT_NANOS);
            }
        }
        writeFinished();
    }

    /** Writes every finished batch at the head of the ring, in order; throws a reader's failure when reached. */
    private void writeFinished() throws IOException {
        while (written < published) {
            RecordBatch batch = slot(written);
            if (!batch.isFinished()) break;
            Throwable failure = batch.failure();
            if (failure != null) {
                throw rethrow(failure);
            }
            write(batch);
            if (batch.size > 0) {
                long perRecord = RECORD_BYTES + batch.bytes / batch.size;
                nextTarget = (int) Math.max(1, Math.min(batch.capacity, BATCH_BYTES / perRecord));
                window = (int) Math.max(2, Math.min(ring.length, RING_BYTES / Math.max(1, batch.bytes)));
            }
            batch.reset();
            written++;
        }
        Throwable failure = workerFailure;
        if (failure != null) {
            throw rethrow(failure);
        }
    }

    private void write(RecordBatch batch) throws IOException {
        int labelStart = 0;
        int propertyStart = 0;
        for (int i = 0; i < batch.size; i++) {
            int labelEnd = batch.labelEnd[i];
            int propertyEnd = batch.propertyEnd[i];
            long id = batch.ids[i];
            if (batch.types[i] == RecordBatch.NODE) {
                if (!batch.present[i]) {
                    if (gone == null) gone = new LongIdSet(ktx.memoryTracker());
                    gone.add(id);
                } else {
                    int labelCount = labelEnd - labelStart;
                    if (labelCount > labelBuffer.length) {
                        labelBuffer = new int[Math.max(labelCount, labelBuffer.length * 2)];
                    }
                    System.arraycopy(batch.labels, labelStart, labelBuffer, 0, labelCount);
                    out.beginNode(id, labelBuffer, labelCount);
                    writeProperties(batch, propertyStart, propertyEnd);
                    out.endNode();
                    nodes++;
                }
            } else if (batch.present[i] && !isGone(batch.starts[i]) && !isGone(batch.ends[i])) {
                out.beginRelationship(id, batch.types[i], batch.starts[i], batch.ends[i]);
                writeProperties(batch, propertyStart, propertyEnd);
                out.endRelationship();
                relationships++;
            }
            labelStart = labelEnd;
            propertyStart = propertyEnd;
        }
    }

    private void writeProperties(RecordBatch batch, int from, int to) throws IOException {
        for (int p = from; p < to; p++) {
            out.property(batch.keys[p]);
            batch.values[p].writeTo(values);
        }
    }

    private boolean isGone(long node) {
        return gone != null && gone.contains(node);
    }

    // ---- workers ----------------------------------------------------------------------------------------------

    private void startWorkers() {
        workersRequested = true;
        if (!ReaderPool.canRunInParallel()) {
            return;
        }
        statement = ktx.acquireStatement();
        for (int i = 0; i < wantedWorkers; i++) {
            ExecutionContext context = ktx.createExecutionContext();
            Worker worker = new Worker(context);
            boolean started = false;
            try {
                started = ReaderPool.tryStart(worker);
            } finally {
                if (!started) {
                    // every pool thread is busy with other exports (or none could be made): this walk reads with
                    // fewer workers, or alone; the unused context was touched by no other thread
                    context.complete();
                    context.close();
                }
            }
            if (!started) break;
            workers.add(worker);
        }
        if (workers.isEmpty()) {
            statement.close();
            statement = null;
        } else if (CPU_TIME) {
            checkAt = published + CHECK_AFTER_BATCHES;
            checkWallStart = System.nanoTime();
            checkCpuStart = THREADS.getCurrentThreadCpuTime();
        }
    }

    /** Whether, since the workers started, this thread and the workers together used the CPU of more than one. */
    private boolean ranInParallel() {
        long wall = System.nanoTime() - checkWallStart;
        long cpu = THREADS.getCurrentThreadCpuTime() - checkCpuStart + workerCpuNanos.get();
        return cpu >= minConcurrency * wall;
    }

    /**
     * Lets the workers finish the batches they hold, writes every published batch (reading the rest on this
     * thread), then releases workers, contexts and statement: the walk goes on with this thread alone.
     */
    private void retireWorkers() throws IOException {
        retiring = true;
        wakeIdleWorkers();
        while (written < published) {
            helpOrWait();
        }
        releaseWorkers();
    }

    private void wakeIdleWorkers() {
        if (idleWorkers > 0) {
            lock.lock();
            try {
                workAvailable.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /** Stops the workers, waits for them to complete their contexts, then closes contexts and statement. */
    @Override
    public void close() {
        RuntimeException failure = null;
        try {
            releaseWorkers();
        } catch (RuntimeException e) {
            failure = e;
        }
        ownReader.close();
        if (direct != null) direct.close();
        if (failure != null) throw failure;
    }

    private void releaseWorkers() {
        stopped = true;
        wakeIdleWorkers();
        RuntimeException failure = null;
        for (Worker worker : workers) {
            worker.awaitCompleted();
        }
        for (Worker worker : workers) {
            try {
                worker.context.close(); // after the worker's complete(), on the owning thread
            } catch (RuntimeException e) {
                if (failure == null) failure = e; else failure.addSuppressed(e);
            }
        }
        workers.clear();
        if (statement != null) {
            statement.close();
            statement = null;
        }
        if (failure != null) throw failure;
    }

    private final class Worker implements Runnable {
        final ExecutionContext context;
        private final CountDownLatch completed = new CountDownLatch(1);

        Worker(ExecutionContext context) {
            this.context = context;
        }

        @Override
        public void run() {
            try (BatchReader reader = new BatchReader(
                    context.dataRead(), context.cursors(), context.cursorContext(), context.memoryTracker())) {
                while (!stopped && !retiring) {
                    long next = claimed.get();
                    if (next < published) {
                        if (claimed.compareAndSet(next, next + 1) && !readBatch(reader, slot(next))) {
                            return;
                        }
                    } else if (ended || !awaitWork()) {
                        return;
                    }
                }
            } catch (Throwable t) {
                workerFailure = t;
            } finally {
                try {
                    context.complete();
                } finally {
                    completed.countDown();
                    LockSupport.unpark(walker);
                }
            }
        }

        /** Reads one claimed batch; false if it failed (the batch carries the failure for the walking thread). */
        private boolean readBatch(BatchReader reader, RecordBatch batch) {
            Throwable failure = null;
            long start = CPU_TIME ? THREADS.getCurrentThreadCpuTime() : 0;
            try {
                reader.read(batch, () -> stopped);
            } catch (Throwable t) {
                failure = t;
            }
            if (CPU_TIME) {
                workerCpuNanos.addAndGet(THREADS.getCurrentThreadCpuTime() - start);
            }
            batch.finish(failure);
            LockSupport.unpark(walker);
            return failure == null;
        }

        /** Waits until a batch may be available or the walk ends; false if interrupted. */
        private boolean awaitWork() {
            lock.lock();
            try {
                idleWorkers++;
                while (!stopped && !retiring && !ended && claimed.get() >= published) {
                    workAvailable.await();
                }
                return true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } finally {
                idleWorkers--;
                lock.unlock();
            }
        }

        void awaitCompleted() {
            boolean interrupted = false;
            while (true) {
                try {
                    completed.await();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    private static IOException rethrow(Throwable failure) {
        if (failure instanceof IOException e) return e;
        if (failure instanceof RuntimeException e) throw e;
        if (failure instanceof Error e) throw e;
        throw new UncheckedIOException(new IOException("parallel read failed", failure));
    }

    /** Records the next batch gathers (tests: the sizing from the records written so far). */
    int nextTarget() {
        return nextTarget;
    }

    /** Batches that may be in flight (tests). */
    int window() {
        return window;
    }
}
