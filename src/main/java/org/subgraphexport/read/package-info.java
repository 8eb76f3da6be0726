/**
 * Reading the graph (internal): walks the subgraph under a root with Neo4j's kernel cursor API and feeds a
 * {@link org.subgraphexport.format.GraphWriter}. Knows Neo4j, not HTTP and not any wire format. Uses internal
 * Neo4j APIs (KernelTransaction, cursors, ElementIdMapper): pinned to Neo4j 2026.08 and covered by the
 * harness tests, so an upgrade that changes them fails loudly.
 */
package org.subgraphexport.read;
