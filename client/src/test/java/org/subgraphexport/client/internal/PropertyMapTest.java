package org.subgraphexport.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.subgraphexport.client.ExportNode;
import org.subgraphexport.client.ExportRelationship;

/**
 * {@link PropertyMap} and {@link RecordParts} against {@code Collections.unmodifiableMap(LinkedHashMap)}, what
 * records held before: the Map contract on random content, order, immutability, duplicate keys, large maps.
 */
class PropertyMapTest {
    private static final String[] POOL = {"a", "b", "name", "id", "Aa", "BB", "x1", "x2", "", "ключ", "k0", "k1"};

    @Test
    void mapContractAgainstLinkedHashMapOnRandomContent() {
        Random random = new Random(20240611);
        RecordParts parts = new RecordParts();
        for (int round = 0; round < 3000; round++) {
            int n = random.nextInt(4) == 0 ? random.nextInt(300) : random.nextInt(12);
            LinkedHashMap<String, Object> expected = new LinkedHashMap<>();
            while (expected.size() < n) {
                String key = random.nextBoolean() ? POOL[random.nextInt(POOL.length)] : "k" + random.nextInt(1000);
                expected.putIfAbsent(new String(key), randomValue(random));  // new String: no identity shortcut
            }
            PropertyMap viaParts = build(parts, expected);
            PropertyMap viaCopy = PropertyMap.copyOf(expected);
            for (PropertyMap actual : List.of(viaParts, viaCopy)) {
                assertSameMap(expected, actual, random);
            }
            assertEquals(viaParts, viaCopy);
            assertEquals(viaParts.hashCode(), viaCopy.hashCode());
        }
    }

    /** Every query of {@code actual} answers as {@code expected} does. */
    private static void assertSameMap(LinkedHashMap<String, Object> expected, Map<String, Object> actual,
            Random random) {
        assertEquals(expected.size(), actual.size());
        assertEquals(expected.isEmpty(), actual.isEmpty());
        assertEquals(expected, actual);
        assertEquals(actual, expected);
        assertEquals(expected.hashCode(), actual.hashCode());
        assertEquals(expected.toString(), actual.toString());
        assertEquals(new ArrayList<>(expected.keySet()), new ArrayList<>(actual.keySet()), "key order");
        assertEquals(new ArrayList<>(expected.values()), new ArrayList<>(actual.values()), "value order");
        assertEquals(new ArrayList<>(expected.entrySet()), new ArrayList<>(actual.entrySet()), "entry order");
        assertEquals(expected.keySet(), actual.keySet());
        assertEquals(expected.entrySet(), actual.entrySet());
        assertEquals(expected.keySet().hashCode(), actual.keySet().hashCode());
        assertEquals(expected.entrySet().hashCode(), actual.entrySet().hashCode());
        assertEquals(expected.keySet().toString(), actual.keySet().toString());
        assertEquals(expected.values().toString(), actual.values().toString());
        assertEquals(Arrays.asList(expected.keySet().toArray()), Arrays.asList(actual.keySet().toArray()));
        assertEquals(Arrays.asList(expected.values().toArray()), Arrays.asList(actual.values().toArray()));
        assertEquals(new HashMap<>(expected), actual);
        if (!expected.containsKey(null)) {
            assertEquals(actual, new TreeMap<>(expected));
        }
        List<String> seen = new ArrayList<>();
        actual.forEach((k, v) -> {
            seen.add(k);
            assertSame(expected.get(k), v);
        });
        assertEquals(new ArrayList<>(expected.keySet()), seen);
        for (Map.Entry<String, Object> e : expected.entrySet()) {
            String probe = e.getKey() == null ? null : new String(e.getKey());
            assertTrue(actual.containsKey(probe), probe);
            assertSame(e.getValue(), actual.get(probe));
            assertSame(e.getValue(), actual.getOrDefault(probe, "default"));
            assertTrue(actual.containsValue(e.getValue()));
            assertTrue(actual.keySet().contains(probe));
            assertTrue(actual.values().contains(e.getValue()));
            assertTrue(actual.entrySet().contains(new AbstractMap.SimpleEntry<>(probe, e.getValue())));
            assertFalse(actual.entrySet().contains(new AbstractMap.SimpleEntry<>(probe, "not the value")));
        }
        for (Object absent : new Object[] {"absent", "k" + (1000 + random.nextInt(1000)), null, 42, List.of()}) {
            assertEquals(expected.containsKey(absent), actual.containsKey(absent));
            assertEquals(expected.get(absent), actual.get(absent));
            assertEquals(expected.getOrDefault(absent, "default"), actual.getOrDefault(absent, "default"));
            assertEquals(expected.containsValue(absent), actual.containsValue(absent));
        }
        // maps that differ in one value, one key, or one entry more or less are not equal, either way round
        if (!expected.isEmpty()) {
            String someKey = new ArrayList<>(expected.keySet()).get(random.nextInt(expected.size()));
            LinkedHashMap<String, Object> otherValue = new LinkedHashMap<>(expected);
            otherValue.put(someKey, "another value");
            assertNotEquals(otherValue, actual);
            assertNotEquals(actual, otherValue);
            LinkedHashMap<String, Object> otherKey = new LinkedHashMap<>(expected);
            otherKey.put("absent", otherKey.remove(someKey));
            assertNotEquals(otherKey, actual);
            assertNotEquals(actual, otherKey);
            LinkedHashMap<String, Object> fewer = new LinkedHashMap<>(expected);
            fewer.remove(someKey);
            assertNotEquals(fewer, actual);
            assertNotEquals(actual, fewer);
        }
        LinkedHashMap<String, Object> more = new LinkedHashMap<>(expected);
        more.put("absent", 1);
        assertNotEquals(more, actual);
        assertNotEquals(actual, more);
        assertNotEquals(actual, new ArrayList<>(expected.values()));
        assertUnmodifiable(actual);
    }

