package org.subgraphexport.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.Transaction;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.kernel.api.exceptions.Status;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;

/**
 * The walk's rules on a small graph, with the exact sequence of records each spec gives: members breadth first,
 * attached data depth first right after the node it hangs off, every relationship once and after both ends, a
 * second path and a cycle, attached nodes not expanded, a limit, a depth and its cut, a type followed both ways.
 * Both implementations of the rules are held to the same sequences: {@link SubgraphWalker} (single-threaded,
 * through {@link TraceWriter}) and {@link TopologyWalk} (ids only), the latter also with an {@link TopologyWalk.Overlay}
 * that hides and restores relationships.
 *
 * <pre>
 *   r -C-> a -C-> c -C-> r      (C = CHILDREN; a cycle)
 *   r -C-> b -C-> c             (c reached by two paths)
 *   c -C-> d -C-> a             (d at depth 3 leads back to a member)
 *   r -P-> q -C-> z             (P = PROPERTY; q is attached, so z is outside)
 *   a -P-> pa -P-> ppa, pa -P-> pa   (an attach chain and a self-loop)
 *   c -P-> b                    (an attach relationship to a member)
 *   r -O-> o                    (O = OTHER, never followed)
 *   t -C-> u (twice), u -P-> pu  (apart: a limit reached in an attach drain)
 * </pre>
 */
class WalkRulesTest {
    private static GraphDatabaseService db;
    private static final Map<Long, String> NODE_NAMES = new HashMap<>();
    private static final Map<Long, String> REL_NAMES = new HashMap<>();
    private static final Map<String, Long> NODE_IDS = new HashMap<>();
    private static final Map<String, Long> REL_IDS = new HashMap<>();

    /** The graph, once per JVM (see {@link SharedDatabases}); Neo4j's own timeout check never comes first. */
    @BeforeAll
    static void start() {
        db = SharedDatabases.get("walk-rules", WalkRulesTest::fill).database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
    }

    private static void fill(DatabaseManagementService dbms) {
        GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        try (Transaction tx = db.beginTx()) {
            Map<String, Node> nodes = new HashMap<>();
            for (String name : List.of("r", "a", "b", "c", "d", "q", "z", "pa", "ppa", "o")) {
                // labels, one per letter of the name, and 12 on c (past the writers' label buffers of 8), for the
                // parallel reads to carry: the walk's rules do not look at them
                Node n = tx.createNode();
                for (int l = 0; l < (name.equals("c") ? 12 : name.length()); l++) n.addLabel(Label.label("L" + l));
                n.setProperty("name", name);
                nodes.put(name, n);
                NODE_NAMES.put(n.getId(), name);
                NODE_IDS.put(name, n.getId());
            }
            // created in this order: the store returns a node's relationships newest first
            for (String rel : List.of("r-C-a", "r-C-b", "a-C-c", "b-C-c", "c-C-r", "c-C-d", "d-C-a", "r-P-q", "q-C-z",
                    "a-P-pa", "pa-P-ppa", "pa-P-pa", "c-P-b", "r-O-o")) {
                String[] p = rel.split("-");
                RelationshipType type = RelationshipType.withName(switch (p[1]) {
                    case "C" -> "CHILDREN";
                    case "P" -> "PROPERTY";
                    default -> "OTHER";
                });
                Relationship r = nodes.get(p[0]).createRelationshipTo(nodes.get(p[2]), type);
                r.setProperty("name", rel);
                REL_NAMES.put(r.getId(), rel);
                REL_IDS.put(rel, r.getId());
            }
            tx.commit();
        }
        // apart from r: t with two relationships to u, which has an attached node pu (for a limit reached in an
        // attach drain, with a relationship between written nodes still to come)
        try (Transaction tx = db.beginTx()) {
            Map<String, Node> nodes = new HashMap<>();
            for (String name : List.of("t", "u", "pu")) {
                Node n = tx.createNode();
                n.setProperty("name", name);
                nodes.put(name, n);
                NODE_NAMES.put(n.getId(), name);
                NODE_IDS.put(name, n.getId());
            }
            for (String rel : List.of("t-C-u#1", "t-C-u#2", "u-P-pu")) {
                String[] p = rel.split("[-#]");
                Relationship r = nodes.get(p[0]).createRelationshipTo(nodes.get(p[2]),
                        RelationshipType.withName(p[1].equals("C") ? "CHILDREN" : "PROPERTY"));
                REL_NAMES.put(r.getId(), rel);
                REL_IDS.put(rel, r.getId());
            }
            tx.commit();
        }
        // a star of STAR_CHILDREN nodes, for the walks' check of their transaction every 1,024 nodes
        try (Transaction tx = db.beginTx()) {
            Node star = tx.createNode();
            star.setProperty("name", "star");
            NODE_IDS.put("star", star.getId());
            for (int i = 0; i < STAR_CHILDREN; i++) {
                star.createRelationshipTo(tx.createNode(), RelationshipType.withName("CHILDREN"));
            }
            tx.commit();
        }
    }

