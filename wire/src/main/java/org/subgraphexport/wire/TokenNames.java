package org.subgraphexport.wire;

/** Resolves the database's token ids to names; called once per distinct id by a writer. */
public interface TokenNames {
    String label(int id);

    String relationshipType(int id);

    String propertyKey(int id);
}
