package org.subgraphexport.encode;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * One column of the {@code arrow} format being filled for the current record batch: its Arrow field (name, type,
 * children, dictionary, metadata) and its buffers in Arrow's layout (validity bitmap, little-endian values,
 * int32 offsets). Appending grows the buffers; {@link #reset} empties them for the next batch, keeping their memory.
 * Past {@link #length}, the validity bits and fixed-width data are zero, so that nulls cost no writes there: a run
 * of nulls in a fixed-width or boolean column only moves {@link #length}; its arrays grow when a value or the batch
 * needs them.
 */
abstract sealed class ArrowColumn permits ArrowColumn.Fixed, ArrowColumn.Bool, ArrowColumn.Offsets,
        ArrowColumn.Struct, ArrowColumn.DenseUnion {
    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    // Schema.fbs Type union
    static final int T_INT = 2, T_FLOAT = 3, T_BINARY = 4, T_UTF8 = 5, T_BOOL = 6, T_DATE = 8, T_TIME = 9,
            T_TIMESTAMP = 10, T_LIST = 12, T_STRUCT = 13, T_UNION = 14, T_FIXED_SIZE_BINARY = 15;

    final String name;
    /** Field metadata, or null. */
    final Map<String, String> metadata;
    /** Values in this batch (nulls included). */
    int length;
    private byte[] validity = new byte[64];
    /** False where a null needs no data written (fixed-width and boolean columns: their zeros are there). */
    private final boolean padsData;

    ArrowColumn(String name, Map<String, String> metadata) {
        this(name, metadata, true);
    }

    ArrowColumn(String name, Map<String, String> metadata, boolean padsData) {
        this.name = name;
        this.metadata = metadata;
        this.padsData = padsData;
    }

    // ---- the field ----------------------------------------------------------------------------------------

    /** The Type union member's id. */
    abstract int typeId();

    /** The Type union member's table. */
    abstract FlatBuffer.Table type();

    List<ArrowColumn> children() {
        return List.of();
    }

    /** The dictionary id of a dictionary-encoded column, else -1. */
    long dictionaryId() {
        return -1;
    }

    // ---- values -------------------------------------------------------------------------------------------

    /** Marks the next value valid; the subclass appends its data. */
    final void valid() {
        bit(true);
    }

    /** Appends a null. */
    final void appendNull() {
        padTo(length + 1);
    }

    /** Appends nulls until the column holds {@code n} values (their bits are zero already, or past the array). */
    final void padTo(int n) {
        int from = length;
        if (from >= n) {
            return;
        }
        length = n;
        if (padsData) {
            nullData(from, n);
        }
    }

    private void bit(boolean set) {
        int i = length++;
        if (i >> 3 >= validity.length) {
            validity = Arrays.copyOf(validity, Math.max((i >> 3) + 1, validity.length * 2));
        }
        if (set) {
            validity[i >> 3] |= (byte) (1 << (i & 7));
        }
    }

    /** The data of nulls {@code from} to {@code to}, counted in {@link #length} already (where it pads data). */
    void nullData(int from, int to) {}

    /** Zeroes the bits of values {@code from} to {@code to} (dropped from the end). */
    private void clearBits(int from, int to) {
        for (int i = from; i < Math.min(to, 8 * validity.length); i++) {  // a union has no bits
            validity[i >> 3] &= (byte) ~(1 << (i & 7));
        }
    }

    /** Bytes of data held, about: for the batch size. */
    abstract long bytes();

    /** Drops everything after the first {@code n} values (the record an error cut short). */
    void truncate(int n) {
        clearBits(n, length);
        length = n;
    }

    /** Empties the column and its children for the next batch. */
    void reset() {
        Arrays.fill(validity, 0, Math.min(validity.length, (length + 7) >> 3), (byte) 0);  // a union has no bits
        length = 0;
        for (ArrowColumn c : children()) {
            c.reset();
        }
    }

    // ---- the batch ----------------------------------------------------------------------------------------

    /** This column's and its children's field nodes and buffers, in Arrow's pre-order, into {@code batch}. */
    void emit(ArrowBatch batch) {
        int bytes = (length + 7) >> 3;
        if (validity.length < bytes) {  // nulls at the end, past the array: zeros
            validity = Arrays.copyOf(validity, bytes);
        }
        int valid = 0;
        for (int i = 0; i < bytes; i++) {  // the bits past the end are zero
            valid += Integer.bitCount(validity[i] & 0xFF);
        }
        int nulls = length - valid;
        batch.node(length, nulls);
        batch.buffer(validity, nulls == 0 ? 0 : bytes);  // all valid: Arrow allows the bitmap left out
        dataBuffers(batch);
        for (ArrowColumn c : children()) {
            c.emit(batch);
        }
    }

    /** The buffers after the validity bitmap. */
    abstract void dataBuffers(ArrowBatch batch);

    // ---- kinds of columns ---------------------------------------------------------------------------------

    /** Fixed-width values: integers, floats, dates, times, timestamps, fixed-size binary, dictionary indexes. */
    static final class Fixed extends ArrowColumn {
        private final int width;
        private final int typeId;
        private final FlatBuffer.Table type;
        private final long dictionaryId;
        private final int indexBits;
        byte[] data = new byte[256];

        Fixed(String name, Map<String, String> metadata, int width, int typeId, FlatBuffer.Table type) {
            this(name, metadata, width, typeId, type, -1);
        }

        /** A dictionary-encoded column: signed indexes of {@code width} bytes into dictionary {@code dictionaryId},
         *  whose values have type {@code typeId}/{@code type}. */
        Fixed(String name, Map<String, String> metadata, int width, int typeId, FlatBuffer.Table type,
              long dictionaryId) {
            super(name, metadata, false);
            this.width = width;
            this.typeId = typeId;
            this.type = type;
            this.dictionaryId = dictionaryId;
            this.indexBits = 8 * width;
        }

        @Override
        int typeId() {
            return typeId;
        }

        @Override
        FlatBuffer.Table type() {
            return type;
        }

        @Override
        long dictionaryId() {
            return dictionaryId;
        }

        /** The dictionary's index type, Int(bitWidth, signed). */
        FlatBuffer.Table indexType() {
            return new FlatBuffer.Table().int32(0, indexBits).bool(1, true);
        }

        /** Room for one more value; returns its byte position. */
        private int slot() {
            int at = length * width;
            if (at + width > data.length) {
                data = Arrays.copyOf(data, Math.max(at + width, data.length * 2));
            }
            valid();
            return at;
        }

        void int8(int v) {
            int at = slot();
            data[at] = (byte) v;
        }

        void int16(int v) {
            int at = slot();  // first: it may grow data
            SHORT.set(data, at, (short) v);
        }

        void int32(int v) {
            int at = slot();  // first: it may grow data
            INT.set(data, at, v);
        }

        void int64(long v) {
            int at = slot();  // first: it may grow data
            LONG.set(data, at, v);
        }

        void float32(float v) {
            int at = slot();  // first: it may grow data
            INT.set(data, at, Float.floatToIntBits(v));  // NaN canonical, as in every format
        }

        void float64(double v) {
            int at = slot();  // first: it may grow data
            LONG.set(data, at, Double.doubleToLongBits(v));
        }

        /** 16 bytes: a UUID, most significant byte first (RFC 4122 order, as arrow.uuid holds it). */
        void uuid(long msb, long lsb) {
            int at = slot();
            for (int i = 0; i < 8; i++) {
                data[at + i] = (byte) (msb >>> (56 - 8 * i));
                data[at + 8 + i] = (byte) (lsb >>> (56 - 8 * i));
            }
        }

        @Override
        void truncate(int n) {
            Arrays.fill(data, Math.min(n * width, data.length), Math.min(length * width, data.length), (byte) 0);
            super.truncate(n);
        }

        @Override
        void reset() {
            Arrays.fill(data, 0, Math.min(length * width, data.length), (byte) 0);
            super.reset();
        }

        @Override
        long bytes() {
            return (long) length * width;
        }

        @Override
        void dataBuffers(ArrowBatch batch) {
            if (data.length < length * width) {  // nulls at the end, past the array: zeros
                data = Arrays.copyOf(data, length * width);
            }
            batch.buffer(data, length * width);
        }
    }

    /** Booleans, one bit each. */
    static final class Bool extends ArrowColumn {
        private byte[] bits = new byte[64];

        Bool(String name, Map<String, String> metadata) {
            super(name, metadata, false);
        }

        @Override
        int typeId() {
            return T_BOOL;
        }

        @Override
        FlatBuffer.Table type() {
            return new FlatBuffer.Table();
        }

        void bool(boolean v) {
            int i = length;
            valid();
            set(i, v);
        }

        private void set(int i, boolean v) {
            if (i >> 3 >= bits.length) {
                bits = Arrays.copyOf(bits, Math.max((i >> 3) + 1, bits.length * 2));
            }
            if (v) {
                bits[i >> 3] |= (byte) (1 << (i & 7));
            }
        }

        @Override
        void truncate(int n) {
            for (int i = n; i < Math.min(length, 8 * bits.length); i++) {
                bits[i >> 3] &= (byte) ~(1 << (i & 7));
            }
            super.truncate(n);
        }

        @Override
        void reset() {
            Arrays.fill(bits, 0, Math.min((length + 7) >> 3, bits.length), (byte) 0);
            super.reset();
        }

        @Override
        long bytes() {
            return length >> 3;
        }

        @Override
        void dataBuffers(ArrowBatch batch) {
            if (bits.length < (length + 7) >> 3) {  // nulls at the end, past the array: zeros
                bits = Arrays.copyOf(bits, (length + 7) >> 3);
            }
            batch.buffer(bits, (length + 7) >> 3);  // the bits past the end are zero
        }
    }

    /**
     * A column of int32 offsets, {@code length + 1} of them, into what holds its values (bytes, or a child column):
     * value {@code i} spans {@code offsets[i]} to {@code offsets[i + 1]}.
     */
    abstract static sealed class Offsets extends ArrowColumn permits Variable, ListColumn {
        private byte[] offsets = new byte[256];

        Offsets(String name, Map<String, String> metadata) {
            super(name, metadata);
        }

        /** Where the values held so far end (bytes, or child values). */
        abstract int valuesEnd();

        /** Cuts the values back to end at {@code end}. */
        abstract void truncateValues(int end);

        /** Starts a value; its contents follow, then {@link #end}. */
        final void begin() {
            valid();
        }

        /** Ends the value begun last, where the values now end. */
        final void end() {
            offset(length, valuesEnd());
        }

        private void offset(int index, int value) {
            int at = 4 * index;
            if (at + 4 > offsets.length) {
                offsets = Arrays.copyOf(offsets, Math.max(at + 4, offsets.length * 2));
            }
            INT.set(offsets, at, value);
        }

        @Override
        final void nullData(int from, int to) {
            int end = valuesEnd();
            if (4 * (to + 1) > offsets.length) {
                offsets = Arrays.copyOf(offsets, Math.max(4 * (to + 1), offsets.length * 2));
            }
            for (int i = from + 1; i <= to; i++) {
                INT.set(offsets, 4 * i, end);
            }
        }

        @Override
        void truncate(int n) {
            super.truncate(n);
            truncateValues((int) INT.get(offsets, 4 * n));
        }

        @Override
        void reset() {
            super.reset();
            offset(0, 0);
        }

        @Override
        void dataBuffers(ArrowBatch batch) {
            offset(0, 0);
            batch.buffer(offsets, 4 * (length + 1));
        }
    }

    /** Variable-length values: UTF-8 strings ({@code utf8}) or bytes ({@code binary}). */
    static final class Variable extends Offsets {
        private final boolean utf8;
        final WireBuffer data = new WireBuffer(1024);

        Variable(String name, Map<String, String> metadata, boolean utf8) {
            super(name, metadata);
            this.utf8 = utf8;
        }

        @Override
        int typeId() {
            return utf8 ? T_UTF8 : T_BINARY;
        }

        @Override
        FlatBuffer.Table type() {
            return new FlatBuffer.Table();
        }

        void string(String s) {
            begin();
            data.utf8(s, 0, s.length(), null, 0);
            end();
        }

        void bytes(byte[] b, int offset, int n) {
            begin();
            data.bytes(b, offset, n);
            end();
        }

        @Override
        int valuesEnd() {
            return data.pos;
        }

        @Override
        void truncateValues(int end) {
            data.pos = end;
        }

        @Override
        long bytes() {
            return 4L * length + data.pos;
        }

        @Override
        void reset() {
            super.reset();
            data.pos = 0;
        }

        @Override
        void dataBuffers(ArrowBatch batch) {
            super.dataBuffers(batch);
            batch.buffer(data.buf, data.pos);
        }
    }

    /** A list of values of one child column: its elements go into {@link #child} between begin and end. */
    static final class ListColumn extends Offsets {
        final ArrowColumn child;

        ListColumn(String name, Map<String, String> metadata, ArrowColumn child) {
            super(name, metadata);
            this.child = child;
        }

        @Override
        int typeId() {
            return T_LIST;
        }

        @Override
        FlatBuffer.Table type() {
            return new FlatBuffer.Table();
        }

        @Override
        List<ArrowColumn> children() {
            return List.of(child);
        }

        @Override
        int valuesEnd() {
            return child.length;
        }

        @Override
        void truncateValues(int end) {
            child.truncate(end);
        }

        @Override
        long bytes() {
            return 4L * length + child.bytes();
        }

    }

    /** A struct of child columns, all as long as it. */
    static final class Struct extends ArrowColumn {
        final List<ArrowColumn> children;

        Struct(String name, Map<String, String> metadata, List<ArrowColumn> children) {
            super(name, metadata);
            this.children = children;
        }

        @Override
        int typeId() {
            return T_STRUCT;
        }

        @Override
        FlatBuffer.Table type() {
            return new FlatBuffer.Table();
        }

        @Override
        List<ArrowColumn> children() {
            return children;
        }

        ArrowColumn child(int i) {
            return children.get(i);
        }

        /** Starts a value; each child then gets exactly one value (or null). */
        void begin() {
            valid();
        }

        @Override
        void nullData(int from, int to) {
            for (ArrowColumn c : children) {
                c.padTo(to);
            }
        }

        @Override
        long bytes() {
            long n = 0;
            for (ArrowColumn c : children) {
                n += c.bytes();
            }
            return n;
        }

        @Override
        void truncate(int n) {
            super.truncate(n);
            for (ArrowColumn c : children) {
                c.truncate(Math.min(c.length, n));  // a child not yet padded holds fewer
            }
        }


        @Override
        void dataBuffers(ArrowBatch batch) {}
    }

    /**
     * A dense union of struct columns, one per group of rows (docs/wire-format.md 7.1): per row the child's type id
     * (its position) and the row's offset in that child, which holds only its own rows. Arrow gives a union no
     * validity bitmap.
     */
    static final class DenseUnion extends ArrowColumn {
        final List<Struct> children;
        private byte[] typeIds = new byte[256];
        private byte[] offsets = new byte[1024];

        DenseUnion(String name, Map<String, String> metadata, List<Struct> children) {
            super(name, metadata);
            this.children = children;
        }

        @Override
        int typeId() {
            return T_UNION;
        }

        @Override
        FlatBuffer.Table type() {
            int[] ids = new int[children.size()];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = i;
            }
            return new FlatBuffer.Table().int16(0, 1).child(1, ids);  // mode: Dense; typeIds
        }

        @Override
        List<ArrowColumn> children() {
            return List.copyOf(children);
        }

        /** The next row is row {@code offset} of child {@code child}. */
        void row(int child, int offset) {
            int i = length++;
            if (i >= typeIds.length) {
                typeIds = Arrays.copyOf(typeIds, typeIds.length * 2);
                offsets = Arrays.copyOf(offsets, offsets.length * 2);
            }
            typeIds[i] = (byte) child;
            INT.set(offsets, 4 * i, offset);
        }

        @Override
        void nullData(int from, int to) {
            throw new UnsupportedOperationException("a union row names its child");
        }

        @Override
        long bytes() {
            return 5L * length;
        }


        @Override
        void emit(ArrowBatch batch) {
            batch.node(length, 0);
            batch.buffer(typeIds, length);
            batch.buffer(offsets, 4 * length);
            for (ArrowColumn c : children) {
                c.emit(batch);
            }
        }

        @Override
        void dataBuffers(ArrowBatch batch) {}
    }
}
