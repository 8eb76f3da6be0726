/**
 * Internal: not API, may change without notice. The decoders behind
 * {@link org.subgraphexport.client.ExportParser}, one per format, over one base that checks what every format must
 * ({@code AbstractParser}): format detection and the HTTP response check ({@code Decoders}), the Kryo decoder
 * ({@code KryoParser}, over compress-lzf's {@code LZFInputStream} for kryo-lzf), the JSON and BSON decoders
 * ({@code JsonTokenParser}, {@code BsonTokenParser} over {@code TokenParser}) with their own tokenizers
 * ({@code JsonTokens}, {@code BsonDocuments}, {@code BsonTokens}); the id views ({@code Ids}); and the record API
 * on top ({@code RecordReader}: the {@link org.subgraphexport.client.ExportReader} that is a parser's handler),
 * with the immutable property maps its records hold ({@code PropertyMap}). Public classes here
 * are public only because the API package needs them. Uses compress-lzf only; no Neo4j, no encoder, no Kryo, JSON or
 * BSON library ({@code JsonTokens} also reads error bodies).
 */
package org.subgraphexport.client.internal;
