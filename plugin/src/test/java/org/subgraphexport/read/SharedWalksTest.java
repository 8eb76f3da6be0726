package org.subgraphexport.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.kernel.api.exceptions.Status;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;
import org.subgraphexport.testkit.DemoGraph;

/**
 * Partitions that share one walk ({@link SharedWalks}) write, each, exactly the stream of the same partition walked
 * alone (call for call), and together the single stream's records; whatever goes wrong: a producer that fails half
 * way, a consumer that lags behind the window, a producer that stalls, memory that runs out, a consumer whose
 * transaction is terminated, a partition that comes too late. Tiny chunks and windows (package-private constructor)
 * make every edge happen on small graphs. After each case the registry is empty and its memory back to 0.
 *
 * <p>To make sure partitions do share, most cases start the producer first and hold it at its first record until the
 * others have joined; one case lets all start at once and checks only the streams.
 */
class SharedWalksTest {
    private static final long STALL = TimeUnit.SECONDS.toNanos(20); // long: only the stall case wants it short
    private static final long WAIT_SECONDS = 60;

    private static GraphDatabaseService db;
    private static DemoGraph.Result demo;
    private static String randomRoot;

    /** The graphs, once per JVM ({@link SharedDatabases}): PIT launches every test method on its own. */
    @BeforeAll
    static void start() {
        db = SharedDatabases.get("shared-walks", dbms -> {
            GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
            demo = DemoGraph.generate(db, 1500, DemoGraph.DEFAULT_SEED, done -> {});
            randomRoot = ParallelWalkTest.randomGraph(db, 1200, 20260817L);
        }).database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
    }

    private record Run(List<String> calls, SubgraphWalker.Result result, Throwable failure) {}

    private static WalkSpec spec(String expand, String attach, int maxDepth, long limit, boolean reportDepthCut) {
        return new WalkSpec(RelationshipFilter.parse(expand), RelationshipFilter.parse(attach), maxDepth, limit,
                reportDepthCut);
    }

    private static WalkSpec everything() {
        return spec("CHILDREN>", "PROPERTY>", Integer.MAX_VALUE, Long.MAX_VALUE, false);
    }

    /** One partition's export in a transaction of its own, on this thread; through {@code walks} unless null. */
    private static Run export(SharedWalks walks, String root, WalkSpec spec, Partition partition, int threads,
            UnaryOperator<TraceWriter> setup, AtomicReference<KernelTransaction> transaction) {
        TraceWriter out = setup.apply(new TraceWriter());
        try (Transaction tx = db.beginTx()) {
            InternalTransaction itx = (InternalTransaction) tx;
            if (transaction != null) transaction.set(itx.kernelTransaction());
            SharedWalks.Share share = walks == null ? null : walks.share(StoreState.version(db));
            SubgraphWalker.Result result = TraverseExport.run(
                    itx, itx.elementIdMapper().nodeId(root), spec, partition, threads, share, out);
            return new Run(out.calls, result, null);
        } catch (Throwable e) {
            return new Run(out.calls, null, e);
        }
    }

    private static Run alone(String root, WalkSpec spec, Partition partition) {
        Run run = export(null, root, spec, partition, 1, w -> w, null);
        assertNull(run.failure(), () -> "walking alone: " + run.failure());
        return run;
    }

    private static CompletableFuture<Run> start(SharedWalks walks, String root, WalkSpec spec, Partition partition,
            int threads, UnaryOperator<TraceWriter> setup, AtomicReference<KernelTransaction> transaction) {
        CompletableFuture<Run> done = new CompletableFuture<>();
        Thread thread = new Thread(() -> done.complete(export(walks, root, spec, partition, threads, setup, transaction)),
                "partition-" + partition.index() + "-of-" + partition.count());
        thread.start();
        return done;
    }

