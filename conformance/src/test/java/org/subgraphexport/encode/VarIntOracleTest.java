package org.subgraphexport.encode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.esotericsoftware.kryo.io.Output;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The Kryo format's numbers as {@link WireBuffer} writes them, against independent oracles: Kryo 5's own
 * {@link Output} for varint, varlong (its 9-byte form included) and their zigzag forms, and {@link ByteBuffer} for the
 * big- and little-endian fixed-width numbers. Edge values (every length boundary, both signs, the extremes) and many
 * seeded-random values whose magnitudes cover every length; each value alone (its bytes and its length) and all of
 * them as one sequence.
 */
class VarIntOracleTest {
    private static final int RANDOM = 200_000;

    @Test
    void varIntsAreKryos() {
        List<Integer> values = new ArrayList<>();
        for (int bits = 0; bits <= 32; bits++) {
            int edge = bits == 32 ? -1 : (1 << bits) - 1;  // 0, 1, 3, ..., 2^k - 1
            for (int v : new int[] {edge, edge + 1, edge - 1, -edge, -edge - 1, ~edge}) {
                values.add(v);
            }
        }
        values.addAll(List.of(Integer.MAX_VALUE, Integer.MIN_VALUE, Integer.MIN_VALUE + 1, 63, 64, -64, -65));
        Random random = new Random(20261124);
        for (int i = 0; i < RANDOM; i++) {
            values.add(random.nextInt() >> random.nextInt(32));  // every magnitude, both signs
        }
        for (boolean zigzag : new boolean[] {false, true}) {
            WireBuffer all = new WireBuffer(16);
            Output expectedAll = new Output(16, -1);
            for (int v : values) {
                WireBuffer one = new WireBuffer(WireBuffer.MAX_VARINT);
                if (zigzag) {
                    one.zigZagInt(v);
                } else {
                    one.varInt(v);
                }
                Output expected = new Output(WireBuffer.MAX_VARINT);
                int kryoLength = expected.writeVarInt(v, !zigzag);
                assertArrayEquals(expected.toBytes(), one.toByteArray(), (zigzag ? "zigzag " : "varint ") + v);
                assertEquals(kryoLength, one.pos, "length of " + v);
                if (!zigzag) {
                    assertEquals(kryoLength, WireBuffer.varIntLength(v), "varIntLength(" + v + ")");
                }
                all.require(WireBuffer.MAX_VARINT);
                if (zigzag) {
                    all.zigZagInt(v);
                } else {
                    all.varInt(v);
                }
                expectedAll.writeVarInt(v, !zigzag);
            }
            assertArrayEquals(expectedAll.toBytes(), all.toByteArray(), "the sequence, zigzag " + zigzag);
        }
    }

    @Test
    void varLongsAreKryos() {
        List<Long> values = new ArrayList<>();
        for (int bits = 0; bits <= 64; bits++) {
            long edge = bits == 64 ? -1 : (1L << bits) - 1;  // every 7-bit boundary and the 9-byte form at 2^56
            for (long v : new long[] {edge, edge + 1, edge - 1, -edge, -edge - 1, ~edge}) {
                values.add(v);
            }
        }
        values.addAll(List.of(Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1, 1L << 56, (1L << 56) - 1,
                -(1L << 56), 0xFF00_0000_0000_0000L, 0x0100_0000_0000_0000L, 0x8000_0000_0000_0001L));
        Random random = new Random(20261125);
        for (int i = 0; i < RANDOM; i++) {
            values.add(random.nextLong() >> random.nextInt(64));
        }
        for (boolean zigzag : new boolean[] {false, true}) {
            WireBuffer all = new WireBuffer(16);
            Output expectedAll = new Output(16, -1);
            for (long v : values) {
                WireBuffer one = new WireBuffer(WireBuffer.MAX_VARLONG);
                if (zigzag) {
                    one.zigZagLong(v);
                } else {
                    one.varLong(v);
                }
                Output expected = new Output(WireBuffer.MAX_VARLONG);
                int kryoLength = expected.writeVarLong(v, !zigzag);
                assertArrayEquals(expected.toBytes(), one.toByteArray(), (zigzag ? "zigzag " : "varlong ") + v);
                assertEquals(kryoLength, one.pos, "length of " + v);
                all.require(WireBuffer.MAX_VARLONG);
                if (zigzag) {
                    all.zigZagLong(v);
                } else {
                    all.varLong(v);
                }
                expectedAll.writeVarLong(v, !zigzag);
            }
            assertArrayEquals(expectedAll.toBytes(), all.toByteArray(), "the sequence, zigzag " + zigzag);
        }
    }

    /** Kryo's fixed-width numbers are big-endian on the wire, BSON's little-endian: both against ByteBuffer. */
    @Test
    void fixedWidthNumbersAreByteBuffers() {
        Random random = new Random(20261126);
        WireBuffer big = new WireBuffer(16);
        WireBuffer little = new WireBuffer(16);
        ByteBuffer expectedBig = ByteBuffer.allocate(RANDOM * 14);
        ByteBuffer expectedLittle = ByteBuffer.allocate(RANDOM * 12).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < RANDOM; i++) {
            long v = i < 64 ? 1L << i ^ (i % 2 == 0 ? 0 : -1L) : random.nextLong();
            big.require(14);
            big.int16((int) v);
            big.int32((int) v);
            big.int64(v);
            expectedBig.putShort((short) v).putInt((int) v).putLong(v);
            little.require(12);
            little.int32le((int) v);
            little.int64le(v);
            expectedLittle.putInt((int) v).putLong(v);
        }
        assertArrayEquals(java.util.Arrays.copyOf(expectedBig.array(), expectedBig.position()), big.toByteArray());
        assertArrayEquals(java.util.Arrays.copyOf(expectedLittle.array(), expectedLittle.position()),
                little.toByteArray());
    }
}
