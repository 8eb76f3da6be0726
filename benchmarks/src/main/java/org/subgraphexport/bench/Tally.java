package org.subgraphexport.bench;

import java.util.HashSet;
import java.util.Set;
import org.subgraphexport.client.ElementId;

/**
 * What a row decoded: nodes and relationships counted as they arrive. With {@code keepIds}, the ids are kept too, so
 * that rows can be compared id by id (the quick mode does that); ids are normalised to {@code n<number>} and
 * {@code r<number>}, the numeric part of the element id, since Jolt v1 sends numeric ids only.
 */
final class Tally {
    private final Set<String> nodeIds;
    private final Set<String> relationshipIds;
    private long nodes;
    private long relationships;

    Tally(boolean keepIds) {
        this.nodeIds = keepIds ? new HashSet<>() : null;
        this.relationshipIds = keepIds ? new HashSet<>() : null;
    }

    void node(String id) {
        nodes++;
        if (nodeIds != null) nodeIds.add("n" + number(id));
    }

    void relationship(String id) {
        relationships++;
        if (relationshipIds != null) relationshipIds.add("r" + number(id));
    }

    /** A node as the streaming API hands it over: its id String is built only if ids are kept. */
    void node(ElementId id) {
        nodes++;
        if (nodeIds != null) nodeIds.add("n" + (id.hasNumber() ? id.number() : number(id.toString())));
    }

    void relationship(ElementId id) {
        relationships++;
        if (relationshipIds != null) relationshipIds.add("r" + (id.hasNumber() ? id.number() : number(id.toString())));
    }

    long nodes() {
        return nodes;
    }

    long relationships() {
        return relationships;
    }

    /** The ids seen (normalised), or null unless ids are kept. */
    Set<String> nodeIds() {
        return nodeIds;
    }

    Set<String> relationshipIds() {
        return relationshipIds;
    }

    private static String number(String elementId) {
        return elementId.substring(elementId.lastIndexOf(':') + 1);
    }
}
