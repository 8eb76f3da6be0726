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

/**
 * A relationship record is equal to another with the same id, type, ends and properties (arrays by content), hashes
 * alike, and hashes apart from relationships that differ in any one of them.
 */
class ExportRelationshipTest {
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
        List<IntFunction<ExportRelationship>> varying = List.of(
                i -> rel("5:db:" + i, "T", "4:db:1", "4:db:2", Map.of()),
                i -> rel("5:db:1", "T" + i, "4:db:1", "4:db:2", Map.of()),
                i -> rel("5:db:1", "T", "4:db:" + i, "4:db:2", Map.of()),
                i -> rel("5:db:1", "T", "4:db:1", "4:db:" + i, Map.of()),
                i -> rel("5:db:1", "T", "4:db:1", "4:db:2", Map.of("v", (long) i)));
        for (int c = 0; c < varying.size(); c++) {
            Set<Integer> hashes = new HashSet<>();
            for (int i = 0; i < 1000; i++) hashes.add(varying.get(c).apply(i).hashCode());
            int component = c;
            assertTrue(hashes.size() >= 990, () -> "component " + component + ": " + hashes.size() + " hash codes");
        }
    }
}