    private static Run get(CompletableFuture<Run> run) throws Exception {
        return run.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    private static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting for " + what);
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(WAIT_SECONDS, TimeUnit.SECONDS), "latch");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /**
     * Runs the {@code n} partitions at once through {@code walks}: partition {@code producer} first, held at its first
     * record until the others have joined it (so they consume); {@code setups[p]} configures partition p's writer.
     */
    private static List<Run> shared(SharedWalks walks, String root, WalkSpec spec, int n, int producer, int threads,
            List<UnaryOperator<TraceWriter>> setups) throws Exception {
        SharedWalks.Stats before = walks.stats();
        List<CompletableFuture<Run>> runs = new ArrayList<>();
        for (int p = 0; p < n; p++) runs.add(null);
        UnaryOperator<TraceWriter> producerSetup = setups.get(producer);
        runs.set(producer, start(walks, root, spec, new Partition(n, producer), threads,
                w -> producerSetup.apply(w.atFirstRecord(() -> await(
                        () -> walks.stats().consumers() >= before.consumers() + n - 1, "consumers to join"))), null));
        await(() -> walks.stats().producers() > before.producers(), "the producer");
        for (int p = 0; p < n; p++) {
            if (p != producer) runs.set(p, start(walks, root, spec, new Partition(n, p), threads, setups.get(p), null));
        }
        List<Run> done = new ArrayList<>();
        for (CompletableFuture<Run> run : runs) done.add(get(run));
        SharedWalks.Stats after = walks.stats();
        assertEquals(before.producers() + 1, after.producers(), "one producer");
        assertEquals(before.consumers() + n - 1, after.consumers(), "every other partition consumed");
        return done;
    }

    private static List<UnaryOperator<TraceWriter>> plain(int n) {
        List<UnaryOperator<TraceWriter>> setups = new ArrayList<>();
        for (int p = 0; p < n; p++) setups.add(w -> w);
        return setups;
    }

    /** Each run is, call for call, its partition walked alone; together they are the single stream. */
    private static void assertExact(String root, WalkSpec spec, List<Run> runs, String what) {
        assertExact(root, spec, runs, -1, what);
    }

    /** As above, but for partition {@code failed}, whose writer was made to fail. */
    private static void assertExact(String root, WalkSpec spec, List<Run> runs, int failed, String what) {
        int n = runs.size();
        for (int p = 0; p < n; p++) {
            Run run = runs.get(p);
            if (p == failed) continue;
            if (run.failure() != null) throw new AssertionError(what + ", partition " + p + " failed", run.failure());
            Run alone = alone(root, spec, new Partition(n, p));
            String which = what + ", partition " + p + " of " + n;
            assertEquals(alone.result(), run.result(), which);
            assertSameCalls(alone.calls(), run.calls(), which);
        }
        if (failed >= 0) return;
        Run single = alone(root, spec, Partition.WHOLE);
        Set<String> nodes = new HashSet<>();
        Set<String> relationships = new HashSet<>();
        long nodeCount = 0;
        long relationshipCount = 0;
        for (Run run : runs) {
            nodes.addAll(ids(run, "node "));
            relationships.addAll(ids(run, "rel "));
            nodeCount += run.result().nodes();
            relationshipCount += run.result().relationships();
            assertEquals(single.result().truncated(), run.result().truncated(), what + ": truncated");
        }
        assertEquals(ids(single, "node "), nodes, what + ": the partitions' nodes are the single stream's");
        assertEquals(ids(single, "rel "), relationships, what + ": the partitions' relationships are the single stream's");
        assertEquals(single.result().nodes(), nodeCount, what + ": each node once");
        assertEquals(single.result().relationships(), relationshipCount, what + ": each relationship once");
    }

    private static Set<String> ids(Run run, String prefix) {
        Set<String> ids = new HashSet<>();
        for (String c : run.calls()) if (c.startsWith(prefix)) ids.add(c.split(" ")[1]);
        return ids;
    }

    private static void assertSameCalls(List<String> expected, List<String> actual, String what) {
        if (expected.equals(actual)) return;
        int i = 0;
        while (i < Math.min(expected.size(), actual.size()) && expected.get(i).equals(actual.get(i))) i++;
        fail(what + ": streams differ at call " + i + " of " + expected.size() + ": "
                + (i < expected.size() ? expected.get(i) : "<end>") + " vs "
                + (i < actual.size() ? actual.get(i) : "<end>"));
    }

