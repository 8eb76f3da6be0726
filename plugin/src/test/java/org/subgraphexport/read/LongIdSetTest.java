package org.subgraphexport.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.neo4j.memory.LocalMemoryTracker;
import org.neo4j.memory.MemoryLimitExceededException;
import org.neo4j.memory.MemoryPools;

/** The visited set: exact membership, and memory that follows the ids held, counted in Neo4j's tracker. */
class LongIdSetTest {
    static final long PAGE = 1L << LongIdSet.PAGE_BITS;

    @Test
    void hundredThousandIdsOnePerPageCostUnderTwoMegabytes() {
        LocalMemoryTracker tracker = new LocalMemoryTracker();
        LongIdSet set = new LongIdSet(tracker);
        int n = 100_000;
        for (long i = 0; i < n; i++) {
            assertTrue(set.add(i * PAGE + (i % 7)));
        }
        for (long i = 0; i < n; i++) {
            assertTrue(set.contains(i * PAGE + (i % 7)));
            assertFalse(set.contains(i * PAGE + (i % 7) + 1));
            assertFalse(set.add(i * PAGE + (i % 7)));
        }
        // one 8 KiB bitmap page per id would be 100,000 * 8 KiB = 800 MB
        System.out.printf("LongIdSetTest: %,d ids one per %,d: %,d bytes%n", n, PAGE, set.heapBytes());
        assertTrue(set.heapBytes() < 2_000_000, () -> set.heapBytes() + " bytes");
        assertTrue(set.heapBytes() >= 8L * n, () -> set.heapBytes() + " bytes");
        assertEquals(set.heapBytes(), tracker.estimatedHeapMemory());
    }

    @Test
    void denseIdsCostAboutOneBitEach() {
        LocalMemoryTracker tracker = new LocalMemoryTracker();
        LongIdSet set = new LongIdSet(tracker);
        int n = 1_000_000;
        for (long id = 0; id < n; id++) {
            assertTrue(set.add(id));
        }
        for (long id = 0; id < n; id++) {
            assertTrue(set.contains(id));
        }
        assertFalse(set.contains(n));
        long pages = (n + PAGE - 1) / PAGE;
        // 16 bitmap pages (131 KB) and a table holding what the last page gathered since its promotion
        assertTrue(set.heapBytes() <= pages * LongIdSet.PAGE_BYTES + 8L * 2 * 2 * LongIdSet.DENSE_IDS,
                () -> set.heapBytes() + " bytes");
        assertEquals(set.heapBytes(), tracker.estimatedHeapMemory());
    }

    @Test
    void agreesWithAHashSetUnderRandomAddsAndRemovesInEveryLayout() {
        Random random = new Random(20261125);
        for (long spread : new long[] {1_000, 3 * PAGE, 1L << 40}) {
            LongIdSet set = new LongIdSet(new LocalMemoryTracker());
            Set<Long> oracle = new HashSet<>();
            for (int op = 0; op < 300_000; op++) {
                long id = (long) (random.nextDouble() * spread);
                switch (random.nextInt(4)) {
                    case 0 -> {
                        set.remove(id);
                        oracle.remove(id);
                    }
                    case 1 -> assertEquals(oracle.contains(id), set.contains(id), () -> "contains " + id);
                    default -> assertEquals(oracle.add(id), set.add(id), () -> "add " + id);
                }
            }
            for (long id : oracle) {
                assertTrue(set.contains(id), () -> "spread " + spread + ": lost " + id);
            }
        }
    }

    @Test
    void aTransactionMemoryLimitStopsTheSetGrowing() {
        LocalMemoryTracker tracker = new LocalMemoryTracker(MemoryPools.NO_TRACKING, 1 << 20, 0, "db.memory.transaction.max");
        LongIdSet set = new LongIdSet(tracker);
        MemoryLimitExceededException e = assertThrows(MemoryLimitExceededException.class, () -> {
            for (long i = 0; ; i++) set.add(i * PAGE);
        });
        assertTrue(e.getMessage().contains("db.memory.transaction.max"), e.getMessage());
        assertTrue(tracker.estimatedHeapMemory() <= 1 << 20, () -> tracker.estimatedHeapMemory() + " bytes");
    }
}
