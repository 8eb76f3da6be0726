package org.subgraphexport.read;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
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
import org.neo4j.graphdb.TransactionTerminatedException;
import org.neo4j.internal.kernel.api.RelationshipScanCursor;
import org.neo4j.internal.kernel.api.RelationshipTraversalCursor;
import org.neo4j.internal.kernel.api.TokenRead;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.kernel.api.exceptions.Status;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;
import org.neo4j.values.ElementIdMapper;
import org.neo4j.values.storable.Value;
import org.neo4j.values.storable.Values;
import org.subgraphexport.wire.TokenNames;

/**
 * The two ways a record is read from the store, on a few nodes and relationships with exact contents: {@link EntityWriter}
 * (one record at a time, straight to the writer: the single-threaded walk and the Cypher endpoint) and
 * {@link BatchReader} (a batch of the parallel walk: labels and values into a {@link RecordBatch}), and the parallel
 * writer's own rules (its check of the transaction, a node found gone, batch sizing). Also the token names and element
 * ids the header is made of, and the store's state and warm-up.
 *
 * <pre>
 *   plain (no labels, no properties) -T {w: 2.5}-> many (20 labels, n: 1, s: "x")
 *   many -U-> nine (9 labels, one property)
 *   heavy (a 100,000-char string)
 *   a node and a relationship created and deleted
 * </pre>
 */
class EntityReadsTest {
    private static GraphDatabaseService db;
    private static final Map<String, Long> IDS = new HashMap<>();

    @BeforeAll
    static void start() {
        db = SharedDatabases.get("entity-reads", EntityReadsTest::fill).database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
    }

    private static void fill(DatabaseManagementService dbms) {
        GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        try (Transaction tx = db.beginTx()) {
            Node plain = tx.createNode();
            Node many = tx.createNode(labels(20));
            many.setProperty("n", 1);
            many.setProperty("s", "x");
            Node nine = tx.createNode(labels(9));
            nine.setProperty("n", 9L);
            Relationship t = plain.createRelationshipTo(many, RelationshipType.withName("T"));
            t.setProperty("w", 2.5);
            Relationship u = many.createRelationshipTo(nine, RelationshipType.withName("U"));
            Node heavy = tx.createNode();
            heavy.setProperty("text", "h".repeat(100_000));
            IDS.put("heavy", heavy.getId());
            Node gone = tx.createNode(Label.label("L0"));
            Relationship goneRel = plain.createRelationshipTo(nine, RelationshipType.withName("T"));
            IDS.put("plain", plain.getId());
            IDS.put("many", many.getId());
            IDS.put("nine", nine.getId());
            IDS.put("t", t.getId());
            IDS.put("u", u.getId());
            IDS.put("gone", gone.getId());
            IDS.put("goneRel", goneRel.getId());
            tx.commit();
        }
        try (Transaction tx = db.beginTx()) {
            tx.getRelationshipById(IDS.get("goneRel")).delete();
            tx.getNodeById(IDS.get("gone")).delete();
            tx.commit();
        }
    }

    private static Label[] labels(int count) {
        Label[] labels = new Label[count];
        for (int i = 0; i < count; i++) labels[i] = Label.label("L" + i);
        return labels;
    }

    private static long id(String name) {
        return IDS.get(name);
    }

    /** Token ids of the labels L0 .. L(count-1), in the order a node cursor gives them (ascending ids). */
    private static String labelIds(KernelTransaction ktx, int count) {
        TokenRead tokens = ktx.tokenRead();
        int[] ids = new int[count];
        for (int i = 0; i < count; i++) ids[i] = tokens.nodeLabel("L" + i);
        Arrays.sort(ids);
        return Arrays.toString(ids);
    }

    private static int key(KernelTransaction ktx, String name) {
        return ktx.tokenRead().propertyKey(name);
    }

    private static int type(KernelTransaction ktx, String name) {
        return ktx.tokenRead().relationshipType(name);
    }

