package org.subgraphexport.encode;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.ValueSink.ArrayKind;
import org.subgraphexport.wire.Wire;

/**
 * The messages of {@link ByteRecordWriter}'s protocol checks, which every encoder shares: each forbidden call says
 * which call it was and why it may not come there (WriterContractTest checks that every format refuses the same
 * calls and writes nothing; these are the words a caller reads). Each check is asked of the kryo, JSON and BSON
 * writers; the sizes and depths at the limits are accepted, one past them refused.
 */
class ByteRecordWriterTest {
    private interface Call {
        void run(GraphWriter w) throws IOException;
    }

    private static final Call HEADER = w -> w.header(FixtureStream.HEADER,
            FixtureStream.tokens(new String[] {"L"}, new String[] {"T"}, new String[] {"k", "m"}));
    private static final Call COLUMNS = w -> {
        HEADER.run(w);
        w.columns(new String[] {"a", "b"});
    };
    private static final Call ROW = w -> {
        COLUMNS.run(w);
        w.beginRow();
    };
    private static final Call NODE = w -> {
        HEADER.run(w);
        w.beginNode(1, new int[] {0}, 1);
    };
    private static final Call PROPERTY = w -> {
        NODE.run(w);
        w.property(0);
    };
    private static final Call INT_ARRAY = w -> {
        PROPERTY.run(w);
        w.beginArray(2, ArrayKind.INT);
    };

    /** The formats whose writers are ByteRecordWriters (kryo-lzf is the kryo writer with another output). */
    private static final Format[] FORMATS = {Format.KRYO, Format.JSON, Format.BSON};

    /**
     * A fresh writer of each format: {@code before} runs, then {@code call} must throw {@code type} with
     * {@code message}.
     */
    private static void assertRefused(Class<? extends RuntimeException> type, String message, Call before, Call call)
            throws IOException {
        for (Format format : FORMATS) {
            GraphWriter w = Encoders.open(format, new ByteArrayOutputStream());
            before.run(w);
            RuntimeException e = assertThrows(type, () -> call.run(w), format + ": " + message);
            assertEquals(message, e.getMessage(), format.toString());
        }
    }

    private static void assertIllegalState(String message, Call before, Call call) throws IOException {
        assertRefused(IllegalStateException.class, message, before, call);
    }

    @Test
    void recordsOutOfOrder() throws IOException {
        assertIllegalState("header() twice", HEADER, HEADER);
        assertIllegalState("header() after finish()", w -> assertThrows(IllegalStateException.class, w::finish),
                HEADER);
        assertIllegalState("beginNode() before header()", w -> { }, w -> w.beginNode(1, new int[0], 0));
        assertIllegalState("beginNode() inside a record", NODE, w -> w.beginNode(2, new int[0], 0));
        assertIllegalState("beginRelationship() inside a record", NODE, w -> w.beginRelationship(2, 0, 1, 1));
        assertIllegalState("beginNode() after the closing record", w -> {
            HEADER.run(w);
            w.end(0, 0, false);
        }, w -> w.beginNode(1, new int[0], 0));
        assertIllegalState("leftNode() in a stream that is not a delta", HEADER, w -> w.leftNode(1));
        assertIllegalState("leftRelationship() in a stream that is not a delta", HEADER, w -> w.leftRelationship(1));
        assertIllegalState("leftNode() inside a record", w -> {
            w.header(new org.subgraphexport.wire.Header("neo4j", "", "4:", "5:", "s2", 0, 1, "s1"),
                    FixtureStream.tokens(new String[0], new String[0], new String[0]));
            w.beginNode(1, new int[0], 0);
        }, w -> w.leftNode(2));
        assertIllegalState("endNode() without beginNode()", w -> {
            HEADER.run(w);
            w.beginRelationship(1, 0, 1, 1);
        }, GraphWriter::endNode);
        assertIllegalState("endRelationship() without beginRelationship()", NODE, GraphWriter::endRelationship);
        assertIllegalState("record ended where a property's value is due", PROPERTY, GraphWriter::endNode);
        assertIllegalState("record ended inside an array or a row", INT_ARRAY, GraphWriter::endNode);
        assertIllegalState("end() inside a record", NODE, w -> w.end(1, 0, false));
        assertIllegalState("end() before header(): no stream has started", w -> { }, w -> w.end(0, 0, false));
        assertIllegalState("error() before header(): no stream has started", w -> { }, w -> w.error("c", "m"));
        assertIllegalState("end() after the closing record", w -> {
            HEADER.run(w);
            w.error("c", "m");
        }, w -> w.end(0, 0, false));
        assertIllegalState("finish() before header()", w -> { }, GraphWriter::finish);
        assertIllegalState("finish() inside a record", NODE, GraphWriter::finish);
    }

