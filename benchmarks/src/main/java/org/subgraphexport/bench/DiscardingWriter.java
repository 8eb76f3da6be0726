package org.subgraphexport.bench;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZonedDateTime;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.TokenNames;

/**
 * The benchmarks' one writer that encodes nothing: folds every id and value into {@link #sink} so that no call is
 * optimised away, and counts nodes and relationships. Stored strings that arrive as UTF-8 bytes are not
 * decoded. The walk of {@code GET /floor/walk} ({@code WalkOnlyResource}), the "walk" of {@code ParallelWalkProbe}
 * and the counting sink of {@code ReadPathBenchmark.kernel}. Methods carry no {@code @Override} on purpose: it
 * should compile against the writer interface before and after it grows.
 */
public final class DiscardingWriter implements GraphWriter {
    public long sink;
    public long nodes;
    public long relationships;

    public void header(Header header, TokenNames tokens) {}

    public void beginNode(long id, int[] labels, int labelCount) {
        nodes++;
        sink += id;
        for (int i = 0; i < labelCount; i++) sink += labels[i];
    }

    public void endNode() {}

    public void beginRelationship(long id, int type, long startNode, long endNode) {
        relationships++;
        sink += id + type + startNode + endNode;
    }

    public void endRelationship() {}

    public void property(int key) {
        sink += key;
    }

    public void columns(String[] names) {}

    public void beginRow() {}

    public void endRow() {}

    public void end(long nodes, long relationships, boolean truncated) {}

    public void error(String code, String message) {}

    public void finish() {}

    public void writeBoolean(boolean value) {
        sink += value ? 1 : 0;
    }

    public void writeByte(byte value) {
        sink += value;
    }

    public void writeShort(short value) {
        sink += value;
    }

    public void writeInt(int value) {
        sink += value;
    }

    public void writeLong(long value) {
        sink += value;
    }

    public void writeFloat(float value) {
        sink += Float.floatToRawIntBits(value);
    }

    public void writeDouble(double value) {
        sink += Double.doubleToRawLongBits(value);
    }

    public void writeChar(char value) {
        sink += value;
    }

    public void writeString(String value) {
        sink += value.length();
    }

    /** Longer stored strings, as UTF-8 bytes, where the writer interface passes them so (not decoded here). */
    public void writeUtf8(byte[] utf8, int offset, int length) {
        sink += length;
    }

    public void writeBytes(byte[] value) {
        sink += value.length;
    }

    public void writePoint(int srid, double[] coordinates) {
        sink += srid + coordinates.length;
    }

    public void writeDuration(long months, long days, long seconds, int nanos) {
        sink += months + days + seconds + nanos;
    }

    public void writeDate(LocalDate value) {
        sink += value.getDayOfMonth();
    }

    public void writeLocalTime(LocalTime value) {
        sink += value.getNano();
    }

    public void writeTime(OffsetTime value) {
        sink += value.getNano();
    }

    public void writeLocalDateTime(LocalDateTime value) {
        sink += value.getNano();
    }

    public void writeDateTime(ZonedDateTime value) {
        sink += value.getNano();
    }

    public void writeUuid(long mostSignificantBits, long leastSignificantBits) {
        sink += leastSignificantBits;
    }

    public void writeVector(VectorKind kind, Object values) {
        sink += kind.ordinal();
    }

    public void beginArray(int size, ArrayKind kind) {
        sink += size;
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
