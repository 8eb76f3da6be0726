package org.subgraphexport.wire;

import java.io.IOException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZonedDateTime;

/**
 * Receives one property value as a closed set of typed calls, mirroring the value types a Neo4j 2026.08 store
 * holds. A scalar is one call; an array is {@link #beginArray}, one scalar call per element, {@link #endArray}.
 * Byte arrays and vectors are single calls. No call boxes a primitive.
 *
 * <p>Inside a row ({@link GraphWriter#beginRow}) a value may also be one of the Cypher values a store cannot
 * hold: {@link #writeNull}, a list ({@link #beginList}), a map ({@link #beginMap}), a node or relationship
 * reference, a path. Lists and maps hold full values (any of the above, nested up to {@link Wire#MAX_NESTING}
 * levels, typed arrays included). These calls are only valid inside a row: elsewhere (a property value, an
 * array element) they throw {@link IllegalStateException} and write nothing, so no stream ever carries them
 * where a decoder does not expect them. The existing calls cost the same as before when used for properties.
 */
public interface ValueSink {
    void writeBoolean(boolean value) throws IOException;

    void writeByte(byte value) throws IOException;

    void writeShort(short value) throws IOException;

    void writeInt(int value) throws IOException;

    void writeLong(long value) throws IOException;

    void writeFloat(float value) throws IOException;

    void writeDouble(double value) throws IOException;

    void writeChar(char value) throws IOException;

    void writeString(String value) throws IOException;

    /**
     * A string given as UTF-8 bytes, as the store keeps longer strings: the same value as
     * {@code writeString(new String(utf8, offset, length, UTF_8))}, which is what this default does. Writers whose
     * format is UTF-8 override it to copy bytes that need no decoding (all ASCII) straight through; any other
     * content still goes through {@link #writeString}, so malformed bytes become U+FFFD exactly as decoding would
     * make them.
     */
    default void writeUtf8(byte[] utf8, int offset, int length) throws IOException {
        writeString(new String(utf8, offset, length, java.nio.charset.StandardCharsets.UTF_8));
    }

    /** True if {@code length} bytes from {@code offset} are all ASCII (below 0x80). */
    static boolean isAscii(byte[] bytes, int offset, int length) {
        for (int i = offset, end = offset + length; i < end; i++) {
            if (bytes[i] < 0) {
                return false;
            }
        }
        return true;
    }

    void writeBytes(byte[] value) throws IOException;

    /** A spatial point: the CRS as its SRID (e.g. 7203 cartesian, 4326 WGS-84) and 2 or 3 coordinates. */
    void writePoint(int srid, double[] coordinates) throws IOException;

    /** A Neo4j duration: its four components are independent, so they are kept apart. */
    void writeDuration(long months, long days, long seconds, int nanos) throws IOException;

    void writeDate(LocalDate value) throws IOException;

    void writeLocalTime(LocalTime value) throws IOException;

    void writeTime(OffsetTime value) throws IOException;

    void writeLocalDateTime(LocalDateTime value) throws IOException;

    void writeDateTime(ZonedDateTime value) throws IOException;

    void writeUuid(long mostSignificantBits, long leastSignificantBits) throws IOException;

    /** A vector value: {@code values} is a byte[], short[], int[], long[], float[] or double[] matching {@code kind}. */
    void writeVector(VectorKind kind, Object values) throws IOException;

    /** Starts an array of {@code size} elements of one type; each element follows as one scalar call. */
    void beginArray(int size, ArrayKind kind) throws IOException;

    void endArray() throws IOException;

    // ---- row values only (see the class comment) -----------------------------------------------------------

    /** A Cypher null. */
    void writeNull() throws IOException;

    /**
     * Starts a list of exactly {@code size} values (0 to {@link Wire#MAX_LENGTH}), each a full value call (or
     * begin...end sequence) of any type, then {@link #endList}.
     *
     * @throws IllegalStateException outside a row, inside a typed array, or deeper than {@link Wire#MAX_NESTING}
     */
    void beginList(int size) throws IOException;

    /** @throws IllegalStateException if the list has not received exactly its announced number of values */
    void endList() throws IOException;

    /**
     * Starts a map of exactly {@code size} entries: {@code size} times {@link #mapKey} followed by one value, then
     * {@link #endMap}. Keys are unique (not checked).
     *
     * @throws IllegalStateException outside a row, inside a typed array, or deeper than {@link Wire#MAX_NESTING}
     */
    void beginMap(int size) throws IOException;

    /** The key of the next map entry; exactly one value call follows. */
    void mapKey(String key) throws IOException;

    /** @throws IllegalStateException if the map has not received exactly its announced number of entries */
    void endMap() throws IOException;

    /** A reference to the node with this id, whose node record was written earlier in the stream. */
    void writeNodeRef(long id) throws IOException;

    /** A reference to the relationship with this id, whose relationship record was written earlier. */
    void writeRelationshipRef(long id) throws IOException;

    /**
     * A path: {@code nodeIds[0], relationshipIds[0], nodeIds[1], ...}; {@code nodeIds.length ==
     * relationshipIds.length + 1}. Every node and relationship in it was written earlier as a record.
     *
     * @throws IllegalArgumentException if the lengths do not fit
     */
    void writePath(long[] nodeIds, long[] relationshipIds) throws IOException;

    /** Element types of arrays (byte arrays use {@link #writeBytes}). */
    enum ArrayKind {
        BOOLEAN, SHORT, INT, LONG, FLOAT, DOUBLE, CHAR, STRING,
        POINT, DATE, LOCAL_TIME, TIME, LOCAL_DATE_TIME, DATE_TIME, DURATION, UUID
    }

    /** Coordinate types of vectors. */
    enum VectorKind {
        INT8, INT16, INT32, INT64, FLOAT32, FLOAT64
    }
}
