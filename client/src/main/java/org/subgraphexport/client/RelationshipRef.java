package org.subgraphexport.client;

import java.util.Objects;

/**
 * A relationship in an {@link ExportRow} value: its element id. The relationship itself came as an
 * {@link ExportRelationship} record earlier in the stream ({@link Subgraph#read} checks that).
 *
 * @param id element id, e.g. {@code "5:3f1c...:3"}
 */
public record RelationshipRef(String id) {
    public RelationshipRef {
        Objects.requireNonNull(id, "id");
    }
}
