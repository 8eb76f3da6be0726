package org.subgraphexport.read;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.neo4j.values.storable.Value;
import org.neo4j.values.storable.Values;

/** One slot of the parallel walk's ring, without threads: what the walker, a reader and {@link RecordBatch#reset} leave. */
class RecordBatchTest {
    @Test
    void theWalkerFillsRequestsUpToItsTarget() {
        RecordBatch batch = new RecordBatch(4);
        assertEquals(4, batch.capacity);
        batch.target = 2;
        assertTrue(batch.isEmpty());
        assertFalse(batch.isFull());
        batch.addNode(7);
        assertFalse(batch.isEmpty());
        assertFalse(batch.isFull());
        batch.addRelationship(9, 3, 7, 8);
        assertTrue(batch.isFull());
        assertEquals(2, batch.size);
        assertArrayEquals(new long[] {7, 9}, Arrays.copyOf(batch.ids, 2));
        assertArrayEquals(new int[] {RecordBatch.NODE, 3}, Arrays.copyOf(batch.types, 2));
        assertEquals(7, batch.starts[1]);
        assertEquals(8, batch.ends[1]);
        batch.target = 3;
        assertFalse(batch.isFull(), "the target, not the capacity, says when the batch is handed over");
    }

    /** A reader's labels and properties, past the first arrays' sizes (64 labels, 4 properties per record of capacity). */
    @Test
    void aReaderAddsLabelsAndPropertiesPastTheFirstArraysAndClosesEachRecord() {
        RecordBatch batch = new RecordBatch(2);
        batch.addNode(1);
        batch.addNode(2);
        for (int l = 0; l < 65; l++) batch.addLabel(100 + l);
        for (int p = 0; p < 9; p++) batch.addProperty(p, Values.intValue(p * 10));
        batch.endRecord(0, true);
        batch.endRecord(1, false);
        assertEquals(65, batch.labelCount);
        assertEquals(9, batch.propertyCount);
        for (int l = 0; l < 65; l++) assertEquals(100 + l, batch.labels[l]);
        for (int p = 0; p < 9; p++) {
            assertEquals(p, batch.keys[p]);
            assertEquals(Values.intValue(p * 10), batch.values[p]);
        }
        assertTrue(batch.present[0]);
        assertFalse(batch.present[1]);
        assertEquals(65, batch.labelEnd[0]);
        assertEquals(9, batch.propertyEnd[0]);
        assertEquals(65, batch.labelEnd[1], "a record with nothing added ends where the one before it ended");
        assertEquals(9, batch.propertyEnd[1]);
    }

    /**
     * The bytes that size the batches after this one: a string's UTF-8 length or char count plus 40, an array's
     * eight bytes per element plus 40, a string array's own heap estimate, 32 for anything else.
     */
    @Test
    void valuesWeighWhatTheSizingRuleSays() {
        assertEquals(32, weight(Values.longValue(1)));
        assertEquals(32, weight(Values.booleanValue(true)));
        assertEquals(40 + 5, weight(Values.stringValue("héllo")), "chars of a String");
        assertEquals(40 + 6, weight(Values.utf8Value("héllo".getBytes(StandardCharsets.UTF_8))), "bytes of UTF-8");
        assertEquals(40 + 8 * 3, weight(Values.longArray(new long[] {1, 2, 3})));
        assertEquals(40 + 8 * 5, weight(Values.byteArray(new byte[5])), "every array counts eight bytes an element");
        Value strings = Values.stringArray("a", "bb", "cccccccccccccccccccccccccccccc");
        assertEquals(strings.estimatedHeapUsage(), weight(strings));
        RecordBatch batch = new RecordBatch(1);
        batch.addProperty(0, Values.longValue(1));
        batch.addProperty(1, Values.stringValue("ab"));
        assertEquals(32 + 42, batch.bytes, "the weights add up");
    }

    private static long weight(Value value) {
        RecordBatch batch = new RecordBatch(1);
        batch.addProperty(0, value);
        return batch.bytes;
    }

    @Test
    void finishingPublishesTheOutcomeOnce() {
        RecordBatch done = new RecordBatch(1);
        assertFalse(done.isFinished());
        done.finish(null);
        assertTrue(done.isFinished());
        assertNull(done.failure());

        RecordBatch failed = new RecordBatch(1);
        IllegalStateException cause = new IllegalStateException("reader failed");
        failed.finish(cause);
        assertTrue(failed.isFinished());
        assertSame(cause, failed.failure());
    }

    @Test
    void resetEmptiesTheSlotAndDropsTheValuesOfTheLastResult() {
        RecordBatch batch = new RecordBatch(2);
        batch.target = 2;
        batch.addNode(1);
        batch.addLabel(5);
        batch.addProperty(3, Values.stringValue("kept?"));
        batch.endRecord(0, true);
        batch.finish(new RuntimeException("x"));
        Value[] before = batch.values;
        batch.reset();
        assertEquals(0, batch.size);
        assertEquals(0, batch.labelCount);
        assertEquals(0, batch.propertyCount);
        assertEquals(0, batch.bytes);
        assertFalse(batch.isFinished());
        assertNull(batch.failure());
        assertTrue(batch.isEmpty());
        assertEquals(before.length, batch.values.length);
        assertNull(batch.values[0], "no reference to the last result's values is kept");
        assertEquals("kept?", ((org.neo4j.values.storable.TextValue) before[0]).stringValue());
    }
}