    private static void assertEmpty(SharedWalks walks, String when) throws InterruptedException {
        SharedWalks.Stats stats = walks.stats();
        assertEquals(0, stats.entries(), "entries left " + when);
        assertEquals(0, stats.bytes(), "memory still counted " + when);
        ParallelWalkTest.assertNothingLeft(db, when);
    }

    private static long chunkBytes(int records) {
        return 16 + 8L * records;
    }

    @Test
    void sharingPartitionsWriteExactlyTheirOwnStreams() throws Exception {
        record Case(String name, String root, WalkSpec spec) {}
        List<Case> cases = List.of(
                new Case("demo", demo.rootElementId(), everything()),
                new Case("demo, limit", demo.rootElementId(), spec("CHILDREN>", "PROPERTY>", Integer.MAX_VALUE, 2500, false)),
                new Case("demo, depth cut", demo.rootElementId(), spec("CHILDREN>", "PROPERTY>", 2, Long.MAX_VALUE, true)),
                new Case("random, both directions", randomRoot, spec("LINK", "HAS", Integer.MAX_VALUE, Long.MAX_VALUE, false)),
                new Case("random, limit", randomRoot, spec("LINK>", "HAS", Integer.MAX_VALUE, 700, false)));
        for (int n : new int[] {2, 3, 7}) {
            for (Case c : cases) {
                for (int threads : new int[] {1, 2}) {
                    // tiny chunks: consumers cross chunks inside blocks, chunks are released as everyone passes them
                    SharedWalks tiny = new SharedWalks(1L << 30, 100, 1 << 20, STALL);
                    SharedWalks production = new SharedWalks(64L << 20);
                    for (SharedWalks walks : List.of(tiny, production)) {
                        String what = c.name() + ", threads " + threads + (walks == tiny ? ", tiny chunks" : "");
                        int producer = c.name().equals("demo") ? n - 1 : 0;
                        List<Run> runs = shared(walks, c.root(), c.spec(), n, producer, threads, plain(n));
                        assertExact(c.root(), c.spec(), runs, what);
                        assertEquals(0, walks.stats().fallbacks(), what + ": nobody walked again");
                        assertEmpty(walks, "after " + what);
                    }
                }
            }
        }
    }

    /** Partitions started at once take whatever roles they get; their streams are exact all the same. */
    @Test
    void partitionsStartedAtOnceAreExactWhateverTheirRoles() throws Exception {
        SharedWalks walks = new SharedWalks(1L << 30, 64, 1 << 20, STALL);
        for (int n : new int[] {2, 3, 7}) {
            for (int round = 0; round < 3; round++) {
                List<CompletableFuture<Run>> started = new ArrayList<>();
                for (int p = 0; p < n; p++) {
                    started.add(start(walks, demo.rootElementId(), everything(), new Partition(n, p), 1 + p % 2, w -> w, null));
                }
                List<Run> runs = new ArrayList<>();
                for (CompletableFuture<Run> run : started) runs.add(get(run));
                assertExact(demo.rootElementId(), everything(), runs, "started at once, " + n + " partitions");
                assertEmpty(walks, "after partitions started at once");
            }
        }
        assertTrue(walks.stats().consumers() > 0, () -> "some partition consumed: " + walks.stats());
    }

    /** The producer's client leaves half way: its consumers take what it published, then walk themselves. */
    @Test
    void aProducerThatFailsHalfWayLeavesExactConsumers() throws Exception {
        for (int n : new int[] {2, 3, 7}) {
            for (SharedWalks walks : List.of(new SharedWalks(1L << 30, 100, 1 << 20, STALL), new SharedWalks(64L << 20))) {
                Run whole = alone(demo.rootElementId(), everything(), new Partition(n, 0));
                long half = whole.result().nodes() / 2;
                List<UnaryOperator<TraceWriter>> setups = plain(n);
                setups.set(0, w -> w.failAfter(half));
                SharedWalks.Stats before = walks.stats();
                int threads = 1 + n % 2; // consumers fall back into a parallel output too
                List<Run> runs = shared(walks, demo.rootElementId(), everything(), n, 0, threads, setups);
                assertTrue(runs.get(0).failure() instanceof IOException, () -> "the producer failed: " + runs.get(0));
                assertExact(demo.rootElementId(), everything(), runs, 0, "producer failed, " + n + " partitions");
                SharedWalks.Stats after = walks.stats();
                assertEquals(before.stopped() + 1, after.stopped(), "the shared walk stopped");
                assertEquals(before.fallbacks() + n - 1, after.fallbacks(), "every consumer walked itself");
                assertEmpty(walks, "after the producer failed");
            }
        }
    }

