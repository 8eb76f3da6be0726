package org.subgraphexport.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** Writes the end-to-end table and the scaling run as markdown, with PNG charts, into benchmarks/results/. */
final class Results {
    static final String TABLE_MD = "end-to-end.md";
    static final String TABLE_PNG = "end-to-end.png";
    static final String SCALING_MD = "scaling.md";
    static final String SCALING_PNG = "scaling.png";

    private Results() {}

    static Path chartPath(Path outDir) {
        return outDir.resolve(TABLE_PNG);
    }

    static Path writeTable(EndToEndRunner.Table t, Path outDir) throws IOException {
        Files.createDirectories(outDir);
        long fastest = t.fastestAlternativeNanos();
        StringBuilder md = new StringBuilder();
        md.append("# End to end: the subgraph under one root, to a Java client\n\n");
        md.append(String.format(Locale.ROOT,
                "Measured %s. Demo graph (`DemoGraph`, seed %d): **%,d Objects** under the root (root included), "
                        + "**%,d nodes and %,d relationships** to export, %,d property values. "
                        + "Median of %d timed runs per row, after one untimed pass and %d untimed warm-up run%s per row; "
                        + "rows take turns (the order rotates every round) and a full GC precedes every timed run.%n%n",
                t.environment().date(), t.graph().seed(), t.graph().objects(), t.graph().nodes(),
                t.graph().relationships(), t.graph().properties(), t.options().runs(), t.options().warmups(),
                t.options().warmups() == 1 ? "" : "s"));
        md.append("![time and bytes per row](").append(TABLE_PNG).append(")\n\n");
        md.append("| row | bytes on the wire | body bytes | time (median) | min – max | MB/s | time ÷ fastest alternative "
                + "| nodes | relationships | counts |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (EndToEndRunner.Measured m : t.rows()) {
            String problem = t.countsProblem(m);
            String counts = problem != null ? "**" + problem + "**"
                    : m.row().countsNote() != null ? m.row().countsNote() : "✓ equal";
            if (m.problem() != null) {
                md.append(String.format(Locale.ROOT, "| %s | | | | | | | | | **%s** |%n", m.row().name(), m.problem()));
                continue;
            }
            long median = m.medianNanos();
            double seconds = median / 1e9;
            md.append(String.format(Locale.ROOT, "| %s | %s | %s | %.3f s | %.3f – %.3f s | %s | %s | %s | %s | %s |%n",
                    label(m),
                    mb(m.wireBytes()),
                    m.first().bodyBytes() < 0 ? "n/a" : mb(m.first().bodyBytes()),
                    seconds, m.minNanos() / 1e9, m.maxNanos() / 1e9,
                    String.format(Locale.ROOT, "%.1f", m.wireBytes() / 1e6 / seconds),
                    fastest == 0 ? "" : ratio(median, fastest),
                    m.first().nodes() < 0 ? "–" : String.format(Locale.ROOT, "%,d", m.first().nodes()),
                    m.first().relationships() < 0 ? "–" : String.format(Locale.ROOT, "%,d", m.first().relationships()),
                    counts));
        }
        md.append('\n');
        appendDerived(md, t);
        md.append("\n**Rows.** ");
        md.append(t.rows().stream().map(m -> "*" + m.row().name() + "*: " + m.row().description())
                .collect(Collectors.joining("; "))).append(".\n\n");
        md.append("""
                **Columns.** *Bytes on the wire*: TCP payload from server to client (HTTP headers and chunk framing, or \
                Bolt messages, included), counted in the untimed first pass through a loopback proxy; the timed runs \
                connect directly. *Body bytes*: the HTTP body as the decoder read it. *Time*: from sending the request \
                to the last record decoded (and the body drained; rows that do not decode: to the last byte read). *MB/s*: bytes on the wire per second of that time \
                (1 MB = 10^6 bytes). *Time ÷ fastest alternative*: below 1 is faster than the fastest of today's \
                alternatives (the ALT rows). *Counts*: nodes and relationships decoded (*walk only*: walked, as the \
                server counted them), checked against the counts the generator recorded.

                **Decoding.** Project rows: `ExportReader.open(format, httpInputStream)`, `next()` until the end record, \
                counting (each record an `ExportNode`/`ExportRelationship`: id, labels or type, property map; nothing \
                is collected). Bolt: the driver's `Result`, record by record (the driver has decoded every entity into \
                its values). JSON and Jolt: Jackson's streaming parser, each entity decoded into id, labels/type and a \
                property map of Java values (Jolt's typed values to Long, Double, java.time), counted and dropped.

                """);
        md.append("**The query** (the peers, and this project's cypher rows), parameter `root` = the root's element id:\n\n");
        md.append("```cypher\n").append(EndToEndRunner.PEER_QUERY).append("\n```\n\n");
        md.append("For *tx/commit json*, whose row format sends relationships without their ends, the same query with "
                + "the missing end's element id next to each relationship:\n\n");
        md.append("```cypher\n").append(EndToEndRunner.TX_ROW_QUERY).append("\n```\n\n");
        if (!t.options().joltV2()) {
            md.append("**Not in the table**: tx/commit with Jolt v2 (`application/vnd.neo4j.jolt-v2+json-seq`, element "
                    + "ids) takes 80-100 s per run at the founding size, on the server side (measured separately, body "
                    + "read and dropped); `--jolt-v2` adds the row.\n\n");
        }
        appendEnvironment(md, t.environment(), t.pageCacheBytes(), t.storeBytes());
        md.append(warmupLine(t.warmup()));
        md.append(String.format(Locale.ROOT, "- Response cache: `server.subgraph_export.response_cache_size` = %s; "
                + "every request of this project's rows except *traverse kryo cached* and *traverse kryo 304* "
                + "sends `Cache-Control: no-cache, no-store`, so it reads the store and no copy of its response is "
                + "kept.%n",
                mib(BenchServer.RESPONSE_CACHE_BYTES)));
        md.append(String.format(Locale.ROOT,
                "- Heap in use after a full GC (client and server together): %s before the first row, %s after the "
                        + "last.%n", mib(t.heapBefore()), mib(t.heapAfter())));
        md.append(String.format(Locale.ROOT,
                "- Bolt: %s, no encryption, fetch size %d. HTTP: java.net.http.HttpClient, "
                        + "HTTP/1.1 keep-alive, responses read as streams (`BodyHandlers.ofInputStream()`).%n",
                BoltRow.DRIVER, t.options().boltFetchSize()));
        Path path = outDir.resolve(TABLE_MD);
        Files.writeString(path, md);
        writeTableChart(t, chartPath(outDir));
        return path;
    }

