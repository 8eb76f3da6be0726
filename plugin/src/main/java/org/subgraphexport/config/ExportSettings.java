package org.subgraphexport.config;

import static org.neo4j.configuration.SettingConstraints.min;
import static org.neo4j.configuration.SettingConstraints.range;
import static org.neo4j.configuration.SettingValueParsers.BOOL;
import static org.neo4j.configuration.SettingValueParsers.BYTES;
import static org.neo4j.configuration.SettingValueParsers.DURATION;
import static org.neo4j.configuration.SettingValueParsers.INT;
import static org.neo4j.configuration.SettingValueParsers.LONG;

import java.time.Duration;
import org.neo4j.configuration.Description;
import org.neo4j.configuration.SettingImpl;
import org.neo4j.configuration.SettingsDeclaration;
import org.neo4j.graphdb.config.Setting;

/**
 * The plugin's own neo4j.conf settings, validated by Neo4j at start-up like its own (a malformed value stops the
 * server with a message naming the setting). Names live under {@code server.} because strict config
 * validation rejects unknown namespaces. Registered through META-INF/services.
 */
public final class ExportSettings implements SettingsDeclaration {
    @Description("Time budget of an export that names no timeout= parameter. 0s: none beyond db.transaction.timeout.")
    public static final Setting<Duration> DEFAULT_TIMEOUT = SettingImpl.newBuilder(
                    "server.subgraph_export.default_timeout", DURATION, Duration.ZERO)
            .addConstraint(min(Duration.ZERO))
            .build();

    @Description("Largest timeout= an export may ask for; also caps the default. 0s: no maximum.")
    public static final Setting<Duration> MAX_TIMEOUT = SettingImpl.newBuilder(
                    "server.subgraph_export.max_timeout", DURATION, Duration.ZERO)
            .addConstraint(min(Duration.ZERO))
            .build();

    @Description("Deepest maxDepth a traverse may use. An export that names no maxDepth is cut here and its end "
            + "record says truncated if there was more.")
    public static final Setting<Integer> MAX_DEPTH = SettingImpl.newBuilder(
                    "server.subgraph_export.max_depth", INT, Integer.MAX_VALUE)
            .addConstraint(min(0))
            .build();

    @Description("Most nodes one export may send. An export that names no limit is cut here and its end record "
            + "says truncated if there was more.")
    public static final Setting<Long> MAX_NODES = SettingImpl.newBuilder(
                    "server.subgraph_export.max_nodes", LONG, Long.MAX_VALUE)
            .addConstraint(min(0L))
            .build();

    @Description("Bytes of encoded traverse responses kept in heap to answer repeats without reading the store; "
            + "an entry is used only while its database has had no commit since. 0: off.")
    public static final Setting<Long> RESPONSE_CACHE_SIZE = SettingImpl.newBuilder(
                    "server.subgraph_export.response_cache_size", BYTES, 0L)
            .addConstraint(min(0L))
            .build();

    @Description("Threads that read one traverse export, or one Cypher export in graph mode: the request thread "
            + "walks the subgraph (or runs the query) and encodes, and up to read_threads - 1 workers from a shared "
            + "pool (at most one per processor, server-wide) read labels and property values in the same "
            + "transaction, for as long as they actually run in parallel. 1 reads on the request thread alone. The "
            + "stream is the same either way.")
    public static final Setting<Integer> READ_THREADS = SettingImpl.newBuilder(
                    "server.subgraph_export.read_threads", INT, 2)
            .addConstraint(range(1, 64))
            .build();

    @Description("Whether export responses are compressed with the content coding the client asks for in "
            + "Accept-Encoding (zstd, gzip); false: always identity.")
    public static final Setting<Boolean> COMPRESSION = SettingImpl.newBuilder(
                    "server.subgraph_export.compression_enabled", BOOL, true)
            .build();

    @Description("zstd compression level of Content-Encoding: zstd responses (1 is fastest; higher levels compress "
            + "better, slower, with more memory per response).")
    public static final Setting<Integer> ZSTD_LEVEL = SettingImpl.newBuilder(
                    "server.subgraph_export.compression_zstd_level", INT, 1)
            .addConstraint(range(1, 19))
            .build();

