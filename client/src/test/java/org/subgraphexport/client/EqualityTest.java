package org.subgraphexport.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.subgraphexport.wire.ValueSink.VectorKind;

/**
 * Node, relationship and row records and vector and point values are equal to others with the same components (arrays
 * by content), hash alike, and hash apart from ones that differ in any one component; their string forms are exact,
 * as are the messages of the client's own exceptions.
 */
class EqualityTest {
    private static ExportRelationship rel(String id, String type, String start, String end, Map<String, Object> p) {
        return new ExportRelationship(id, type, start, end, p);
    }

    @Test
    void equalByEveryComponentWithArraysByContent() {
        ExportRelationship r = rel("5:db:1", "KNOWS", "4:db:1", "4:db:2", Map.of("since", new long[] {2020, 2024}));
        ExportRelationship same = rel("5:db:1", "KNOWS", "4:db:1", "4:db:2", Map.of("since", new long[] {2020, 2024}));
        assertEquals(r, same);
        assertEquals(r.hashCode(), same.hashCode());
        assertEquals("ExportRelationship[id=5:db:1, type=KNOWS, start=4:db:1, end=4:db:2, properties={since=[2020, 2024]}]",
                r.toString());
        for (ExportRelationship other : List.of(
                rel("5:db:9", "KNOWS", "4:db:1", "4:db:2", Map.of("since", new long[] {2020, 2024})),
                rel("5:db:1", "LIKES", "4:db:1", "4:db:2", Map.of("since", new long[] {2020, 2024})),
                rel("5:db:1", "KNOWS", "4:db:9", "4:db:2", Map.of("since", new long[] {2020, 2024})),
                rel("5:db:1", "KNOWS", "4:db:1", "4:db:9", Map.of("since", new long[] {2020, 2024})),
                rel("5:db:1", "KNOWS", "4:db:1", "4:db:2", Map.of("since", new long[] {2020, 2025})))) {
            assertNotEquals(r, other, other.toString());
            assertNotEquals(other, r, other.toString());
        }
        assertNotEquals(r, new ExportLeft("5:db:1", false));
    }

    /** 1,000 relationships that differ in one component only have (almost) 1,000 hash codes, whichever component. */
    @Test
    void relationshipsThatDifferInAnyOneComponentHashApart() {
        assertSpread(List.of(
                i -> rel("5:db:" + i, "T", "4:db:1", "4:db:2", Map.of()),
                i -> rel("5:db:1", "T" + i, "4:db:1", "4:db:2", Map.of()),
                i -> rel("5:db:1", "T", "4:db:" + i, "4:db:2", Map.of()),
                i -> rel("5:db:1", "T", "4:db:1", "4:db:" + i, Map.of()),
                i -> rel("5:db:1", "T", "4:db:1", "4:db:2", Map.of("v", (long) i))));
    }

    private static void assertSpread(List<IntFunction<Object>> varying) {
        for (int c = 0; c < varying.size(); c++) {
            Set<Integer> hashes = new HashSet<>();
            for (int i = 0; i < 1000; i++) hashes.add(varying.get(c).apply(i).hashCode());
            int component = c;
            assertTrue(hashes.size() >= 990, () -> "component " + component + ": " + hashes.size() + " hash codes");
        }
    }