    /** The figures issue #7 asks for, derived from rows of this table; a line is left out if a row is missing. */
    static void appendDerived(StringBuilder md, EndToEndRunner.Table t) {
        List<String> lines = new ArrayList<>();
        EndToEndRunner.Measured bytes = t.row("traverse kryo bytes");
        EndToEndRunner.Measured walk = t.row("walk only");
        if (bytes != null && walk != null) {
            lines.add(String.format(Locale.ROOT, "Encoding and wire over the walk (target 2: at most +10%%): *traverse "
                            + "kryo bytes* %.3f s ÷ *walk only* %.3f s − 1 = **%+.1f%%**", bytes.medianNanos() / 1e9,
                    walk.medianNanos() / 1e9, (bytes.medianNanos() / (double) walk.medianNanos() - 1) * 100));
            EndToEndRunner.Measured raw = t.row("floor raw bytes");
            if (raw != null) {
                lines.add(String.format(Locale.ROOT, "The wire alone (the same bytes from memory: no store, no encoding) "
                                + "as a share of the walk: *floor raw bytes* %.3f s ÷ *walk only* %.3f s = **%.1f%%**",
                        raw.medianNanos() / 1e9,
                        walk.medianNanos() / 1e9,
                        raw.medianNanos() / (double) walk.medianNanos() * 100));
            }
        }
        for (String endpoint : List.of("traverse", "cypher")) {
            EndToEndRunner.Measured kryo = t.row(endpoint + " kryo");
            EndToEndRunner.Measured lzf = t.row(endpoint + " kryo-lzf");
            if (kryo != null && lzf != null && lzf.first().bodyBytes() > 0) {
                lines.add(String.format(Locale.ROOT, "LZF ratio, %s: kryo %,d body bytes ÷ kryo-lzf %,d = **%.2f**",
                        endpoint, kryo.first().bodyBytes(), lzf.first().bodyBytes(),
                        kryo.first().bodyBytes() / (double) lzf.first().bodyBytes()));
            }
        }
        appendCompression(lines, t);
        EndToEndRunner.Measured streamed = t.row("traverse kryo streaming");
        if (streamed != null && bytes != null) {
            lines.add(String.format(Locale.ROOT, "Streaming decode over bytes only (issue 19: at most 1.15×): *traverse "
                            + "kryo streaming* %.3f s ÷ *traverse kryo bytes* %.3f s = **%.2f×**",
                    streamed.medianNanos() / 1e9, bytes.medianNanos() / 1e9,
                    streamed.medianNanos() / (double) bytes.medianNanos()));
        }
        if (streamed != null && t.fastestAlternativeNanos() > 0) {
            lines.add(String.format(Locale.ROOT, "Streaming decode against the fastest alternative (issue 19: at least "
                            + "5× faster): %.3f s ÷ *traverse kryo streaming* %.3f s = **%.1f× faster**",
                    t.fastestAlternativeNanos() / 1e9, streamed.medianNanos() / 1e9,
                    t.fastestAlternativeNanos() / (double) streamed.medianNanos()));
        }
        EndToEndRunner.Measured cached = t.row("traverse kryo cached");
        EndToEndRunner.Measured floor = t.row("floor kryo decoded");
        if (cached != null && floor != null) {
            lines.add(String.format(Locale.ROOT, "Cached repeat over the wire floor (target 5: at most 1.5×): *traverse "
                            + "kryo cached* %.3f s ÷ *floor kryo decoded* %.3f s = **%.2f×**", cached.medianNanos() / 1e9,
                    floor.medianNanos() / 1e9, cached.medianNanos() / (double) floor.medianNanos()));
        }
        EndToEndRunner.Measured notModified = t.row("traverse kryo 304");
        if (notModified != null) {
            lines.add(String.format(Locale.ROOT, "Revalidation: *traverse kryo 304* answers in %.1f ms (%s on the wire)",
                    notModified.medianNanos() / 1e6, String.format(Locale.ROOT, "%,d bytes", notModified.wireBytes())));
        }
        if (lines.isEmpty()) return;
        md.append("**Derived** (medians and first-pass body bytes of the rows above):\n\n");
        for (String line : lines) md.append("- ").append(line).append('\n');
    }

