package org.subgraphexport.read;

import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.kernel.api.TransactionTimeout;
import org.subgraphexport.neo4j.Neo4jLine;

/**
 * The export's own check of its transaction: terminated (a client gone, {@code TERMINATE TRANSACTION}) or over
 * its timeout. Neo4j's transaction monitor applies a timeout only at its next round
 * ({@code db.transaction.monitor.check.interval}, 2 s by default), long after a short budget ran out and
 * possibly after the export finished; this check applies it exactly as the monitor would (time since the
 * transaction started above its timeout: terminated with the timeout's status, TransactionTimedOut), at the
 * read paths' check points, so a {@code timeout=} holds to within one check interval of records.
 */
final class Budget {
    /** How many nodes (or Cypher rows) between two checks. */
    static final int CHECK_MASK = 1023;

    private Budget() {}

    /** Throws the transaction's termination (TransactionTerminatedException) if it is terminated or over time. */
    static void check(KernelTransaction ktx) {
        TransactionTimeout timeout = ktx.timeout();
        long limit = Neo4jLine.timeoutNanos(timeout);
        if (limit > 0 && System.nanoTime() - ktx.startTimeNanos() > limit && !ktx.isTerminated()) {
            ktx.markForTermination(timeout.status());
        }
        ktx.assertOpen();
    }
}
