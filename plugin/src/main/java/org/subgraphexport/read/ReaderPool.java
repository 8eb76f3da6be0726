package org.subgraphexport.read;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The worker threads of parallel walks, shared by every export of the server: at most one per processor
 * ({@code subgraph-export-reader-N}, daemon, gone after 30 s idle). A walk asks for its workers with
 * {@link #tryStart}, which never queues: with every worker busy (many exports at once) the request is refused and
 * the walk reads on its own thread instead, so exports never wait for one another and cores are not
 * oversubscribed by readers.
 */
final class ReaderPool {
    private static final int PROCESSORS = Runtime.getRuntime().availableProcessors();
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final AtomicInteger RUNNING = new AtomicInteger();
    private static final ThreadPoolExecutor POOL = new ThreadPoolExecutor(
            0, Math.max(1, PROCESSORS), 30, TimeUnit.SECONDS,
            new SynchronousQueue<>(), task -> {
                Thread thread = new Thread(task, "subgraph-export-reader-" + THREADS.incrementAndGet());
                thread.setDaemon(true);
                thread.setContextClassLoader(ReaderPool.class.getClassLoader());
                return thread;
            });

    private ReaderPool() {}

    /** False when the JVM sees a single processor: a worker could only take turns with the walking thread. */
    static boolean canRunInParallel() {
        return PROCESSORS > 1;
    }

    /** Runs {@code task} on an idle or new worker thread now; false (and nothing runs) if all are busy. */
    static boolean tryStart(Runnable task) {
        try {
            POOL.execute(() -> {
                RUNNING.incrementAndGet();
                try {
                    task.run();
                } finally {
                    RUNNING.decrementAndGet();
                }
            });
            return true;
        } catch (RejectedExecutionException busy) {
            return false;
        }
    }

    /** Reader tasks running right now, over all exports (tests check that it returns to 0). */
    static int running() {
        return RUNNING.get();
    }
}