    private static Object randomValue(Random random) {
        return switch (random.nextInt(6)) {
            case 0 -> random.nextLong();
            case 1 -> "v" + random.nextInt(50);
            case 2 -> random.nextDouble();
            case 3 -> random.nextBoolean();
            case 4 -> random.nextInt(3);  // equal values under different keys
            default -> new int[] {random.nextInt()};
        };
    }

    private static PropertyMap build(RecordParts parts, Map<String, Object> content) {
        parts.clearProperties();
        content.forEach(parts::addProperty);
        return parts.properties();
    }

    /** The answers the random contract test rarely asks for: views asked for what is not there, equal shapes. */
    @Test
    void viewsAndEqualsSayNoWhereALinkedHashMapDoes() {
        RecordParts parts = new RecordParts();
        PropertyMap map = build(parts, linked("a", 1L, "b", "x"));
        PropertyMap sameShape = build(parts, linked("a", 1L, "b", "y"));
        assertNotEquals(map, sameShape, "the same keys, another value");
        assertNotEquals(sameShape, map);
        assertEquals(map, build(parts, linked("a", 1L, "b", "x")));
        assertTrue(map.keySet().contains("a"));
        assertFalse(map.keySet().contains("c"));
        assertTrue(map.values().contains("x"));
        assertFalse(map.values().contains("y"));
        assertTrue(map.entrySet().contains(Map.entry("b", "x")));
        assertFalse(map.entrySet().contains(Map.entry("b", "y")));
        assertFalse(map.entrySet().contains(Map.entry("c", 1L)));
        assertFalse(map.entrySet().contains("b"), "not an entry");
        // a map of the same size whose get cannot take a String key: not equal, and no exception
        java.util.TreeMap<Object, Object> integers = new java.util.TreeMap<>(java.util.Comparator.comparing(o -> (Integer) o));
        integers.put(1, 1L);
        integers.put(2, "x");
        assertFalse(map.equals(integers));
    }

    @Test
    void theFirstDuplicateIsLookedForInTheFirstNKeysOnly() {
        String[] names = {"a", "b", "a"};
        assertEquals("a", PropertyMap.Keys.firstDuplicate(names, 3));
        assertNull(PropertyMap.Keys.firstDuplicate(names, 2));
        assertNull(PropertyMap.Keys.distinct(names.clone()), "a key twice");
        assertSame(PropertyMap.Keys.EMPTY, PropertyMap.Keys.distinct(new String[0]));
    }