    /**
     * A consumer whose client stops reading falls behind the window (2 chunks of 64 records) and is detached; it
     * finishes by walking itself, passing over the records it had written. The others are not held back.
     */
    @Test
    void aLaggingConsumerIsDetachedAndStillExact() throws Exception {
        for (int n : new int[] {2, 3, 7}) {
            SharedWalks walks = new SharedWalks(1L << 30, 64, 2, STALL);
            long detached = walks.stats().detached();
            List<UnaryOperator<TraceWriter>> setups = plain(n);
            setups.set(n - 1, w -> w.atFirstRecord(() -> await(() -> walks.stats().detached() > detached, "a detach")));
            // one read thread: a parallel producer decides a batch ahead of its first write, past this tiny window
            List<Run> runs = shared(walks, demo.rootElementId(), everything(), n, 0, 1, setups);
            assertExact(demo.rootElementId(), everything(), runs, "a lagging consumer, " + n + " partitions");
            assertTrue(walks.stats().fallbacks() > 0, () -> "walked itself: " + walks.stats());
            assertTrue(walks.stats().peakBytes() <= 2 * chunkBytes(64), () -> "window of 2 chunks: " + walks.stats());
            assertEmpty(walks, "after a consumer was detached");
        }
    }

    /**
     * A consumer detached after it wrote records walks itself from where it was, writing none of them twice. The
     * producer (partition 0 of 2) holds at sequence record 512 until the consumer is at its 10th record (record 265,
     * in chunk 4); the consumer holds there until the producer, with a window of 16 chunks, forces chunk 4 out.
     */
    @Test
    void aConsumerDetachedAfterItWroteRecordsResumesWhereItWas() throws Exception {
        SharedWalks walks = new SharedWalks(1L << 30, 64, 16, STALL);
        CountDownLatch consumerAt10 = new CountDownLatch(1);
        List<UnaryOperator<TraceWriter>> setups = List.of(
                w -> w.atRecord(257, () -> await(consumerAt10)),
                w -> w.atRecord(10, () -> {
                    consumerAt10.countDown();
                    await(() -> walks.stats().detached() == 1, "the window to detach the consumer");
                }));
        List<Run> runs = shared(walks, demo.rootElementId(), everything(), 2, 0, 1, setups);
        assertExact(demo.rootElementId(), everything(), runs, "a consumer detached at record 265");
        assertEquals(1, walks.stats().fallbacks(), () -> "walked itself: " + walks.stats());
        assertEmpty(walks, "after a consumer was detached");
    }

    /** A consumer whose client leaves just leaves: the producer and the other consumers are not disturbed. */
    @Test
    void aConsumerThatFailsLeavesTheOthersExact() throws Exception {
        for (int n : new int[] {2, 3, 7}) {
            SharedWalks walks = new SharedWalks(1L << 30, 100, 1 << 20, STALL);
            List<UnaryOperator<TraceWriter>> setups = plain(n);
            setups.set(n - 1, w -> w.failAfter(40));
            List<Run> runs = shared(walks, demo.rootElementId(), everything(), n, 0, 1, setups);
            assertTrue(runs.get(n - 1).failure() instanceof IOException, () -> "the consumer failed: " + runs.get(n - 1));
            assertExact(demo.rootElementId(), everything(), runs, n - 1, "a consumer failed, " + n + " partitions");
            assertEquals(0, walks.stats().fallbacks(), () -> "nobody walked again: " + walks.stats());
            assertEmpty(walks, "after a consumer failed");
        }
    }

