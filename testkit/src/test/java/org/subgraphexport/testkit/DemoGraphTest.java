package org.subgraphexport.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Transaction;
import org.neo4j.graphdb.schema.ConstraintType;

/**
 * Generates the same small demo graph twice (same seed, different batch sizes) into two embedded databases and checks
 * determinism, exact counts and the structural rules the exporters rely on.
 */
class DemoGraphTest {

    private static final int OBJECTS = 200;
    private static final long SEED = 4242L;

    @TempDir
    static Path tmp;

    private static DatabaseManagementService dbmsA;
    private static DatabaseManagementService dbmsB;
    private static GraphDatabaseService a;
    private static GraphDatabaseService b;
    private static DemoGraph.Result resultA;
    private static DemoGraph.Result resultB;
    private static final List<Long> progressA = new ArrayList<>();

    @BeforeAll
    static void generateTwice() {
        dbmsA = start(tmp.resolve("a"));
        dbmsB = start(tmp.resolve("b"));
        a = dbmsA.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        b = dbmsB.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        assertFalse(DemoGraph.isPresent(a));
        assertTrue(DemoGraph.read(a).isEmpty());
        resultA = DemoGraph.generate(a, OBJECTS, SEED, DemoGraph.DEFAULT_BATCH_NODES, progressA::add);
        // Many small transactions: parents are then mostly looked up from earlier transactions.
        resultB = DemoGraph.generate(b, OBJECTS, SEED, 97, done -> {});
    }

    private static DatabaseManagementService start(Path home) {
        return new DatabaseManagementServiceBuilder(home)
                .setConfig(GraphDatabaseSettings.pagecache_memory, 32L << 20)
                .build();
    }

    @AfterAll
    static void stop() {
        if (dbmsA != null) {
            dbmsA.shutdown();
        }
        if (dbmsB != null) {
            dbmsB.shutdown();
        }
    }

    @Test
    void sameSeedGivesSameCountsAsThePlan() {
        DemoGraph.Result plan = DemoGraph.plan(OBJECTS, SEED);
        for (DemoGraph.Result r : List.of(resultA, resultB)) {
            assertEquals(OBJECTS, r.objects());
            assertEquals(SEED, r.seed());
            assertEquals(DemoGraph.ROOT_ID, r.rootId());
            assertEquals(plan.nodes(), r.nodes());
            assertEquals(plan.relationships(), r.relationships());
            assertEquals(plan.properties(), r.properties());
            assertEquals(plan.maxDepth(), r.maxDepth());
            assertTrue(r.complete());
            assertNotNull(r.rootElementId());
        }
        assertNull(plan.rootElementId());
        // One tree: every node but the root has exactly one incoming relationship.
        assertEquals(resultA.nodes() - 1, resultA.relationships());
        // Roughly the founding ratios (about 6 nodes per Object and 6 property values per node).
        double nodesPerObject = (double) resultA.nodes() / OBJECTS;
        double propertiesPerNode = (double) resultA.properties() / resultA.nodes();
        assertTrue(nodesPerObject > 4 && nodesPerObject < 8, "nodes per Object " + nodesPerObject);
        assertTrue(propertiesPerNode > 4.5 && propertiesPerNode < 7.5, "properties per node " + propertiesPerNode);
    }

    @Test
    void databaseHoldsExactlyTheReportedCounts() {
        for (var entry : Map.of(a, resultA, b, resultB).entrySet()) {
            GraphDatabaseService db = entry.getKey();
            DemoGraph.Result r = entry.getValue();
            try (Transaction tx = db.beginTx()) {
                long nodes = 0;
                long properties = 0;
                long objects = 0;
                for (Node n : tx.getAllNodes()) {
                    if (n.hasLabel(DemoGraph.INFO)) {
                        continue;
                    }
                    nodes++;
                    properties += n.getAllProperties().size();
                    if (n.hasLabel(DemoGraph.OBJECT)) {
                        objects++;
                    }
                }
                long rels = 0;
                for (Relationship rel : tx.getAllRelationships()) {
                    rels++;
                    properties += rel.getAllProperties().size();
                }
                assertEquals(OBJECTS, objects);
                assertEquals(r.nodes(), nodes);
                assertEquals(r.relationships(), rels);
                assertEquals(r.properties(), properties);
                assertEquals(1, count(tx.findNodes(DemoGraph.INFO)));
            }
        }
    }

