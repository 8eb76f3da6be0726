package org.subgraphexport.client;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/** Content equality, hashing and printing for property maps whose values may be arrays. */
final class Values {
    private Values() {}

    static Map<String, Object> freeze(Map<String, Object> properties) {
        return Collections.unmodifiableMap(properties instanceof LinkedHashMap<String, Object> m
                ? m : new LinkedHashMap<>(properties));
    }

    static boolean propertiesEqual(Map<String, Object> a, Map<String, Object> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (Map.Entry<String, Object> e : a.entrySet()) {
            if (!b.containsKey(e.getKey()) || !Objects.deepEquals(e.getValue(), b.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    static int propertiesHash(Map<String, Object> properties) {
        int h = 0;
        for (Map.Entry<String, Object> e : properties.entrySet()) {
            h += e.getKey().hashCode() ^ Arrays.deepHashCode(new Object[] {e.getValue()});
        }
        return h;
    }

    static String toString(Map<String, Object> properties) {
        StringBuilder sb = new StringBuilder("{");
        for (Map.Entry<String, Object> e : properties.entrySet()) {
            if (sb.length() > 1) {
                sb.append(", ");
            }
            String v = Arrays.deepToString(new Object[] {e.getValue()});
            sb.append(e.getKey()).append('=').append(v, 1, v.length() - 1);
        }
        return sb.append('}').toString();
    }
}
