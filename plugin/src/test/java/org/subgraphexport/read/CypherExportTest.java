package org.subgraphexport.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;
import org.neo4j.graphdb.TransactionTerminatedException;
import org.neo4j.kernel.api.exceptions.Status;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;

/**
 * A Cypher result as a record stream, on three nodes with exact expected streams: which records a row brings (every
 * node and relationship anywhere in it, at any nesting, each once, a relationship's end nodes first), rows mode's
 * rows with references, the node limit, and the same stream with parallel readers.
 *
 * <pre>
 *   (p:P {name: 'p', tags: ['x', 'y']}) -[:K {since: 2}]-> (q:Q {name: 'q'}) -[:K]-> (r:P {name: 'r'})
 * </pre>
 */
class CypherExportTest {
    private static GraphDatabaseService db;
    private static final Map<String, Long> IDS = new HashMap<>();
    private static final Map<Long, String> NAMES = new HashMap<>();
    private static final Map<Long, String> REL_NAMES = new HashMap<>();

    @BeforeAll
    static void start() {
        db = SharedDatabases.get("cypher-export", CypherExportTest::fill).database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
    }

    private static void fill(DatabaseManagementService dbms) {
        GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        try (Transaction tx = db.beginTx()) {
            tx.execute("CREATE (p:P {name: 'p', tags: ['x', 'y']})-[:K {since: 2}]->(q:Q {name: 'q'})-[:K]->(r:P {name: 'r'})").close();
            tx.execute("MATCH (n) RETURN n.name AS name, id(n) AS id").forEachRemaining(row -> {
                IDS.put((String) row.get("name"), (Long) row.get("id"));
                NAMES.put((Long) row.get("id"), (String) row.get("name"));
            });
            tx.execute("MATCH (a)-[k]->(b) RETURN a.name + '-' + b.name AS name, id(k) AS id").forEachRemaining(row -> {
                IDS.put((String) row.get("name"), (Long) row.get("id"));
                REL_NAMES.put((Long) row.get("id"), (String) row.get("name"));
            });
            tx.commit();
        }
    }

    /** The stream of {@code query} with its ids replaced by names: {@code node p}, {@code rel p-q}, {@code nodeRef q}. */
    private static List<String> export(String query, boolean rows, long maxNodes, int readThreads) throws IOException {
        try (Transaction tx = db.beginTx()) {
            TraceWriter out = new TraceWriter();
            try (Result result = tx.execute(query)) {
                CypherExport.run((InternalTransaction) tx, result, rows, maxNodes, readThreads, 1, 0, out);
            }
            List<String> named = new ArrayList<>();
            boolean inRecord = false;  // a record's labels and values: EntityReadsTest's
            for (String call : out.calls) {
                String[] p = call.split(" ", 3);
                switch (p[0]) {
                    case "node" -> named.add("node " + NAMES.get(Long.parseLong(p[1])));
                    case "rel" -> named.add("rel " + REL_NAMES.get(Long.parseLong(p[1])));
                    case "nodeRef" -> named.add("nodeRef " + NAMES.get(Long.parseLong(p[1])));
                    case "relRef" -> named.add("relRef " + REL_NAMES.get(Long.parseLong(p[1])));
                    case "endNode", "endRel" -> inRecord = false;
                    default -> {
                        if (!inRecord) named.add(call);
                    }
                }
                inRecord |= p[0].equals("node") || p[0].equals("rel");
            }
            return named;
        }
    }