    @Test
    void unmodifiableEvenWhereNothingWouldChange() {
        assertUnmodifiable(PropertyMap.EMPTY);
        assertUnmodifiable(PropertyMap.copyOf(Map.of("a", 1)));
        LinkedHashMap<String, Object> large = new LinkedHashMap<>();
        for (int i = 0; i < 100; i++) {
            large.put("k" + i, i);
        }
        assertUnmodifiable(PropertyMap.copyOf(large));
    }

    private static void assertUnmodifiable(Map<String, Object> map) {
        String key = map.isEmpty() ? "a" : map.keySet().iterator().next();
        List<Executable> mutations = new ArrayList<>(List.of(
                () -> map.put("new", 1), () -> map.put(key, 1), () -> map.remove(key), () -> map.remove("absent"),
                () -> map.remove(key, map.get(key)), () -> map.putAll(Map.of("new", 1)), () -> map.putAll(Map.of()),
                map::clear, () -> map.replaceAll((k, v) -> v), () -> map.putIfAbsent(key, 1),
                () -> map.replace(key, 1), () -> map.replace(key, map.get(key), 1),
                () -> map.computeIfAbsent(key, k -> 1), () -> map.computeIfPresent(key, (k, v) -> v),
                () -> map.compute(key, (k, v) -> v), () -> map.merge(key, 1, (a, b) -> a),
                () -> map.keySet().remove(key), () -> map.keySet().clear(), () -> map.keySet().add("x"),
                () -> map.keySet().removeIf(k -> true), () -> map.keySet().retainAll(List.of()),
                () -> map.values().remove(1), () -> map.values().clear(), () -> map.values().removeIf(v -> true),
                () -> map.entrySet().clear(), () -> map.entrySet().removeIf(e -> true),
                () -> map.entrySet().add(Map.entry("x", 1))));
        for (Iterator<?> it : List.of(map.keySet().iterator(), map.values().iterator(), map.entrySet().iterator())) {
            mutations.add(() -> {
                if (it.hasNext()) {
                    it.next();
                }
                it.remove();
            });
        }
        if (!map.isEmpty()) {
            mutations.add(() -> map.entrySet().iterator().next().setValue(1));
        }
        for (Executable mutation : mutations) {
            assertThrows(UnsupportedOperationException.class, mutation);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void serializesAsAnUnmodifiableLinkedHashMap() throws Exception {
        PropertyMap map = PropertyMap.copyOf(linked("b", 1L, "a", "x"));
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
            out.writeObject(map);
        }
        Object back;
        try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(
                new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
            back = in.readObject();
        }
        assertEquals(map, back);
        assertEquals(List.of("b", "a"), new ArrayList<>(((Map<?, ?>) back).keySet()));
        assertThrows(UnsupportedOperationException.class, () -> ((Map<String, Object>) back).put("c", 1));
    }

    @Test
    void iteratorsEndWithNoSuchElement() {
        PropertyMap map = PropertyMap.copyOf(Map.of("a", 1));
        Iterator<String> it = map.keySet().iterator();
        assertEquals("a", it.next());
        assertFalse(it.hasNext());
        assertThrows(java.util.NoSuchElementException.class, it::next);
    }

    @Test
    void nullKeysAndValuesAsInALinkedHashMap() {
        LinkedHashMap<String, Object> expected = new LinkedHashMap<>();
        expected.put("a", null);
        expected.put(null, 1);
        expected.put("b", 2);
        PropertyMap actual = PropertyMap.copyOf(expected);
        assertSameMap(expected, actual, new Random(1));
        assertTrue(actual.containsKey(null));
        assertEquals(1, actual.get(null));
        assertTrue(actual.containsKey("a"));
        assertTrue(actual.containsValue(null));
        assertEquals("{a=null, null=1, b=2}", actual.toString());
    }

    @Test
    void copyOfKeepsTheOrderOfTheGivenMapAndCopiesIt() {
        LinkedHashMap<String, Object> source = new LinkedHashMap<>();
        source.put("z", 1);
        source.put("a", 2);
        source.put("m", 3);
        PropertyMap copy = PropertyMap.copyOf(source);
        assertEquals(List.of("z", "a", "m"), List.copyOf(copy.keySet()));
        source.put("later", 4);
        source.remove("z");
        assertEquals(3, copy.size());
        assertEquals(1, copy.get("z"));
        assertSame(copy, PropertyMap.copyOf(copy));
        assertSame(PropertyMap.EMPTY, PropertyMap.copyOf(Map.of()));
    }

    @Test
    void copyOfAMapWithEqualButNotIdenticalKeysMergesThemAsLinkedHashMapDid() {
        Map<String, Object> identity = new IdentityHashMap<>();
        identity.put(new String("k"), 1);
        identity.put(new String("k"), 2);
        PropertyMap copy = PropertyMap.copyOf(identity);
        assertEquals(new LinkedHashMap<>(identity), copy);
        assertEquals(1, copy.size());
    }

    @Test
    void nodeAndRelationshipCopyAUsersMapButNotADecodersMap() {
        LinkedHashMap<String, Object> user = new LinkedHashMap<>();
        user.put("a", 1);
        List<String> labels = new ArrayList<>(List.of("L"));
        ExportNode node = new ExportNode("n", labels, user);
        ExportRelationship rel = new ExportRelationship("r", "T", "n", "n", user);
        user.put("b", 2);
        labels.add("M");
        assertEquals(Map.of("a", 1), node.properties());
        assertEquals(Map.of("a", 1), rel.properties());
        assertEquals(List.of("L"), node.labels());
        assertThrows(UnsupportedOperationException.class, () -> node.properties().put("c", 3));
        assertThrows(UnsupportedOperationException.class, () -> rel.properties().put("c", 3));
        assertThrows(UnsupportedOperationException.class, () -> node.labels().add("X"));

        RecordParts parts = new RecordParts();
        PropertyMap decoded = build(parts, Map.of("a", 1));
        parts.clearLabels();
        parts.addLabel("L");
        List<String> decodedLabels = parts.labels();
        ExportNode n = new ExportNode("n", decodedLabels, decoded);
        assertSame(decoded, n.properties());
        assertSame(decodedLabels, n.labels());
        assertSame(decoded, new ExportRelationship("r", "T", "n", "n", decoded).properties());
        assertEquals(node, n);
        assertEquals(node.hashCode(), n.hashCode());
        assertEquals(node.toString(), n.toString());
    }

    @Test
    void aKeyTwiceIsRejectedWhateverTheInstances() {
        RecordParts parts = new RecordParts();
        for (int n : new int[] {2, 3, 8, 9, 17, 300, 5000}) {
            for (int at : new int[] {0, (n - 1) / 2, n - 2}) {
                for (boolean sameInstance : new boolean[] {true, false}) {
                    parts.clearProperties();
                    for (int i = 0; i < n - 1; i++) {
                        parts.addProperty("k" + i, i);
                    }
                    String twice = "k" + at;
                    parts.addProperty(sameInstance ? twice : new String(twice), -1);
                    assertNull(parts.properties(), n + " keys, k" + at + " twice");
                    assertEquals(twice, parts.duplicate());
                }
            }
        }
        // a key sequence seen before, then the same one with a key twice: the cache must not hide it
        for (int n : new int[] {2, 9, 300}) {
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                keys.add("p" + i);
            }
            parts.clearProperties();
            keys.forEach(k -> parts.addProperty(k, 1));
            assertEquals(n, parts.properties().size());
            parts.clearProperties();
            keys.forEach(k -> parts.addProperty(k, 1));
            parts.addProperty(keys.get(0), 1);
            assertNull(parts.properties());
            parts.clearProperties();
            keys.forEach(k -> parts.addProperty(k, 1));
            assertEquals(n, parts.properties().size(), "the reader goes on after a failure only in tests");
        }
    }

