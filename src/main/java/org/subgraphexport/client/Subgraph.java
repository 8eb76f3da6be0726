package org.subgraphexport.client;

import java.io.IOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A whole export in memory: header, nodes and relationships by element id in stream order, and the closing
 * record. A convenience for tests and small exports only; large ones should be consumed record by record from
 * the {@link RecordReader}.
 */
public record Subgraph(ExportHeader header, Map<String, Node> nodes, Map<String, Relationship> relationships,
        ExportEnd end) {

    public Subgraph {
        nodes = Collections.unmodifiableMap(new LinkedHashMap<>(nodes));
        relationships = Collections.unmodifiableMap(new LinkedHashMap<>(relationships));
    }

    /**
     * Reads every record of {@code reader} (without closing it). Also checks what a streaming reader cannot:
     * element ids are unique, and every relationship comes after both of its end nodes.
     *
     * @throws ExportFailedException  if the stream ends with an error record
     * @throws CorruptStreamException if the stream is invalid
     */
    public static Subgraph read(RecordReader reader) throws IOException {
        Map<String, Node> nodes = new LinkedHashMap<>();
        Map<String, Relationship> relationships = new LinkedHashMap<>();
        while (true) {
            Record r = reader.next();
            switch (r) {
                case null -> throw new IllegalStateException("reader already consumed");
                case Node n -> {
                    if (nodes.putIfAbsent(n.id(), n) != null) {
                        throw new CorruptStreamException("node " + n.id() + " twice in the stream");
                    }
                }
                case Relationship rel -> {
                    if (!nodes.containsKey(rel.start()) || !nodes.containsKey(rel.end())) {
                        throw new CorruptStreamException("relationship " + rel.id() + " before its end node "
                                + (nodes.containsKey(rel.start()) ? rel.end() : rel.start()));
                    }
                    if (relationships.putIfAbsent(rel.id(), rel) != null) {
                        throw new CorruptStreamException("relationship " + rel.id() + " twice in the stream");
                    }
                }
                case ExportEnd end -> {
                    return new Subgraph(reader.header(), nodes, relationships, end);
                }
                case ExportHeader h -> throw new CorruptStreamException("a second header record");
            }
        }
    }
}
