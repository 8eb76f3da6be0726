package org.subgraphexport.read;

import java.io.IOException;
import java.util.function.Function;
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
        return run(tx, rootId, spec, Partition.WHOLE, readThreads, ExportState.NONE, out);
    }

    /**
     * As above, writing only {@code partition}'s share of the records ({@link Partition}), and naming the store state
     * from {@code state} in the header (read now, after the transaction began) and in the end record (read when the
     * walk is done). A pinned state that is not the database's at either point ends the stream with
     * {@link ExportState.Changed} instead: the records before it are valid, the export is not.
     */
    public static SubgraphWalker.Result run(InternalTransaction tx, long rootId, WalkSpec spec, Partition partition,
            int readThreads, ExportState state, GraphWriter out) throws IOException {
        return run(tx, rootId, spec, partition, readThreads, state, (Function<String, SharedWalks.Share>) null, out);
    }

    /**
     * As above; with {@code walks}, a partition that runs at the same time as other partitions of the same export
     * (the same state, user, root, walk and partition count) shares one walk of the topology with them
     * ({@link SharedWalks}), keyed by the state read when the transaction began. The stream is the same either way;
     * the whole export ({@link Partition#WHOLE}) and null {@code walks} walk as above.
     */
    public static SubgraphWalker.Result run(InternalTransaction tx, long rootId, WalkSpec spec, Partition partition,
            int readThreads, ExportState state, SharedWalks walks, GraphWriter out) throws IOException {
        return run(tx, rootId, spec, partition, readThreads, state, walks == null ? null : walks::share, out);
    }

    /** As above with a share given (tests, the probe), and no state. */
    public static SubgraphWalker.Result run(InternalTransaction tx, long rootId, WalkSpec spec, Partition partition,
            int readThreads, SharedWalks.Share share, GraphWriter out) throws IOException {
        return run(tx, rootId, spec, partition, readThreads, ExportState.NONE,
                share == null ? null : begun -> share, out);
    }

    private static SubgraphWalker.Result run(InternalTransaction tx, long rootId, WalkSpec spec, Partition partition,
            int readThreads, ExportState state, Function<String, SharedWalks.Share> shares, GraphWriter out)
            throws IOException {
        KernelTransaction ktx = tx.kernelTransaction();
        ElementIds ids = ElementIds.of(tx.elementIdMapper());
        String begun = state.now();
        out.header(new Header(tx.getDatabaseName(), ids.nodeElementId(rootId), ids.nodePrefix(), ids.relationshipPrefix(),
                begun, partition.index(), partition.count()), new KernelTokenNames(ktx.tokenRead()));
        state.require(begun);
        try (SubgraphWalker walker = new SubgraphWalker(ktx, readThreads)) {
            if (!ktx.dataRead().nodeExists(rootId)) {
                throw new IllegalStateException("root node " + ids.nodeElementId(rootId) + " was deleted before the export started");
            }
            SharedWalks.Share share = shares == null || partition.whole() ? null : shares.apply(begun);
            SubgraphWalker.Result result = share == null
                    ? walker.walk(rootId, spec, partition, out)
                    : share.walks().walk(walker, ktx, share.key(ktx, rootId, spec, partition), rootId, spec, partition, out);
            String ended = state.now();
            state.require(ended);
            out.end(result.nodes(), result.relationships(), result.truncated(), ended);
            return result;
        }
    }
}
