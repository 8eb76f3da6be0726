/**
 * Internal: the encoders, one {@link org.subgraphexport.wire.GraphWriter} per format, opened by
 * {@link org.subgraphexport.encode.Encoders}. Pure encoding: no Neo4j, no HTTP.
 */
package org.subgraphexport.encode;
