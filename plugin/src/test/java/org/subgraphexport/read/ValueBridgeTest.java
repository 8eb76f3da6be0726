package org.subgraphexport.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.neo4j.values.storable.CoordinateReferenceSystem;
import org.neo4j.values.storable.DurationValue;
import org.neo4j.values.storable.Value;
import org.neo4j.values.storable.ValueWriter.ArrayType;
import org.neo4j.values.storable.Values;
import org.subgraphexport.wire.ValueSink;

/**
 * Every kind of stored value, made by Neo4j's own {@link Values} and written by its own {@code writeTo}, reaches the
 * sink method of its kind with its exact content (no database: the values are what a property cursor returns).
 */
class ValueBridgeTest {
    private static List<String> written(Value value) throws IOException {
        TraceWriter out = new TraceWriter();
        value.writeTo(new ValueBridge(out));
        return out.calls;
    }

    @Test
    void scalarsReachTheirOwnSinkMethod() throws IOException {
        assertEquals(List.of("bool true"), written(Values.booleanValue(true)));
        assertEquals(List.of("bool false"), written(Values.booleanValue(false)));
        assertEquals(List.of("byte -7"), written(Values.byteValue((byte) -7)));
        assertEquals(List.of("short 300"), written(Values.shortValue((short) 300)));
        assertEquals(List.of("int 70000"), written(Values.intValue(70_000)));
        assertEquals(List.of("long 5000000000"), written(Values.longValue(5_000_000_000L)));
        assertEquals(List.of("float 1.5"), written(Values.floatValue(1.5f)));
        assertEquals(List.of("double 2.25"), written(Values.doubleValue(2.25)));
        assertEquals(List.of("char é"), written(Values.charValue('é')));
        assertEquals(List.of("string plain"), written(Values.stringValue("plain")));
        // a string read from the store as UTF-8 bytes: passed on as bytes, and the sink's default decodes them
        assertEquals(List.of("string naïve ☃"), written(Values.utf8Value("naïve ☃".getBytes(StandardCharsets.UTF_8))));
        assertEquals(List.of("string ïv"), written(Values.utf8Value("naïve".getBytes(StandardCharsets.UTF_8), 2, 3)));
        assertEquals(List.of("bytes [1, -2, 127]"), written(Values.byteArray(new byte[] {1, -2, 127})));
        assertEquals(List.of("uuid 1 -2"), written(Values.uuidValue(1L, -2L)));
        UUID uuid = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");
        assertEquals(List.of("uuid " + uuid.getMostSignificantBits() + " " + uuid.getLeastSignificantBits()),
                written(Values.uuidValue(uuid)));
    }

    @Test
    void pointsCarryTheirSridAndEveryCoordinate() throws IOException {
        assertEquals(List.of("point 7203[1.5, -2.0]"),
                written(Values.pointValue(CoordinateReferenceSystem.CARTESIAN, 1.5, -2.0)));
        assertEquals(List.of("point 4979[12.5, 55.25, 100.0]"),
                written(Values.pointValue(CoordinateReferenceSystem.WGS_84_3D, 12.5, 55.25, 100.0)));
        assertEquals(List.of("point 4326[-0.5, 51.0]"),
                written(Values.pointValue(CoordinateReferenceSystem.WGS_84, -0.5, 51.0)));
        assertEquals(List.of("point 9157[1.0, 2.0, 3.0]"),
                written(Values.pointValue(CoordinateReferenceSystem.CARTESIAN_3D, 1.0, 2.0, 3.0)));
    }

    @Test
    void temporalsKeepEveryField() throws IOException {
        assertEquals(List.of("duration 14 3 3725 500"),
                written(DurationValue.duration(14, 3, 3725, 500)));
        assertEquals(List.of("date 1999-12-31"), written(Values.temporalValue(LocalDate.of(1999, 12, 31))));
        assertEquals(List.of("localTime 23:59:58.000000001"),
                written(Values.temporalValue(LocalTime.of(23, 59, 58, 1))));
        assertEquals(List.of("time 08:30+02:00"),
                written(Values.temporalValue(OffsetTime.of(8, 30, 0, 0, ZoneOffset.ofHours(2)))));
        assertEquals(List.of("localDateTime 2024-02-29T12:00:00.123"),
                written(Values.temporalValue(LocalDateTime.of(2024, 2, 29, 12, 0, 0, 123_000_000))));
        assertEquals(List.of("dateTime 2024-10-27T02:30+02:00[Europe/Berlin]"),
                written(Values.temporalValue(ZonedDateTime.of(2024, 10, 27, 2, 30, 0, 0, ZoneId.of("Europe/Berlin")))));
        assertEquals(List.of("dateTime 2024-03-31T02:30-05:00"),
                written(Values.temporalValue(ZonedDateTime.of(2024, 3, 31, 2, 30, 0, 0, ZoneOffset.ofHours(-5)))));
    }

    @Test
    void vectorsNameTheirElementKind() throws IOException {
        assertEquals(List.of("vector INT8 [1, -1]"), written(Values.int8Vector((byte) 1, (byte) -1)));
        assertEquals(List.of("vector INT16 [300, -300]"), written(Values.int16Vector((short) 300, (short) -300)));
        assertEquals(List.of("vector INT32 [70000]"), written(Values.int32Vector(70_000)));
        assertEquals(List.of("vector INT64 [5000000000, 0]"), written(Values.int64Vector(5_000_000_000L, 0L)));
        assertEquals(List.of("vector FLOAT32 [0.5, 1.5]"), written(Values.float32Vector(0.5f, 1.5f)));
        assertEquals(List.of("vector FLOAT64 [0.25]"), written(Values.float64Vector(0.25)));
    }

