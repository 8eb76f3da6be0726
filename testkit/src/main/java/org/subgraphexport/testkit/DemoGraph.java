package org.subgraphexport.testkit;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.Transaction;
import org.neo4j.graphdb.schema.ConstraintDefinition;
import org.neo4j.graphdb.schema.ConstraintType;

/**
 * Deterministic generator of a graph shaped like the founding case (see REFERENCE.md).
 *
 * <h2>Shape</h2>
 * <ul>
 *   <li>{@code (:Object)} nodes with a unique {@code id} (1..objects; the root has {@code id = 1}), {@code type} (one of
 *       {@link #TYPES}, chosen by depth), {@code name}, {@code status}, {@code version} (int), {@code weight} (double),
 *       {@code active} (boolean), {@code createdAt} (a UTC {@code DATETIME}) and {@code externalId} (a UUID string).</li>
 *   <li>The Objects form one tree: {@code (parent:Object)-[:CHILDREN]->(child:Object)}. Ids are assigned breadth first;
 *       every Object that has children gets 2..12 of them, so the depth ends around 5..7.</li>
 *   <li>Each Object carries nested data hung off it through {@code -[:PROPERTY {name}]->}: {@code (:Structure)} nodes
 *       (map-like: {@code kind}, {@code value}, {@code unit}, {@code domain}, ...) and {@code (:Sequence)} nodes (an
 *       ordered list: {@code -[:PROPERTY {index: 0..n-1}]->(:Structure)}). Nesting is one or two levels below the
 *       Object: a Structure may have sub-Structures (composites, limits), a Sequence has Structure elements.</li>
 *   <li>Outside the tree, one {@code (:DemoGraphInfo)} node records the generation parameters and exact counts. It is
 *       written in the same transaction as the last batch, so its presence means the graph is complete. It is not
 *       counted in {@link Result}.</li>
 * </ul>
 * Every relationship of the graph is reachable from the root, so {@code nodes = relationships + 1}.
 *
 * <h2>Values</h2>
 * Values repeat the way model data does, so that compressed sizes mean something: type names, kinds, keys, units and
 * enumerations come from small vocabularies; numbers are round or standard sizes (whole degrees, steps of 5 %,
 * standard cable lengths, typical port speeds); locations are a few sites per city; timestamps are the nightly import
 * (02:00 UTC) of one of ~3,650 days; IP addresses fall in a few subnets. What is unique in real data is unique here
 * too: {@code id}, {@code externalId} and serial numbers.
 *
 * <h2>Determinism</h2>
 * The tree comes from one random stream seeded with {@code seed}; the content of each Object (and everything hung
 * off it) comes from a stream seeded with {@code (seed, id)}, so an Object's data does not depend on the batch size.
 * Same {@code (objects, seed)} gives the same graph, property for property, in the same creation order.
 *
 * <h2>Size</h2>
 * With the default seed, {@link #FOUNDING_OBJECTS} Objects give 583,125 nodes, 583,124 relationships and 3,460,981
 * property values (nodes and relationships together), depth 6: about 6 nodes and 36 property values per Object, as in
 * the founding case. Types depend on depth, so smaller (shallower) trees carry a little less data per Object: 10,000
 * Objects give 52,363 nodes and 313,384 property values. {@link #plan} computes the exact counts without a database.
 */
public final class DemoGraph {

    public static final Label OBJECT = Label.label("Object");
    public static final Label STRUCTURE = Label.label("Structure");
    public static final Label SEQUENCE = Label.label("Sequence");
    public static final Label INFO = Label.label("DemoGraphInfo");
    public static final RelationshipType CHILDREN = RelationshipType.withName("CHILDREN");
    public static final RelationshipType PROPERTY = RelationshipType.withName("PROPERTY");

    /** The {@code id} property of the root Object. */
    public static final long ROOT_ID = 1L;
    /** Objects under the root in the founding case. */
    public static final int FOUNDING_OBJECTS = 97_254;
    public static final int DEFAULT_OBJECTS = 10_000;
    public static final long DEFAULT_SEED = 20140613L;
    /** Nodes per write transaction (a batch ends at the first Object boundary after this many nodes). */
    public static final int DEFAULT_BATCH_NODES = 10_000;
    public static final String CONSTRAINT_NAME = "demo_object_id";