    @Test
    void nodesAreEqualByIdLabelsAndPropertiesAndHashApart() {
        ExportNode n = new ExportNode("4:db:1", List.of("Person"), Map.of("tags", new String[] {"a", "b"}));
        ExportNode same = new ExportNode("4:db:1", List.of("Person"), Map.of("tags", new String[] {"a", "b"}));
        assertEquals(n, same);
        assertEquals(n.hashCode(), same.hashCode());
        assertEquals("ExportNode[id=4:db:1, labels=[Person], properties={tags=[a, b]}]", n.toString());
        for (ExportNode other : List.of(new ExportNode("4:db:2", List.of("Person"), Map.of("tags", new String[] {"a", "b"})),
                new ExportNode("4:db:1", List.of("Robot"), Map.of("tags", new String[] {"a", "b"})),
                new ExportNode("4:db:1", List.of("Person"), Map.of("tags", new String[] {"a", "c"})))) {
            assertNotEquals(n, other, other.toString());
            assertNotEquals(other, n, other.toString());
        }
        assertSpread(List.of(
                i -> new ExportNode("4:db:" + i, List.of("L"), Map.of()),
                i -> new ExportNode("4:db:1", List.of("L" + i), Map.of()),
                i -> new ExportNode("4:db:1", List.of("L"), Map.of("v", (long) i))));
    }

    @Test
    void vectorsAreEqualByKindAndContentAndHashApart() {
        VectorValue v = new VectorValue(VectorKind.FLOAT32, new float[] {1.5f, -2f});
        assertEquals(v, new VectorValue(VectorKind.FLOAT32, new float[] {1.5f, -2f}));
        assertEquals(v.hashCode(), new VectorValue(VectorKind.FLOAT32, new float[] {1.5f, -2f}).hashCode());
        assertNotEquals(v, new VectorValue(VectorKind.FLOAT32, new float[] {1.5f, -3f}));
        assertNotEquals(v, new VectorValue(VectorKind.INT32, new int[] {1, -2}));
        assertNotEquals(v, "VectorValue");
        assertEquals(2, v.length());
        assertEquals(0, new VectorValue(VectorKind.INT8, new byte[0]).length());
        assertEquals("VectorValue[kind=FLOAT32, values=[1.5, -2.0]]", v.toString());
        assertSpread(List.of(i -> new VectorValue(VectorKind.INT64, new long[] {i, 7})));
    }
    @Test
    void pointsAreEqualBySridAndCoordinatesAndHashApart() {
        PointValue p = new PointValue(7203, new double[] {1.5, -2});
        assertEquals(p, new PointValue(7203, new double[] {1.5, -2}));
        assertEquals(p.hashCode(), new PointValue(7203, new double[] {1.5, -2}).hashCode());
        assertNotEquals(p, new PointValue(9157, new double[] {1.5, -2}));
        assertNotEquals(p, new PointValue(7203, new double[] {1.5, -3}));
        assertEquals("PointValue[srid=7203, coordinates=[1.5, -2.0]]", p.toString());
        assertSpread(List.of(i -> new PointValue(7203, new double[] {i, 0}), i -> new PointValue(i, new double[] {0, 0})));
    }

    @Test
    void rowsAreEqualByContentAndHashApart() {
        ExportRow row = new ExportRow(java.util.Arrays.asList("a", new long[] {1, 2}, null));
        assertEquals(row, new ExportRow(java.util.Arrays.asList("a", new long[] {1, 2}, null)));
        assertEquals(row.hashCode(), new ExportRow(java.util.Arrays.asList("a", new long[] {1, 2}, null)).hashCode());
        assertNotEquals(row, new ExportRow(java.util.Arrays.asList("a", new long[] {1, 3}, null)));
        assertSpread(List.of(i -> new ExportRow(List.of((long) i, "x"))));
    }

    @Test
    void theExceptionsSayWhatHappened() {
        assertEquals("the database moved on from state s1 to s2 while the partitions of the export were read (a"
                + " transaction committed): they are not one export of one state; read it again",
                new StateChangedException("s1", "s2").getMessage());
        assertEquals("the database moved on from state s1 to a later one while the partitions of the export were read"
                + " (a transaction committed): they are not one export of one state; read it again",
                new StateChangedException("s1", "").getMessage());
        assertEquals("org.subgraphexport.client.ExportFailedException: Neo.TransientError.Transaction.Terminated: gone",
                new ExportFailedException("Neo.TransientError.Transaction.Terminated", "gone").toString());
    }
}