    /** Arrays: their size and element kind first, then each element through its own method, then the end. */
    @Test
    void arraysAreFramedWithTheirSizeAndKind() throws IOException {
        assertEquals(List.of("array 2 BOOLEAN", "bool true", "bool false", "endArray"),
                written(Values.booleanArray(new boolean[] {true, false})));
        assertEquals(List.of("array 2 SHORT", "short 1", "short -1", "endArray"),
                written(Values.shortArray(new short[] {1, -1})));
        assertEquals(List.of("array 1 INT", "int 7", "endArray"), written(Values.intArray(new int[] {7})));
        assertEquals(List.of("array 2 LONG", "long 8", "long 9", "endArray"),
                written(Values.longArray(new long[] {8, 9})));
        assertEquals(List.of("array 1 FLOAT", "float 0.5", "endArray"), written(Values.floatArray(new float[] {0.5f})));
        assertEquals(List.of("array 1 DOUBLE", "double 0.75", "endArray"),
                written(Values.doubleArray(new double[] {0.75})));
        assertEquals(List.of("array 2 CHAR", "char a", "char ß", "endArray"),
                written(Values.charArray(new char[] {'a', 'ß'})));
        assertEquals(List.of("array 2 STRING", "string x", "string", "endArray"),
                written(Values.stringArray("x", "")).stream().map(String::strip).toList());
        assertEquals(List.of("array 0 STRING", "endArray"), written(Values.stringArray(new String[0])));
        assertEquals(List.of("array 1 POINT", "point 7203[3.0, 4.0]", "endArray"),
                written(Values.pointArray(new org.neo4j.values.storable.PointValue[] {
                    Values.pointValue(CoordinateReferenceSystem.CARTESIAN, 3, 4)})));
        assertEquals(List.of("array 1 DATE", "date 2000-01-01", "endArray"),
                written(Values.dateArray(new LocalDate[] {LocalDate.of(2000, 1, 1)})));
        assertEquals(List.of("array 1 LOCAL_TIME", "localTime 10:11:12", "endArray"),
                written(Values.localTimeArray(new LocalTime[] {LocalTime.of(10, 11, 12)})));
        assertEquals(List.of("array 1 TIME", "time 10:11:12Z", "endArray"),
                written(Values.timeArray(new OffsetTime[] {OffsetTime.of(10, 11, 12, 0, ZoneOffset.UTC)})));
        assertEquals(List.of("array 1 LOCAL_DATE_TIME", "localDateTime 2000-01-01T00:00", "endArray"),
                written(Values.localDateTimeArray(new LocalDateTime[] {LocalDateTime.of(2000, 1, 1, 0, 0)})));
        assertEquals(List.of("array 1 DATE_TIME", "dateTime 2000-01-01T00:00Z", "endArray"),
                written(Values.dateTimeArray(new ZonedDateTime[] {ZonedDateTime.of(2000, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC)})));
        assertEquals(List.of("array 1 DURATION", "duration 1 2 3 4", "endArray"),
                written(Values.durationArray(new DurationValue[] {DurationValue.duration(1, 2, 3, 4)})));
        assertEquals(List.of("array 1 UUID", "uuid 5 6", "endArray"),
                written(Values.uuidArray(new UUID[] {new UUID(5, 6)})));
    }

    /** Every array type Neo4j names but BYTE (byte arrays are one value) and VECTOR (not storable) has a kind. */
    @Test
    void everyArrayTypeMapsToItsKindOrIsRefusedByName() throws IOException {
        List<String> kinds = new ArrayList<>();
        for (ArrayType type : ArrayType.values()) {
            TraceWriter out = new TraceWriter();
            ValueBridge bridge = new ValueBridge(out);
            if (type == ArrayType.BYTE || type == ArrayType.VECTOR) {
                IOException refused = assertThrows(IOException.class, () -> bridge.beginArray(3, type));
                assertEquals("unsupported array element type " + type, refused.getMessage());
                assertEquals(List.of(), out.calls);
            } else {
                bridge.beginArray(3, type);
                bridge.endArray();
                kinds.add(out.calls.get(0));
                assertEquals("endArray", out.calls.get(1));
            }
        }
        assertEquals(List.of("array 3 SHORT", "array 3 INT", "array 3 LONG", "array 3 FLOAT", "array 3 DOUBLE",
                "array 3 BOOLEAN", "array 3 STRING", "array 3 CHAR", "array 3 POINT", "array 3 DATE_TIME",
                "array 3 LOCAL_DATE_TIME", "array 3 DATE", "array 3 TIME", "array 3 LOCAL_TIME", "array 3 DURATION",
                "array 3 UUID"), kinds);
        assertEquals(ArrayType.values().length - 2, ValueSink.ArrayKind.values().length,
                "every array kind of the wire has its Neo4j type");
    }

    @Test
    void nullAndUnsupportedValuesAreRefusedNotSkipped() {
        TraceWriter out = new TraceWriter();
        ValueBridge bridge = new ValueBridge(out);
        assertEquals("a stored property value was null",
                assertThrows(IOException.class, bridge::writeNull).getMessage());
        assertEquals("unsupported property value type Geometry3000",
                assertThrows(IOException.class, () -> bridge.writeUnsupported("Geometry3000", "9.9", "later")).getMessage());
        assertEquals(List.of(), out.calls);
    }
}