    /**
     * The best Cypher for this graph's subgraph, the one the benchmarks give every alternative: one row per Object
     * under the root (root included), with its outgoing CHILDREN relationships and its attached data (every PROPERTY
     * relationship below it and the node it leads to) as COLLECT subqueries. It returns exactly the traverse
     * endpoint's subgraph (the graph is a tree). Parameter {@code $root}: the root's element id.
     */
    public static final String SUBGRAPH_QUERY = """
            MATCH (root) WHERE elementId(root) = $root
            MATCH (root)-[:CHILDREN]->*(o)
            RETURN o,
              COLLECT { MATCH (o)-[c:CHILDREN]->() RETURN c } AS children,
              COLLECT { MATCH (o)-[:PROPERTY]->*()-[r:PROPERTY]->(x) RETURN [r, x] } AS attached""";
    /**
     * Bumped whenever a change alters the generated graph for a given (objects, seed). 1: the first generator. 2: the
     * same shapes and counts, values that repeat like model data (round numbers, standard sizes, shared site
     * coordinates, night-import timestamps, fewer subnets) instead of uniformly random decimals.
     */
    public static final int GENERATOR_VERSION = 2;

    /** The Object types, in the order of the depth they typically appear at. */
    public static final String[] TYPES = {
        "Network", "Region", "Site", "Building", "Room", "Rack", "Router", "Switch", "Shelf", "PowerSupply",
        "Card", "Slot", "Fan", "Port", "Transceiver", "Interface", "Link", "Cable", "Antenna", "Service"
    };
    public static final String[] STATUSES = {"ACTIVE", "PLANNED", "INACTIVE", "MAINTENANCE", "RETIRED"};

    /**
     * What was generated (or found).
     *
     * @param rootElementId element id of the root Object; {@code null} for a {@linkplain #plan dry run}
     * @param rootId the root's {@code id} property ({@link #ROOT_ID})
     * @param objects number of Object nodes, root included
     * @param seed the seed; -1 if unknown (graph without its info node)
     * @param nodes nodes of the demo graph (Objects, Structures, Sequences)
     * @param relationships relationships of the demo graph (CHILDREN and PROPERTY)
     * @param properties property values on those nodes and relationships
     * @param maxDepth depth of the deepest Object (root = 0); -1 if unknown
     * @param complete false if the graph has no info node (generation interrupted, or not ours); counts then come
     *     from the count store and {@code properties} is -1
     * @param elapsed time the generation took; read back from the info node, it lacks the last commit
     * @param generatorVersion the {@link #GENERATOR_VERSION} that generated the graph (0 for a graph from before the
     *     version was recorded, -1 if unknown: graph without its info node). A graph of another version has other
     *     values: compare it before reusing a stored graph
     */
    public record Result(
            String rootElementId,
            long rootId,
            long objects,
            long seed,
            long nodes,
            long relationships,
            long properties,
            int maxDepth,
            boolean complete,
            Duration elapsed,
            int generatorVersion) {}

    private DemoGraph() {}

    // ------------------------------------------------------------------------------------------------------------
    // Public API

    /** Generates with {@link #DEFAULT_BATCH_NODES} nodes per transaction. */
    public static Result generate(GraphDatabaseService db, int objects, long seed, LongConsumer progress) {
        return generate(db, objects, seed, DEFAULT_BATCH_NODES, progress);
    }

