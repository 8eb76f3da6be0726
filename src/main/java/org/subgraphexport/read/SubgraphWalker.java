package org.subgraphexport.read;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.collections.impl.list.mutable.primitive.LongArrayList;
import org.neo4j.graphdb.Direction;
import org.neo4j.internal.kernel.api.CursorFactory;
import org.neo4j.internal.kernel.api.NodeCursor;
import org.neo4j.internal.kernel.api.Read;
import org.neo4j.internal.kernel.api.RelationshipTraversalCursor;
import org.neo4j.internal.kernel.api.TokenRead;
import org.neo4j.io.pagecache.context.CursorContext;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.memory.MemoryTracker;
import org.neo4j.storageengine.api.RelationshipSelection;
import org.neo4j.token.api.TokenConstants;
import org.subgraphexport.format.GraphWriter;

/**
 * Walks the subgraph under a root node with the kernel cursor API and feeds a {@link GraphWriter}.
 *
 * <h2>Semantics</h2>
 * <ul>
 *   <li><b>Members</b>: the root (depth 0) and every node reached from a member of depth {@code d < maxDepth}
 *       through an {@code expand} relationship (depth {@code d+1}). Levels are walked breadth first, so a
 *       member's depth is its shortest expand distance from the root.</li>
 *   <li><b>Attached nodes</b>: every node reached through an {@code attach} relationship from a member or from
 *       another attached node, recursively, whatever the depth. Attached nodes are not expanded; a node that is
 *       also reachable as a member is expanded as a member.</li>
 *   <li><b>Relationships</b>: every {@code expand} relationship of every expanded member (members of depth
 *       {@code < maxDepth}) and every {@code attach} relationship of every emitted node, each once, including
 *       those that lead to a node already emitted (a second path, a cycle). </li>
 *   <li>Every node is written at most once; a relationship is written after both of its end nodes; a node's
 *       attached data follows it closely. Cycles terminate because nodes are marked when first emitted.</li>
 *   <li>{@code limit}: when one more node would exceed it, the walk stops; relationships to nodes not written
 *       are not written either, and the end record says {@code truncated}. With
 *       {@link WalkSpec#reportDepthCut()}, stopping at {@code maxDepth} while members of the last level still
 *       lead to new members is reported the same way.</li>
 * </ul>
 *
 * <h2>Memory</h2>
 * One bit per node id (two bit sets: emitted, member) and, when a type is followed in both directions, one
 * bit per relationship id; plus the current and next BFS level as long lists and the attach stack. Records
 * stream out as they are read; nothing else grows with the subgraph.
 *
 * <p>Not thread-safe: one walker per export, closed with its transaction.
 */
public final class SubgraphWalker implements AutoCloseable {
    private final KernelTransaction ktx;
    private final Read read;
    private final TokenRead tokenRead;
    private final NodeCursor expandNode;
    private final NodeCursor attachNode;
    private final RelationshipTraversalCursor expandRels;
    private final RelationshipTraversalCursor attachRels;

    private final LongBitSet emitted = new LongBitSet();
    private final LongBitSet members = new LongBitSet();
    private LongBitSet seenRelationships;
    private final LongArrayList attachStack = new LongArrayList();
    private EntityWriter entities;
    private boolean depthCut;

    public SubgraphWalker(KernelTransaction ktx) {
        this.ktx = ktx;
        this.read = ktx.dataRead();
        this.tokenRead = ktx.tokenRead();
        CursorFactory cursors = ktx.cursors();
        CursorContext context = ktx.cursorContext();
        MemoryTracker memory = ktx.memoryTracker();
        this.expandNode = cursors.allocateNodeCursor(context, memory);
        this.attachNode = cursors.allocateNodeCursor(context, memory);
        this.expandRels = cursors.allocateRelationshipTraversalCursor(context, memory);
        this.attachRels = cursors.allocateRelationshipTraversalCursor(context, memory);
    }

    /** Counts of what a walk wrote. */
    public record Result(long nodes, long relationships, boolean truncated) {}

