package org.subgraphexport.read;

import java.io.IOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.internal.kernel.api.Read;
import org.neo4j.internal.kernel.api.RelationshipScanCursor;
import org.neo4j.kernel.api.KernelTransaction;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Wire;

/**
 * Partitions of one export that run at the same time share one walk of the topology. One registry per DBMS.
 *
 * <h2>Why shared when concurrent</h2>
 * A partition ({@link Partition}) must be answerable alone, at any time, with no state kept on the server between
 * requests, and the partitions together must carry each record of the single stream exactly once. The only way to
 * know which records are a partition's is to walk the whole topology (an attached node reachable from members of
 * several partitions is deduplicated only by whoever walked everything), so every partition walked it: N partitions
 * cost the topology walk N times (about a quarter of a single stream each). But a client normally reads its N
 * partitions at once. So when partitions of the same export overlap in time, one walk serves them all; a partition
 * alone, or one that cannot share, walks by itself as before. The contract does not change, only the cost.
 *
 * <h2>Who shares with whom</h2>
 * Two requests are the same export when their {@link Key}s are equal: database, state (the database's last committed
 * transaction as the request read it: partitions that read different states may decide different sequences), user
 * (privileges may differ per user), root, {@link WalkSpec} and number of partitions. The format and the read threads
 * are not part of it: the sequence does not depend on them.
 * <ul>
 *   <li>The first partition to arrive is the <b>producer</b>: it walks exactly as a lone partition does
 *       ({@link PartitionedOutput}, in its own transaction, on its own request thread) and also appends every record
 *       of the walk's sequence (node or relationship id, 8 bytes) to a chunked, append-only buffer, then the walk's
 *       final {@code truncated}. It never waits for anyone.</li>
 *   <li>A partition that arrives while the buffer still holds record 0 is a <b>consumer</b>: it does not walk. It
 *       takes the records it owns from the buffer as it grows (waiting when it has caught up with the producer) and
 *       reads and writes each by id in its own transaction (a node as {@link EntityWriter#writeNode} does, a
 *       relationship through a {@link RelationshipScanCursor} as {@link BatchReader} does), through the same
 *       {@link WalkOutput} its own walk would have used: its stream is record for record the one its own walk writes.
 *       The end record's {@code truncated} is the producer's (depth cut included).</li>
 *   <li>A partition that arrives after chunk 0 was released walks by itself, not registered.</li>
 * </ul>
 *
 * <h2>What is bounded</h2>
 * Every chunk ({@code chunkRecords} records, 64 KiB in production) is counted against
 * {@code server.subgraph_export.partition_share_size} over all exports of the DBMS, and one export holds at most a
 * quarter of it (its window, at least 2 chunks). A chunk is released once every attached consumer has passed it and
 * every partition of the export has joined (until then it is kept, within the window, for partitions still to come);
 * the window forces the oldest chunk out, and detaches the consumers that had not passed it (a stalled client). When
 * the setting is used up, the producer first releases the chunks it kept for partitions still to come, and if that
 * is not enough it stops recording (the export is no longer shared; its consumers fall back as below). Memory per
 * export is therefore at most the window, and over all exports at most the setting, whatever the subgraph's size.
 * A detached consumer may still read the chunk it is in until its next block of 256 records.
 *
 * <h2>Fallbacks: a consumer walks the topology itself</h2>
 * Each of these ends a consumer's share; it then walks the topology itself into the same output, exactly as a lone
 * partition ({@link PartitionedOutput}), passing over unwritten the records of the sequence it already passed (it
 * counts them), so its stream is still exactly its partition:
 * <ul>
 *   <li>it fell behind the window and was detached;</li>
 *   <li>its producer failed (its client left, its transaction was terminated or timed out, any exception) or stopped
 *       recording (memory): the consumer first takes every record the producer published, then walks;</li>
 *   <li>its producer published nothing new for {@code stallNanos} (1 s in production: a producer whose own client
 *       stopped reading is blocked in a write until the write-stall timeout ends it);</li>
 *   <li>its thread was interrupted while it waited (a lone walk ignores interrupts; waiting cannot).</li>
 * </ul>
 * A consumer that has caught up asks to be woken when a stretch worth its while is published (its next block of
 * 256 records, and at least {@value #WAKE_RECORDS} records on: one wake-up per 64 KiB of sequence, not one per
 * record; the producer looks at block boundaries only), and parks for at most {@value #PARK_MILLIS} ms at a time,
 * checking its own transaction (termination, timeout: {@link Budget#check}) every time. A consumer that fails itself
 * (its client, its transaction) just leaves; the producer never depends on a consumer. The other way round, consumers
 * follow their producer's pace: a producer whose client reads slowly (but not stalled) slows its consumers too.
 *
 * <h2>Lifetime</h2>
 * An entry leaves the registry when its producer has finished and its last consumer has left, or at once when the
 * producer fails or stops recording (consumers still reading keep its chunks counted until they leave). Every path
 * out of {@link #walk}, exceptions included, leaves the registry: nothing of an export outlives its requests.
 * Structural changes (join, leave, a new or released chunk, detaching) take the registry's lock, about once per chunk;
 * records themselves pass without locking (the producer publishes its count with a release store, consumers read it).
 *
 * <p>Exactness needs what partitions need anyway: every partition reading one state. A consumer reads records by id in
 * its own transaction; if a commit changed them since the producer's walk met them, its stream is not the one its own
 * walk would have written (a relationship gone is skipped, a node gone too), exactly as two partitions walking alone
 * across a commit would disagree. Keys with the state read when the transaction began keep two requests that read
 * different states apart; a commit while they run is the server's state check to catch.
 */
