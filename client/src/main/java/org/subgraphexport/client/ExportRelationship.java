package org.subgraphexport.client;

import java.util.Map;
import org.subgraphexport.client.internal.PropertyMap;
import org.subgraphexport.client.internal.Values;

/**
 * A relationship.
 *
 * @param id         element id, e.g. {@code "5:3f1c...:3"}
 * @param type       relationship type
 * @param start      element id of the start node
 * @param end        element id of the end node
 * @param properties properties in stream order (unmodifiable); equality, hash code and string form compare
 *                   arrays by content
 */
public record ExportRelationship(String id, String type, String start, String end, Map<String, Object> properties)
        implements ExportRecord {
    public ExportRelationship {
        properties = PropertyMap.copyOf(properties);  // no copy of a decoder's map: immutable already
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ExportRelationship r && id.equals(r.id) && type.equals(r.type) && start.equals(r.start)
                && end.equals(r.end) && Values.propertiesEqual(properties, r.properties);
    }

    @Override
    public int hashCode() {
        return (((id.hashCode() * 31 + type.hashCode()) * 31 + start.hashCode()) * 31 + end.hashCode()) * 31
                + Values.propertiesHash(properties);
    }

    @Override
    public String toString() {
        return "ExportRelationship[id=" + id + ", type=" + type + ", start=" + start + ", end=" + end
                + ", properties=" + Values.toString(properties) + "]";
    }
}