    /** The figures issue #16 asks for (HTTP compression), from the rows that are there. */
    static void appendCompression(List<String> lines, EndToEndRunner.Table t) {
        EndToEndRunner.Measured kryo = t.row("traverse kryo");
        EndToEndRunner.Measured kryoZstd = t.row("traverse kryo+zstd");
        EndToEndRunner.Measured lzf = t.row("traverse kryo-lzf");
        EndToEndRunner.Measured jsonZstd = t.row("traverse json+zstd");
        if (kryo != null && kryoZstd != null) {
            lines.add(String.format(Locale.ROOT, "kryo+zstd over plain kryo on loopback (target: at most 1.15×): "
                            + "%.3f s ÷ %.3f s = **%.2f×**", kryoZstd.medianNanos() / 1e9, kryo.medianNanos() / 1e9,
                    kryoZstd.medianNanos() / (double) kryo.medianNanos()));
        }
        if (kryoZstd != null && lzf != null) {
            lines.add(String.format(Locale.ROOT, "kryo+zstd against kryo-lzf on the wire (target: smaller): %,d ÷ %,d "
                    + "bytes = **%.2f**", kryoZstd.wireBytes(), lzf.wireBytes(),
                    kryoZstd.wireBytes() / (double) lzf.wireBytes()));
        }
        if (jsonZstd != null && kryo != null) {
            lines.add(String.format(Locale.ROOT, "json+zstd against plain kryo on the wire (target: fewer): %,d ÷ %,d "
                    + "bytes = **%.2f**", jsonZstd.wireBytes(), kryo.wireBytes(),
                    jsonZstd.wireBytes() / (double) kryo.wireBytes()));
        }
        for (long link : EndToEndRunner.LINKS) {
            if (link == 0) continue;
            String at = " @" + ExtensionRow.link(link);
            EndToEndRunner.Measured plain = t.row("traverse kryo" + at);
            EndToEndRunner.Measured fastest = t.rows().stream()
                    .filter(m -> m.problem() == null && m.row().name().endsWith(at) && m != plain)
                    .min(java.util.Comparator.comparingLong(EndToEndRunner.Measured::medianNanos)).orElse(null);
            if (plain != null && fastest != null) {
                lines.add(String.format(Locale.ROOT, "At %s, plain kryo ÷ the fastest compressed row, *%s* "
                                + "(target at 100 Mbit/s: at least 2×): %.3f s ÷ %.3f s = **%.2f×**", ExtensionRow.link(link),
                        fastest.row().name(), plain.medianNanos() / 1e9, fastest.medianNanos() / 1e9,
                        plain.medianNanos() / (double) fastest.medianNanos()));
            }
        }
    }

