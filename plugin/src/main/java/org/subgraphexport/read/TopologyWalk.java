package org.subgraphexport.read;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.collections.impl.list.mutable.primitive.LongArrayList;
import org.eclipse.collections.impl.map.mutable.primitive.LongObjectHashMap;
import org.neo4j.graphdb.Direction;
import org.neo4j.internal.kernel.api.NodeCursor;
import org.neo4j.internal.kernel.api.Read;
import org.neo4j.internal.kernel.api.RelationshipTraversalCursor;
import org.neo4j.internal.kernel.api.TokenRead;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.storageengine.api.RelationshipSelection;
import org.neo4j.token.api.TokenConstants;

/**
 * The walk of {@link SubgraphWalker} (the same members, attached nodes and relationships, in the same order), deciding
 * ids only: no labels or properties are read. Used by delta exports, on today's topology or on an earlier one: today's
 * with an {@link Overlay} that hides the relationships created since the earlier state and restores those deleted
 * since (with their type and ends, from the {@link ChangeJournal}). Memory as the walker's: id sets in the
 * transaction's memory tracker.
 */
final class TopologyWalk implements AutoCloseable {
    /** Receives the walk's decisions in stream order. */
    interface Visitor {
        /** A node joins the walk; false if it does not exist (then it is skipped with its relationships). */
        boolean node(long id) throws IOException;

        void relationship(long id) throws IOException;
    }

    /** Today's topology changed back: relationships hidden (created since) and restored (deleted since). */
    static final class Overlay {
        final LongIdSet hidden;
        /** Per node, the restored relationships touching it: id, start, end, type token (quads). */
        final LongObjectHashMap<LongArrayList> restored = new LongObjectHashMap<>();

        Overlay(LongIdSet hidden) {
            this.hidden = hidden;
        }

        void restore(long id, long start, long end, int type) {
            add(start, id, start, end, type);
            if (end != start) add(end, id, start, end, type);
        }

        private void add(long node, long id, long start, long end, int type) {
            LongArrayList list = restored.get(node);
            if (list == null) restored.put(node, list = new LongArrayList(4));
            list.addAll(id, start, end, type);
        }
    }

    /** One selection: types (token ids) and direction, as the kernel cursor takes it and as restored ones match. */
    record Selection(RelationshipSelection kernel, int[] types, Direction direction) {
        /** Whether the walk follows relationship (start, end, type) from {@code node}, one of its ends. */
        boolean matches(long node, long start, long end, int type) {
            boolean typed = false;
            for (int t : types) typed |= t == type;
            if (!typed) return false;
            return switch (direction) {
                case OUTGOING -> start == node;
                case INCOMING -> end == node;
                case BOTH -> start == node || end == node;
            };
        }
    }

    private final KernelTransaction ktx;
    private final Read read;
    private final TokenRead tokenRead;
    private final Overlay overlay;
    private final NodeCursor expandNode, attachNode;
    private final RelationshipTraversalCursor expandRels, attachRels;
    private final LongIdSet emitted;
    private final LongIdSet members;
    private LongIdSet seenRelationships;
    private final LongArrayList attachStack = new LongArrayList();
    private long nodes;
    private boolean truncated;
    private boolean depthCut;

    TopologyWalk(KernelTransaction ktx, Overlay overlay) {
        this.ktx = ktx;
        this.read = ktx.dataRead();
        this.tokenRead = ktx.tokenRead();
        this.overlay = overlay;
        this.expandNode = ktx.cursors().allocateNodeCursor(ktx.cursorContext(), ktx.memoryTracker());
        this.attachNode = ktx.cursors().allocateNodeCursor(ktx.cursorContext(), ktx.memoryTracker());
        this.expandRels = ktx.cursors().allocateRelationshipTraversalCursor(ktx.cursorContext(), ktx.memoryTracker());
        this.attachRels = ktx.cursors().allocateRelationshipTraversalCursor(ktx.cursorContext(), ktx.memoryTracker());
        this.emitted = new LongIdSet(ktx.memoryTracker());
        this.members = new LongIdSet(ktx.memoryTracker());
    }

    /** Whether the walk stopped at the limit (nodes beyond it were not visited). */
    boolean truncated() {
        return truncated;
    }

    /** Whether, with {@link WalkSpec#reportDepthCut()}, members of the last level lead further. */
    boolean depthCut() {
        return depthCut;
    }

