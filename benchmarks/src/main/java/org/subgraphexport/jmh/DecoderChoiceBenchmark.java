package org.subgraphexport.jmh;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.subgraphexport.bench.TouchingHandler;
import org.subgraphexport.client.ExportEnd;
import org.subgraphexport.client.ExportParser;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.ExportRecord;
import org.subgraphexport.client.internal.LibraryDecoders;
import org.subgraphexport.client.internal.RecordReader;
import org.subgraphexport.encode.Encoders;
import org.subgraphexport.wire.Format;

/**
 * {@link SerializerBenchmark}'s {@code read} and {@code parse} for json and bson, with the client's own tokenizers
 * ({@code decoder=own}: JsonTokens, BsonDocuments + BsonTokens) and with a library's parser behind the same seam
 * ({@code decoder=library}: jackson-core's JsonParser, org.mongodb:bson's BsonBinaryReader; {@link LibraryDecoders}),
 * in one run: benchmarks/results/client-decoders.md.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g"})
@State(Scope.Benchmark)
public class DecoderChoiceBenchmark {
    @Param({"json", "bson"})
    public String format;

    @Param({"own", "library"})
    public String decoder;

    @Param({"10000"})
    public int objects;

    private Format wire;
    private byte[] encoded;
    private int records;

    @Setup
    public void setUp() throws IOException {
        wire = Format.fromPathSegment(format).orElseThrow(() -> new IllegalArgumentException(format));
        Tape tape = Tape.fromKryo(DemoData.kryoExport(objects));
        ByteArrayOutputStream out = new ByteArrayOutputStream(1 << 20);
        tape.replay(Encoders.open(wire, out));
        encoded = out.toByteArray();
        records = (int) tape.records();
        // Sanity: both decoders give exactly the same records, value for value.
        List<ExportRecord> own = decodeAll(new RecordReader(ExportParser.open(wire, in())));
        List<ExportRecord> library = decodeAll(new RecordReader(LibraryDecoders.open(wire, in())));
        if (!own.equals(library) || own.size() != records + 1) {
            throw new IllegalStateException(format + ": the library decoder's records differ from the client's");
        }
    }

    private InputStream in() {
        return new ByteArrayInputStream(encoded);
    }

    private ExportParser open() throws IOException {
        return decoder.equals("own") ? ExportParser.open(wire, in()) : LibraryDecoders.open(wire, in());
    }

    @Benchmark
    public long read(Blackhole bh) throws IOException {
        long n = 0;
        try (ExportReader reader = new RecordReader(open())) {
            for (ExportRecord r; (r = reader.next()) != null; ) {
                bh.consume(r);
                if (!(r instanceof ExportEnd)) n++;
            }
        }
        return check(n);
    }

    @Benchmark
    public long parse() throws IOException {
        long n = 0;
        TouchingHandler handler = new TouchingHandler();
        try (ExportParser parser = open()) {
            for (ExportParser.Kind kind; (kind = parser.next(handler)) != null; ) {
                if (kind != ExportParser.Kind.END) n++;
            }
        }
        check(n);
        return handler.sum;
    }

    private long check(long n) {
        if (n != records) {
            throw new IllegalStateException("decoded " + n + " records, expected " + records);
        }
        return n;
    }

    private static List<ExportRecord> decodeAll(ExportReader reader) throws IOException {
        List<ExportRecord> all = new ArrayList<>();
        try (reader) {
            for (ExportRecord r; (r = reader.next()) != null; ) {
                all.add(r);
            }
        }
        return all;
    }
}
