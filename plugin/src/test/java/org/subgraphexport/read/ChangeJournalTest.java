package org.subgraphexport.read;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.Transaction;
import org.neo4j.graphdb.event.TransactionData;

/**
 * The change journal: what it records of a commit (ids, and a deleted relationship's ends and type), the window of
 * transactions after a state, its memory bound moving the horizon, a transaction whose data could not be read, the
 * wait for transactions still committing, and the journal that keeps nothing. On an embedded database whose journal
 * each test starts afresh ({@link ChangeJournal#stop}, then {@link ChangeJournal#of} with its own size); some
 * transactions are fed to it directly (package-private {@code record} and {@code committed}) to order them at will.
 */
class ChangeJournalTest {
    private static DatabaseManagementService dbms;
    private static GraphDatabaseService db;

    /** The database once per JVM ({@link SharedDatabases}); every test starts a journal of its own. */
    @BeforeAll
    static void start() {
        dbms = SharedDatabases.get("change-journal", d -> {});
        db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
    }

    @AfterAll
    static void stop() {
        ChangeJournal.stop(dbms, db);
    }

    private static ChangeJournal fresh(long maxBytes) {
        ChangeJournal.stop(dbms, db);
        return ChangeJournal.of(dbms, db, maxBytes);
    }

    private static long lastTransaction() {
        return DeltaExport.transaction(StoreState.version(db));
    }

    /** Transaction data with nothing in it, or whose reading fails. */
    private static TransactionData data(boolean failing) {
        return (TransactionData) Proxy.newProxyInstance(TransactionData.class.getClassLoader(),
                new Class<?>[] {TransactionData.class}, (proxy, method, args) -> {
                    if (failing) throw new IllegalStateException("no data (test)");
                    return method.getReturnType() == Iterable.class ? List.of() : null;
                });
    }

    private static ChangeJournal.Pending pending(long... nodes) {
        return new ChangeJournal.Pending(-1, nodes, new long[0], new long[0], new long[0], new long[0]);
    }

    @Test
    void aCommitIsRecordedAsItsIdsWithADeletedRelationshipsEndsAndType() {
        ChangeJournal journal = fresh(1 << 20);
        long since = lastTransaction();
        assertEquals(since, journal.horizon());
        assertEquals(0, journal.transactions());
        assertEquals(0, journal.bytes());
        long x, y, rel;
        long[] t = new long[4];
        try (Transaction tx = db.beginTx()) {
            Node a = tx.createNode(), b = tx.createNode();
            x = a.getId();
            y = b.getId();
            tx.commit();
        }
        t[0] = lastTransaction();
        try (Transaction tx = db.beginTx()) {
            Node a = tx.getNodeById(x);
            a.setProperty("v", 1);
            a.addLabel(Label.label("L"));
            Relationship r = a.createRelationshipTo(tx.getNodeById(y), RelationshipType.withName("T"));
            r.setProperty("w", 1);
            rel = r.getId();
            tx.commit();
        }
        t[1] = lastTransaction();
        try (Transaction tx = db.beginTx()) {
            Node b = tx.getNodeById(y);
            b.removeProperty("nothing-there");
            tx.getRelationshipById(rel).removeProperty("w");
            tx.commit();
        }
        t[2] = lastTransaction();
        try (Transaction tx = db.beginTx()) {
            tx.getRelationshipById(rel).delete();
            tx.getNodeById(y).delete();
            tx.getNodeById(x).removeLabel(Label.label("L"));
            tx.commit();
        }
        t[3] = lastTransaction();
        long until = lastTransaction();
        assertEquals(t[3], until);
        ChangeJournal.Window w = journal.window(since, until);
        assertEquals(since, w.since());
        assertEquals(until, w.until());
        assertArrayEquals(new String[] {"T"}, w.types());
        List<ChangeJournal.Entry> e = w.entries();
        assertEquals(4, e.size());
        assertEquals(List.of(t[0], t[1], t[2], t[3]), txs(w));
        assertEquals(List.of(x, y), sortedList(e.get(0).nodes()));
        assertArrayEquals(new long[0], e.get(0).relationships());
        assertArrayEquals(new long[] {x, x}, e.get(1).nodes());  // a property and a label
        assertArrayEquals(new long[] {rel, rel}, e.get(1).relationships());  // a property, and created
        assertArrayEquals(new long[] {rel}, e.get(1).createdRelationships());
        assertArrayEquals(new long[] {}, e.get(2).nodes());  // removing a property it does not have changes nothing
        assertArrayEquals(new long[] {rel}, e.get(2).relationships());
        assertArrayEquals(new long[] {x}, e.get(3).nodes());
        assertArrayEquals(new long[] {rel, x, y, 0}, e.get(3).deletedRelationships());
        assertArrayEquals(new long[] {y}, e.get(3).deletedNodes());
        assertArrayEquals(new long[] {}, e.get(3).createdRelationships());
        assertEquals(4, journal.transactions());
        long bytes = 0;
        for (ChangeJournal.Entry entry : e) bytes += entry.bytes();
        assertEquals(bytes, journal.bytes());
        assertEquals(4 * ChangeJournal.ENTRY_BYTES + 8 * (2 + 2 + 2 + 1 + 1 + 1 + 4 + 1), bytes);
        // the window is after since, up to until
        assertEquals(List.of(t[1], t[2]), txs(journal.window(t[0], t[2])));
        assertEquals(List.of(t[1], t[2]), txs(journal.window(t[0], t[3] - 1)));
        assertEquals(List.of(), txs(journal.window(until, until)));
    }