    @Test
    void sampledObjectsAreIdenticalInBothDatabases() {
        for (long id : new long[] {1, 2, 3, 50, 99, 150, 199, OBJECTS}) {
            Map<String, Object> inA = describeObject(a, id);
            Map<String, Object> inB = describeObject(b, id);
            assertEquals(inA, inB, "Object " + id);
            assertFalse(inA.isEmpty());
        }
        // Spot-check the property types of an Object.
        try (Transaction tx = a.beginTx()) {
            Node o = tx.findNode(DemoGraph.OBJECT, "id", 42L);
            assertTrue(o.getProperty("id") instanceof Long);
            assertTrue(o.getProperty("type") instanceof String);
            assertTrue(List.of(DemoGraph.TYPES).contains((String) o.getProperty("type")));
            assertTrue(List.of(DemoGraph.STATUSES).contains((String) o.getProperty("status")));
            assertTrue(o.getProperty("name") instanceof String);
            assertTrue(o.getProperty("version") instanceof Integer);
            assertTrue(o.getProperty("weight") instanceof Double);
            assertTrue(o.getProperty("active") instanceof Boolean);
            assertTrue(o.getProperty("createdAt") instanceof ZonedDateTime);
        }
    }

    @Test
    void objectsFormOneTreeUnderTheRoot() {
        try (Transaction tx = a.beginTx()) {
            Node root = tx.findNode(DemoGraph.OBJECT, "id", DemoGraph.ROOT_ID);
            assertEquals(resultA.rootElementId(), root.getElementId());
            assertEquals(0, root.getDegree(DemoGraph.CHILDREN, Direction.INCOMING));
            Set<Long> ids = new HashSet<>();
            try (var objects = tx.findNodes(DemoGraph.OBJECT)) {
                while (objects.hasNext()) {
                    Node o = objects.next();
                    long id = (Long) o.getProperty("id");
                    assertTrue(ids.add(id), "duplicate id " + id);
                    assertEquals(0, o.getDegree(DemoGraph.PROPERTY, Direction.INCOMING), "Object " + id);
                    if (id != DemoGraph.ROOT_ID) {
                        assertEquals(1, o.getDegree(DemoGraph.CHILDREN, Direction.INCOMING), "Object " + id);
                        Relationship in = o.getSingleRelationship(DemoGraph.CHILDREN, Direction.INCOMING);
                        assertTrue(in.getStartNode().hasLabel(DemoGraph.OBJECT));
                        assertTrue((Long) in.getStartNode().getProperty("id") < id, "breadth-first ids");
                    }
                    int children = o.getDegree(DemoGraph.CHILDREN, Direction.OUTGOING);
                    assertTrue(children == 0 || children <= 12, "fan-out of " + id + ": " + children);
                }
            }
            assertEquals(OBJECTS, ids.size());
            for (long id = 1; id <= OBJECTS; id++) {
                assertTrue(ids.contains(id), "missing id " + id);
            }

            // Walk from the root: every node and relationship of the demo graph is reachable, each once.
            Set<String> seenNodes = new HashSet<>();
            long seenRels = 0;
            int maxObjectDepth = 0;
            ArrayDeque<Node> queue = new ArrayDeque<>();
            ArrayDeque<Integer> depths = new ArrayDeque<>();
            queue.add(root);
            depths.add(0);
            seenNodes.add(root.getElementId());
            while (!queue.isEmpty()) {
                Node n = queue.poll();
                int depth = depths.poll();
                if (n.hasLabel(DemoGraph.OBJECT)) {
                    maxObjectDepth = Math.max(maxObjectDepth, depth);
                }
                for (Relationship r : n.getRelationships(Direction.OUTGOING)) {
                    seenRels++;
                    Node end = r.getEndNode();
                    assertTrue(seenNodes.add(end.getElementId()), "reached twice: " + end.getElementId());
                    queue.add(end);
                    depths.add(r.isType(DemoGraph.CHILDREN) ? depth + 1 : depth);
                }
            }
            assertEquals(resultA.nodes(), seenNodes.size());
            assertEquals(resultA.relationships(), seenRels);
            assertEquals(resultA.maxDepth(), maxObjectDepth);
        }
    }

