/**
 * Public API: the wire spec. {@link org.subgraphexport.wire.Wire} specifies the formats (mirrored in
 * docs/wire-format.md), {@link org.subgraphexport.wire.Format} names them, and
 * {@link org.subgraphexport.wire.GraphWriter} is the seam between walking the graph and writing bytes. No dependencies.
 */
package org.subgraphexport.wire;
