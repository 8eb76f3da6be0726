/**
 * Public API: decoders for the export streams, no Neo4j. {@link org.subgraphexport.client.ExportReader} reads a
 * stream in any {@link org.subgraphexport.wire.Format} record by record into the
 * {@link org.subgraphexport.client.ExportRecord} model (graph streams, and the Cypher endpoint's rows streams with
 * {@link org.subgraphexport.client.ExportColumns} and {@link org.subgraphexport.client.ExportRow} records);
 * {@link org.subgraphexport.client.Subgraph} collects a small one.
 * Depends on jackson-core (json) and compress-lzf (kryo-lzf); not on Kryo, nor on any BSON library.
 */
package org.subgraphexport.client;