public final class SharedWalks {
    /** Records per chunk: 64 KiB. */
    static final int CHUNK_RECORDS = 8192;
    /** How long a consumer waits for a new record before it walks itself. */
    static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Records a waiting consumer asks to be published, at least, before it is woken. */
    static final int WAKE_RECORDS = 8192;
    /** Longest a consumer parks before it looks at its transaction and its producer again. */
    static final long PARK_MILLIS = 10;

    private static final Map<DatabaseManagementService, SharedWalks> PER_DBMS = new WeakHashMap<>();

    /**
     * What makes two partition requests the same export (see the class comment).
     *
     * @param state {@link StoreState#version} read when the partition's transaction began (or the state the request
     *              pinned and the server checked)
     * @param user  the executing user of the transaction ("" without authentication)
     */
    public record Key(UUID database, String state, String user, long root, WalkSpec spec, int partitions) {}

    /** What a partitioned export passes to {@link TraverseExport#run}: the registry and the state it read. */
    public record Share(SharedWalks walks, String state) {
        Key key(KernelTransaction ktx, long root, WalkSpec spec, Partition partition) {
            String user = ktx.securityContext().subject().executingUser();
            return new Key(ktx.getDatabaseId(), state, user == null ? "" : user, root, spec, partition.count());
        }
    }

    /** How often each role was taken, and the memory held; for tests, the probe and the logs. */
    public record Stats(long producers, long consumers, long alone, long fallbacks, long detached, long stopped,
            long stalled, int entries, long bytes, long peakBytes) {}

    private final long maxBytes;
    private final int chunkRecords;
    private final long chunkBytes;
    private final int windowChunks;
    private final long stallNanos;

    // guarded by this
    private final Map<Key, Entry> entries = new HashMap<>();
    private long bytes;
    private long peakBytes;
    private long producers;
    private long consumers;
    private long alone;
    private long detached;
    private long stopped;
    private final AtomicLong stalled = new AtomicLong();
    private final AtomicLong fallbacks = new AtomicLong();

    /** The registry of {@code dbms}'s exports; {@code maxBytes} ({@code partition_share_size}) is the first caller's. */
    public static synchronized SharedWalks of(DatabaseManagementService dbms, long maxBytes) {
        return PER_DBMS.computeIfAbsent(dbms, d -> new SharedWalks(maxBytes));
    }

    SharedWalks(long maxBytes) {
        this(maxBytes, CHUNK_RECORDS, (int) Math.max(2, Math.min(Integer.MAX_VALUE,
                maxBytes / 4 / chunkBytes(CHUNK_RECORDS))), STALL_NANOS);
    }

    /** Tests use tiny chunks and windows and short stalls. */
    SharedWalks(long maxBytes, int chunkRecords, int windowChunks, long stallNanos) {
        if (chunkRecords < 1 || windowChunks < 2) throw new IllegalArgumentException("chunks of >= 1 record, window >= 2");
        this.maxBytes = maxBytes;
        this.chunkRecords = chunkRecords;
        this.chunkBytes = chunkBytes(chunkRecords);
        this.windowChunks = windowChunks;
        this.stallNanos = stallNanos;
    }