    /** The calls of one record with its properties in key order (the store's order is its own). */
    private static List<String> sortedProperties(List<String> calls) {
        List<String> out = new ArrayList<>();
        List<List<String>> properties = new ArrayList<>();
        for (String call : calls) {
            if (call.startsWith("key ")) {
                properties.add(new ArrayList<>(List.of(call)));
            } else if (call.startsWith("end")) {
                properties.sort((a, b) -> a.get(0).compareTo(b.get(0)));
                properties.forEach(out::addAll);
                properties.clear();
                out.add(call);
            } else if (!properties.isEmpty()) {
                properties.get(properties.size() - 1).add(call);
            } else {
                out.add(call);
            }
        }
        return out;
    }

    @Test
    void theEntityWriterWritesEachNodeWithAllItsLabelsAndValues() throws IOException {
        try (Transaction tx = db.beginTx()) {
            KernelTransaction ktx = ((InternalTransaction) tx).kernelTransaction();
            TraceWriter out = new TraceWriter();
            try (EntityWriter writer = new EntityWriter(ktx, out, Long.MAX_VALUE)) {
                assertTrue(writer.writeNode(id("plain")));
                assertTrue(writer.writeNode(id("many")));
                assertTrue(writer.writeNode(id("nine")));
                assertTrue(writer.writeNode(id("many")), "the label buffer, grown once, serves again");
                assertEquals(4, writer.nodes());
                assertEquals(0, writer.relationships());
                assertFalse(writer.truncated());
            }
            String many = "node " + id("many") + " " + labelIds(ktx, 20);
            List<String> manyRecord = List.of(many, "key " + key(ktx, "n"), "int 1", "key " + key(ktx, "s"), "string x", "endNode");
            List<String> expected = new ArrayList<>(List.of("node " + id("plain") + " []", "endNode"));
            expected.addAll(manyRecord);
            expected.addAll(List.of("node " + id("nine") + " " + labelIds(ktx, 9), "key " + key(ktx, "n"), "long 9", "endNode"));
            expected.addAll(manyRecord);
            assertEquals(sortedProperties(expected), sortedProperties(out.calls));
        }
    }

    @Test
    void aNodeGoneOrPastTheLimitIsNotWritten() throws IOException {
        try (Transaction tx = db.beginTx()) {
            KernelTransaction ktx = ((InternalTransaction) tx).kernelTransaction();
            TraceWriter out = new TraceWriter();
            try (EntityWriter writer = new EntityWriter(ktx, out, 2)) {
                assertFalse(writer.writeNode(id("gone")));
                assertFalse(writer.truncated(), "a deleted node is not a cut");
                assertEquals(0, writer.nodes());
                assertTrue(writer.writeNode(id("plain")));
                assertTrue(writer.writeNode(id("plain")));
                assertFalse(writer.truncated());
                assertFalse(writer.writeNode(id("nine")));
                assertTrue(writer.truncated());
                assertEquals(2, writer.nodes());
            }
            assertEquals(List.of("node " + id("plain") + " []", "endNode", "node " + id("plain") + " []", "endNode"), out.calls);

            TraceWriter none = new TraceWriter();
            try (EntityWriter writer = new EntityWriter(ktx, none, 0)) {
                assertFalse(writer.writeNode(id("plain")));
                assertTrue(writer.truncated());
                assertEquals(0, writer.nodes());
            }
            assertEquals(List.of(), none.calls);
        }
    }

