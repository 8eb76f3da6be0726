package org.subgraphexport.jmh;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.subgraphexport.encode.Encoders;
import org.subgraphexport.wire.Format;

/**
 * A writer's own cost, without the walk or a socket: a saved kryo export (any size, e.g. the founding-size traverse
 * export fetched with curl) decoded once into a {@link Tape}, then replayed into each format's writer over a sink
 * that only counts, {@code rounds} times per format, formats taking turns; prints the fastest round per format.
 * For the formats JMH's {@link SerializerBenchmark} cannot cover (its read benchmarks decode with the Java client,
 * which reads no arrow) and for streams larger than its demo graphs.
 *
 * <pre>
 * curl -o export.kryo 'http://127.0.0.1:7474/extension/kryo/traverse?label=Object&amp;key=id&amp;value=1'
 * java -Xmx6g -cp benchmarks/target/benchmarks.jar org.subgraphexport.jmh.WriterReplay export.kryo 8 kryo,arrow
 * </pre>
 */
public final class WriterReplay {
    private WriterReplay() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            System.err.println("usage: WriterReplay <export.kryo> <rounds> <format,format,...>");
            System.exit(2);
        }
        Tape tape = Tape.fromKryo(Files.readAllBytes(Path.of(args[0])));
        int rounds = Integer.parseInt(args[1]);
        String[] formats = args[2].split(",");
        long[] best = new long[formats.length];
        long[] bytes = new long[formats.length];
        Arrays.fill(best, Long.MAX_VALUE);
        for (int round = 0; round < rounds; round++) {
            for (int f = 0; f < formats.length; f++) {
                Format format = Format.fromPathSegment(formats[f])
                        .orElseThrow(() -> new IllegalArgumentException("no format " + args[2]));
                Counting sink = new Counting();
                long t0 = System.nanoTime();
                tape.replay(Encoders.open(format, sink));
                best[f] = Math.min(best[f], System.nanoTime() - t0);
                bytes[f] = sink.count;
            }
        }
        System.out.printf("%,d records replayed, best of %d rounds:%n", tape.records(), rounds);
        for (int f = 0; f < formats.length; f++) {
            System.out.printf("  %-9s %8.1f ms  %,15d bytes%n", formats[f], best[f] / 1e6, bytes[f]);
        }
    }

    /** Counts what is written, keeps nothing. */
    private static final class Counting extends OutputStream {
        long count;

        @Override
        public void write(int b) {
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            count += len;
        }
    }
}
