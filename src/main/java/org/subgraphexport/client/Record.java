package org.subgraphexport.client;

/**
 * One record of an export stream: the {@link ExportHeader}, then {@link Node}s and {@link Relationship}s (a
 * relationship always after both of its end nodes), then one {@link ExportEnd}. A failed export ends with an
 * error record instead, which {@link RecordReader#next} raises as {@link ExportFailedException}.
 */
public sealed interface Record permits ExportHeader, Node, Relationship, ExportEnd {}