    private static long chunkBytes(int records) {
        return 16 + 8L * records; // a long[]'s header and its elements
    }

    public Share share(String state) {
        return new Share(this, state);
    }

    public synchronized Stats stats() {
        return new Stats(producers, consumers, alone, fallbacks.get(), detached, stopped, stalled.get(), entries.size(),
                bytes, peakBytes);
    }

    /**
     * Writes {@code partition}'s records of the walk from {@code rootId} with {@code walker} (not walked yet, on
     * {@code ktx}): as producer, consumer or alone (class comment). The result is what
     * {@link SubgraphWalker#walk(long, WalkSpec, Partition, GraphWriter)} would return.
     */
    SubgraphWalker.Result walk(SubgraphWalker walker, KernelTransaction ktx, Key key, long rootId, WalkSpec spec,
            Partition partition, GraphWriter out) throws IOException {
        Object role = join(key, partition);
        if (role instanceof Producer producer) {
            return produce(producer, walker, rootId, spec, partition, out);
        }
        if (role instanceof Consumer consumer) {
            return consume(consumer, walker, ktx, rootId, spec, partition, out);
        }
        return walker.walk(rootId, spec, partition, out);
    }

    private SubgraphWalker.Result produce(Producer producer, SubgraphWalker walker, long rootId, WalkSpec spec,
            Partition partition, GraphWriter out) throws IOException {
        try {
            WalkOutput owned = walker.output(out, Long.MAX_VALUE);
            SubgraphWalker.Result result =
                    walker.walk(rootId, spec, new PartitionedOutput(owned, partition, spec.limit(), 0, producer));
            end(producer.entry, result.truncated());
            return result;
        } finally {
            producerLeft(producer.entry);
        }
    }

    private SubgraphWalker.Result consume(Consumer consumer, SubgraphWalker walker, KernelTransaction ktx, long rootId,
            WalkSpec spec, Partition partition, GraphWriter out) throws IOException {
        WalkOutput owned = walker.output(out, Long.MAX_VALUE);
        long resumeAt;
        try (RelationshipScanCursor relationship =
                ktx.cursors().allocateRelationshipScanCursor(ktx.cursorContext(), ktx.memoryTracker())) {
            resumeAt = consumer.replay(ktx, owned, relationship, partition);
        } finally {
            consumerLeft(consumer);
        }
        if (resumeAt < 0) {
            owned.flush();
            return new SubgraphWalker.Result(owned.nodes(), owned.relationships(), consumer.entry.truncated);
        }
        fallbacks.incrementAndGet();
        return walker.walk(rootId, spec, new PartitionedOutput(owned, partition, spec.limit(), resumeAt, null));
    }

    // ---- the registry (every method below that is synchronized changes entries, chunks or counts) -------------------
    // The roles, the entry and the methods a role calls are package-private: SharedWalksRegistryTest drives them on
    // one thread, without a database, and checks the memory held after each step.

    private static final int RUNNING = 0;
    private static final int ENDED = 1;
    private static final int STOPPED = 2;

    /** One export being shared: its buffer, its producer's progress, its consumers. */
    final class Entry {
        final Key key;
        /** Chunks {@code firstChunk, firstChunk + 1, ...}; the last is the one being filled. */
        final List<long[]> chunks = new ArrayList<>();
        long firstChunk;
        final List<Consumer> consumers = new ArrayList<>();
        final BitSet joined = new BitSet();
        boolean producerLeft;
        /** Records of the sequence published so far (a release store per record, by the producer). */
        final AtomicLong published = new AtomicLong();
        volatile int state = RUNNING;
        /** The walk's truncated; written before {@link #state} becomes {@link #ENDED}. */
        boolean truncated;
        /** The threads of {@link #consumers}, copied on change: the producer wakes them without the lock. */
        volatile Thread[] threads = new Thread[0];
        /** The smallest {@link #published} a waiting consumer asked to be woken at; MAX_VALUE: none waits. */
        final AtomicLong wakeAt = new AtomicLong(Long.MAX_VALUE);

        Entry(Key key) {
            this.key = key;
        }

        boolean allJoined() {
            return joined.cardinality() == key.partitions();
        }
    }

