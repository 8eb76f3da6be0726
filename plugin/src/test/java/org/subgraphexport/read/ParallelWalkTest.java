package org.subgraphexport.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.kernel.api.exceptions.Status;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;
import org.subgraphexport.testkit.DemoGraph;
import org.subgraphexport.server.FixtureGraph;

/**
 * The parallel walk writes exactly the stream the single-threaded walk writes: the same records in the same order
 * with the same labels and values, the same counts and truncation, for the fixture graph (cycle, diamond, attached
 * data, both directions), a demo graph and a seeded random graph with cross edges and self-loops, over many walk
 * settings, batch sizes and thread counts. Tiny batches make workers and the walking thread race for every few
 * records. The delta exports' two other readings of the same rules, {@link TopologyWalk} and the backward
 * {@link ChangedMembers}, decide what the walk decides. Then: what a failing writer, a terminated transaction and
 * concurrent deletes leave behind.
 */
class ParallelWalkTest {
    /**
     * The parallel walks compared with the single-threaded one: read threads, records per batch, and the minimum
     * concurrency: 0 keeps the workers whatever happens, {@link Double#MAX_VALUE} retires them after
     * {@value ParallelEntityWriter#CHECK_AFTER_BATCHES} batches (the walk goes on single-threaded), and the
     * production value does what the machine's load says.
     */
    private record Variant(int threads, int batch, double minConcurrency) {}

    private static final double KEEP = 0;
    private static final double RETIRE = Double.MAX_VALUE;
    private static final List<Variant> PARALLEL = List.of(
            new Variant(2, 1, KEEP), new Variant(2, 3, KEEP), new Variant(2, 64, KEEP),
            new Variant(2, ParallelEntityWriter.DEFAULT_BATCH_RECORDS, KEEP), new Variant(3, 2, KEEP),
            new Variant(4, 5, KEEP), new Variant(2, 1, RETIRE), new Variant(3, 16, RETIRE),
            new Variant(2, ParallelEntityWriter.DEFAULT_BATCH_RECORDS, ParallelEntityWriter.MIN_CONCURRENCY));
    private static final int RANDOM_NODES = 1200;
    private static final Label RANDOM = Label.label("R");
    private static final RelationshipType LINK = RelationshipType.withName("LINK");
    private static final RelationshipType HAS = RelationshipType.withName("HAS");

    private static GraphDatabaseService db;
    private static DemoGraph.Result demo;
    private static FixtureGraph fixture;
    private static String randomRoot;
    private static String heavyRoot;

    /** The graphs, once per JVM ({@link SharedDatabases}): PIT launches every test method on its own. */
    @BeforeAll
    static void start() {
        db = SharedDatabases.get("parallel-walk", ParallelWalkTest::fill).database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
    }

    private static void fill(DatabaseManagementService dbms) {
        GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        demo = DemoGraph.generate(db, 3000, DemoGraph.DEFAULT_SEED, done -> {});
        // The fixture's root is an Object with id 1 too: drop the demo's uniqueness constraint to have both.
        try (Transaction tx = db.beginTx()) {
            tx.schema().getConstraintByName(DemoGraph.CONSTRAINT_NAME).drop();
            tx.commit();
        }
        fixture = FixtureGraph.create(db);
        randomRoot = randomGraph(db, RANDOM_NODES, 20260817L);
        heavyRoot = heavyGraph(db);
    }

    /**
     * A LINK chain of 60 nodes whose values weigh from a few bytes to 2.5 MB (strings and arrays), so that batches
     * shrink to a few records, to one, and the ring to two batches in flight.
     */
    private static String heavyGraph(GraphDatabaseService db) {
        SplittableRandom random = new SplittableRandom(99);
        try (Transaction tx = db.beginTx()) {
            Node previous = null;
            String root = null;
            for (int i = 0; i < 60; i++) {
                Node n = tx.createNode(Label.label("Heavy"));
                int size = switch (i % 5) {
                    case 0 -> 10;
                    case 1 -> 50_000;
                    case 2 -> random.nextInt(1, 400_000);
                    case 3 -> i % 10 == 3 ? 2_500_000 : 200_000;
                    default -> 100;
                };
                n.setProperty("text", "h".repeat(size));
                if (i % 7 == 0) n.setProperty("longs", new long[size / 8 + 1]);
                if (previous == null) root = n.getElementId();
                else previous.createRelationshipTo(n, LINK).setProperty("bytes", new byte[size / 4]);
                previous = n;
            }
            tx.commit();
            return root;
        }
    }