    @Test
    void graphModeWritesEveryEntityOfARowOnceWithARelationshipsEndsFirst() throws IOException {
        for (int threads : new int[] {1, 3}) {
            // k alone brings its end nodes; b again, inside a list and a map, is not written twice
            assertEquals(List.of("header ", "node p", "node q", "rel p-q", "end 2 1 false"),
                    export("MATCH (:P {name: 'p'})-[k:K]->(b) RETURN k, [b, {x: [b]}] AS again", false, 100, threads),
                    "read threads " + threads);
            // a path: its nodes, then its relationships; scalars bring nothing
            assertEquals(List.of("header ", "node p", "node q", "node r", "rel p-q", "rel q-r", "end 3 2 false"),
                    export("MATCH path = (:P {name: 'p'})-[:K*2]->() RETURN 1 AS one, path, 'x' AS s", false, 100, threads),
                    "read threads " + threads);
            assertEquals(List.of("header ", "end 0 0 false"), export("RETURN 1 AS one", false, 100, threads));
            // a stored array (a String[] in the row) holds no entity
            assertEquals(List.of("header ", "end 0 0 false"),
                    export("MATCH (a:P {name: 'p'}) RETURN a.tags AS tags, [a.tags] AS nested", false, 100, threads));
        }
    }

    @Test
    void rowsModeWritesTheColumnsThenEachRowAfterItsRecords() throws IOException {
        assertEquals(List.of("header ", "columns [a, k, b, n, l, m]",
                "node p", "node q", "rel p-q",
                "row", "nodeRef p", "relRef p-q", "nodeRef q", "null", "list 2", "long 1", "string y", "endList",
                "map 1", "mapKey x", "double 1.5", "endMap", "endRow",
                "end 2 1 false"),
                export("MATCH (a:P {name: 'p'})-[k:K]->(b) RETURN a, k, b, null AS n, [1, 'y'] AS l, {x: 1.5} AS m",
                        true, 100, 1));
        assertEquals(List.of("header ", "columns [tags]", "row", "array 2 STRING", "string x", "string y", "endArray",
                "endRow", "end 0 0 false"), export("MATCH (a:P {name: 'p'}) RETURN a.tags AS tags", true, 100, 1));
        String p = Long.toString(IDS.get("p")), q = Long.toString(IDS.get("q")), r = Long.toString(IDS.get("r"));
        assertEquals(List.of("header ", "columns [path]", "node p", "node q", "node r", "rel p-q", "rel q-r", "row",
                "path [" + p + ", " + q + ", " + r + "] [" + IDS.get("p-q") + ", " + IDS.get("q-r") + "]", "endRow",
                "end 3 2 false"),
                export("MATCH path = (:P {name: 'p'})-[:K*2]->() RETURN path", true, 100, 1));
        assertEquals(List.of("header ", "columns [x]", "row", "string y", "endRow", "row", "string z", "endRow",
                "end 0 0 false"),
                export("UNWIND ['y', 'z'] AS x RETURN x", true, 100, 1));
    }

    /** At the limit the export stops before the row that needed one more node, and says truncated. */
    @Test
    void theNodeLimitStopsBeforeTheRowThatNeedsOneMore() throws IOException {
        for (int threads : new int[] {1, 3}) {
            assertEquals(List.of("header ", "node p", "node q", "rel p-q", "end 2 1 true"),
                    export("MATCH (a)-[k:K]->(b) RETURN k ORDER BY a.name", false, 2, threads), "threads " + threads);
        }
        assertEquals(List.of("header ", "columns [a]", "node p", "row", "nodeRef p", "endRow", "end 1 0 true"),
                export("MATCH (a) RETURN a ORDER BY a.name", true, 1, 1),
                "the row whose node is past the limit is not written");
        assertEquals(List.of("header ", "end 0 0 true"), export("MATCH (a) RETURN a", false, 0, 1));
    }