    @Test
    void theEntityWriterWritesRelationshipsFromEitherCursor() throws IOException {
        try (Transaction tx = db.beginTx()) {
            KernelTransaction ktx = ((InternalTransaction) tx).kernelTransaction();
            TraceWriter out = new TraceWriter();
            try (EntityWriter writer = new EntityWriter(ktx, out, Long.MAX_VALUE);
                    RelationshipScanCursor scan = ktx.cursors().allocateRelationshipScanCursor(ktx.cursorContext(), ktx.memoryTracker());
                    RelationshipTraversalCursor traversal = ktx.cursors().allocateRelationshipTraversalCursor(ktx.cursorContext(), ktx.memoryTracker());
                    var node = ktx.cursors().allocateNodeCursor(ktx.cursorContext(), ktx.memoryTracker())) {
                ktx.dataRead().singleRelationship(id("t"), scan);
                assertTrue(scan.next());
                writer.writeRelationship(scan);
                ktx.dataRead().singleNode(id("nine"), node);
                assertTrue(node.next());
                node.relationships(traversal, org.neo4j.storageengine.api.RelationshipSelection.ALL_RELATIONSHIPS);
                assertTrue(traversal.next());
                writer.writeRelationship(traversal);
                assertFalse(traversal.next());
                assertEquals(2, writer.relationships());
                assertEquals(0, writer.nodes());
            }
            assertEquals(List.of(
                    "rel " + id("t") + " type " + type(ktx, "T") + " " + id("plain") + "->" + id("many"),
                    "key " + key(ktx, "w"), "double 2.5", "endRel",
                    "rel " + id("u") + " type " + type(ktx, "U") + " " + id("many") + "->" + id("nine"), "endRel"),
                    out.calls);
        }
    }

    /**
     * The writer looks at its transaction before its first node and then every 1,024 nodes ({@link Budget}), not in
     * between: a transaction terminated after the first node is seen at the 1,025th.
     */
    @Test
    void theEntityWriterChecksItsTransactionEvery1024Nodes() throws IOException {
        try (Transaction tx = db.beginTx()) {
            KernelTransaction ktx = ((InternalTransaction) tx).kernelTransaction();
            TraceWriter out = new TraceWriter();
            try (EntityWriter writer = new EntityWriter(ktx, out, Long.MAX_VALUE)) {
                assertTrue(writer.writeNode(id("plain")));
                ktx.markForTermination(Status.Transaction.Terminated);
                for (int i = 1; i < Budget.CHECK_MASK + 1; i++) assertTrue(writer.writeNode(id("plain")));
                TransactionTerminatedException stopped =
                        assertThrows(TransactionTerminatedException.class, () -> writer.writeNode(id("plain")));
                assertEquals(Status.Transaction.Terminated, stopped.status());
                assertEquals(Budget.CHECK_MASK + 1, writer.nodes());
            }
        } catch (TransactionTerminatedException closing) {
            // closing a terminated transaction may say so again
        }
        try (Transaction tx = db.beginTx()) {
            KernelTransaction ktx = ((InternalTransaction) tx).kernelTransaction();
            ktx.markForTermination(Status.Transaction.Terminated);
            try (EntityWriter writer = new EntityWriter(ktx, new TraceWriter(), Long.MAX_VALUE)) {
                assertThrows(TransactionTerminatedException.class, () -> writer.writeNode(id("plain")));
                assertEquals(0, writer.nodes());
            }
        } catch (TransactionTerminatedException closing) {
            // as above
        }
    }

    /**
     * The parallel writer checks its transaction when it accepts a node, every 1,024 nodes as the single-threaded one
     * does (its readers check only that the transaction is open): a transaction past its timeout after the first node
     * is stopped, with its timeout's status, at the 1,025th.
     */
    @Test
    void theParallelWriterChecksItsTransactionEvery1024Nodes() throws Exception {
        TraceWriter out = new TraceWriter();
        int accepted = 0;
        try (Transaction tx = db.beginTx(300, java.util.concurrent.TimeUnit.MILLISECONDS)) {
            KernelTransaction ktx = ((InternalTransaction) tx).kernelTransaction();
            try (ParallelEntityWriter writer = new ParallelEntityWriter(ktx, out, Long.MAX_VALUE, 2, 64, 0)) {
                assertTrue(writer.writeNode(id("plain")));
                accepted++;
                Thread.sleep(400);
                for (int i = 1; i < Budget.CHECK_MASK + 1; i++) {
                    assertTrue(writer.writeNode(id("plain")));
                    accepted++;
                }
                TransactionTerminatedException stopped =
                        assertThrows(TransactionTerminatedException.class, () -> writer.writeNode(id("plain")));
                assertEquals(Status.Transaction.TransactionTimedOutClientConfiguration, stopped.status());
            }
        } catch (TransactionTerminatedException closing) {
            // closing a terminated transaction may say so again
        }
        assertEquals(Budget.CHECK_MASK + 1, accepted);
        assertTrue(out.calls.stream().allMatch(c -> c.equals("node " + id("plain") + " []") || c.equals("endNode")),
                "only whole records of the accepted node were written");
    }