    @Test
    void propertyRelationshipsAreNamedOrIndexed() {
        try (Transaction tx = a.beginTx()) {
            long sequences = 0;
            try (var seqs = tx.findNodes(DemoGraph.SEQUENCE)) {
                while (seqs.hasNext()) {
                    Node seq = seqs.next();
                    sequences++;
                    assertEquals(1, seq.getDegree(Direction.INCOMING));
                    Relationship in = seq.getSingleRelationship(DemoGraph.PROPERTY, Direction.INCOMING);
                    assertTrue(in.getProperty("name") instanceof String);
                    assertFalse(in.hasProperty("index"));
                    List<Long> indexes = new ArrayList<>();
                    for (Relationship out : seq.getRelationships(Direction.OUTGOING)) {
                        assertTrue(out.isType(DemoGraph.PROPERTY));
                        assertTrue(out.getEndNode().hasLabel(DemoGraph.STRUCTURE));
                        assertFalse(out.hasProperty("name"));
                        indexes.add((Long) out.getProperty("index"));
                    }
                    indexes.sort(null);
                    List<Long> expected = new ArrayList<>();
                    for (long i = 0; i < indexes.size(); i++) {
                        expected.add(i);
                    }
                    assertEquals(expected, indexes, "indexes of " + seq.getElementId());
                    assertEquals((long) indexes.size(), seq.getProperty("size"));
                }
            }
            assertTrue(sequences > 0, "no Sequence generated");
            long nested = 0;
            try (var structures = tx.findNodes(DemoGraph.STRUCTURE)) {
                while (structures.hasNext()) {
                    Node s = structures.next();
                    assertEquals(1, s.getDegree(Direction.INCOMING));
                    Relationship in = s.getSingleRelationship(DemoGraph.PROPERTY, Direction.INCOMING);
                    Node owner = in.getStartNode();
                    assertTrue(owner.hasLabel(DemoGraph.SEQUENCE) ^ in.hasProperty("name"));
                    assertTrue(s.getProperty("kind") instanceof String);
                    if (owner.hasLabel(DemoGraph.STRUCTURE)) {
                        nested++;
                        // At most two levels below the Object.
                        Node ownerOwner = owner.getSingleRelationship(DemoGraph.PROPERTY, Direction.INCOMING)
                                .getStartNode();
                        assertTrue(ownerOwner.hasLabel(DemoGraph.OBJECT));
                    }
                    for (Relationship out : s.getRelationships(Direction.OUTGOING)) {
                        assertTrue(out.isType(DemoGraph.PROPERTY));
                    }
                }
            }
            assertTrue(nested > 0, "no nested Structure generated");
        }
    }

    @Test
    void readBackAndGuards() {
        DemoGraph.Result back = DemoGraph.read(a).orElseThrow();
        assertEquals(resultA.rootElementId(), back.rootElementId());
        assertEquals(resultA.objects(), back.objects());
        assertEquals(resultA.seed(), back.seed());
        assertEquals(resultA.nodes(), back.nodes());
        assertEquals(resultA.relationships(), back.relationships());
        assertEquals(resultA.properties(), back.properties());
        assertEquals(resultA.maxDepth(), back.maxDepth());
        assertTrue(back.complete());
        assertEquals(DemoGraph.GENERATOR_VERSION, back.generatorVersion());
        assertEquals(DemoGraph.GENERATOR_VERSION, resultA.generatorVersion());
        assertTrue(DemoGraph.isPresent(a));
        assertThrows(IllegalStateException.class, () -> DemoGraph.generate(a, 10, SEED, d -> {}));

        try (Transaction tx = a.beginTx()) {
            boolean unique = false;
            for (var c : tx.schema().getConstraints(DemoGraph.OBJECT)) {
                unique |= c.isConstraintType(ConstraintType.UNIQUENESS);
            }
            assertTrue(unique, "uniqueness constraint on :Object(id)");
        }

        assertEquals(0L, progressA.get(0));
        assertEquals((long) OBJECTS, progressA.get(progressA.size() - 1));
        for (int i = 1; i < progressA.size(); i++) {
            assertTrue(progressA.get(i) > progressA.get(i - 1));
        }
    }

    @Test
    void aGraphOfAnotherGeneratorVersionSaysSo() {
        String setVersion = "MATCH (i:DemoGraphInfo) SET i.generatorVersion = $v";
        b.executeTransactionally(setVersion, Map.of("v", 1));
        try {
            assertEquals(1, DemoGraph.read(b).orElseThrow().generatorVersion());
            b.executeTransactionally("MATCH (i:DemoGraphInfo) REMOVE i.generatorVersion");
            assertEquals(0, DemoGraph.read(b).orElseThrow().generatorVersion(), "from before versions were recorded");
        } finally {
            b.executeTransactionally(setVersion, Map.of("v", DemoGraph.GENERATOR_VERSION));
        }
        assertEquals(DemoGraph.GENERATOR_VERSION, DemoGraph.read(b).orElseThrow().generatorVersion());
    }

    @Test
    void foundingSizeCountsAreThoseOfEveryGeneratorVersion() {
        // Values changed between generator versions; shapes and counts must not, so that figures stay comparable.
        DemoGraph.Result founding = DemoGraph.plan(DemoGraph.FOUNDING_OBJECTS, DemoGraph.DEFAULT_SEED);
        assertEquals(583_125, founding.nodes());
        assertEquals(583_124, founding.relationships());
        assertEquals(3_460_981, founding.properties());
        assertEquals(6, founding.maxDepth());
        DemoGraph.Result tenThousand = DemoGraph.plan(10_000, DemoGraph.DEFAULT_SEED);
        assertEquals(52_363, tenThousand.nodes());
        assertEquals(313_384, tenThousand.properties());
    }

