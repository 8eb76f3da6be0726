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
import org.subgraphexport.wire.GraphWriter;

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
 * <h2>Parallel reads</h2>
 * With {@code readThreads > 1} the walk is split in two kinds of work. This thread (the request thread) does
 * everything that decides the stream: the breadth-first expansion, the attach recursion, the visited sets, the limit,
 * the termination checks, and it alone calls the {@link GraphWriter}. Reading each emitted record's labels and
 * property values, most of the cost of an export, is done in batches by up to {@code readThreads - 1} workers
 * (and by this thread whenever it would otherwise wait), each with its own cursors on a kernel
 * {@link org.neo4j.kernel.api.ExecutionContext} of this transaction; batches are written in the order they were
 * decided ({@link ParallelEntityWriter}). So:
 * <ul>
 *   <li>The stream is the single-threaded walk's stream, record for record and in the same order: the same nodes,
 *       relationships, labels, values, counts and truncation, and with a {@code limit} the same nodes make the
 *       cut. (Tests compare the two call for call.)</li>
 *   <li>Consistency is the transaction's, as for the single-threaded walk: one read transaction, read-committed.
 *       Execution contexts are part of the transaction: same security context, same termination (a timeout or a
 *       client that left stops the workers too). They cannot see uncommitted changes of the transaction, which is
 *       why the kernel refuses them once a transaction has written; an export never writes. Each record is still
 *       read whole, with one cursor positioning (labels and properties of one read of the node).</li>
 *   <li>When the workers cannot actually run alongside (no idle processor, or no idle worker in the shared pool),
 *       the walk goes on single-threaded after a first measured stretch, rather than pay for batching that buys
 *       nothing.</li>
 *   <li>The one difference shows only under concurrent deletes: the single-threaded walk reads a node when it
 *       meets it, the parallel walk a little later. A node deleted in between is skipped with its relationships
 *       either way, but in the parallel walk it has already counted towards {@code limit}. Streams stay well
 *       formed (each node once, every relationship after both end nodes, end-record counts exact).</li>
 * </ul>
 *
 * <h2>Memory</h2>
 * Each node id visited, twice (two {@link LongIdSet}s: emitted, member: 1 bit to 16 bytes an id, depending on how
 * close together the ids are, counted in the transaction's memory tracker) and, when a type is followed in both
 * directions, each relationship id; plus the current and next BFS level as long lists (8 bytes an id, counted in the
 * memory tracker too) and the attach stack. Records
 * stream out as they are read; nothing else grows with the subgraph. A parallel walk also holds a ring of
 * {@code 2 * readThreads + 1} batches (records being filled, read or written) of at most
 * {@value ParallelEntityWriter#DEFAULT_BATCH_RECORDS} records and about 1 MiB of values each, whatever the size
 * of the subgraph; fewer batches when single records are heavier.
 *
 * <p>Not thread-safe: one walker per export, used by the thread that created it, closed (which stops and waits
 * for its workers) before its transaction is closed.
 */
public final class SubgraphWalker implements AutoCloseable {
    private static final int LEVEL_STEP = 8192;

    private final KernelTransaction ktx;
    private final Read read;
    private final TokenRead tokenRead;
    private final NodeCursor expandNode;
    private final NodeCursor attachNode;
    private final RelationshipTraversalCursor expandRels;
    private final RelationshipTraversalCursor attachRels;

    private final LongIdSet emitted;
    private final LongIdSet members;
    private LongIdSet seenRelationships;
    private final LongArrayList attachStack = new LongArrayList();
    private final int readThreads;
    private final int batchRecords;
    private final double minConcurrency;
    /** The records' output, made by {@link #output}; {@link #entities} is it, or wraps it. */
    private WalkOutput output;
    private WalkOutput entities;
    private boolean depthCut;
    private long levelIdsCounted;

    /** The single-threaded walk: the reference every parallel walk must equal. */
    public SubgraphWalker(KernelTransaction ktx) {
        this(ktx, 1);
    }

    /**
     * A walk that reads labels and properties with {@code readThreads} threads in all (this one included; 1 is the
     * single-threaded walk). See the class comment, "Parallel reads".
     */
    public SubgraphWalker(KernelTransaction ktx, int readThreads) {
        this(ktx, readThreads, ParallelEntityWriter.DEFAULT_BATCH_RECORDS, ParallelEntityWriter.MIN_CONCURRENCY);
    }

    /**
     * As above, with {@code batchRecords} records per batch handed to a reader and the concurrency below which the
     * walk goes on single-threaded (tests use tiny batches, and force or forbid that).
     */
    SubgraphWalker(KernelTransaction ktx, int readThreads, int batchRecords, double minConcurrency) {
        if (readThreads < 1) throw new IllegalArgumentException("readThreads must be >= 1: " + readThreads);
        this.readThreads = readThreads;
        this.batchRecords = batchRecords;
        this.minConcurrency = minConcurrency;
        this.ktx = ktx;
        this.read = ktx.dataRead();
        this.tokenRead = ktx.tokenRead();
        CursorFactory cursors = ktx.cursors();
        CursorContext context = ktx.cursorContext();
        MemoryTracker memory = ktx.memoryTracker();
        this.emitted = new LongIdSet(memory);
        this.members = new LongIdSet(memory);
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
        return walk(rootId, spec, Partition.WHOLE, writer);
    }

    /**
     * As {@link #walk(long, WalkSpec, GraphWriter)}, writing only {@code partition}'s share of the records (see
     * {@link Partition}): the topology is walked whole, labels and properties are read for the share only. The
     * counts are the share's; {@code truncated} is the whole export's.
     */
    public Result walk(long rootId, WalkSpec spec, Partition partition, GraphWriter writer) throws IOException {
        WalkOutput records = output(writer, partition.whole() ? spec.limit() : Long.MAX_VALUE);
        return walk(rootId, spec, partition.whole() ? records : new PartitionedOutput(records, partition, spec.limit()));
    }

    /**
     * The output this walker writes records to, with this walker's read threads, made once and closed with the
     * walker: {@link SharedWalks} writes replayed records to it, then perhaps walks into it.
     */
    WalkOutput output(GraphWriter writer, long limit) {
        if (output != null) throw new IllegalStateException("a walker walks once");
        output = readThreads == 1
                ? new EntityWriter(ktx, writer, limit)
                : new ParallelEntityWriter(ktx, writer, limit, readThreads - 1, batchRecords, minConcurrency);
        return output;
    }

    /** Walks into {@code entities}: this walker's {@link #output}, or a {@link PartitionedOutput} around it. */
    Result walk(long rootId, WalkSpec spec, WalkOutput entities) throws IOException {
        if (this.entities != null) throw new IllegalStateException("a walker walks once");
        this.entities = entities;
        traverse(rootId, spec);
        entities.flush();
        return new Result(entities.nodes(), entities.relationships(), entities.truncated() || depthCut);
    }

    /** Decides, in stream order, every record the walk emits; returns early when the limit cuts it. */
    private void traverse(long rootId, WalkSpec spec) throws IOException {
        RelationshipSelection[] expand = selections(spec.expand());
        RelationshipSelection[] attach = selections(spec.attach());
        if (spec.expand().hasBothDirections() || spec.attach().hasBothDirections()) {
            seenRelationships = new LongIdSet(ktx.memoryTracker());
        }

        LongArrayList level = new LongArrayList();
        LongArrayList nextLevel = new LongArrayList();
        emitted.add(rootId);
        members.add(rootId);
        if (!entities.writeNode(rootId)) {
            return;
        }
        level.add(rootId);
        attachStack.add(rootId);
        if (!drainAttached(attach)) {
            return;
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
                                if (entities.truncated()) return;
                                continue;
                            }
                            attachStack.add(other);
                        }
                        if (members.add(other)) {
                            nextLevel.add(other);
                            countLevelIds(level.size() + nextLevel.size());
                        }
                        entities.writeRelationship(expandRels);
                        if (!drainAttached(attach)) {
                            return;
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
    }

    /**
     * Counts the two BFS levels (8 bytes an id; the lists keep their largest capacity) in the transaction's memory
     * tracker, in steps of {@value #LEVEL_STEP} ids.
     */
    private void countLevelIds(long ids) {
        if (ids > levelIdsCounted) {
            ktx.memoryTracker().allocateHeap(8L * LEVEL_STEP);
            levelIdsCounted += LEVEL_STEP;
        }
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
        if (entities != null) entities.close(); // closes the output it wraps
        else if (output != null) output.close();
        attachRels.close();
        expandRels.close();
        attachNode.close();
        expandNode.close();
    }
}
