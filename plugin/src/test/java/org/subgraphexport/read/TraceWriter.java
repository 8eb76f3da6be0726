package org.subgraphexport.read;

import java.io.IOException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.TokenNames;

/**
 * A {@link GraphWriter} that keeps every call as a line of text, so that two walks can be compared call for call:
 * records, their order, labels, property keys and values. Records the thread of every call, and fails the walk if
 * it is not the thread the writer was made on (writers are not thread-safe). {@link #failAfter} makes it throw an
 * {@link IOException} at the n-th record, as a servlet stream does when the client is gone.
 */
final class TraceWriter implements GraphWriter {
    final List<String> calls = new ArrayList<>();
    private final Thread owner = Thread.currentThread();
    private long failAfter = Long.MAX_VALUE;
    private Runnable atRecord;
    private Runnable atFirstRecord;
    private long records;
    /** The last header written, and the state the 4-argument end named (delta streams). */
    Header header;
    String endState;

    TraceWriter failAfter(long records) {
        this.failAfter = records;
        return this;
    }

    /** Runs {@code action} at the n-th record instead of failing there. */
    TraceWriter atRecord(long records, Runnable action) {
        this.failAfter = records;
        this.atRecord = action;
        return this;
    }

    /** Runs {@code action} at the first record, before whatever {@link #failAfter} or {@link #atRecord} asks. */
    TraceWriter atFirstRecord(Runnable action) {
        this.atFirstRecord = action;
        return this;
    }

    private void add(String call) {
        if (Thread.currentThread() != owner) {
            throw new AssertionError("writer called from " + Thread.currentThread().getName());
        }
        calls.add(call);
    }

    private void record(String call) throws IOException {
        if (++records == 1 && atFirstRecord != null) {
            atFirstRecord.run();
        }
        if (records == failAfter) {
            if (atRecord != null) {
                atRecord.run();
            } else {
                throw new IOException("Broken pipe (test)");
            }
        }
        add(call);
    }

    @Override public void header(Header header, TokenNames tokens) {
        this.header = header;
        add("header " + header.root());
    }
    @Override public void leftNode(long id) throws IOException { record("left node " + id); }
    @Override public void leftRelationship(long id) throws IOException { record("left rel " + id); }
    @Override public void beginNode(long id, int[] labels, int labelCount) throws IOException {
        record("node " + id + " " + Arrays.toString(Arrays.copyOf(labels, labelCount)));
    }
    @Override public void endNode() { add("endNode"); }
    @Override public void beginRelationship(long id, int type, long startNode, long endNode) throws IOException {
        record("rel " + id + " type " + type + " " + startNode + "->" + endNode);
    }
    @Override public void endRelationship() { add("endRel"); }
    @Override public void property(int key) { add("key " + key); }
    @Override public void columns(String[] names) { add("columns " + Arrays.toString(names)); }
    @Override public void beginRow() { add("row"); }
    @Override public void endRow() { add("endRow"); }
    @Override public void end(long nodes, long relationships, boolean truncated) {
        add("end " + nodes + " " + relationships + " " + truncated);
    }
    @Override public void end(long nodes, long relationships, boolean truncated, String state) {
        endState = state;
        end(nodes, relationships, truncated);
    }
    @Override public void error(String code, String message) { add("error " + code); }
    @Override public void finish() { add("finish"); }
    @Override public void writeBoolean(boolean value) { add("bool " + value); }
    @Override public void writeByte(byte value) { add("byte " + value); }
    @Override public void writeShort(short value) { add("short " + value); }
    @Override public void writeInt(int value) { add("int " + value); }
    @Override public void writeLong(long value) { add("long " + value); }
    @Override public void writeFloat(float value) { add("float " + value); }
    @Override public void writeDouble(double value) { add("double " + value); }
    @Override public void writeChar(char value) { add("char " + value); }
    @Override public void writeString(String value) {
        add(value.length() <= 100 ? "string " + value : "string of " + value.length() + " hash " + value.hashCode());
    }
    @Override public void writeBytes(byte[] value) {
        add(value.length <= 100 ? "bytes " + Arrays.toString(value) : "bytes of " + value.length + " hash " + Arrays.hashCode(value));
    }
    @Override public void writePoint(int srid, double[] coordinates) { add("point " + srid + Arrays.toString(coordinates)); }
    @Override public void writeDuration(long months, long days, long seconds, int nanos) {
        add("duration " + months + " " + days + " " + seconds + " " + nanos);
    }
    @Override public void writeDate(LocalDate value) { add("date " + value); }
    @Override public void writeLocalTime(LocalTime value) { add("localTime " + value); }
    @Override public void writeTime(OffsetTime value) { add("time " + value); }
    @Override public void writeLocalDateTime(LocalDateTime value) { add("localDateTime " + value); }
    @Override public void writeDateTime(ZonedDateTime value) { add("dateTime " + value); }
    @Override public void writeUuid(long msb, long lsb) { add("uuid " + msb + " " + lsb); }
    @Override public void writeVector(VectorKind kind, Object values) {
        StringBuilder text = new StringBuilder("vector " + kind + " [");
        for (int i = 0; i < java.lang.reflect.Array.getLength(values); i++) {
            text.append(i == 0 ? "" : ", ").append(java.lang.reflect.Array.get(values, i));
        }
        add(text.append(']').toString());
    }
    @Override public void beginArray(int size, ArrayKind kind) { add("array " + size + " " + kind); }
    @Override public void endArray() { add("endArray"); }
    @Override public void writeNull() { add("null"); }
    @Override public void beginList(int size) { add("list " + size); }
    @Override public void endList() { add("endList"); }
    @Override public void beginMap(int size) { add("map " + size); }
    @Override public void mapKey(String key) { add("mapKey " + key); }
    @Override public void endMap() { add("endMap"); }
    @Override public void writeNodeRef(long id) { add("nodeRef " + id); }
    @Override public void writeRelationshipRef(long id) { add("relRef " + id); }
    @Override public void writePath(long[] nodeIds, long[] relationshipIds) {
        add("path " + Arrays.toString(nodeIds) + " " + Arrays.toString(relationshipIds));
    }
}