    @Test
    void valuesRepeatLikeModelData() {
        try (Transaction tx = a.beginTx()) {
            Set<Object> weights = new HashSet<>();
            Set<Object> createdDays = new HashSet<>();
            try (var objects = tx.findNodes(DemoGraph.OBJECT)) {
                while (objects.hasNext()) {
                    Node o = objects.next();
                    weights.add(o.getProperty("weight"));
                    ZonedDateTime created = (ZonedDateTime) o.getProperty("createdAt");
                    assertEquals(java.time.LocalTime.of(2, 0), created.toLocalTime(), "the nightly import");
                    createdDays.add(created.toLocalDate());
                }
            }
            assertTrue(weights.size() <= 11, "round weights: " + weights);
            assertTrue(createdDays.size() < OBJECTS, "days repeat: " + createdDays.size());
            Map<String, Set<Object>> valuesByUnit = new TreeMap<>();
            try (var structures = tx.findNodes(DemoGraph.STRUCTURE)) {
                while (structures.hasNext()) {
                    Node s = structures.next();
                    if (s.hasProperty("unit") && s.getProperty("value", null) instanceof Double v) {
                        valuesByUnit.computeIfAbsent((String) s.getProperty("unit"), u -> new HashSet<>()).add(v);
                    }
                }
            }
            assertFalse(valuesByUnit.isEmpty());
            for (var e : valuesByUnit.entrySet()) {
                for (Object v : e.getValue()) {
                    double d = (Double) v;
                    assertEquals(d, Math.round(d * 1000) / 1000.0, 0, e.getKey() + " " + d + ": a round figure");
                }
                if (e.getKey().equals("%")) {
                    for (Object v : e.getValue()) {
                        double d = (Double) v;
                        assertTrue(d % 5 == 0 || d >= 99, "% in steps of 5 (or an availability): " + d);
                    }
                }
            }
        }
    }

    @Test
    void otherSeedGivesAnotherGraph() {
        DemoGraph.Result p1 = DemoGraph.plan(OBJECTS, SEED + 1);
        DemoGraph.Result p0 = DemoGraph.plan(OBJECTS, SEED);
        assertTrue(p1.nodes() != p0.nodes() || p1.properties() != p0.properties());
    }

    /** The Object's properties and everything hung off it through PROPERTY, keyed by relationship name/index. */
    private static Map<String, Object> describeObject(GraphDatabaseService db, long id) {
        try (Transaction tx = db.beginTx()) {
            Node o = tx.findNode(DemoGraph.OBJECT, "id", id);
            assertNotNull(o, "Object " + id);
            Map<String, Object> d = new LinkedHashMap<>(new TreeMap<>(o.getAllProperties()));
            d.put("@labels", labels(o));
            Relationship parent = o.getSingleRelationship(DemoGraph.CHILDREN, Direction.INCOMING);
            d.put("@parent", parent == null ? null : parent.getStartNode().getProperty("id"));
            d.put("@parentRel", parent == null ? null : new TreeMap<>(parent.getAllProperties()));
            d.put("@children", o.getDegree(DemoGraph.CHILDREN, Direction.OUTGOING));
            d.put("@data", describeAttached(o));
            return d;
        }
    }

    private static Map<String, Object> describeAttached(Node owner) {
        Map<String, Object> attached = new TreeMap<>();
        for (Relationship r : owner.getRelationships(Direction.OUTGOING, DemoGraph.PROPERTY)) {
            Node n = r.getEndNode();
            Map<String, Object> d = new TreeMap<>(n.getAllProperties());
            d.put("@labels", labels(n));
            d.put("@data", describeAttached(n));
            String key = r.hasProperty("index") ? "#" + r.getProperty("index") : (String) r.getProperty("name");
            assertNull(attached.put(key + " " + new TreeMap<>(r.getAllProperties()), d), "duplicate " + key);
        }
        return attached;
    }

    private static List<String> labels(Node n) {
        List<String> labels = new ArrayList<>();
        n.getLabels().forEach(l -> labels.add(l.name()));
        labels.sort(null);
        return labels;
    }

    private static long count(org.neo4j.graphdb.ResourceIterator<Node> it) {
        long c = 0;
        try (it) {
            while (it.hasNext()) {
                it.next();
                c++;
            }
        }
        return c;
    }
}
