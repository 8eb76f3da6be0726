package org.subgraphexport.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
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
import org.neo4j.kernel.impl.coreapi.InternalTransaction;

/**
 * Delta streams on an embedded database with its change journal: exactly the records that joined or changed, in
 * today's walk order, then what left; an empty delta when nothing committed; the partitions' shares of the delta's
 * sequence; and the errors of a delta that cannot be exact (a truncated export, a root found by key that changed).
 * Every test builds a subgraph of its own (C = CHILDREN, P = PROPERTY) and changes it after taking the state.
 */
class DeltaExportTest {
    private static DatabaseManagementService dbms;
    private static GraphDatabaseService db;
    private static ChangeJournal journal;
    private static final Map<Long, String> NODE_NAMES = new HashMap<>();
    private static final Map<Long, String> REL_NAMES = new HashMap<>();

    /** The database once per JVM ({@link SharedDatabases}), a journal of its own per run of this class. */
    @BeforeAll
    static void start() {
        dbms = SharedDatabases.get("delta", d -> {});
        db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        ChangeJournal.stop(dbms, db);
        journal = ChangeJournal.of(dbms, db, 64L << 20);
    }

    /** A test's own nodes and relationships by name. */
    private static final class Graph {
        final Map<String, Long> nodes = new HashMap<>();
        final Map<String, Long> rels = new HashMap<>();

        /** Relationships "a-C-b" (creating the nodes it names that do not exist yet), in one transaction. */
        Graph add(String... relationships) {
            try (Transaction tx = db.beginTx()) {
                for (String rel : relationships) {
                    String[] p = rel.split("-");
                    Node start = node(tx, p[0]), end = node(tx, p[2]);
                    Relationship r = start.createRelationshipTo(end,
                            RelationshipType.withName(p[1].equals("C") ? "CHILDREN" : "PROPERTY"));
                    rels.put(rel, r.getId());
                    REL_NAMES.put(r.getId(), rel);
                }
                tx.commit();
            }
            return this;
        }

        private Node node(Transaction tx, String name) {
            Long id = nodes.get(name);
            if (id != null) return tx.getNodeById(id);
            Node n = tx.createNode();
            n.setProperty("name", name);
            nodes.put(name, n.getId());
            NODE_NAMES.put(n.getId(), name);
            return n;
        }

        void change(Consumer<Transaction> change) {
            try (Transaction tx = db.beginTx()) {
                change.accept(tx);
                tx.commit();
            }
        }

        Node node(Transaction tx, String name, boolean existing) {
            return tx.getNodeById(nodes.get(name));
        }

        Relationship rel(Transaction tx, String name) {
            return tx.getRelationshipById(rels.get(name));
        }
    }

    private record Delta(List<String> records, DeltaExport.Result result, TraceWriter out) {}

    private static Delta delta(Graph g, WalkSpec spec, Partition partition, String since, boolean rootByKey)
            throws IOException {
        return delta(g, spec, partition, since, rootByKey, 1, ExportState.of(db, null), new TraceWriter());
    }

    private static Delta delta(Graph g, WalkSpec spec, Partition partition, String since, boolean rootByKey,
            int readThreads, ExportState state, TraceWriter out) throws IOException {
        try (Transaction tx = db.beginTx()) {
            DeltaExport.Result result = DeltaExport.run((InternalTransaction) tx, g.nodes.get("r"), spec, partition,
                    readThreads, state, journal, since, rootByKey, out);
            List<String> records = new ArrayList<>();
            for (String call : out.calls) {
                String[] p = call.split(" ");
                if (call.startsWith("node ")) records.add(NODE_NAMES.get(Long.parseLong(p[1])));
                else if (call.startsWith("rel ")) records.add(REL_NAMES.get(Long.parseLong(p[1])));
                else if (call.startsWith("left node ")) records.add("-" + NODE_NAMES.get(Long.parseLong(p[2])));
                else if (call.startsWith("left rel ")) records.add("-" + REL_NAMES.get(Long.parseLong(p[2])));
            }
            assertEquals(since, out.header.since());
            assertEquals(partition.index(), out.header.partition());
            assertEquals(partition.count(), out.header.partitions());
            assertEquals(out.header.state(), StoreState.version(db), "the header's state is the one read");
            assertEquals(out.endState, StoreState.version(db), "the end record's state");
            return new Delta(records, result, out);
        }
    }

