package org.subgraphexport.read;

import org.eclipse.collections.impl.list.mutable.primitive.LongArrayList;
import org.eclipse.collections.impl.map.mutable.primitive.LongByteHashMap;
import org.eclipse.collections.impl.map.mutable.primitive.LongLongHashMap;
import org.eclipse.collections.impl.set.mutable.primitive.LongHashSet;
import org.neo4j.internal.kernel.api.NodeCursor;
import org.neo4j.internal.kernel.api.Read;
import org.neo4j.internal.kernel.api.RelationshipScanCursor;
import org.neo4j.internal.kernel.api.RelationshipTraversalCursor;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.memory.MemoryTracker;
import org.neo4j.storageengine.api.RelationshipSelection;

/**
 * Whether given nodes and relationships are in the export of a root, decided backwards from each of them instead of
 * by walking the whole subgraph: the rules of {@link TopologyWalk} (and {@link SubgraphWalker}) read in reverse. A
 * delta export whose topology did not change since the earlier state (no relationship created or deleted) needs the
 * membership of the changed entities only, and for a small change that costs the paths from them towards the root,
 * not the subgraph.
 *
 * <p>The walk's rules, as sets: the <em>members</em> are the nodes at most {@code maxDepth} expand relationships from
 * the root (breadth first, so a node's depth is its shortest distance); the walk <em>emits</em> the members and,
 * closed under attach relationships, every node an attach relationship leads to from an emitted node; it emits every
 * expand relationship of a member above the last level ({@code depth < maxDepth}) and every attach relationship of
 * an emitted node. Backwards: a node's depth is a breadth-first search along the expand relationships reversed (stopping
 * at the root, at {@code maxDepth}, or where a node's depth is already known); a node is emitted when it is a member
 * or some node on the attach relationships reversed from it is one.
 *
 * <p>Applies only to walks without a node limit and without a depth-cut report ({@link #applies}): what those report
 * depends on the whole walk. Costs at most {@code budget} relationship visits in all; past that it throws
 * {@link OverBudget} and the caller walks instead (a change touching much of the subgraph, or a fan-in that makes the
 * backward search wider than the forward one). Memory: the memos (a depth or a verdict per node met) are counted in
 * the transaction's memory tracker, as the walk's id sets are, so {@code db.memory.transaction.max} bounds them; one
 * search's own sets are bounded by the budget.
 */
final class ChangedMembers implements AutoCloseable {
    /** The budget ran out: walk instead. */
    static final class OverBudget extends Exception {
        OverBudget() {
            super(null, null, false, false);
        }
    }

    private static final long NOT_MEMBER = Long.MAX_VALUE;
    /** Heap per memo entry, as counted: a primitive hash map's key and value at about half load. */
    static final long MEMO_BYTES = 32;
    private static final byte EMITTED = 1, NOT_EMITTED = 2;

    private final Read read;
    private final long root;
    private final long maxDepth;
    private final TopologyWalk.Selection[] expand, attach;
    private final RelationshipSelection[] expandBack, attachBack;
    private final NodeCursor nodeCursor;
    private final RelationshipTraversalCursor rels;
    private final RelationshipScanCursor relationship;
    /** Per node: its depth, or NOT_MEMBER (deeper than maxDepth, or not reached). */
    private final LongLongHashMap depths = new LongLongHashMap();
    private final LongByteHashMap emitted = new LongByteHashMap();
    private final MemoryTracker memory;
    private long charged;
    private long budget;

    ChangedMembers(KernelTransaction ktx, long root, WalkSpec spec, long budget) {
        this.read = ktx.dataRead();
        this.root = root;
        this.maxDepth = spec.maxDepth();
        this.expand = TopologyWalk.selections(ktx.tokenRead(), spec.expand());
        this.attach = TopologyWalk.selections(ktx.tokenRead(), spec.attach());
        this.expandBack = backwards(expand);
        this.attachBack = backwards(attach);
        this.budget = budget;
        this.memory = ktx.memoryTracker();
        this.nodeCursor = ktx.cursors().allocateNodeCursor(ktx.cursorContext(), ktx.memoryTracker());
        this.rels = ktx.cursors().allocateRelationshipTraversalCursor(ktx.cursorContext(), ktx.memoryTracker());
        this.relationship = ktx.cursors().allocateRelationshipScanCursor(ktx.cursorContext(), ktx.memoryTracker());
        depths.put(root, 0);
        charge();
    }

    /** Counts the memos' growth in the transaction's memory tracker (which throws when its limit is passed). */
    private void charge() {
        long bytes = MEMO_BYTES * ((long) depths.size() + emitted.size());
        if (bytes > charged) {
            memory.allocateHeap(bytes - charged);
            charged = bytes;
        }
    }

