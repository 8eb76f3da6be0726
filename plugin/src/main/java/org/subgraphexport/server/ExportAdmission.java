package org.subgraphexport.server;

import java.io.IOException;
import java.nio.ByteBuffer;
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
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.neo4j.configuration.Config;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.kernel.api.exceptions.Status;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;
import org.neo4j.logging.Log;
import org.subgraphexport.config.ExportSettings;

/**
 * Which exports may stream, and the end of those whose client stopped reading. One per DBMS.
 *
 * <p>An export writes its response with Jetty's blocking output on one of the server's HTTP worker threads
 * (Jetty's pool, sized from {@code server.threads.worker_count}, shared with every other HTTP user, the Query API
 * included); a client that
 * stops reading blocks that thread in the write until Jetty's idle timeout. So exports are admitted up to
 * {@link ExportSettings#MAX_CONCURRENT} at once and {@link ExportSettings#MAX_CONCURRENT_PER_USER} per user; above
 * either the request is answered 503 with {@code Retry-After} before anything is read. An admitted export's
 * {@link Ticket} watches its writes: one blocked longer than {@link ExportSettings#WRITE_STALL_TIMEOUT} terminates
 * the transaction and aborts the response (if the write is still blocked a second later, the connection is closed),
 * which fails the write, ends the export and frees the thread, the slot and the transaction. While an export writes
 * nothing (a Cypher query still computing), its HTTP/1 connection is read without blocking once a second: a client
 * that has closed it or reset it ends the export the same way, within about a second.
 */
final class ExportAdmission {
    static final String BUSY = "Export.ServerBusy";
    static final int RETRY_AFTER_SECONDS = 1;
    private static final int MIN_HTTP_THREADS = 8;
    private static final long TICK_MILLIS = 200;
    private static final long CLOSE_AFTER_ABORT_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How often the connection of an export that is not writing is looked at for a client that has gone. */
    private static final long PROBE_NANOS = TimeUnit.SECONDS.toNanos(1);

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

    private final Log log;
    private int running;
    private final Map<String, Integer> perUser = new HashMap<>();
    /** Streams of each partitioned export running now: together they hold one of their user's slots. */
    private final Map<String, Integer> perExport = new HashMap<>();
    private int loggedMax;
    private int loggedMaxPerUser;

    private ExportAdmission(Log log) {
        this.log = log;
    }

    static synchronized ExportAdmission of(DatabaseManagementService dbms, Log log) {
        return PER_DBMS.computeIfAbsent(dbms, d -> new ExportAdmission(log));
    }

    /**
     * The most exports at once: the setting, or half of the threads the HTTP server can give to requests
     * ({@code httpThreads}, Jetty's pool less its acceptors and selectors).
     */
    static int maxConcurrent(Config config, int httpThreads) {
        int max = config.get(ExportSettings.MAX_CONCURRENT);
        return max > 0 ? max : Math.max(1, httpThreads / 2);
    }

    /** The most partitions of one partitioned export streaming at once: the setting, or the processors (at most max). */
    static int maxPartitionsStreaming(Config config, int httpThreads) {
        int max = config.get(ExportSettings.MAX_PARTITIONS_STREAMING);
        return max > 0 ? max : Math.min(Runtime.getRuntime().availableProcessors(), maxConcurrent(config, httpThreads));
    }

    static int maxConcurrentPerUser(Config config, int httpThreads) {
        int max = config.get(ExportSettings.MAX_CONCURRENT_PER_USER);
        return max > 0 ? max : Math.max(1, maxConcurrent(config, httpThreads) / 2);
    }

    /**
     * Threads of the HTTP server that can run requests: its pool's maximum less the acceptor and selector threads of
     * its connectors, which hold theirs for good (not {@code QueuedThreadPool.getLeasedThreads()}: Neo4j's pool has
     * no thread budget, so that is 0 less the reserved thread, -1). Neo4j never gives Jetty fewer than 8.
     */
    private static int httpThreads(HttpChannel channel) {
        Server server = channel == null ? null : channel.getServer();
        if (server == null || !(server.getThreadPool() instanceof QueuedThreadPool pool)) return MIN_HTTP_THREADS;
        int held = 0;
        for (Connector connector : server.getConnectors()) {
            if (connector instanceof ServerConnector network) {
                held += network.getAcceptors() + network.getSelectorManager().getSelectorCount();
            }
        }
        return Math.max(MIN_HTTP_THREADS, pool.getMaxThreads() - held);
    }

    /**
     * A slot for one export of {@code caller}, or 503 {@link #BUSY} with {@code Retry-After}. The caller is keyed by
     * user name; with authentication disabled (no name) by the client's address.
     */
    Ticket admit(Config config, Caller caller, HttpServletRequest request) {
        return admit(config, caller, request, null);
    }

