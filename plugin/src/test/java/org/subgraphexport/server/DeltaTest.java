package org.subgraphexport.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.subgraphexport.server.ExportHttp.enc;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.lang.reflect.Array;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Transaction;
import org.subgraphexport.client.Delta;
import org.subgraphexport.client.ExportEnd;
import org.subgraphexport.client.ExportLeft;
import org.subgraphexport.client.ExportNode;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.ExportRecord;
import org.subgraphexport.client.ExportRelationship;
import org.subgraphexport.client.Subgraph;
import org.subgraphexport.wire.Format;

/**
 * Delta exports ({@code since=}) over real HTTP on an in-process Neo4j, in every format the Java client decodes (the
 * {@code arrow} delta is read by pyarrow in python/tests): for each kind of change the issue lists, the earlier export
 * plus the delta is exactly a fresh export (same nodes, relationships, labels, values), and the delta holds exactly the
 * records and ids it should; bad {@code since} values are refused before streaming.
 */
class DeltaTest {
    @RegisterExtension
    static final InProcessNeo4j neo4j = InProcessNeo4j.withExtension();

    private static final Label OBJECT = Label.label("Object"), STRUCTURE = Label.label("Structure");
    private static final List<Format> FORMATS = List.of(Format.values()).stream().filter(Format::clientDecodes).toList();

    /**
     * A tree: r -CHILDREN-> a, b; a -CHILDREN-> a1, a2; b -CHILDREN-> b1; a1 -CHILDREN-> a11; every Object has a
     * Structure attached (PROPERTY); an Object x outside it. Element ids by name.
     */
    private static Map<String, String> tree() {
        GraphDatabaseService db = neo4j.defaultDatabaseService();
        Map<String, String> ids = new TreeMap<>();
        try (Transaction tx = db.beginTx()) {
            Map<String, Node> nodes = new TreeMap<>();
            for (String name : List.of("r", "a", "b", "a1", "a2", "b1", "a11", "x")) {
                Node o = tx.createNode(OBJECT);
                o.setProperty("name", name);
                o.setProperty("size", (long) name.length());
                Node s = tx.createNode(STRUCTURE);
                s.setProperty("of", name);
                o.createRelationshipTo(s, FixtureGraph.PROPERTY).setProperty("slot", 1L);
                nodes.put(name, o);
                nodes.put("s" + name, s);
            }
            for (String[] edge : new String[][] {{"r", "a"}, {"r", "b"}, {"a", "a1"}, {"a", "a2"}, {"b", "b1"},
                    {"a1", "a11"}}) {
                Relationship rel = nodes.get(edge[0]).createRelationshipTo(nodes.get(edge[1]), FixtureGraph.CHILDREN);
                ids.put(edge[0] + ">" + edge[1], rel.getElementId());
            }
            nodes.forEach((name, node) -> ids.put(name, node.getElementId()));
            tx.commit();
        }
        return ids;
    }

    private static void write(java.util.function.Consumer<Transaction> change) {
        try (Transaction tx = neo4j.defaultDatabaseService().beginTx()) {
            change.accept(tx);
            tx.commit();
        }
    }

    private static ExportHttp http() {
        return new ExportHttp(neo4j.httpURI());
    }

    private static Map<Format, Subgraph> exports(String query) throws IOException {
        Map<Format, Subgraph> result = new EnumMap<>(Format.class);
        for (Format f : FORMATS) {
            HttpResponse<byte[]> r = http().get(f.pathSegment() + "/traverse?" + query);
            assertEquals(200, r.statusCode(), () -> new String(r.body(), StandardCharsets.UTF_8));
            try (ExportReader reader = ExportReader.open(f, new ByteArrayInputStream(r.body()))) {
                result.put(f, Subgraph.read(reader));
            }
        }
        return result;
    }

    /** What one delta stream holds: ids of full records and of left records, as sorted sets. */
    record DeltaIds(Set<String> nodes, Set<String> relationships, Set<String> leftNodes, Set<String> leftRelationships) {}