    /** The producer's side: appends the sequence (a record is {@code id << 1}, plus 1 for a relationship). */
    final class Producer implements PartitionedOutput.Sequence {
        final Entry entry;
        private long[] current;
        private int fill;
        private long count;
        private boolean recording = true;

        Producer(Entry entry) {
            this.entry = entry;
            this.current = entry.chunks.get(0);
        }

        @Override
        public void node(long id) {
            append(id << 1);
        }

        @Override
        public void relationship(long id) {
            append(id << 1 | 1);
        }

        private void append(long record) {
            if (!recording) return;
            if (fill == current.length) {
                current = nextChunk(entry);
                fill = 0;
                if (current == null) {
                    recording = false;
                    return;
                }
            }
            current[fill++] = record;
            entry.published.lazySet(++count);
            if ((count & (Wire.PARTITION_BLOCK - 1)) == 0 && count >= entry.wakeAt.get()) {
                entry.wakeAt.set(Long.MAX_VALUE);
                wake(entry);
            }
        }
    }

    /** A consumer's side: where it is in the sequence, and whether it was detached. */
    final class Consumer {
        final Entry entry;
        final Thread thread = Thread.currentThread();
        /** Records of the sequence this consumer has passed; pins the chunks from the one holding it on. */
        volatile long position;
        volatile boolean detached;

        Consumer(Entry entry) {
            this.entry = entry;
        }

