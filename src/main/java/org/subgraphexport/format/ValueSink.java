package org.subgraphexport.format;

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