    /**
     * For every format: the delta since {@code before}'s state applied to {@code before} equals a fresh export,
     * record for record (values compared deeply); every format's delta names the same ids. Returns them.
     */
    private static DeltaIds assertDeltaGivesFresh(Map<Format, Subgraph> before, String query) throws IOException {
        DeltaIds first = null;
        for (Format f : FORMATS) {
            Subgraph base = before.get(f);
            String since = base.header().state();
            HttpResponse<byte[]> r = http().get(f.pathSegment() + "/traverse?" + query + "&since=" + enc(since));
            assertEquals(200, r.statusCode(), () -> new String(r.body(), StandardCharsets.UTF_8));
            DeltaIds ids = new DeltaIds(new TreeSet<>(), new TreeSet<>(), new TreeSet<>(), new TreeSet<>());
            try (ExportReader reader = ExportReader.open(f, new ByteArrayInputStream(r.body()))) {
                assertEquals(since, reader.header().since(), f + ": the header names the earlier state");
                assertEquals(r.headers().firstValue(ExportStates.HEADER).orElseThrow(), reader.header().state());
                for (ExportRecord rec; (rec = reader.next()) != null; ) {
                    if (rec instanceof ExportNode n) ids.nodes.add(n.id());
                    else if (rec instanceof ExportRelationship rel) ids.relationships.add(rel.id());
                    else if (rec instanceof ExportLeft left) (left.node() ? ids.leftNodes : ids.leftRelationships).add(left.id());
                    else if (rec instanceof ExportEnd end) {
                        assertEquals(ids.nodes.size(), end.nodes());
                        assertEquals(ids.relationships.size(), end.relationships());
                    }
                }
            }
            Subgraph applied;
            try (ExportReader reader = ExportReader.open(f, new ByteArrayInputStream(r.body()))) {
                applied = Delta.apply(base, reader);
            }
            Subgraph fresh = exports(query).get(f);
            assertEquals(canon(fresh), canon(applied), f + ": earlier export + delta == fresh export");
            assertEquals(fresh.header().state(), applied.header().state());
            assertEquals(fresh.nodes().size(), applied.end().nodes());
            if (first == null) first = ids;
            else assertEquals(first, ids, f + " names the same ids as " + FORMATS.get(0));
        }
        return first;
    }

    /** Each node and relationship as a comparable string, arrays deeply. */
    static Map<String, String> canon(Subgraph s) {
        Map<String, String> m = new TreeMap<>();
        s.nodes().forEach((id, n) -> m.put(id, new TreeSet<>(n.labels()) + " " + props(n.properties())));
        s.relationships().forEach((id, r) -> m.put(id, r.type() + " " + r.start() + "->" + r.end() + " "
                + props(r.properties())));
        return m;
    }

    private static String props(Map<String, Object> properties) {
        Map<String, String> m = new TreeMap<>();
        properties.forEach((k, v) -> m.put(k, v != null && v.getClass().isArray() ? arrayString(v) : String.valueOf(v)));
        return m.toString();
    }

    private static String arrayString(Object array) {
        List<String> items = new ArrayList<>();
        for (int i = 0; i < Array.getLength(array); i++) items.add(String.valueOf(Array.get(array, i)));
        return items.toString();
    }

    private static String q(Map<String, String> ids) {
        return "root=" + enc(ids.get("r"));
    }

    private static Set<String> set(String... ids) {
        return new TreeSet<>(List.of(ids));
    }

    private static Node node(Transaction tx, String elementId) {
        return tx.getNodeByElementId(elementId);
    }

    @Test
    void propertySetAndRemovedOnANodeAndARelationship() throws IOException {
        Map<String, String> t = tree();
        Map<Format, Subgraph> before = exports(q(t));
        write(tx -> {
            node(tx, t.get("a1")).setProperty("name", "renamed");
            node(tx, t.get("b")).removeProperty("size");
            tx.getRelationshipByElementId(t.get("a>a2")).setProperty("weight", 2.5);
        });
        DeltaIds d = assertDeltaGivesFresh(before, q(t));
        assertEquals(new DeltaIds(set(t.get("a1"), t.get("b")), set(t.get("a>a2")), set(), set()), d);
    }

    @Test
    void labelAddedAndRemoved() throws IOException {
        Map<String, String> t = tree();
        Map<Format, Subgraph> before = exports(q(t));
        write(tx -> {
            node(tx, t.get("a2")).addLabel(Label.label("Hot"));
            node(tx, t.get("sb1")).removeLabel(STRUCTURE);
        });
        DeltaIds d = assertDeltaGivesFresh(before, q(t));
        assertEquals(new DeltaIds(set(t.get("a2"), t.get("sb1")), set(), set(), set()), d);
    }