    /**
     * A reader's failure reaches the walking thread as it is. Two batches of 16 nodes start the workers; the
     * transaction is then terminated (the walker checks it only every 1,024 nodes, readers at each read); the next
     * batch is published, and after a pause, in which a worker claims it and fails, the flush throws that failure:
     * the termination, not a wrapper. (If the walker claimed the batch first, its own read throws the same.)
     */
    @Test
    void aReadersFailureReachesTheWalkerAsItIs() throws Exception {
        TraceWriter out = new TraceWriter();
        try (Transaction tx = db.beginTx()) {
            KernelTransaction ktx = ((InternalTransaction) tx).kernelTransaction();
            try (ParallelEntityWriter writer = new ParallelEntityWriter(ktx, out, Long.MAX_VALUE, 2, 16, 0)) {
                for (int i = 0; i < 32; i++) assertTrue(writer.writeNode(id("plain")));
                ktx.markForTermination(Status.Transaction.Terminated);
                for (int i = 0; i < 16; i++) assertTrue(writer.writeNode(id("plain")));
                Thread.sleep(1500); // long enough for a worker to claim it on a loaded machine
                TransactionTerminatedException stopped = assertThrows(TransactionTerminatedException.class, writer::flush);
                assertEquals(Status.Transaction.Terminated, stopped.status());
            }
        } catch (TransactionTerminatedException closing) {
            // closing a terminated transaction may say so again
        }
        assertTrue(out.calls.size() < 2 * 48, "not every record was written: " + out.calls.size() / 2);
        for (int c = 0; c < out.calls.size(); c += 2) {
            assertEquals(List.of("node " + id("plain") + " []", "endNode"), out.calls.subList(c, c + 2));
        }
    }

    /**
     * A walk that fails closes its writer without a flush, while its worker waits for batches that will not come:
     * close stops it (it waits without a timeout), and the reader task goes back to the pool.
     */
    @Test
    void closingWithoutAFlushStopsWaitingWorkers() throws Exception {
        try (Transaction tx = db.beginTx()) {
            KernelTransaction ktx = ((InternalTransaction) tx).kernelTransaction();
            ParallelEntityWriter writer = new ParallelEntityWriter(ktx, new TraceWriter(), Long.MAX_VALUE, 1, 16, 0);
            for (int i = 0; i < 32; i++) assertTrue(writer.writeNode(id("plain")));
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
            while (ReaderPool.running() == 0 && System.nanoTime() < deadline) Thread.sleep(1);
            Thread.sleep(300); // the two batches read: the worker waits for the next
            assertEquals(1, ReaderPool.running(), "one worker, as asked");
            writer.close();
            while (ReaderPool.running() != 0 && System.nanoTime() < deadline) Thread.sleep(1);
            assertEquals(0, ReaderPool.running(), "every worker stopped");
        }
    }

    /**
     * The parallel writer accepts a node without reading it; a node its reader then finds gone is not written, but it
     * has counted towards the limit (as documented: existence is checked by the reader).
     */
    @Test
    void theParallelWriterSkipsANodeFoundGoneButCountsItTowardsTheLimit() throws IOException {
        try (Transaction tx = db.beginTx()) {
            KernelTransaction ktx = ((InternalTransaction) tx).kernelTransaction();
            TraceWriter out = new TraceWriter();
            try (ParallelEntityWriter writer = new ParallelEntityWriter(ktx, out, 2, 1, 64, 0)) {
                assertTrue(writer.writeNode(id("gone")));
                assertTrue(writer.writeNode(id("plain")));
                assertFalse(writer.writeNode(id("nine")), "the limit of 2 counts the node gone");
                writer.flush();
                assertEquals(1, writer.nodes());
                assertTrue(writer.truncated());
            }
            assertEquals(List.of("node " + id("plain") + " []", "endNode"), out.calls);
        }
    }

