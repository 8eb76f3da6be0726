package org.subgraphexport.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.subgraphexport.wire.Wire;

/**
 * Which records a partition carries: blocks of {@link Wire#PARTITION_BLOCK} dealt round-robin, record {@code k} to
 * partition {@code (k / 256) % count}; {@link Partition#nextOwned} is the start of the partition's next block.
 */
class PartitionTest {
    private static final int B = Wire.PARTITION_BLOCK;

    @Test
    void theBlockIs256Records() {
        assertEquals(256, B);
    }

    @Test
    void countAndIndexAreCheckedAtTheirBoundaries() {
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> new Partition(0, 0));
        assertEquals("partitions must be >= 1: 0", zero.getMessage());
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class, () -> new Partition(3, -1));
        assertEquals("partition must be >= 0 and < partitions (3): -1", negative.getMessage());
        IllegalArgumentException past = assertThrows(IllegalArgumentException.class, () -> new Partition(3, 3));
        assertEquals("partition must be >= 0 and < partitions (3): 3", past.getMessage());
        assertEquals(1, new Partition(1, 0).count());
        assertEquals(2, new Partition(3, 2).index());
        assertEquals(0, new Partition(3, 0).index());
    }

    @Test
    void theWholeExportIsOnePartitionThatOwnsEveryRecord() {
        assertEquals(new Partition(1, 0), Partition.WHOLE);
        assertTrue(Partition.WHOLE.whole());
        assertFalse(new Partition(2, 0).whole());
        assertFalse(new Partition(2, 1).whole());
        for (long k : new long[] {0, 1, B - 1, B, 5L * B + 7, Long.MAX_VALUE}) {
            assertTrue(Partition.WHOLE.owns(k), () -> "record " + k);
            assertEquals(k, Partition.WHOLE.nextOwned(k), () -> "record " + k);
        }
    }

    @Test
    void blocksAreDealtRoundRobinAtTheirExactEdges() {
        Partition first = new Partition(3, 0), second = new Partition(3, 1), third = new Partition(3, 2);
        long[] records = {0, B - 1, B, 2L * B - 1, 2L * B, 3L * B - 1, 3L * B, 4L * B - 1, 4L * B};
        Partition[] owner = {first, first, second, second, third, third, first, first, second};
        for (int i = 0; i < records.length; i++) {
            for (Partition p : new Partition[] {first, second, third}) {
                assertEquals(p == owner[i], p.owns(records[i]), "record " + records[i] + " in " + p);
            }
        }
    }

    @Test
    void nextOwnedIsTheRecordItselfOrTheStartOfTheNextOwnBlock() {
        Partition second = new Partition(3, 1);
        assertEquals(B, second.nextOwned(0));
        assertEquals(B, second.nextOwned(B - 1));
        assertEquals(B, second.nextOwned(B));
        assertEquals(2L * B - 1, second.nextOwned(2L * B - 1));
        assertEquals(4L * B, second.nextOwned(2L * B));
        assertEquals(4L * B, second.nextOwned(3L * B + 17));
        Partition first = new Partition(3, 0);
        assertEquals(3L * B, first.nextOwned(B));
        assertEquals(3L * B, first.nextOwned(3L * B - 1));
        assertEquals(6L * B, first.nextOwned(4L * B));
        Partition last = new Partition(2, 1);
        assertEquals(B, last.nextOwned(0));
        assertEquals(3L * B, last.nextOwned(2L * B + 100));
    }

    @Test
    void nextOwnedAgreesWithOwnsForEveryRecordOfTheFirstBlocks() {
        for (int count = 1; count <= 5; count++) {
            for (int index = 0; index < count; index++) {
                Partition p = new Partition(count, index);
                for (long k = 0; k < 12L * B; k += 7) {
                    long expected = k;
                    while (!p.owns(expected)) expected++;
                    long r = k;
                    assertEquals(expected, p.nextOwned(k), () -> p + " from record " + r);
                }
            }
        }
    }
}
