package org.subgraphexport.server;

import java.lang.reflect.Array;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.Transaction;
import org.neo4j.values.storable.CoordinateReferenceSystem;
import org.neo4j.values.storable.DurationValue;
import org.neo4j.values.storable.PointValue;
import org.neo4j.values.storable.Values;

/**
 * The fixture every traverse test exports. Under the root (Object id 1):
 * <pre>
 *   root -CHILDREN-> a -CHILDREN-> d -CHILDREN-> root     (a cycle)
 *   root -CHILDREN-> b -CHILDREN-> d                       (d reachable by two paths)
 *   a -PROPERTY-> s1 -CHILDREN-> e                         (attached nodes are not expanded: e is outside)
 *   d -PROPERTY-> seq -PROPERTY{index:0}-> s2
 *                 seq -PROPERTY{index:1}-> s3 -PROPERTY-> s4
 * </pre>
 * Outside the default subgraph: x -CHILDREN-> y (unconnected), root -OTHER-> z, w -CHILDREN-> a (incoming),
 * and e. The root carries one property of every stored type.
 */
public final class FixtureGraph {
    /** Stored value (as given to setProperty) to the value the client must decode. */
    static final Map<String, Object[]> ALL_TYPES = new LinkedHashMap<>();

    static {
        put("bool", true, true);
        put("byte", (byte) -7, (byte) -7);
        put("short", (short) -300, (short) -300);
        put("int", 123_456, 123_456);
        put("long", Long.MIN_VALUE, Long.MIN_VALUE);
        put("float", 1.5f, 1.5f);
        put("double", -0.1, -0.1);
        put("nan", Double.NaN, Double.NaN);
        put("char", 'é', 'é');
        put("string", "héllo wörld ✓ 😀 \"quoted\" \\ \n", "héllo wörld ✓ 😀 \"quoted\" \\ \n");
        put("empty", "", "");
        String big = "αβγ-".repeat(5000);
        put("bigString", big, big);
        put("bytes", new byte[] {0, 1, -1, 127, -128}, new byte[] {0, 1, -1, 127, -128});
        put("bools", new boolean[] {true, false}, new boolean[] {true, false});
        put("shorts", new short[] {1, -2}, new short[] {1, -2});
        put("ints", new int[] {1, 2, Integer.MIN_VALUE}, new int[] {1, 2, Integer.MIN_VALUE});
        put("longs", new long[] {Long.MAX_VALUE, 0}, new long[] {Long.MAX_VALUE, 0});
        put("emptyLongs", new long[0], new long[0]);
        put("floats", new float[] {1.25f, Float.NaN, Float.NEGATIVE_INFINITY}, new float[] {1.25f, Float.NaN, Float.NEGATIVE_INFINITY});
        put("doubles", new double[] {1e300, -0.0, Double.POSITIVE_INFINITY}, new double[] {1e300, -0.0, Double.POSITIVE_INFINITY});
        put("chars", new char[] {'a', 'ß'}, new char[] {'a', 'ß'});
        put("strings", new String[] {"a", "", "ü😀"}, new String[] {"a", "", "ü😀"});
        LocalDate date = LocalDate.of(2020, 2, 29);
        LocalTime localTime = LocalTime.of(23, 59, 59, 999_999_999);
        OffsetTime time = OffsetTime.of(10, 0, 0, 1, ZoneOffset.ofHours(-5));
        LocalDateTime localDateTime = LocalDateTime.of(1969, 12, 31, 23, 59, 59, 5);
        ZonedDateTime region = ZonedDateTime.of(2021, 10, 31, 2, 30, 0, 123, ZoneId.of("Europe/Berlin"));
        ZonedDateTime offset = ZonedDateTime.of(2000, 1, 1, 0, 0, 0, 0, ZoneOffset.ofHoursMinutes(5, 30));
        put("date", date, date);
        put("localTime", localTime, localTime);
        put("time", time, time);
        put("localDateTime", localDateTime, localDateTime);
        put("dateTimeRegion", region, region);
        put("dateTimeOffset", offset, offset);
        put("dates", new LocalDate[] {date, LocalDate.of(-4000, 1, 1)}, new LocalDate[] {date, LocalDate.of(-4000, 1, 1)});
        put("localTimes", new LocalTime[] {localTime}, new LocalTime[] {localTime});
        put("times", new OffsetTime[] {time}, new OffsetTime[] {time});
        put("localDateTimes", new LocalDateTime[] {localDateTime}, new LocalDateTime[] {localDateTime});
        put("dateTimes", new ZonedDateTime[] {region, offset}, new ZonedDateTime[] {region, offset});
        put("duration", DurationValue.duration(14, -3, 5, 7), new org.subgraphexport.client.DurationValue(14, -3, 5, 7));
        put("durations", new DurationValue[] {DurationValue.duration(0, 1, -2, 0), DurationValue.duration(-1, 0, 0, 999_999_999)},
                new org.subgraphexport.client.DurationValue[] {new org.subgraphexport.client.DurationValue(0, 1, -2, 0), new org.subgraphexport.client.DurationValue(-1, 0, 0, 999_999_999)});
        put("point2d", Values.pointValue(CoordinateReferenceSystem.CARTESIAN, 1.5, -2), new org.subgraphexport.client.PointValue(7203, new double[] {1.5, -2}));
        put("point3d", Values.pointValue(CoordinateReferenceSystem.CARTESIAN_3D, 1, 2, 3), new org.subgraphexport.client.PointValue(9157, new double[] {1, 2, 3}));
        put("geo", Values.pointValue(CoordinateReferenceSystem.WGS_84, 12.5, 56.1), new org.subgraphexport.client.PointValue(4326, new double[] {12.5, 56.1}));
        put("geo3d", Values.pointValue(CoordinateReferenceSystem.WGS_84_3D, 12.5, 56.1, 100.25), new org.subgraphexport.client.PointValue(4979, new double[] {12.5, 56.1, 100.25}));
        put("points", new PointValue[] {Values.pointValue(CoordinateReferenceSystem.WGS_84, 1, 2), Values.pointValue(CoordinateReferenceSystem.WGS_84, 3, 4)},
                new org.subgraphexport.client.PointValue[] {new org.subgraphexport.client.PointValue(4326, new double[] {1, 2}), new org.subgraphexport.client.PointValue(4326, new double[] {3, 4})});
    }

