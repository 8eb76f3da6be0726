/**
 * Reading the graph (internal): walks the subgraph under a root with Neo4j's kernel cursor API and feeds a
 * {@link org.subgraphexport.wire.GraphWriter}. Knows Neo4j, not HTTP and not any wire format. Uses internal
 * Neo4j APIs (KernelTransaction, cursors, execution contexts, ElementIdMapper) in the form every supported line has
 * (5.26, 2025.x, 2026.x); what differs between lines goes through {@link org.subgraphexport.neo4j.Neo4jLine}.
 * LinkageIT links the packaged jar against each line's jars, so an upgrade that changes them fails loudly.
 *
 * <p>A traverse can read with several threads ({@link org.subgraphexport.read.SubgraphWalker}, "Parallel reads"):
 * the walking thread decides and encodes, workers of a shared pool ({@code subgraph-export-reader-N}) read labels
 * and values inside the same transaction; the stream is the single-threaded one.
 *
 * <p>A traverse can also be cut into partitions ({@link org.subgraphexport.read.Partition}); partitions of one export
 * that run at the same time share one walk of the topology ({@link org.subgraphexport.read.SharedWalks}, one registry
 * per DBMS), each still writing exactly its own share.
 *
 * <p>Delta exports ({@link org.subgraphexport.read.DeltaExport}, {@code since=}): a
 * {@link org.subgraphexport.read.ChangeJournal} per database (Neo4j's public transaction event listener, ids only,
 * bounded) says what changed since a state; {@link org.subgraphexport.read.TopologyWalk} walks today's topology, or
 * the earlier one with the journal's relationship changes undone, deciding ids only.
 */
package org.subgraphexport.read;