    /**
     * Creates the uniqueness constraint on {@code :Object(id)} (if missing), then the graph, in transactions of about
     * {@code batchNodes} nodes. {@code progress} receives the number of Objects committed so far, after each
     * transaction (0 first); an exception thrown by it stops the generation, leaving the committed batches in place
     * without the info node ({@link #read} then reports {@code complete = false}).
     *
     * @throws IllegalStateException if the database already holds an Object with {@code id = 1}
     */
    public static Result generate(
            GraphDatabaseService db, int objects, long seed, int batchNodes, LongConsumer progress) {
        if (objects < 1) {
            throw new IllegalArgumentException("objects must be >= 1: " + objects);
        }
        if (batchNodes < 1) {
            throw new IllegalArgumentException("batchNodes must be >= 1: " + batchNodes);
        }
        Objects.requireNonNull(progress, "progress");
        long start = System.nanoTime();
        if (isPresent(db)) {
            throw new IllegalStateException("the database already holds an Object with id " + ROOT_ID);
        }
        ensureConstraint(db);
        progress.accept(0);

        Tree tree = Tree.build(objects, seed);
        DbOut out = new DbOut(objects);
        Gen gen = new Gen(out);
        String rootElementId = null;
        int i = 0;
        while (i < objects) {
            int batchStart = i;
            try (Transaction tx = db.beginTx()) {
                out.begin(tx, batchStart);
                long nodesAtStart = gen.nodes;
                while (i < objects && gen.nodes - nodesAtStart < batchNodes) {
                    gen.object(tree, i, seed);
                    i++;
                }
                if (i == objects) {
                    Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
                    rootElementId = out.objectElementIds[0];
                    writeInfo(tx, gen, objects, seed, tree.maxDepth, elapsed);
                }
                tx.commit();
            } finally {
                out.end(batchStart, i);
            }
            progress.accept(i);
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        return new Result(rootElementId, ROOT_ID, objects, seed, gen.nodes, gen.rels, gen.props, tree.maxDepth, true,
                elapsed, GENERATOR_VERSION);
    }

    /**
     * Computes what {@link #generate} would create, without a database: exact counts, {@code rootElementId == null}.
     */
    public static Result plan(int objects, long seed) {
        if (objects < 1) {
            throw new IllegalArgumentException("objects must be >= 1: " + objects);
        }
        long start = System.nanoTime();
        Tree tree = Tree.build(objects, seed);
        Gen gen = new Gen(new CountingOut());
        for (int i = 0; i < objects; i++) {
            gen.object(tree, i, seed);
        }
        return new Result(
                null, ROOT_ID, objects, seed, gen.nodes, gen.rels, gen.props, tree.maxDepth, true,
                Duration.ofNanos(System.nanoTime() - start), GENERATOR_VERSION);
    }

    /** True if the database holds a root Object ({@code id = 1}), complete or not. */
    public static boolean isPresent(GraphDatabaseService db) {
        try (Transaction tx = db.beginTx()) {
            return tx.findNode(OBJECT, "id", ROOT_ID) != null;
        }
    }

    /**
     * Reads back the {@link Result} of a graph generated earlier: exact counts and the generator version from its info
     * node, or, if the info node is missing (interrupted generation), counts of the whole database from the count
     * store with {@code complete = false}. Empty if there is no root Object. A graph generated by another
     * {@link #GENERATOR_VERSION} is reported as it is ({@link Result#generatorVersion()}); callers that reuse stored
     * graphs for measurements must check it.
     */
    public static Optional<Result> read(GraphDatabaseService db) {
        try (Transaction tx = db.beginTx()) {
            Node root = tx.findNode(OBJECT, "id", ROOT_ID);
            if (root == null) {
                return Optional.empty();
            }
            String rootElementId = root.getElementId();
            try (var infos = tx.findNodes(INFO)) {
                if (infos.hasNext()) {
                    Node info = infos.next();
                    return Optional.of(new Result(
                            rootElementId,
                            ROOT_ID,
                            ((Number) info.getProperty("objects")).longValue(),
                            ((Number) info.getProperty("seed")).longValue(),
                            ((Number) info.getProperty("nodes")).longValue(),
                            ((Number) info.getProperty("relationships")).longValue(),
                            ((Number) info.getProperty("properties")).longValue(),
                            ((Number) info.getProperty("maxDepth")).intValue(),
                            true,
                            Duration.ofMillis(((Number) info.getProperty("elapsedMillis")).longValue()),
                            ((Number) info.getProperty("generatorVersion", 0)).intValue()));
                }
            }
            // Count store: O(1) per query.
            long objects = count(tx, "MATCH (o:Object) RETURN count(o) AS c");
            long nodes = count(tx, "MATCH (n) RETURN count(n) AS c");
            long rels = count(tx, "MATCH ()-[r]->() RETURN count(r) AS c");
            return Optional.of(
                    new Result(rootElementId, ROOT_ID, objects, -1, nodes, rels, -1, -1, false, Duration.ZERO, -1));
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // Database plumbing

    private static long count(Transaction tx, String query) {
        try (var result = tx.execute(query)) {
            return ((Number) result.next().get("c")).longValue();
        }
    }

    private static void ensureConstraint(GraphDatabaseService db) {
        try (Transaction tx = db.beginTx()) {
            boolean exists = false;
            for (ConstraintDefinition c : tx.schema().getConstraints(OBJECT)) {
                if (c.isConstraintType(ConstraintType.UNIQUENESS)
                        && Arrays.equals(toArray(c.getPropertyKeys()), new String[] {"id"})) {
                    exists = true;
                }
            }
            if (!exists) {
                tx.schema()
                        .constraintFor(OBJECT)
                        .assertPropertyIsUnique("id")
                        .withName(CONSTRAINT_NAME)
                        .create();
            }
            tx.commit();
        }
        try (Transaction tx = db.beginTx()) {
            tx.schema().awaitIndexesOnline(2, TimeUnit.MINUTES);
            tx.commit();
        }
    }

    private static String[] toArray(Iterable<String> keys) {
        var list = new java.util.ArrayList<String>();
        keys.forEach(list::add);
        return list.toArray(String[]::new);
    }

    private static void writeInfo(Transaction tx, Gen gen, int objects, long seed, int maxDepth, Duration elapsed) {
        Node info = tx.createNode(INFO);
        info.setProperty("generator", "org.subgraphexport.testkit.DemoGraph");
        info.setProperty("generatorVersion", GENERATOR_VERSION);
        info.setProperty("objects", (long) objects);
        info.setProperty("seed", seed);
        info.setProperty("rootId", ROOT_ID);
        info.setProperty("nodes", gen.nodes);
        info.setProperty("relationships", gen.rels);
        info.setProperty("properties", gen.props);
        info.setProperty("maxDepth", maxDepth);
        info.setProperty("elapsedMillis", elapsed.toMillis());
        info.setProperty("createdAt", ZonedDateTime.now(ZoneOffset.UTC));
    }

    /** Where the generator writes. Entities are opaque handles. */
    private interface Out {
        Object node(Label label);

        void property(Object entity, String key, Object value);

        Object relationship(Object from, Object to, RelationshipType type);

        /** The node of Object number {@code index} (0-based), created earlier. */
        Object objectNode(int index);

        void objectCreated(int index, Object node);
    }

    private static final class CountingOut implements Out {
        private static final Object HANDLE = new Object();

        @Override
        public Object node(Label label) {
            return HANDLE;
        }

        @Override
        public void property(Object entity, String key, Object value) {}

        @Override
        public Object relationship(Object from, Object to, RelationshipType type) {
            return HANDLE;
        }

        @Override
        public Object objectNode(int index) {
            return HANDLE;
        }

        @Override
        public void objectCreated(int index, Object node) {}
    }

    private static final class DbOut implements Out {
        final String[] objectElementIds;
        final Node[] objectNodesInTx;
        Transaction tx;
        int batchStart;

        DbOut(int objects) {
            objectElementIds = new String[objects];
            objectNodesInTx = new Node[objects];
        }

        void begin(Transaction tx, int batchStart) {
            this.tx = tx;
            this.batchStart = batchStart;
        }

        void end(int from, int to) {
            Arrays.fill(objectNodesInTx, from, to, null);
            tx = null;
        }

        @Override
        public Object node(Label label) {
            return tx.createNode(label);
        }

        @Override
        public void property(Object entity, String key, Object value) {
            ((org.neo4j.graphdb.Entity) entity).setProperty(key, value);
        }

        @Override
        public Object relationship(Object from, Object to, RelationshipType type) {
            return ((Node) from).createRelationshipTo((Node) to, type);
        }

        @Override
        public Object objectNode(int index) {
            if (index >= batchStart) {
                return objectNodesInTx[index];
            }
            return tx.getNodeByElementId(objectElementIds[index]);
        }

        @Override
        public void objectCreated(int index, Object node) {
            objectNodesInTx[index] = (Node) node;
            objectElementIds[index] = ((Node) node).getElementId();
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // The tree

    /** Parent, depth and sibling ordinal of each Object (index = id - 1), assigned breadth first. */
    private static final class Tree {
        final int[] parent;
        final byte[] depth;
        final short[] ordinal;
        int maxDepth;

        private Tree(int objects) {
            parent = new int[objects];
            depth = new byte[objects];
            ordinal = new short[objects];
        }

        static Tree build(int objects, long seed) {
            Tree t = new Tree(objects);
            t.parent[0] = -1;
            t.ordinal[0] = 1;
            SplittableRandom r = new SplittableRandom(seed);
            int next = 1;
            for (int i = 0; next < objects; i++) {
                int fanOut = Math.min(2 + r.nextInt(11), objects - next); // 2..12
                for (int j = 0; j < fanOut; j++, next++) {
                    t.parent[next] = i;
                    t.depth[next] = (byte) (t.depth[i] + 1);
                    t.ordinal[next] = (short) (j + 1);
                }
            }
            for (byte d : t.depth) {
                t.maxDepth = Math.max(t.maxDepth, d);
            }
            return t;
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // Content

    private static final long EPOCH_2015 = Instant.parse("2015-01-01T00:00:00Z").getEpochSecond();
    private static final long TEN_YEARS_SECONDS = 10L * 365 * 24 * 3600;

    /** Types by depth; deeper than the table uses the last row. */
    private static final String[][] TYPES_BY_DEPTH = {
        {"Network"},
        {"Region", "Region", "Site"},
        {"Site", "Building", "Building", "Room"},
        {"Rack", "Rack", "Router", "Switch", "Room"},
        {"Shelf", "Router", "Switch", "PowerSupply", "Rack"},
        {"Card", "Card", "Slot", "Fan", "PowerSupply", "Shelf"},
        {"Port", "Port", "Port", "Transceiver", "Interface", "Card"},
        {"Interface", "Port", "Link", "Cable", "Antenna", "Service"},
    };

    /** The attributes each type may carry (each present with probability {@link #ATTRIBUTE_PROBABILITY}). */
    private static final Map<String, String[]> ATTRIBUTES_BY_TYPE = Map.ofEntries(
            Map.entry("Network", new String[] {"location", "operState", "sla", "tags", "contact"}),
            Map.entry("Region", new String[] {"location", "contact", "tags", "operState"}),
            Map.entry("Site", new String[] {"location", "contact", "dimensions", "powerConsumption", "tags"}),
            Map.entry("Building", new String[] {"location", "dimensions", "contact", "temperature"}),
            Map.entry("Room", new String[] {"dimensions", "temperature", "powerConsumption", "tags"}),
            Map.entry("Rack", new String[] {"dimensions", "weightSpec", "powerConsumption", "slots", "serialNumber"}),
            Map.entry("Router", new String[] {
                "vendor", "serialNumber", "firmware", "operState", "adminState", "ipAddresses", "powerConsumption",
                "alarms"
            }),
            Map.entry("Switch", new String[] {
                "vendor", "serialNumber", "firmware", "operState", "adminState", "vlans", "powerConsumption", "alarms"
            }),
            Map.entry("Shelf", new String[] {"serialNumber", "slots", "temperature", "powerConsumption", "operState"}),
            Map.entry("PowerSupply", new String[] {
                "voltage", "powerConsumption", "operState", "serialNumber", "temperature"
            }),
            Map.entry("Card", new String[] {
                "vendor", "serialNumber", "firmware", "operState", "temperature", "slots", "alarms"
            }),
            Map.entry("Slot", new String[] {"operState", "adminState", "portType", "dimensions"}),
            Map.entry("Fan", new String[] {"fanSpeed", "operState", "temperature", "serialNumber"}),
            Map.entry("Port", new String[] {
                "portType", "speed", "mtu", "operState", "adminState", "opticalPower", "vlans", "alarms"
            }),
            Map.entry("Transceiver", new String[] {
                "portType", "vendor", "serialNumber", "opticalPower", "wavelength", "temperature"
            }),
            Map.entry("Interface", new String[] {"ipAddresses", "mtu", "speed", "operState", "adminState", "utilization"}),
            Map.entry("Link", new String[] {"capacity", "utilization", "operState", "sla", "latency"}),
            Map.entry("Cable", new String[] {"length", "portType", "vendor", "serialNumber"}),
            Map.entry("Antenna", new String[] {"frequency", "gain", "location", "operState"}),
            Map.entry("Service", new String[] {"sla", "vlans", "operState", "capacity", "contact"}));

    static final double ATTRIBUTE_PROBABILITY = 0.478;

    private static final String[] SOURCES = {"measured", "configured", "nominal", "inventory"};
    private static final String[] FIRMWARE = {"7.1.2", "7.2.0", "8.0.1", "8.0.3", "9.1.0", "10.2.4", "22.3R1", "23.4R2"};
    private static final String[] TAGS = {
        "core", "edge", "access", "backbone", "metro", "lab", "customer", "critical", "legacy", "5g", "fttx", "dwdm"
    };
    private static final String[] CITIES = {
        "Berlin", "Hamburg", "Munich", "Cologne", "Frankfurt", "Stuttgart", "Leipzig", "Dresden", "Hanover", "Bremen"
    };
    private static final String[] ALARM_CODES = {
        "LOS", "LOF", "AIS", "RDI", "BER-SD", "BER-SF", "TEMP-HIGH", "FAN-FAIL", "PSU-FAIL", "LINK-DOWN"
    };
    private static final String[] SEVERITIES = {"CRITICAL", "MAJOR", "MINOR", "WARNING", "CLEARED"};
    /** Latitude and longitude of {@link #CITIES}, two decimals. */
    private static final double[][] CITY_COORDINATES = {
        {52.52, 13.40}, {53.55, 9.99}, {48.14, 11.58}, {50.94, 6.96}, {50.11, 8.68},
        {48.78, 9.18}, {51.34, 12.37}, {51.05, 13.74}, {52.37, 9.74}, {53.08, 8.80}
    };
    /** Standard cable lengths in metres. */
    private static final double[] CABLE_LENGTHS = {0.5, 1, 2, 3, 5, 10, 15, 20, 30, 50, 100, 250, 500, 1000, 2000};
    /** The Objects' {@code weight}: round figures. */
    private static final double[] WEIGHTS = {0.5, 1, 2, 2.5, 5, 10, 12.5, 20, 25, 50, 100};

    /** Emits one attribute: a Structure or Sequence attached to {@code owner} by {@code -[:PROPERTY {name}]->}. */
    private interface Attr {
        void emit(Gen g, Object owner, String name);
    }

    private static final Map<String, Attr> CATALOG = Map.ofEntries(
            Map.entry("operState", enumeration("OperState", "UP", "UP", "UP", "DOWN", "TESTING", "DORMANT")),
            Map.entry("adminState", enumeration("AdminState", "UNLOCKED", "UNLOCKED", "LOCKED", "SHUTTING_DOWN")),
            Map.entry("vendor", enumeration("Vendor", "Nokia", "Ericsson", "Cisco", "Juniper", "Huawei", "Ciena")),
            Map.entry("portType", enumeration("PortType", "RJ45", "SFP", "SFP+", "SFP28", "QSFP28", "QSFP-DD", "LC")),
            Map.entry("serialNumber", (g, owner, name) -> {
                Object s = g.structure(owner, name, "Identifier");
                g.p(s, "scheme", "serial");
                g.p(s, "value", serial(g.r));
            }),
            Map.entry("firmware", (g, owner, name) -> {
                Object s = g.structure(owner, name, "Text");
                g.p(s, "value", pick(g.r, FIRMWARE));
                g.p(s, "source", "inventory");
            }),
            Map.entry("powerConsumption", quantity("W", new double[] {15, 25, 40, 65, 120, 250, 450, 800}, true)),
            Map.entry("temperature", quantity("Cel", 18, 75, 1, true)),           // whole degrees
            Map.entry("voltage", quantity("V", new double[] {12, 48, 48, 230}, false)),
            Map.entry("speed", quantity("Gbit/s", new double[] {1, 10, 10, 25, 40, 100, 100, 400}, false)),
            Map.entry("capacity", quantity("Gbit/s", new double[] {10, 100, 200, 400, 800}, true)),
            Map.entry("utilization", quantity("%", 0, 100, 5, true)),             // steps of 5 %
            Map.entry("weightSpec", quantity("kg", 5, 350, 5, false)),
            Map.entry("fanSpeed", quantity("rpm", new double[] {3000, 4500, 6000, 9000, 12000}, true)),
            Map.entry("wavelength", quantity("nm", new double[] {850, 1310, 1550, 1550.12, 1551.72}, false)),
            Map.entry("frequency", quantity("MHz", new double[] {700, 800, 1800, 2100, 2600, 3500}, false)),
            Map.entry("gain", quantity("dBi", 2, 21, 1, false)),
            Map.entry("length", standardQuantity("m", CABLE_LENGTHS, false)),
            Map.entry("latency", quantity("ms", 0.5, 80, 0.5, true)),
            Map.entry("mtu", (g, owner, name) -> {
                Object s = g.structure(owner, name, "Counter");
                g.p(s, "unit", "byte");
                g.p(s, "value", (long) pick(g.r, new int[] {1500, 1500, 9000, 9216}));
                g.p(s, "source", "configured");
            }),
            Map.entry("opticalPower", (g, owner, name) -> {
                Object s = g.structure(owner, name, "Range");
                g.p(s, "unit", "dBm");
                double min = snap(-40 + g.r.nextDouble() * 20, 1);
                g.p(s, "min", min);
                g.p(s, "max", snap(min + 20 + g.r.nextDouble() * 5, 1));
                g.p(s, "source", pick(g.r, SOURCES));
            }),
            Map.entry("location", composite("GeoLocation", (g, s) -> {
                int city = g.r.nextInt(CITIES.length);
                g.p(s, "city", CITIES[city]);
                // One of a few sites per city: the city's coordinates moved by -0.05..0.05 degrees in steps of 0.01.
                Object lat = g.structure(s, "latitude", "Quantity");
                g.p(lat, "unit", "deg");
                g.p(lat, "value", round(CITY_COORDINATES[city][0] + round(g.r.nextDouble() * 0.1 - 0.05, 2), 2));
                Object lon = g.structure(s, "longitude", "Quantity");
                g.p(lon, "unit", "deg");
                g.p(lon, "value", round(CITY_COORDINATES[city][1] + round(g.r.nextDouble() * 0.1 - 0.05, 2), 2));
            })),
            Map.entry("dimensions", composite("Dimensions", (g, s) -> {
                g.p(s, "unit", "mm");
                for (String part : new String[] {"width", "height", "depth"}) {
                    Object q = g.structure(s, part, "Quantity");
                    g.p(q, "unit", "mm");
                    g.p(q, "value", (double) pick(g.r, new int[] {44, 88, 445, 482, 600, 800, 1000, 2000}));
                }
            })),
            Map.entry("contact", composite("Contact", (g, s) -> {
                g.p(s, "role", pick(g.r, new String[] {"owner", "operations", "field-service"}));
                g.p(s, "value", "noc-" + pick(g.r, CITIES).toLowerCase() + "@example.net");
            })),
            Map.entry("sla", composite("ServiceLevel", (g, s) -> {
                g.p(s, "tier", pick(g.r, new String[] {"GOLD", "SILVER", "BRONZE"}));
                Object a = g.structure(s, "availability", "Quantity");
                g.p(a, "unit", "%");
                g.p(a, "value", pick(g.r, new double[] {99.0, 99.9, 99.95, 99.99, 99.999}));
            })),
            Map.entry("tags", list("Text", 1, 4, (g, e, i) -> g.p(e, "value", pick(g.r, TAGS)))),
            Map.entry("slots", list("SlotRef", 2, 4, (g, e, i) -> {
                g.p(e, "value", "1/" + (i + 1));
                g.p(e, "occupied", g.r.nextInt(4) != 0);
            })),
            Map.entry("ipAddresses", list("IPv4Address", 1, 3, (g, e, i) -> {
                // A few management subnets (10.0-3.0-31.0/24), hosts within them.
                g.p(e, "value", "10." + g.r.nextInt(256) % 4 + "." + g.r.nextInt(256) % 32 + "." + (1 + g.r.nextInt(254)));
                g.p(e, "prefixLength", (long) (24 + g.r.nextInt(7)));
            })),
            Map.entry("vlans", list("Vlan", 1, 4, (g, e, i) -> {
                long vlan = 100 + g.r.nextInt(40) * 10L;
                g.p(e, "value", vlan);
                g.p(e, "name", "VLAN-" + vlan);
            })),
            Map.entry("alarms", list("Alarm", 1, 3, (g, e, i) -> {
                g.p(e, "value", pick(g.r, ALARM_CODES));
                g.p(e, "severity", pick(g.r, SEVERITIES));
                g.p(e, "acknowledged", g.r.nextBoolean());
            })));

    static {
        for (var e : ATTRIBUTES_BY_TYPE.entrySet()) {
            for (String a : e.getValue()) {
                if (!CATALOG.containsKey(a)) {
                    throw new ExceptionInInitializerError("type " + e.getKey() + " uses unknown attribute " + a);
                }
            }
        }
        for (String[] row : TYPES_BY_DEPTH) {
            for (String t : row) {
                if (!ATTRIBUTES_BY_TYPE.containsKey(t)) {
                    throw new ExceptionInInitializerError("type without attributes: " + t);
                }
            }
        }
    }

    private static Attr enumeration(String domain, String... values) {
        return (g, owner, name) -> {
            Object s = g.structure(owner, name, "Enumeration");
            g.p(s, "domain", domain);
            g.p(s, "value", pick(g.r, values));
        };
    }

    /** A Quantity from a pool of typical values; with {@code limits}, sometimes a nested Range of limits. */
    private static Attr quantity(String unit, double[] pool, boolean limits) {
        return (g, owner, name) -> quantityStructure(g, owner, name, unit, pick(g.r, pool), limits);
    }

    /** A Quantity uniformly in [min, max], rounded to a multiple of {@code step} (a power of two or an integer). */
    private static Attr quantity(String unit, double min, double max, double step, boolean limits) {
        return (g, owner, name) ->
                quantityStructure(g, owner, name, unit, snap(min + g.r.nextDouble() * (max - min), step), limits);
    }

    /**
     * A Quantity from a list of standard sizes, drawn with one {@code nextDouble} (the draw a uniform Quantity makes,
     * so that the random stream, and with it the graph's shape, is that of generator version 1).
     */
    private static Attr standardQuantity(String unit, double[] sizes, boolean limits) {
        return (g, owner, name) -> quantityStructure(g, owner, name, unit, pickBy(g.r.nextDouble(), sizes), limits);
    }

    private static void quantityStructure(Gen g, Object owner, String name, String unit, double value, boolean limits) {
        Object s = g.structure(owner, name, "Quantity");
        g.p(s, "unit", unit);
        g.p(s, "value", value);
        g.p(s, "source", pick(g.r, SOURCES));
        if (limits && g.r.nextInt(3) == 0) {
            Object l = g.structure(s, "limits", "Range");
            g.p(l, "unit", unit);
            g.p(l, "min", round(value * 0.5, 2));
            g.p(l, "max", round(value * 1.5, 2));
        }
    }

    private interface Parts {
        void emit(Gen g, Object structure);
    }

    private static Attr composite(String type, Parts parts) {
        return (g, owner, name) -> {
            Object s = g.structure(owner, name, "Composite");
            g.p(s, "type", type);
            parts.emit(g, s);
        };
    }

    private interface Element {
        void emit(Gen g, Object element, int index);
    }

    private static Attr list(String elementKind, int min, int max, Element element) {
        return (g, owner, name) -> {
            int size = min + g.r.nextInt(max - min + 1);
            Object seq = g.node(SEQUENCE);
            Object rel = g.rel(owner, seq, PROPERTY);
            g.p(rel, "name", name);
            g.p(seq, "kind", "List");
            g.p(seq, "elementKind", elementKind);
            g.p(seq, "size", (long) size);
            g.p(seq, "readOnly", g.r.nextInt(4) == 0);
            for (int i = 0; i < size; i++) {
                Object e = g.node(STRUCTURE);
                Object r = g.rel(seq, e, PROPERTY);
                g.p(r, "index", (long) i);
                g.p(e, "kind", elementKind);
                element.emit(g, e, i);
            }
        };
    }

    /** Generation state: the output, the current Object's random stream and the counts. */
    private static final class Gen {
        final Out out;
        SplittableRandom r;
        long nodes;
        long rels;
        long props;

        Gen(Out out) {
            this.out = out;
        }

        Object node(Label label) {
            nodes++;
            return out.node(label);
        }

        Object rel(Object from, Object to, RelationshipType type) {
            rels++;
            return out.relationship(from, to, type);
        }

        void p(Object entity, String key, Object value) {
            props++;
            out.property(entity, key, value);
        }

        Object structure(Object owner, String name, String kind) {
            Object s = node(STRUCTURE);
            Object rel = rel(owner, s, PROPERTY);
            p(rel, "name", name);
            p(s, "kind", kind);
            p(s, "readOnly", r.nextInt(4) == 0);
            return s;
        }

        /** Object number {@code index} (id = index + 1), its CHILDREN relationship from its parent and its data. */
        void object(Tree tree, int index, long seed) {
            long id = index + 1L;
            r = new SplittableRandom(mix(seed, id));
            int depth = tree.depth[index];
            String[] candidates = TYPES_BY_DEPTH[Math.min(depth, TYPES_BY_DEPTH.length - 1)];
            String type = pick(r, candidates);

            Object o = node(OBJECT);
            p(o, "id", id);
            p(o, "type", type);
            p(o, "name", index == 0 ? "Root " + type : type + " " + tree.ordinal[index]);
            p(o, "status", STATUSES[weighted(r)]);
            p(o, "version", 1 + r.nextInt(40));
            p(o, "weight", pickBy(r.nextDouble(), WEIGHTS));
            p(o, "active", r.nextInt(8) != 0);
            p(o, "createdAt", ZonedDateTime.ofInstant(
                    Instant.ofEpochSecond(importNight(EPOCH_2015 + r.nextLong(TEN_YEARS_SECONDS))), ZoneOffset.UTC));
            p(o, "externalId", uuid(r));
            out.objectCreated(index, o);
            if (index > 0) {
                Object children = rel(out.objectNode(tree.parent[index]), o, CHILDREN);
                p(children, "position", (int) tree.ordinal[index]);
            }
            for (String attribute : ATTRIBUTES_BY_TYPE.get(type)) {
                if (r.nextDouble() < ATTRIBUTE_PROBABILITY) {
                    CATALOG.get(attribute).emit(this, o, attribute);
                }
            }
        }
    }

    /** Status distribution: mostly ACTIVE. */
    private static int weighted(SplittableRandom r) {
        int x = r.nextInt(20);
        return x < 14 ? 0 : x < 16 ? 1 : x < 18 ? 2 : x < 19 ? 3 : 4;
    }

    private static long mix(long seed, long id) {
        long z = seed * 0x9E3779B97F4A7C15L + id * 0xC2B2AE3D27D4EB4FL;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** A random (version 4 shaped) UUID string drawn from {@code r}. */
    private static String uuid(SplittableRandom r) {
        long msb = (r.nextLong() & ~0xF000L) | 0x4000L;
        long lsb = (r.nextLong() & ~(3L << 62)) | (1L << 63);
        return new UUID(msb, lsb).toString();
    }

    private static String serial(SplittableRandom r) {
        String hex = Long.toHexString(r.nextLong() & 0xFFFFFFFFFFL).toUpperCase(java.util.Locale.ROOT);
        return "SN" + "0".repeat(10 - hex.length()) + hex;
    }

    private static String pick(SplittableRandom r, String[] values) {
        return values[r.nextInt(values.length)];
    }

    private static double pick(SplittableRandom r, double[] values) {
        return values[r.nextInt(values.length)];
    }

    private static int pick(SplittableRandom r, int[] values) {
        return values[r.nextInt(values.length)];
    }

    /** The element of {@code values} that a uniform draw {@code u} in [0, 1) falls on. */
    private static double pickBy(double u, double[] values) {
        return values[Math.min(values.length - 1, (int) (u * values.length))];
    }

    /** {@code v} rounded to a multiple of {@code step}; exact for integer steps and powers of two. */
    private static double snap(double v, double step) {
        return Math.round(v / step) * step;
    }

    /** 02:00 UTC of the day of {@code epochSecond}: the nightly import that created the Object. */
    private static long importNight(long epochSecond) {
        return epochSecond - Math.floorMod(epochSecond, 86_400L) + 2 * 3_600L;
    }

    private static double round(double v, int decimals) {
        double scale = Math.pow(10, decimals);
        return Math.round(v * scale) / scale;
    }
}
