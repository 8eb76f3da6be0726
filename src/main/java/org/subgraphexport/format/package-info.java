/**
 * Pure encoding, no Neo4j: internal API used by the plugin. {@link org.subgraphexport.format.GraphWriter} is the
 * seam between walking the graph and writing bytes; {@link org.subgraphexport.format.Format} opens one writer per
 * stream; {@link org.subgraphexport.format.Wire} specifies the formats.
 */
package org.subgraphexport.format;
