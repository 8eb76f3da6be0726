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

    /**
     * The exact memory of the growth policy: a table of 16 slots, grown when one more id would fill it beyond 3/4, to
     * twice the ids it holds; at a growth, a page holding at least {@value LongIdSet#DENSE_IDS} ids becomes a bitmap.
     */
    @Test
    void theTableGrowsBeyondThreeQuartersAndAPageOf1024IdsBecomesABitmap() {
        LocalMemoryTracker tracker = new LocalMemoryTracker();
        LongIdSet set = new LongIdSet(tracker);
        assertEquals(8 * 16, set.heapBytes());
        for (long id = 0; id < 12; id++) set.add(id * 3);
        assertEquals(8 * 16, set.heapBytes(), "12 ids fill 16 slots to exactly 3/4");
        set.add(100);
        assertEquals(8 * 24, set.heapBytes(), "the 13th: twice the 12 held");
        assertEquals(set.heapBytes(), tracker.estimatedHeapMemory());

        // growths at 12, 18, 27, 40, 60, 90, 135, 202, 303, 454, 681, 1021 and 1531 ids held
        LocalMemoryTracker denseTracker = new LocalMemoryTracker();
        LongIdSet dense = new LongIdSet(denseTracker);
        for (long id = 0; id < 1024; id++) assertTrue(dense.add(id));
        assertEquals(8 * 2042, dense.heapBytes(), "1,021 ids held at the last growth: still a table");
        for (long i = 0; i < 507; i++) assertTrue(dense.add(PAGE + 2 * i));
        assertEquals(8 * 2042, dense.heapBytes());
        assertTrue(dense.add(5 * PAGE));  // 1,531 held: page 0, with exactly 1,024 of them, becomes a bitmap
        assertEquals(LongIdSet.PAGE_BYTES + 8 * 1014, dense.heapBytes());
        assertEquals(dense.heapBytes(), denseTracker.estimatedHeapMemory());
        for (long id = 0; id < 1024; id++) assertTrue(dense.contains(id), () -> "bitmap id");
        assertFalse(dense.contains(1024));
        assertFalse(dense.add(1023));
        assertTrue(dense.add(1024));
        assertTrue(dense.contains(1024));
        assertTrue(dense.contains(PAGE + 2));
        assertFalse(dense.contains(PAGE + 1));
        assertTrue(dense.contains(5 * PAGE));
        dense.remove(7);
        assertFalse(dense.contains(7));
        assertTrue(dense.contains(6));
        assertTrue(dense.add(7));

        // 1,023 ids of a page at a growth stay in the table
        LocalMemoryTracker sparseTracker = new LocalMemoryTracker();
        LongIdSet sparse = new LongIdSet(sparseTracker);
        for (long id = 0; id < 1023; id++) sparse.add(id);
        for (long i = 0; i < 508; i++) sparse.add(PAGE + i);
        sparse.add(5 * PAGE);
        assertEquals(8 * 3062, sparse.heapBytes());
        assertEquals(sparse.heapBytes(), sparseTracker.estimatedHeapMemory());
    }

    @Test
    void aLookupInAPageWithoutBitmapDoesNotHideALaterBitmap() {
        LongIdSet set = new LongIdSet(new LocalMemoryTracker());
        assertFalse(set.contains(3));  // page 0 looked up while it has no bitmap
        for (long id = 0; id < 2000; id++) set.add(id);
        for (long id = 0; id < 2000; id++) assertTrue(set.contains(id), "lost");
        assertFalse(set.contains(2000));
        assertFalse(set.add(0));
        assertFalse(set.contains(PAGE));
        assertTrue(set.contains(1999));
    }

    @Test
    void forEachGivesEveryIdOnceInEveryLayout() {
        LongIdSet set = new LongIdSet(new LocalMemoryTracker());
        Set<Long> expected = new HashSet<>();
        for (long id = 0; id < 3000; id += 2) expected.add(id);  // a bitmap page
        for (long id = 3 * PAGE; id < 3 * PAGE + 1500; id++) expected.add(id);  // another, not the first
        for (long i = 0; i < 300; i++) expected.add(i * PAGE + PAGE + 63);  // one id per page
        expected.add(0L);
        expected.add(64L);
        expected.add(65535L);
        expected.add(Long.MAX_VALUE >>> 1);
        for (long id : expected) set.add(id);
        set.remove(2);
        expected.remove(2L);
        set.remove(PAGE + 63);
        expected.remove(PAGE + 63);
        Set<Long> seen = new HashSet<>();
        java.util.List<Long> all = new java.util.ArrayList<>();
        set.forEach(id -> {
            all.add(id);
            seen.add(id);
        });
        assertEquals(expected, seen);
        assertEquals(expected.size(), all.size(), "each id once");
    }

    @Test
    void removeKeepsEveryOtherIdOfARunFindable() {
        // ids with the same home slot and their neighbours, removed in every order: the rest stays findable
        Random random = new Random(7);
        for (int round = 0; round < 200; round++) {
            LongIdSet set = new LongIdSet(new LocalMemoryTracker());
            Set<Long> oracle = new HashSet<>();
            for (int i = 0; i < 11; i++) {
                long id = random.nextInt(40) * PAGE + random.nextInt(3);
                set.add(id);
                oracle.add(id);
            }
            for (Long id : new java.util.ArrayList<>(oracle)) {
                set.remove(id);
                oracle.remove(id);
                assertFalse(set.contains(id));
                for (long other : oracle) assertTrue(set.contains(other), () -> "lost " + other);
                set.remove(id);  // removing what is not there changes nothing
                for (long other : oracle) assertTrue(set.contains(other), () -> "lost " + other);
            }
        }
    }
}
