package org.subgraphexport.client;

import java.util.Collections;
import java.util.List;
import org.subgraphexport.client.internal.Values;

/**
 * One row of a rows stream: one value per column (see {@link ExportColumns}). Values are null or any of the types
 * listed in {@link ExportReader}, including {@code List<Object>}, {@code Map<String, Object>}, {@link NodeRef},
 * {@link RelationshipRef} and {@link PathValue}; the nodes and relationships they refer to came as records earlier in
 * the stream.
 *
 * @param values the values in column order (unmodifiable; may hold nulls). Equality, hash code and string form
 *               go by content, arrays in nested lists and maps included.
 */
public record ExportRow(List<Object> values) implements ExportRecord {
    public ExportRow {
        values = Collections.unmodifiableList(new java.util.ArrayList<>(values));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ExportRow r && Values.deepEquals(values, r.values);
    }

    @Override
    public int hashCode() {
        return Values.deepHash(values);
    }

    @Override
    public String toString() {
        return "ExportRow" + Values.deepToString(values);
    }
}
