package org.subgraphexport.read;

import java.io.IOException;
import java.util.Arrays;
import org.eclipse.collections.impl.list.mutable.primitive.LongArrayList;
import org.neo4j.internal.kernel.api.Read;
import org.neo4j.internal.kernel.api.RelationshipScanCursor;
import org.neo4j.internal.kernel.api.TokenRead;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;
import org.neo4j.token.api.TokenConstants;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Header;

/**
 * A delta stream ({@code since=<state>}): what changed in the export of {@code root} since an earlier export of the
 * same request read {@code since}. Inside the export's transaction, once the {@link ChangeJournal} holds every
 * transaction up to the state this one reads:
 * <ol>
 *   <li>the earlier membership: the walk ({@link TopologyWalk}, ids only) over today's topology with the journal's
 *       relationship changes since {@code since} undone (created ones hidden, deleted ones restored with their type
 *       and ends);</li>
 *   <li>today's walk, in stream order, writing the full record of every node and relationship not in the earlier
 *       membership or changed since (created, properties, labels: the journal's ids);</li>
 *   <li>a left record for every id of the earlier membership not in today's.</li>
 * </ol>
 * When no relationship was created or deleted since, the membership is the earlier one and none of this is walked:
 * the changed nodes and relationships in the export are found backwards from each ({@link ChangedMembers}) and sent
 * by ascending id, nodes first (the walk below serves when that search would cost more than its budget, or the walk
 * has a node limit).
 * Old export + delta = today's export, when no commit falls between the header's state and the end record's (as for
 * a whole export, the end record names the state when the stream ended; a client that sees them differ reads again).
 *
 * <p>With partitions, the delta's own sequence (the full records in today's walk order, then the left records) is
 * dealt as an export's is ({@link Partition}: record {@code k} to partition {@code (k / 256) % N}): each partition
 * carries its share of the delta, together they carry each record of the single delta stream once, and applying
 * them to the earlier export in any order gives today's. Every partition walks as the single stream does and
 * reads the properties of its own records only.
 */
public final class DeltaExport {
    private DeltaExport() {}

    /** Counts of a delta stream: full records written, and ids that left. */
    public record Result(long nodes, long relationships, long leftNodes, long leftRelationships, boolean truncated) {}

