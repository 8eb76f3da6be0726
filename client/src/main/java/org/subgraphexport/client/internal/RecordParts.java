package org.subgraphexport.client.internal;

import java.util.Arrays;
import java.util.List;

/**
 * A decoder's builder of the immutable parts of node and relationship records: labels lists and
 * {@link PropertyMap}s, collected in scratch arrays reused from record to record, so that a record costs exactly
 * its map (one object and one array of values) and no labels list at all when its labels recur. Key sequences and
 * labels lists recur from record to record (the same label, the same keys in the same order): a small cache keeps
 * those seen, compared by {@code equals} (a token dictionary hands out the same String instances, which
 * {@code String.equals} accepts at once), so a recurring key sequence is checked for duplicates only once and its
 * {@link PropertyMap.Keys} shared by all its maps. One per reader; not thread-safe. The cache is bounded: at most
 * {@link #SLOTS} entries of at most {@link #MAX_CACHED} strings each, a lookup probes at most {@link #PROBES} of
 * them, and a new entry that finds no free slot among those replaces the first.
 */
final class RecordParts {
    private static final int SLOTS = 256;
    private static final int PROBES = 8;
    /** Longest key sequence or labels list cached. */
    private static final int MAX_CACHED = 256;

    /** Cached {@link PropertyMap.Keys} and labels lists ({@code List<String>}), with their sequence hashes. */
    private final Object[] cache = new Object[SLOTS];
    private final int[] cacheHashes = new int[SLOTS];

    private String[] labels = new String[4];
    private int labelCount;

    private String[] keys = new String[16];
    private Object[] values = new Object[16];
    private int propertyCount;
    private String duplicate;

    // ---- labels -------------------------------------------------------------------------------------------

    /** Starts a labels list. */
    void clearLabels() {
        labelCount = 0;
    }

    void addLabel(String label) {
        if (labelCount == labels.length) {
            labels = Arrays.copyOf(labels, labelCount * 2);
        }
        labels[labelCount++] = label;
    }

    /** The labels added since {@link #clearLabels}, as an immutable list ({@code List.of}). */
    @SuppressWarnings("unchecked")
    List<String> labels() {
        int n = labelCount;
        if (n == 0) {
            return List.of();
        }
        String[] l = labels;
        int h = sequenceHash(l, n, 1);
        Object cached = lookup(h, l, n, false);
        if (cached != null) {
            return (List<String>) cached;
        }
        List<String> list = switch (n) {
            case 1 -> List.of(l[0]);
            case 2 -> List.of(l[0], l[1]);
            default -> List.of(Arrays.copyOf(l, n));
        };
        if (n <= MAX_CACHED) {
            insert(h, list);
        }
        return list;
    }

    // ---- properties ---------------------------------------------------------------------------------------

    /** Starts a property map. */
    void clearProperties() {
        propertyCount = 0;
    }

    /** Adds a property; a key added twice makes {@link #properties} return null. */
    void addProperty(String key, Object value) {
        int n = propertyCount;
        if (n == keys.length) {
            keys = Arrays.copyOf(keys, n * 2);
            values = Arrays.copyOf(values, n * 2);
        }
        keys[n] = key;
        values[n] = value;
        propertyCount = n + 1;
    }

    /**
     * The properties added since {@link #clearProperties}, or null if a key occurs twice among them
     * ({@link #duplicate} then names it).
     */
    PropertyMap properties() {
        int n = propertyCount;
        if (n == 0) {
            return PropertyMap.EMPTY;
        }
        String[] k = keys;
        int h = sequenceHash(k, n, 2);
        PropertyMap.Keys shape = (PropertyMap.Keys) lookup(h, k, n, true);
        if (shape == null) {
            shape = PropertyMap.Keys.distinct(Arrays.copyOf(k, n));
            if (shape == null) {
                duplicate = PropertyMap.Keys.firstDuplicate(k, n);
                return null;
            }
            if (n <= MAX_CACHED) {
                insert(h, shape);
            }
        }
        Object[] v = values;
        Object[] out = new Object[n];
        for (int i = 0; i < n; i++) {
            out[i] = v[i];
            v[i] = null;  // the scratch array holds no value beyond its record
        }
        return new PropertyMap(shape, out);
    }

    /** The key that occurred twice when {@link #properties} returned null. */
    String duplicate() {
        return duplicate;
    }

    // ---- the cache -----------------------------------------------------------------------------------------

    private static int sequenceHash(String[] a, int n, int seed) {
        int h = seed;
        for (int i = 0; i < n; i++) {
            h = 31 * h + a[i].hashCode();
        }
        return h;
    }

    private static int slot(int h) {
        h *= 0x9E3779B9;  // Fibonacci hashing: the high bits, well mixed
        return h >>> (Integer.SIZE - Integer.numberOfTrailingZeros(SLOTS));
    }

    /** The cached key shape ({@code keys}) or labels list with exactly the strings {@code a[0..n)}, or null. */
    private Object lookup(int h, String[] a, int n, boolean keys) {
        Object[] c = cache;
        int[] hashes = cacheHashes;
        for (int i = 0, s = slot(h); i < PROBES; i++, s = (s + 1) & (SLOTS - 1)) {
            Object e = c[s];
            if (e == null) {
                return null;
            }
            if (hashes[s] == h) {
                if (keys ? e instanceof PropertyMap.Keys k && k.matches(a, n)
                        : e instanceof List<?> list && sameStrings(list, a, n)) {
                    return e;
                }
            }
        }
        return null;
    }

    /** Caches {@code entry} in the first free slot of its probe sequence, else in the first slot. */
    private void insert(int h, Object entry) {
        int first = slot(h);
        int s = first;
        for (int i = 0; i < PROBES && cache[s] != null; i++) {
            s = (s + 1) & (SLOTS - 1);
        }
        if (cache[s] != null) {
            s = first;
        }
        cache[s] = entry;
        cacheHashes[s] = h;
    }

    private static boolean sameStrings(List<?> list, String[] a, int n) {
        if (list.size() != n) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            Object x = list.get(i);
            if (x != a[i] && !a[i].equals(x)) {
                return false;
            }
        }
        return true;
    }
}
