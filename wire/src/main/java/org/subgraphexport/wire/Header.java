package org.subgraphexport.wire;

/**
 * What every stream starts with.
 *
 * @param database       the database name the export read from
 * @param root           element id of the root node (for the Cypher endpoint: empty)
 * @param nodeIdPrefix   prefix that, followed by a node's numeric id in decimal, gives its element id
 * @param relIdPrefix    the same for relationships
 */
public record Header(String database, String root, String nodeIdPrefix, String relIdPrefix) {}
