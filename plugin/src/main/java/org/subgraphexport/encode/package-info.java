/**
 * Internal: the encoders, one {@link org.subgraphexport.wire.GraphWriter} per format, opened by
 * {@link org.subgraphexport.encode.Encoders}. Pure encoding: no Neo4j, no HTTP, no Kryo library.
 *
 * <p>{@code ByteRecordWriter} is the base of all four ({@code JsonGraphWriter}, {@code BsonGraphWriter},
 * {@code KryoGraphWriter}, which also writes {@code kryo-lzf} through {@code AsyncBlockOutputStream}, and
 * {@code ArrowGraphWriter} with its columns, {@code ArrowColumn}, {@code ArrowBatch} and {@code FlatBuffer}): the
 * call protocol, the record buffer and its hand-over to the target, the token dictionary. {@code WireBuffer} is the one
 * byte buffer and holds every byte routine (UTF-8, decimal digits, UUID text, big- and little-endian numbers, Kryo's
 * var-ints); the encoders only say how each record and value is encoded.
 *
 * <p>{@code AsyncBlockOutputStream} compresses off the writing thread, in full blocks: LZF for {@code kryo-lzf},
 * and the HTTP content codings ({@code ContentCoding}: zstd, gzip) that the server wraps around any format.
 */
package org.subgraphexport.encode;
