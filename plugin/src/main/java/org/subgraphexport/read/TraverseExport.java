package org.subgraphexport.read;

import java.io.IOException;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Header;

/** One traverse export inside an open transaction: header, the walk, and the end record. */
public final class TraverseExport {
    private TraverseExport() {}

    /**
     * Writes the whole stream except for failures: an exception thrown from here means the caller must write
     * the error record (if the stream is still writable) and finish the writer.
     */
    public static SubgraphWalker.Result run(InternalTransaction tx, long rootId, WalkSpec spec, GraphWriter out)
            throws IOException {
        return run(tx, rootId, spec, 1, out);
    }

    /**
     * As {@link #run(InternalTransaction, long, WalkSpec, GraphWriter)}, reading labels and properties with
     * {@code readThreads} threads (this one included; 1 reads on this thread alone). The stream is the same
     * either way; see {@link SubgraphWalker}, "Parallel reads".
     */
    public static SubgraphWalker.Result run(InternalTransaction tx, long rootId, WalkSpec spec, int readThreads,
            GraphWriter out) throws IOException {
        return run(tx, rootId, spec, Partition.WHOLE, readThreads, out);
    }

    /** As above, writing only {@code partition}'s share of the records ({@link Partition}). */
    public static SubgraphWalker.Result run(InternalTransaction tx, long rootId, WalkSpec spec, Partition partition,
            int readThreads, GraphWriter out) throws IOException {
        return run(tx, rootId, spec, partition, readThreads, null, out);
    }

    /**
     * As above; with a {@code share} ({@link SharedWalks#share}), a partition that runs at the same time as other
     * partitions of the same export shares one walk of the topology with them ({@link SharedWalks}). The stream is
     * the same either way. The whole export ({@link Partition#WHOLE}) and a null {@code share} walk as above.
     */
    public static SubgraphWalker.Result run(InternalTransaction tx, long rootId, WalkSpec spec, Partition partition,
            int readThreads, SharedWalks.Share share, GraphWriter out) throws IOException {
        KernelTransaction ktx = tx.kernelTransaction();
        ElementIds ids = ElementIds.of(tx.elementIdMapper());
        out.header(new Header(tx.getDatabaseName(), ids.nodeElementId(rootId), ids.nodePrefix(), ids.relationshipPrefix()),
                new KernelTokenNames(ktx.tokenRead()));
        try (SubgraphWalker walker = new SubgraphWalker(ktx, readThreads)) {
            if (!ktx.dataRead().nodeExists(rootId)) {
                throw new IllegalStateException("root node " + ids.nodeElementId(rootId) + " was deleted before the export started");
            }
            SubgraphWalker.Result result = share == null || partition.whole()
                    ? walker.walk(rootId, spec, partition, out)
                    : share.walks().walk(walker, ktx, share.key(ktx, rootId, spec, partition), rootId, spec, partition, out);
            out.end(result.nodes(), result.relationships(), result.truncated());
            return result;
        }
    }
}
