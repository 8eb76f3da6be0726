package org.subgraphexport.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The shared reader threads: one per processor at most, never queued, daemons named for what they do. */
class ReaderPoolTest {
    private static final int PROCESSORS = Runtime.getRuntime().availableProcessors();

    @Test
    void aTaskRunsAtOnceOnANamedDaemonAndIsCountedWhileItRuns() throws Exception {
        assertEquals(PROCESSORS > 1, ReaderPool.canRunInParallel());
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread[] thread = new Thread[1];
        assertTrue(ReaderPool.tryStart(() -> {
            thread[0] = Thread.currentThread();
            started.countDown();
            await(release);
        }));
        assertTrue(started.await(10, TimeUnit.SECONDS));
        assertTrue(thread[0].getName().matches("subgraph-export-reader-[0-9]+"), thread[0].getName());
        assertTrue(thread[0].isDaemon(), "a reader never keeps the JVM alive");
        assertSame(ReaderPool.class.getClassLoader(), thread[0].getContextClassLoader());
        assertEquals(1, ReaderPool.running());
        release.countDown();
        awaitNoneRunning();
    }

    /** With every thread busy a request is refused at once: nothing queued, nothing run later. */
    @Test
    void atMostOneTaskPerProcessorAndTheRestIsRefused() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch running = new CountDownLatch(PROCESSORS);
        AtomicInteger ran = new AtomicInteger();
        List<Boolean> accepted = new ArrayList<>();
        try {
            for (int i = 0; i <= PROCESSORS; i++) {
                accepted.add(ReaderPool.tryStart(() -> {
                    ran.incrementAndGet();
                    running.countDown();
                    await(release);
                }));
            }
            assertTrue(running.await(10, TimeUnit.SECONDS));
            assertEquals(PROCESSORS, ReaderPool.running());
        } finally {
            release.countDown();
        }
        List<Boolean> expected = new ArrayList<>();
        for (int i = 0; i < PROCESSORS; i++) expected.add(true);
        expected.add(false);
        assertEquals(expected, accepted);
        awaitNoneRunning();
        assertEquals(PROCESSORS, ran.get(), "the refused task never ran");
        // the threads are free again
        CountDownLatch done = new CountDownLatch(1);
        assertTrue(ReaderPool.tryStart(done::countDown));
        assertTrue(done.await(10, TimeUnit.SECONDS));
        awaitNoneRunning();
    }

    /** A task that throws still leaves the count. */
    @Test
    void aFailingTaskIsNoLongerCounted() throws Exception {
        Thread.UncaughtExceptionHandler quiet = (t, e) -> {};
        CountDownLatch started = new CountDownLatch(1);
        assertTrue(ReaderPool.tryStart(() -> {
            Thread.currentThread().setUncaughtExceptionHandler(quiet);
            started.countDown();
            throw new IllegalStateException("reader failed (test)");
        }));
        assertTrue(started.await(10, TimeUnit.SECONDS));
        awaitNoneRunning();
    }

    private static void awaitNoneRunning() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ReaderPool.running() != 0 && System.nanoTime() < deadline) Thread.sleep(1);
        assertEquals(0, ReaderPool.running());
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(10, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