    /**
     * Writes the delta stream, header to end record. {@code rootChangedMeansUnavailable}: the root was found by label
     * and key, so a change to it (its properties, labels) may mean the earlier export had another root.
     *
     * @throws ChangeJournal.Unavailable when the journal cannot answer exactly (after the header: the caller writes
     *                                   the error record)
     */
    public static Result run(InternalTransaction tx, long rootId, WalkSpec spec, Partition partition, int readThreads,
            ExportState state, ChangeJournal journal, String since, boolean rootByKey, GraphWriter out)
            throws IOException {
        KernelTransaction ktx = tx.kernelTransaction();
        ElementIds ids = ElementIds.of(tx.elementIdMapper());
        String begun = state.now();
        out.header(new Header(tx.getDatabaseName(), ids.nodeElementId(rootId), ids.nodePrefix(), ids.relationshipPrefix(),
                begun, partition.index(), partition.count(), since), new KernelTokenNames(ktx.tokenRead()));
        long from = transaction(since);
        long until = transaction(begun);
        if (from == until) {  // nothing committed since: an empty delta, nothing read
            out.end(0, 0, false, state.now());
            return new Result(0, 0, 0, 0, false);
        }
        ChangeJournal.Window window = journal.window(from, until);
        Changes changes = Changes.of(window, ktx, rootId, rootByKey);
        Read read = ktx.dataRead();
        if (!read.nodeExists(rootId)) {
            throw new IllegalStateException("root node " + ids.nodeElementId(rootId) + " was deleted before the export started");
        }
        if (!changes.topologyChanged()) {
            return unchangedTopology(ktx, rootId, spec, partition, readThreads, state, changes, out);
        }
        // 1. the earlier membership
        LongIdSet earlierNodes = new LongIdSet(ktx.memoryTracker());
        LongIdSet earlierRels = new LongIdSet(ktx.memoryTracker());
        try (TopologyWalk earlier = new TopologyWalk(ktx, changes.overlay)) {
            earlier.walk(rootId, spec, new TopologyWalk.Visitor() {
                @Override
                public boolean node(long id) {
                    earlierNodes.add(id);
                    return true;
                }

                @Override
                public void relationship(long id) {
                    earlierRels.add(id);
                }
            });
            if (earlier.truncated()) {
                throw new ChangeJournal.Unavailable("the earlier export was cut by the node limit (" + spec.limit()
                        + "): a delta of a truncated export is not exact; read the export again");
            }
        }
        // 2. today's walk: full records of what joined or changed
        LongIdSet todayNodes = new LongIdSet(ktx.memoryTracker());
        LongIdSet todayRels = new LongIdSet(ktx.memoryTracker());
        boolean depthCut;
        long[] written = new long[2];
        long[] sequence = {0};  // position in the delta's sequence of records (every partition counts them all)
        try (TopologyWalk today = new TopologyWalk(ktx, null);
                WalkOutput records = records(ktx, out, readThreads);
                RelationshipScanCursor rel = ktx.cursors().allocateRelationshipScanCursor(ktx.cursorContext(),
                        ktx.memoryTracker())) {
            today.walk(rootId, spec, new TopologyWalk.Visitor() {
                @Override
                public boolean node(long id) throws IOException {
                    if ((!earlierNodes.contains(id) || changes.nodes.contains(id)) && partition.owns(sequence[0]++)) {
                        if (!records.writeNode(id)) return false;  // deleted since the walk met it
                    }
                    todayNodes.add(id);
                    return true;
                }

                @Override
                public void relationship(long id) throws IOException {
                    todayRels.add(id);
                    if ((!earlierRels.contains(id) || changes.relationships.contains(id))
                            && partition.owns(sequence[0]++)) {
                        read.singleRelationship(id, rel);
                        if (rel.next()) records.writeRelationship(rel);
                    }
                }
            });
            if (today.truncated()) {
                throw new ChangeJournal.Unavailable("today's export is cut by the node limit (" + spec.limit()
                        + "): a delta of a truncated export is not exact; read the export again");
            }
            depthCut = today.depthCut();
            records.flush();  // every full record written before the left records
            written[0] = records.nodes();
            written[1] = records.relationships();
        }
        // 3. what left
        long[] left = new long[2];
        IOException[] failed = new IOException[1];
        earlierNodes.forEach(id -> {
            if (failed[0] == null && !todayNodes.contains(id) && partition.owns(sequence[0]++)) {
                try {
                    out.leftNode(id);
                    left[0]++;
                } catch (IOException e) {
                    failed[0] = e;
                }
            }
        });
        earlierRels.forEach(id -> {
            if (failed[0] == null && !todayRels.contains(id) && partition.owns(sequence[0]++)) {
                try {
                    out.leftRelationship(id);
                    left[1]++;
                } catch (IOException e) {
                    failed[0] = e;
                }
            }
        });
        if (failed[0] != null) throw failed[0];
        String ended = state.now();
        state.require(ended);
        out.end(written[0], written[1], depthCut, ended);
        return new Result(written[0], written[1], left[0], left[1], depthCut);
    }

