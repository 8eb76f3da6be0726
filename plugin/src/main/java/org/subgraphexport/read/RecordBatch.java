package org.subgraphexport.read;

import java.util.Arrays;
import org.neo4j.values.storable.ArrayValue;
import org.neo4j.values.storable.StringValue;
import org.neo4j.values.storable.TextArray;
import org.neo4j.values.storable.UTF8StringValue;
import org.neo4j.values.storable.Value;

/**
 * One slot of the parallel walk's ring: up to {@link #target} records the walking thread decided to emit (node
 * ids; relationship ids with type and end nodes), and, once a reader has been through them, each record's labels
 * and property values, flat. Reused round the ring: {@link #reset} once written, before the walker fills it again.
 *
 * <p>Publication: the walker fills the request part, then publishes the slot's sequence number (a volatile
 * write in {@link ParallelEntityWriter}); a reader claims that number (a CAS), fills the result part, then sets
 * {@link #finish} (a volatile write); the encoding thread reads the result after seeing it. Each hand-over is a
 * happens-before edge, so the arrays need no locking.
 */
final class RecordBatch {
    /** {@link #types} entry of a node record. */
    static final int NODE = -1;

    private static final int PENDING = 0;
    private static final int DONE = 1;
    private static final int FAILED = 2;

    final int capacity;

    // ---- the request, written by the walking thread before publication
    /** Records to gather before the batch is handed over: at most {@link #capacity}, fewer for heavy records. */
    int target;
    int size;
    final long[] ids;
    final int[] types;
    final long[] starts;
    final long[] ends;

    // ---- the result, written by the reader that claimed the slot
    /** False for a record whose entity was gone (deleted concurrently) when the reader got to it. */
    final boolean[] present;
    /** Labels of record {@code i}: {@code labels[labelEnd[i-1] .. labelEnd[i])} ({@code labelEnd[-1]} = 0). */
    final int[] labelEnd;
    int[] labels = new int[64];
    /** Properties of record {@code i}: {@code keys/values[propertyEnd[i-1] .. propertyEnd[i])}. */
    final int[] propertyEnd;
    int[] keys;
    Value[] values;
    int labelCount;
    int propertyCount;
    /** Rough bytes of the values read (see {@link #weight}): sizes the batches that follow. */
    long bytes;

    private volatile int state = PENDING;
    private Throwable failure;

    RecordBatch(int capacity) {
        this.capacity = capacity;
        ids = new long[capacity];
        types = new int[capacity];
        starts = new long[capacity];
        ends = new long[capacity];
        present = new boolean[capacity];
        labelEnd = new int[capacity];
        propertyEnd = new int[capacity];
        keys = new int[capacity * 4];
        values = new Value[capacity * 4];
    }

    boolean isFull() {
        return size >= target;
    }

    boolean isEmpty() {
        return size == 0;
    }

    void addNode(long id) {
        ids[size] = id;
        types[size] = NODE;
        size++;
    }

    void addRelationship(long id, int type, long start, long end) {
        ids[size] = id;
        types[size] = type;
        starts[size] = start;
        ends[size] = end;
        size++;
    }

    // ---- reader side

    void addLabel(int label) {
        if (labelCount == labels.length) labels = Arrays.copyOf(labels, labelCount * 2);
        labels[labelCount++] = label;
    }

    void addProperty(int key, Value value) {
        if (propertyCount == keys.length) {
            keys = Arrays.copyOf(keys, propertyCount * 2);
            values = Arrays.copyOf(values, propertyCount * 2);
        }
        keys[propertyCount] = key;
        values[propertyCount++] = value;
        bytes += weight(value);
    }

    /**
     * A rough size of a value in bytes: only large strings and arrays matter for sizing batches, so everything else
     * counts as a small constant (cheaper than {@code Value.estimatedHeapUsage}, a virtual call on every value).
     */
    private static long weight(Value value) {
        if (value instanceof UTF8StringValue utf8) {
            return 40 + utf8.bytes().length;  // not stringValue(): that would decode what the writer copies as is
        }
        if (value instanceof StringValue string) {
            return 40 + string.stringValue().length();
        }
        if (value instanceof TextArray strings) {
            // not stringValue(i): it returns String on 5.26 and StringValue on 2025.x+, a different method each
            return strings.estimatedHeapUsage();
        }
        if (value instanceof ArrayValue array) {
            return 40 + 8L * array.intSize();
        }
        return 32;
    }

    /** Closes record {@code i}: what was added since the previous record belongs to it. */
    void endRecord(int i, boolean exists) {
        present[i] = exists;
        labelEnd[i] = labelCount;
        propertyEnd[i] = propertyCount;
    }

    /** Marks the result complete (or failed, with {@code failure}); called once, by the claiming reader. */
    void finish(Throwable failure) {
        this.failure = failure;
        state = failure == null ? DONE : FAILED;
    }

    boolean isFinished() {
        return state != PENDING;
    }

    /** The reader's failure, or null; only after {@link #isFinished()} returned true. */
    Throwable failure() {
        return state == FAILED ? failure : null;
    }

    /**
     * Makes the slot empty for the walker and drops the previous result's values. The value array is replaced, not
     * cleared: a fresh array is young, and storing the (young) values a reader creates into it costs the garbage
     * collector nothing, where stores into a long-lived array each dirty a card for G1 to scan.
     */
    void reset() {
        values = new Value[values.length];
        size = 0;
        labelCount = 0;
        propertyCount = 0;
        bytes = 0;
        failure = null;
        state = PENDING;
    }
}
