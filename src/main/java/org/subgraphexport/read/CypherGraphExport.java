package org.subgraphexport.read;

import java.io.IOException;
import java.util.Map;
import org.neo4j.graphdb.Entity;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Path;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Result;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;
import org.subgraphexport.format.GraphWriter;
import org.subgraphexport.format.Header;

/**
 * The graph made of every node and relationship that appears anywhere in a Cypher result: as a column, in a
 * path, in a list or a map, at any nesting. Each is written once, as rows arrive; a relationship's end nodes
 * are written before it (even when the query did not return them). Deduplication holds one bit per id seen.
 */
public final class CypherGraphExport implements AutoCloseable {
    private final EntityWriter entities;
    private final LongBitSet nodes = new LongBitSet();
    private final LongBitSet relationships = new LongBitSet();

    private CypherGraphExport(InternalTransaction tx, long maxNodes, GraphWriter out) {
        this.entities = new EntityWriter(tx.kernelTransaction(), out, maxNodes);
    }

    /**
     * Writes header, the graph of every row of {@code result}, and the end record. At {@code maxNodes} nodes the
     * export stops and the end record says truncated.
     */
    public static void run(InternalTransaction tx, Result result, long maxNodes, GraphWriter out) throws IOException {
        KernelTransaction ktx = tx.kernelTransaction();
        ElementIds ids = ElementIds.of(tx.elementIdMapper());
        out.header(new Header(tx.getDatabaseName(), "", ids.nodePrefix(), ids.relationshipPrefix()),
                new KernelTokenNames(ktx.tokenRead()));
        try (CypherGraphExport export = new CypherGraphExport(tx, maxNodes, out)) {
            rows:
            while (result.hasNext()) {
                for (Object value : result.next().values()) {
                    export.visit(value);
                    if (export.entities.truncated()) break rows;
                }
            }
            out.end(export.entities.nodes(), export.entities.relationships(), export.entities.truncated());
        }
    }

    private void visit(Object value) throws IOException {
        if (entities.truncated()) return;
        switch (value) {
            case null -> {}
            case Node node -> node(id(node));
            case Relationship rel -> relationship(id(rel));
            case Path path -> {
                for (Node node : path.nodes()) node(id(node));
                for (Relationship rel : path.relationships()) relationship(id(rel));
            }
            case Map<?, ?> map -> {
                for (Object v : map.values()) visit(v);
            }
            case Iterable<?> list -> {
                for (Object v : list) visit(v);
            }
            case Object[] array -> {
                for (Object v : array) visit(v);
            }
            default -> {} // a scalar: nothing of the graph
        }
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
        if (relationships.contains(id) || !entities.seekRelationship(id)) {
            return;
        }
        long start = entities.startNode();
        long end = entities.endNode();
        if (!node(start) || !node(end)) {
            return;
        }
        // writing the end nodes moved no relationship cursor: the writer's own cursor is still on id
        relationships.add(id);
        entities.writePositionedRelationship();
    }

    @Override
    public void close() {
        entities.close();
    }
}
