package org.subgraphexport.client.internal;

import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Content equality, hashing and printing for property maps and row values whose values may be arrays. */
public final class Values {
    private Values() {}

    public static boolean propertiesEqual(Map<String, Object> a, Map<String, Object> b) {
        if (a.size() != b.size()) {
            return false;
        }
        if (a instanceof PropertyMap x && b instanceof PropertyMap y && x.keys.sameNames(y.keys)) {
            for (int i = 0, n = x.size(); i < n; i++) {
                if (!Objects.deepEquals(x.valueAt(i), y.valueAt(i))) {
                    return false;
                }
            }
            return true;
        }
        for (Map.Entry<String, Object> e : a.entrySet()) {
            if (!b.containsKey(e.getKey()) || !Objects.deepEquals(e.getValue(), b.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    public static int propertiesHash(Map<String, Object> properties) {
        int h = 0;
        for (Map.Entry<String, Object> e : properties.entrySet()) {
            h += e.getKey().hashCode() ^ Arrays.deepHashCode(new Object[] {e.getValue()});
        }
        return h;
    }

    public static String toString(Map<String, Object> properties) {
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

    /** Equality of row values: lists element by element, maps entry by entry (any order), arrays by content. */
    public static boolean deepEquals(Object a, Object b) {
        if (a instanceof List<?> x && b instanceof List<?> y) {
            if (x.size() != y.size()) {
                return false;
            }
            Iterator<?> i = x.iterator(), j = y.iterator();
            while (i.hasNext()) {
                if (!deepEquals(i.next(), j.next())) {
                    return false;
                }
            }
            return true;
        }
        if (a instanceof Map<?, ?> x && b instanceof Map<?, ?> y) {
            if (x.size() != y.size()) {
                return false;
            }
            for (Map.Entry<?, ?> e : x.entrySet()) {
                if (!y.containsKey(e.getKey()) || !deepEquals(e.getValue(), y.get(e.getKey()))) {
                    return false;
                }
            }
            return true;
        }
        return Objects.deepEquals(a, b);
    }

    /** A hash code consistent with {@link #deepEquals}. */
    public static int deepHash(Object v) {
        if (v instanceof List<?> list) {
            int h = 1;
            for (Object e : list) {
                h = 31 * h + deepHash(e);
            }
            return h;
        }
        if (v instanceof Map<?, ?> map) {
            int h = 0;
            for (Map.Entry<?, ?> e : map.entrySet()) {
                h += Objects.hashCode(e.getKey()) ^ deepHash(e.getValue());
            }
            return h;
        }
        return Arrays.deepHashCode(new Object[] {v});
    }

    /** Row values printed with array contents. */
    public static String deepToString(Object v) {
        StringBuilder sb = new StringBuilder();
        append(sb, v);
        return sb.toString();
    }

    private static void append(StringBuilder sb, Object v) {
        if (v instanceof List<?> list) {
            sb.append('[');
            String sep = "";
            for (Object e : list) {
                sb.append(sep);
                append(sb, e);
                sep = ", ";
            }
            sb.append(']');
        } else if (v instanceof Map<?, ?> map) {
            sb.append('{');
            String sep = "";
            for (Map.Entry<?, ?> e : map.entrySet()) {
                sb.append(sep).append(e.getKey()).append('=');
                append(sb, e.getValue());
                sep = ", ";
            }
            sb.append('}');
        } else {
            String s = Arrays.deepToString(new Object[] {v});
            sb.append(s, 1, s.length() - 1);
        }
    }
}