    @Test
    void deletedRelationshipsNameTheirTypeInTheWindowsDictionary() {
        ChangeJournal journal = fresh(1 << 20);
        long since = lastTransaction();
        long a, b, c;
        try (Transaction tx = db.beginTx()) {
            Node x = tx.createNode(), y = tx.createNode();
            a = x.createRelationshipTo(y, RelationshipType.withName("ONE")).getId();
            b = x.createRelationshipTo(y, RelationshipType.withName("TWO")).getId();
            c = y.createRelationshipTo(x, RelationshipType.withName("ONE")).getId();
            tx.commit();
        }
        for (long rel : new long[] {b, a, c}) {
            try (Transaction tx = db.beginTx()) {
                tx.getRelationshipById(rel).delete();
                tx.commit();
            }
        }
        ChangeJournal.Window w = journal.window(since, lastTransaction());
        assertArrayEquals(new String[] {"TWO", "ONE"}, w.types());
        assertEquals(4, w.entries().size());
        assertEquals(0, w.entries().get(1).deletedRelationships()[3]);
        assertEquals(1, w.entries().get(2).deletedRelationships()[3]);
        assertEquals(1, w.entries().get(3).deletedRelationships()[3]);
    }

    private static List<Long> sortedList(long[] ids) {
        return java.util.Arrays.stream(ids).sorted().boxed().toList();
    }

    private static List<Long> txs(ChangeJournal.Window w) {
        return w.entries().stream().map(ChangeJournal.Entry::tx).toList();
    }

    @Test
    void overflowDropsTheOldestTransactionsAndMovesTheHorizon() {
        long entry = ChangeJournal.ENTRY_BYTES + 8;  // one node id
        ChangeJournal journal = fresh(3 * entry);
        long h = journal.horizon();
        journal.committed(pending(1), h + 2);  // journalled out of commit order
        journal.committed(pending(2), h + 1);
        journal.committed(pending(3), h + 3);
        assertEquals(3, journal.transactions());
        assertEquals(3 * entry, journal.bytes());
        assertEquals(h, journal.horizon());
        assertEquals(List.of(h + 1, h + 2, h + 3), txs(journal.window(h, h + 3)));
        journal.committed(pending(4), h + 4);  // one too many: the lowest transaction goes
        assertEquals(3, journal.transactions());
        assertEquals(3 * entry, journal.bytes());
        assertEquals(h + 1, journal.horizon());
        assertEquals(List.of(h + 2, h + 3, h + 4), txs(journal.window(h + 1, h + 4)));
        ChangeJournal.Unavailable e = assertThrows(ChangeJournal.Unavailable.class, () -> journal.window(h, h + 4));
        assertEquals("the server's change journal begins after state " + h + " (it remembers transactions after "
                + (h + 1) + ": it restarted since, or the journal, " + 3 * entry + " bytes, overflowed)", e.getMessage());
        assertEquals(ChangeJournal.UNAVAILABLE, e.code());
        // a transaction at or below the horizon is not journalled
        journal.committed(pending(5), h + 1);
        assertEquals(3, journal.transactions());
        journal.committed(new ChangeJournal.Pending(-1, new long[] {1, 2, 3, 4}, new long[0], new long[0],
                new long[0], new long[0]), h + 5);  // 4 ids: two entries must go
        assertEquals(2, journal.transactions());
        assertEquals(entry + entry + 24, journal.bytes());
        assertEquals(h + 3, journal.horizon());
    }