        /**
         * Writes this partition's records of the sequence as the producer publishes them. Returns -1 when the
         * sequence is complete, else the number of records passed when the share ended (a fallback).
         */
        long replay(KernelTransaction ktx, WalkOutput owned, RelationshipScanCursor relationship, Partition partition)
                throws IOException {
            Read read = ktx.dataRead();
            long at = 0;
            long[] chunk = null;
            long chunkStart = -1;
            long seen = -1;
            long idleSince = 0;
            while (true) {
                long published = entry.published.get();
                if (at < published) {
                    if (detached) return at;
                    if (!partition.owns(at)) {
                        at = Math.min(published, partition.nextOwned(at));
                    } else {
                        if (chunk == null || at >= chunkStart + chunk.length) {
                            long index = at / chunkRecords;
                            chunk = chunk(this, index);
                            if (chunk == null) return at;
                            chunkStart = index * chunkRecords;
                        }
                        long blockEnd = (at / Wire.PARTITION_BLOCK + 1) * Wire.PARTITION_BLOCK;
                        long end = Math.min(published, Math.min(blockEnd, chunkStart + chunk.length));
                        for (; at < end; at++) {
                            long record = chunk[(int) (at - chunkStart)];
                            if ((record & 1) == 0) {
                                owned.writeNode(record >>> 1); // false: deleted since (not written, as a walk would not)
                            } else {
                                read.singleRelationship(record >>> 1, relationship);
                                if (relationship.next()) owned.writeRelationship(relationship);
                            }
                        }
                    }
                    position = at;
                    continue;
                }
                int state = entry.state;
                if (state != RUNNING) {
                    if (entry.published.get() > at) continue; // published before the state changed
                    return state == ENDED ? -1 : at;
                }
                long now = System.nanoTime();
                if (published != seen) {
                    seen = published;
                    idleSince = now;
                } else if (now - idleSince > stallNanos) {
                    stalled.incrementAndGet();
                    return at;
                }
                Budget.check(ktx);
                // its next block and a good stretch, but soon enough to move on before the window would detach it
                long wakeAt = Math.min(at + Math.max(1, (windowChunks - 1L) * chunkRecords / 2),
                        Math.max(partition.nextOwned(at) + Wire.PARTITION_BLOCK, at + WAKE_RECORDS));
                entry.wakeAt.accumulateAndGet(wakeAt, Math::min);
                if (entry.published.get() == published && entry.state == RUNNING) {
                    LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(PARK_MILLIS));
                    // an interrupt would end every park at once: walk, as a lone partition does, which ignores it
                    if (Thread.currentThread().isInterrupted()) return at;
                }
            }
        }
    }

    /** A producer, a consumer, or null: walk alone. */
    synchronized Object join(Key key, Partition partition) {
        Entry entry = entries.get(key);
        if (entry == null) {
            if (!reserve()) {
                alone++;
                return null;
            }
            entry = new Entry(key);
            entry.chunks.add(new long[chunkRecords]);
            entry.joined.set(partition.index());
            entries.put(key, entry);
            producers++;
            return new Producer(entry);
        }
        if (entry.firstChunk > 0) {
            alone++;
            return null;
        }
        Consumer consumer = new Consumer(entry);
        entry.consumers.add(consumer);
        threadsChanged(entry);
        entry.joined.set(partition.index());
        consumers++;
        return consumer;
    }

    /** The producer's next chunk, or null if it must stop recording (the setting is used up). */
    synchronized long[] nextChunk(Entry entry) {
        if (entry.state != RUNNING) return null;
        releasePassed(entry, false);
        if (entry.chunks.size() >= windowChunks) {
            long end = (entry.firstChunk + 1) * chunkRecords;
            entry.consumers.removeIf(c -> {
                if (c.position >= end) return false;
                c.detached = true;
                detached++;
                return true;
            });
            threadsChanged(entry);
            releaseFirst(entry);
        }
        if (!reserve()) {
            releasePassed(entry, true); // give up keeping chunks for partitions still to come
            if (!reserve()) {
                stop(entry);
                return null;
            }
        }
        long[] chunk = new long[chunkRecords];
        entry.chunks.add(chunk);
        return chunk;
    }

    /** The chunk holding record {@code index * chunkRecords}, or null if {@code consumer} was detached. */
    synchronized long[] chunk(Consumer consumer, long index) {
        Entry entry = consumer.entry;
        if (consumer.detached || index < entry.firstChunk) return null;
        releasePassed(entry, false);
        return entry.chunks.get((int) (index - entry.firstChunk));
    }

    /** Records the walk's end, unless the producer had stopped recording. */
    synchronized void end(Entry entry, boolean truncated) {
        if (entry.state != RUNNING) return;
        entry.truncated = truncated;
        entry.state = ENDED;
        wake(entry);
    }

    /** The producer is done; if its walk did not {@link #end} (it failed), nobody gets more records. */
    synchronized void producerLeft(Entry entry) {
        if (entry.state == RUNNING) stop(entry);
        entry.producerLeft = true;
        leftIfDone(entry);
    }

    synchronized void consumerLeft(Consumer consumer) {
        Entry entry = consumer.entry;
        entry.consumers.remove(consumer);
        threadsChanged(entry);
        releasePassed(entry, false);
        leftIfDone(entry);
    }

    /** No more records: out of the registry; consumers take what was published, then walk. */
    private void stop(Entry entry) {
        entry.state = STOPPED;
        stopped++;
        entries.remove(entry.key, entry);
        wake(entry);
    }

    /** Out of the registry, every chunk released, once the producer and every consumer have left. */
    private void leftIfDone(Entry entry) {
        if (!entry.producerLeft || !entry.consumers.isEmpty()) return;
        entries.remove(entry.key, entry);
        while (!entry.chunks.isEmpty()) releaseFirst(entry);
    }

    /**
     * Releases the chunks every attached consumer has passed, except the one being filled: when every partition
     * has joined, or {@code force} (else they are kept, within the window, for partitions still to come).
     */
    private void releasePassed(Entry entry, boolean force) {
        if (!force && !entry.allJoined()) return;
        long passed = Long.MAX_VALUE;
        for (Consumer c : entry.consumers) passed = Math.min(passed, c.position);
        int keep = entry.state == RUNNING ? 1 : 0;
        while (entry.chunks.size() > keep && (entry.firstChunk + 1) * chunkRecords <= passed) {
            releaseFirst(entry);
        }
    }

    private void releaseFirst(Entry entry) {
        entry.chunks.remove(0);
        entry.firstChunk++;
        bytes -= chunkBytes;
    }

    private boolean reserve() {
        if (bytes + chunkBytes > maxBytes) return false;
        bytes += chunkBytes;
        peakBytes = Math.max(peakBytes, bytes);
        return true;
    }

    private static void threadsChanged(Entry entry) {
        entry.threads = entry.consumers.stream().map(c -> c.thread).toArray(Thread[]::new);
    }

    private static void wake(Entry entry) {
        for (Thread thread : entry.threads) LockSupport.unpark(thread);
    }

    /** The window in chunks, for tests: a quarter of the setting in production. */
    int windowChunks() {
        return windowChunks;
    }
}
