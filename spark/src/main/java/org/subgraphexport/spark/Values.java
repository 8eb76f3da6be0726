package org.subgraphexport.spark;

import java.util.List;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.ExtensionTypeVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A column of the Arrow stream read as Spark's internal values (the types of {@link Layout#sparkType}): each
 * {@link Getter} is made once per stream for one vector, which Arrow reloads batch after batch. Dictionary-encoded
 * strings (labels, types) are decoded once per dictionary entry.
 */
final class Values {
    private Values() {}

    /** Row {@code i}'s value of one column, or null. */
    @FunctionalInterface
    interface Getter {
        Object get(int i);
    }

    /** A dictionary's entries as Spark strings, extended when a delta dictionary batch added some. */
    static final class Strings {
        private final ArrowStream stream;
        private final long id;
        private UTF8String[] cached = new UTF8String[0];

        Strings(ArrowStream stream, long id) {
            this.stream = stream;
            this.id = id;
        }

        UTF8String get(int index) {
            if (index >= cached.length) {
                Dictionary d = stream.dictionary(id);
                VarCharVector v = (VarCharVector) d.getVector();
                int n = v.getValueCount();
                if (index >= n) {
                    throw new IllegalStateException("dictionary " + id + " has " + n + " entries, a row uses entry " + index);
                }
                UTF8String[] more = java.util.Arrays.copyOf(cached, n);
                for (int k = cached.length; k < n; k++) {
                    more[k] = v.isNull(k) ? null : UTF8String.fromBytes(v.get(k));
                }
                cached = more;
            }
            return cached[index];
        }
    }

    /**
     * Row {@code i}'s string where Arrow holds it, not copied (as Spark's own {@code ArrowColumnVector} does): valid
     * until the next batch is loaded, and Spark copies each row it is given before it asks for the next.
     */
    static UTF8String inPlace(VarCharVector v, int i) {
        long start = v.getOffsetBuffer().getInt((long) i * 4), end = v.getOffsetBuffer().getInt((long) i * 4 + 4);
        return UTF8String.fromAddress(null, v.getDataBuffer().memoryAddress() + start, (int) (end - start));
    }

    /** Element ids: a prefix and the numeric id in signed decimal, written straight into UTF-8 bytes. */
    static final class ElementIds {
        private final byte[] prefix;

        ElementIds(String prefix) {
            this.prefix = prefix.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }

        UTF8String of(long id) {
            if (id < 0 || id > Integer.MAX_VALUE) {  // rare: the JDK's conversion
                byte[] digits = Long.toString(id).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                byte[] b = java.util.Arrays.copyOf(prefix, prefix.length + digits.length);
                System.arraycopy(digits, 0, b, prefix.length, digits.length);
                return UTF8String.fromBytes(b);
            }
            int rest = (int) id;
            int digits = 1;
            while (digits < 10 && rest >= TENS[digits]) digits++;
            byte[] b = java.util.Arrays.copyOf(prefix, prefix.length + digits);
            for (int k = b.length - 1; k >= prefix.length; k--) {
                int q = rest / 10;  // int division by a constant: a multiplication
                b[k] = (byte) ('0' + rest - q * 10);
                rest = q;
            }
            return UTF8String.fromBytes(b);
        }

        private static final int[] TENS = {1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000,
                1_000_000_000};
    }

    static Getter of(ValueVector v, ArrowStream stream) {
        DictionaryEncoding dictionary = v.getField().getDictionary();
        if (dictionary != null) {
            BaseIntVector indices = (BaseIntVector) v;
            Strings strings = new Strings(stream, dictionary.getId());
            return i -> v.isNull(i) ? null : strings.get((int) indices.getValueAsLong(i));
        }
        if (v instanceof ExtensionTypeVector<?> e) {
            return of(e.getUnderlyingVector(), stream);
        }
        if (v instanceof BigIntVector x) return i -> x.isNull(i) ? null : (Object) x.get(i);
        if (v instanceof IntVector x) return i -> x.isNull(i) ? null : (Object) x.get(i);
        if (v instanceof SmallIntVector x) return i -> x.isNull(i) ? null : (Object) x.get(i);
        if (v instanceof TinyIntVector x) return i -> x.isNull(i) ? null : (Object) x.get(i);
        if (v instanceof UInt2Vector x) return i -> x.isNull(i) ? null : (Object) (int) x.get(i);
        if (v instanceof Float8Vector x) return i -> x.isNull(i) ? null : (Object) x.get(i);
        if (v instanceof Float4Vector x) return i -> x.isNull(i) ? null : (Object) x.get(i);
        if (v instanceof BitVector x) return i -> x.isNull(i) ? null : (Object) (x.get(i) != 0);
        if (v instanceof VarCharVector x) return i -> x.isNull(i) ? null : inPlace(x, i);
        if (v instanceof VarBinaryVector x) return i -> x.isNull(i) ? null : x.get(i);
        if (v instanceof FixedSizeBinaryVector x) return i -> x.isNull(i) ? null : x.get(i);
        if (v instanceof DateDayVector x) return i -> x.isNull(i) ? null : (Object) x.get(i);
        if (v instanceof TimeNanoVector x) return i -> x.isNull(i) ? null : (Object) x.get(i);
        if (v instanceof TimeStampVector x) return i -> x.isNull(i) ? null : (Object) x.get(i);
        if (v instanceof ListVector x) {
            Getter element = of(x.getDataVector(), stream);
            return i -> {
                if (x.isNull(i)) return null;
                int from = x.getElementStartIndex(i), to = x.getElementEndIndex(i);
                Object[] values = new Object[to - from];
                for (int k = from; k < to; k++) {
                    values[k - from] = element.get(k);
                }
                return new GenericArrayData(values);
            };
        }
        if (v instanceof StructVector x) {
            List<FieldVector> children = x.getChildrenFromFields();
            Getter[] getters = new Getter[children.size()];
            for (int k = 0; k < getters.length; k++) {
                getters[k] = of(children.get(k), stream);
            }
            return i -> {
                if (x.isNull(i)) return null;
                Object[] values = new Object[getters.length];
                for (int k = 0; k < getters.length; k++) {
                    values[k] = getters[k].get(i);
                }
                return new GenericInternalRow(values);
            };
        }
        throw new IllegalStateException("the export has a column of Arrow type " + v.getField().getType() + " ("
                + v.getField().getName() + ") that this source does not know: a newer server?");
    }
}
