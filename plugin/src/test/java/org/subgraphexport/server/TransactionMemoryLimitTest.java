package org.subgraphexport.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.subgraphexport.server.ExportHttp.params;

import java.io.IOException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.Transaction;
import org.subgraphexport.client.ExportFailedException;
import org.subgraphexport.wire.Format;

/**
 * An export's own memory (visited sets, breadth-first levels) is counted in its transaction's memory tracker:
 * under a small {@code db.memory.transaction.max} a wide export ends its stream with Neo4j's memory-limit error
 * record, and a small one goes through. (The system database does not start under 2 MiB.)
 */
class TransactionMemoryLimitTest {
    /** Neo4j's trackers reserve 2 MiB at a time: two reservations. */
    static final long LIMIT = 4L << 20;
    /** The next breadth-first level alone: 8 bytes a child, 4.8 MB. */
    static final int CHILDREN = 600_000;
    static final int BATCH = 1_000;

    @RegisterExtension
    static final InProcessNeo4j neo4j = InProcessNeo4j.withExtension()
            .with(GraphDatabaseSettings.memory_transaction_max_size, LIMIT);
    private static ExportHttp http;
    private static String wideRoot;
    private static String smallRoot;

    @BeforeAll
    static void start() {
        GraphDatabaseService db = neo4j.defaultDatabaseService();
        wideRoot = root(db, CHILDREN);
        smallRoot = root(db, 10);
        http = new ExportHttp(neo4j.httpURI());
    }

    /** A root with {@code children} children, committed every {@value #BATCH} (each transaction under the limit). */
    private static String root(GraphDatabaseService db, int children) {
        String id;
        try (Transaction tx = db.beginTx()) {
            id = tx.createNode(Label.label("Root")).getElementId();
            tx.commit();
        }
        for (int done = 0; done < children; done += BATCH) {
            try (Transaction tx = db.beginTx()) {
                Node root = tx.getNodeByElementId(id);
                for (int i = done; i < Math.min(children, done + BATCH); i++) {
                    root.createRelationshipTo(tx.createNode(), RelationshipType.withName("CHILDREN"));
                }
                tx.commit();
            }
        }
        return id;
    }

    @Test
    void aWideExportEndsWithTheMemoryLimitErrorRecord() {
        ExportFailedException e = assertThrows(ExportFailedException.class,
                () -> http.traverse(Format.KRYO, params("root", wideRoot)));
        // what Neo4j's transaction tracker throws when its pool (the transaction's limit) is exhausted
        assertEquals("Neo.TransientError.General.MemoryPoolOutOfMemoryError", e.code(), e::toString);
        assertTrue(e.getMessage().contains(GraphDatabaseSettings.memory_transaction_max_size.name()), e::toString);
    }

    @Test
    void aSmallExportGoesThroughUnderTheSameLimit() throws IOException {
        assertEquals(11, http.traverse(Format.KRYO, params("root", smallRoot)).nodes().size());
    }
}