    /**
     * As {@link #admit(Config, Caller, HttpServletRequest)} for one partition of the partitioned export
     * {@code export} (what makes two requests partitions of one export: the request but for its partition; null for
     * a whole export). The partitions of one export streaming at once count as one export toward the per-user bound,
     * each toward the server's; at most {@link ExportSettings#MAX_PARTITIONS_STREAMING} of them stream at once.
     */
    Ticket admit(Config config, Caller caller, HttpServletRequest request, String export) {
        String user = caller.user().isEmpty() ? "address " + request.getRemoteAddr() : caller.user();
        Request base = Request.getBaseRequest(request);
        HttpChannel channel = base == null ? null : base.getHttpChannel();
        int threads = httpThreads(channel);
        int max = maxConcurrent(config, threads);
        int maxPerUser = maxConcurrentPerUser(config, threads);
        String group = export == null ? null : user + "\n" + export;
        synchronized (this) {
            if (max != loggedMax || maxPerUser != loggedMaxPerUser) {
                loggedMax = max;
                loggedMaxPerUser = maxPerUser;
                log.info("exports: at most %d at once, %d per user; the HTTP server has %d request threads", max,
                        maxPerUser, threads);
            }
            if (running >= max) {
                throw busy("the server is streaming its maximum of " + max + " exports ("
                        + ExportSettings.MAX_CONCURRENT.name() + ")");
            }

            int siblings = group == null ? 0 : perExport.getOrDefault(group, 0);
            if (group != null) {
                int maxPartitions = maxPartitionsStreaming(config, threads);
                if (siblings >= maxPartitions) {
                    throw busy("this partitioned export already streams its maximum of " + maxPartitions
                            + " partitions at once (" + ExportSettings.MAX_PARTITIONS_STREAMING.name() + ")");
                }
            }
            int mine = perUser.getOrDefault(user, 0);
            if (siblings == 0 && mine >= maxPerUser) {
                throw busy("user " + (caller.user().isEmpty() ? "at " + request.getRemoteAddr() : "'" + user + "'")
                        + " is streaming the maximum of " + maxPerUser + " exports per user ("
                        + ExportSettings.MAX_CONCURRENT_PER_USER.name() + ")");
            }
            running++;
            if (siblings == 0) perUser.put(user, mine + 1);
            if (group != null) perExport.put(group, siblings + 1);
        }
        return new Ticket(user, group, channel, config.get(ExportSettings.WRITE_STALL_TIMEOUT));
    }

    private static ApiError busy(String message) {
        return new ApiError(Response.Status.SERVICE_UNAVAILABLE, BUSY, message + "; retry later",
                Map.of("Retry-After", Integer.toString(RETRY_AFTER_SECONDS)));
    }

    private synchronized void release(String user, String group) {
        running--;
        if (group != null && perExport.computeIfPresent(group, (g, n) -> n == 1 ? null : n - 1) != null) {
            return;  // other partitions of the export still hold the user's slot
        }
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
     * One admitted export (or cached response: {@link ExportOutput#replay}). {@link ExportOutput} brackets every
     * write to the client with {@link #writing} and {@link #written}, and hands over the transaction with
     * {@link #watch}; {@link #close} gives the slot back.
     */
    final class Ticket implements AutoCloseable {
        private final String user;
        /** The partitioned export this stream is a partition of (user and request), or null. */
        private final String group;
        private final HttpChannel channel;
        /** HTTP/1.x on its own connection: the watchdog may look for the client's end of the connection. */
        private boolean probing;
        private final ByteBuffer probe = BufferUtil.allocate(1);
        private final long stallNanos;
        private final Duration stall;
        private volatile long writingSince;
        private volatile InternalTransaction tx;
        private volatile String endedBecause;
        private long abortedAt;
        private long probedAt;
        private boolean closed;

        private Ticket(String user, String group, HttpChannel channel, Duration stall) {
            this.user = user;
            this.group = group;
            this.channel = channel;
            // HTTP/1.x only: on HTTP/2 (h2c included) the connection carries other streams' frames
            this.probing = channel != null && channel.getConnectionMetaData().getHttpVersion().getVersion() < 20;
            this.stall = stall;
            this.stallNanos = stall.toNanos();
        }

        /**
         * From now on the watchdog ends the export if a write stalls or the client leaves, and terminates
         * {@code transaction} then (null for a cached response, which has none). Idempotent.
         */
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

        /** Why the watchdog ended this export (a stalled write, a client gone), or null. */
        String endedBecause() {
            return endedBecause;
        }

        private void check(long now) {
            if (abortedAt != 0) {
                // still blocked a second after the abort: close the connection itself
                if (writingSince != 0 && now - abortedAt > CLOSE_AFTER_ABORT_NANOS) channel.getEndPoint().close();
                return;
            }
            long since = writingSince;
            if (since != 0) {
                if (now - since >= stallNanos) {
                    end(now, "the client read nothing for " + stall.toMillis() + " ms ("
                            + ExportSettings.WRITE_STALL_TIMEOUT.name() + ")");
                }
            } else if (probing && now - probedAt >= PROBE_NANOS) {
                probedAt = now;
                if (clientClosed()) end(now, "the client closed the connection");
            }
        }

        /**
         * Reads from the connection without blocking: end of stream or a reset means the client has gone. The request
         * has been read whole, so anything else there is a pipelined next request, which this read consumes: the
         * connection is not reused after an export (rare: clients do not pipeline), and probing stops.
         */
        private boolean clientClosed() {
            try {
                BufferUtil.clear(probe);
                int read = channel.getEndPoint().fill(probe);
                if (read > 0) probing = false;
                return read < 0;
            } catch (IOException e) {
                return true;
            }
        }

        private void end(long now, String reason) {
            endedBecause = reason;
            abortedAt = now;
            InternalTransaction t = tx;
            if (t != null) t.terminate(Status.Transaction.Terminated);
            if (channel != null) channel.abort(new TimeoutException(reason));
        }

        @Override
        public void close() {
            RUNNING.remove(this);
            synchronized (this) {
                if (closed) return;
                closed = true;
            }
            release(user, group);
        }
    }
}
