package org.subgraphexport.read;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.collections.impl.list.mutable.primitive.LongArrayList;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Transaction;
import org.neo4j.graphdb.event.LabelEntry;
import org.neo4j.graphdb.event.PropertyEntry;
import org.neo4j.graphdb.event.TransactionData;
import org.neo4j.graphdb.event.TransactionEventListener;
import org.neo4j.kernel.internal.GraphDatabaseAPI;
import org.subgraphexport.neo4j.Neo4jLine;

/**
 * What changed in one database since the plugin began watching it, bounded: per committed transaction (Neo4j's
 * public transaction event listener), the ids of the nodes created or changed (properties, labels), of the
 * relationships created or changed (properties), and the id, type and ends of the relationships created and
 * deleted. That is enough to answer a delta export exactly (docs/operations.md, "Delta exports"): the changed ids say
 * which records to send again, and undoing the created and deleted relationships on today's topology gives the
 * topology of any state since {@link #horizon()}, hence the earlier export's membership.
 *
 * <p>Nothing heavier than ids is recorded on the write path (no property values; on lines that allow it the
 * listener asks Neo4j not to collect the old values at all, {@code transactionDataSelection}). Memory: each id costs
 * 8 bytes (a deleted or created relationship 32), a transaction 64 more; the total is kept at or under
 * {@code maxBytes} by dropping the oldest transactions, which moves the horizon: a delta since a state older than
 * the horizon is unavailable ({@link Unavailable}, 410). A journal starts empty with its horizon at the state the
 * database was in when it began watching: a restart, or a state of another database, is unavailable too.
 *
 * <p>Completeness: a listener is called after the commit, so a reader that saw transaction {@code T} committed may
 * come before its entry. Each transaction takes a ticket in {@code beforeCommit} and gives it back after commit or
 * rollback; {@link #window} waits until every ticket taken before it was called is back.
 */
public final class ChangeJournal {
    /** The error code of a delta the journal cannot answer exactly. */
    public static final String UNAVAILABLE = "Export.DeltaUnavailable";
    /** Bytes counted per transaction, besides its ids. */
    static final long ENTRY_BYTES = 64;
    /** How long {@link #window} waits for transactions in the middle of committing. */
    static final long COMPLETE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** A ticket older than this is a transaction whose end the listener never heard of: ignored. */
    static final long STALE_TICKET_NANOS = TimeUnit.SECONDS.toNanos(60);

    private static final Map<DatabaseManagementService, Map<String, ChangeJournal>> PER_DBMS = new WeakHashMap<>();

    /** One transaction's changes (ids only); the relationship quads are id, start, end, type (journal dictionary). */
    record Entry(long tx, long[] nodes, long[] relationships, long[] createdRelationships, long[] deletedRelationships,
            long[] deletedNodes) {
        long bytes() {
            return ENTRY_BYTES + 8L * (nodes.length + relationships.length + createdRelationships.length
                    + deletedRelationships.length + deletedNodes.length);
        }
    }

    /** The changes of the transactions after a state, up to another, in commit order. */
    public record Window(long since, long until, List<Entry> entries, String[] types) {}

    private final String database;
    private final long maxBytes;
    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private final Map<String, Integer> typeCodes = new HashMap<>();
    private final List<String> typeNames = new ArrayList<>();
    private long bytes;
    /** Transactions up to this one are not (or no longer) in the journal. */
    private long horizon;
    private final AtomicLong tickets = new AtomicLong();
    private final ConcurrentHashMap<Long, Long> inFlight = new ConcurrentHashMap<>();
    private final Listener listener;

    private ChangeJournal(String database, long maxBytes) {
        this.database = database;
        this.maxBytes = maxBytes;
        this.listener = Listener.of(this);
    }

    /**
     * The journal of {@code db}, started (its listener registered, its horizon the database's state now) on first
     * use. A journal of {@code maxBytes} 0 records nothing and answers every delta with {@link Unavailable}.
     */
    public static ChangeJournal of(DatabaseManagementService dbms, GraphDatabaseService db, long maxBytes) {
        String uuid = ((GraphDatabaseAPI) db).databaseId().databaseId().uuid().toString();
        ChangeJournal stale = null;
        ChangeJournal journal;
        synchronized (PER_DBMS) {
            Map<String, ChangeJournal> journals = PER_DBMS.computeIfAbsent(dbms, d -> new HashMap<>());
            journal = journals.get(db.databaseName());
            if (journal != null && journal.database.equals(uuid)) {
                return journal;
            }
            stale = journal;  // the database was dropped and created again under its name
            journal = new ChangeJournal(uuid, maxBytes);
            journals.put(db.databaseName(), journal);
            if (maxBytes > 0) {
                if (stale != null) {
                    dbms.unregisterTransactionEventListener(db.databaseName(), stale.listener);
                }
                dbms.registerTransactionEventListener(db.databaseName(), journal.listener);
            }
            // the horizon is read after the listener is in place: every later commit is journalled
            journal.start(lastCommitted(db));
        }
        return journal;
    }

