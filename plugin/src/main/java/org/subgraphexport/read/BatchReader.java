package org.subgraphexport.read;

import java.util.function.BooleanSupplier;
import org.neo4j.internal.kernel.api.CursorFactory;
import org.neo4j.internal.kernel.api.NodeCursor;
import org.neo4j.internal.kernel.api.PropertyCursor;
import org.neo4j.internal.kernel.api.Read;
import org.neo4j.internal.kernel.api.RelationshipScanCursor;
import org.neo4j.internal.kernel.api.TokenSet;
import org.neo4j.io.pagecache.context.CursorContext;
import org.neo4j.memory.MemoryTracker;
import org.neo4j.storageengine.api.PropertySelection;

/**
 * Reads the labels and property values of the records of a {@link RecordBatch}, with cursors of its own: one per
 * reading thread, over that thread's {@link Read} (a worker's execution context, or the transaction itself for
 * the walking thread). Each entity is read once, as {@link EntityWriter} does: its labels and properties come from
 * one positioning of one cursor. A node or relationship that no longer exists (or whose id now names another
 * relationship) is marked absent; the encoding thread skips it.
 */
final class BatchReader implements AutoCloseable {
    /** Records between two looks at the stop flag. */
    private static final int STOP_CHECK_MASK = 63;

    private final Read read;
    private final NodeCursor node;
    private final RelationshipScanCursor relationship;
    private final PropertyCursor properties;

    BatchReader(Read read, CursorFactory cursors, CursorContext context, MemoryTracker memory) {
        this.read = read;
        this.node = cursors.allocateNodeCursor(context, memory);
        this.relationship = cursors.allocateRelationshipScanCursor(context, memory);
        this.properties = cursors.allocatePropertyCursor(context, memory);
    }

    /** Fills the result part of {@code batch}; stops early (throwing) when {@code stop} says so. */
    void read(RecordBatch batch, BooleanSupplier stop) {
        for (int i = 0; i < batch.size; i++) {
            if ((i & STOP_CHECK_MASK) == 0 && stop.getAsBoolean()) {
                throw new IllegalStateException("parallel read stopped");
            }
            long id = batch.ids[i];
            int type = batch.types[i];
            boolean exists;
            if (type == RecordBatch.NODE) {
                read.singleNode(id, node);
                exists = node.next();
                if (exists) {
                    TokenSet labels = node.labels();
                    for (int l = 0, n = labels.numberOfTokens(); l < n; l++) {
                        batch.addLabel(labels.token(l));
                    }
                    node.properties(properties, PropertySelection.ALL_PROPERTIES);
                    readProperties(batch);
                }
            } else {
                read.singleRelationship(id, relationship);
                exists = relationship.next()
                        && relationship.type() == type
                        && relationship.sourceNodeReference() == batch.starts[i]
                        && relationship.targetNodeReference() == batch.ends[i];
                if (exists) {
                    relationship.properties(properties, PropertySelection.ALL_PROPERTIES);
                    readProperties(batch);
                }
            }
            batch.endRecord(i, exists);
        }
    }

    private void readProperties(RecordBatch batch) {
        while (properties.next()) {
            // Longer strings stay UTF-8 bytes: the writer copies them undecoded (ValueSink.writeUtf8).
            batch.addProperty(properties.propertyKey(), properties.propertyValue());
        }
    }

    @Override
    public void close() {
        properties.close();
        relationship.close();
        node.close();
    }
}
