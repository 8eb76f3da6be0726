package org.subgraphexport.client;

/**
 * One record of an export stream: the {@link ExportHeader}, then {@link Node}s and {@link Relationship}s (a
 * relationship always after both of its end nodes), then one {@link ExportEnd}. A rows stream (Cypher
 * {@code mode=rows}) has a {@link Columns} record right after the header and {@link Row}s among the nodes and
 * relationships, each after every node and relationship it refers to. A failed export ends with an error record
 * instead, which {@link RecordReader#next} raises as {@link ExportFailedException}.
 */
public sealed interface Record permits ExportHeader, Columns, Node, Relationship, Row, ExportEnd {}