    /**
     * Stops watching {@code db}: its listener unregistered, its journal forgotten (the next {@link #of} starts a new
     * one, whose horizon is the state then). For benchmarks that compare writes with and without the listener.
     */
    public static void stop(DatabaseManagementService dbms, GraphDatabaseService db) {
        synchronized (PER_DBMS) {
            Map<String, ChangeJournal> journals = PER_DBMS.get(dbms);
            ChangeJournal journal = journals == null ? null : journals.remove(db.databaseName());
            if (journal != null && journal.maxBytes > 0) {
                dbms.unregisterTransactionEventListener(db.databaseName(), journal.listener);
            }
        }
    }

    private static long lastCommitted(GraphDatabaseService db) {
        String version = StoreState.version(db);
        return Long.parseLong(version.substring(version.indexOf(':') + 1));
    }

    private synchronized void start(long state) {
        horizon = state;
    }

    /** The database (its uuid) this journal watches. */
    public String database() {
        return database;
    }

    /** Transactions up to this one are not in the journal: deltas since an older state are unavailable. */
    public synchronized long horizon() {
        return horizon;
    }

    /** Heap the journal holds now, in bytes, as counted. */
    public synchronized long bytes() {
        return bytes;
    }

    /** Transactions in the journal now. */
    public synchronized int transactions() {
        return entries.size();
    }

    /**
     * The changes after state {@code since} up to {@code until} (both transaction ids of this database), once every
     * transaction that was committing when this was called has been journalled.
     *
     * @throws Unavailable if the journal no longer (or never) held all of them
     */
    public Window window(long since, long until) {
        awaitCommitting();
        synchronized (this) {
            if (maxBytes == 0 || since < horizon) {
                throw new Unavailable(maxBytes == 0 ? "the server keeps no change journal ("
                        + "server.subgraph_export.delta_journal_size is 0)"
                        : "the server's change journal begins after state " + since + " (it remembers transactions"
                        + " after " + horizon + ": it restarted since, or the journal, "
                        + maxBytes + " bytes, overflowed)");
            }
            List<Entry> selected = new ArrayList<>();
            for (Iterator<Entry> it = entries.descendingIterator(); it.hasNext(); ) {
                Entry e = it.next();
                if (e.tx <= since) break;
                if (e.tx <= until) selected.add(e);
            }
            selected.sort((a, b) -> Long.compare(a.tx, b.tx));  // newest first, and commits may be journalled out of order
            return new Window(since, until, selected, typeNames.toArray(String[]::new));
        }
    }

