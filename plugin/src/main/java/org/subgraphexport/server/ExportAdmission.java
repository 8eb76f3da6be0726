package org.subgraphexport.server;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.servlet.http.HttpServletRequest;
import javax.ws.rs.core.Response;
import org.eclipse.jetty.ee8.nested.HttpChannel;
import org.eclipse.jetty.ee8.nested.Request;
import org.neo4j.configuration.Config;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.graphdb.config.Setting;
import org.neo4j.kernel.api.exceptions.Status;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;
import org.subgraphexport.config.ExportSettings;

/**
 * Which exports may stream, and the end of those whose client stopped reading. One per DBMS.
 *
 * <p>An export writes its response with Jetty's blocking output on one of the server's HTTP worker threads
 * ({@code server.threads.worker_count}, shared with every other HTTP user, the Query API included); a client that
 * stops reading blocks that thread in the write until Jetty's idle timeout. So exports are admitted up to
 * {@link ExportSettings#MAX_CONCURRENT} at once and {@link ExportSettings#MAX_CONCURRENT_PER_USER} per user; above
 * either the request is answered 503 with {@code Retry-After} before anything is read. An admitted export's
 * {@link Ticket} watches its writes: one blocked longer than {@link ExportSettings#WRITE_STALL_TIMEOUT} terminates
 * the transaction and aborts the response (if the write is still blocked a second later, the connection is closed),
 * which fails the write, ends the export and frees the thread, the slot and the transaction.
 */
final class ExportAdmission {
    static final String BUSY = "Export.ServerBusy";
    static final int RETRY_AFTER_SECONDS = 1;
    static final String WORKER_THREADS = "server.threads.worker_count";
    private static final long TICK_MILLIS = 200;
    private static final long CLOSE_AFTER_ABORT_NANOS = TimeUnit.SECONDS.toNanos(1);

    private static final Map<DatabaseManagementService, ExportAdmission> PER_DBMS = new WeakHashMap<>();
    /** Every running export of every DBMS in this JVM, looked at by one watchdog thread. */
    private static final Set<Ticket> RUNNING = ConcurrentHashMap.newKeySet();
    private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "subgraph-export-stall-watch");
        thread.setDaemon(true);
        return thread;
    });

    static {
        WATCHDOG.scheduleWithFixedDelay(ExportAdmission::checkStalls, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    }

    private int running;
    private final Map<String, Integer> perUser = new HashMap<>();

    static synchronized ExportAdmission of(DatabaseManagementService dbms) {
        return PER_DBMS.computeIfAbsent(dbms, d -> new ExportAdmission());
    }

    /** The most exports at once: the setting, or half of the HTTP worker threads. */
    static int maxConcurrent(Config config) {
        int max = config.get(ExportSettings.MAX_CONCURRENT);
        if (max > 0) return max;
        Setting<Object> workers = config.getDeclaredSettings().get(WORKER_THREADS);
        Object threads = workers == null ? null : config.get(workers);
        return Math.max(1, (threads instanceof Integer n ? n : Runtime.getRuntime().availableProcessors()) / 2);
    }

    static int maxConcurrentPerUser(Config config) {
        int max = config.get(ExportSettings.MAX_CONCURRENT_PER_USER);
        return max > 0 ? max : Math.max(1, maxConcurrent(config) / 2);
    }

    /**
     * A slot for one export of {@code caller}, or 503 {@link #BUSY} with {@code Retry-After}. The caller is keyed by
     * user name; with authentication disabled (no name) by the client's address.
     */
    Ticket admit(Config config, Caller caller, HttpServletRequest request) {
        String user = caller.user().isEmpty() ? "address " + request.getRemoteAddr() : caller.user();
        int max = maxConcurrent(config);
        int maxPerUser = maxConcurrentPerUser(config);
        synchronized (this) {
            if (running >= max) {
                throw busy("the server is streaming its maximum of " + max + " exports ("
                        + ExportSettings.MAX_CONCURRENT.name() + ")");
            }
            int mine = perUser.getOrDefault(user, 0);
            if (mine >= maxPerUser) {
                throw busy("user " + (caller.user().isEmpty() ? "at " + request.getRemoteAddr() : "'" + user + "'")
                        + " is streaming the maximum of " + maxPerUser + " exports per user ("
                        + ExportSettings.MAX_CONCURRENT_PER_USER.name() + ")");
            }
            running++;
            perUser.put(user, mine + 1);
        }
        Request base = Request.getBaseRequest(request);
        return new Ticket(user, base == null ? null : base.getHttpChannel(),
                config.get(ExportSettings.WRITE_STALL_TIMEOUT));
    }

    private static ApiError busy(String message) {
        return new ApiError(Response.Status.SERVICE_UNAVAILABLE, BUSY, message + "; retry later",
                Map.of("Retry-After", Integer.toString(RETRY_AFTER_SECONDS)));
    }

    private synchronized void release(String user) {
        running--;
        perUser.computeIfPresent(user, (u, n) -> n == 1 ? null : n - 1);
    }

    private static void checkStalls() {
        long now = System.nanoTime();
        for (Ticket ticket : RUNNING) {
            try {
                ticket.check(now);
            } catch (RuntimeException e) {
                // one export's failing abort must not stop the watchdog for the others; its write fails anyway
            }
        }
    }

    /**
     * One admitted export. {@link ExportOutput} brackets every write to the client with {@link #writing} and
     * {@link #written}, and hands over the transaction with {@link #watch}; {@link #close} gives the slot back.
     */
    final class Ticket implements AutoCloseable {
        private final String user;
        private final HttpChannel channel;
        private final long stallNanos;
        private final Duration stall;
        private volatile long writingSince;
        private volatile InternalTransaction tx;
        private volatile long abortedAt;
        private boolean closed;

        private Ticket(String user, HttpChannel channel, Duration stall) {
            this.user = user;
            this.channel = channel;
            this.stall = stall;
            this.stallNanos = stall.toNanos();
        }

        /** From now on the watchdog ends the export if a write stalls. */
        void watch(InternalTransaction transaction) {
            tx = transaction;
            RUNNING.add(this);
        }

        void writing() {
            writingSince = System.nanoTime() | 1; // never 0, which means "not writing"
        }

        void written() {
            writingSince = 0;
        }

        /** True once the watchdog ended this export because its client stopped reading. */
        boolean stalled() {
            return abortedAt != 0;
        }

        Duration stallTimeout() {
            return stall;
        }

        private void check(long now) {
            long since = writingSince;
            if (since == 0 || now - since < stallNanos) return;
            if (abortedAt == 0) {
                abortedAt = now;
                InternalTransaction t = tx;
                if (t != null) t.terminate(Status.Transaction.Terminated);
                if (channel != null) {
                    channel.abort(new TimeoutException("no write progress for " + stall.toMillis() + " ms"));
                }
            } else if (now - abortedAt > CLOSE_AFTER_ABORT_NANOS && channel != null) {
                channel.getEndPoint().close();
            }
        }

        @Override
        public void close() {
            RUNNING.remove(this);
            synchronized (this) {
                if (closed) return;
                closed = true;
            }
            release(user);
        }
    }
}
