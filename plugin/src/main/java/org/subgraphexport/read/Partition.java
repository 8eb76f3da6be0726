package org.subgraphexport.read;

import org.subgraphexport.wire.Wire;

/**
 * Which share of an export one stream carries: partition {@code index} of {@code count}.
 *
 * <p>The walk decides a sequence of records (nodes and relationships, in stream order); every partition walks the
 * same topology and so decides the same sequence. The sequence is cut into blocks of {@link Wire#PARTITION_BLOCK}
 * records, dealt round-robin: record {@code k} belongs to partition {@code (k / PARTITION_BLOCK) % count}. A partition
 * reads and writes only its own records (their labels and properties, most of an export's work); the topology walk
 * is what every partition repeats. So the partitions together carry each record of the single stream exactly once,
 * each in the single stream's order, and taking {@link Wire#PARTITION_BLOCK} records from each partition in turn gives
 * back the single stream itself.
 *
 * @param count how many partitions the export is cut into (1: the whole export)
 * @param index which one this is, {@code 0 <= index < count}
 */
public record Partition(int count, int index) {
    /** The whole export in one stream. */
    public static final Partition WHOLE = new Partition(1, 0);

    public Partition {
        if (count < 1) throw new IllegalArgumentException("partitions must be >= 1: " + count);
        if (index < 0 || index >= count) {
            throw new IllegalArgumentException("partition must be >= 0 and < partitions (" + count + "): " + index);
        }
    }

    /** Whether this partition carries the record at position {@code record} of the walk's sequence. */
    public boolean owns(long record) {
        return count == 1 || (record / Wire.PARTITION_BLOCK) % count == index;
    }

    /** The first record at or after {@code record} that this partition carries: the start of its next block. */
    public long nextOwned(long record) {
        if (owns(record)) return record;
        long block = record / Wire.PARTITION_BLOCK + 1;
        return (block + Math.floorMod(index - block, (long) count)) * Wire.PARTITION_BLOCK;
    }

    public boolean whole() {
        return count == 1;
    }
}
