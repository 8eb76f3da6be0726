package org.subgraphexport.jmh;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.subgraphexport.bench.TouchingHandler;
import org.subgraphexport.client.ExportEnd;
import org.subgraphexport.client.ExportParser;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.ExportRecord;
import org.subgraphexport.encode.Encoders;
import org.subgraphexport.wire.Format;

/**
 * The serializers alone: each format writing the same in-memory stream of records (the traverse export of the demo
 * graph, replayed from a {@link Tape}) into a reused in-memory buffer, and each decoder reading that format's bytes
 * back with {@link ExportReader} ({@code read}: records built) and with {@link ExportParser} ({@code parse}: the
 * streaming API, every value touched, no record built). One operation is one whole stream. Secondary results: {@code records} (nodes and
 * relationships per second) and {@code bytes} (encoded bytes per second); with {@code -prof gc},
 * {@code gc.alloc.rate.norm} is bytes allocated per stream (divide by the records per stream, which
 * {@link JmhReport} does).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
// Forks inherit the host JVM's flags: scripts/jmh starts it with Neo4j's (NEO4J_JVM_FLAGS of scripts/java-env.sh).
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g"})
@State(Scope.Benchmark)
public class SerializerBenchmark {
    @Param({"json", "bson", "kryo", "kryo-lzf"})
    public String format;

    /** Objects in the demo graph whose traverse export is the stream (about 12 records per Object). */
    @Param({"1000", "10000"})
    public int objects;

    private Format wire;
    private Tape tape;
    private byte[] encoded;
    private final Buffer buffer = new Buffer();
    private long lastWritten = -1;
    private long lastRead = -1;

    /** Per-operation counters, reported by JMH as rates: records/s and bytes/s. */
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    @State(Scope.Thread)
    public static class Throughput {
        public long records;
        public long bytes;

        @Setup(Level.Iteration)
        public void reset() {
            records = 0;
            bytes = 0;
        }
    }

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        wire = Format.fromPathSegment(format).orElseThrow(() -> new IllegalArgumentException(format));
        byte[] kryo = DemoData.kryoExport(objects);
        tape = Tape.fromKryo(kryo);
        tape.replay(Encoders.open(wire, buffer));
        encoded = buffer.toByteArray();
        // Sanity: this format's bytes decode to exactly the records of the kryo export, value for value.
        List<ExportRecord> expected = decodeAll(Format.KRYO, kryo);
        List<ExportRecord> actual = decodeAll(wire, encoded);
        if (!expected.equals(actual)) {
            throw new IllegalStateException(format + " does not round-trip the demo stream");
        }
        System.out.printf("%n%s, %,d Objects: %,d records (%,d nodes, %,d relationships), %,d bytes, %.1f bytes/record%n",
                format, objects, tape.records(), tape.nodes, tape.relationships, encoded.length,
                (double) encoded.length / tape.records());
    }

    @Benchmark
    public int write(Throughput t) throws IOException {
        buffer.reset();
        tape.replay(Encoders.open(wire, buffer));
        t.records += tape.records();
        t.bytes += buffer.size();
        lastWritten = buffer.size();
        return buffer.size();
    }

    @Benchmark
    public long read(Throughput t, Blackhole bh) throws IOException {
        long records = 0;
        try (ExportReader reader = ExportReader.open(wire, new ByteArrayInputStream(encoded))) {
            for (ExportRecord r; (r = reader.next()) != null; ) {
                bh.consume(r);
                if (!(r instanceof ExportEnd)) records++;
            }
        }
        t.records += records;
        t.bytes += encoded.length;
        lastRead = records;
        return records;
    }

    /**
     * The streaming API: the same bytes through {@link ExportParser}, every part of every record touched by a
     * {@link TouchingHandler}, no record built.
     */
    @Benchmark
    public long parse(Throughput t) throws IOException {
        long records = 0;
        TouchingHandler handler = new TouchingHandler();
        try (ExportParser parser = ExportParser.open(wire, new ByteArrayInputStream(encoded))) {
            for (ExportParser.Kind kind; (kind = parser.next(handler)) != null; ) {
                if (kind != ExportParser.Kind.END) records++;
            }
        }
        t.records += records;
        t.bytes += encoded.length;
        lastRead = records;
        return handler.sum;
    }

    @TearDown(Level.Trial)
    public void check() {
        if (lastWritten != -1 && lastWritten != encoded.length) {
            throw new IllegalStateException("write produced " + lastWritten + " bytes, expected " + encoded.length);
        }
        if (lastRead != -1 && lastRead != tape.records()) {
            throw new IllegalStateException("read decoded " + lastRead + " records, expected " + tape.records());
        }
        if (lastWritten == -1 && lastRead == -1) {
            throw new IllegalStateException("no benchmark ran");
        }
    }

    private static List<ExportRecord> decodeAll(Format format, byte[] bytes) throws IOException {
        List<ExportRecord> records = new ArrayList<>();
        try (ExportReader reader = ExportReader.open(format, new ByteArrayInputStream(bytes))) {
            for (ExportRecord r; (r = reader.next()) != null; ) {
                records.add(r);
            }
        }
        return records;
    }

    /** A reusable in-memory target: reset() keeps the array. */
    static final class Buffer extends ByteArrayOutputStream {
        Buffer() {
            super(1 << 20);
        }
    }
}
