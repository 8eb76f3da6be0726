package org.subgraphexport.client;

import java.util.Arrays;
import java.util.Objects;
import org.subgraphexport.wire.ValueSink.VectorKind;

/**
 * A vector value.
 *
 * @param kind   coordinate type
 * @param values the coordinates as the primitive array of {@code kind}: byte[] (INT8), short[] (INT16), int[]
 *               (INT32), long[] (INT64), float[] (FLOAT32) or double[] (FLOAT64). Equality goes by content.
 */
public record VectorValue(VectorKind kind, Object values) {
    public VectorValue {
        Objects.requireNonNull(kind, "kind");
        boolean ok = switch (kind) {
            case INT8 -> values instanceof byte[];
            case INT16 -> values instanceof short[];
            case INT32 -> values instanceof int[];
            case INT64 -> values instanceof long[];
            case FLOAT32 -> values instanceof float[];
            case FLOAT64 -> values instanceof double[];
        };
        if (!ok) {
            throw new IllegalArgumentException("values of a " + kind + " vector must be its primitive array, not "
                    + (values == null ? "null" : values.getClass().getSimpleName()));
        }
    }

    /** Number of coordinates. */
    public int length() {
        return java.lang.reflect.Array.getLength(values);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof VectorValue v && kind == v.kind && Objects.deepEquals(values, v.values);
    }

    @Override
    public int hashCode() {
        return kind.hashCode() * 31 + Arrays.deepHashCode(new Object[] {values});
    }

    @Override
    public String toString() {
        String v = Arrays.deepToString(new Object[] {values});
        return "VectorValue[kind=" + kind + ", values=" + v.substring(1, v.length() - 1) + "]";
    }
}
