package org.subgraphexport.client;

import java.util.Objects;

/**
 * A node in an {@link ExportRow} value: its element id. The node itself came as an {@link ExportNode} record earlier in
 * the stream ({@link Subgraph#read} checks that).
 *
 * @param id element id, e.g. {@code "4:3f1c...:17"}
 */
public record NodeRef(String id) {
    public NodeRef {
        Objects.requireNonNull(id, "id");
    }
}