    private static Delta delta(Graph g, String since) throws IOException {
        return delta(g, everything(), Partition.WHOLE, since, false);
    }

    /** Relationships "r-C-{prefix}0" to "r-C-{prefix}{n - 1}": n children of r, for {@link Graph#add}. */
    private static String[] children(String prefix, int n) {
        String[] children = new String[n];
        for (int i = 0; i < n; i++) children[i] = "r-C-" + prefix + i;
        return children;
    }

    private static WalkSpec everything() {
        return new WalkSpec(WalkSpec.DEFAULT_EXPAND, WalkSpec.DEFAULT_ATTACH, Integer.MAX_VALUE, Long.MAX_VALUE);
    }

    private static WalkSpec limited(long limit) {
        return new WalkSpec(WalkSpec.DEFAULT_EXPAND, WalkSpec.DEFAULT_ATTACH, Integer.MAX_VALUE, limit);
    }

    @Test
    void nothingCommittedSinceIsAnEmptyDelta() throws IOException {
        Graph g = new Graph().add("r-C-a");
        String since = StoreState.version(db);
        Delta d = delta(g, since);
        assertEquals(List.of(), d.records());
        assertEquals(new DeltaExport.Result(0, 0, 0, 0, false), d.result());
        assertEquals("end 0 0 false", d.out().calls.get(d.out().calls.size() - 1));
    }

    @Test
    void changedLabelsAndPropertiesWithoutATopologyChangeSendTheChangedRecordsOnly() throws IOException {
        Graph g = new Graph().add("r-C-a", "a-C-b", "a-P-pa", "x-C-y");
        String since = StoreState.version(db);
        g.change(tx -> {
            g.node(tx, "a", true).addLabel(Label.label("Changed"));
            g.node(tx, "b", true).setProperty("v", 1);
            g.rel(tx, "a-C-b").setProperty("w", 2);
            g.node(tx, "x", true).setProperty("v", 3);  // outside the subgraph
            g.rel(tx, "x-C-y").setProperty("v", 3);
        });
        Delta d = delta(g, since);
        assertEquals(List.of("a", "b", "a-C-b"), d.records());
        assertEquals(new DeltaExport.Result(2, 1, 0, 0, false), d.result());
        assertEquals("end 2 1 false", d.out().calls.get(d.out().calls.size() - 1));
        // partition 1 of 2 owns none of the three records (the sequence's block 0)
        Delta second = delta(g, everything(), new Partition(2, 1), since, false);
        assertEquals(List.of(), second.records());
        assertEquals(new DeltaExport.Result(0, 0, 0, 0, false), second.result());
        assertEquals(d.records(), delta(g, everything(), new Partition(2, 0), since, false).records());
    }

    @Test
    void joinedChangedAndLeftRecordsAfterATopologyChange() throws IOException {
        Graph g = new Graph().add("r-C-a", "r-C-c", "c-C-e", "a-P-pa", "e-P-pe");
        String since = StoreState.version(db);
        g.add("a-C-n");
        g.change(tx -> {
            g.rel(tx, "c-C-e").delete();
            g.node(tx, "pa", true).setProperty("v", 1);
            g.rel(tx, "r-C-c").setProperty("w", 1);
        });
        Delta d = delta(g, since);
        // depth 0 (r's two children, in the store's order), then depth 1
        List<String> full = d.records().subList(0, 4);
        assertEquals(List.of("pa", "r-C-c"), full.subList(0, 2).stream().sorted().toList());
        assertEquals(List.of("n", "a-C-n"), full.subList(2, 4));
        assertEquals(List.of("-e", "-pe"), d.records().subList(4, 6).stream().sorted().toList());
        assertEquals(List.of("-c-C-e", "-e-P-pe"), d.records().subList(6, 8).stream().sorted().toList());
        assertEquals(8, d.records().size());
        assertEquals(new DeltaExport.Result(2, 2, 2, 2, false), d.result());
        assertEquals("end 2 2 false", d.out().calls.get(d.out().calls.size() - 1));
        // a relationship created and deleted again since: never in either membership
        g.add("r-C-t");
        g.change(tx -> g.rel(tx, "r-C-t").delete());
        assertEquals(d.records(), delta(g, since).records());
    }