    @Test
    void aTransactionWhoseDataCannotBeReadMovesTheHorizonPastIt() {
        ChangeJournal journal = fresh(1 << 20);
        long h = journal.horizon();
        journal.committed(pending(1), h + 1);
        journal.committed(pending(2), h + 2);
        journal.committed(pending(3), h + 4);
        ChangeJournal.Pending lost = journal.record(data(true));
        assertNull(lost.nodes());
        assertNull(lost.deletedNodes());
        journal.committed(lost, h + 3);
        assertEquals(h + 3, journal.horizon());
        assertEquals(List.of(h + 4), txs(journal.window(h + 3, h + 4)));
        assertEquals(1, journal.transactions());
        assertEquals(ChangeJournal.ENTRY_BYTES + 8, journal.bytes());
        assertThrows(ChangeJournal.Unavailable.class, () -> journal.window(h + 2, h + 4));
        // a lost transaction below the horizon leaves it where it is
        journal.committed(journal.record(data(true)), h + 1);
        assertEquals(h + 3, journal.horizon());
        assertEquals(1, journal.transactions());
        ChangeJournal.Pending empty = journal.record(data(false));
        assertNotNull(empty.nodes());
        assertEquals(0, empty.nodes().length + empty.relationships().length + empty.created().length
                + empty.deleted().length + empty.deletedNodes().length);
        assertTrue(empty.ticket() > lost.ticket());
        journal.rolledBack(empty);
        journal.rolledBack(null);
    }

    @Test
    void theWindowWaitsForATransactionStillCommittingAndGivesUpAfterFiveSeconds() throws Exception {
        ChangeJournal journal = fresh(1 << 20);
        long h = journal.horizon();
        ChangeJournal.Pending committing = journal.record(data(false));
        long started = System.nanoTime();
        ChangeJournal.Unavailable e = assertThrows(ChangeJournal.Unavailable.class, () -> journal.window(h, h + 1));
        long waited = System.nanoTime() - started;
        assertEquals("transactions committing on the database were not journalled within 5000 ms", e.getMessage());
        assertTrue(waited >= ChangeJournal.COMPLETE_WAIT_NANOS, () -> waited + " ns");
        // committed while a window waits: the window has it
        Thread committer = new Thread(() -> {
            try {
                Thread.sleep(300);
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
            journal.committed(new ChangeJournal.Pending(committing.ticket(), new long[] {9}, new long[0], new long[0],
                    new long[0], new long[0]), h + 1);
        });
        committer.start();
        ChangeJournal.Window w = journal.window(h, h + 1);
        committer.join();
        assertEquals(List.of(h + 1), txs(w));
        assertArrayEquals(new long[] {9}, w.entries().get(0).nodes());
        // a transaction rolled back is waited for no more
        ChangeJournal.Pending rolledBack = journal.record(data(false));
        journal.rolledBack(rolledBack);
        long quick = System.nanoTime();
        assertEquals(List.of(h + 1), txs(journal.window(h, h + 1)));
        assertTrue(System.nanoTime() - quick < ChangeJournal.COMPLETE_WAIT_NANOS / 2);
    }

    @Test
    void aJournalOfSizeZeroKeepsNothing() {
        ChangeJournal journal = fresh(0);
        long h = journal.horizon();
        try (Transaction tx = db.beginTx()) {
            tx.createNode();
            tx.commit();
        }
        assertEquals(0, journal.transactions());
        ChangeJournal.Unavailable e = assertThrows(ChangeJournal.Unavailable.class, () -> journal.window(h, h + 1));
        assertEquals("the server keeps no change journal (server.subgraph_export.delta_journal_size is 0)",
                e.getMessage());
    }

    @Test
    void oneJournalPerDatabaseUntilStopped() {
        ChangeJournal journal = fresh(1 << 20);
        assertSame(journal, ChangeJournal.of(dbms, db, 5));
        assertEquals(((org.neo4j.kernel.internal.GraphDatabaseAPI) db).databaseId().databaseId().uuid().toString(),
                journal.database());
        ChangeJournal.stop(dbms, db);
        ChangeJournal next = ChangeJournal.of(dbms, db, 1 << 20);
        assertTrue(next != journal);
        try (Transaction tx = db.beginTx()) {
            tx.createNode();
            tx.commit();
        }
        assertEquals(1, next.transactions());
        assertEquals(0, journal.transactions(), "the stopped journal's listener is gone");
        assertEquals(lastTransaction() - 1, next.horizon());
    }
}
