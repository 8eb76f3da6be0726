package org.subgraphexport.read;

import java.io.IOException;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Header;

/** Test access to what production code leaves at its default: the batch size of parallel walks, the reader pool. */
public final class Walkers {
    private Walkers() {}

    /** A walker reading with {@code readThreads} threads in all, handing {@code batchRecords} records per batch. */
    public static SubgraphWalker walker(KernelTransaction ktx, int readThreads, int batchRecords) {
        return walker(ktx, readThreads, batchRecords, ParallelEntityWriter.MIN_CONCURRENCY);
    }

    /** As above; {@code minConcurrency} 0 never gives up the workers, {@code Double.MAX_VALUE} always does. */
    public static SubgraphWalker walker(KernelTransaction ktx, int readThreads, int batchRecords, double minConcurrency) {
        return new SubgraphWalker(ktx, readThreads, batchRecords, minConcurrency);
    }

    /** {@link TraverseExport#run} with a batch size: header, walk, end record. */
    public static SubgraphWalker.Result export(InternalTransaction tx, long rootId, WalkSpec spec, int readThreads,
            int batchRecords, GraphWriter out) throws IOException {
        return export(tx, rootId, spec, readThreads, batchRecords, ParallelEntityWriter.MIN_CONCURRENCY, out);
    }

    /** As above, with the concurrency below which the walk goes on single-threaded. */
    public static SubgraphWalker.Result export(InternalTransaction tx, long rootId, WalkSpec spec, int readThreads,
            int batchRecords, double minConcurrency, GraphWriter out) throws IOException {
        KernelTransaction ktx = tx.kernelTransaction();
        ElementIds ids = ElementIds.of(tx.elementIdMapper());
        out.header(new Header(tx.getDatabaseName(), ids.nodeElementId(rootId), ids.nodePrefix(), ids.relationshipPrefix()),
                new KernelTokenNames(ktx.tokenRead()));
        try (SubgraphWalker walker = walker(ktx, readThreads, batchRecords, minConcurrency)) {
            SubgraphWalker.Result result = walker.walk(rootId, spec, out);
            out.end(result.nodes(), result.relationships(), result.truncated());
            return result;
        }
    }

    /** Reader tasks running right now in the shared pool, over all exports. */
    public static int runningReaders() {
        return ReaderPool.running();
    }
}
