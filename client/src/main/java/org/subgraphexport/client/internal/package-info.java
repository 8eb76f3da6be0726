/**
 * Internal: not API, may change without notice. The decoders behind
 * {@link org.subgraphexport.client.ExportReader}: format detection and the HTTP response check
 * ({@code Decoders}), the Kryo decoder ({@code KryoRecordReader}, over compress-lzf's {@code LZFInputStream} for
 * kryo-lzf), the JSON and BSON decoders ({@code JsonRecordReader}, {@code BsonRecordReader} over
 * {@code TokenRecordReader}) with their own tokenizers ({@code JsonTokens}, {@code BsonDocuments},
 * {@code BsonTokens}), and the immutable property maps the records hold ({@code PropertyMap}). Public classes here
 * are public only because the API package needs them. Uses jackson-core (token types, base64, the error body
 * parser) and compress-lzf; no Neo4j, no encoder, no Kryo library.
 */
package org.subgraphexport.client.internal;
