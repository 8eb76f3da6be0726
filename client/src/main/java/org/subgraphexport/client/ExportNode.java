package org.subgraphexport.client;

import java.util.List;
import java.util.Map;
import org.subgraphexport.client.internal.PropertyMap;
import org.subgraphexport.client.internal.Values;

/**
 * A node.
 *
 * @param id         element id, e.g. {@code "4:3f1c...:17"}
 * @param labels     labels in stream order
 * @param properties properties in stream order (unmodifiable); values are the types listed in
 *                   {@link ExportReader}. Equality, hash code and string form compare arrays by content.
 */
public record ExportNode(String id, List<String> labels, Map<String, Object> properties) implements ExportRecord {
    public ExportNode {
        labels = List.copyOf(labels);  // no copy of a decoder's List.of list
        properties = PropertyMap.copyOf(properties);  // no copy of a decoder's map: immutable already
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ExportNode n && id.equals(n.id) && labels.equals(n.labels)
                && Values.propertiesEqual(properties, n.properties);
    }

    @Override
    public int hashCode() {
        return (id.hashCode() * 31 + labels.hashCode()) * 31 + Values.propertiesHash(properties);
    }

    @Override
    public String toString() {
        return "ExportNode[id=" + id + ", labels=" + labels + ", properties=" + Values.toString(properties) + "]";
    }
}
