package org.subgraphexport.encode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The hand-written FlatBuffers builder of the Arrow message headers, read back by {@link ArrowStreamReader.Fb}
 * (which checks what the FlatBuffers verifier checks: every scalar aligned to its size from the buffer's start,
 * tables 4-aligned after their vtables, offsets inside the buffer) at every size from empty to past its first
 * 512-byte buffer, so that each padding and growth step lands on a buffer's end somewhere; and one small table
 * byte for byte.
 */
class FlatBufferTest {
    @Test
    void aSmallTableByteForByte() {
        byte[] b = FlatBuffer.finish(new FlatBuffer.Table().int16(0, 4).int8(1, 3).child(2, "ab").int64(3, -2));
        // the root's offset (20); zeros to the vtable; the vtable: its size 12, the table's 19, the slots' offsets
        // (16, 18, 12, 4); the table: its soffset (12), the int64, the string's offset (8), the int16, the int8; a
        // zero to align the string: its length, "ab", NUL; a zero to a multiple of 8
        assertEquals("14000000" + "00000000" + "0c001300" + "10001200" + "0c000400" + "0c000000" + "feffffffffffffff"
                + "08000000" + "0400" + "03" + "00" + "02000000" + "616200" + "00", HexFormat.of().formatHex(b));
    }

    @Test
    void everyShapeReadsBackAtEverySize() {
        for (int n = 0; n < 700; n++) {
            String text = "x".repeat(n);
            List<FlatBuffer.Table> items = new ArrayList<>();
            for (int i = 0; i < n % 4; i++) {
                items.add(new FlatBuffer.Table().child(0, text.substring(0, Math.min(n, i * 37))).int8(1, i));
            }
            int[] ints = new int[n % 7];
            for (int i = 0; i < ints.length; i++) {
                ints[i] = -i * 1_000_001;
            }
            long[] pairs = new long[2 * (n % 5)];
            for (int i = 0; i < pairs.length; i++) {
                pairs[i] = Long.MIN_VALUE + i;
            }
            FlatBuffer.Table root = new FlatBuffer.Table()
                    .child(9, text)
                    .bool(0, n % 2 == 0)
                    .int8(1, -n % 128)
                    .int16(2, -n * 31)
                    .int32(3, n * 1_000_003)
                    .int64(4, -n * 1_000_000_007L)
                    .child(5, items)
                    .child(6, ints)
                    .child(7, pairs)
                    .child(8, new FlatBuffer.Table().int64(0, n).child(1, List.of(text)));
            byte[] b = FlatBuffer.finish(root);
            String at = "size " + n;
            assertEquals(0, b.length % 8, at);
            ArrowStreamReader.Fb t = ArrowStreamReader.Fb.root(b, 0, b.length);
            assertEquals(n % 2 == 0 ? 1 : 0, t.scalar(0, 1), at);
            assertEquals((byte) (-n % 128), t.scalar(1, 1), at);
            assertEquals((short) (-n * 31), t.scalar(2, 2), at);
            assertEquals(n * 1_000_003, t.scalar(3, 4), at);
            assertEquals(-n * 1_000_000_007L, t.scalar(4, 8), at);
            List<ArrowStreamReader.Fb> read = t.tables(5);
            assertEquals(n % 4, read.size(), at);
            for (int i = 0; i < read.size(); i++) {
                assertEquals(text.substring(0, Math.min(n, i * 37)), read.get(i).string(0), at);
                assertEquals(i, read.get(i).scalar(1, 1), at);
            }
            assertArrayEquals(ints, t.ints(6), at);
            assertArrayEquals(pairs, t.structs(7), at);
            ArrowStreamReader.Fb child = t.table(8);
            assertEquals(n, child.scalar(0, 8), at);
            assertEquals(List.of(text), child.strings(1), at);
            assertEquals(text, t.string(9), at);
            assertFalse(t.has(10), at);
            assertNull(t.table(11), at);
        }
    }

    /**
     * A table wider than Arrow's (which have at most 10 slots): 140 slots and 40 longs, so that the vtable's size,
     * the table's inline size and field offsets need their second byte.
     */
    @Test
    void aTableWithSizesAndOffsetsPast255ReadsBack() {
        FlatBuffer.Table t = new FlatBuffer.Table();
        for (int i = 0; i < 40; i++) {
            t.int64(i, 1000L * i - 7);
        }
        t.int32(100, -5).child(139, "last");
        byte[] b = FlatBuffer.finish(t);
        ArrowStreamReader.Fb read = ArrowStreamReader.Fb.root(b, 0, b.length);
        assertEquals(4 + 2 * 140, read.vtableSize);
        assertEquals(4 + 8 * 40 + 4 + 4, read.inline);
        for (int i = 0; i < 40; i++) {
            assertEquals(1000L * i - 7, read.scalar(i, 8));
        }
        assertFalse(read.has(41));
        assertEquals(-5, read.scalar(100, 4));
        assertEquals("last", read.string(139));
    }
}