    /**
     * No relationship was created or deleted since: the topology, hence the membership, is the earlier export's
     * (a node created since is unreachable, a node deleted since had its relationships deleted first), so nothing
     * left and only the changed entities in it are sent. Which those are is decided backwards from each
     * ({@link ChangedMembers}: the cost follows the change, not the subgraph) when the walk has no node limit or
     * depth-cut report and the search stays in its budget; else one walk without membership sets sends the changed
     * entities it meets.
     */
    private static Result unchangedTopology(KernelTransaction ktx, long rootId, WalkSpec spec, Partition partition,
            int readThreads, ExportState state, Changes changes, GraphWriter out) throws IOException {
        if (ChangedMembers.applies(spec)) {
            long[][] members = changedMembers(ktx, rootId, spec, changes);
            if (members != null) return writeChanged(ktx, members[0], members[1], partition, readThreads, state, out);
        }
        Read read = ktx.dataRead();
        long[] sequence = {0};
        long nodes, relationships;
        boolean depthCut;
        try (TopologyWalk today = new TopologyWalk(ktx, null);
                WalkOutput records = records(ktx, out, readThreads);
                RelationshipScanCursor rel = ktx.cursors().allocateRelationshipScanCursor(ktx.cursorContext(),
                        ktx.memoryTracker())) {
            today.walk(rootId, spec, new TopologyWalk.Visitor() {
                @Override
                public boolean node(long id) throws IOException {
                    return !changes.nodes.contains(id) || !partition.owns(sequence[0]++) || records.writeNode(id);
                }

                @Override
                public void relationship(long id) throws IOException {
                    if (changes.relationships.contains(id) && partition.owns(sequence[0]++)) {
                        read.singleRelationship(id, rel);
                        if (rel.next()) records.writeRelationship(rel);
                    }
                }
            });
            if (today.truncated()) {
                throw new ChangeJournal.Unavailable("the export is cut by the node limit (" + spec.limit()
                        + "): a delta of a truncated export is not exact; read the export again");
            }
            depthCut = today.depthCut();
            records.flush();
            nodes = records.nodes();
            relationships = records.relationships();
        }
        return ended(state, out, nodes, relationships, depthCut);
    }

    /** The end record of a delta with nothing left, at the state it ended in (a pinned state must still hold). */
    private static Result ended(ExportState state, GraphWriter out, long nodes, long relationships, boolean depthCut)
            throws IOException {
        String ended = state.now();
        state.require(ended);
        out.end(nodes, relationships, depthCut, ended);
        return new Result(nodes, relationships, 0, 0, depthCut);
    }

    /** Backward search visits per changed id (plus {@link #BACKWARD_BASE}) before a delta walks instead. */
    static final long BACKWARD_PER_CHANGE = 64;
    static final long BACKWARD_BASE = 65_536;

    /**
     * The changed nodes and relationships that are in the export, by id, decided backwards from each
     * ({@link ChangedMembers}); null when that would cost more than the budget (then the delta walks).
     */
    private static long[][] changedMembers(KernelTransaction ktx, long rootId, WalkSpec spec, Changes changes) {
        long[] nodes = sorted(changes.nodes), rels = sorted(changes.relationships);
        long budget = BACKWARD_BASE + BACKWARD_PER_CHANGE * (nodes.length + rels.length);
        try (ChangedMembers members = new ChangedMembers(ktx, rootId, spec, budget)) {
            int n = 0, r = 0;
            for (int i = 0; i < nodes.length; i++) {
                if (members.node(nodes[i])) nodes[n++] = nodes[i];
                if ((i & Budget.CHECK_MASK) == Budget.CHECK_MASK) Budget.check(ktx);
            }
            for (int i = 0; i < rels.length; i++) {
                if (members.relationship(rels[i])) rels[r++] = rels[i];
                if ((i & Budget.CHECK_MASK) == Budget.CHECK_MASK) Budget.check(ktx);
            }
            return new long[][] {Arrays.copyOf(nodes, n), Arrays.copyOf(rels, r)};
        } catch (ChangedMembers.OverBudget e) {
            return null;
        }
    }

    private static long[] sorted(LongIdSet ids) {
        LongArrayList list = new LongArrayList();
        ids.forEach(list::add);
        long[] array = list.toArray();
        Arrays.sort(array);
        return array;
    }