    /**
     * Batches are sized by what the records written so far weigh: about {@value ParallelEntityWriter#BATCH_BYTES}
     * bytes of values a batch (48 bytes a record besides), at most the batch size, at least one record; and the ring
     * holds about {@value ParallelEntityWriter#RING_BYTES} bytes of batches, at least two, at most its slots. Before
     * anything is written: 32 records, every slot.
     */
    @Test
    void theParallelWriterSizesItsBatchesByWhatTheRecordsWeigh() throws IOException {
        try (Transaction tx = db.beginTx()) {
            KernelTransaction ktx = ((InternalTransaction) tx).kernelTransaction();
            // 32 records of a 100,000-char string (100,040 bytes counted): 1 MiB / 100,088 = 10 records a batch, and
            // 4 MiB / (32 * 100,040) = 1 batch, so the ring's minimum of 2
            try (ParallelEntityWriter writer = new ParallelEntityWriter(ktx, new TraceWriter(), Long.MAX_VALUE, 1, 512, 0)) {
                assertEquals(32, writer.nextTarget());
                assertEquals(2 * (1 + 1) + 1, writer.window());
                for (int i = 0; i < 32; i++) writer.writeNode(id("heavy"));
                writer.flush();
                assertEquals(10, writer.nextTarget());
                assertEquals(2, writer.window());
            }
            // records without values: 1 MiB / 48, capped at the batch size; no bytes: every one of the 7 slots
            try (ParallelEntityWriter writer = new ParallelEntityWriter(ktx, new TraceWriter(), Long.MAX_VALUE, 2, 100, 0)) {
                for (int i = 0; i < 32; i++) writer.writeNode(id("plain"));
                writer.flush();
                assertEquals(100, writer.nextTarget());
                assertEquals(2 * (2 + 1) + 1, writer.window());
            }
            // a batch size below 32 is the first batches' size too
            try (ParallelEntityWriter writer = new ParallelEntityWriter(ktx, new TraceWriter(), Long.MAX_VALUE, 1, 3, 0)) {
                assertEquals(3, writer.nextTarget());
            }
            // 2 records of 100,000 chars and one small one: the average decides, 1 MiB / (48 + 200,112 / 3) = 15
            try (ParallelEntityWriter writer = new ParallelEntityWriter(ktx, new TraceWriter(), Long.MAX_VALUE, 1, 3, 0)) {
                writer.writeNode(id("heavy"));
                writer.writeNode(id("heavy"));
                writer.writeNode(id("nine"));
                writer.flush();
                assertEquals(3, writer.nextTarget(), "capped at the batch size");
                assertEquals(2 * (1 + 1) + 1, writer.window(), "4 MiB / 200,112 bytes: 20 batches, capped at the slots");
            }
        }
    }