    @Test
    void partitionsDealTheDeltasSequenceInBlocksOf256() throws IOException {
        Graph g = new Graph().add("r-C-o1", "r-C-o2", "r-C-o3");
        String since = StoreState.version(db);
        String[] children = children("n", 150);
        g.add(children);
        g.change(tx -> {
            for (String rel : List.of("r-C-o1", "r-C-o2", "r-C-o3")) g.rel(tx, rel).delete();
        });
        Delta whole = delta(g, since);
        assertEquals(new DeltaExport.Result(150, 150, 3, 3, false), whole.result());
        assertEquals(306, whole.records().size());
        Delta first = delta(g, everything(), new Partition(2, 0), since, false);
        Delta second = delta(g, everything(), new Partition(2, 1), since, false);
        assertEquals(whole.records().subList(0, 256), first.records());
        assertEquals(whole.records().subList(256, 306), second.records());
        assertEquals(new DeltaExport.Result(128, 128, 0, 0, false), first.result());
        assertEquals(new DeltaExport.Result(22, 22, 3, 3, false), second.result());
        Delta third = delta(g, everything(), new Partition(3, 2), since, false);
        assertEquals(List.of(), third.records());
        assertEquals(new DeltaExport.Result(0, 0, 0, 0, false), third.result());
    }

    /**
     * Without a topology change, the changed members found backwards go out as nodes then relationships, each by
     * ascending id, and partitions deal that sequence in blocks of 256. A walk with a node limit cannot search
     * backwards: it sends the same records in the walk's order, dealt the same way, and its parallel readers flush
     * every record before the end.
     */
    @Test
    void withoutATopologyChangeTheChangedMembersGoOutByIdOrInTheWalksOrder() throws IOException {
        String[] children = children("k", 300);
        Graph g = new Graph().add(children);
        String since = StoreState.version(db);
        g.change(tx -> {
            for (int i = children.length - 1; i >= 0; i--) {
                g.node(tx, "k" + i, true).setProperty("v", i);
                g.rel(tx, children[i]).setProperty("v", i);
            }
        });
        List<String> byId = new ArrayList<>();
        g.nodes.values().stream().filter(id -> !NODE_NAMES.get(id).equals("r")).sorted()
                .forEach(id -> byId.add(NODE_NAMES.get(id)));
        g.rels.values().stream().sorted().forEach(id -> byId.add(REL_NAMES.get(id)));
        Delta backwards = delta(g, since);
        assertEquals(byId, backwards.records());
        assertEquals(new DeltaExport.Result(300, 300, 0, 0, false), backwards.result());
        assertDealt(g, everything(), since, backwards.records());

        WalkSpec walked = limited(1_000);
        Delta walk = delta(g, walked, Partition.WHOLE, since, false);
        assertEquals(byId.stream().sorted().toList(), walk.records().stream().sorted().toList());
        assertTrue(!walk.records().equals(byId), "the walk's order: each child, then its relationship");
        assertEquals(new DeltaExport.Result(300, 300, 0, 0, false), walk.result());
        assertDealt(g, walked, since, walk.records());
        Delta parallel = delta(g, walked, Partition.WHOLE, since, false, 3, ExportState.of(db, null), new TraceWriter());
        assertEquals(walk.out().calls, parallel.out().calls);
    }

    /** Partition 0 of 2 has records 0 to 255 and from 512 on; partition 1 has 256 to 511. */
    private static void assertDealt(Graph g, WalkSpec spec, String since, List<String> whole) throws IOException {
        List<String> first = new ArrayList<>(whole.subList(0, 256));
        first.addAll(whole.subList(512, whole.size()));
        assertEquals(first, delta(g, spec, new Partition(2, 0), since, false).records());
        assertEquals(whole.subList(256, 512), delta(g, spec, new Partition(2, 1), since, false).records());
    }