    @Test
    void recurringKeySequencesShareOneShapeAndLabelsOneList() {
        RecordParts parts = new RecordParts();
        PropertyMap first = build(parts, linked("name", 1, "id", 2));
        PropertyMap second = build(parts, linked(new String("name"), 3, new String("id"), 4));
        assertSame(first.keys, second.keys);
        assertEquals(linked("name", 3, "id", 4), second);
        PropertyMap reordered = build(parts, linked("id", 4, "name", 3));
        assertEquals(List.of("id", "name"), List.copyOf(reordered.keySet()));
        assertEquals(second, reordered);  // maps are equal whatever their order, as LinkedHashMaps are
        for (List<String> labels : List.<List<String>>of(List.of("A"), List.of("A", "B"), List.of("A", "B", "C"),
                List.of())) {
            List<String> one = labels(parts, labels);
            List<String> two = labels(parts, labels.stream().map(String::new).toList());
            assertEquals(labels, one);
            assertSame(one, two);
            assertSame(one, List.copyOf(one), "List.copyOf in ExportNode keeps it");
            assertThrows(UnsupportedOperationException.class, () -> one.add("X"));
        }
        assertEquals(List.of("B", "A"), labels(parts, List.of("B", "A")));
        assertEquals(List.of("A", "A"), labels(parts, List.of("A", "A")), "labels are not checked for duplicates");
    }

