package org.subgraphexport.bench;

import java.net.URI;
import java.util.Arrays;
import java.util.Locale;
import org.subgraphexport.wire.Format;

/**
 * Times the kryo traverse export of a server running in another process (the scaling run of
 * {@code scripts/bench-scaling-remote}) with the end-to-end runner's own row ({@link ExtensionRow}, the kryo traverse
 * with {@code Cache-Control: no-cache, no-store}, decoded by {@code ExportReader} and counted), but with
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
        Row row = new ExtensionRow(ExtensionRow.Endpoint.TRAVERSE, Format.KRYO, args[1], null);
        Row.Endpoints server = new Row.Endpoints(URI.create(args[0]), null);
        long warmupNanos = (long) (Double.parseDouble(args.length > 2 ? args[2] : "15") * 1e9);
        int runs = Integer.parseInt(args.length > 3 ? args[3] : "7");

        Row.Outcome first = row.run(server, false);
        long records = first.nodes() + first.relationships();
        long start = System.nanoTime();
        for (int warmups = 1; warmups < 2 || System.nanoTime() - start < warmupNanos; warmups++) {
            check(row.run(server, false), first);
        }
        long[] nanos = new long[runs];
        for (int r = 0; r < runs; r++) {
            nanos[r] = check(row.run(server, false), first).nanos();
        }
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        long median = sorted[runs / 2];
        System.out.printf(Locale.ROOT, "records=%d bytes=%d median_ms=%.1f min_ms=%.1f max_ms=%.1f ns_per_record=%.0f "
                + "runs=%s%n", records, first.bodyBytes(), median / 1e6, sorted[0] / 1e6, sorted[runs - 1] / 1e6,
                (double) median / records, Arrays.toString(Arrays.stream(nanos)
                        .mapToObj(n -> String.format(Locale.ROOT, "%.1f", n / 1e6)).toArray()));
    }

    /** Every run must decode the records and bytes of the first. */
    private static Row.Outcome check(Row.Outcome run, Row.Outcome first) {
        if (run.nodes() != first.nodes() || run.relationships() != first.relationships()
                || run.bodyBytes() != first.bodyBytes()) {
            throw new IllegalStateException("decoded " + run.nodes() + "/" + run.relationships() + " in "
                    + run.bodyBytes() + " bytes, the first run " + first.nodes() + "/" + first.relationships() + " in "
                    + first.bodyBytes());
        }
        return run;
    }
}