    /** Left records take their places in the delta's sequence after the full ones: here across a block boundary. */
    @Test
    void leftRecordsAreDealtByTheirPlaceInTheSequence() throws IOException {
        String[] old = children("o", 10);
        Graph g = new Graph().add(old);
        String since = StoreState.version(db);
        g.add(children("j", 125));
        g.change(tx -> {
            for (String rel : old) g.rel(tx, rel).delete();
        });
        Delta whole = delta(g, since);
        assertEquals(new DeltaExport.Result(125, 125, 10, 10, false), whole.result());
        assertEquals(270, whole.records().size());
        List<String> left = whole.records().subList(250, 270);
        assertTrue(left.stream().allMatch(r -> r.startsWith("-")), () -> "the left records last: " + left);
        assertEquals(whole.records().subList(0, 256), delta(g, everything(), new Partition(2, 0), since, false).records());
        assertEquals(whole.records().subList(256, 270), delta(g, everything(), new Partition(2, 1), since, false).records());
    }

    @Test
    void aDeltaOfATruncatedExportIsUnavailable() throws IOException {
        Graph g = new Graph().add("r-C-a", "r-C-b");
        String since = StoreState.version(db);
        g.change(tx -> g.node(tx, "a", true).setProperty("v", 1));
        ChangeJournal.Unavailable unchanged = assertThrows(ChangeJournal.Unavailable.class,
                () -> delta(g, limited(2), Partition.WHOLE, since, false));
        assertEquals("the export is cut by the node limit (2): a delta of a truncated export is not exact; read the"
                + " export again", unchanged.getMessage());
        assertEquals(ChangeJournal.UNAVAILABLE, unchanged.code());
        assertEquals(new DeltaExport.Result(1, 0, 0, 0, false), delta(g, limited(3), Partition.WHOLE, since, false)
                .result());
        g.add("r-C-c");
        ChangeJournal.Unavailable today = assertThrows(ChangeJournal.Unavailable.class,
                () -> delta(g, limited(3), Partition.WHOLE, since, false));
        assertEquals("today's export is cut by the node limit (3): a delta of a truncated export is not exact; read"
                + " the export again", today.getMessage());
        assertEquals(new DeltaExport.Result(2, 1, 0, 0, false), delta(g, limited(4), Partition.WHOLE, since, false)
                .result());
        String later = StoreState.version(db);
        g.change(tx -> g.rel(tx, "r-C-c").delete());
        ChangeJournal.Unavailable earlier = assertThrows(ChangeJournal.Unavailable.class,
                () -> delta(g, limited(3), Partition.WHOLE, later, false));
        assertEquals("the earlier export was cut by the node limit (3): a delta of a truncated export is not exact;"
                + " read the export again", earlier.getMessage());
    }

    @Test
    void aRootFoundByKeyThatChangedMakesTheDeltaUnavailable() throws IOException {
        Graph g = new Graph().add("r-C-a");
        String since = StoreState.version(db);
        g.change(tx -> g.node(tx, "r", true).setProperty("key", "other"));
        String sinceState = since;
        ChangeJournal.Unavailable e = assertThrows(ChangeJournal.Unavailable.class,
                () -> delta(g, everything(), Partition.WHOLE, sinceState, true));
        assertEquals("the root node, found by label and key, changed since state " + DeltaExport.transaction(since)
                + ": the earlier export may have had another root; read the export again", e.getMessage());
        assertEquals(List.of("r"), delta(g, since).records());
        // a change elsewhere is no reason
        String later = StoreState.version(db);
        g.change(tx -> g.node(tx, "a", true).setProperty("v", 1));
        assertEquals(List.of("a"), delta(g, everything(), Partition.WHOLE, later, true).records());
    }

    @Test
    void theTransactionOfAStateToken() {
        assertEquals(42, DeltaExport.transaction("a:b:42"));
        assertEquals(7, DeltaExport.transaction("7"));
    }