    private static List<String> labels(RecordParts parts, List<String> labels) {
        parts.clearLabels();
        labels.forEach(parts::addLabel);
        return parts.labels();
    }

    private static LinkedHashMap<String, Object> linked(Object... keysAndValues) {
        LinkedHashMap<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }

    /** Keys chosen so that all their hash codes are equal ("Aa" and "BB" hash alike): no quadratic blow-up. */
    @Test
    void thousandsOfKeysWithOneHashCodeStayFast() {
        List<String> keys = collidingKeys(15);  // 2^15 = 32,768 distinct keys, one hash code
        assertEquals(1, keys.stream().mapToInt(String::hashCode).distinct().count());
        RecordParts parts = new RecordParts();
        assertTimeoutPreemptively(java.time.Duration.ofSeconds(20), () -> {
            for (int round = 0; round < 3; round++) {
                parts.clearProperties();
                for (int i = 0; i < keys.size(); i++) {
                    parts.addProperty(keys.get(i), i);
                }
                PropertyMap map = parts.properties();
                assertEquals(keys.size(), map.size());
                for (int i = 0; i < keys.size(); i += 97) {
                    assertEquals(i, map.get(keys.get(i)));
                }
                parts.clearProperties();
                for (int i = 0; i < keys.size(); i++) {
                    parts.addProperty(keys.get(i), i);
                }
                parts.addProperty(keys.get(keys.size() / 3), 0);
                assertNull(parts.properties());
            }
        });
    }

    private static List<String> collidingKeys(int bits) {
        List<String> keys = new ArrayList<>(List.of(""));
        for (int b = 0; b < bits; b++) {
            List<String> next = new ArrayList<>();
            for (String k : keys) {
                next.add(k + "Aa");
                next.add(k + "BB");
            }
            keys = next;
        }
        return keys;
    }

    @Test
    void largeMapsKeepOrderAndLookUpEveryKey() {
        RecordParts parts = new RecordParts();
        for (int n : new int[] {7, 8, 9, 100, 20_000}) {
            LinkedHashMap<String, Object> expected = new LinkedHashMap<>();
            Random random = new Random(n);
            while (expected.size() < n) {
                expected.putIfAbsent("key-" + random.nextInt(10 * n), expected.size());
            }
            PropertyMap actual = build(parts, expected);
            assertEquals(List.copyOf(expected.keySet()), List.copyOf(actual.keySet()));
            expected.forEach((k, v) -> assertSame(v, actual.get(new String(k))));
            assertEquals(expected, actual);
            assertEquals(expected.hashCode(), actual.hashCode());
            assertEquals(expected.toString(), actual.toString());
        }
    }

    @Test
    void viewsInInsertionOrder() {
        PropertyMap map = PropertyMap.copyOf(linked("b", 1, "a", 2));
        Set<String> keys = map.keySet();
        Collection<Object> values = map.values();
        assertEquals(List.of("b", "a"), List.copyOf(keys));
        assertEquals(List.of(1, 2), List.copyOf(values));
        assertTrue(keys.containsAll(List.of("a", "b")));
        assertEquals(List.of(Map.entry("b", 1), Map.entry("a", 2)), List.copyOf(map.entrySet()));
    }
}
