import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.subgraphexport.client.ExportNode;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.ExportRelationship;
import org.subgraphexport.client.Subgraph;
import org.subgraphexport.wire.Format;

/**
 * Decodes the exports docker/smoke.sh downloaded, with the client jar, and checks them against each other.
 * Run as a single source file, nothing to compile first:
 * <pre>
 *   java -cp subgraph-export-…-client.jar docker/SmokeDecode.java \
 *        json export.json application/json  kryo export.kryo application/x-subgraph-kryo  …
 * </pre>
 * Arguments come in threes: the format's path segment, the file, the Content-Type the server sent. Checks that
 * the Content-Type is the format's, that every stream decodes completely (header, records, end record whose
 * counts match), and that all formats carry exactly the same nodes and relationships, values included.
 * Exit status 0 when all checks pass, 1 otherwise.
 */
public class SmokeDecode {
    public static void main(String[] args) throws IOException {
        if (args.length == 0 || args.length % 3 != 0) {
            System.err.println("usage: SmokeDecode <format> <file> <content-type> [<format> <file> <content-type>]...");
            System.exit(2);
        }
        List<String> problems = new ArrayList<>();
        Subgraph first = null;
        String firstName = null;
        for (int i = 0; i < args.length; i += 3) {
            String name = args[i];
            Path file = Path.of(args[i + 1]);
            String contentType = args[i + 2].split(";")[0].strip();
            Format format = Format.fromPathSegment(name).orElse(null);
            if (format == null) {
                problems.add(name + ": not a format");
                continue;
            }
            if (!format.mediaType().equals(contentType)) {
                problems.add(name + ": Content-Type " + contentType + ", expected " + format.mediaType());
            }
            Subgraph g;
            long start = System.nanoTime();
            try (InputStream in = Files.newInputStream(file);
                    ExportReader reader = ExportReader.open(format, in)) {
                g = Subgraph.read(reader);
            } catch (IOException | RuntimeException e) {
                problems.add(name + ": does not decode: " + e);
                continue;
            }
            long micros = (System.nanoTime() - start) / 1000;
            System.out.printf("%-9s %,12d bytes  %,8d nodes  %,8d relationships  truncated=%s  root=%s  database=%s  decoded in %,d µs%n",
                    name, Files.size(file), g.nodes().size(), g.relationships().size(), g.end().truncated(),
                    g.header().root(), g.header().database(), micros);
            if (g.end().nodes() != g.nodes().size() || g.end().relationships() != g.relationships().size()) {
                problems.add(name + ": end record counts " + g.end() + " but the stream held " + g.nodes().size()
                        + " nodes and " + g.relationships().size() + " relationships");
            }
            if (first == null) {
                first = g;
                firstName = name;
            } else {
                compare(firstName, first, name, g, problems);
            }
        }
        if (first != null && first.nodes().isEmpty()) {
            problems.add("the export is empty");
        }
        if (problems.isEmpty()) {
            System.out.println("OK: every format decoded to the same subgraph");
        } else {
            problems.forEach(p -> System.out.println("FAIL: " + p));
            System.exit(1);
        }
    }

    private static void compare(String aName, Subgraph a, String bName, Subgraph b, List<String> problems) {
        if (!Objects.equals(a.header(), b.header())) {
            problems.add(bName + ": header " + b.header() + " differs from " + aName + "'s " + a.header());
        }
        if (a.end().truncated() != b.end().truncated()) {
            problems.add(bName + ": truncated differs from " + aName);
        }
        for (ExportNode n : a.nodes().values()) {
            ExportNode other = b.nodes().get(n.id());
            if (!n.equals(other)) {
                problems.add(bName + ": node " + n.id() + " is " + other + ", " + aName + " has " + n);
                return;
            }
        }
        for (ExportRelationship r : a.relationships().values()) {
            ExportRelationship other = b.relationships().get(r.id());
            if (!r.equals(other)) {
                problems.add(bName + ": relationship " + r.id() + " is " + other + ", " + aName + " has " + r);
                return;
            }
        }
        if (a.nodes().size() != b.nodes().size() || a.relationships().size() != b.relationships().size()) {
            problems.add(bName + ": " + b.nodes().size() + " nodes, " + b.relationships().size() + " relationships; "
                    + aName + ": " + a.nodes().size() + ", " + a.relationships().size());
        }
    }
}