    /** The Setup line of the page-cache warm-up: what {@code POST /extension/warmup} answered. */
    static String warmupLine(String answer) {
        if (answer == null) return "";
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                "\"files\":(\\d+),\"pages\":(\\d+),\"bytes\":(\\d+),\"millis\":(\\d+)").matcher(answer);
        if (!m.find()) return "- Page cache warm-up: `POST /extension/warmup?db=" + EndToEndRunner.DATABASE
                + "` before the first pass answered `" + answer + "`.\n";
        return String.format(Locale.ROOT, "- Page cache warm-up: `POST /extension/warmup?db=%s` before the first pass "
                        + "loaded %,d pages (%s) of %s store files in %s ms (`%s`).%n", EndToEndRunner.DATABASE,
                Long.parseLong(m.group(2)), mib(Long.parseLong(m.group(3))), m.group(1), m.group(4), answer);
    }

    private static String label(EndToEndRunner.Measured m) {
        return switch (m.row().kind()) {
            case ALTERNATIVE -> "ALT " + m.row().name();
            case PROJECT -> "**" + m.row().name() + "**";
            case FLOOR -> "*" + m.row().name() + "*";
        };
    }

    private static String ratio(long nanos, long fastest) {
        double r = (double) nanos / fastest;
        return r < 1 ? String.format(Locale.ROOT, "%.2f (%.1f× faster)", r, 1 / r)
                : String.format(Locale.ROOT, "%.2f", r);
    }

    private static void writeTableChart(EndToEndRunner.Table t, Path png) throws IOException {
        List<BarChart.Bar> bars = new ArrayList<>();
        for (EndToEndRunner.Measured m : t.rows()) {
            if (m.problem() != null) continue;
            double s = m.medianNanos() / 1e9;
            double mb = m.wireBytes() / 1e6;
            bars.add(new BarChart.Bar(m.row().name(), switch (m.row().kind()) {
                case ALTERNATIVE -> BarChart.ALTERNATIVE;
                case PROJECT -> BarChart.PROJECT;
                case FLOOR -> BarChart.FLOOR;
            }, new double[] {s, mb}, new String[] {
                String.format(Locale.ROOT, "%.2f s", s), String.format(Locale.ROOT, "%.1f MB", mb)}));
        }
        BarChart.write(png,
                String.format(Locale.ROOT, "Subgraph under one root: %,d Objects, %,d nodes, %,d relationships",
                        t.graph().objects(), t.graph().nodes(), t.graph().relationships()),
                String.format(Locale.ROOT, "%s; %d cores, %s RAM; Neo4j %s; median of %d runs, warm page cache; client and "
                                + "server in one JVM, loopback", t.environment().date(), t.environment().processors(),
                        gib(t.environment().memoryBytes()), t.environment().neo4j(), t.options().runs()),
                List.of("time to last record decoded (median)", "bytes on the wire"),
                bars,
                List.of(new BarChart.Key("today's alternatives", BarChart.ALTERNATIVE),
                        new BarChart.Key("this project", BarChart.PROJECT),
                        new BarChart.Key("floors: kryo bytes from memory; walk only", BarChart.FLOOR)));
    }

    static Path writeScaling(Scaling.Result r, Path outDir) throws IOException {
        Files.createDirectories(outDir);
        StringBuilder md = new StringBuilder();
        md.append("# Scaling: kryo traverse at several sizes\n\n");
        md.append(String.format(Locale.ROOT,
                "Measured %s. `GET /extension/kryo/traverse?root=…` of the demo graph (seed %d) at each size, one "
                        + "server per size, page cache sized to the store and loaded by `/extension/warmup`, median of "
                        + "%d timed runs after a first pass and warm-up runs (at least %d, and at least %d s of them, so "
                        + "the JIT is done with the small sizes too). Each round times one export right after the "
                        + "previous one (*time*, the steady state of a server in use) and one right after a full GC "
                        + "(*after a full GC*: a collection of the whole heap costs the next export a fixed few ms, "
                        + "which shows at the small sizes). Heap in use after a full GC (client and server share the JVM): "
                        + "before the first timed export, halfway through an export (the client stops reading "
                        + "halfway, so the server sits mid-walk), and after the last.%n%n",
                r.environment().date(), r.options().seed(), r.options().scalingRuns(),
                Math.max(1, r.options().warmups()), Scaling.MIN_WARMUP_NANOS / 1_000_000_000L));
        md.append("![time per Object and heap](").append(SCALING_PNG).append(")\n\n");
        md.append("| Objects | nodes | relationships | body bytes | time (median) | min – max | µs per Object | "
                + "ns per record | MB/s | after a full GC (median) | ns per record after a full GC | heap before | "
                + "heap mid-export | heap after | store | page cache |\n");
        md.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Scaling.Point p : r.points()) {
            double s = p.medianNanos() / 1e9;
            long min = java.util.Arrays.stream(p.nanos()).min().orElse(0);
            long max = java.util.Arrays.stream(p.nanos()).max().orElse(0);
            md.append(String.format(Locale.ROOT,
                    "| %,d | %,d | %,d | %s | %.3f s | %.3f – %.3f s | %.2f | %.0f | %.1f | %.3f s | %.0f | %s | %s | %s "
                            + "| %s | %s |%n",
                    p.objects(), p.nodes(), p.relationships(), mb(p.bytes()), s, min / 1e9, max / 1e9,
                    p.medianNanos() / 1e3 / p.objects(), (double) p.medianNanos() / (p.nodes() + p.relationships()),
                    p.bytes() / 1e6 / s, p.afterGcMedianNanos() / 1e9,
                    (double) p.afterGcMedianNanos() / (p.nodes() + p.relationships()),
                    mib(p.heapBefore()), mib(p.heapMid()), mib(p.heapAfter()),
                    mib(p.storeBytes()), mib(p.pageCacheBytes())));
        }
        md.append('\n');
        appendEnvironment(md, r.environment(), -1, -1);
        Path path = outDir.resolve(SCALING_MD);
        Files.writeString(path, md);

        List<BarChart.Bar> bars = new ArrayList<>();
        for (Scaling.Point p : r.points()) {
            double us = p.medianNanos() / 1e3 / p.objects();
            double heap = p.heapMid() / (double) (1 << 20);
            bars.add(new BarChart.Bar(String.format(Locale.ROOT, "%,d Objects", p.objects()), BarChart.PROJECT,
                    new double[] {us, heap}, new String[] {String.format(Locale.ROOT, "%.2f µs", us),
                        String.format(Locale.ROOT, "%.0f MiB", heap)}));
        }
        BarChart.write(outDir.resolve(SCALING_PNG), "kryo traverse: time per Object and heap mid-export",
                String.format(Locale.ROOT, "%s; %d cores; Neo4j %s", r.environment().date(), r.environment().processors(),
                        r.environment().neo4j()),
                List.of("time per Object (median)", "heap in use mid-export, after GC (client + server)"), bars,
                List.of(new BarChart.Key("kryo traverse", BarChart.PROJECT)));
        return path;
    }

    private static void appendEnvironment(StringBuilder md, Environment e, long pageCache, long store) {
        md.append("## Setup\n\n");
        md.append(String.format(Locale.ROOT, "- Machine: %s, %d cores (`nproc`), %s RAM, %s. Shared and noisy: "
                + "compare rows of one run, not runs. Load average (1/5/15 min) at the start %s, when the results were "
                + "written %s.%n", e.cpu(), e.processors(), gib(e.memoryBytes()), e.os(), e.loadAtStart(),
                Environment.loadAverage()));
        md.append(String.format(Locale.ROOT, "- JVM: %s; max heap %s; GC %s; arguments `%s`.%n", e.jvm(),
                mib(e.maxHeapBytes()), e.gc(), String.join(" ", e.jvmArguments())));
        md.append(String.format(Locale.ROOT, "- Server: Neo4j %s Community in-process (neo4j-harness), HTTP and Bolt "
                + "on 127.0.0.1, the extension at /extension, the floor and walk-only resources at /floor. **Client and "
                + "server share one "
                + "JVM** (and its heap, GC and 2 cores).%n", e.neo4j()));
        if (pageCache > 0) {
            md.append(String.format(Locale.ROOT, "- Page cache: %s for a store of %s (store files of the database, "
                    + "transaction logs excluded); warm: loaded before the first pass, and every row ran once before "
                    + "timing.%n", mib(pageCache),
                    mib(store)));
        }
    }

    static String mb(long bytes) {
        return String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
    }

    static String mib(long bytes) {
        return bytes < 0 ? "n/a" : String.format(Locale.ROOT, "%,d MiB", Math.round(bytes / (double) (1 << 20)));
    }

    static String gib(long bytes) {
        return bytes < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f GiB", bytes / (double) (1L << 30));
    }
}
