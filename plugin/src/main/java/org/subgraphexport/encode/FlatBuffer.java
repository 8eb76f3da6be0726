package org.subgraphexport.encode;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal FlatBuffers builder for the Arrow IPC message headers ({@code Message.fbs}, {@code Schema.fbs}): tables
 * of scalars and offsets, strings, vectors of tables or strings, vectors of 16-byte structs (two longs). The tree is
 * built as objects, then laid out front to back: a table's vtable right before it, every child after its parent (so
 * each uoffset points forward, as the format requires), every scalar aligned to its size from the buffer's start
 * (the FlatBuffers verifier Arrow readers run checks that). Small: a message header is a few hundred bytes.
 */
final class FlatBuffer {
    private FlatBuffer() {}

    /** A table: fields by slot id (the field's position in the .fbs table). */
    static final class Table {
        private final List<long[]> scalars = new ArrayList<>();  // {slot, size, value}
        private final List<Object[]> offsets = new ArrayList<>(); // {slot, child}
        private int slots;

        Table bool(int slot, boolean v) {
            return scalar(slot, 1, v ? 1 : 0);
        }

        Table int8(int slot, int v) {
            return scalar(slot, 1, v);
        }

        Table int16(int slot, int v) {
            return scalar(slot, 2, v);
        }

        Table int32(int slot, int v) {
            return scalar(slot, 4, v);
        }

        Table int64(int slot, long v) {
            return scalar(slot, 8, v);
        }

        /** A child: a {@link Table}, a {@link String}, a {@link List} of tables or strings, an {@code int[]} (a
         *  vector of int32), or a {@code long[]} holding a vector of structs of two longs each (Arrow's FieldNode and
         *  Buffer). */
        Table child(int slot, Object child) {
            offsets.add(new Object[] {slot, child});
            slots = Math.max(slots, slot + 1);
            return this;
        }

        private Table scalar(int slot, int size, long value) {
            scalars.add(new long[] {slot, size, value});
            slots = Math.max(slots, slot + 1);
            return this;
        }
    }

    /** The bytes of a buffer whose root is {@code root}, padded with zeros to a multiple of 8. */
    static byte[] finish(Table root) {
        WireBuffer b = new WireBuffer(512);
        b.require(4);
        b.int32le(0);
        int at = write(b, root);
        WireBuffer.int32le(b.buf, 0, at);
        pad(b, 8);
        return b.toByteArray();
    }

    private static int write(WireBuffer b, Object o) {
        if (o instanceof Table t) {
            return table(b, t);
        }
        if (o instanceof String s) {
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            pad(b, 4);
            int at = b.pos;
            b.require(4 + utf8.length + 1);
            b.int32le(utf8.length);
            b.put(utf8);
            b.put(0);
            return at;
        }
        if (o instanceof long[] pairs) {  // vector of structs {long, long}: elements 8-aligned
            padTo(b, 8, 4);
            int at = b.pos;
            b.require(4 + 8 * pairs.length);
            b.int32le(pairs.length / 2);
            for (long v : pairs) {
                b.int64le(v);
            }
            return at;
        }
        if (o instanceof int[] ints) {  // vector of int32
            pad(b, 4);
            int at = b.pos;
            b.require(4 + 4 * ints.length);
            b.int32le(ints.length);
            for (int v : ints) {
                b.int32le(v);
            }
            return at;
        }
        List<?> items = (List<?>) o;  // vector of offsets to tables or strings
        pad(b, 4);
        int at = b.pos;
        b.require(4 + 4 * items.size());
        b.int32le(items.size());
        int first = b.pos;
        b.pos += 4 * items.size();
        for (int i = 0; i < items.size(); i++) {
            int child = write(b, items.get(i));
            WireBuffer.int32le(b.buf, first + 4 * i, child - (first + 4 * i));
        }
        return at;
    }

    private static int table(WireBuffer b, Table t) {
        // inline layout: soffset at 0, then scalars by falling size (8-byte ones first, at an 8-aligned position
        // because the table starts at 4 mod 8), offsets (4 bytes) with the 4-byte scalars
        int[] fieldAt = new int[t.slots];
        int inline = 4;
        for (int size = 8; size >= 1; size >>= 1) {
            for (long[] s : t.scalars) {
                if (s[1] == size) {
                    fieldAt[(int) s[0]] = inline;
                    inline += size;
                }
            }
            if (size == 4) {
                for (Object[] c : t.offsets) {
                    fieldAt[(Integer) c[0]] = inline;
                    inline += 4;
                }
            }
        }
        int vtableSize = 4 + 2 * t.slots;
        pad(b, 2);
        // the table must start at 4 mod 8, right after the vtable (plus padding)
        int tableAt = b.pos + vtableSize;
        while (tableAt % 8 != 4) {
            tableAt += 2;
        }
        int vtableAt = tableAt - vtableSize;
        b.require(tableAt - b.pos + inline);
        while (b.pos < vtableAt) {
            b.put(0);
        }
        b.put(vtableSize & 0xFF, vtableSize >>> 8);         // vtable: its size, the table's inline size
        b.put(inline & 0xFF, inline >>> 8);
        for (int at : fieldAt) {                            // each slot's offset in the table, 0 = absent
            b.put(at & 0xFF, at >>> 8);
        }
        b.int32le(tableAt - vtableAt);                      // soffset: table minus vtable
        for (int i = 4; i < inline; i++) {
            b.put(0);
        }
        for (long[] s : t.scalars) {
            int p = tableAt + fieldAt[(int) s[0]];
            for (int i = 0; i < s[1]; i++) {
                b.buf[p + i] = (byte) (s[2] >>> (8 * i));
            }
        }
        for (Object[] c : t.offsets) {
            int p = tableAt + fieldAt[(Integer) c[0]];
            int child = write(b, c[1]);
            WireBuffer.int32le(b.buf, p, child - p);
        }
        return tableAt;
    }

    private static void pad(WireBuffer b, int alignment) {
        padTo(b, alignment, 0);
    }

    /** Zeros until the position is {@code rest} modulo {@code alignment}. */
    private static void padTo(WireBuffer b, int alignment, int rest) {
        b.require(alignment);
        while (b.pos % alignment != rest) {
            b.put(0);
        }
    }
}
