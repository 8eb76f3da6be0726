package org.subgraphexport.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link Values}: equality, hash codes and text of property maps and row values compare arrays by content, lists in
 * order, maps in any order; exact results on small cases.
 */
class ValuesTest {
    private static Map<String, Object> map(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return m;
    }

    @Test
    void propertiesEqualByContentInAnyOrder() {
        Map<String, Object> a = map("a", new int[] {1, 2}, "b", "x");
        assertTrue(Values.propertiesEqual(a, map("b", "x", "a", new int[] {1, 2})));
        assertTrue(Values.propertiesEqual(map(), map()));
        assertFalse(Values.propertiesEqual(a, map("a", new int[] {1, 2})), "fewer keys");
        assertFalse(Values.propertiesEqual(map("a", new int[] {1, 2}), a), "more keys");
        assertFalse(Values.propertiesEqual(a, map("a", new int[] {1, 3}, "b", "x")), "array content");
        assertFalse(Values.propertiesEqual(a, map("a", new int[] {1, 2}, "c", "x")), "other key");
        assertFalse(Values.propertiesEqual(a, map("a", new int[] {1, 2}, "b", "y")), "last value");
    }

    @Test
    void propertyMapsOfTheSameKeysCompareValueByValue() {
        PropertyMap x = PropertyMap.copyOf(map("a", new long[] {7}, "b", 1.5));
        assertTrue(Values.propertiesEqual(x, PropertyMap.copyOf(map("a", new long[] {7}, "b", 1.5))));
        assertFalse(Values.propertiesEqual(x, PropertyMap.copyOf(map("a", new long[] {8}, "b", 1.5))));
        assertFalse(Values.propertiesEqual(x, PropertyMap.copyOf(map("a", new long[] {7}, "b", 2.5))));
        assertTrue(Values.propertiesEqual(x, PropertyMap.copyOf(map("b", 1.5, "a", new long[] {7}))), "other order");
        assertFalse(Values.propertiesEqual(x, PropertyMap.copyOf(map("b", 1.5, "a", new long[] {8}))));
        assertFalse(Values.propertiesEqual(x, PropertyMap.copyOf(map("a", new long[] {7}, "c", 1.5))));
        // a property map and another map compare entry by entry, either way round
        assertTrue(Values.propertiesEqual(x, map("a", new long[] {7}, "b", 1.5)));
        assertTrue(Values.propertiesEqual(map("b", 1.5, "a", new long[] {7}), x));
        assertFalse(Values.propertiesEqual(x, map("a", new long[] {7}, "b", 2.5)));
        assertFalse(Values.propertiesEqual(map("a", new long[] {7}, "c", 1.5), x));
    }

    @Test
    void propertiesHashSumsKeyHashXorValueContentHash() {
        assertEquals(0, Values.propertiesHash(map()));
        // a value hashes as a one-element Object[] holding it: 31 + its content hash
        int h = ("a".hashCode() ^ (31 + Arrays.hashCode(new int[] {1, 2}))) + ("b".hashCode() ^ (31 + "x".hashCode()));
        assertEquals(h, Values.propertiesHash(map("a", new int[] {1, 2}, "b", "x")));
        assertEquals(h, Values.propertiesHash(map("b", "x", "a", new int[] {1, 2})));
    }

    @Test
    void propertiesPrintArrayContents() {
        assertEquals("{}", Values.toString(map()));
        assertEquals("{a=[1, 2]}", Values.toString(map("a", new int[] {1, 2})));
        assertEquals("{a=[1, 2], b=x, c=null}", Values.toString(map("a", new int[] {1, 2}, "b", "x", "c", null)));
    }

    @Test
    void rowValuesEqualDeeply() {
        List<Object> list = List.of(1L, new byte[] {1}, List.of("x"), map("k", new double[] {0.5}));
        assertTrue(Values.deepEquals(list, List.of(1L, new byte[] {1}, List.of("x"), map("k", new double[] {0.5}))));
        assertFalse(Values.deepEquals(list, List.of(1L, new byte[] {1}, List.of("x"))), "shorter");
        assertFalse(Values.deepEquals(list, List.of(2L, new byte[] {1}, List.of("x"), map("k", new double[] {0.5}))));
        assertFalse(Values.deepEquals(list, List.of(1L, new byte[] {2}, List.of("x"), map("k", new double[] {0.5}))));
        assertFalse(Values.deepEquals(list, List.of(1L, new byte[] {1}, List.of("x"), map("k", new double[] {1}))),
                "last element");
        assertTrue(Values.deepEquals(map("a", 1, "b", new int[] {2}), map("b", new int[] {2}, "a", 1)), "any order");
        assertFalse(Values.deepEquals(map("a", 1, "b", 2), map("a", 1)), "fewer entries");
        assertFalse(Values.deepEquals(map("a", 1, "b", 2), map("a", 1, "c", 2)), "other key");
        assertFalse(Values.deepEquals(map("a", 1, "b", 2), map("a", 1, "b", 3)), "last value");
        assertFalse(Values.deepEquals(map("a", 1), List.of(1)));
        assertFalse(Values.deepEquals(List.of(1), map("a", 1)));
        assertTrue(Values.deepEquals(null, null));
        assertTrue(Values.deepEquals(new String[] {"s"}, new String[] {"s"}));
        assertFalse(Values.deepEquals("s", null));
    }

    @Test
    void rowValueHashesFollowContent() {
        // a leaf hashes as a one-element Object[] holding it: 31 + its content hash
        assertEquals(1, Values.deepHash(List.of()));
        assertEquals(31 + 31 + Arrays.hashCode(new int[] {3}), Values.deepHash(List.of(new int[] {3})));
        assertEquals(31 * (31 + 31 + 5) + 31 + 7, Values.deepHash(List.of(5, 7)));
        assertEquals(0, Values.deepHash(map()));
        assertEquals(("a".hashCode() ^ (31 + 5)) + ("b".hashCode() ^ (31 + Arrays.hashCode(new long[] {1}))),
                Values.deepHash(map("a", 5, "b", new long[] {1})));
        assertEquals(Values.deepHash(map("a", 5, "b", 6)), Values.deepHash(map("b", 6, "a", 5)));
        assertEquals(31, Values.deepHash(null));
        assertEquals(31 + "s".hashCode(), Values.deepHash("s"));
        assertNotEquals(Values.deepHash(List.of(5, 7)), Values.deepHash(List.of(7, 5)));
    }

    @Test
    void rowValuesPrintWithArrayContents() {
        assertEquals("[]", Values.deepToString(List.of()));
        assertEquals("[1, [2, 3], {a=[x], b=null}, [4.5]]", Values.deepToString(List.of(1, new int[] {2, 3},
                map("a", List.of("x"), "b", null), new double[] {4.5})));
        assertEquals("{}", Values.deepToString(map()));
        assertEquals("null", Values.deepToString(null));
        assertEquals("s", Values.deepToString("s"));
    }
}
