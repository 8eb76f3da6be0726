package org.subgraphexport.read;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.neo4j.graphdb.Entity;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Path;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Result;
import org.neo4j.internal.kernel.api.Read;
import org.neo4j.internal.kernel.api.RelationshipScanCursor;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;
import org.neo4j.values.storable.Values;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Header;

/**
 * A Cypher result as a record stream, in one of two modes.
 * <ul>
 *   <li><b>graph</b>: the graph made of every node and relationship that appears anywhere in the result: as a
 *       column, in a path, in a list or a map, at any nesting.</li>
 *   <li><b>rows</b>: the column names once, then one row record per result row with its values in the format's
 *       own types; the nodes and relationships a row mentions are written as records before it (the first time
 *       only) and referred to by id inside it.</li>
 * </ul>
 * Either way each node and relationship is written once, as rows arrive, and a relationship's end nodes are
 * written before it (even when the query did not return them). Deduplication holds each id seen once ({@link LongIdSet}: 1 bit to 16 bytes an id, counted in the
 * transaction's memory).
 * Scalars go through Neo4j's own value conversion ({@code Values.of}) and {@link ValueBridge}, so rows carry
 * every type properties can.
 *
 * <h2>Parallel reads (graph mode)</h2>
 * In graph mode with {@code readThreads > 1}, the request thread runs the query and decides, row by row, which
 * record comes next; the records' labels and property values are read by workers in batches, in the same
 * transaction, exactly as in the traverse walk ({@link ParallelEntityWriter}, see {@link SubgraphWalker},
 * "Parallel reads"). Cypher itself does not read the properties of the entities it returns (the embedded API hands
 * out references), so that reading is most of what is left besides the query. The stream is the single-threaded
 * one, record for record. Rows mode reads on the request thread: a row must follow its records at once.
 */
public final class CypherExport implements AutoCloseable {
    private final WalkOutput entities;
    private final Read read;
    private final RelationshipScanCursor relationship;
    private final GraphWriter out;
    private final ValueBridge values;
    private final LongIdSet nodes;
    private final LongIdSet relationships;

    private CypherExport(KernelTransaction ktx, WalkOutput entities, GraphWriter out) {
        this.entities = entities;
        this.read = ktx.dataRead();
        this.relationship = ktx.cursors().allocateRelationshipScanCursor(ktx.cursorContext(), ktx.memoryTracker());
        this.out = out;
        this.values = new ValueBridge(out);
        this.nodes = new LongIdSet(ktx.memoryTracker());
        this.relationships = new LongIdSet(ktx.memoryTracker());
    }

    /**
     * Writes header, the records of every row of {@code result} (and in rows mode the rows), and the end record.
     * At {@code maxNodes} nodes the export stops before the row that needed one more, and the end record says
     * truncated. In graph mode labels and property values are read with {@code readThreads} threads in all (this
     * one included); the stream is the same either way. Rows mode always reads on this thread.
     */
    public static void run(InternalTransaction tx, Result result, boolean rows, long maxNodes, int readThreads,
            GraphWriter out) throws IOException {
        run(tx, result, rows, maxNodes, readThreads, ExportState.NONE, out);
    }

    /**
     * As above, naming the store state from {@code state} in the header and the end record; a pinned state that is
     * not the database's when the stream begins or ends fails the stream with {@link ExportState.Changed}.
     */
    public static void run(InternalTransaction tx, Result result, boolean rows, long maxNodes, int readThreads,
            ExportState state, GraphWriter out) throws IOException {
        run(tx, result, rows, maxNodes, readThreads, ParallelEntityWriter.DEFAULT_BATCH_RECORDS,
                ParallelEntityWriter.MIN_CONCURRENCY, state, out);
    }

    /** As above, with the batch size and the concurrency below which reading goes single-threaded (tests). */
    static void run(InternalTransaction tx, Result result, boolean rows, long maxNodes, int readThreads,
            int batchRecords, double minConcurrency, GraphWriter out) throws IOException {
        run(tx, result, rows, maxNodes, readThreads, batchRecords, minConcurrency, ExportState.NONE, out);
    }

