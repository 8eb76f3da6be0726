package org.subgraphexport.client;

/**
 * The first record of a stream.
 *
 * @param version  the wire format version ({@link org.subgraphexport.wire.Wire#VERSION})
 * @param database the database the export read from
 * @param root     element id of the root node; empty for exports without one
 */
public record ExportHeader(int version, String database, String root) implements ExportRecord {}
