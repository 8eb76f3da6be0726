package org.subgraphexport.jmh;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZonedDateTime;
import org.openjdk.jmh.infra.Blackhole;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.TokenNames;

/**
 * The counting sink of the kernel read path: a {@link GraphWriter} that encodes nothing, hands every id, token id
 * and value to the Blackhole and counts nodes, relationships and properties. Methods carry no {@code @Override} on
 * purpose: the writer interface is growing (rows mode), and this class should compile against it before and after.
 */
final class CountingGraphWriter implements GraphWriter {
    private final Blackhole bh;
    long nodes;
    long relationships;
    long properties;

    CountingGraphWriter(Blackhole bh) {
        this.bh = bh;
    }

    public void header(Header header, TokenNames tokens) {
        bh.consume(header);
    }

    public void beginNode(long id, int[] labels, int labelCount) {
        bh.consume(id);
        for (int i = 0; i < labelCount; i++) bh.consume(labels[i]);
        nodes++;
    }

    public void endNode() {}

    public void beginRelationship(long id, int type, long startNode, long endNode) {
        bh.consume(id);
        bh.consume(type);
        bh.consume(startNode);
        bh.consume(endNode);
        relationships++;
    }

    public void endRelationship() {}

    public void property(int key) {
        bh.consume(key);
        properties++;
    }

    public void end(long nodes, long relationships, boolean truncated) {}

    public void error(String code, String message) {}

    public void finish() {}

    public void columns(String[] names) {}

    public void beginRow() {}

    public void endRow() {}

    public void writeBoolean(boolean value) {
        bh.consume(value);
    }

    public void writeByte(byte value) {
        bh.consume(value);
    }

    public void writeShort(short value) {
        bh.consume(value);
    }

    public void writeInt(int value) {
        bh.consume(value);
    }

    public void writeLong(long value) {
        bh.consume(value);
    }

    public void writeFloat(float value) {
        bh.consume(value);
    }

    public void writeDouble(double value) {
        bh.consume(value);
    }

    public void writeChar(char value) {
        bh.consume(value);
    }

    public void writeString(String value) {
        bh.consume(value);
    }

    /** Stored strings as UTF-8 bytes: consumed undecoded, as the kryo and json writers copy them. */
    public void writeUtf8(byte[] utf8, int offset, int length) {
        bh.consume(utf8);
        bh.consume(length);
    }

    public void writeBytes(byte[] value) {
        bh.consume(value);
    }

    public void writePoint(int srid, double[] coordinates) {
        bh.consume(coordinates);
    }

    public void writeDuration(long months, long days, long seconds, int nanos) {
        bh.consume(seconds);
    }

    public void writeDate(LocalDate value) {
        bh.consume(value);
    }

    public void writeLocalTime(LocalTime value) {
        bh.consume(value);
    }

    public void writeTime(OffsetTime value) {
        bh.consume(value);
    }

    public void writeLocalDateTime(LocalDateTime value) {
        bh.consume(value);
    }

    public void writeDateTime(ZonedDateTime value) {
        bh.consume(value);
    }

    public void writeUuid(long mostSignificantBits, long leastSignificantBits) {
        bh.consume(mostSignificantBits);
    }

    public void writeVector(VectorKind kind, Object values) {
        bh.consume(values);
    }

    public void beginArray(int size, ArrayKind kind) {
        bh.consume(size);
    }

    public void endArray() {}

    public void writeNull() {}

    public void beginList(int size) {}

    public void endList() {}

    public void beginMap(int size) {}

    public void mapKey(String key) {}

    public void endMap() {}

    public void writeNodeRef(long id) {}

    public void writeRelationshipRef(long id) {}

    public void writePath(long[] nodeIds, long[] relationshipIds) {}
}
