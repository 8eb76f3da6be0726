package org.subgraphexport.jmh;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Path;
import org.neo4j.graphdb.PathExpanders;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;
import org.neo4j.graphdb.traversal.Evaluators;
import org.neo4j.graphdb.traversal.Uniqueness;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;
import org.subgraphexport.bench.DiscardingWriter;
import org.subgraphexport.testkit.DemoGraph;
import org.subgraphexport.read.SubgraphWalker;

/**
 * The four read paths, each producing the traverse endpoint's subgraph (members along outgoing CHILDREN, attached
 * data along outgoing PROPERTY, every node and relationship once) into a counting sink, inside the caller's
 * transaction. They agree on the demo graph (a tree); the benchmark checks the counts.
 */
final class Walks {
    static final RelationshipType CHILDREN = RelationshipType.withName("CHILDREN");
    static final RelationshipType PROPERTY = RelationshipType.withName("PROPERTY");

    /** The end-to-end peers' query. */
    static final String PEER_QUERY = DemoGraph.SUBGRAPH_QUERY;

    private Walks() {}

    /** The project's own walk: kernel cursors ({@link SubgraphWalker}), values passed unboxed. */
    static void kernel(Transaction tx, long rootId, DiscardingWriter out) throws IOException {
        try (SubgraphWalker walker = new SubgraphWalker(((InternalTransaction) tx).kernelTransaction())) {
            walker.walk(rootId, DemoData.spec(), out);
        }
    }

    /** The traversal framework: breadth first, both types outgoing, each node once (NODE_GLOBAL). */
    static void traversalFramework(Transaction tx, String rootElementId, Sink sink) {
        Node root = tx.getNodeByElementId(rootElementId);
        for (Path path : tx.traversalDescription()
                .breadthFirst()
                .expand(PathExpanders.forTypesAndDirections(CHILDREN, Direction.OUTGOING, PROPERTY, Direction.OUTGOING))
                .uniqueness(Uniqueness.NODE_GLOBAL)
                .evaluator(Evaluators.all())
                .traverse(root)) {
            sink.node(path.endNode());
            Relationship last = path.lastRelationship();
            if (last != null) {
                sink.relationship(last);
            }
        }
    }

    /** A hand-written walk on the core API, in the same order as SubgraphWalker: members breadth first, attached
     *  data depth first right after the relationship that reached it. */
    static void coreApi(Transaction tx, String rootElementId, Sink sink) {
        BitSet emitted = new BitSet();
        BitSet members = new BitSet();
        ArrayDeque<Node> attach = new ArrayDeque<>();
        List<Node> level = new ArrayList<>();
        List<Node> next = new ArrayList<>();
        Node root = tx.getNodeByElementId(rootElementId);
        emitted.set(index(root));
        members.set(index(root));
        sink.node(root);
        attach.push(root);
        drain(attach, emitted, sink);
        level.add(root);
        while (!level.isEmpty()) {
            for (Node member : level) {
                for (Relationship rel : member.getRelationships(Direction.OUTGOING, CHILDREN)) {
                    Node other = rel.getEndNode();
                    int i = index(other);
                    if (!emitted.get(i)) {
                        emitted.set(i);
                        sink.node(other);
                        attach.push(other);
                    }
                    if (!members.get(i)) {
                        members.set(i);
                        next.add(other);
                    }
                    sink.relationship(rel);
                    drain(attach, emitted, sink);
                }
            }
            List<Node> done = level;
            level = next;
            next = done;
            next.clear();
        }
    }

    private static void drain(ArrayDeque<Node> attach, BitSet emitted, Sink sink) {
        while (!attach.isEmpty()) {
            Node node = attach.pop();
            for (Relationship rel : node.getRelationships(Direction.OUTGOING, PROPERTY)) {
                Node other = rel.getEndNode();
                int i = index(other);
                if (!emitted.get(i)) {
                    emitted.set(i);
                    sink.node(other);
                    attach.push(other);
                }
                sink.relationship(rel);
            }
        }
    }

    private static int index(Node node) {
        return Math.toIntExact(DemoData.id(node));
    }

    /** Cypher: the peers' query, every node and relationship of every row read through the core API. */
    static void cypher(Transaction tx, String rootElementId, Sink sink) {
        try (Result result = tx.execute(PEER_QUERY, Map.of("root", rootElementId))) {
            while (result.hasNext()) {
                for (Object value : result.next().values()) {
                    visit(value, sink);
                }
            }
        }
    }

    private static void visit(Object value, Sink sink) {
        switch (value) {
            case Node n -> sink.node(n);
            case Relationship r -> sink.relationship(r);
            case Iterable<?> list -> {
                for (Object v : list) visit(v, sink);
            }
            default -> {}
        }
    }
}
