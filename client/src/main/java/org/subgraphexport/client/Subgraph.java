package org.subgraphexport.client;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A whole export in memory: header, nodes and relationships by element id in stream order, the closing record,
 * and for a rows stream (Cypher {@code mode=rows}) the column names and the rows in stream order. A convenience
 * for tests and small exports only; large ones should be consumed record by record from the {@link ExportReader}.
 *
 * @param columns column names of a rows stream; empty for a graph stream
 * @param rows    rows of a rows stream in stream order; empty for a graph stream
 */
public record Subgraph(ExportHeader header, Map<String, ExportNode> nodes,
        Map<String, ExportRelationship> relationships, ExportEnd end, List<String> columns, List<ExportRow> rows) {

    public Subgraph {
        nodes = Collections.unmodifiableMap(new LinkedHashMap<>(nodes));
        relationships = Collections.unmodifiableMap(new LinkedHashMap<>(relationships));
        columns = List.copyOf(columns);
        rows = List.copyOf(rows);
    }

    /** A graph stream's content: no columns, no rows. */
    public Subgraph(ExportHeader header, Map<String, ExportNode> nodes, Map<String, ExportRelationship> relationships,
            ExportEnd end) {
        this(header, nodes, relationships, end, List.of(), List.of());
    }

    /**
     * Reads every record of {@code reader} (without closing it). Also checks what a streaming reader cannot:
     * element ids are unique, every relationship comes after both of its end nodes, and every node and
     * relationship a row refers to (directly, in a list or map, or in a path) came before the row, and each path's
     * relationships connect its consecutive nodes.
     *
     * @throws ExportFailedException  if the stream ends with an error record
     * @throws CorruptStreamException if the stream is invalid
     */
    public static Subgraph read(ExportReader reader) throws IOException {
        Map<String, ExportNode> nodes = new LinkedHashMap<>();
        Map<String, ExportRelationship> relationships = new LinkedHashMap<>();
        List<String> columns = List.of();
        List<ExportRow> rows = new ArrayList<>();
        while (true) {
            ExportRecord r = reader.next();
            if (r == null) {
                throw new IllegalStateException("reader already consumed");
            } else if (r instanceof ExportNode n) {
                if (nodes.putIfAbsent(n.id(), n) != null) {
                    throw new CorruptStreamException("node " + n.id() + " twice in the stream");
                }
            } else if (r instanceof ExportRelationship rel) {
                if (!nodes.containsKey(rel.start()) || !nodes.containsKey(rel.end())) {
                    throw new CorruptStreamException("relationship " + rel.id() + " before its end node "
                            + (nodes.containsKey(rel.start()) ? rel.end() : rel.start()));
                }
                if (relationships.putIfAbsent(rel.id(), rel) != null) {
                    throw new CorruptStreamException("relationship " + rel.id() + " twice in the stream");
                }
            } else if (r instanceof ExportColumns c) {
                columns = c.names();
            } else if (r instanceof ExportRow row) {
                for (Object value : row.values()) {
                    checkReferences(value, nodes, relationships, rows.size());
                }
                rows.add(row);
            } else if (r instanceof ExportEnd end) {
                return new Subgraph(reader.header(), nodes, relationships, end, columns, rows);
            } else if (r instanceof ExportLeft) {
                throw new IllegalArgumentException("a delta stream is applied to an export: Delta.apply");
            } else {  // ExportHeader: ExportRecord is sealed
                throw new CorruptStreamException("a second header record");
            }
        }
    }

    /**
     * This export as it is now on the server, read from {@code export} (the {@code traverse} URL this export was read
     * from, without {@code since}): only what changed since this export's state, applied to a copy of it, or the whole
     * export again when the server cannot answer that exactly ({@link Delta#refresh}).
     */
    public Subgraph refresh(java.net.http.HttpClient http, java.net.URI export) throws IOException {
        return Delta.refresh(http, export, this);
    }

    /**
     * Checks that every reference in {@code value} resolves to a node or relationship already read. Iterative (a
     * stack of the lists and maps still to look into), so that the deepest allowed rows need no more thread stack
     * here than the decoder needed to read them.
     */
    private static void checkReferences(Object value, Map<String, ExportNode> nodes,
            Map<String, ExportRelationship> relationships, int row) throws CorruptStreamException {
        ArrayDeque<Iterator<?>> pending = new ArrayDeque<>();
        Object next = value;
        while (true) {
            if (next instanceof NodeRef ref) {
                checkNode(ref.id(), nodes, row);
            } else if (next instanceof RelationshipRef ref) {
                checkRelationship(ref.id(), relationships, row);
            } else if (next instanceof PathValue path) {
                for (String id : path.nodes()) {
                    checkNode(id, nodes, row);
                }
                for (int i = 0; i < path.length(); i++) {
                    String id = path.relationships().get(i);
                    checkRelationship(id, relationships, row);
                    ExportRelationship rel = relationships.get(id);
                    String a = path.nodes().get(i), b = path.nodes().get(i + 1);
                    if (!(rel.start().equals(a) && rel.end().equals(b))
                            && !(rel.start().equals(b) && rel.end().equals(a))) {
                        throw new CorruptStreamException("row " + row + " has a path whose relationship " + id
                                + " does not connect " + a + " and " + b);
                    }
                }
            } else if (next instanceof List<?> list) {
                pending.push(list.iterator());
            } else if (next instanceof Map<?, ?> map) {
                pending.push(map.values().iterator());
            }
            // anything else (a scalar, an array or null) refers to nothing
            while (!pending.isEmpty() && !pending.peek().hasNext()) {
                pending.pop();
            }
            if (pending.isEmpty()) {
                return;
            }
            next = pending.peek().next();
        }
    }

    private static void checkNode(String id, Map<String, ExportNode> nodes, int row) throws CorruptStreamException {
        if (!nodes.containsKey(id)) {
            throw new CorruptStreamException("row " + row + " refers to node " + id + " before its node record");
        }
    }

    private static void checkRelationship(String id, Map<String, ExportRelationship> relationships, int row)
            throws CorruptStreamException {
        if (!relationships.containsKey(id)) {
            throw new CorruptStreamException("row " + row + " refers to relationship " + id
                    + " before its relationship record");
        }
    }
}