    @Test
    void relationshipCreatedBringsANewSubtreeAndDeletedTakesAttachedDataAway() throws IOException {
        Map<String, String> t = tree();
        Map<Format, Subgraph> before = exports(q(t));
        String[] created = new String[3];
        write(tx -> {
            Node c = tx.createNode(OBJECT);
            c.setProperty("name", "c");
            created[0] = c.getElementId();
            created[1] = node(tx, t.get("b1")).createRelationshipTo(c, FixtureGraph.CHILDREN).getElementId();
            // the Structure of a2 no longer attached
            for (Relationship r : node(tx, t.get("a2")).getRelationships()) {
                if (r.isType(FixtureGraph.PROPERTY)) {
                    created[2] = r.getElementId();
                    r.delete();
                }
            }
        });
        DeltaIds d = assertDeltaGivesFresh(before, q(t));
        assertEquals(new DeltaIds(set(created[0]), set(created[1]), set(t.get("sa2")), set(created[2])), d);
    }

    @Test
    void nodeDeletedWithItsRelationships() throws IOException {
        Map<String, String> t = tree();
        Map<Format, Subgraph> before = exports(q(t));
        List<String> rels = new ArrayList<>();
        write(tx -> {
            Node a2 = node(tx, t.get("a2"));
            for (Relationship r : a2.getRelationships()) {
                rels.add(r.getElementId());
                r.delete();
            }
            a2.delete();
        });
        DeltaIds d = assertDeltaGivesFresh(before, q(t));
        assertEquals(new DeltaIds(set(), set(), set(t.get("a2"), t.get("sa2")), new TreeSet<>(rels)), d);
    }

    @Test
    void subtreeDetachedThenReattached() throws IOException {
        Map<String, String> t = tree();
        Map<Format, Subgraph> original = exports(q(t));
        write(tx -> tx.getRelationshipByElementId(t.get("r>a")).delete());
        Map<Format, Subgraph> detached = exports(q(t));
        DeltaIds d = assertDeltaGivesFresh(original, q(t));
        Set<String> subtree = set(t.get("a"), t.get("a1"), t.get("a2"), t.get("a11"), t.get("sa"), t.get("sa1"),
                t.get("sa2"), t.get("sa11"));
        assertEquals(subtree, d.leftNodes());
        assertEquals(8, d.leftRelationships().size(), "r>a, a>a1, a>a2, a1>a11 and four PROPERTY");
        assertEquals(set(), d.nodes());
        String[] reattached = new String[1];
        write(tx -> reattached[0] = node(tx, t.get("b")).createRelationshipTo(node(tx, t.get("a")),
                FixtureGraph.CHILDREN).getElementId());
        DeltaIds back = assertDeltaGivesFresh(detached, q(t));
        assertEquals(subtree, back.nodes(), "the whole subtree joins again");
        assertEquals(8, back.relationships().size(), "b>a and the subtree's seven");
        DeltaIds fromOriginal = assertDeltaGivesFresh(original, q(t));
        // Neo4j may give the new relationship the deleted one's id: then it is one changed relationship, not one
        // that left and one that joined (the record replaces the earlier one of that id)
        Set<String> left = reattached[0].equals(t.get("r>a")) ? set() : set(t.get("r>a"));
        assertEquals(new DeltaIds(set(), set(reattached[0]), set(), left), fromOriginal,
                "since the original: one relationship left (or its id reused), another joined; every node stayed");
    }

    @Test
    void nodeMovedPastMaxDepthLeavesAndComesBack() throws IOException {
        Map<String, String> t = tree();
        String query = q(t) + "&maxDepth=2";
        Map<Format, Subgraph> before = exports(query);
        assertTrue(before.get(Format.JSON).nodes().containsKey(t.get("a1")));
        assertTrue(!before.get(Format.JSON).nodes().containsKey(t.get("a11")), "depth 3 is beyond maxDepth");
        String[] moved = new String[1];
        write(tx -> {  // b1 (depth 2) moves under a1 (depth 2): depth 3
            tx.getRelationshipByElementId(t.get("b>b1")).delete();
            moved[0] = node(tx, t.get("a1")).createRelationshipTo(node(tx, t.get("b1")), FixtureGraph.CHILDREN)
                    .getElementId();
        });
        DeltaIds d = assertDeltaGivesFresh(before, query);
        assertEquals(new DeltaIds(set(), set(), set(t.get("b1"), t.get("sb1")),
                set(t.get("b>b1"), before.get(Format.JSON).relationships().values().stream()
                        .filter(r -> r.start().equals(t.get("b1"))).findFirst().orElseThrow().id())), d);
    }

