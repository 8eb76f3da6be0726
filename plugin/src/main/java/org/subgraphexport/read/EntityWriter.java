package org.subgraphexport.read;

import java.io.IOException;
import org.neo4j.internal.kernel.api.CursorFactory;
import org.neo4j.internal.kernel.api.NodeCursor;
import org.neo4j.internal.kernel.api.PropertyCursor;
import org.neo4j.internal.kernel.api.Read;
import org.neo4j.internal.kernel.api.RelationshipScanCursor;
import org.neo4j.internal.kernel.api.RelationshipTraversalCursor;
import org.neo4j.internal.kernel.api.TokenSet;
import org.neo4j.io.pagecache.context.CursorContext;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.memory.MemoryTracker;
import org.neo4j.storageengine.api.PropertySelection;
import org.subgraphexport.wire.GraphWriter;

/**
 * Writes one node or relationship record, reading it with its own cursors: labels and properties read once,
 * values passed to the writer through {@link ValueBridge} without boxing. Counts what it wrote and enforces
 * the node limit. Shared by every read path (the walk, the Cypher endpoint).
 */
final class EntityWriter implements WalkOutput {
    private final KernelTransaction ktx;
    private final Read read;
    private final GraphWriter out;
    private final ValueBridge values;
    private final NodeCursor node;
    private final PropertyCursor properties;
    private final long limit;
    private int[] labelBuffer = new int[8];
    private long nodes;
    private long relationships;
    private boolean truncated;

    EntityWriter(KernelTransaction ktx, GraphWriter out, long limit) {
        this.ktx = ktx;
        this.read = ktx.dataRead();
        this.out = out;
        this.values = new ValueBridge(out);
        this.limit = limit;
        CursorFactory cursors = ktx.cursors();
        CursorContext context = ktx.cursorContext();
        MemoryTracker memory = ktx.memoryTracker();
        this.node = cursors.allocateNodeCursor(context, memory);
        this.properties = cursors.allocatePropertyCursor(context, memory);
    }

    /**
     * Writes the node record of {@code id}. Returns false, writing nothing, if the limit is reached (then
     * {@link #truncated()} is true) or the node no longer exists.
     */
    @Override
    public boolean writeNode(long id) throws IOException {
        if (nodes >= limit) {
            truncated = true;
            return false;
        }
        read.singleNode(id, node);
        if (!node.next()) {
            return false;
        }
        if ((nodes & Budget.CHECK_MASK) == 0) {
            Budget.check(ktx);
        }
        TokenSet labels = node.labels();
        int labelCount = labels.numberOfTokens();
        if (labelCount > labelBuffer.length) {
            labelBuffer = new int[Math.max(labelCount, labelBuffer.length * 2)];
        }
        for (int i = 0; i < labelCount; i++) {
            labelBuffer[i] = labels.token(i);
        }
        out.beginNode(id, labelBuffer, labelCount);
        node.properties(properties, PropertySelection.ALL_PROPERTIES);
        writeProperties();
        out.endNode();
        nodes++;
        return true;
    }

    /** Writes the relationship under a traversal cursor the caller positioned. */
    @Override
    public void writeRelationship(RelationshipTraversalCursor rel) throws IOException {
        out.beginRelationship(
                rel.relationshipReference(), rel.type(), rel.sourceNodeReference(), rel.targetNodeReference());
        rel.properties(properties, PropertySelection.ALL_PROPERTIES);
        endRelationship();
    }

    /** Writes the relationship under a scan cursor the caller positioned (the same calls, another owner type). */
    @Override
    public void writeRelationship(RelationshipScanCursor rel) throws IOException {
        out.beginRelationship(
                rel.relationshipReference(), rel.type(), rel.sourceNodeReference(), rel.targetNodeReference());
        rel.properties(properties, PropertySelection.ALL_PROPERTIES);
        endRelationship();
    }

    private void endRelationship() throws IOException {
        writeProperties();
        out.endRelationship();
        relationships++;
    }

    private void writeProperties() throws IOException {
        while (properties.next()) {
            out.property(properties.propertyKey());
            properties.propertyValue().writeTo(values);
        }
    }

    @Override
    public long nodes() {
        return nodes;
    }

    @Override
    public long relationships() {
        return relationships;
    }

    @Override
    public boolean truncated() {
        return truncated;
    }

    @Override
    public void close() {
        properties.close();
        node.close();
    }
}