    @Test
    void propertiesAndValuesOutOfPlace() throws IOException {
        assertIllegalState("property() outside a node or relationship", HEADER, w -> w.property(0));
        assertIllegalState("property() where the previous property's value is due", PROPERTY, w -> w.property(1));
        assertIllegalState("property() inside an array", INT_ARRAY, w -> w.property(1));
        assertIllegalState("a value without its property()", NODE, w -> w.writeLong(1));
        assertIllegalState("LONG value in an array of INT", INT_ARRAY, w -> w.writeLong(1));
        assertIllegalState("more array elements than the 2 announced", w -> {
            INT_ARRAY.run(w);
            w.writeInt(1);
            w.writeInt(2);
        }, w -> w.writeInt(3));
        assertIllegalState("byte arrays are written with writeBytes", INT_ARRAY, w -> w.writeByte((byte) 1));
        assertIllegalState("nested arrays are not values", INT_ARRAY, w -> w.beginArray(0, ArrayKind.INT));
        assertIllegalState("endArray without beginArray", PROPERTY, GraphWriter::endArray);
        assertIllegalState("an array of 2 elements received 1", w -> {
            INT_ARRAY.run(w);
            w.writeInt(1);
        }, GraphWriter::endArray);
        assertRefused(IllegalArgumentException.class, "negative token id -1", NODE, w -> w.property(-1));
        assertRefused(IllegalArgumentException.class, "array size -1 outside 0.." + Wire.MAX_LENGTH, PROPERTY,
                w -> w.beginArray(-1, ArrayKind.INT));
        assertRefused(IllegalArgumentException.class, "array size " + (Wire.MAX_LENGTH + 1) + " outside 0.."
                + Wire.MAX_LENGTH, PROPERTY, w -> w.beginArray(Wire.MAX_LENGTH + 1, ArrayKind.INT));
    }

    @Test
    void rowsListsAndMapsOutOfPlace() throws IOException {
        assertIllegalState("columns() comes once, right after header()", COLUMNS, w -> w.columns(new String[] {"c"}));
        assertIllegalState("columns() comes once, right after header()", w -> {
            HEADER.run(w);
            w.beginNode(1, new int[0], 0);
            w.endNode();
        }, w -> w.columns(new String[] {"c"}));
        assertIllegalState("beginRow() without columns()", HEADER, GraphWriter::beginRow);
        assertIllegalState("beginRow() inside a row or an array", ROW, GraphWriter::beginRow);
        assertIllegalState("writeNull() outside a row", PROPERTY, GraphWriter::writeNull);
        assertIllegalState("writeNull() inside a typed array", w -> {
            ROW.run(w);
            w.beginArray(1, ArrayKind.INT);
        }, GraphWriter::writeNull);
        assertIllegalState("beginList() outside a row", PROPERTY, w -> w.beginList(0));
        assertIllegalState("beginMap() inside a typed array", w -> {
            ROW.run(w);
            w.beginArray(1, ArrayKind.INT);
        }, w -> w.beginMap(0));
        assertRefused(IllegalArgumentException.class, "beginList() size -1 outside 0.." + Wire.MAX_LENGTH, ROW,
                w -> w.beginList(-1));
        assertIllegalState("a map value without its mapKey()", w -> {
            ROW.run(w);
            w.beginMap(1);
        }, w -> w.writeLong(1));
        assertIllegalState("mapKey() outside a map", ROW, w -> w.mapKey("k"));
        assertIllegalState("mapKey() where the previous key's value is due", w -> {
            ROW.run(w);
            w.beginMap(2);
            w.mapKey("k");
        }, w -> w.mapKey("m"));
        assertIllegalState("endMap() where the last key's value is due", w -> {
            ROW.run(w);
            w.beginMap(1);
            w.mapKey("k");
        }, GraphWriter::endMap);
        assertIllegalState("endList() without beginList()", ROW, GraphWriter::endList);
        assertIllegalState("endMap() without beginMap()", w -> {
            ROW.run(w);
            w.beginList(0);
        }, GraphWriter::endMap);
        assertIllegalState("a row of 2 values received 1", w -> {
            ROW.run(w);
            w.writeLong(1);
        }, GraphWriter::endRow);
        assertIllegalState("a list of 2 values received 1", w -> {
            ROW.run(w);
            w.beginList(2);
            w.writeLong(1);
        }, GraphWriter::endList);
        assertIllegalState("a map of 1 entries received 0", w -> {
            ROW.run(w);
            w.beginMap(1);
        }, GraphWriter::endMap);
    }

    /**
     * The largest sizes and the deepest nesting the format carries are accepted (the stream then ends with an
     * error record, the values not given), one more is refused.
     */
    @Test
    void limitsAreInclusive() throws IOException {
        for (Call atLimit : new Call[] {
            w -> {
                PROPERTY.run(w);
                w.beginArray(Wire.MAX_LENGTH, ArrayKind.INT);
            },
            w -> {
                ROW.run(w);
                w.beginList(Wire.MAX_LENGTH);
            },
            w -> {
                ROW.run(w);
                w.beginMap(Wire.MAX_LENGTH);
            },
            w -> {
                ROW.run(w);
                for (int i = 0; i < Wire.MAX_NESTING; i++) {
                    w.beginList(1);
                }
            }}) {
            for (Format format : FORMATS) {
                GraphWriter w = Encoders.open(format, new ByteArrayOutputStream());
                assertDoesNotThrow(() -> atLimit.run(w), format.toString());
                w.error("c", "m");
                w.finish();
            }
        }
        assertRefused(IllegalArgumentException.class, "beginMap() size " + (Wire.MAX_LENGTH + 1) + " outside 0.."
                + Wire.MAX_LENGTH, ROW, w -> w.beginMap(Wire.MAX_LENGTH + 1));
        assertIllegalState("lists and maps nested deeper than " + Wire.MAX_NESTING + " levels", w -> {
            ROW.run(w);
            for (int i = 0; i < Wire.MAX_NESTING; i++) {
                w.beginList(1);
            }
        }, w -> w.beginMap(0));
    }
}