    /** Whether a walk of {@code spec} can be answered backwards: no node limit, no depth-cut report. */
    static boolean applies(WalkSpec spec) {
        return spec.limit() == Long.MAX_VALUE && !spec.reportDepthCut();
    }

    private static RelationshipSelection[] backwards(TopologyWalk.Selection[] selections) {
        RelationshipSelection[] back = new RelationshipSelection[selections.length];
        for (int i = 0; i < back.length; i++) {
            back[i] = RelationshipSelection.selection(selections[i].types(), selections[i].direction().reverse());
        }
        return back;
    }

    /** Whether the walk emits node {@code id} (false for a node that does not exist). */
    boolean node(long id) throws OverBudget {
        try {
            return emittedNode(id);
        } finally {
            charge();
        }
    }

    private boolean emittedNode(long id) throws OverBudget {
        byte known = emitted.get(id);
        if (known != 0) return known == EMITTED;
        if (depth(id) != NOT_MEMBER) {
            emitted.put(id, EMITTED);
            return true;
        }
        // emitted iff a member lies on the attach relationships reversed from it
        LongArrayList stack = LongArrayList.newListWith(id);
        LongHashSet seen = LongHashSet.newSetWith(id);
        while (!stack.isEmpty()) {
            LongArrayList from = predecessors(stack.removeAtIndex(stack.size() - 1), attachBack);
            for (int i = 0; i < from.size(); i++) {
                long x = from.get(i);
                byte k = emitted.get(x);
                if (k == EMITTED || (k == 0 && depth(x) != NOT_MEMBER)) {
                    emitted.put(id, EMITTED);
                    return true;
                }
                if (k == 0 && seen.add(x)) stack.add(x);
            }
        }
        // none: every node that led here is not emitted either (it would have made this one emitted)
        seen.forEach(n -> emitted.put(n, NOT_EMITTED));
        return false;
    }

    /** Whether the walk emits relationship {@code id} (false for one that does not exist). */
    boolean relationship(long id) throws OverBudget {
        try {
            return emittedRelationship(id);
        } finally {
            charge();
        }
    }

    private boolean emittedRelationship(long id) throws OverBudget {
        read.singleRelationship(id, relationship);
        if (!relationship.next()) return false;
        long start = relationship.sourceNodeReference(), end = relationship.targetNodeReference();
        int type = relationship.type();
        for (TopologyWalk.Selection s : expand) {  // followed from a member above the last level
            if (s.matches(start, start, end, type) && depth(start) < maxDepth) return true;
            if (s.matches(end, start, end, type) && depth(end) < maxDepth) return true;
        }
        for (TopologyWalk.Selection s : attach) {  // followed from any emitted node
            if (s.matches(start, start, end, type) && emittedNode(start)) return true;
            if (s.matches(end, start, end, type) && emittedNode(end)) return true;
        }
        return false;
    }

    /**
     * The node's depth (its distance from the root along expand relationships), or NOT_MEMBER when that is beyond
     * maxDepth or there is none: breadth first along the expand relationships reversed, each level one step further
     * from the node, until the root or a node of known depth fixes it.
     */
    private long depth(long id) throws OverBudget {
        if (depths.containsKey(id)) return depths.get(id);
        long best = NOT_MEMBER;
        LongArrayList level = LongArrayList.newListWith(id);
        LongHashSet seen = LongHashSet.newSetWith(id);
        for (long k = 1; !level.isEmpty() && k <= maxDepth && k < best; k++) {
            LongArrayList next = new LongArrayList();
            for (int i = 0; i < level.size(); i++) {
                LongArrayList from = predecessors(level.get(i), expandBack);
                for (int j = 0; j < from.size(); j++) {
                    long x = from.get(j);
                    if (depths.containsKey(x)) {  // the root (0) or a node already placed: no need to look past it
                        long d = depths.get(x);
                        if (d != NOT_MEMBER) best = Math.min(best, k + d);
                    } else if (seen.add(x)) {
                        next.add(x);
                    }
                }
            }
            level = next;
        }
        long depth = best <= maxDepth ? best : NOT_MEMBER;
        depths.put(id, depth);
        return depth;
    }

    /** The nodes one relationship of {@code selections} away, against their direction (empty if the node is gone). */
    private LongArrayList predecessors(long node, RelationshipSelection[] selections) throws OverBudget {
        LongArrayList result = new LongArrayList();
        if (selections.length == 0) return result;
        read.singleNode(node, nodeCursor);
        if (!nodeCursor.next()) return result;
        for (RelationshipSelection selection : selections) {
            nodeCursor.relationships(rels, selection);
            while (rels.next()) {
                if (--budget < 0) throw new OverBudget();
                result.add(rels.otherNodeReference());
            }
        }
        return result;
    }

    @Override
    public void close() {
        memory.releaseHeap(charged);
        charged = 0;
        nodeCursor.close();
        rels.close();
        relationship.close();
    }
}
