package org.subgraphexport.read;

import java.util.Arrays;
import org.eclipse.collections.impl.map.mutable.primitive.LongObjectHashMap;
import org.neo4j.memory.MemoryTracker;

/**
 * A set of non-negative longs (node or relationship ids) whose memory follows how many ids it holds, whatever
 * their layout, and is counted in the export transaction's memory tracker (so {@code db.memory.transaction.max}
 * bounds it; a breach throws Neo4j's MemoryLimitExceededException, which ends the stream with an error record).
 *
 * <p>Ids are grouped in pages of 65,536. A page holding at least {@value #DENSE_IDS} ids is an 8 KiB bitmap: at
 * most 8 bytes an id, down to 1 bit when the page is full. The ids of every other page share one open-addressing
 * hash table (linear probing, 50-75% full after growing: 10.7-16 bytes an id). When the table must grow, its pages
 * that have reached {@value #DENSE_IDS} ids first move into bitmaps, so a walk over neighbouring ids ends up in
 * bitmaps and a walk over ids scattered across a huge store costs at most 16 bytes an id (100,000 ids, one per
 * page: about 1.6 MB, where one bitmap page per id would be 800 MB). The page of the previous lookup is cached:
 * walks touch neighbouring ids. Not thread-safe.
 */
final class LongIdSet {
    static final int PAGE_BITS = 16;
    static final int DENSE_IDS = 1 << (PAGE_BITS - 6);
    private static final int PAGE_WORDS = (1 << PAGE_BITS) >>> 6;
    private static final long PAGE_MASK = (1L << PAGE_BITS) - 1;
    /** A bitmap page and its entry in the page map (object header, key, reference, table slack). */
    static final long PAGE_BYTES = 16L + 8L * PAGE_WORDS + 48;
    private static final long EMPTY = -1;
    private static final int MIN_CAPACITY = 16;

    private final MemoryTracker memory;
    private final LongObjectHashMap<long[]> pages = new LongObjectHashMap<>();
    private long lastPageIndex = -1;
    private long[] lastPage;
    /** The sparse ids: open addressing, EMPTY where free. */
    private long[] table;
    private int size;
    private long tracked;

    LongIdSet(MemoryTracker memory) {
        this.memory = memory;
        this.table = emptyTable(MIN_CAPACITY);
    }

    /** Adds {@code id}; returns true if it was not in the set before. */
    boolean add(long id) {
        long[] page = page(id >>> PAGE_BITS);
        if (page != null) {
            int bit = (int) (id & PAGE_MASK);
            long old = page[bit >>> 6];
            page[bit >>> 6] = old | (1L << bit);
            return (old & (1L << bit)) == 0;
        }
        int slot = home(id, table.length);
        for (long v; (v = table[slot]) != EMPTY; slot = next(slot)) {
            if (v == id) return false;
        }
        if ((size + 1) * 4L > table.length * 3L) {
            grow();
            return add(id);
        }
        table[slot] = id;
        size++;
        return true;
    }

    void remove(long id) {
        long[] page = page(id >>> PAGE_BITS);
        if (page != null) {
            int bit = (int) (id & PAGE_MASK);
            page[bit >>> 6] &= ~(1L << bit);
            return;
        }
        int slot = home(id, table.length);
        for (long v; (v = table[slot]) != id; slot = next(slot)) {
            if (v == EMPTY) return;
        }
        // backward-shift deletion: move up every later entry of the run that may not stay behind the hole
        int hole = slot;
        for (int j = next(hole); table[j] != EMPTY; j = next(j)) {
            int home = home(table[j], table.length);
            boolean homeInHoleToJ = hole <= j ? hole < home && home <= j : hole < home || home <= j;
            if (!homeInHoleToJ) {
                table[hole] = table[j];
                hole = j;
            }
        }
        table[hole] = EMPTY;
        size--;
    }

    boolean contains(long id) {
        long[] page = page(id >>> PAGE_BITS);
        if (page != null) {
            int bit = (int) (id & PAGE_MASK);
            return (page[bit >>> 6] & (1L << bit)) != 0;
        }
        for (int slot = home(id, table.length); ; slot = next(slot)) {
            long v = table[slot];
            if (v == id) return true;
            if (v == EMPTY) return false;
        }
    }

    /** Calls {@code action} with every id in the set, in no particular order. */
    void forEach(java.util.function.LongConsumer action) {
        pages.forEachKeyValue((index, page) -> {
            for (int w = 0; w < page.length; w++) {
                for (long bits = page[w]; bits != 0; bits &= bits - 1) {
                    action.accept((index << PAGE_BITS) | ((long) w << 6) | Long.numberOfTrailingZeros(bits));
                }
            }
        });
        for (long v : table) {
            if (v != EMPTY) action.accept(v);
        }
    }

    /** Heap this set holds now, in bytes (what it has counted in the memory tracker). */
    long heapBytes() {
        return tracked;
    }

    private long[] page(long index) {
        if (index == lastPageIndex) return lastPage;
        long[] page = pages.get(index);
        if (page != null) {
            lastPageIndex = index;
            lastPage = page;
        }
        return page;
    }

    private int next(int slot) {
        return slot + 1 == table.length ? 0 : slot + 1;
    }

    /** The id's first slot: a multiplicative hash scaled to any capacity (no power of two needed). */
    private static int home(long id, int capacity) {
        long hash = (id * 0x9E3779B97F4A7C15L) >>> 32;
        return (int) ((hash * capacity) >>> 32);
    }

    /** Moves the ids of pages that have become dense into bitmaps, then rehashes the rest into a table 50% full. */
    private void grow() {
        long[] ids = new long[size];
        charge(8L * size);
        int n = 0;
        for (long v : table) {
            if (v != EMPTY) ids[n++] = v;
        }
        Arrays.sort(ids);
        int sparse = 0;
        for (int start = 0, end; start < n; start = end) {
            long index = ids[start] >>> PAGE_BITS;
            end = start + 1;
            while (end < n && ids[end] >>> PAGE_BITS == index) end++;
            if (end - start >= DENSE_IDS) {
                charge(PAGE_BYTES);
                long[] page = new long[PAGE_WORDS];
                for (int i = start; i < end; i++) {
                    int bit = (int) (ids[i] & PAGE_MASK);
                    page[bit >>> 6] |= 1L << bit;
                }
                pages.put(index, page);
            } else {
                System.arraycopy(ids, start, ids, sparse, end - start);
                sparse += end - start;
            }
        }
        long[] old = table;
        long[] grown = emptyTable(Math.max(MIN_CAPACITY, sparse * 2));
        table = grown;
        charge(-8L * old.length);
        for (int i = 0; i < sparse; i++) {
            int slot = home(ids[i], grown.length);
            while (grown[slot] != EMPTY) slot = next(slot);
            grown[slot] = ids[i];
        }
        size = sparse;
        charge(-8L * ids.length);
    }

    private long[] emptyTable(int capacity) {
        charge(8L * capacity);
        long[] t = new long[capacity];
        Arrays.fill(t, EMPTY);
        return t;
    }

    private void charge(long bytes) {
        if (bytes > 0) {
            memory.allocateHeap(bytes);
        } else {
            memory.releaseHeap(-bytes);
        }
        tracked += bytes;
    }
}
