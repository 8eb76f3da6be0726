package org.subgraphexport.client;

import java.io.IOException;

/**
 * One partition of a {@link PartitionedExport} failed every attempt to read it (cut streams, connection failures, 5xx
 * answers): the export's read failed, and its other partitions were cancelled. The cause is the last attempt's
 * failure; the earlier attempts' are suppressed exceptions of the cause.
 */
public class PartitionFailedException extends IOException {
    private static final long serialVersionUID = 1L;

    private final int partition;
    private final int partitions;
    private final int attempts;

    /**
     * @param partition  which partition failed
     * @param partitions how many partitions the export was cut into
     * @param attempts   how many times it was fetched
     * @param last       the last attempt's failure
     */
    public PartitionFailedException(int partition, int partitions, int attempts, IOException last) {
        super("partition " + partition + " of " + partitions + " failed " + attempts
                + (attempts == 1 ? " attempt" : " attempts") + "; the export's read failed and its other partitions"
                + " were cancelled. The last failure: " + last, last);
        this.partition = partition;
        this.partitions = partitions;
        this.attempts = attempts;
    }

    /** The partition that failed. */
    public int partition() {
        return partition;
    }

    /** How many partitions the export was cut into. */
    public int partitions() {
        return partitions;
    }

    /** How many times the partition was fetched. */
    public int attempts() {
        return attempts;
    }
}