    private static final int STAR_CHILDREN = 1100;

    private static WalkSpec spec(String expand, String attach, int maxDepth, long limit, boolean reportDepthCut) {
        return new WalkSpec(RelationshipFilter.parse(expand), RelationshipFilter.parse(attach), maxDepth, limit,
                reportDepthCut);
    }

    private static WalkSpec spec(String expand, String attach, int maxDepth, long limit) {
        return spec(expand, attach, maxDepth, limit, false);
    }

    private record Walked(List<String> records, SubgraphWalker.Result result) {}

    /** The single-threaded walker's records, by name ("a", "r-C-a"), and its result. */
    private static Walked walker(String root, WalkSpec spec) {
        try (Transaction tx = db.beginTx()) {
            InternalTransaction itx = (InternalTransaction) tx;
            TraceWriter out = new TraceWriter();
            SubgraphWalker.Result result = Walkers.export(itx, NODE_IDS.get(root), spec, 1, 1, out);
            List<String> records = new ArrayList<>();
            for (String call : out.calls) {
                String[] p = call.split(" ");
                if (call.startsWith("node ")) records.add(NODE_NAMES.get(Long.parseLong(p[1])));
                else if (call.startsWith("rel ")) records.add(REL_NAMES.get(Long.parseLong(p[1])));
            }
            assertEquals("end " + result.nodes() + " " + result.relationships() + " " + result.truncated(),
                    out.calls.get(out.calls.size() - 1));
            return new Walked(records, result);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private record Topology(List<String> records, boolean truncated, boolean depthCut) {}

    private static Topology topology(String root, WalkSpec spec, TopologyWalk.Overlay overlay, String missing) {
        try (Transaction tx = db.beginTx();
                TopologyWalk walk = new TopologyWalk(((InternalTransaction) tx).kernelTransaction(), overlay)) {
            List<String> met = new ArrayList<>();
            walk.walk(NODE_IDS.get(root), spec, new TopologyWalk.Visitor() {
                @Override
                public boolean node(long id) {
                    if (NODE_NAMES.get(id).equals(missing)) return false;
                    met.add(NODE_NAMES.get(id));
                    return true;
                }

                @Override
                public void relationship(long id) {
                    met.add(REL_NAMES.getOrDefault(id, "restored " + id));
                }
            });
            return new Topology(met, walk.truncated(), walk.depthCut());
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** Both walks give {@code expected}; the walker's counts and truncation are as given. */
    private static void assertWalk(String root, WalkSpec spec, List<String> expected, long nodes, long relationships,
            boolean truncated) {
        Walked walked = walker(root, spec);
        assertEquals(expected, walked.records(), spec + ": the walker's records");
        assertEquals(new SubgraphWalker.Result(nodes, relationships, truncated), walked.result(), spec.toString());
        Topology topology = topology(root, spec, null, null);
        assertEquals(expected, topology.records(), spec + ": the topology walk's records");
        assertEquals(truncated, topology.truncated() || topology.depthCut(), spec + ": the topology walk's cut");
        if (ChangedMembers.applies(spec)) assertBackwardSearch(root, spec, expected);
    }

    /**
     * The delta's backward search ({@link ChangedMembers}) says of every node and relationship of the graph (the star
     * aside) what the walk decided, asked in name order and in reverse (its memos fill differently).
     */
    private static void assertBackwardSearch(String root, WalkSpec spec, List<String> expected) {
        List<String> nodes = new ArrayList<>(NODE_IDS.keySet());
        nodes.remove("star");
        List<String> rels = new ArrayList<>(REL_IDS.keySet());
        nodes.sort(null);
        rels.sort(null);
        for (boolean reversed : new boolean[] {false, true}) {
            if (reversed) {
                java.util.Collections.reverse(nodes);
                java.util.Collections.reverse(rels);
            }
            List<String> in = new ArrayList<>();
            try (Transaction tx = db.beginTx();
                    ChangedMembers members = new ChangedMembers(((InternalTransaction) tx).kernelTransaction(),
                            NODE_IDS.get(root), spec, Long.MAX_VALUE)) {
                for (String node : nodes) if (members.node(NODE_IDS.get(node))) in.add(node);
                for (String rel : rels) if (members.relationship(REL_IDS.get(rel))) in.add(rel);
            } catch (ChangedMembers.OverBudget e) {
                throw new AssertionError("no budget to run out of", e);
            }
            List<String> want = new ArrayList<>(expected);
            want.sort(null);
            in.sort(null);
            assertEquals(want, in, spec + (reversed ? ", asked in reverse" : "") + ": the backward search");
        }
    }

    private static final int UNBOUNDED = Integer.MAX_VALUE;

    private static final List<String> EVERYTHING = List.of(
            "r", "q", "r-P-q",
            "b", "r-C-b", "a", "r-C-a", "pa", "a-P-pa", "pa-P-pa", "ppa", "pa-P-ppa",
            "c", "b-C-c", "c-P-b", "a-C-c",
            "d", "c-C-d", "c-C-r",
            "d-C-a");

    /**
     * A limit reached while attached nodes are drained ends the walk there: t's second relationship to u, between two
     * nodes already written, is not written after it (newest first: #2 is met first).
     */
    @Test
    void aLimitReachedInAnAttachDrainEndsTheWalkThere() {
        assertWalk("t", spec("CHILDREN>", "PROPERTY>", Integer.MAX_VALUE, 2), List.of("t", "u", "t-C-u#2"), 2, 1, true);
        assertWalk("t", spec("CHILDREN>", "PROPERTY>", Integer.MAX_VALUE, 3),
                List.of("t", "u", "t-C-u#2", "pu", "u-P-pu", "t-C-u#1"), 3, 3, false);
    }

    @Test
    void everythingUnderTheRootInStreamOrder() {
        assertWalk("r", spec("CHILDREN>", "PROPERTY>", UNBOUNDED, Long.MAX_VALUE), EVERYTHING, 8, 12, false);
        assertWalk("r", spec("CHILDREN>", "PROPERTY>", UNBOUNDED, Long.MAX_VALUE, true), EVERYTHING, 8, 12, false);
        assertWalk("r", spec("CHILDREN>", "PROPERTY>", UNBOUNDED, 8), EVERYTHING, 8, 12, false);
    }

    @Test
    void depthZeroIsTheRootAndItsAttachedData() {
        List<String> rootOnly = List.of("r", "q", "r-P-q");
        assertWalk("r", spec("CHILDREN>", "PROPERTY>", 0, Long.MAX_VALUE), rootOnly, 2, 1, false);
        assertWalk("r", spec("CHILDREN>", "PROPERTY>", 0, Long.MAX_VALUE, true), rootOnly, 2, 1, true);
        assertWalk("r", spec("NOPE>", "PROPERTY>", UNBOUNDED, Long.MAX_VALUE, true), rootOnly, 2, 1, false);
        assertWalk("r", spec("", "PROPERTY>", 1, Long.MAX_VALUE, true), rootOnly, 2, 1, false);
    }

    @Test
    void aDepthCutIsReportedOnlyWhenTheLastLevelLeadsToNewMembers() {
        // depth 2: c is a member and not expanded; it leads to d
        List<String> two = EVERYTHING.subList(0, 16);
        assertWalk("r", spec("CHILDREN>", "PROPERTY>", 2, Long.MAX_VALUE, false), two, 7, 9, false);
        assertWalk("r", spec("CHILDREN>", "PROPERTY>", 2, Long.MAX_VALUE, true), two, 7, 9, true);
        // depth 3: d is the last level (d-C-a not followed), and it leads only to a, a member
        List<String> three = EVERYTHING.subList(0, 19);
        assertWalk("r", spec("CHILDREN>", "PROPERTY>", 3, Long.MAX_VALUE, false), three, 8, 11, false);
        assertWalk("r", spec("CHILDREN>", "PROPERTY>", 3, Long.MAX_VALUE, true), three, 8, 11, false);
        assertWalk("r", spec("CHILDREN>", "PROPERTY>", 4, Long.MAX_VALUE, true), EVERYTHING, 8, 12, false);
        // depth 1: a and b lead to c
        List<String> one = EVERYTHING.subList(0, 12);
        assertWalk("r", spec("CHILDREN>", "PROPERTY>", 1, Long.MAX_VALUE, true), one, 6, 6, true);
    }

    @Test
    void theLimitStopsBeforeTheNodeThatWouldExceedIt() {
        assertWalk("r", spec("CHILDREN>", "PROPERTY>", UNBOUNDED, 0), List.of(), 0, 0, true);
        assertWalk("r", spec("CHILDREN>", "PROPERTY>", UNBOUNDED, 1), List.of("r"), 1, 0, true);
        assertWalk("r", spec("CHILDREN>", "PROPERTY>", UNBOUNDED, 2), List.of("r", "q", "r-P-q"), 2, 1, true);
        assertWalk("r", spec("CHILDREN>", "PROPERTY>", UNBOUNDED, 3), EVERYTHING.subList(0, 5), 3, 2, true);
        // stopped inside an attach chain
        assertWalk("r", spec("CHILDREN>", "PROPERTY>", UNBOUNDED, 5), EVERYTHING.subList(0, 10), 5, 5, true);
        assertWalk("r", spec("CHILDREN>", "PROPERTY>", UNBOUNDED, 7), EVERYTHING.subList(0, 16), 7, 9, true);
    }

    @Test
    void attachedNodesAreNotExpandedAndOtherTypesNotFollowed() {
        assertWalk("q", spec("CHILDREN>", "PROPERTY>", UNBOUNDED, Long.MAX_VALUE), List.of("q", "z", "q-C-z"), 2, 1,
                false);
        assertWalk("pa", spec("CHILDREN>", "PROPERTY>", UNBOUNDED, Long.MAX_VALUE),
                List.of("pa", "pa-P-pa", "ppa", "pa-P-ppa"), 2, 2, false);
        assertWalk("r", spec("OTHER>", "", UNBOUNDED, Long.MAX_VALUE), List.of("r", "o", "r-O-o"), 2, 1, false);
    }

    @Test
    void incomingExpandWalksTowardsTheParents() {
        assertWalk("c", spec("<CHILDREN", "", UNBOUNDED, Long.MAX_VALUE),
                List.of("c", "b", "b-C-c", "a", "a-C-c", "r", "r-C-b", "d", "d-C-a", "r-C-a", "c-C-r", "c-C-d"),
                5, 7, false);
        // depth 1: r and d are the last level; their own parents (c-C-r, c-C-d) are not followed
        assertWalk("a", spec("<CHILDREN", "", 1, Long.MAX_VALUE), List.of("a", "d", "d-C-a", "r", "r-C-a"), 3, 2, false);
    }

    /**
     * The traverse export: its header (database, root, id prefixes, state, partition), the walk's records, and the end
     * record with the state read after the walk; a pinned state that is not the database's fails it after the header
     * or after the records; a root gone fails it after the header.
     */
    @Test
    void theTraverseExportWritesHeaderWalkAndEndRecord() throws IOException {
        WalkSpec spec = spec("CHILDREN>", "PROPERTY>", UNBOUNDED, Long.MAX_VALUE);
        long root = NODE_IDS.get("r");
        try (Transaction tx = db.beginTx()) {
            InternalTransaction itx = (InternalTransaction) tx;
            ElementIds ids = ElementIds.of(itx.elementIdMapper());
            for (int threads : new int[] {1, 2}) {
                TraceWriter out = new TraceWriter();
                SubgraphWalker.Result result = threads == 1
                        ? TraverseExport.run(itx, root, spec, out)
                        : TraverseExport.run(itx, root, spec, threads, out);
                assertEquals(new SubgraphWalker.Result(8, 12, false), result);
                assertEquals(new org.subgraphexport.wire.Header(itx.getDatabaseName(), ids.nodeElementId(root),
                        ids.nodePrefix(), ids.relationshipPrefix(), "", 0, 1), out.header);
                assertEquals("header " + ids.nodeElementId(root), out.calls.get(0));
                assertEquals("end 8 12 false", out.calls.get(out.calls.size() - 1));
                assertEquals("", out.endState);
                assertEquals(20, out.calls.stream().filter(c -> c.startsWith("node ") || c.startsWith("rel ")).count());
            }
            TraceWriter second = new TraceWriter();
            java.util.Iterator<String> states = List.of("s1", "s2").iterator();
            // the 20 records are all in the sequence's first block, partition 0's: partition 1 writes none of them
            assertEquals(new SubgraphWalker.Result(0, 0, false), TraverseExport.run(itx, root, spec,
                    new Partition(3, 1), 1, new ExportState(states::next, null), second));
            assertEquals("end 0 0 false", second.calls.get(second.calls.size() - 1));
            assertEquals("s1", second.header.state());
            assertEquals(1, second.header.partition());
            assertEquals(3, second.header.partitions());
            assertEquals("s2", second.endState, "the state read after the walk");

            // a partition given the registry shares its walk (alone here: it is the producer); the whole export and a
            // partition without the registry walk by themselves; the streams are the same
            SharedWalks walks = new SharedWalks(64L << 20);
            List<List<String>> streams = new ArrayList<>();
            for (Partition partition : List.of(new Partition(3, 0), Partition.WHOLE)) {
                for (SharedWalks registry : java.util.Arrays.asList(null, walks)) {
                    TraceWriter out = new TraceWriter();
                    assertEquals(new SubgraphWalker.Result(8, 12, false),
                            TraverseExport.run(itx, root, spec, partition, 1, ExportState.NONE, registry, out));
                    streams.add(out.calls);
                }
            }
            assertEquals(streams.get(0), streams.get(1));
            assertEquals(streams.get(2), streams.get(3));
            assertEquals("end 8 12 false", streams.get(0).get(streams.get(0).size() - 1), "partition 0 has the first block");
            assertEquals(new SharedWalks.Stats(1, 0, 0, 0, 0, 0, 0, 0, 0, walks.stats().peakBytes()), walks.stats(),
                    "one producer, and nothing else of the registry used");

            TraceWriter before = new TraceWriter();
            assertThrows(ExportState.Changed.class, () -> TraverseExport.run(itx, root, spec, Partition.WHOLE, 1,
                    new ExportState(() -> "s2", "s1"), before));
            assertEquals(List.of("header " + ids.nodeElementId(root)), before.calls);
            TraceWriter after = new TraceWriter();
            java.util.Iterator<String> moving = List.of("s1", "s2").iterator();
            assertThrows(ExportState.Changed.class, () -> TraverseExport.run(itx, root, spec, Partition.WHOLE, 1,
                    new ExportState(moving::next, "s1"), after));
            assertEquals(20, after.calls.stream().filter(c -> c.startsWith("node ") || c.startsWith("rel ")).count());
            assertFalse(after.calls.get(after.calls.size() - 1).startsWith("end "), "no end record");

            TraceWriter gone = new TraceWriter();
            assertEquals("root node " + ids.nodeElementId(1_000_000L) + " was deleted before the export started",
                    assertThrows(IllegalStateException.class,
                            () -> TraverseExport.run(itx, 1_000_000L, spec, gone)).getMessage());
            assertEquals(List.of("header " + ids.nodeElementId(1_000_000L)), gone.calls);
        }
    }

    /**
     * Parallel reads write the single-threaded walk's stream call for call (records, labels, values, counts, the cut),
     * whatever the threads, the batch size and whether the workers are kept or retired after 64 batches (then the walk
     * goes on reading on the spot, with what is left of the limit): on the small graph and on the star's 2,201
     * records, in batches of one record and more. Fast enough to run for every mutant of the parallel writer.
     */
    @Test
    void parallelReadsWriteTheSingleThreadedStreamCallForCall() throws Exception {
        double keep = 0, retire = Double.MAX_VALUE;
        double[][] variants = {{2, 1, keep}, {3, 2, keep}, {4, 5, keep}, {2, 1, retire}, {3, 3, retire},
            {2, ParallelEntityWriter.DEFAULT_BATCH_RECORDS, ParallelEntityWriter.MIN_CONCURRENCY}};
        record Case(String root, WalkSpec spec, String end) {}
        List<Case> cases = List.of(
                new Case("r", spec("CHILDREN>", "PROPERTY>", UNBOUNDED, Long.MAX_VALUE), "end 8 12 false"),
                new Case("r", spec("CHILDREN>", "PROPERTY>", 2, Long.MAX_VALUE, true), "end 7 9 true"),
                new Case("r", spec("CHILDREN>", "PROPERTY>", UNBOUNDED, 5), "end 5 5 true"),
                new Case("c", spec("CHILDREN", "PROPERTY", UNBOUNDED, Long.MAX_VALUE), "end 8 12 false"),
                new Case("star", spec("CHILDREN>", "", UNBOUNDED, Long.MAX_VALUE), "end 1101 1100 false"),
                new Case("star", spec("CHILDREN>", "", UNBOUNDED, 500), "end 500 499 true"),
                new Case("star", spec("CHILDREN>", "", UNBOUNDED, 1), "end 1 0 true"));
        for (Case c : cases) {
            List<String> expected = walkCalls(c.root(), c.spec(), 1, 1, keep, -1);
            assertEquals(c.end(), expected.get(expected.size() - 1), c.toString());
            for (double[] v : variants) {
                assertEquals(expected, walkCalls(c.root(), c.spec(), (int) v[0], (int) v[1], v[2], -1),
                        c + " with " + java.util.Arrays.toString(v));
            }
        }
        // the Cypher endpoint hands relationships over on a scan cursor: the same, kept or retired
        List<String> cypher = cypherCalls(1, 1, keep);
        assertEquals("end 1101 1100 false", cypher.get(cypher.size() - 1));
        for (double[] v : variants) {
            assertEquals(cypher, cypherCalls((int) v[0], (int) v[1], v[2]), "Cypher with " + java.util.Arrays.toString(v));
        }
        ParallelWalkTest.assertNothingLeft(db, "after the parallel walks");
        // at the star's 2,000th record, in batches of one: workers kept are still there (2, or 1 if the pool had only
        // one to give); workers retired after 64 batches have been given back to the pool
        WalkSpec star = spec("CHILDREN>", "", UNBOUNDED, Long.MAX_VALUE);
        List<String> kept = walkCalls("star", star, 3, 1, keep, 2000);
        assertTrue(kept.contains("readers 1") || kept.contains("readers 2"), "kept: " + kept.get(kept.size() - 1));
        assertTrue(walkCalls("star", star, 3, 1, retire, 2000).contains("readers 0"), "retired");
        ParallelWalkTest.assertNothingLeft(db, "after the retiring walks");
    }

    private static List<String> cypherCalls(int threads, int batch, double minConcurrency) throws IOException {
        try (Transaction tx = db.beginTx();
                org.neo4j.graphdb.Result result = tx.execute("MATCH (s {name: 'star'})-[k:CHILDREN]->() RETURN k")) {
            TraceWriter out = new TraceWriter();
            CypherExport.run((InternalTransaction) tx, result, false, Long.MAX_VALUE, threads, batch, minConcurrency, out);
            return out.calls;
        }
    }

    /** The walk's calls; at record {@code lookAt} (if not -1) a line "readers N": the reader tasks running then. */
    private static List<String> walkCalls(String root, WalkSpec spec, int threads, int batch, double minConcurrency,
            long lookAt) throws IOException {
        try (Transaction tx = db.beginTx()) {
            TraceWriter out = new TraceWriter();
            List<String> looked = new ArrayList<>();
            if (lookAt > 0) out.atRecord(lookAt, () -> looked.add("readers " + Walkers.runningReaders()));
            Walkers.export((InternalTransaction) tx, NODE_IDS.get(root), spec, threads, batch, minConcurrency, out);
            List<String> calls = new ArrayList<>(out.calls);
            calls.addAll(looked);
            return calls;
        }
    }

    /** Attached data found against the direction: from b, c is attached by c -P-> b. */
    @Test
    void incomingAttachLeadsToTheNodesThatPointAtAnEmittedOne() {
        assertWalk("b", spec("", "<PROPERTY", UNBOUNDED, Long.MAX_VALUE), List.of("b", "c", "c-P-b"), 2, 1, false);
    }

    /**
     * The backward search counts its memos in the transaction's tracker ({@value ChangedMembers#MEMO_BYTES} bytes
     * each: the root's depth from the start, then a depth and a verdict per node asked), gives them back when closed,
     * and visits at most its budget of relationships; a node or relationship that does not exist is not emitted.
     */
    @Test
    void theBackwardSearchCountsItsMemosAndStopsAtItsBudget() throws Exception {
        WalkSpec spec = spec("CHILDREN>", "PROPERTY>", UNBOUNDED, Long.MAX_VALUE);
        long memo = ChangedMembers.MEMO_BYTES;
        try (Transaction tx = db.beginTx()) {
            KernelTransaction ktx = ((InternalTransaction) tx).kernelTransaction();
            long before = ktx.memoryTracker().estimatedHeapMemory();
            try (ChangedMembers members = new ChangedMembers(ktx, NODE_IDS.get("r"), spec, Long.MAX_VALUE)) {
                assertEquals(memo, ktx.memoryTracker().estimatedHeapMemory() - before, "the root's depth");
                assertTrue(members.node(NODE_IDS.get("r")));
                assertEquals(2 * memo, ktx.memoryTracker().estimatedHeapMemory() - before, "and its verdict");
                // o: no CHILDREN in, no PROPERTY in: a depth (none) and a verdict (not emitted)
                assertFalse(members.node(NODE_IDS.get("o")));
                assertEquals(4 * memo, ktx.memoryTracker().estimatedHeapMemory() - before, "o's depth and verdict");
                // r-O-o is of neither type: nothing more to remember
                assertFalse(members.relationship(REL_IDS.get("r-O-o")));
                assertEquals(4 * memo, ktx.memoryTracker().estimatedHeapMemory() - before);
                // q-C-z: q's depth (none: q is attached, not a member) is asked and counted
                assertFalse(members.relationship(REL_IDS.get("q-C-z")));
                assertEquals(5 * memo, ktx.memoryTracker().estimatedHeapMemory() - before, "q's depth");
                // q: attached from r, a member: its verdict is remembered too (its depth already is)
                assertTrue(members.node(NODE_IDS.get("q")));
                assertEquals(6 * memo, ktx.memoryTracker().estimatedHeapMemory() - before, "q's verdict");
                assertFalse(members.node(1_000_000L), "no such node");
                assertFalse(members.relationship(1_000_000L), "no such relationship");
            }
            assertEquals(before, ktx.memoryTracker().estimatedHeapMemory(), "all given back at close");
            // a's depth takes its two incoming CHILDREN relationships (r-C-a, d-C-a): a budget of 2 is enough, 1 is not
            try (ChangedMembers members = new ChangedMembers(ktx, NODE_IDS.get("r"), spec, 2)) {
                assertTrue(members.node(NODE_IDS.get("a")));
            }
            try (ChangedMembers members = new ChangedMembers(ktx, NODE_IDS.get("r"), spec, 1)) {
                assertThrows(ChangedMembers.OverBudget.class, () -> members.node(NODE_IDS.get("a")));
            }
            // b's depth costs r-C-b; then c's: a-C-c and b-C-c, and b's known depth (1) makes c's 2 at the first
            // level, so a's parents are never asked: 3 in all
            try (ChangedMembers members = new ChangedMembers(ktx, NODE_IDS.get("r"), spec, 3)) {
                assertTrue(members.node(NODE_IDS.get("b")));
                assertTrue(members.node(NODE_IDS.get("c")));
            }
        }
    }

    @Test
    void aTypeFollowedBothWaysMeetsEachRelationshipOnce() {
        List<String> both = List.of("c", "d", "c-C-d", "r", "c-C-r", "b", "b-C-c", "a", "a-C-c",
                "d-C-a", "r-C-b", "r-C-a");
        assertWalk("c", spec("CHILDREN", "", UNBOUNDED, Long.MAX_VALUE), both, 5, 7, false);
        // attach both ways: from b, c is attached (c-P-b), and c's attach relationship is not met again from c
        assertWalk("b", spec("", "PROPERTY", UNBOUNDED, Long.MAX_VALUE), List.of("b", "c", "c-P-b"), 2, 1, false);
    }

    @Test
    void aNodeTheVisitorFindsGoneIsSkippedWithTheRelationshipThatLedToIt() {
        // a stands for a node deleted after the walk met it; in the store its relationships would be gone too, here
        // d-C-a still leads to it (a member now, not emitted again) and a-C-c is walked from it
        Topology t = topology("r", spec("CHILDREN>", "PROPERTY>", UNBOUNDED, Long.MAX_VALUE), null, "a");
        assertEquals(List.of("r", "q", "r-P-q", "b", "r-C-b", "c", "b-C-c", "c-P-b", "d", "c-C-d", "c-C-r", "d-C-a",
                "a-C-c"), t.records());
        assertFalse(t.truncated());
    }

    @Test
    void anOverlayHidesRelationshipsAndRestoresDeletedOnes() {
        int children, property;
        try (Transaction tx = db.beginTx()) {
            KernelTransaction ktx = ((InternalTransaction) tx).kernelTransaction();
            children = ktx.tokenRead().relationshipType("CHILDREN");
            property = ktx.tokenRead().relationshipType("PROPERTY");
        }
        TopologyWalk.Overlay overlay = new TopologyWalk.Overlay(new LongIdSet(new org.neo4j.memory.LocalMemoryTracker()));
        overlay.hidden.add(REL_IDS.get("r-C-a"));
        overlay.hidden.add(REL_IDS.get("r-P-q"));
        // restored: r -C-> o (id 900), a self-loop o -P-> o (901), z -P-> o (902, incoming at o: not followed out)
        overlay.restore(900, NODE_IDS.get("r"), NODE_IDS.get("o"), children);
        overlay.restore(901, NODE_IDS.get("o"), NODE_IDS.get("o"), property);
        overlay.restore(902, NODE_IDS.get("z"), NODE_IDS.get("o"), property);
        assertEquals(12, overlay.restored.get(NODE_IDS.get("o")).size());
        assertEquals(4, overlay.restored.get(NODE_IDS.get("r")).size());
        Topology t = topology("r", spec("CHILDREN>", "PROPERTY>", UNBOUNDED, Long.MAX_VALUE), overlay, null);
        assertEquals(List.of("r", "b", "r-C-b", "o", "restored 900", "restored 901",
                "c", "b-C-c", "c-P-b", "d", "c-C-d", "c-C-r", "a", "d-C-a", "pa", "a-P-pa", "pa-P-pa", "ppa",
                "pa-P-ppa", "a-C-c"), t.records());
        // incoming: o's restored incoming relationships lead to r and z
        Topology in = topology("o", spec("<CHILDREN|<PROPERTY", "", 1, Long.MAX_VALUE), overlay, null);
        assertEquals(List.of("o", "r", "restored 900", "restored 901", "z", "restored 902"), in.records());
        Topology both = topology("o", spec("PROPERTY", "", 1, Long.MAX_VALUE), overlay, null);
        assertEquals(List.of("o", "restored 901", "z", "restored 902"), both.records());
    }

    @Test
    void aWalkerWalksOnceAndNeedsAReadThread() throws IOException {
        try (Transaction tx = db.beginTx()) {
            KernelTransaction ktx = ((InternalTransaction) tx).kernelTransaction();
            assertEquals("readThreads must be >= 1: 0",
                    assertThrows(IllegalArgumentException.class, () -> new SubgraphWalker(ktx, 0)).getMessage());
            try (SubgraphWalker walker = new SubgraphWalker(ktx)) {
                TraceWriter out = new TraceWriter();
                WalkSpec spec = spec("CHILDREN>", "PROPERTY>", 0, Long.MAX_VALUE);
                assertEquals(new SubgraphWalker.Result(2, 1, false), walker.walk(NODE_IDS.get("r"), spec, out));
                assertEquals("a walker walks once", assertThrows(IllegalStateException.class,
                        () -> walker.walk(NODE_IDS.get("r"), spec, out)).getMessage());
            }
        }
    }

    /**
     * Both walks look at their transaction every 1,024 nodes ({@link Budget}): a transaction over its timeout is
     * terminated there with its timeout status (Neo4j's monitor would do it only at its next round, seconds later); within its timeout, or without one, the walk goes on to the end.
     */
    @Test
    void aWalkStopsAtItsCheckPointOnceItsTransactionIsOverItsTimeout() throws Exception {
        WalkSpec star = spec("CHILDREN>", "", UNBOUNDED, Long.MAX_VALUE);
        for (boolean topology : new boolean[] {false, true}) {
            try (Transaction tx = db.beginTx(20, TimeUnit.MILLISECONDS)) {
                Thread.sleep(60);
                long[] met = new long[1];
                Exception e = assertThrows(Exception.class, () -> starWalk(tx, star, topology, met));
                assertEquals(Status.Transaction.TransactionTimedOutClientConfiguration, ParallelWalkTest.status(e), () -> "status of " + e);
                // the walker's writer checks before its first node, and every 1,024 nodes written; the topology walk
                // after every 1,024th node
                assertEquals(topology ? Budget.CHECK_MASK + 1 : 0, met[0], "nodes met before the check");
            } catch (org.neo4j.graphdb.TransactionTerminatedException closing) {
                // closing a terminated transaction may say so again
            }
            for (Transaction tx : new Transaction[] {db.beginTx(1, TimeUnit.MINUTES), db.beginTx()}) {
                try (tx) {
                    Thread.sleep(30);
                    long[] met = new long[1];
                    starWalk(tx, star, topology, met);
                    assertEquals(STAR_CHILDREN + 1, met[0]);
                }
            }
        }
    }

    /** Walks the star with the walker or the topology walk; {@code met[0]}: nodes met. */
    private static void starWalk(Transaction tx, WalkSpec spec, boolean topology, long[] met) throws IOException {
        InternalTransaction itx = (InternalTransaction) tx;
        if (topology) {
            try (TopologyWalk walk = new TopologyWalk(itx.kernelTransaction(), null)) {
                walk.walk(NODE_IDS.get("star"), spec, new TopologyWalk.Visitor() {
                    @Override
                    public boolean node(long id) {
                        met[0]++;
                        return true;
                    }

                    @Override
                    public void relationship(long id) {}
                });
            }
        } else {
            TraceWriter out = new TraceWriter();
            try {
                Walkers.export(itx, NODE_IDS.get("star"), spec, 1, 1, out);
            } finally {
                met[0] = out.calls.stream().filter(c -> c.startsWith("node ")).count();
            }
        }
    }

    /**
     * The walker counts what it holds in the transaction's memory tracker: both id sets (LongIdSet's exact figures)
     * and the BFS levels, in steps of 8,192 ids (64 KiB). The star's 1,101 ids against the root alone: two tables of
     * 2,042 slots instead of 16, and one step of the levels.
     */
    @Test
    void theWalkCountsItsIdSetsAndItsLevelsInTheTransactionsTracker() throws IOException {
        long rootOnly = walkHeap(spec("CHILDREN>", "", 0, Long.MAX_VALUE));
        long star = walkHeap(spec("CHILDREN>", "", UNBOUNDED, Long.MAX_VALUE));
        assertEquals(2 * 8 * (2042 - 16) + 8 * 8192, star - rootOnly);
    }

    private static long walkHeap(WalkSpec spec) throws IOException {
        try (Transaction tx = db.beginTx()) {
            InternalTransaction itx = (InternalTransaction) tx;
            long before = itx.kernelTransaction().memoryTracker().estimatedHeapMemory();
            Walkers.export(itx, NODE_IDS.get("star"), spec, 1, 1, new TraceWriter());
            return itx.kernelTransaction().memoryTracker().estimatedHeapMemory() - before;
        }
    }
}
