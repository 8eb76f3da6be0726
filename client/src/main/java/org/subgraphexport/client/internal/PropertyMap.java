package org.subgraphexport.client.internal;

import java.io.Serial;
import java.io.Serializable;
import java.util.AbstractCollection;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.subgraphexport.client.ExportNode;
import org.subgraphexport.client.ExportRelationship;

/**
 * The unmodifiable, insertion-ordered property map of an {@link ExportNode} or {@link ExportRelationship}: one array
 * of values and a {@link Keys} shape (the key names, distinct, with a hash index when there are more than
 * {@link Keys#LINEAR}), which the decoders share between records with the same keys in the same order. Behaves as
 * {@code Collections.unmodifiableMap(new LinkedHashMap<>(...))} did: the full {@link Map} contract (equality and
 * hash code with any map, string form {@code {k=v, ...}}), null keys and values allowed, every mutator throws
 * {@link UnsupportedOperationException}, views are unmodifiable and in insertion order.
 */
public final class PropertyMap implements Map<String, Object>, Serializable {
    @Serial
    private static final long serialVersionUID = 1L;
    static final PropertyMap EMPTY = new PropertyMap(Keys.EMPTY, new Object[0]);

    final transient Keys keys;
    private final transient Object[] values;

    /** {@code values} is owned by the map from now on; {@code values.length == keys.size()}. */
    PropertyMap(Keys keys, Object[] values) {
        if (keys.names.length != values.length) {
            throw new IllegalArgumentException(keys.names.length + " keys for " + values.length + " values");
        }
        this.keys = keys;
        this.values = values;
    }

    /**
     * {@code map} itself if it is a {@code PropertyMap} (immutable already), else an insertion-ordered copy with the
     * semantics of {@code new LinkedHashMap<>(map)}.
     */
    public static PropertyMap copyOf(Map<String, Object> map) {
        if (map instanceof PropertyMap p) {
            return p;
        }
        if (map.isEmpty()) {
            return EMPTY;
        }
        // LinkedHashMap first: the old semantics exactly (iteration order of map, a key equal to an earlier one
        // keeps the earlier position and takes the later value), whatever kind of map this is
        LinkedHashMap<String, Object> copy = new LinkedHashMap<>(map);
        String[] names = new String[copy.size()];
        Object[] values = new Object[names.length];
        int i = 0;
        for (Map.Entry<String, Object> e : copy.entrySet()) {
            names[i] = e.getKey();
            values[i++] = e.getValue();
        }
        Keys keys = Keys.distinct(names);
        if (keys == null) {
            throw new IllegalArgumentException("a key twice in " + copy.keySet());  // a key type with broken equals
        }
        return new PropertyMap(keys, values);
    }

    /** Serialized as what records held before: {@code Collections.unmodifiableMap} of a {@code LinkedHashMap}. */
    @Serial
    private Object writeReplace() {
        return Collections.unmodifiableMap(new LinkedHashMap<>(this));
    }

    /** The value at position {@code i} of the insertion order. */
    Object valueAt(int i) {
        return values[i];
    }

    // ---- queries ------------------------------------------------------------------------------------------

    @Override
    public int size() {
        return values.length;
    }

    @Override
    public boolean isEmpty() {
        return values.length == 0;
    }

    @Override
    public boolean containsKey(Object key) {
        return keys.indexOf(key) >= 0;
    }

