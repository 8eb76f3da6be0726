package org.subgraphexport.client;

/**
 * A delta stream's record of a node or relationship that was in the earlier export and is not in this one (deleted,
 * or no longer reached): applying the delta removes it ({@link Delta}).
 *
 * @param id   the element id
 * @param node true for a node, false for a relationship
 */
public record ExportLeft(String id, boolean node) implements ExportRecord {}
