package org.subgraphexport.jmh;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Turns a JMH JSON result file ({@code -rf json}) into the markdown tables of benchmarks/results/jmh.md: per
 * serializer row records/s, MB/s, bytes per record and allocation per record; per read path nodes/s and allocation
 * per node. Run by scripts/jmh: {@code java -cp benchmarks.jar org.subgraphexport.jmh.JmhReport in.json
 * out.md "setup text"}.
 */
public final class JmhReport {
    private JmhReport() {}

    public static void main(String[] args) throws IOException {
        JsonNode results = new ObjectMapper().readTree(Files.readString(Path.of(args[0])));
        String setup = args.length > 2 ? args[2] : "";
        StringBuilder md = new StringBuilder("# JMH: serializers and read paths\n\n");
        md.append(setup).append("\n\n");
        List<JsonNode> serializer = new ArrayList<>();
        List<JsonNode> readPath = new ArrayList<>();
        for (JsonNode r : results) {
            String b = r.get("benchmark").asText();
            if (b.contains("SerializerBenchmark")) serializer.add(r);
            else if (b.contains("ReadPathBenchmark")) readPath.add(r);
        }
        if (!serializer.isEmpty()) {
            md.append("## Serializers: the demo graph's traverse export, in memory\n\n");
            md.append("One operation = one whole stream (header, every node and relationship, end) written into a reused "
                    + "in-memory buffer, or decoded from one by `ExportReader`. ± is JMH's 99.9% confidence half-width "
                    + "of the primary score.\n\n");
            md.append("| op | format | Objects | records/stream | streams/s | records/s | MB/s | bytes/record | "
                    + "alloc B/record |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
            serializer.sort(Comparator.comparing((JsonNode r) -> method(r))
                    .thenComparing(r -> Integer.parseInt(param(r, "objects")))
                    .thenComparing(r -> formatOrder(param(r, "format"))));
            for (JsonNode r : serializer) {
                double ops = score(r);
                double records = secondary(r, "records");
                double bytes = secondary(r, "bytes");
                double perStream = records / ops;
                double alloc = secondary(r, "gc.alloc.rate.norm");
                md.append(String.format(Locale.ROOT, "| %s | %s | %,d | %,.0f | %,.1f ± %,.1f | %,.0f | %,.1f | %.1f | %s |%n",
                        method(r), param(r, "format"), Integer.parseInt(param(r, "objects")), perStream, ops,
                        error(r), records, bytes / 1e6, bytes / records,
                        Double.isNaN(alloc) ? "(run with -prof gc)" : String.format(Locale.ROOT, "%.0f", alloc / perStream)));
            }
            md.append('\n');
        }
        if (!readPath.isEmpty()) {
            md.append("## Read paths: the same subgraph from an embedded database, into a counting sink\n\n");
            md.append("One operation = the whole subgraph under the root, every property read, in one read transaction. "
                    + "Warm page cache (1 GiB, larger than the store).\n\n");
            md.append("| path | Objects | nodes/op | ops/s | nodes/s | relationships/s | × kernel | alloc B/node |\n"
                    + "|---|---:|---:|---:|---:|---:|---:|---:|\n");
            readPath.sort(Comparator.comparing((JsonNode r) -> Integer.parseInt(param(r, "objects")))
                    .thenComparing(r -> -score(r)));
            for (JsonNode r : readPath) {
                double ops = score(r);
                double nodes = secondary(r, "nodes");
                double rels = secondary(r, "relationships");
                double kernel = readPath.stream()
                        .filter(k -> method(k).equals("kernel") && param(k, "objects").equals(param(r, "objects")))
                        .mapToDouble(JmhReport::score).findFirst().orElse(Double.NaN);
                double alloc = secondary(r, "gc.alloc.rate.norm");
                md.append(String.format(Locale.ROOT, "| %s | %,d | %,.0f | %,.2f ± %,.2f | %,.0f | %,.0f | %.2f | %s |%n",
                        method(r), Integer.parseInt(param(r, "objects")), nodes / ops, ops, error(r), nodes, rels,
                        ops / kernel,
                        Double.isNaN(alloc) ? "(run with -prof gc)" : String.format(Locale.ROOT, "%.0f", alloc / (nodes / ops))));
            }
            md.append('\n');
        }
        Path out = Path.of(args[1]);
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, md);
        System.out.print(md);
    }

    private static String method(JsonNode r) {
        String b = r.get("benchmark").asText();
        return b.substring(b.lastIndexOf('.') + 1);
    }

    private static String param(JsonNode r, String name) {
        JsonNode p = r.path("params").path(name);
        return p.isMissingNode() ? "" : p.asText();
    }

    private static int formatOrder(String format) {
        return List.of("json", "bson", "kryo", "kryo-lzf").indexOf(format);
    }

    private static double score(JsonNode r) {
        return r.path("primaryMetric").path("score").asDouble();
    }

    private static double error(JsonNode r) {
        double e = r.path("primaryMetric").path("scoreError").asDouble(Double.NaN);
        return Double.isNaN(e) ? 0 : e;
    }

    private static double secondary(JsonNode r, String name) {
        JsonNode s = r.path("secondaryMetrics");
        for (var it = s.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (key.equals(name) || key.endsWith(name) && key.length() <= name.length() + 1) {
                return s.get(key).path("score").asDouble();
            }
        }
        return Double.NaN;
    }
}
