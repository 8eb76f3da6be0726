package org.subgraphexport.read;

import java.io.IOException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZonedDateTime;
import org.neo4j.values.storable.CoordinateReferenceSystem;
import org.neo4j.values.storable.ValueWriter;
import org.subgraphexport.wire.ValueSink;

/**
 * Forwards Neo4j's {@link ValueWriter} callbacks (what {@code Value.writeTo} calls) to a format's
 * {@link ValueSink}: the closed dispatch over stored value types, without boxing or copying.
 */
final class ValueBridge implements ValueWriter<IOException> {
    private final ValueSink sink;

    ValueBridge(ValueSink sink) {
        this.sink = sink;
    }

    @Override
    public void writeNull() throws IOException {
        throw new IOException("a stored property value was null");
    }

    @Override
    public void writeBoolean(boolean value) throws IOException {
        sink.writeBoolean(value);
    }

    @Override
    public void writeInteger(byte value) throws IOException {
        sink.writeByte(value);
    }

    @Override
    public void writeInteger(short value) throws IOException {
        sink.writeShort(value);
    }

    @Override
    public void writeInteger(int value) throws IOException {
        sink.writeInt(value);
    }

    @Override
    public void writeInteger(long value) throws IOException {
        sink.writeLong(value);
    }

    @Override
    public void writeFloatingPoint(float value) throws IOException {
        sink.writeFloat(value);
    }

    @Override
    public void writeFloatingPoint(double value) throws IOException {
        sink.writeDouble(value);
    }

    @Override
    public void writeString(String value) throws IOException {
        sink.writeString(value);
    }

    /** Longer stored strings arrive as UTF-8 bytes: passed on undecoded (no String made for them). */
    @Override
    public void writeUTF8(byte[] bytes, int offset, int length) throws IOException {
        sink.writeUtf8(bytes, offset, length);
    }

    @Override
    public void writeString(char value) throws IOException {
        sink.writeChar(value);
    }

    @Override
    public void beginArray(int size, ArrayType arrayType) throws IOException {
        sink.beginArray(size, switch (arrayType) {
            case BOOLEAN -> ValueSink.ArrayKind.BOOLEAN;
            case SHORT -> ValueSink.ArrayKind.SHORT;
            case INT -> ValueSink.ArrayKind.INT;
            case LONG -> ValueSink.ArrayKind.LONG;
            case FLOAT -> ValueSink.ArrayKind.FLOAT;
            case DOUBLE -> ValueSink.ArrayKind.DOUBLE;
            case CHAR -> ValueSink.ArrayKind.CHAR;
            case STRING -> ValueSink.ArrayKind.STRING;
            case POINT -> ValueSink.ArrayKind.POINT;
            case DATE -> ValueSink.ArrayKind.DATE;
            case LOCAL_TIME -> ValueSink.ArrayKind.LOCAL_TIME;
            case ZONED_TIME -> ValueSink.ArrayKind.TIME;
            case LOCAL_DATE_TIME -> ValueSink.ArrayKind.LOCAL_DATE_TIME;
            case ZONED_DATE_TIME -> ValueSink.ArrayKind.DATE_TIME;
            case DURATION -> ValueSink.ArrayKind.DURATION;
            case UUID -> ValueSink.ArrayKind.UUID;
            // Byte arrays arrive through writeByteArray; lists of vectors cannot be stored.
            case BYTE, VECTOR -> throw new IOException("unsupported array element type " + arrayType);
        });
    }

    @Override
    public void endArray() throws IOException {
        sink.endArray();
    }

    @Override
    public void writeByteArray(byte[] value) throws IOException {
        sink.writeBytes(value);
    }

    @Override
    public void writePoint(CoordinateReferenceSystem crs, double[] coordinate) throws IOException {
        sink.writePoint(crs.getCode(), coordinate);
    }

    @Override
    public void writeDuration(long months, long days, long seconds, int nanos) throws IOException {
        sink.writeDuration(months, days, seconds, nanos);
    }

    @Override
    public void writeDate(LocalDate localDate) throws IOException {
        sink.writeDate(localDate);
    }

    @Override
    public void writeLocalTime(LocalTime localTime) throws IOException {
        sink.writeLocalTime(localTime);
    }

    @Override
    public void writeTime(OffsetTime offsetTime) throws IOException {
        sink.writeTime(offsetTime);
    }

    @Override
    public void writeLocalDateTime(LocalDateTime localDateTime) throws IOException {
        sink.writeLocalDateTime(localDateTime);
    }

    @Override
    public void writeDateTime(ZonedDateTime zonedDateTime) throws IOException {
        sink.writeDateTime(zonedDateTime);
    }

    @Override
    public void writeInt8Vector(byte[] values) throws IOException {
        sink.writeVector(ValueSink.VectorKind.INT8, values);
    }

    @Override
    public void writeInt16Vector(short[] values) throws IOException {
        sink.writeVector(ValueSink.VectorKind.INT16, values);
    }

    @Override
    public void writeInt32Vector(int[] values) throws IOException {
        sink.writeVector(ValueSink.VectorKind.INT32, values);
    }

    @Override
    public void writeInt64Vector(long[] values) throws IOException {
        sink.writeVector(ValueSink.VectorKind.INT64, values);
    }

    @Override
    public void writeFloat32Vector(float[] values) throws IOException {
        sink.writeVector(ValueSink.VectorKind.FLOAT32, values);
    }

    @Override
    public void writeFloat64Vector(double[] values) throws IOException {
        sink.writeVector(ValueSink.VectorKind.FLOAT64, values);
    }

    @Override
    public void writeUUID(long msb, long lsb) throws IOException {
        sink.writeUuid(msb, lsb);
    }

    @Override
    public void writeUnsupported(String typeName, String minProtocolVersion, String message) throws IOException {
        throw new IOException("unsupported property value type " + typeName);
    }
}
