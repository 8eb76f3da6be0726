package org.subgraphexport.bench;

import java.net.URI;
import java.util.Arrays;
import java.util.Locale;
import org.subgraphexport.format.Format;

/**
 * Times the kryo traverse export of a server running in another process (the scaling run of
 * {@code scripts/bench-scaling-remote}): {@code GET /extension/kryo/traverse?root=…} with {@code Cache-Control:
 * no-cache, no-store}, decoded by {@code RecordReader} and counted, as the end-to-end runner's rows do, but with
 * client and server in separate JVMs, so that neither pays for the other's heap, GC or JIT. Warm-up runs go on for
 * at least the given seconds (and at least two runs); then the timed runs, back to back: the steady state of a
 * server in use. (Exports that start after the machine sat idle are slower: on 2026-11-23 a 10k-Object export took
 * 120 ms after a 2 s pause against 64 ms back to back; and one right after a 1M-Object export of another server took
 * three times as long as alone. Neither is the export's own cost, so sizes are timed one after the other.)
 * Prints one line: {@code records=… bytes=… median_ms=… min_ms=… max_ms=… ns_per_record=… runs=[…]}.
 *
 * <pre>java -cp … org.subgraphexport.bench.RemoteTimer http://127.0.0.1:7690 &lt;root element id&gt; [warm-up s] [runs]</pre>
 */
public final class RemoteTimer {
    private RemoteTimer() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: RemoteTimer <server base URL> <root element id> [warm-up seconds] [runs]");
            System.exit(2);
        }
        URI uri = URI.create(args[0]).resolve("/extension/kryo/traverse?root=" + Http.enc(args[1]));
        long warmupNanos = (long) (Double.parseDouble(args.length > 2 ? args[2] : "15") * 1e9);
        int runs = Integer.parseInt(args.length > 3 ? args[3] : "7");

        Export export = new Export(uri);
        long start = System.nanoTime();
        for (int warmups = 0; warmups < 2 || System.nanoTime() - start < warmupNanos; warmups++) {
            export.once();
        }
        long[] nanos = new long[runs];
        for (int r = 0; r < runs; r++) {
            nanos[r] = export.once();
        }
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        long median = sorted[runs / 2];
        System.out.printf(Locale.ROOT, "records=%d bytes=%d median_ms=%.1f min_ms=%.1f max_ms=%.1f ns_per_record=%.0f "
                + "runs=%s%n", export.records, export.bytes, median / 1e6, sorted[0] / 1e6, sorted[runs - 1] / 1e6,
                (double) median / export.records, Arrays.toString(Arrays.stream(nanos)
                        .mapToObj(n -> String.format(Locale.ROOT, "%.1f", n / 1e6)).toArray()));
    }

    /** One export, decoded and counted; every run must decode the same records and bytes as the first. */
    private static final class Export {
        final URI uri;
        long records = -1;
        long bytes = -1;

        Export(URI uri) {
            this.uri = uri;
        }

        long once() throws Exception {
            long start = System.nanoTime();
            Http.Body body = Http.get(uri, Format.KRYO.mediaType(), Http.BYPASS_CACHE);
            Tally tally = ExportRow.decode(Format.KRYO, body, false);
            long elapsed = System.nanoTime() - start;
            long seen = tally.nodes() + tally.relationships();
            if (records >= 0 && (seen != records || body.count() != bytes)) {
                throw new IllegalStateException(seen + " records and " + body.count() + " bytes, " + records + " and "
                        + bytes + " before");
            }
            records = seen;
            bytes = body.count();
            return elapsed;
        }
    }
}