    /**
     * A reader fills a batch: each record's labels and values, flat, and absent for a node gone and for a
     * relationship that is gone or no longer the one the walker saw (another type, start or end under its id).
     */
    @Test
    void aBatchReaderFillsEachRecordAndMarksTheOnesGone() {
        try (Transaction tx = db.beginTx()) {
            KernelTransaction ktx = ((InternalTransaction) tx).kernelTransaction();
            int t = type(ktx, "T");
            RecordBatch batch = new RecordBatch(8);
            batch.addNode(id("many"));
            batch.addNode(id("plain"));
            batch.addNode(id("gone"));
            batch.addRelationship(id("t"), t, id("plain"), id("many"));
            batch.addRelationship(id("t"), type(ktx, "U"), id("plain"), id("many"));
            batch.addRelationship(id("t"), t, id("nine"), id("many"));
            batch.addRelationship(id("t"), t, id("plain"), id("nine"));
            batch.addRelationship(id("goneRel"), t, id("plain"), id("nine"));
            try (BatchReader reader = new BatchReader(ktx.dataRead(), ktx.cursors(), ktx.cursorContext(), ktx.memoryTracker())) {
                reader.read(batch, () -> false);
            }
            assertArrayEquals(new boolean[] {true, true, false, true, false, false, false, false}, batch.present);
            assertArrayEquals(new int[] {20, 20, 20, 20, 20, 20, 20, 20}, batch.labelEnd);
            assertArrayEquals(new int[] {2, 2, 2, 3, 3, 3, 3, 3}, batch.propertyEnd);
            assertEquals(labelIds(ktx, 20), Arrays.toString(Arrays.copyOf(batch.labels, batch.labelCount)));
            Map<Integer, Value> nodeValues = Map.of(batch.keys[0], batch.values[0], batch.keys[1], batch.values[1]);
            assertEquals(Map.of(key(ktx, "n"), Values.intValue(1), key(ktx, "s"), Values.stringValue("x")), nodeValues);
            assertEquals(key(ktx, "w"), batch.keys[2]);
            assertEquals(Values.doubleValue(2.5), batch.values[2]);
        }
    }

    /** The reader looks at the stop flag before its first record and every 64 records, and stops where it is told. */
    @Test
    void aBatchReaderStopsAtTheCheckItIsToldTo() {
        try (Transaction tx = db.beginTx()) {
            KernelTransaction ktx = ((InternalTransaction) tx).kernelTransaction();
            RecordBatch batch = new RecordBatch(200);
            for (int i = 0; i < 200; i++) batch.addNode(id("nine"));
            AtomicInteger looks = new AtomicInteger();
            try (BatchReader reader = new BatchReader(ktx.dataRead(), ktx.cursors(), ktx.cursorContext(), ktx.memoryTracker())) {
                IllegalStateException stopped = assertThrows(IllegalStateException.class,
                        () -> reader.read(batch, () -> looks.incrementAndGet() == 3));
                assertEquals("parallel read stopped", stopped.getMessage());
            }
            assertEquals(3, looks.get());
            assertTrue(batch.present[127]);
            assertEquals(128 * 9, batch.labelEnd[127]);
            assertFalse(batch.present[128], "the record at the third look is not read");
            assertEquals(128, batch.propertyCount);

            RecordBatch all = new RecordBatch(200);
            for (int i = 0; i < 200; i++) all.addNode(id("nine"));
            looks.set(0);
            try (BatchReader reader = new BatchReader(ktx.dataRead(), ktx.cursors(), ktx.cursorContext(), ktx.memoryTracker())) {
                reader.read(all, () -> looks.incrementAndGet() > 4);
            }
            assertEquals(4, looks.get(), "looks at records 0, 64, 128 and 192");
            assertTrue(all.present[199]);
            assertEquals(200, all.propertyCount);
        }
    }

    /** The store state is the database's id and its last committed transaction: one commit moves it by one. */
    @Test
    void theStoreStateNamesTheDatabaseAndItsLastCommit() {
        String before = StoreState.version(db);
        String uuid = ((org.neo4j.kernel.internal.GraphDatabaseAPI) db).databaseId().databaseId().uuid().toString();
        assertTrue(before.matches(java.util.regex.Pattern.quote(uuid) + ":[0-9]+"), before);
        try (Transaction tx = db.beginTx()) {
            tx.createNode();  // no new token: a new label would commit a token transaction of its own
            tx.commit();
        }
        long last = Long.parseLong(before.substring(before.indexOf(':') + 1));
        assertEquals(uuid + ":" + (last + 1), StoreState.version(db));
    }