    private static void run(InternalTransaction tx, Result result, boolean rows, long maxNodes, int readThreads,
            int batchRecords, double minConcurrency, ExportState state, GraphWriter out) throws IOException {
        if (readThreads < 1) throw new IllegalArgumentException("readThreads must be >= 1: " + readThreads);
        KernelTransaction ktx = tx.kernelTransaction();
        ElementIds ids = ElementIds.of(tx.elementIdMapper());
        String begun = state.now();
        out.header(new Header(tx.getDatabaseName(), "", ids.nodePrefix(), ids.relationshipPrefix(), begun, 0, 1),
                new KernelTokenNames(ktx.tokenRead()));
        List<String> columns = result.columns();
        if (rows) {
            out.columns(columns.toArray(String[]::new));
        }
        state.require(begun);
        WalkOutput entities = rows || readThreads == 1
                ? new EntityWriter(ktx, out, maxNodes)
                : new ParallelEntityWriter(ktx, out, maxNodes, readThreads - 1, batchRecords, minConcurrency);
        CypherExport opened;
        try {
            opened = new CypherExport(ktx, entities, out);
        } catch (RuntimeException | Error e) {
            entities.close();
            throw e;
        }
        try (CypherExport export = opened) {
            long rowCount = 0;
            rows:
            while (result.hasNext()) {
                if ((rowCount++ & Budget.CHECK_MASK) == 0) {
                    Budget.check(ktx); // rows without a node never reach the entity writer's check
                }
                Map<String, Object> row = result.next();
                for (Object value : row.values()) {
                    export.visit(value);
                    if (export.entities.truncated()) break rows;
                }
                if (rows) {
                    out.beginRow();
                    for (String column : columns) {
                        export.write(row.get(column));
                    }
                    out.endRow();
                }
            }
            export.entities.flush();
            String ended = state.now();
            state.require(ended);
            out.end(export.entities.nodes(), export.entities.relationships(), export.entities.truncated(), ended);
        }
    }

    /** One value of a row: entities by reference (their records are already out), containers recursively. */
    private void write(Object value) throws IOException {
        // instanceof, not a pattern switch: the plugin is Java 17 bytecode (5.26 servers run on 17)
        if (value == null) {
            out.writeNull();
        } else if (value instanceof Node node) {
            out.writeNodeRef(id(node));
        } else if (value instanceof Relationship rel) {
            out.writeRelationshipRef(id(rel));
        } else if (value instanceof Path path) {
            long[] nodeIds = new long[path.length() + 1];
            long[] relIds = new long[path.length()];
            int i = 0;
            for (Node node : path.nodes()) nodeIds[i++] = id(node);
            i = 0;
            for (Relationship rel : path.relationships()) relIds[i++] = id(rel);
            out.writePath(nodeIds, relIds);
        } else if (value instanceof Map<?, ?> map) {
            out.beginMap(map.size());
            for (Map.Entry<?, ?> e : map.entrySet()) {
                out.mapKey(String.valueOf(e.getKey()));
                write(e.getValue());
            }
            out.endMap();
        } else if (value instanceof List<?> list) {
            out.beginList(list.size());
            for (Object v : list) write(v);
            out.endList();
        } else {
            Values.of(value).writeTo(values);
        }
    }

    private void visit(Object value) throws IOException {
        if (entities.truncated()) return;
        if (value instanceof Node node) {
            node(id(node));
        } else if (value instanceof Relationship rel) {
            relationship(id(rel));
        } else if (value instanceof Path path) {
            for (Node node : path.nodes()) node(id(node));
            for (Relationship rel : path.relationships()) relationship(id(rel));
        } else if (value instanceof Map<?, ?> map) {
            for (Object v : map.values()) visit(v);
        } else if (value instanceof Iterable<?> list) {
            for (Object v : list) visit(v);
        } // else null or a scalar, an array included (a stored array value: it holds no entity): nothing of the graph
    }

    @SuppressWarnings("removal")
    private static long id(Entity entity) {
        return entity.getId();
    }

    /** Writes the node unless written before; false if it no longer exists. */
    private boolean node(long id) throws IOException {
        if (!nodes.add(id)) {
            return true;
        }
        if (!entities.writeNode(id)) {
            nodes.remove(id);
            return false;
        }
        return true;
    }

    private void relationship(long id) throws IOException {
        if (relationships.contains(id)) {
            return;
        }
        read.singleRelationship(id, relationship);
        if (!relationship.next()) {
            return;
        }
        if (!node(relationship.sourceNodeReference()) || !node(relationship.targetNodeReference())) {
            return;
        }
        // writing the end nodes moved no relationship cursor of ours: this one is still on id
        relationships.add(id);
        entities.writeRelationship(relationship);
    }

    /** Stops parallel readers (if any) and releases the cursors; before the transaction closes. */
    @Override
    public void close() {
        try {
            entities.close();
        } finally {
            relationship.close();
        }
    }
}