    /**
     * Nodes labelled R with a long, a string (some long enough to be stored as UTF-8 in the dynamic string store,
     * some non-ASCII) and sometimes an array; each has 0-4 LINK relationships to random R nodes (cross edges, back
     * edges, self-loops), and some carry HAS chains of attached A nodes that point at each other, at themselves and
     * back at R nodes. Relationships carry a double now and then. Returns the element id of R node 0.
     */
    static String randomGraph(GraphDatabaseService db, int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        try (Transaction tx = db.beginTx()) {
            List<Node> nodes = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                Node n = tx.createNode(RANDOM);
                n.setProperty("rid", (long) i);
                n.setProperty("s", random.nextInt(4) == 0 ? "lång-" + "x".repeat(random.nextInt(40, 300)) : "r" + i);
                if (random.nextInt(3) == 0) n.setProperty("a", new int[] {i, -i, random.nextInt()});
                nodes.add(n);
            }
            List<Node> attached = new ArrayList<>();
            for (Node n : nodes) {
                for (int k = random.nextInt(5); k > 0; k--) {
                    Node other = random.nextInt(50) == 0 ? n : nodes.get(random.nextInt(count));
                    var r = n.createRelationshipTo(other, LINK);
                    if (random.nextBoolean()) r.setProperty("w", random.nextDouble());
                }
                if (random.nextInt(3) == 0) {
                    Node a = tx.createNode(Label.label("A"));
                    a.setProperty("since", LocalDate.ofEpochDay(random.nextInt(20000)));
                    n.createRelationshipTo(a, HAS).setProperty("name", "p" + random.nextInt(10));
                    attached.add(a);
                }
            }
            for (Node a : attached) {
                int pick = random.nextInt(6);
                if (pick == 0) a.createRelationshipTo(a, HAS);
                else if (pick == 1) a.createRelationshipTo(attached.get(random.nextInt(attached.size())), HAS);
                else if (pick == 2) a.createRelationshipTo(nodes.get(random.nextInt(count)), HAS);
            }
            String root = nodes.get(0).getElementId();
            tx.commit();
            return root;
        }
    }

    private record Walk(SubgraphWalker.Result result, List<String> calls) {}

    private static Walk walk(GraphDatabaseService db, String root, WalkSpec spec, int threads, int batch) {
        return walk(db, root, spec, new Variant(threads, batch, KEEP));
    }

    private static Walk walk(GraphDatabaseService db, String root, WalkSpec spec, Variant v) {
        try (Transaction tx = db.beginTx()) {
            InternalTransaction itx = (InternalTransaction) tx;
            TraceWriter out = new TraceWriter();
            SubgraphWalker.Result result = Walkers.export(
                    itx, itx.elementIdMapper().nodeId(root), spec, v.threads(), v.batch(), v.minConcurrency(), out);
            return new Walk(result, out.calls);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static WalkSpec spec(String expand, String attach, int maxDepth, long limit) {
        return new WalkSpec(RelationshipFilter.parse(expand), RelationshipFilter.parse(attach), maxDepth, limit);
    }

    /**
     * The delta exports' {@link TopologyWalk} (ids only; here without an overlay) decides the walker's records in the
     * walker's order and stops where it stops: the two walks implement one set of rules twice, and this keeps them one.
     */
    private static void assertTopologyWalkAgrees(GraphDatabaseService db, String root, WalkSpec spec, Walk single) {
        List<String> expected = new ArrayList<>();
        for (String c : single.calls()) {
            if (c.startsWith("node ") || c.startsWith("rel ")) expected.add(c.split(" ")[0] + " " + c.split(" ")[1]);
        }
        try (Transaction tx = db.beginTx();
                TopologyWalk walk = new TopologyWalk(((InternalTransaction) tx).kernelTransaction(), null)) {
            List<String> met = new ArrayList<>();
            walk.walk(((InternalTransaction) tx).elementIdMapper().nodeId(root), spec, new TopologyWalk.Visitor() {
                @Override
                public boolean node(long id) {
                    met.add("node " + id);
                    return true;
                }

                @Override
                public void relationship(long id) {
                    met.add("rel " + id);
                }
            });
            assertEquals(expected, met, spec + ": the topology walk's sequence");
            assertEquals(single.result().truncated(), walk.truncated(), spec + ": the topology walk's truncation");
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        if (ChangedMembers.applies(spec)) assertChangedMembersAgree(db, root, spec, expected);
    }

    /**
     * The delta's backward search ({@link ChangedMembers}) says of every node and relationship of the database, asked
     * in ascending and in descending id order (so its memos fill differently), what the walk decided: in or out.
     */
    private static void assertChangedMembersAgree(GraphDatabaseService db, String root, WalkSpec spec,
            List<String> walked) {
        Set<Long> walkedNodes = new HashSet<>(), walkedRels = new HashSet<>();
        for (String c : walked) {
            (c.startsWith("node ") ? walkedNodes : walkedRels).add(Long.parseLong(c.split(" ")[1]));
        }
        try (Transaction tx = db.beginTx()) {
            KernelTransaction ktx = ((InternalTransaction) tx).kernelTransaction();
            long rootId = ((InternalTransaction) tx).elementIdMapper().nodeId(root);
            List<Long> nodes = new ArrayList<>(), rels = new ArrayList<>();
            tx.getAllNodes().forEach(n -> nodes.add(n.getId()));
            tx.getAllRelationships().forEach(r -> rels.add(r.getId()));
            nodes.sort(null);
            rels.sort(null);
            for (boolean descending : new boolean[] {false, true}) {
                if (descending) {
                    java.util.Collections.reverse(nodes);
                    java.util.Collections.reverse(rels);
                }
                Set<Long> inNodes = new HashSet<>(), inRels = new HashSet<>();
                try (ChangedMembers members = new ChangedMembers(ktx, rootId, spec, Long.MAX_VALUE)) {
                    for (long id : nodes) if (members.node(id)) inNodes.add(id);
                    for (long id : rels) if (members.relationship(id)) inRels.add(id);
                } catch (ChangedMembers.OverBudget e) {
                    throw new AssertionError("no budget to run out of", e);
                }
                String what = spec + (descending ? ", asked in descending id order" : "");
                assertEquals(walkedNodes, inNodes, what + ": the backward search's nodes");
                assertEquals(walkedRels, inRels, what + ": the backward search's relationships");
            }
        }
    }

    /** Every parallel variant writes the single-threaded walk's stream, call for call; the topology walk agrees. */
    private static void assertSameAsSingleThreaded(GraphDatabaseService db, String root, WalkSpec spec) {
        Walk single = walk(db, root, spec, 1, 1);
        assertWellFormed(single, spec);
        assertTopologyWalkAgrees(db, root, spec, single);
        for (Variant variant : PARALLEL) {
            Walk parallel = walk(db, root, spec, variant);
            String what = spec + " " + variant;
            assertEquals(single.result(), parallel.result(), what);
            assertEquals(nodes(single), nodes(parallel), what + ": node set");
            assertEquals(relationships(single), relationships(parallel), what + ": relationship set");
            if (!single.calls().equals(parallel.calls())) {
                int i = 0;
                while (i < Math.min(single.calls().size(), parallel.calls().size())
                        && single.calls().get(i).equals(parallel.calls().get(i))) {
                    i++;
                }
                fail(what + ": streams differ at call " + i + ": "
                        + (i < single.calls().size() ? single.calls().get(i) : "<end>") + " vs "
                        + (i < parallel.calls().size() ? parallel.calls().get(i) : "<end>"));
            }
        }
    }

    private static Set<String> nodes(Walk w) {
        Set<String> ids = new HashSet<>();
        for (String c : w.calls()) if (c.startsWith("node ")) ids.add(c.split(" ")[1]);
        return ids;
    }

    private static Set<String> relationships(Walk w) {
        Set<String> ids = new HashSet<>();
        for (String c : w.calls()) if (c.startsWith("rel ")) ids.add(c.split(" ")[1]);
        return ids;
    }

    /** Nodes once, relationships once and after both end nodes, counts and limit as the end record says. */
    private static void assertWellFormed(Walk w, WalkSpec spec) {
        Set<String> nodes = new HashSet<>();
        Set<String> rels = new HashSet<>();
        for (String c : w.calls()) {
            String[] parts = c.split(" ");
            if (c.startsWith("node ")) {
                assertTrue(nodes.add(parts[1]), "node twice: " + c);
            } else if (c.startsWith("rel ")) {
                assertTrue(rels.add(parts[1]), "relationship twice: " + c);
                String[] ends = parts[4].split("->");
                assertTrue(nodes.contains(ends[0]) && nodes.contains(ends[1]), "relationship before its end nodes: " + c);
            }
        }
        assertEquals(nodes.size(), w.result().nodes());
        assertEquals(rels.size(), w.result().relationships());
        assertTrue(w.result().nodes() <= spec.limit());
    }

    @Test
    void fixtureGraph() {
        String root = fixture.id("root");
        int unbounded = Integer.MAX_VALUE;
        for (WalkSpec spec : List.of(
                spec("CHILDREN>", "PROPERTY>", unbounded, Long.MAX_VALUE),
                spec("CHILDREN>", "PROPERTY>", 0, Long.MAX_VALUE),
                spec("CHILDREN>", "PROPERTY>", 1, Long.MAX_VALUE),
                spec("CHILDREN>", "PROPERTY>", 2, Long.MAX_VALUE),
                spec("CHILDREN", "", unbounded, Long.MAX_VALUE),
                spec("CHILDREN", "PROPERTY", unbounded, Long.MAX_VALUE),
                spec("<CHILDREN", "PROPERTY>", unbounded, Long.MAX_VALUE),
                spec("CHILDREN>|OTHER>", "", unbounded, Long.MAX_VALUE),
                spec("", "PROPERTY>|CHILDREN>", unbounded, Long.MAX_VALUE),
                spec("CHILDREN>", "PROPERTY>", unbounded, 0),
                spec("CHILDREN>", "PROPERTY>", unbounded, 1),
                spec("CHILDREN>", "PROPERTY>", unbounded, 3),
                spec("CHILDREN>", "PROPERTY>", unbounded, 8),
                spec("CHILDREN>", "PROPERTY>", unbounded, 9))) {
            assertSameAsSingleThreaded(db, root, spec);
        }
        assertSameAsSingleThreaded(db, fixture.id("a"), spec("<CHILDREN", "PROPERTY>", unbounded, Long.MAX_VALUE));
        assertSameAsSingleThreaded(db, fixture.id("seq"), spec("CHILDREN>", "PROPERTY>", unbounded, Long.MAX_VALUE));
        Walk all = walk(db, root, spec("CHILDREN>", "PROPERTY>", unbounded, Long.MAX_VALUE), 2, 1);
        assertEquals(new SubgraphWalker.Result(9, 10, false), all.result());
        assertTrue(walk(db, root, spec("CHILDREN>", "PROPERTY>", unbounded, 3), 2, 1).result().truncated());
    }

    @Test
    void demoGraph() {
        WalkSpec everything = spec("CHILDREN>", "PROPERTY>", Integer.MAX_VALUE, Long.MAX_VALUE);
        assertSameAsSingleThreaded(db, demo.rootElementId(), everything);
        assertEquals(new SubgraphWalker.Result(demo.nodes(), demo.relationships(), false),
                walk(db, demo.rootElementId(), everything, 2, ParallelEntityWriter.DEFAULT_BATCH_RECORDS).result());
        assertSameAsSingleThreaded(db, demo.rootElementId(), spec("CHILDREN>", "PROPERTY>", 2, Long.MAX_VALUE));
        assertSameAsSingleThreaded(db, demo.rootElementId(), spec("CHILDREN>", "PROPERTY>", Integer.MAX_VALUE, 1000));
        assertSameAsSingleThreaded(db, demo.rootElementId(), spec("CHILDREN>", "", Integer.MAX_VALUE, Long.MAX_VALUE));
        assertSameAsSingleThreaded(db, demo.rootElementId(), spec("CHILDREN", "PROPERTY", 3, 7777));
    }

    @Test
    void randomGraph() {
        for (String expand : List.of("LINK>", "<LINK", "LINK")) {
            for (String attach : List.of("HAS>", "HAS", "")) {
                for (int maxDepth : new int[] {1, 3, Integer.MAX_VALUE}) {
                    assertSameAsSingleThreaded(db, randomRoot, spec(expand, attach, maxDepth, Long.MAX_VALUE));
                }
                for (long limit : new long[] {1, 50, 500}) {
                    assertSameAsSingleThreaded(db, randomRoot, spec(expand, attach, Integer.MAX_VALUE, limit));
                }
            }
        }
    }

    /**
     * A backward search that would cost more than its budget says so (the delta then walks) instead of guessing; its
     * memos are counted in the transaction's memory tracker.
     */
    @Test
    void theBackwardSearchStopsAtItsBudget() throws Exception {
        WalkSpec spec = spec("CHILDREN>", "PROPERTY>", Integer.MAX_VALUE, Long.MAX_VALUE);
        try (Transaction tx = db.beginTx()) {
            KernelTransaction ktx = ((InternalTransaction) tx).kernelTransaction();
            long rootId = ((InternalTransaction) tx).elementIdMapper().nodeId(fixture.id("root"));
            long a = ((InternalTransaction) tx).elementIdMapper().nodeId(fixture.id("a"));
            try (ChangedMembers members = new ChangedMembers(ktx, rootId, spec, 0)) {
                assertTrue(members.node(rootId), "the root costs nothing");
                assertThrows(ChangedMembers.OverBudget.class, () -> members.node(a));
            }
            try (ChangedMembers members = new ChangedMembers(ktx, rootId, spec, 100)) {
                long charged = ktx.memoryTracker().estimatedHeapMemory();  // the root's depth and the cursors
                assertTrue(members.node(a));
                // a's depth and a's verdict, counted in the transaction's tracker as the walk's id sets are
                assertEquals(charged + 2 * ChangedMembers.MEMO_BYTES, ktx.memoryTracker().estimatedHeapMemory());
            }
        }
        assertFalse(ChangedMembers.applies(spec("CHILDREN>", "PROPERTY>", Integer.MAX_VALUE, 1000)), "a node limit");
        assertFalse(ChangedMembers.applies(new WalkSpec(RelationshipFilter.parse("CHILDREN>"),
                RelationshipFilter.parse("PROPERTY>"), 3, Long.MAX_VALUE, true)), "a depth-cut report");
        assertTrue(ChangedMembers.applies(spec("CHILDREN>", "PROPERTY>", 3, Long.MAX_VALUE)));
    }

    @Test
    void heavyValues() {
        for (long limit : new long[] {Long.MAX_VALUE, 37}) {
            assertSameAsSingleThreaded(db, heavyRoot, spec("LINK>", "", Integer.MAX_VALUE, limit));
        }
        assertEquals(new SubgraphWalker.Result(60, 59, false),
                walk(db, heavyRoot, spec("LINK>", "", Integer.MAX_VALUE, Long.MAX_VALUE), 2, 512).result());
    }

    /**
     * With every pool thread busy (as when many exports run at once) a walk gets no worker, or fewer than it asked
     * for, and still writes the same stream: alone it goes on reading on the spot, as the single-threaded walk does.
     */
    @Test
    void aBusyPoolMeansFewerWorkersNotADifferentStream() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        List<CountDownLatch> started = new ArrayList<>();
        try {
            while (true) {
                CountDownLatch running = new CountDownLatch(1);
                if (!ReaderPool.tryStart(() -> {
                    running.countDown();
                    awaitQuietly(release);
                })) {
                    break;
                }
                started.add(running);
                running.await();
            }
            assertFalse(started.isEmpty());
            WalkSpec everything = spec("CHILDREN>", "PROPERTY>", Integer.MAX_VALUE, Long.MAX_VALUE);
            assertSameAsSingleThreaded(db, demo.rootElementId(), everything);
            assertSameAsSingleThreaded(db, demo.rootElementId(), spec("CHILDREN>", "PROPERTY>", Integer.MAX_VALUE, 1000));
            assertSameAsSingleThreaded(db, randomRoot, spec("LINK", "HAS", Integer.MAX_VALUE, 300));
        } finally {
            release.countDown();
        }
        assertNothingLeft(db, "after the busy pool");
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A client that leaves: the writer's IOException ends the walk, stops the workers, releases their contexts. */
    @Test
    void aFailingWriterStopsTheWorkersAndLeavesNothingBehind() throws Exception {
        WalkSpec everything = spec("CHILDREN>", "PROPERTY>", Integer.MAX_VALUE, Long.MAX_VALUE);
        for (long failAt : new long[] {1, 700, 20000}) {
            for (int[] variant : new int[][] {{2, 1, 0}, {2, 16, 0}, {3, 512, 0}, {2, 4, 1}}) {
                try (Transaction tx = db.beginTx()) {
                    InternalTransaction itx = (InternalTransaction) tx;
                    TraceWriter out = new TraceWriter().failAfter(failAt);
                    IOException e = assertThrows(IOException.class, () -> Walkers.export(
                            itx, itx.elementIdMapper().nodeId(demo.rootElementId()), everything, variant[0], variant[1], variant[2] == 0 ? KEEP : RETIRE, out));
                    assertEquals("Broken pipe (test)", e.getMessage());
                    tx.terminate(); // as ExportOutput does
                }
                assertNothingLeft(db, "after a writer failed at record " + failAt);
            }
        }
    }

    /** A terminated transaction (a timeout, a client gone) stops walker and workers with the kernel's status. */
    @Test
    void terminationStopsTheWalkWithItsStatus() throws Exception {
        WalkSpec everything = spec("CHILDREN>", "PROPERTY>", Integer.MAX_VALUE, Long.MAX_VALUE);
        for (int[] variant : new int[][] {{2, 1, 0}, {2, 64, 0}, {3, 512, 0}, {2, 4, 1}}) {
            try (Transaction tx = db.beginTx()) {
                InternalTransaction itx = (InternalTransaction) tx;
                KernelTransaction ktx = itx.kernelTransaction();
                TraceWriter out = new TraceWriter().atRecord(3000, () -> ktx.markForTermination(Status.Transaction.Terminated));
                Exception e = assertThrows(Exception.class, () -> Walkers.export(
                        itx, itx.elementIdMapper().nodeId(demo.rootElementId()), everything, variant[0], variant[1], variant[2] == 0 ? KEEP : RETIRE, out));
                assertEquals(Status.Transaction.Terminated, status(e), () -> "status of " + e);
            } catch (org.neo4j.graphdb.TransactionTerminatedException closing) {
                // closing a terminated transaction may say so again
            }
            assertNothingLeft(db, "after termination");
        }
    }

    static Status status(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof Status.HasStatus s) return s.status();
        }
        return null;
    }

    /** Under concurrent deletes and creates, parallel walks stay well formed: nodes once, relationships after both ends. */
    @Test
    void concurrentWritersNeverBreakTheStream() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong writes = new AtomicLong();
        Thread writer = new Thread(() -> {
            SplittableRandom random = new SplittableRandom(7);
            while (!stop.get()) {
                try (Transaction tx = db.beginTx()) {
                    Node n = tx.findNode(RANDOM, "rid", (long) random.nextInt(1, RANDOM_NODES));
                    Node extra = tx.createNode(Label.label("Extra"));
                    extra.setProperty("s", "extra-" + "y".repeat(random.nextInt(100)));
                    n.createRelationshipTo(extra, HAS);
                    n.createRelationshipTo(extra, LINK);
                    tx.findNodes(Label.label("Extra")).stream().limit(2).forEach(x -> {
                        x.getRelationships().forEach(r -> r.delete());
                        x.delete();
                    });
                    tx.commit();
                    writes.incrementAndGet();
                }
            }
        });
        writer.start();
        try {
            for (int i = 0; i < 30; i++) {
                WalkSpec spec = spec(i % 2 == 0 ? "LINK>" : "LINK", "HAS>", Integer.MAX_VALUE, i % 3 == 0 ? 400 : Long.MAX_VALUE);
                assertWellFormed(walk(db, randomRoot, spec, 2 + i % 2, 1 + i % 4), spec);
            }
        } finally {
            stop.set(true);
            writer.join();
        }
        assertTrue(writes.get() > 0);
        try (Transaction tx = db.beginTx()) {
            tx.execute("MATCH (n:Extra) DETACH DELETE n");
            tx.commit();
        }
        assertNothingLeft(db, "after the concurrent walks");
    }

    private static List<String> cypher(String query, Map<String, Object> params, long maxNodes, Variant v) {
        try (Transaction tx = db.beginTx()) {
            InternalTransaction itx = (InternalTransaction) tx;
            TraceWriter out = new TraceWriter();
            try (Result result = itx.execute(query, params)) {
                CypherExport.run(itx, result, false, maxNodes, v.threads(), v.batch(), v.minConcurrency(), out);
            }
            return out.calls;
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * The Cypher endpoint's graph mode reads with workers too, and writes the single-threaded stream call for call:
     * the benchmark's query (nodes, lists of relationships and [relationship, node] pairs), paths over a graph with
     * cycles and self-loops, relationships returned without their end nodes, and node limits that cut mid-row.
     */
    @Test
    void cypherGraphModeIsTheSameStreamInParallel() throws Exception {
        record Query(String text, Map<String, Object> params) {}
        List<Query> queries = List.of(
                new Query(DemoGraph.SUBGRAPH_QUERY, Map.of("root", demo.rootElementId())),
                new Query("MATCH p = (r:R)-[:LINK*1..2]->(x) WHERE r.rid < 300 RETURN p, x.s AS s",
                        Map.of()),
                new Query("MATCH (:R)-[h:HAS]->(a) RETURN collect(h) AS hs, count(a) AS n", Map.of()),
                new Query("MATCH (n:Heavy)-[l:LINK]->(m) RETURN {from: n, via: [l]} AS m", Map.of()));
        for (Query query : queries) {
            for (long maxNodes : new long[] {Long.MAX_VALUE, 1, 500}) {
                List<String> single = cypher(query.text(), query.params(), maxNodes, new Variant(1, 1, KEEP));
                String end = single.get(single.size() - 1);
                assertTrue(end.startsWith("end "), end);
                assertTrue(maxNodes != Long.MAX_VALUE || Long.parseLong(end.split(" ")[1]) > 50,
                        () -> "too small to test batches: " + end + " for " + query.text());
                for (Variant variant : PARALLEL) {
                    List<String> parallel = cypher(query.text(), query.params(), maxNodes, variant);
                    String what = query.text() + " limit " + maxNodes + " " + variant;
                    assertEquals(single.size(), parallel.size(), what + ": calls");
                    for (int i = 0; i < single.size(); i++) {
                        int at = i;
                        assertEquals(single.get(i), parallel.get(i), () -> what + ": streams differ at call " + at);
                    }
                }
            }
        }
        assertNothingLeft(db, "after the Cypher exports");
    }

    /** A Cypher export whose client leaves, or whose transaction is terminated, stops its workers too. */
    @Test
    void aCypherExportThatFailsLeavesNothingBehind() throws Exception {
        Map<String, Object> params = Map.of("root", demo.rootElementId());
        for (int[] variant : new int[][] {{2, 1}, {2, 16}, {3, 512}}) {
            try (Transaction tx = db.beginTx()) {
                InternalTransaction itx = (InternalTransaction) tx;
                TraceWriter out = new TraceWriter().failAfter(700);
                try (Result result = itx.execute(DemoGraph.SUBGRAPH_QUERY, params)) {
                    IOException e = assertThrows(IOException.class, () -> CypherExport.run(
                            itx, result, false, Long.MAX_VALUE, variant[0], variant[1], KEEP, out));
                    assertEquals("Broken pipe (test)", e.getMessage());
                }
                tx.terminate(); // as ExportOutput does
            }
            assertNothingLeft(db, "after a Cypher export's writer failed");
            try (Transaction tx = db.beginTx()) {
                InternalTransaction itx = (InternalTransaction) tx;
                KernelTransaction ktx = itx.kernelTransaction();
                TraceWriter out = new TraceWriter().atRecord(3000, () -> ktx.markForTermination(Status.Transaction.Terminated));
                try (Result result = itx.execute(DemoGraph.SUBGRAPH_QUERY, params)) {
                    Exception e = assertThrows(Exception.class, () -> CypherExport.run(
                            itx, result, false, Long.MAX_VALUE, variant[0], variant[1], KEEP, out));
                    assertEquals(Status.Transaction.Terminated, status(e), () -> "status of " + e);
                }
            } catch (org.neo4j.graphdb.TransactionTerminatedException closing) {
                // closing a terminated transaction may say so again
            }
            assertNothingLeft(db, "after a Cypher export was terminated");
        }
    }

    /** No reader task running, no reader thread inside our code, no transaction but the one asking. */
    static void assertNothingLeft(GraphDatabaseService db, String when) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (Walkers.runningReaders() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(0, Walkers.runningReaders(), "reader tasks still running " + when);
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            if (!e.getKey().getName().startsWith("subgraph-export-reader-")) continue;
            for (StackTraceElement frame : e.getValue()) {
                assertFalse(frame.getClassName().startsWith("org.subgraphexport"),
                        () -> e.getKey().getName() + " still busy " + when + " in " + frame);
            }
        }
        try (Transaction tx = db.beginTx()) {
            List<Object> others = tx.execute("SHOW TRANSACTIONS YIELD transactionId, currentQuery").stream()
                    .filter(row -> !String.valueOf(row.get("currentQuery")).contains("SHOW TRANSACTIONS"))
                    .map(row -> row.get("transactionId"))
                    .toList();
            assertEquals(List.of(), others, "transactions left " + when);
        }
    }
}