    /** Waits (a bounded time) until no transaction that began committing before this call is still unjournalled. */
    private void awaitCommitting() {
        long bound = tickets.get();
        long deadline = System.nanoTime() + COMPLETE_WAIT_NANOS;
        while (true) {
            boolean pending = false;
            long now = System.nanoTime();
            for (Map.Entry<Long, Long> t : inFlight.entrySet()) {
                if (t.getKey() <= bound && now - t.getValue() < STALE_TICKET_NANOS) {
                    pending = true;
                    break;
                }
            }
            if (!pending) return;
            if (now - deadline > 0) {
                throw new Unavailable("transactions committing on the database were not journalled within "
                        + TimeUnit.NANOSECONDS.toMillis(COMPLETE_WAIT_NANOS) + " ms");
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    /**
     * Builds a transaction's entry from its data (ids only): on the committing thread, before the commit. Never fails
     * the transaction: if reading its data fails, the entry is marked lost, and once the transaction commits the
     * horizon moves past it (deltas across it are unavailable, never wrong).
     */
    Pending record(TransactionData data) {
        long ticket = tickets.incrementAndGet();
        inFlight.put(ticket, System.nanoTime());
        try {
            return collect(ticket, data);
        } catch (RuntimeException | LinkageError e) {
            return new Pending(ticket, null, null, null, null, null);
        }
    }

    private Pending collect(long ticket, TransactionData data) {
        LongArrayList nodes = new LongArrayList();
        for (Node n : data.createdNodes()) nodes.add(id(n));
        for (PropertyEntry<Node> p : data.assignedNodeProperties()) nodes.add(id(p.entity()));
        for (PropertyEntry<Node> p : data.removedNodeProperties()) nodes.add(id(p.entity()));
        for (LabelEntry l : data.assignedLabels()) nodes.add(id(l.node()));
        for (LabelEntry l : data.removedLabels()) nodes.add(id(l.node()));
        LongArrayList deletedNodes = new LongArrayList();
        for (Node n : data.deletedNodes()) deletedNodes.add(id(n));
        LongArrayList rels = new LongArrayList();
        for (PropertyEntry<Relationship> p : data.assignedRelationshipProperties()) rels.add(id(p.entity()));
        for (PropertyEntry<Relationship> p : data.removedRelationshipProperties()) rels.add(id(p.entity()));
        LongArrayList created = new LongArrayList();
        for (Relationship r : data.createdRelationships()) {
            created.add(id(r));
            rels.add(id(r));
        }
        LongArrayList deleted = new LongArrayList();
        for (Relationship r : data.deletedRelationships()) {
            deleted.add(id(r));
            deleted.add(id(r.getStartNode()));
            deleted.add(id(r.getEndNode()));
            deleted.add(typeCode(r.getType().name()));
        }
        return new Pending(ticket, nodes.toArray(), rels.toArray(), created.toArray(), deleted.toArray(),
                deletedNodes.toArray());
    }

    /** A transaction's entry before its id is known, with its ticket. */
    record Pending(long ticket, long[] nodes, long[] relationships, long[] created, long[] deleted,
            long[] deletedNodes) {}

    void committed(Pending pending, long tx) {
        if (pending.nodes == null) {  // lost: nothing before this transaction can be answered any more
            try {
                synchronized (this) {
                    horizon = Math.max(horizon, tx);
                    entries.removeIf(e -> e.tx <= tx);
                    bytes = entries.stream().mapToLong(Entry::bytes).sum();
                }
            } finally {
                inFlight.remove(pending.ticket);
            }
            return;
        }
        try {
            Entry e = new Entry(tx, pending.nodes, pending.relationships, pending.created, pending.deleted,
                    pending.deletedNodes);
            synchronized (this) {
                if (tx > horizon) {
                    entries.addLast(e);
                    bytes += e.bytes();
                    while (bytes > maxBytes && !entries.isEmpty()) {
                        Entry oldest = oldest();
                        entries.remove(oldest);
                        bytes -= oldest.bytes();
                        horizon = Math.max(horizon, oldest.tx);
                    }
                }
            }
        } finally {
            inFlight.remove(pending.ticket);
        }
    }

    /** The entry with the lowest transaction id (entries are appended in journalling order, nearly commit order). */
    private Entry oldest() {
        Entry min = entries.peekFirst();
        int look = 0;
        for (Entry e : entries) {
            if (e.tx < min.tx) min = e;
            if (++look == 64) break;  // out of order by at most the committing threads
        }
        return min;
    }

    void rolledBack(Pending pending) {
        if (pending != null) inFlight.remove(pending.ticket);
    }

    private synchronized long typeCode(String name) {
        Integer code = typeCodes.get(name);
        if (code == null) {
            code = typeNames.size();
            typeNames.add(name);
            typeCodes.put(name, code);
        }
        return code;
    }

    @SuppressWarnings("removal")
    private static long id(org.neo4j.graphdb.Entity e) {
        return e.getId();
    }

    /** The journal cannot answer a delta since that state exactly. */
    public static final class Unavailable extends RuntimeException {
        public Unavailable(String message) {
            super(message);
        }

        public String code() {
            return UNAVAILABLE;
        }
    }

    /**
     * The listener: records on the committing thread, publishes with the transaction id after the commit. On lines
     * whose listener API lets it say which data it needs ({@code transactionDataSelection}, 2025.x and later), it asks
     * Neo4j not to collect the old values of replaced and removed properties, nor the labels of deleted nodes: only
     * the keys of removed properties, so it knows which entities lost one (if another listener wants more, Neo4j
     * collects the union). The set comes from {@link Neo4jLine#removedPropertyKeysOnly()} by name, so this class links
     * on 5.26 too, where the method is an ordinary one nobody calls.
     */
    static final class Listener implements TransactionEventListener<Pending> {
        final ChangeJournal journal;

        Listener(ChangeJournal journal) {
            this.journal = journal;
        }

        static Listener of(ChangeJournal journal) {
            return new Listener(journal);
        }

        /** An override on 2025.x and later (raw: the element type is not a class 5.26 has). */
        @SuppressWarnings("rawtypes")
        public Set transactionDataSelection() {
            return Neo4jLine.removedPropertyKeysOnly();
        }

        @Override
        public Pending beforeCommit(TransactionData data, Transaction transaction, GraphDatabaseService db) {
            return journal.record(data);
        }

        @Override
        public void afterCommit(TransactionData data, Pending state, GraphDatabaseService db) {
            if (state != null) journal.committed(state, data.getTransactionId());
        }

        @Override
        public void afterRollback(TransactionData data, Pending state, GraphDatabaseService db) {
            journal.rolledBack(state);
        }
    }
}