    /** A producer that publishes nothing for the stall time (its own client stopped reading) is not waited for. */
    @Test
    void aStalledProducerIsNotWaitedFor() throws Exception {
        SharedWalks walks = new SharedWalks(1L << 30, 64, 1 << 20, TimeUnit.MILLISECONDS.toNanos(200));
        int n = 3;
        CountDownLatch consumersDone = new CountDownLatch(1);
        List<UnaryOperator<TraceWriter>> setups = plain(n);
        setups.set(0, w -> w.atRecord(300, () -> await(consumersDone)));
        SharedWalks.Stats before = walks.stats();
        CompletableFuture<List<Run>> all = CompletableFuture.supplyAsync(() -> {
            try {
                return shared(walks, demo.rootElementId(), everything(), n, 0, 1, setups);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        await(() -> walks.stats().stalled() >= before.stalled() + n - 1, "the consumers to give up waiting");
        await(() -> walks.stats().fallbacks() >= before.fallbacks() + n - 1, "the consumers to walk");
        consumersDone.countDown();
        List<Run> runs = all.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertExact(demo.rootElementId(), everything(), runs, "a stalled producer");
        assertEmpty(walks, "after a stalled producer");
    }

    /**
     * With room for 3 chunks in all, the producer keeps recording while its consumers keep up, and stops recording
     * when one does not: the consumers walk themselves, exactly; memory never goes above the setting. Size 0 turns
     * sharing off.
     */
    @Test
    void memoryStaysWithinTheSetting() throws Exception {
        for (int n : new int[] {2, 3, 7}) {
            long max = 3 * chunkBytes(64);
            SharedWalks walks = new SharedWalks(max, 64, 100, STALL);
            List<UnaryOperator<TraceWriter>> setups = plain(n);
            setups.set(n - 1, w -> w.atFirstRecord(() -> await(() -> walks.stats().stopped() > 0, "recording to stop")));
            List<Run> runs = shared(walks, demo.rootElementId(), everything(), n, 0, 1, setups);
            assertExact(demo.rootElementId(), everything(), runs, "memory used up, " + n + " partitions");
            assertEquals(1, walks.stats().stopped(), () -> "stopped recording: " + walks.stats());
            assertEquals(n - 1, walks.stats().fallbacks(), () -> "every consumer walked itself: " + walks.stats());
            assertTrue(walks.stats().peakBytes() <= max, () -> "peak " + walks.stats());
            assertEmpty(walks, "after memory ran out");
        }
        SharedWalks off = new SharedWalks(0);
        List<CompletableFuture<Run>> runs = new ArrayList<>();
        for (int p = 0; p < 3; p++) runs.add(start(off, demo.rootElementId(), everything(), new Partition(3, p), 1, w -> w, null));
        List<Run> done = new ArrayList<>();
        for (CompletableFuture<Run> run : runs) done.add(get(run));
        assertExact(demo.rootElementId(), everything(), done, "sharing off");
        assertEquals(new SharedWalks.Stats(0, 0, 3, 0, 0, 0, 0, 0, 0, 0), off.stats(), "size 0: every partition alone");
    }

    /** A partition that comes after chunk 0 was released walks alone, and exactly. */
    @Test
    void aLatePartitionWalksAlone() throws Exception {
        SharedWalks walks = new SharedWalks(1L << 30, 64, 2, STALL);
        int n = 2;
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch late = new CountDownLatch(1);
        CompletableFuture<Run> producer = start(walks, demo.rootElementId(), everything(), new Partition(n, 0), 1,
                w -> w.atRecord(600, () -> {
                    blocked.countDown();
                    await(late);
                }), null);
        await(blocked);
        Run second = export(walks, demo.rootElementId(), everything(), new Partition(n, 1), 1, w -> w, null);
        late.countDown();
        assertExact(demo.rootElementId(), everything(), List.of(get(producer), second), "a late partition");
        assertEquals(new SharedWalks.Stats(1, 0, 1, 0, 0, 0, 0, 0, 0, 2 * chunkBytes(64)), walks.stats(),
                "one producer, one alone");
        assertEmpty(walks, "after a late partition");
    }

    /** A consumer whose own transaction is terminated while it waits stops with that status, and leaves. */
    @Test
    void aWaitingConsumerHonoursItsOwnTermination() throws Exception {
        SharedWalks walks = new SharedWalks(1L << 30, 64, 1 << 20, STALL);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<KernelTransaction> consumerTx = new AtomicReference<>();
        CompletableFuture<Run> producer = start(walks, demo.rootElementId(), everything(), new Partition(2, 0), 1,
                w -> w.atFirstRecord(() -> {
                    await(() -> walks.stats().consumers() == 1, "the consumer");
                    await(release);
                }), null);
        await(() -> walks.stats().producers() == 1, "the producer");
        CompletableFuture<Run> consumer = start(walks, demo.rootElementId(), everything(), new Partition(2, 1), 1,
                w -> w, consumerTx);
        await(() -> walks.stats().consumers() == 1 && consumerTx.get() != null, "the consumer");
        consumerTx.get().markForTermination(Status.Transaction.Terminated);
        Run terminated = get(consumer);
        assertNotNull(terminated.failure());
        assertEquals(Status.Transaction.Terminated, ParallelWalkTest.status(terminated.failure()),
                () -> "status of " + terminated.failure());
        release.countDown();
        Run produced = get(producer);
        assertNull(produced.failure());
        assertSameCalls(alone(demo.rootElementId(), everything(), new Partition(2, 0)).calls(), produced.calls(),
                "the producer after its consumer was terminated");
        assertEmpty(walks, "after a consumer was terminated");
    }

    /**
     * A consumer whose thread is interrupted while it waits walks itself from where it was, exactly: an interrupt
     * would end every park at once, and a lone walk ignores it.
     */
    @Test
    void anInterruptedWaitingConsumerWalksItselfExactly() throws Exception {
        SharedWalks walks = new SharedWalks(1L << 30, 64, 1 << 20, STALL);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Thread> consumerThread = new AtomicReference<>();
        // the producer (partition 0 of 2) holds at its 300th record, sequence record 555: the consumer has its block
        // 1 (records 256 to 511) to write, then waits for record 768
        CompletableFuture<Run> producer = start(walks, demo.rootElementId(), everything(), new Partition(2, 0), 1,
                w -> w.atFirstRecord(() -> await(() -> walks.stats().consumers() == 1, "the consumer"))
                        .atRecord(300, () -> await(release)), null);
        await(() -> walks.stats().producers() == 1, "the producer");
        CompletableFuture<Run> consumer = start(walks, demo.rootElementId(), everything(), new Partition(2, 1), 1,
                w -> w.atRecord(100, () -> consumerThread.set(Thread.currentThread())), null);
        await(() -> consumerThread.get() != null && consumerThread.get().getState() == Thread.State.TIMED_WAITING,
                "the consumer to wait");
        consumerThread.get().interrupt();
        Run interrupted = get(consumer);
        release.countDown();
        assertExact(demo.rootElementId(), everything(), List.of(get(producer), interrupted), "an interrupted consumer");
        SharedWalks.Stats stats = walks.stats();
        assertEquals(1, stats.fallbacks(), () -> "the consumer walked itself: " + stats);
        assertEquals(0, stats.stalled() + stats.stopped() + stats.detached(), () -> "for no other reason: " + stats);
        assertEmpty(walks, "after a consumer was interrupted");
    }

    /** The server's registry: one per DBMS, sized by the first caller's setting. */
    @Test
    void theServersRegistryIsOnePerDbms() {
        DatabaseManagementService dbms = SharedDatabases.get("shared-walks", d -> {});
        long chunk = 16 + 8L * SharedWalks.CHUNK_RECORDS;
        SharedWalks walks = SharedWalks.of(dbms, 4 * 3 * chunk);
        assertSame(walks, SharedWalks.of(dbms, 1L << 30), "the same registry, whatever the later caller's size");
        assertEquals(3, walks.windowChunks(), "sized by the first caller: a window of 3 chunks");
    }
}
