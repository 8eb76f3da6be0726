package org.subgraphexport.read;

import org.eclipse.collections.impl.map.mutable.primitive.LongObjectHashMap;

/**
 * A set of non-negative longs (node or relationship ids) stored as 8 KiB bit pages, allocated on first use.
 * Neo4j ids are dense, so a subgraph of n nodes costs about n/8 bytes plus one page per 65,536 ids touched.
 * The page of the previous lookup is cached: walks touch neighbouring ids.
 */
final class LongBitSet {
    private static final int PAGE_BITS = 16;
    private static final int WORDS_PER_PAGE = (1 << PAGE_BITS) >>> 6;

    private final LongObjectHashMap<long[]> pages = new LongObjectHashMap<>();
    private long lastPageIndex = -1;
    private long[] lastPage;

    /** Adds {@code id}; returns true if it was not in the set before. */
    boolean add(long id) {
        long[] page = page(id >>> PAGE_BITS, true);
        int bit = (int) (id & ((1 << PAGE_BITS) - 1));
        int word = bit >>> 6;
        long mask = 1L << bit;
        long old = page[word];
        page[word] = old | mask;
        return (old & mask) == 0;
    }

    void remove(long id) {
        long[] page = page(id >>> PAGE_BITS, false);
        if (page != null) {
            int bit = (int) (id & ((1 << PAGE_BITS) - 1));
            page[bit >>> 6] &= ~(1L << bit);
        }
    }

    boolean contains(long id) {
        long[] page = page(id >>> PAGE_BITS, false);
        if (page == null) return false;
        int bit = (int) (id & ((1 << PAGE_BITS) - 1));
        return (page[bit >>> 6] & (1L << bit)) != 0;
    }

    private long[] page(long index, boolean create) {
        if (index == lastPageIndex) return lastPage;
        long[] page = pages.get(index);
        if (page == null) {
            if (!create) return null;
            page = new long[WORDS_PER_PAGE];
            pages.put(index, page);
        }
        lastPageIndex = index;
        lastPage = page;
        return page;
    }
}
