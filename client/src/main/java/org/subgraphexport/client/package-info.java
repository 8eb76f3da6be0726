/**
 * The API of the subgraph-export Java client: everything an application uses to read an export, on Java 17 and
 * later.
 *
 * <p>{@link org.subgraphexport.client.ExportReader} opens a stream in any of the four record formats, {@code arrow}
 * aside (given, taken from an HTTP response's Content-Type, or detected from the first bytes) and returns it record
 * by record as {@link org.subgraphexport.client.ExportRecord}s: the
 * {@link org.subgraphexport.client.ExportHeader} (from
 * {@code header()}), {@link org.subgraphexport.client.ExportNode}s and
 * {@link org.subgraphexport.client.ExportRelationship}s, for the Cypher endpoint's rows streams an
 * {@link org.subgraphexport.client.ExportColumns} record and {@link org.subgraphexport.client.ExportRow}s, then the
 * {@link org.subgraphexport.client.ExportEnd}. Property and row values are JDK types plus
 * {@link org.subgraphexport.client.PointValue}, {@link org.subgraphexport.client.DurationValue},
 * {@link org.subgraphexport.client.VectorValue}, and in rows {@link org.subgraphexport.client.NodeRef},
 * {@link org.subgraphexport.client.RelationshipRef} and {@link org.subgraphexport.client.PathValue}.
 * {@link org.subgraphexport.client.Subgraph} collects a small export in memory.
 * {@link org.subgraphexport.client.PartitionedExport} reads one export as N partitions at once, pinned to one state
 * ({@link org.subgraphexport.client.StateChangedException} when the database moved on), each re-fetched alone when cut
 * ({@link org.subgraphexport.client.PartitionFailedException} when its attempts are spent).
 *
 * <p>Under it, the streaming API: {@link org.subgraphexport.client.ExportParser} (opened the same ways) hands each
 * record's parts to an {@link org.subgraphexport.client.ExportHandler} without building records: primitives
 * unboxed, other values in their exact types, names as the stream's shared Strings, ids as
 * {@link org.subgraphexport.client.ElementId} views. {@code ExportReader} is built on it (one decoder per format);
 * use the parser where an application pours the export into structures of its own. Failures:
 * {@link org.subgraphexport.client.ExportRequestException} (the server refused the request),
 * {@link org.subgraphexport.client.ExportFailedException} (the server's error record: the export failed while
 * streaming), {@link org.subgraphexport.client.CorruptStreamException} (the bytes are not a valid stream).
 *
 * <p>Names are chosen to clash with nothing in {@code java.lang}, {@code java.util}, {@code java.time} or
 * {@code java.nio.file}. {@code org.subgraphexport.client.internal} holds the decoders: not API.
 *
 * <p>Dependencies: compress-lzf (inside the client jar,
 * relocated), zstd-jni only for {@code Content-Encoding: zstd} (optional: {@link
 * org.subgraphexport.client.ContentEncodings}), and the wire spec {@code org.subgraphexport.wire} (inside the jar too: {@code Format}); no Neo4j,
 * no encoder, no Kryo library (the Kryo format is decoded by hand), no JSON or BSON library (JSON and BSON are read
 * by the client's own tokenizers, measured faster than jackson-core's and org.mongodb:bson's parsers:
 * benchmarks/results/client-decoders.md).
 */
package org.subgraphexport.client;
