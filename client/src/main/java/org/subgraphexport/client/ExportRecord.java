package org.subgraphexport.client;

/**
 * One record of an export stream: the {@link ExportHeader}, then {@link ExportNode}s and {@link ExportRelationship}s (a
 * relationship always after both of its end nodes), then one {@link ExportEnd}. A rows stream (Cypher
 * {@code mode=rows}) has an {@link ExportColumns} record right after the header and {@link ExportRow}s among the nodes
 * and relationships, each after every node and relationship it refers to. A delta stream ({@code since=}) also has
 * {@link ExportLeft} records, and its relationships' end nodes may be in the earlier export only. A failed export ends with an error record
 * instead, which {@link ExportReader#next} raises as {@link ExportFailedException}.
 */
public sealed interface ExportRecord
        permits ExportHeader, ExportColumns, ExportNode, ExportRelationship, ExportRow, ExportEnd, ExportLeft {}