    @Test
    void changeOutsideTheSubgraphOnlyGivesAnEmptyDelta() throws IOException {
        Map<String, String> t = tree();
        Map<Format, Subgraph> before = exports(q(t));
        write(tx -> {
            node(tx, t.get("x")).setProperty("name", "elsewhere");
            tx.createNode(OBJECT);
        });
        DeltaIds d = assertDeltaGivesFresh(before, q(t));
        assertEquals(new DeltaIds(set(), set(), set(), set()), d);
        assertNotEquals(before.get(Format.JSON).header().state(), exports(q(t)).get(Format.JSON).header().state());
    }

    @Test
    void nothingChangedIsAnEmptyDeltaOfTheSameState() throws IOException {
        Map<String, String> t = tree();
        Map<Format, Subgraph> before = exports(q(t));
        DeltaIds d = assertDeltaGivesFresh(before, q(t));
        assertEquals(new DeltaIds(set(), set(), set(), set()), d);
    }

    @Test
    void hostileSinceIsRefusedBeforeStreaming() throws IOException {
        Map<String, String> t = tree();
        Subgraph base = exports(q(t)).get(Format.JSON);
        String state = base.header().state();
        String uuid = state.substring(0, state.indexOf(':'));
        for (String since : List.of("", "x", "1", uuid, uuid + ":", uuid + ":-1", uuid + ":1e3", "../../etc",
                uuid + ":99999999999999999999", uuid + ":9223372036854775807", "x".repeat(100_000).substring(0, 5000),
                uuid.toUpperCase() + ":1", uuid + ":1:2", "\u0000" + state)) {
            HttpResponse<byte[]> r = http().get("json/traverse?" + q(t) + "&since=" + enc(since));
            assertEquals(400, r.statusCode(), () -> since + ": " + new String(r.body(), StandardCharsets.UTF_8));
            assertTrue(new String(r.body(), StandardCharsets.UTF_8).contains("Export.InvalidParameter"));
        }
        String otherDatabase = "00000000-0000-0000-0000-000000000000:1";
        HttpResponse<byte[]> other = http().get("json/traverse?" + q(t) + "&since=" + enc(otherDatabase));
        assertEquals(410, other.statusCode());
        assertTrue(new String(other.body(), StandardCharsets.UTF_8).contains("Export.DeltaUnavailable"));
    }

    /** A delta stream's records in order, as kind and id ({@code n:}, {@code r:}, {@code -n:}, {@code -r:}). */
    private static List<String> sequence(Format f, byte[] body, int partition, int partitions) throws IOException {
        List<String> records = new ArrayList<>();
        try (ExportReader reader = ExportReader.open(f, new ByteArrayInputStream(body))) {
            assertEquals(partition, reader.header().partition(), f + ": the header names its partition");
            assertEquals(partitions, reader.header().partitions(), f + ": and how many there are");
            long full = 0;
            for (ExportRecord rec; (rec = reader.next()) != null; ) {
                if (rec instanceof ExportNode n) {
                    records.add("n:" + n.id());
                    full++;
                } else if (rec instanceof ExportRelationship rel) {
                    records.add("r:" + rel.id());
                    full++;
                } else if (rec instanceof ExportLeft left) {
                    records.add((left.node() ? "-n:" : "-r:") + left.id());
                } else if (rec instanceof ExportEnd end) {
                    assertEquals(full, end.nodes() + end.relationships(), f + ": the end record counts this partition's");
                }
            }
        }
        return records;
    }