    /** A warm-up touches every page of every store file of the database the page cache has mapped, and says so. */
    @Test
    void aWarmUpTouchesEveryPageOfTheDatabasesMappedFiles() throws IOException {
        // a store file past 1,024 pages (8 MiB), which the warm-up touches in steps of 1,024
        try (Transaction tx = db.beginTx()) {
            for (int i = 0; i < 10; i++) tx.createNode().setProperty("big", "w".repeat(1 << 20));
            tx.commit();
        }
        var resolver = ((org.neo4j.kernel.internal.GraphDatabaseAPI) db).getDependencyResolver();
        java.nio.file.Path directory = resolver.resolveDependency(org.neo4j.io.layout.DatabaseLayout.class).databaseDirectory();
        int files = 0;
        long pages = 0;
        long bytes = 0;
        long largest = 0;
        for (var file : resolver.resolveDependency(org.neo4j.io.pagecache.PageCache.class).listExistingMappings()) {
            if (!file.path().startsWith(directory)) continue;
            files++;
            largest = Math.max(largest, file.getLastPageId() + 1);
            pages += file.getLastPageId() + 1;
            bytes += file.fileSize();
        }
        StoreState.Warmup warmup = StoreState.warmUp(db);
        assertEquals(db.databaseName(), warmup.database());
        assertTrue(files > 3, "store files mapped: " + files);
        assertEquals(files, warmup.files());
        assertEquals(pages, warmup.pages());
        assertEquals(bytes, warmup.bytes());
        assertTrue(warmup.nanos() > 0 && warmup.nanos() < java.util.concurrent.TimeUnit.MINUTES.toNanos(1),
                "a duration: " + warmup.nanos());
        assertTrue(largest > 1024, "pages of the largest file: " + largest);
    }

    @Test
    void tokenNamesComeFromTheTransactionAndAnUnknownIdIsNamed() {
        try (Transaction tx = db.beginTx()) {
            KernelTransaction ktx = ((InternalTransaction) tx).kernelTransaction();
            TokenNames names = new KernelTokenNames(ktx.tokenRead());
            assertEquals("L7", names.label(ktx.tokenRead().nodeLabel("L7")));
            assertEquals("U", names.relationshipType(type(ktx, "U")));
            assertEquals("w", names.propertyKey(key(ktx, "w")));
            assertEquals("unknown label id 99999",
                    assertThrows(IllegalStateException.class, () -> names.label(99_999)).getMessage());
            assertEquals("unknown relationship type id 99999",
                    assertThrows(IllegalStateException.class, () -> names.relationshipType(99_999)).getMessage());
            assertEquals("unknown property key id 99999",
                    assertThrows(IllegalStateException.class, () -> names.propertyKey(99_999)).getMessage());
        }
    }

    @Test
    void elementIdsArePrefixAndDecimalIdAndAnotherSchemeIsRefused() {
        try (Transaction tx = db.beginTx()) {
            ElementIds ids = ElementIds.of(((InternalTransaction) tx).elementIdMapper());
            Node many = tx.getNodeById(id("many"));
            assertEquals(many.getElementId(), ids.nodeElementId(id("many")));
            assertEquals(ids.nodePrefix() + id("many"), many.getElementId());
            Relationship t = tx.getRelationshipById(id("t"));
            assertEquals(ids.relationshipPrefix() + id("t"), t.getElementId());
            assertTrue(ids.nodePrefix().startsWith("4:") && ids.nodePrefix().endsWith(":"), ids.nodePrefix());
        }
        assertEquals("unsupported node element id scheme: n-1234567-x",
                assertThrows(IllegalStateException.class, () -> ElementIds.of(mapper("n-1234567-x", "r1234567"))).getMessage());
        assertEquals("unsupported relationship element id scheme: 1234567",
                assertThrows(IllegalStateException.class, () -> ElementIds.of(mapper("n1234567", "1234567"))).getMessage());
        assertEquals(new ElementIds("n", "r:"), ElementIds.of(mapper("n1234567", "r:1234567")));
    }

    private static ElementIdMapper mapper(String node, String relationship) {
        return new ElementIdMapper() {
            @Override public long nodeId(String elementId) { throw new UnsupportedOperationException(); }
            @Override public long relationshipId(String elementId) { throw new UnsupportedOperationException(); }
            @Override public String nodeElementId(long id) { return node; }
            @Override public String relationshipElementId(long id) { return relationship; }
        };
    }
}
