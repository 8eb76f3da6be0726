package org.subgraphexport.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.neo4j.internal.kernel.api.RelationshipScanCursor;
import org.neo4j.internal.kernel.api.RelationshipTraversalCursor;

/**
 * One partition's share of a walk: exactly the records of its blocks are passed on, numbered over the whole
 * sequence; the limit counts the whole export's nodes; records before {@code resumeAt} are not written; a
 * {@link PartitionedOutput.Sequence} hears every record.
 */
class PartitionedOutputTest {
    private static final int B = org.subgraphexport.wire.Wire.PARTITION_BLOCK;

    /** Keeps what it is asked to write; refuses the nodes in {@code gone} (deleted since the walk met them). */
    private static final class Owned implements WalkOutput {
        final List<String> written = new ArrayList<>();
        final Set<Long> gone = new HashSet<>();
        long nodes, relationships;
        boolean flushed, closed;

        @Override
        public boolean writeNode(long id) {
            if (gone.contains(id)) return false;
            written.add("node " + id);
            nodes++;
            return true;
        }

        @Override
        public void writeRelationship(RelationshipTraversalCursor rel) {
            written.add("rel " + rel.relationshipReference());
            relationships++;
        }

        @Override
        public void writeRelationship(RelationshipScanCursor rel) {
            written.add("scanned rel " + rel.relationshipReference());
            relationships++;
        }

        @Override
        public void flush() {
            flushed = true;
        }

        @Override
        public long nodes() {
            return nodes + 1000;
        }

        @Override
        public long relationships() {
            return relationships + 2000;
        }

        @Override
        public boolean truncated() {
            return true;  // never asked: the partitioned output keeps its own
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private static <T> T cursor(Class<T> type, long id) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            if (method.getName().equals("relationshipReference")) return id;
            throw new UnsupportedOperationException(method.getName());
        }));
    }

    private static RelationshipTraversalCursor traversal(long id) {
        return cursor(RelationshipTraversalCursor.class, id);
    }

    private static RelationshipScanCursor scan(long id) {
        return cursor(RelationshipScanCursor.class, id);
    }

    /** Record k of the walk: node 10k for even k, relationship 10k for odd k (traversal) or scanned (k % 4 == 3). */
    private static void feed(PartitionedOutput out, int records) throws Exception {
        for (int k = 0; k < records; k++) {
            if (k % 2 == 0) assertTrue(out.writeNode(10L * k), "node of record " + k);
            else if (k % 4 == 1) out.writeRelationship(traversal(10L * k));
            else out.writeRelationship(scan(10L * k));
        }
    }

    private static List<String> expected(Partition p, int records, long resumeAt) {
        List<String> expected = new ArrayList<>();
        for (int k = 0; k < records; k++) {
            if (k < resumeAt || (k / B) % p.count() != p.index()) continue;
            expected.add((k % 2 == 0 ? "node " : k % 4 == 1 ? "rel " : "scanned rel ") + 10L * k);
        }
        return expected;
    }

    @Test
    void eachPartitionWritesTheRecordsOfItsBlocksOnly() throws Exception {
        int records = 5 * B + 3;
        for (int count = 2; count <= 3; count++) {
            List<String> all = new ArrayList<>();
            for (int index = 0; index < count; index++) {
                Partition p = new Partition(count, index);
                Owned owned = new Owned();
                PartitionedOutput out = new PartitionedOutput(owned, p, Long.MAX_VALUE);
                feed(out, records);
                assertEquals(expected(p, records, 0), owned.written, p.toString());
                assertFalse(out.truncated());
                all.addAll(owned.written);
            }
            assertEquals(records, all.size());
        }
        Owned second = new Owned();
        feed(new PartitionedOutput(second, new Partition(2, 1), Long.MAX_VALUE), 2 * B);
        assertEquals("node " + 10L * B, second.written.get(0));
        assertEquals("scanned rel " + 10L * (2 * B - 1), second.written.get(B - 1));
    }

    @Test
    void theLimitCountsTheWholeExportsNodesAndCutsEveryPartitionAtTheSameNode() throws Exception {
        for (int index = 0; index < 2; index++) {
            Owned owned = new Owned();
            PartitionedOutput out = new PartitionedOutput(owned, new Partition(2, index), B + 1);
            for (int k = 0; k < B + 1; k++) assertTrue(out.writeNode(k), "node " + k);
            assertFalse(out.truncated());
            assertFalse(out.writeNode(B + 1));
            assertTrue(out.truncated());
            assertEquals(index == 0 ? B : 1, owned.written.size());
        }
        Owned none = new Owned();
        PartitionedOutput zero = new PartitionedOutput(none, new Partition(2, 0), 0);
        assertFalse(zero.writeNode(7));
        assertTrue(zero.truncated());
        assertEquals(List.of(), none.written);
    }

    @Test
    void aNodeItsOwnerFindsGoneIsNotCountedTowardsTheLimit() throws Exception {
        Owned owned = new Owned();
        owned.gone.add(1L);
        PartitionedOutput out = new PartitionedOutput(owned, new Partition(2, 0), 2);
        assertTrue(out.writeNode(0));
        assertFalse(out.writeNode(1));
        assertFalse(out.truncated());
        assertTrue(out.writeNode(2));
        assertFalse(out.writeNode(3));
        assertTrue(out.truncated());
        assertEquals(List.of("node 0", "node 2"), owned.written);
    }

    @Test
    void recordsBeforeResumeAtAreCountedButNotWritten() throws Exception {
        Partition p = new Partition(2, 0);
        List<String> heard = new ArrayList<>();
        Owned owned = new Owned();
        PartitionedOutput out = new PartitionedOutput(owned, p, Long.MAX_VALUE, 100, new PartitionedOutput.Sequence() {
            @Override
            public void node(long id) {
                heard.add("node " + id);
            }

            @Override
            public void relationship(long id) {
                heard.add("rel " + id);
            }
        });
        int records = 3 * B;
        feed(out, records);
        assertEquals(expected(p, records, 100), owned.written);
        assertEquals("node 1000", owned.written.get(0));
        assertEquals(records, heard.size());
        for (int k = 0; k < records; k++) assertEquals((k % 2 == 0 ? "node " : "rel ") + 10L * k, heard.get(k));
        Owned exactly = new Owned();
        feed(new PartitionedOutput(exactly, p, Long.MAX_VALUE, 2, null), 4);
        assertEquals(List.of("node 20", "scanned rel 30"), exactly.written);
    }

    @Test
    void countsFlushAndCloseAreTheWrappedOutputs() throws Exception {
        Owned owned = new Owned();
        PartitionedOutput out = new PartitionedOutput(owned, new Partition(3, 0), Long.MAX_VALUE);
        feed(out, 4);
        assertEquals(1002, out.nodes());
        assertEquals(2002, out.relationships());
        assertFalse(owned.flushed);
        out.flush();
        assertTrue(owned.flushed);
        assertFalse(owned.closed);
        out.close();
        assertTrue(owned.closed);
    }
}