    @Description("Smallest response worth compressing: a response that ends within this many bytes goes out "
            + "uncompressed when the client accepts identity. The first bytes are held back until the size is known "
            + "to be above it. 0: compress every response the client allows.")
    public static final Setting<Long> COMPRESSION_MIN_SIZE = SettingImpl.newBuilder(
                    "server.subgraph_export.compression_min_size", BYTES, 1024L)
            .addConstraint(range(0L, 1024L * 1024))
            .build();

    @Description("Most exports streaming at once on this server; a request above it is answered 503 with Retry-After "
            + "before anything is read. Each export holds one HTTP worker thread for as long as it streams, so this "
            + "keeps threads free for every other HTTP user (the Query API included). 0: half of the "
            + "HTTP server's request threads (Jetty's pool, sized from server.threads.worker_count; 10 on a small machine).")
    public static final Setting<Integer> MAX_CONCURRENT = SettingImpl.newBuilder(
                    "server.subgraph_export.max_concurrent", INT, 0)
            .addConstraint(min(0))
            .build();

    @Description("Most exports one user (with authentication disabled: one client address) may stream at once; above "
            + "it 503 with Retry-After, so that one user's stalled clients cannot take every export slot. 0: half of "
            + "max_concurrent.")
    public static final Setting<Integer> MAX_CONCURRENT_PER_USER = SettingImpl.newBuilder(
                    "server.subgraph_export.max_concurrent_per_user", INT, 0)
            .addConstraint(min(0))
            .build();

    @Description("An export whose write to the client has made no progress for this long (a client that stopped "
            + "reading) is ended: its connection is aborted and its transaction terminated, freeing the worker "
            + "thread, the export slot and the transaction's resources.")
    public static final Setting<Duration> WRITE_STALL_TIMEOUT = SettingImpl.newBuilder(
                    "server.subgraph_export.write_stall_timeout", DURATION, Duration.ofSeconds(10))
            .addConstraint(range(Duration.ofMillis(100), Duration.ofHours(1)))
            .build();

    @Description("Most partitions a traverse export may be cut into (the partitions parameter); above it 400. Each "
            + "partition walks the subgraph's topology: see docs/operations.md, partitioned exports.")
    public static final Setting<Integer> MAX_PARTITIONS = SettingImpl.newBuilder(
                    "server.subgraph_export.max_partitions", INT, 4096)
            .addConstraint(range(1, 1 << 20))
            .build();

    @Description("Most partitions of one partitioned export (one user, one request but for its partition parameter) "
            + "that may stream at once; above it 503 with Retry-After. Together they count as one export toward "
            + "max_concurrent_per_user; each counts toward max_concurrent. 0: the processors the JVM sees, at most "
            + "max_concurrent.")
    public static final Setting<Integer> MAX_PARTITIONS_STREAMING = SettingImpl.newBuilder(
                    "server.subgraph_export.max_partitions_streaming", INT, 0)
            .addConstraint(min(0))
            .build();

    @Description("Bytes of heap, over all exports of this server, that partitions of the same export running at the "
            + "same time may use to share one walk of the subgraph's topology (8 bytes a record of the walk's "
            + "sequence, in chunks). One export keeps at most a quarter of it; a partition that falls further behind "
            + "walks the topology itself, as does every partition when this is used up. 0: partitions never share.")
    public static final Setting<Long> PARTITION_SHARE_SIZE = SettingImpl.newBuilder(
                    "server.subgraph_export.partition_share_size", BYTES, 64L << 20)
            .addConstraint(min(0L))
            .build();

    @Description("Heap kept per database for delta exports (since=): the ids of what each committed transaction "
            + "created, changed or deleted, 8 bytes an id (32 a created or deleted relationship) and 64 a transaction. "
            + "When full, the oldest transactions go, and deltas since a state before them answer 410 "
            + "Export.DeltaUnavailable. 0: no journal, every delta answers 410.")
    public static final Setting<Long> DELTA_JOURNAL_SIZE = SettingImpl.newBuilder(
                    "server.subgraph_export.delta_journal_size", BYTES, 16L << 20)
            .addConstraint(min(0L))
            .build();
}