    private static void put(String key, Object stored, Object decoded) {
        ALL_TYPES.put(key, new Object[] {stored, decoded});
    }

    static final RelationshipType CHILDREN = RelationshipType.withName("CHILDREN");
    static final RelationshipType PROPERTY = RelationshipType.withName("PROPERTY");

    /** Element ids by fixture name: nodes by letter, relationships as "a>d" (start>end of type CHILDREN or PROPERTY). */
    final Map<String, String> ids = new HashMap<>();

    public static FixtureGraph create(GraphDatabaseService db) {
        FixtureGraph f = new FixtureGraph();
        try (Transaction tx = db.beginTx()) {
            Node root = f.node(tx, "root", 1, "Object", "Root");
            ALL_TYPES.forEach((k, v) -> root.setProperty(k, v[0]));
            Node a = f.node(tx, "a", 2, "Object");
            Node b = f.node(tx, "b", 3, "Object");
            Node d = f.node(tx, "d", 4, "Object");
            Node e = f.node(tx, "e", 5, "Object");
            Node s1 = f.node(tx, "s1", 0, "Structure");
            s1.setProperty("unit", "mm");
            s1.setProperty("value", 1.5);
            Node seq = f.node(tx, "seq", 0, "Sequence");
            Node s2 = f.node(tx, "s2", 0, "Structure");
            Node s3 = f.node(tx, "s3", 0, "Structure");
            Node s4 = f.node(tx, "s4", 0, "Structure");
            Node x = f.node(tx, "x", 99, "Object");
            Node y = f.node(tx, "y", 98, "Object");
            Node z = f.node(tx, "z", 97, "Object");
            Node w = f.node(tx, "w", 96, "Object");
            f.rel(root, a, CHILDREN, "root>a").setProperty("since", LocalDate.of(2001, 1, 1));
            f.rel(root, b, CHILDREN, "root>b");
            f.rel(a, d, CHILDREN, "a>d");
            f.rel(b, d, CHILDREN, "b>d");
            f.rel(d, root, CHILDREN, "d>root");
            f.rel(a, s1, PROPERTY, "a>s1").setProperty("name", "dims");
            f.rel(s1, e, CHILDREN, "s1>e");
            f.rel(d, seq, PROPERTY, "d>seq").setProperty("name", "list");
            f.rel(seq, s2, PROPERTY, "seq>s2").setProperty("index", 0L);
            f.rel(seq, s3, PROPERTY, "seq>s3").setProperty("index", 1L);
            f.rel(s3, s4, PROPERTY, "s3>s4");
            f.rel(x, y, CHILDREN, "x>y");
            f.rel(root, z, RelationshipType.withName("OTHER"), "root>z");
            f.rel(w, a, CHILDREN, "w>a");
            tx.commit();
        }
        return f;
    }

    private Node node(Transaction tx, String name, long id, String... labels) {
        Node n = tx.createNode(java.util.Arrays.stream(labels).map(Label::label).toArray(Label[]::new));
        n.setProperty("name", name);
        if (id != 0) n.setProperty("id", id);
        ids.put(name, n.getElementId());
        return n;
    }

    private Relationship rel(Node from, Node to, RelationshipType type, String name) {
        Relationship r = from.createRelationshipTo(to, type);
        ids.put(name, r.getElementId());
        return r;
    }

    public String id(String name) {
        String id = ids.get(name);
        if (id == null) throw new IllegalArgumentException(name);
        return id;
    }

    List<String> ids(String... names) {
        List<String> result = new ArrayList<>();
        for (String n : names) result.add(id(n));
        return result;
    }

    /** Arrays compared by content, recursively; everything else by equals. */
    static boolean deepEquals(Object expected, Object actual) {
        if (expected == null || actual == null) return expected == actual;
        if (expected.getClass().isArray()) {
            if (!actual.getClass().equals(expected.getClass())) return false;
            int n = Array.getLength(expected);
            if (n != Array.getLength(actual)) return false;
            for (int i = 0; i < n; i++) {
                if (!deepEquals(Array.get(expected, i), Array.get(actual, i))) return false;
            }
            return true;
        }
        return expected.equals(actual);
    }
}
