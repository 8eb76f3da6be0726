package org.subgraphexport.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import org.subgraphexport.wire.Format;

/**
 * The scaling run: the kryo traverse export of demo graphs of several sizes, one server per size, with the heap in
 * use (after a full GC) before the first timed export, halfway through an export (the client pauses reading; the
 * server is blocked mid-walk on a full TCP window), and after the last one.
 *
 * <p>Each round times two exports: one right after the previous export, as a server under steady use runs them
 * (the time per Object), and one right after a full GC (reported next to it). The runner used to time only the
 * latter; but a full GC costs the export after it a fixed extra time that is not the export's own work (a server
 * does not collect its whole heap before each request), and at 10k Objects that is a large part of the export.
 */
final class Scaling {
    /**
     * Least warm-up per size, whatever {@code --warmup} says: a small export takes a tenth of a second, and a couple
     * of them leave the JIT compiling while the timed runs go (the 10k point then measured 2-3x the per-record time
     * of the others). Warm-up runs go on until both the count and this time are reached.
     */
    static final long MIN_WARMUP_NANOS = 5_000_000_000L;

    private Scaling() {}

    record Point(int objects, long nodes, long relationships, long bytes, long[] nanos, long[] afterGcNanos,
            long heapBefore, long heapMid, long heapAfter, long storeBytes, long pageCacheBytes) {
        long medianNanos() {
            return median(nanos);
        }

        long afterGcMedianNanos() {
            return median(afterGcNanos);
        }

        private static long median(long[] nanos) {
            return new EndToEndRunner.Measured(null, 0, null, nanos, null).medianNanos();
        }
    }

    record Result(EndToEndRunner.Options options, Environment environment, List<Point> points) {}

    static Result run(EndToEndRunner.Options o, PrintStream log) throws Exception {
        Environment environment = Environment.capture();
        List<Point> points = new ArrayList<>();
        for (int objects : o.scaling()) {
            try (BenchServer server = BenchServer.start(o.dataRoot(), objects, o.seed(), o.pageCache(), log)) {
                String root = server.graph.rootElementId();
                log.printf("%,d Objects: page cache warm-up %s%n", objects, EndToEndRunner.warmUp(server));
                Row row = new ExtensionRow(ExtensionRow.Endpoint.TRAVERSE, Format.KRYO, root, null);
                Row.Endpoints direct = new Row.Endpoints(server.http(), server.bolt());
                Row.Outcome first = row.run(direct, false);
                if (first.nodes() != server.graph.nodes() || first.relationships() != server.graph.relationships()) {
                    throw new IllegalStateException("decoded " + first.nodes() + "/" + first.relationships()
                            + ", expected " + server.graph.nodes() + "/" + server.graph.relationships());
                }
                int warmups = 0;
                for (long start = System.nanoTime();
                        warmups < Math.max(1, o.warmups()) || System.nanoTime() - start < MIN_WARMUP_NANOS; warmups++) {
                    row.run(direct, false);
                }
                log.printf("%,d Objects: %d warm-up runs%n", objects, warmups);
                long heapBefore = BenchServer.heapUsedAfterGc();
                long[] nanos = new long[o.scalingRuns()];
                long[] afterGc = new long[o.scalingRuns()];
                for (int r = 0; r < nanos.length; r++) {
                    nanos[r] = row.run(direct, false).nanos();
                    BenchServer.heapUsedAfterGc();
                    afterGc[r] = row.run(direct, false).nanos();
                }
                long heapMid = EndToEndRunner.heapMidExport(server, root, first.nodes() + first.relationships());
                long heapAfter = BenchServer.heapUsedAfterGc();
                Point p = new Point(objects, first.nodes(), first.relationships(), first.bodyBytes(), nanos, afterGc,
                        heapBefore, heapMid, heapAfter, server.storeBytes, server.pageCacheBytes);
                points.add(p);
                log.printf("%,d Objects: %,d nodes, %,d relationships, %,d bytes, median %.3f s (after a full GC %.3f s),"
                        + " heap %,d / %,d / %,d%n", objects, p.nodes(), p.relationships(), p.bytes(),
                        p.medianNanos() / 1e9, p.afterGcMedianNanos() / 1e9, heapBefore, heapMid, heapAfter);
            }
        }
        return new Result(o, environment, points);
    }
}
