package org.subgraphexport.client;

import java.util.List;

/**
 * A path in an {@link ExportRow} value: {@code nodes[0], relationships[0], nodes[1], ..., nodes[n]}, as element ids;
 * one node more than relationships (a path of length 0 is one node). Relationship {@code i} connects nodes {@code i}
 * and {@code i + 1}, in either direction. Every node and relationship came as a record earlier in the stream
 * ({@link Subgraph#read} checks that, and the connections).
 *
 * @param nodes         node element ids, at least one
 * @param relationships relationship element ids, {@code nodes.size() - 1} of them
 */
public record PathValue(List<String> nodes, List<String> relationships) {
    public PathValue {
        nodes = List.copyOf(nodes);
        relationships = List.copyOf(relationships);
        if (nodes.size() != relationships.size() + 1) {
            throw new IllegalArgumentException("a path has one node more than relationships, not " + nodes.size()
                    + " and " + relationships.size());
        }
    }

    /** Number of relationships. */
    public int length() {
        return relationships.size();
    }
}
