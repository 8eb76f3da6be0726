package org.subgraphexport.jmh;

import java.util.Map;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The counting sink of the core-API read paths (traversal framework, hand-written walk, Cypher): reads what a
 * writer would need of each entity (id, labels or type and end nodes, every property, each read once) and hands
 * it to the Blackhole, counting nodes, relationships and properties.
 */
final class Sink {
    private final Blackhole bh;
    long nodes;
    long relationships;
    long properties;

    Sink(Blackhole bh) {
        this.bh = bh;
    }

    void node(Node node) {
        bh.consume(DemoData.id(node));
        for (Label label : node.getLabels()) {
            bh.consume(label.name());
        }
        properties(node.getAllProperties());
        nodes++;
    }

    void relationship(Relationship rel) {
        bh.consume(DemoData.id(rel));
        bh.consume(rel.getType().name());
        bh.consume(DemoData.id(rel.getStartNode()));
        bh.consume(DemoData.id(rel.getEndNode()));
        properties(rel.getAllProperties());
        relationships++;
    }

    private void properties(Map<String, Object> all) {
        for (Map.Entry<String, Object> e : all.entrySet()) {
            bh.consume(e.getKey());
            bh.consume(e.getValue());
            properties++;
        }
    }
}