    @Override
    public boolean containsValue(Object value) {
        for (Object v : values) {
            if (Objects.equals(value, v)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public Object get(Object key) {
        int i = keys.indexOf(key);
        return i >= 0 ? values[i] : null;
    }

    @Override
    public Object getOrDefault(Object key, Object defaultValue) {
        int i = keys.indexOf(key);
        return i >= 0 ? values[i] : defaultValue;
    }

    @Override
    public void forEach(BiConsumer<? super String, ? super Object> action) {
        Objects.requireNonNull(action);
        String[] names = keys.names;
        for (int i = 0; i < names.length; i++) {
            action.accept(names[i], values[i]);
        }
    }

    // ---- views (unmodifiable, insertion order) ------------------------------------------------------------

    @Override
    public Set<String> keySet() {
        return Collections.unmodifiableSet(new AbstractSet<>() {
            @Override
            public Iterator<String> iterator() {
                return new Cursor<>() {
                    @Override
                    String at(int i) {
                        return keys.names[i];
                    }
                };
            }

            @Override
            public int size() {
                return values.length;
            }

            @Override
            public boolean contains(Object o) {
                return containsKey(o);
            }
        });
    }

    @Override
    public Collection<Object> values() {
        return Collections.unmodifiableCollection(new AbstractCollection<>() {
            @Override
            public Iterator<Object> iterator() {
                return new Cursor<>() {
                    @Override
                    Object at(int i) {
                        return values[i];
                    }
                };
            }

            @Override
            public int size() {
                return values.length;
            }

            @Override
            public boolean contains(Object o) {
                return containsValue(o);
            }
        });
    }

    @Override
    public Set<Map.Entry<String, Object>> entrySet() {
        return Collections.unmodifiableSet(new AbstractSet<>() {
            @Override
            public Iterator<Map.Entry<String, Object>> iterator() {
                return new Cursor<>() {
                    @Override
                    Map.Entry<String, Object> at(int i) {
                        return new AbstractMap.SimpleImmutableEntry<>(keys.names[i], values[i]);
                    }
                };
            }

            @Override
            public int size() {
                return values.length;
            }

            @Override
            public boolean contains(Object o) {
                if (!(o instanceof Map.Entry<?, ?> e)) {
                    return false;
                }
                int i = keys.indexOf(e.getKey());
                return i >= 0 && Objects.equals(values[i], e.getValue());
            }
        });
    }

    /** An iterator over positions {@code 0..size-1}; no remove. */
    private abstract class Cursor<T> implements Iterator<T> {
        private int next;

        abstract T at(int i);

        @Override
        public boolean hasNext() {
            return next < values.length;
        }

        @Override
        public T next() {
            if (next >= values.length) {
                throw new NoSuchElementException();
            }
            return at(next++);
        }
    }

    // ---- equality, hash code, string form: as AbstractMap ---------------------------------------------------

    @Override
    public boolean equals(Object o) {
        if (o == this) {
            return true;
        }
        if (!(o instanceof Map<?, ?> m) || m.size() != values.length) {
            return false;
        }
        String[] names = keys.names;
        if (o instanceof PropertyMap p && p.keys.sameNames(keys)) {
            for (int i = 0; i < names.length; i++) {
                if (!Objects.equals(values[i], p.values[i])) {
                    return false;
                }
            }
            return true;
        }
        try {
            for (int i = 0; i < names.length; i++) {
                Object v = values[i];
                if (v == null ? m.get(names[i]) != null || !m.containsKey(names[i]) : !v.equals(m.get(names[i]))) {
                    return false;
                }
            }
        } catch (ClassCastException | NullPointerException unused) {
            return false;
        }
        return true;
    }

    @Override
    public int hashCode() {
        String[] names = keys.names;
        int h = 0;
        for (int i = 0; i < names.length; i++) {
            h += Objects.hashCode(names[i]) ^ Objects.hashCode(values[i]);
        }
        return h;
    }

    @Override
    public String toString() {
        String[] names = keys.names;
        StringBuilder sb = new StringBuilder().append('{');
        for (int i = 0; i < names.length; i++) {
            if (i > 0) {
                sb.append(", ");
            }
            Object v = values[i];
            sb.append(names[i]).append('=').append(v == this ? "(this Map)" : v);
        }
        return sb.append('}').toString();
    }

    // ---- mutators: unsupported ----------------------------------------------------------------------------

    @Override
    public Object put(String key, Object value) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Object remove(Object key) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void putAll(Map<? extends String, ?> m) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void clear() {
        throw new UnsupportedOperationException();
    }

    @Override
    public void replaceAll(BiFunction<? super String, ? super Object, ?> function) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Object putIfAbsent(String key, Object value) {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean remove(Object key, Object value) {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean replace(String key, Object oldValue, Object newValue) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Object replace(String key, Object value) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Object computeIfAbsent(String key, Function<? super String, ?> mappingFunction) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Object computeIfPresent(String key, BiFunction<? super String, ? super Object, ?> remappingFunction) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Object compute(String key, BiFunction<? super String, ? super Object, ?> remappingFunction) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Object merge(String key, Object value, BiFunction<? super Object, ? super Object, ?> remappingFunction) {
        throw new UnsupportedOperationException();
    }

    /**
     * The keys of a property map, in order, known to be distinct (by {@code equals}); immutable, so maps with the
     * same keys in the same order share one. Up to {@link #LINEAR} keys are looked up by a linear scan, more through
     * a hash index built with the shape (the duplicate check needs one anyway): a {@link HashMap}, whose tree bins
     * keep even keys chosen to collide (strings with equal hash codes) at O(log n) per key.
     */
    static final class Keys {
        /** Most keys looked up and checked for duplicates by linear scans. */
        static final int LINEAR = 8;
        static final Keys EMPTY = new Keys(new String[0], null);

        private final String[] names;
        /** Position of each key; null for up to {@link #LINEAR} keys. */
        private final HashMap<String, Integer> index;

        private Keys(String[] names, HashMap<String, Integer> index) {
            this.names = names;
            this.index = index;
        }

        /**
         * The shape of {@code names} (owned by the shape from now on), or null if a key occurs twice. O(n log n) at
         * worst in the number of keys (quadratic only up to {@link #LINEAR} keys).
         */
        static Keys distinct(String[] names) {
            int n = names.length;
            if (n == 0) {
                return EMPTY;
            }
            if (n <= LINEAR) {
                for (int i = 1; i < n; i++) {
                    for (int j = 0; j < i; j++) {
                        if (Objects.equals(names[i], names[j])) {
                            return null;
                        }
                    }
                }
                return new Keys(names, null);
            }
            // HashMap.newHashMap(n) (Java 19+) does this: room for n mappings without a resize
            HashMap<String, Integer> index = new HashMap<>((int) Math.ceil(n / 0.75));
            for (int i = 0; i < n; i++) {
                if (index.putIfAbsent(names[i], i) != null) {
                    return null;
                }
            }
            return new Keys(names, index);
        }

        /** The first key of {@code names[0..n)} that equals an earlier one, for error messages; null if none. */
        static String firstDuplicate(String[] names, int n) {
            Set<String> seen = new HashSet<>();
            for (int i = 0; i < n; i++) {
                if (!seen.add(names[i])) {
                    return names[i];
                }
            }
            return null;
        }

        int size() {
            return names.length;
        }

        String name(int i) {
            return names[i];
        }

        /** True if this shape's keys are exactly {@code k[0..n)}, in order (then those are distinct too). */
        boolean matches(String[] k, int n) {
            String[] names = this.names;
            if (names.length != n) {
                return false;
            }
            for (int i = 0; i < n; i++) {
                String a = k[i], b = names[i];
                if (a != b && (a == null || !a.equals(b))) {
                    return false;
                }
            }
            return true;
        }

        /** True if {@code other} has the same keys in the same order. */
        boolean sameNames(Keys other) {
            return other == this || Arrays.equals(names, other.names);
        }

        /** Position of {@code key}, or -1. */
        int indexOf(Object key) {
            String[] names = this.names;
            if (index != null) {
                Integer i = index.get(key);
                return i == null ? -1 : i;
            }
            if (key == null) {
                for (int i = 0; i < names.length; i++) {
                    if (names[i] == null) {
                        return i;
                    }
                }
                return -1;
            }
            for (int i = 0; i < names.length; i++) {
                if (key.equals(names[i])) {
                    return i;
                }
            }
            return -1;
        }
    }
}