    /**
     * Rows without a node never reach the entity writer's check of the transaction: the export looks at it itself
     * before the first row and every 1,024 rows, and applies its timeout there (Cypher's own checks see a termination
     * only, and Neo4j's monitor applies a timeout at its next round). A transaction that passes its timeout at the
     * first row's node is stopped at row 1,024 with its timeout's status.
     */
    @Test
    void rowsWithoutNodesStillCheckTheTransactionEvery1024Rows() throws Exception {
        String query = "MATCH (a:P {name: 'p'}) UNWIND range(0, 2000) AS i RETURN CASE WHEN i = 0 THEN a ELSE i END AS v";
        try (Transaction tx = db.beginTx()) {
            tx.execute(query).close();  // planned once: planning must not use up the timeout below
        }
        TraceWriter out = new TraceWriter();
        out.atRecord(1, () -> sleep(600));
        try (Transaction tx = db.beginTx(500, TimeUnit.MILLISECONDS); Result result = tx.execute(query)) {
            TransactionTerminatedException stopped = assertThrows(TransactionTerminatedException.class,
                    () -> CypherExport.run((InternalTransaction) tx, result, true, 100, 1, out));
            assertEquals(Status.Transaction.TransactionTimedOutClientConfiguration, stopped.status());
        } catch (TransactionTerminatedException closing) {
            // closing a terminated transaction may say so again
        }
        assertEquals(Budget.CHECK_MASK + 1, out.calls.stream().filter("row"::equals).count());
        TraceWriter none = new TraceWriter();
        try (Transaction tx = db.beginTx(20, TimeUnit.MILLISECONDS); Result result = tx.execute("UNWIND range(0, 10) AS i RETURN i")) {
            sleep(60);
            assertThrows(TransactionTerminatedException.class,
                    () -> CypherExport.run((InternalTransaction) tx, result, true, 100, 1, none));
        } catch (TransactionTerminatedException closing) {
            // as above
        }
        assertEquals(List.of("header ", "columns [i]"), none.calls, "checked before the first row");
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * A pinned state is checked after the header (and the columns), before any record, and again before the end
     * record: a database that moved on during the export fails it after its records.
     */
    @Test
    void aPinnedStateThatIsNotTheDatabasesFailsTheExport() throws IOException {
        try (Transaction tx = db.beginTx(); Result result = tx.execute("MATCH (a:P {name: 'p'}) RETURN a")) {
            TraceWriter out = new TraceWriter();
            ExportState.Changed changed = assertThrows(ExportState.Changed.class, () -> CypherExport.run(
                    (InternalTransaction) tx, result, true, 100, 1, new ExportState(() -> "s2", "s1"), out));
            assertTrue(changed.getMessage().startsWith("the database moved on from state s1 to s2 "), changed.getMessage());
            assertEquals(List.of("header ", "columns [a]"), out.calls);
        }
        java.util.Iterator<String> states = List.of("s1", "s2").iterator();
        try (Transaction tx = db.beginTx(); Result result = tx.execute("MATCH (a:P {name: 'p'}) RETURN a")) {
            TraceWriter out = new TraceWriter();
            assertThrows(ExportState.Changed.class, () -> CypherExport.run(
                    (InternalTransaction) tx, result, false, 100, 1, new ExportState(states::next, "s1"), out));
            assertTrue(out.calls.get(1).startsWith("node " + IDS.get("p") + " "), out.calls.toString());
            assertEquals("endNode", out.calls.get(out.calls.size() - 1), "the node's record, and no end record");
        }
        try (Transaction tx = db.beginTx(); Result result = tx.execute("MATCH (a:P {name: 'p'}) RETURN a")) {
            TraceWriter out = new TraceWriter();
            CypherExport.run((InternalTransaction) tx, result, false, 100, 1, new ExportState(() -> "s1", "s1"), out);
            assertEquals("end 1 0 false", out.calls.get(out.calls.size() - 1));
            assertEquals("s1", out.endState);
        }
    }

    @Test
    void readThreadsBelowOneAreRefused() {
        try (Transaction tx = db.beginTx(); Result result = tx.execute("RETURN 1")) {
            assertEquals("readThreads must be >= 1: 0", assertThrows(IllegalArgumentException.class,
                    () -> CypherExport.run((InternalTransaction) tx, result, false, 10, 0, new TraceWriter())).getMessage());
        }
    }
}