    void walk(long rootId, WalkSpec spec, Visitor visitor) throws IOException {
        Selection[] expand = selections(tokenRead, spec.expand());
        Selection[] attach = selections(tokenRead, spec.attach());
        if (spec.expand().hasBothDirections() || spec.attach().hasBothDirections()) {
            seenRelationships = new LongIdSet(ktx.memoryTracker());
        }
        LongArrayList level = new LongArrayList();
        LongArrayList nextLevel = new LongArrayList();
        emitted.add(rootId);
        members.add(rootId);
        if (!node(rootId, spec, visitor)) return;
        level.add(rootId);
        attachStack.add(rootId);
        if (!drainAttached(attach, spec, visitor)) return;
        int depth = 0;
        for (; depth < spec.maxDepth() && !level.isEmpty() && expand.length > 0; depth++) {
            for (int i = 0; i < level.size(); i++) {
                long member = level.get(i);
                for (Selection selection : expand) {
                    RelationshipsOf it = new RelationshipsOf(member, selection, expandNode, expandRels);
                    while (it.next()) {
                        if (seenRelationships != null && !seenRelationships.add(it.id)) continue;
                        long other = it.other;
                        if (emitted.add(other)) {
                            if (!node(other, spec, visitor)) {
                                if (truncated) return;
                                continue;
                            }
                            attachStack.add(other);
                        }
                        if (members.add(other)) nextLevel.add(other);
                        visitor.relationship(it.id);
                        if (!drainAttached(attach, spec, visitor)) return;
                    }
                }
            }
            LongArrayList done = level;
            level = nextLevel;
            nextLevel = done;
            nextLevel.clear();
        }
        if (spec.reportDepthCut() && depth == spec.maxDepth()) {
            for (int i = 0; i < level.size() && !depthCut; i++) {
                for (Selection selection : expand) {
                    RelationshipsOf it = new RelationshipsOf(level.get(i), selection, expandNode, expandRels);
                    while (it.next()) {
                        if (!members.contains(it.other)) {
                            depthCut = true;
                            break;
                        }
                    }
                }
            }
        }
    }

    private boolean node(long id, WalkSpec spec, TopologyWalk.Visitor visitor) throws IOException {
        if (nodes >= spec.limit()) {
            truncated = true;
            return false;
        }
        if (!visitor.node(id)) return false;
        nodes++;
        if ((nodes & Budget.CHECK_MASK) == 0) Budget.check(ktx);
        return true;
    }

    private boolean drainAttached(Selection[] attach, WalkSpec spec, Visitor visitor) throws IOException {
        while (!attachStack.isEmpty()) {
            long node = attachStack.removeAtIndex(attachStack.size() - 1);
            for (Selection selection : attach) {
                RelationshipsOf it = new RelationshipsOf(node, selection, attachNode, attachRels);
                while (it.next()) {
                    if (seenRelationships != null && !seenRelationships.add(it.id)) continue;
                    long other = it.other;
                    if (emitted.add(other)) {
                        if (!node(other, spec, visitor)) {
                            if (truncated) return false;
                            continue;
                        }
                        attachStack.add(other);
                    }
                    visitor.relationship(it.id);
                }
            }
        }
        return true;
    }

    /**
     * A node's relationships of one selection: today's from the store (less the hidden ones), then the restored ones.
     * Uses the cursors given: the expand pair or the attach pair (an attach iteration runs inside an expand one).
     */
    private final class RelationshipsOf {
        final RelationshipTraversalCursor rels;
        final long node;
        final Selection selection;
        final LongArrayList restored;
        boolean store;
        int restoredAt;
        long id, other;

        RelationshipsOf(long node, Selection selection, NodeCursor nodeCursor, RelationshipTraversalCursor rels) {
            this.rels = rels;
            this.node = node;
            this.selection = selection;
            this.restored = overlay == null ? null : overlay.restored.get(node);
            read.singleNode(node, nodeCursor);
            store = nodeCursor.next();
            if (store) nodeCursor.relationships(rels, selection.kernel);
        }

        boolean next() {
            while (store) {
                if (!rels.next()) {
                    store = false;
                    break;
                }
                long rel = rels.relationshipReference();
                if (overlay != null && overlay.hidden.contains(rel)) continue;
                id = rel;
                other = rels.otherNodeReference();
                return true;
            }
            while (restored != null && restoredAt < restored.size()) {
                long rel = restored.get(restoredAt), start = restored.get(restoredAt + 1),
                        end = restored.get(restoredAt + 2);
                int type = (int) restored.get(restoredAt + 3);
                restoredAt += 4;
                if (selection.matches(node, start, end, type)) {
                    id = rel;
                    other = start == node ? end : start;
                    return true;
                }
            }
            return false;
        }
    }

    /** A filter's entries per direction, as kernel selections (types the database does not know left out). */
    static Selection[] selections(TokenRead tokenRead, RelationshipFilter filter) {
        List<Selection> result = new ArrayList<>(3);
        for (Direction direction : Direction.values()) {
            int[] types = filter.entries().stream()
                    .filter(e -> e.direction() == direction)
                    .mapToInt(e -> tokenRead.relationshipType(e.type()))
                    .filter(id -> id != TokenConstants.NO_TOKEN)
                    .toArray();
            if (types.length > 0) {
                result.add(new Selection(RelationshipSelection.selection(types, direction), types, direction));
            }
        }
        return result.toArray(Selection[]::new);
    }

    @Override
    public void close() {
        expandRels.close();
        attachRels.close();
        expandNode.close();
        attachNode.close();
    }
}