    @Test
    void aPartitionedDeltaDealsTheSingleDeltaStreamInBlocks() throws IOException {
        Map<String, String> t = tree();
        Map<Format, Subgraph> before = exports(q(t));
        // enough records for several blocks of 256: 300 new Objects under a1, each with a Structure (1,200 joined
        // records), a2's Structure detached (one node, one relationship left), b changed
        write(tx -> {
            Node a1 = node(tx, t.get("a1"));
            for (int i = 0; i < 300; i++) {
                Node c = tx.createNode(OBJECT);
                c.setProperty("name", "c" + i);
                a1.createRelationshipTo(c, FixtureGraph.CHILDREN);
                Node s = tx.createNode(STRUCTURE);
                s.setProperty("of", "c" + i);
                c.createRelationshipTo(s, FixtureGraph.PROPERTY);
            }
            for (Relationship r : node(tx, t.get("a2")).getRelationships()) {
                if (r.isType(FixtureGraph.PROPERTY)) r.delete();
            }
            node(tx, t.get("b")).setProperty("size", 99L);
        });
        for (Format f : FORMATS) {
            String since = enc(before.get(f).header().state());
            HttpResponse<byte[]> single = http().get(f.pathSegment() + "/traverse?" + q(t) + "&since=" + since);
            assertEquals(200, single.statusCode(), () -> new String(single.body(), StandardCharsets.UTF_8));
            List<String> whole = sequence(f, single.body(), 0, 1);
            assertEquals(1203, whole.size(), f + ": 1,200 joined, b changed, a2's Structure and its relationship left");
            for (int n : new int[] {2, 3, 7}) {
                List<List<String>> parts = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    HttpResponse<byte[]> r = http().get(f.pathSegment() + "/traverse?" + q(t) + "&since=" + since
                            + "&partitions=" + n + "&partition=" + i);
                    assertEquals(200, r.statusCode(), () -> new String(r.body(), StandardCharsets.UTF_8));
                    assertEquals(single.headers().firstValue(ExportStates.HEADER), r.headers().firstValue(ExportStates.HEADER));
                    parts.add(sequence(f, r.body(), i, n));
                }
                // taking 256 records from each partition in turn gives back the single delta stream
                List<String> dealt = new ArrayList<>();
                int[] at = new int[n];
                for (int i = 0; dealt.size() < whole.size(); i = (i + 1) % n) {
                    List<String> p = parts.get(i);
                    int to = Math.min(p.size(), at[i] + 256);
                    if (at[i] >= to) break;
                    dealt.addAll(p.subList(at[i], to));
                    at[i] = to;
                }
                assertEquals(whole, dealt, f + ", " + n + " partitions");
                for (int i = 0; i < n; i++) assertEquals(parts.get(i).size(), at[i], f + ": partition " + i + " used up");
            }
        }
    }

    @Test
    void aStateFromBeforeTheJournalBeganIsGone() throws IOException {
        Map<String, String> t = tree();
        String state = exports(q(t)).get(Format.JSON).header().state();
        String first = state.substring(0, state.indexOf(':')) + ":1";  // long before this server's journal began
        HttpResponse<byte[]> r = http().get("kryo/traverse?" + q(t) + "&since=" + enc(first));
        assertEquals(410, r.statusCode(), () -> new String(r.body(), StandardCharsets.UTF_8));
        assertTrue(new String(r.body(), StandardCharsets.UTF_8).contains("Export.DeltaUnavailable"));
    }

    @Test
    void javaClientRefreshes() throws IOException {
        Map<String, String> t = tree();
        HttpClient client = HttpClient.newHttpClient();
        for (Format f : FORMATS) {
            URI export = neo4j.httpURI().resolve("/extension/" + f.pathSegment() + "/traverse?" + q(t));
            Subgraph copy = Delta.refresh(client, export, null);
            write(tx -> node(tx, t.get("b1")).setProperty("seen", f.pathSegment()));
            copy = copy.refresh(client, export);
            assertEquals(canon(exports(q(t)).get(f)), canon(copy));
            assertEquals(f.pathSegment(), copy.nodes().get(t.get("b1")).properties().get("seen"));
        }
    }

    @Test
    void writesConcurrentWithDeltasThenAFinalRefreshIsExact() throws Exception {
        Map<String, String> t = tree();
        HttpClient client = HttpClient.newHttpClient();
        URI export = neo4j.httpURI().resolve("/extension/kryo/traverse?" + q(t));
        Subgraph copy = Delta.refresh(client, export, null);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger writes = new AtomicInteger();
        Thread writer = new Thread(() -> {
            List<String> names = List.of("a", "b", "a1", "a2", "b1", "a11");
            for (int i = 0; !stop.get(); i++) {
                String name = names.get(i % names.size());
                int n = i;
                write(tx -> {
                    Node o = node(tx, t.get(name));
                    o.setProperty("n", (long) n);
                    if (n % 3 == 0) {
                        Node s = tx.createNode(STRUCTURE);
                        o.createRelationshipTo(s, FixtureGraph.PROPERTY);
                    }
                });
                writes.incrementAndGet();
            }
        });
        writer.start();
        try {
            for (int i = 0; i < 20; i++) {
                copy = copy.refresh(client, export);
            }
        } finally {
            stop.set(true);
            writer.join();
        }
        assertTrue(writes.get() > 0);
        copy = copy.refresh(client, export);
        assertEquals(canon(exports(q(t)).get(Format.KRYO)), canon(copy));
    }
}