    /**
     * Writes the root, its members and attached data, in the order described on the class. Does not write the
     * header or the closing record: the caller owns the stream's frame.
     */
    public Result walk(long rootId, WalkSpec spec, GraphWriter writer) throws IOException {
        if (entities != null) throw new IllegalStateException("a walker walks once");
        this.entities = new EntityWriter(ktx, writer, spec.limit());
        RelationshipSelection[] expand = selections(spec.expand());
        RelationshipSelection[] attach = selections(spec.attach());
        if (spec.expand().hasBothDirections() || spec.attach().hasBothDirections()) {
            seenRelationships = new LongBitSet();
        }

        LongArrayList level = new LongArrayList();
        LongArrayList nextLevel = new LongArrayList();
        emitted.add(rootId);
        members.add(rootId);
        if (!entities.writeNode(rootId)) {
            return result();
        }
        level.add(rootId);
        attachStack.add(rootId);
        if (!drainAttached(attach)) {
            return result();
        }
        int depth = 0;
        for (; depth < spec.maxDepth() && !level.isEmpty() && expand.length > 0; depth++) {
            for (int i = 0; i < level.size(); i++) {
                read.singleNode(level.get(i), expandNode);
                if (!expandNode.next()) {
                    continue; // deleted concurrently: nothing to expand
                }
                for (RelationshipSelection selection : expand) {
                    expandNode.relationships(expandRels, selection);
                    while (expandRels.next()) {
                        if (seenRelationships != null && !seenRelationships.add(expandRels.relationshipReference())) {
                            continue;
                        }
                        long other = expandRels.otherNodeReference();
                        if (emitted.add(other)) {
                            if (!entities.writeNode(other)) {
                                if (entities.truncated()) return result();
                                continue;
                            }
                            attachStack.add(other);
                        }
                        if (members.add(other)) {
                            nextLevel.add(other);
                        }
                        entities.writeRelationship(expandRels);
                        if (!drainAttached(attach)) {
                            return result();
                        }
                    }
                }
            }
            LongArrayList done = level;
            level = nextLevel;
            nextLevel = done;
            nextLevel.clear();
        }
        if (spec.reportDepthCut() && depth == spec.maxDepth() && expandsFurther(level, expand)) {
            depthCut = true;
        }
        return result();
    }

    /** Whether some node of the last level has an expand relationship to a node that is not a member yet. */
    private boolean expandsFurther(LongArrayList level, RelationshipSelection[] expand) {
        for (int i = 0; i < level.size(); i++) {
            read.singleNode(level.get(i), expandNode);
            if (!expandNode.next()) continue;
            for (RelationshipSelection selection : expand) {
                expandNode.relationships(expandRels, selection);
                while (expandRels.next()) {
                    if (!members.contains(expandRels.otherNodeReference())) return true;
                }
            }
        }
        return false;
    }

    /** Follows attach relationships from every node on the stack, depth first; false if the limit stopped it. */
    private boolean drainAttached(RelationshipSelection[] attach) throws IOException {
        while (!attachStack.isEmpty()) {
            long node = attachStack.removeAtIndex(attachStack.size() - 1);
            if (attach.length == 0) continue;
            read.singleNode(node, attachNode);
            if (!attachNode.next()) {
                continue;
            }
            for (RelationshipSelection selection : attach) {
                attachNode.relationships(attachRels, selection);
                while (attachRels.next()) {
                    if (seenRelationships != null && !seenRelationships.add(attachRels.relationshipReference())) {
                        continue;
                    }
                    long other = attachRels.otherNodeReference();
                    if (emitted.add(other)) {
                        if (!entities.writeNode(other)) {
                            if (entities.truncated()) return false;
                            continue;
                        }
                        attachStack.add(other);
                    }
                    entities.writeRelationship(attachRels);
                }
            }
        }
        return true;
    }

    private Result result() {
        return new Result(entities.nodes(), entities.relationships(), entities.truncated() || depthCut);
    }

    /** One selection per direction in use; types unknown to the database match nothing and are dropped. */
    private RelationshipSelection[] selections(RelationshipFilter filter) {
        List<RelationshipSelection> result = new ArrayList<>(3);
        for (Direction direction : Direction.values()) {
            int[] types = filter.entries().stream()
                    .filter(e -> e.direction() == direction)
                    .mapToInt(e -> tokenRead.relationshipType(e.type()))
                    .filter(id -> id != TokenConstants.NO_TOKEN)
                    .toArray();
            if (types.length > 0) {
                result.add(RelationshipSelection.selection(types, direction));
            }
        }
        return result.toArray(RelationshipSelection[]::new);
    }

    @Override
    public void close() {
        if (entities != null) entities.close();
        attachRels.close();
        expandRels.close();
        attachNode.close();
        expandNode.close();
    }
}