    @Test
    void aDepthCutIsTheDeltasTruncationOnBothPaths() throws IOException {
        Graph g = new Graph().add("r-C-a", "a-C-b");
        WalkSpec depthOne = new WalkSpec(WalkSpec.DEFAULT_EXPAND, WalkSpec.DEFAULT_ATTACH, 1, Long.MAX_VALUE, true);
        String since = StoreState.version(db);
        g.change(tx -> g.node(tx, "a", true).setProperty("v", 1));
        Delta unchanged = delta(g, depthOne, Partition.WHOLE, since, false);
        assertEquals(List.of("a"), unchanged.records());
        assertEquals(new DeltaExport.Result(1, 0, 0, 0, true), unchanged.result());
        assertEquals("end 1 0 true", unchanged.out().calls.get(unchanged.out().calls.size() - 1));
        g.add("r-C-c");
        Delta changed = delta(g, depthOne, Partition.WHOLE, since, false);
        List<String> records = changed.records();  // r's children in the store's order
        assertEquals(List.of("a", "c", "r-C-c"), records.stream().sorted().toList());
        assertEquals(records.indexOf("c") + 1, records.indexOf("r-C-c"));
        assertEquals(new DeltaExport.Result(2, 1, 0, 0, true), changed.result());
        assertEquals("end 2 1 true", changed.out().calls.get(changed.out().calls.size() - 1));
        WalkSpec deep = new WalkSpec(WalkSpec.DEFAULT_EXPAND, WalkSpec.DEFAULT_ATTACH, 2, Long.MAX_VALUE, true);
        assertEquals(new DeltaExport.Result(2, 1, 0, 0, false), delta(g, deep, Partition.WHOLE, since, false).result());
    }

    @Test
    void aDeltaReadWithSeveralThreadsIsTheSameStream() throws IOException {
        Graph g = new Graph().add("r-C-a", "r-C-b", "b-P-pb");
        String since = StoreState.version(db);
        g.add("a-C-n", "n-P-pn");
        g.change(tx -> {
            g.node(tx, "pb", true).setProperty("v", 1);
            g.rel(tx, "r-C-b").delete();
        });
        Delta one = delta(g, since);
        for (int threads : new int[] {2, 3}) {
            Delta more = delta(g, everything(), Partition.WHOLE, since, false, threads, ExportState.of(db, null),
                    new TraceWriter());
            assertEquals(one.out().calls, more.out().calls);
            assertEquals(one.result(), more.result());
        }
        String later = StoreState.version(db);
        g.change(tx -> g.node(tx, "a", true).setProperty("v", 1));
        Delta unchanged = delta(g, everything(), Partition.WHOLE, later, false, 2, ExportState.of(db, null),
                new TraceWriter());
        assertEquals(List.of("a"), unchanged.records());
    }

    @Test
    void aWriterThatFailsOnALeftRecordFailsTheDelta() throws IOException {
        Graph g = new Graph().add("r-C-a", "a-C-b");
        String since = StoreState.version(db);
        g.change(tx -> g.rel(tx, "a-C-b").delete());
        assertEquals(List.of("-b", "-a-C-b"), delta(g, since).records());
        for (int failAt : new int[] {1, 2}) {
            TraceWriter out = new TraceWriter().failAfter(failAt);
            IOException e = assertThrows(IOException.class, () -> delta(g, everything(), Partition.WHOLE, since, false,
                    1, ExportState.of(db, null), out));
            assertEquals("Broken pipe (test)", e.getMessage());
            assertEquals(failAt - 1, out.calls.stream().filter(c -> c.startsWith("left ")).count());
            assertTrue(out.calls.stream().noneMatch(c -> c.startsWith("end ")), out.calls::toString);
        }
    }

    @Test
    void aPinnedStateTheDatabaseMovedOnFromFailsTheDeltaAtItsEnd() throws IOException {
        Graph g = new Graph().add("r-C-a");
        String since = StoreState.version(db);
        g.change(tx -> g.node(tx, "a", true).setProperty("v", 1));
        ExportState pinned = ExportState.of(db, since);
        ExportState.Changed unchanged = assertThrows(ExportState.Changed.class, () -> delta(g, everything(),
                Partition.WHOLE, since, false, 1, pinned, new TraceWriter()));
        assertEquals(ExportState.CHANGED, unchanged.code());
        g.add("r-C-b");
        TraceWriter out = new TraceWriter();
        assertThrows(ExportState.Changed.class, () -> delta(g, everything(), Partition.WHOLE, since, false, 1, pinned,
                out));
        assertTrue(out.calls.stream().noneMatch(c -> c.startsWith("end ")), out.calls::toString);
        // pinned to the state it reads: no error
        assertEquals(new DeltaExport.Result(2, 1, 0, 0, false), delta(g, everything(), Partition.WHOLE, since, false,
                1, ExportState.of(db, StoreState.version(db)), new TraceWriter()).result());
    }
}