    /**
     * The full records of the changed members, nodes then relationships, each by ascending id: the delta's own
     * sequence when the topology did not change, dealt to partitions as any delta's is.
     */
    private static Result writeChanged(KernelTransaction ktx, long[] nodeIds, long[] relationshipIds,
            Partition partition, int readThreads, ExportState state, GraphWriter out) throws IOException {
        Read read = ktx.dataRead();
        long sequence = 0;
        long nodes, relationships;
        try (WalkOutput records = records(ktx, out, readThreads);
                RelationshipScanCursor rel = ktx.cursors().allocateRelationshipScanCursor(ktx.cursorContext(),
                        ktx.memoryTracker())) {
            for (long id : nodeIds) {
                if (partition.owns(sequence++)) records.writeNode(id);
            }
            for (long id : relationshipIds) {
                if (partition.owns(sequence++)) {
                    read.singleRelationship(id, rel);
                    if (rel.next()) records.writeRelationship(rel);
                }
            }
            records.flush();
            nodes = records.nodes();
            relationships = records.relationships();
        }
        return ended(state, out, nodes, relationships, false);
    }

    /**
     * Where the full records go: read by {@code readThreads} threads in all as a whole export's are
     * ({@link ParallelEntityWriter}: the walking thread decides, the readers read labels and properties, the records go
     * out in the walk's order), or on the walking thread alone.
     */
    private static WalkOutput records(KernelTransaction ktx, GraphWriter out, int readThreads) {
        return readThreads <= 1 ? new EntityWriter(ktx, out, Long.MAX_VALUE)
                : new ParallelEntityWriter(ktx, out, Long.MAX_VALUE, readThreads - 1,
                        ParallelEntityWriter.DEFAULT_BATCH_RECORDS, ParallelEntityWriter.MIN_CONCURRENCY);
    }

    /** The transaction part of a state token {@code <database>:<transaction>}. */
    public static long transaction(String state) {
        return Long.parseLong(state.substring(state.lastIndexOf(':') + 1));
    }

    /** What the journal's window says: ids changed, and the topology undone. */
    private record Changes(LongIdSet nodes, LongIdSet relationships, TopologyWalk.Overlay overlay, boolean topologyChanged) {
        static Changes of(ChangeJournal.Window window, KernelTransaction ktx, long rootId, boolean rootByKey) {
            LongIdSet nodes = new LongIdSet(ktx.memoryTracker());
            LongIdSet rels = new LongIdSet(ktx.memoryTracker());
            LongIdSet hidden = new LongIdSet(ktx.memoryTracker());
            TopologyWalk.Overlay overlay = new TopologyWalk.Overlay(hidden);
            TokenRead tokens = ktx.tokenRead();
            int[] typeIds = new int[window.types().length];
            for (int i = 0; i < typeIds.length; i++) {
                typeIds[i] = tokens.relationshipType(window.types()[i]);
            }
            // per relationship id, its first event since: created (it was not there) or deleted (it was, as recorded)
            LongIdSet seen = new LongIdSet(ktx.memoryTracker());
            for (ChangeJournal.Entry e : window.entries()) {
                for (long id : e.nodes()) nodes.add(id);
                for (long id : e.relationships()) rels.add(id);
                for (long id : e.deletedNodes()) {
                    if (id == rootId) {
                        throw new ChangeJournal.Unavailable("the root node was deleted and its id reused since state "
                                + window.since() + ": the earlier export had another root");
                    }
                }
                long[] d = e.deletedRelationships();
                for (int i = 0; i < d.length; i += 4) {
                    if (seen.add(d[i])) {
                        int type = typeIds[(int) d[i + 3]];
                        if (type != TokenConstants.NO_TOKEN) overlay.restore(d[i], d[i + 1], d[i + 2], type);
                    }
                }
                for (long id : e.createdRelationships()) {
                    seen.add(id);
                    hidden.add(id);
                }
            }
            boolean topologyChanged = false;
            for (ChangeJournal.Entry e : window.entries()) {
                topologyChanged |= e.createdRelationships().length > 0 || e.deletedRelationships().length > 0;
            }
            if (nodes.contains(rootId) && rootByKey) {
                throw new ChangeJournal.Unavailable("the root node, found by label and key, changed since state "
                        + window.since() + ": the earlier export may have had another root; read the export again");
            }
            return new Changes(nodes, rels, overlay, topologyChanged);
        }
    }
}
