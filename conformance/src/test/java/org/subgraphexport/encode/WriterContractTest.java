package org.subgraphexport.encode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.esotericsoftware.kryo.io.Output;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.subgraphexport.client.ClientFormats;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.TokenNames;
import org.subgraphexport.wire.ValueSink.ArrayKind;
import org.subgraphexport.wire.Wire;

/** What every writer promises besides its bytes: stream ownership, flushing, token look-ups, misuse checks. */
class WriterContractTest {
    @Test
    void formatsByPathSegmentAndMediaType() {
        for (Format f : Format.values()) {
            assertEquals(Optional.of(f), Format.fromPathSegment(f.pathSegment()));
        }
        assertEquals("kryo-lzf", Format.KRYO_LZF.pathSegment());
        assertEquals("application/x-subgraph-kryo-lzf", Format.KRYO_LZF.mediaType());
        assertEquals("application/bson", Format.BSON.mediaType());
        assertEquals(Optional.empty(), Format.fromPathSegment("JSON"));
        assertEquals(Optional.empty(), Format.fromPathSegment("xml"));
        assertEquals(Optional.empty(), Format.fromPathSegment(null));
    }

    @Test
    void jsonElementIdsArePrefixAndDecimalForEveryLong() throws IOException {
        Random random = new Random(20261123);
        long[] ids = new long[2000];
        long[] edges = {0, 1, 9, 10, 99, 100, 999_999_999, 1_000_000_000, Integer.MAX_VALUE, Integer.MAX_VALUE + 1L,
                999_999_999_999_999_999L, 1_000_000_000_000_000_000L, Long.MAX_VALUE, -1, -10, Long.MIN_VALUE};
        System.arraycopy(edges, 0, ids, 0, edges.length);
        for (int i = edges.length; i < ids.length; i++) {
            ids[i] = random.nextLong() >>> random.nextInt(64) ^ (random.nextInt(8) == 0 ? Long.MIN_VALUE : 0);
        }
        // a prefix JSON writes as it is (the bytes path), and one that needs escaping (the chars path)
        for (String prefix : new String[] {"4:3f1c2d4e-0000-4000-8000-00000000000a:", "4:\"db\\\u00e9:"}) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            GraphWriter w = Encoders.open(Format.JSON, out);
            w.header(new Header("neo4j", prefix + 0, prefix, "5:r:"), new LzfChunkTest.SimpleTokens());
            for (long id : ids) {
                w.beginRelationship(id, 0, id, Math.abs(id % 1000));
                w.endRelationship();
            }
            w.end(0, ids.length, false);
            w.finish();
            String json = out.toString(StandardCharsets.UTF_8);
            String quoted = prefix.replace("\\", "\\\\").replace("\"", "\\\"");
            int at = 0;
            for (long id : ids) {
                String expected = "\"id\":\"5:r:" + id + "\",\"type\":\"TYPE_0\",\"start\":\"" + quoted + id
                        + "\",\"end\":\"" + quoted + Math.abs(id % 1000) + "\"";
                int found = json.indexOf(expected, at);
                assertTrue(found >= 0, expected);
                at = found + expected.length();
            }
        }
    }

    /**
     * Complete records go to the target as writes at record ends (once {@link Wire#HAND_OVER_BYTES} bytes are buffered),
     * never with a flush: the target is flushed once, by finish() (kryo-lzf: after the last chunk), and never closed.
     */
    @ParameterizedTest
    @EnumSource(Format.class)
    void neverClosesTheTargetAndFlushesItOnceInFinish(Format format) throws IOException {
        TrackingStream target = new TrackingStream();
        FixtureStream fixture = FixtureStream.full();
        assertTrue(fixture.bytes(Format.KRYO).length > 2 * Wire.HAND_OVER_BYTES, "the fixture fills the buffer");
        GraphWriter w = Encoders.open(format, target);
        fixture.write(w, fixture.tokens());
        w.end(0, 0, false);
        assertEquals(0, target.flushes, "no flush before finish(), also not where the buffer is handed over");
        if (format != Format.KRYO_LZF) {  // kryo-lzf: the compressor thread writes when it likes
            assertTrue(target.writes > 0, "the buffer was handed over before finish()");
        }
        w.finish();
        assertFalse(target.closed, "closed the target");
        assertEquals(1, target.flushes, "finish() flushes once");
        w.finish();  // idempotent
        w.abort();
        assertEquals(1, target.flushes);
        assertFalse(target.closed);
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void asksForEachTokenNameOnce(Format format) throws IOException {
        FixtureStream fixture = FixtureStream.full();
        TokenNames names = fixture.tokens();
        Map<String, Integer> asked = new HashMap<>();
        TokenNames counting = new TokenNames() {
            @Override
            public String label(int id) {
                asked.merge("label " + id, 1, Integer::sum);
                return names.label(id);
            }

            @Override
            public String relationshipType(int id) {
                asked.merge("type " + id, 1, Integer::sum);
                return names.relationshipType(id);
            }

            @Override
            public String propertyKey(int id) {
                asked.merge("key " + id, 1, Integer::sum);
                return names.propertyKey(id);
            }
        };
        GraphWriter w = Encoders.open(format, new ByteArrayOutputStream());
        fixture.write(w, counting);
        assertTrue(asked.size() > 20);
        asked.forEach((token, times) -> assertEquals(1, times, token));
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void rejectsMisuseOfArrays(Format format) throws IOException {
        GraphWriter w = Encoders.open(format, new ByteArrayOutputStream());
        w.header(FixtureStream.HEADER, FixtureStream.compact().tokens());
        w.beginNode(1, new int[0], 0);
        w.property(5);
        w.beginArray(2, ArrayKind.INT);
        w.writeInt(1);
        assertThrows(IllegalStateException.class, () -> w.writeLong(2));
        assertThrows(IllegalStateException.class, () -> w.beginArray(1, ArrayKind.INT));
        assertThrows(IllegalStateException.class, () -> w.writeBytes(new byte[0]));
    }

    /**
     * Every writer checks the call protocol itself: a call the contract forbids throws IllegalStateException before
     * it writes anything, in every format. Each case is a stream up to the forbidden call (after the header, and in
     * rows streams the columns), the call, which must throw and leave the bytes written to the target as they were,
     * and a continuation: the stream must come out exactly as the same stream without the forbidden call. Where the
     * contract lets only error() follow (a row, list or map with too many values: the extra value is written, the
     * end call throws), the continuation is error() and the stream without the record is the expectation.
     */
    @ParameterizedTest
    @ClientFormats(rows = true)  // arrow refuses rows: ArrowWriterTest
    void aForbiddenCallThrowsAndWritesNothing(Format format) throws IOException {
        for (Misuse m : MISUSE) {
            String name = format + " " + m.name();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            GraphWriter w = Encoders.open(format, out);
            start(w, m.rows());
            m.before().run(w);
            byte[] written = out.toByteArray();
            assertThrows(IllegalStateException.class, () -> m.forbidden().run(w), name);
            assertArrayEquals(written, out.toByteArray(), name + " wrote to the target");
            m.after().run(w);
            w.finish();
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            GraphWriter e = Encoders.open(format, expected);
            start(e, m.rows());
            m.expected().run(e);
            e.finish();
            assertArrayEquals(expected.toByteArray(), out.toByteArray(), name);
        }
    }

    /** A stream up to a forbidden call, the call, what follows it; and the same stream without the call. */
    private record Misuse(String name, boolean rows, ThrowingCall before, ThrowingCall forbidden, ThrowingCall after,
            ThrowingCall expected) {
        Misuse(String name, boolean rows, ThrowingCall before, ThrowingCall forbidden, ThrowingCall after) {
            this(name, rows, before, forbidden, after, w -> {
                before.run(w);
                after.run(w);
            });
        }
    }

    private static final ThrowingCall NOTHING = w -> { };
    private static final ThrowingCall END = w -> w.end(1, 0, false);
    private static final ThrowingCall END_NODE = w -> {
        w.endNode();
        w.end(1, 0, false);
    };
    private static final ThrowingCall VALUE_END_NODE = w -> {
        w.writeLong(7);
        END_NODE.run(w);
    };
    private static final ThrowingCall END_ROW = w -> {
        w.endRow();
        w.end(0, 0, false);
    };
    private static final ThrowingCall ERROR = w -> w.error("Test.Code", "after a rejected call");

    private static final List<Misuse> MISUSE = List.of(
            // records
            new Misuse("stray endNode()", false, w -> { node(w); w.endNode(); }, GraphWriter::endNode, END),
            new Misuse("stray endRelationship()", false, w -> { node(w); w.endNode(); },
                    GraphWriter::endRelationship, END),
            new Misuse("endNode() first", false, NOTHING, GraphWriter::endNode, END),
            new Misuse("endRelationship() ending a node", false, WriterContractTest::node,
                    GraphWriter::endRelationship, END_NODE),
            new Misuse("endNode() ending a relationship", false, w -> w.beginRelationship(1, 0, 1, 1),
                    GraphWriter::endNode, w -> {
                        w.endRelationship();
                        w.end(0, 1, false);
                    }),
            new Misuse("beginNode() inside a node", false, WriterContractTest::node, w -> w.beginNode(2, new int[0], 0),
                    END_NODE),
            new Misuse("beginRelationship() inside a node", false, WriterContractTest::node,
                    w -> w.beginRelationship(2, 0, 1, 1), END_NODE),
            new Misuse("end() inside a record", false, w -> { node(w); w.property(1); w.writeLong(7); },
                    w -> w.end(1, 0, false), END_NODE),
            new Misuse("header() again", false, NOTHING,
                    w -> w.header(FixtureStream.HEADER, new LzfChunkTest.SimpleTokens()), END),
            // properties
            new Misuse("endNode() where a value is due", false, w -> { node(w); w.property(1); },
                    GraphWriter::endNode, VALUE_END_NODE),
            new Misuse("property() where a value is due", false, w -> { node(w); w.property(1); },
                    w -> w.property(2), VALUE_END_NODE),
            new Misuse("property() outside a record", false, NOTHING, w -> w.property(1), END),
            new Misuse("a value without property()", false, WriterContractTest::node, w -> w.writeLong(1), END_NODE),
            new Misuse("a string without property()", false, WriterContractTest::node, w -> w.writeString("s"),
                    END_NODE),
            new Misuse("a second value", false, w -> { node(w); w.property(1); w.writeLong(1); },
                    w -> w.writeLong(2), END_NODE),
            new Misuse("a value between records", false, NOTHING, w -> w.writeInt(1), END),
            new Misuse("a row value as a property", false, w -> { node(w); w.property(1); }, GraphWriter::writeNull,
                    VALUE_END_NODE),
            new Misuse("a list as a property", false, w -> { node(w); w.property(1); }, w -> w.beginList(0),
                    VALUE_END_NODE),
            // typed arrays
            new Misuse("another kind in an array", false, w -> {
                node(w);
                w.property(1);
                w.beginArray(2, ArrayKind.INT);
                w.writeInt(1);
            }, w -> w.writeLong(2), w -> {
                w.writeInt(2);
                w.endArray();
                END_NODE.run(w);
            }),
            new Misuse("more elements than announced", false, w -> {
                node(w);
                w.property(1);
                w.beginArray(1, ArrayKind.INT);
                w.writeInt(1);
            }, w -> w.writeInt(2), w -> {
                w.endArray();
                END_NODE.run(w);
            }),
            new Misuse("fewer elements than announced", false, w -> {
                node(w);
                w.property(1);
                w.beginArray(2, ArrayKind.INT);
                w.writeInt(1);
            }, GraphWriter::endArray, w -> {
                w.writeInt(2);
                w.endArray();
                END_NODE.run(w);
            }),
            new Misuse("a nested array", false, w -> { node(w); w.property(1); w.beginArray(0, ArrayKind.INT); },
                    w -> w.beginArray(0, ArrayKind.INT), w -> {
                        w.endArray();
                        END_NODE.run(w);
                    }),
            new Misuse("bytes in an array", false, w -> { node(w); w.property(1); w.beginArray(0, ArrayKind.INT); },
                    w -> w.writeBytes(new byte[1]), w -> {
                        w.endArray();
                        END_NODE.run(w);
                    }),
            new Misuse("property() in an array", false,
                    w -> { node(w); w.property(1); w.beginArray(0, ArrayKind.INT); }, w -> w.property(2), w -> {
                        w.endArray();
                        END_NODE.run(w);
                    }),
            new Misuse("endNode() in an array", false,
                    w -> { node(w); w.property(1); w.beginArray(0, ArrayKind.INT); }, GraphWriter::endNode, w -> {
                        w.endArray();
                        END_NODE.run(w);
                    }),
            new Misuse("endArray() without an array", false, w -> { node(w); w.property(1); },
                    GraphWriter::endArray, VALUE_END_NODE),
            // columns and rows
            new Misuse("columns() after a record", false, w -> { node(w); w.endNode(); },
                    w -> w.columns(new String[] {"d"}), END),
            new Misuse("columns() again", true, NOTHING, w -> w.columns(new String[] {"d"}), END),
            new Misuse("columns() inside a row", true, WriterContractTest::row, w -> w.columns(new String[] {"d"}),
                    w -> {
                        w.writeLong(1);
                        END_ROW.run(w);
                    }),
            new Misuse("beginRow() without columns()", false, NOTHING, GraphWriter::beginRow, END),
            new Misuse("beginRow() inside a row", true, WriterContractTest::row, GraphWriter::beginRow, w -> {
                w.writeLong(1);
                END_ROW.run(w);
            }),
            new Misuse("a row with too few values", true, WriterContractTest::row, GraphWriter::endRow, w -> {
                w.writeLong(1);
                END_ROW.run(w);
            }),
            new Misuse("a row with too many values", true, w -> { row(w); w.writeLong(1); w.writeLong(2); },
                    GraphWriter::endRow, ERROR, ERROR),
            new Misuse("endNode() ending a row", true, w -> { row(w); w.writeLong(1); }, GraphWriter::endNode,
                    END_ROW),
            new Misuse("a list with too few values", true, w -> { row(w); w.beginList(2); w.writeLong(1); },
                    GraphWriter::endList, w -> {
                        w.writeLong(2);
                        w.endList();
                        END_ROW.run(w);
                    }),
            new Misuse("a list with too many values", true, w -> {
                row(w);
                w.beginList(1);
                w.writeLong(1);
                w.writeLong(2);
            }, GraphWriter::endList, ERROR, ERROR),
            new Misuse("endMap() ending a list", true, w -> { row(w); w.beginList(0); }, GraphWriter::endMap, w -> {
                w.endList();
                END_ROW.run(w);
            }),
            // maps
            new Misuse("endMap() where a value is due", true, w -> { row(w); w.beginMap(1); w.mapKey("a"); },
                    GraphWriter::endMap, w -> {
                        w.writeLong(1);
                        w.endMap();
                        END_ROW.run(w);
                    }),
            new Misuse("mapKey() where a value is due", true, w -> { row(w); w.beginMap(2); w.mapKey("a"); },
                    w -> w.mapKey("b"), w -> {
                        w.writeLong(1);
                        w.mapKey("b");
                        w.writeLong(2);
                        w.endMap();
                        END_ROW.run(w);
                    }),
            new Misuse("a map value without mapKey()", true, w -> { row(w); w.beginMap(1); }, w -> w.writeLong(1),
                    w -> {
                        w.mapKey("a");
                        w.writeLong(1);
                        w.endMap();
                        END_ROW.run(w);
                    }),
            new Misuse("mapKey() in a list", true, w -> { row(w); w.beginList(1); }, w -> w.mapKey("a"), w -> {
                w.writeLong(1);
                w.endList();
                END_ROW.run(w);
            }),
            new Misuse("mapKey() in a row", true, WriterContractTest::row, w -> w.mapKey("a"), w -> {
                w.writeLong(1);
                END_ROW.run(w);
            }),
            new Misuse("a map with too few entries", true, w -> { row(w); w.beginMap(1); }, GraphWriter::endMap,
                    w -> {
                        w.mapKey("a");
                        w.writeLong(1);
                        w.endMap();
                        END_ROW.run(w);
                    }),
            // closing records
            new Misuse("end() after end()", false, END, w -> w.end(0, 0, false), NOTHING),
            new Misuse("error() after end()", false, END, ERROR, NOTHING),
            new Misuse("a node after end()", false, END, WriterContractTest::node, NOTHING),
            new Misuse("a row after end()", true, w -> w.end(0, 0, false), GraphWriter::beginRow, NOTHING),
            new Misuse("a value after end()", false, END, w -> w.writeLong(1), NOTHING),
            new Misuse("error() after error()", false, ERROR, ERROR, NOTHING),
            new Misuse("end() after error()", false, ERROR, w -> w.end(0, 0, false), NOTHING),
            new Misuse("a node after error()", false, ERROR, WriterContractTest::node, NOTHING),
            new Misuse("a relationship after error()", false, ERROR, w -> w.beginRelationship(1, 0, 1, 1), NOTHING),
            new Misuse("a row after error()", true, ERROR, GraphWriter::beginRow, NOTHING));

    /**
     * Before the header there is no stream: end() and error() throw and write nothing (the owner answers with an
     * HTTP error instead), and so do records. After finish() (or abort()) nothing more is written, however the
     * stream ended.
     */
    @ParameterizedTest
    @ClientFormats(rows = true)  // arrow refuses rows: ArrowWriterTest
    void nothingBeforeTheHeaderNorAfterFinish(Format format) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = Encoders.open(format, out);
        assertThrows(IllegalStateException.class, () -> w.error("Test.Code", "too early"));
        assertThrows(IllegalStateException.class, () -> w.end(0, 0, false));
        assertThrows(IllegalStateException.class, () -> node(w));
        assertThrows(IllegalStateException.class, () -> w.columns(new String[] {"c"}));
        assertThrows(IllegalStateException.class, w::beginRow);
        assertThrows(IllegalStateException.class, () -> w.property(1));
        assertThrows(IllegalStateException.class, () -> w.writeLong(1));
        assertEquals(0, out.size(), "wrote before the header");
        w.abort();

        for (ThrowingCall closing : List.of(END, ERROR)) {
            ByteArrayOutputStream finished = new ByteArrayOutputStream();
            GraphWriter f = Encoders.open(format, finished);
            start(f, true);
            closing.run(f);
            f.finish();
            byte[] bytes = finished.toByteArray();
            List<ThrowingCall> after = List.of(WriterContractTest::node, w2 -> w2.beginRelationship(1, 0, 1, 1),
                    GraphWriter::beginRow, GraphWriter::endNode, GraphWriter::endRelationship, END, ERROR,
                    w2 -> w2.header(FixtureStream.HEADER, new LzfChunkTest.SimpleTokens()),
                    w2 -> w2.columns(new String[] {"c"}), w2 -> w2.property(1), w2 -> w2.writeLong(1));
            for (ThrowingCall call : after) {
                assertThrows(IllegalStateException.class, () -> call.run(f), format + " after finish()");
            }
            f.finish();
            f.abort();
            assertArrayEquals(bytes, finished.toByteArray(), format + " wrote after finish()");
        }

        ByteArrayOutputStream aborted = new ByteArrayOutputStream();
        GraphWriter a = Encoders.open(format, aborted);
        start(a, false);
        node(a);
        a.abort();
        assertThrows(IllegalStateException.class, () -> node(a));
        assertThrows(IllegalStateException.class, () -> a.error("Test.Code", "after abort()"));
        a.finish();
        assertEquals(0, aborted.size(), "wrote after abort()");
    }

    /**
     * Arguments the wire format cannot carry (a negative token id, a negative or oversized length) throw
     * IllegalArgumentException in every format, and the error record that follows replaces the unfinished record
     * whole: the stream is the same as one with the error record alone.
     */
    @ParameterizedTest
    @ClientFormats(rows = true)  // arrow refuses rows: ArrowWriterTest
    void rejectsArgumentsTheFormatCannotCarry(Format format) throws IOException {
        List<ThrowingCall> bad = List.of(
                w -> w.beginNode(1, new int[] {-1}, 1),
                w -> w.beginRelationship(1, -1, 1, 1),
                w -> { node(w); w.property(-1); },
                w -> { node(w); w.property(1); w.beginArray(-1, ArrayKind.INT); },
                w -> { row(w); w.beginList(-1); },
                w -> { row(w); w.beginList(Wire.MAX_LENGTH + 1); },
                w -> { row(w); w.beginMap(-1); },
                w -> { row(w); w.beginMap(Wire.MAX_LENGTH + 1); });
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        GraphWriter e = Encoders.open(format, expected);
        start(e, true);
        ERROR.run(e);
        e.finish();
        for (int i = 0; i < bad.size(); i++) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            GraphWriter w = Encoders.open(format, out);
            start(w, true);
            ThrowingCall call = bad.get(i);
            assertThrows(IllegalArgumentException.class, () -> call.run(w), format + " case " + i);
            ERROR.run(w);
            w.finish();
            assertArrayEquals(expected.toByteArray(), out.toByteArray(), format + " case " + i);
        }
    }

    /** Header, and for a rows stream a columns record with one column. */
    private static void start(GraphWriter w, boolean rows) throws IOException {
        w.header(FixtureStream.HEADER, new LzfChunkTest.SimpleTokens());
        if (rows) {
            w.columns(new String[] {"c"});
        }
    }

    private interface ThrowingCall {
        void run(GraphWriter w) throws IOException;
    }

    private static void node(GraphWriter w) throws IOException {
        w.beginNode(1, new int[0], 0);
    }

    private static void row(GraphWriter w) throws IOException {
        w.beginRow();
    }

    /**
     * The Kryo string encoding is exactly String.getBytes(UTF_8), unpaired surrogates included, after its length as
     * Kryo's own Output writes a varint; across chunks of the encoder and buffer growth.
     */
    @Test
    void kryoStringsAreJavaUtf8() {
        Random random = new Random(3);
        for (int i = 0; i < 2000; i++) {
            int n = i < 100 ? i : i % 20 == 0 ? 4000 + random.nextInt(12000) : random.nextInt(2000);  // chunks, 3-byte lengths
            StringBuilder sb = new StringBuilder(n);
            for (int k = 0; k < n; k++) {
                sb.append(switch (random.nextInt(6)) {
                    case 0 -> (char) random.nextInt(0x80);
                    case 1 -> (char) (0x80 + random.nextInt(0x780));
                    case 2 -> (char) (0x800 + random.nextInt(0xD000));
                    case 3 -> (char) (0xD800 + random.nextInt(0x800));  // any surrogate, paired or not
                    case 4 -> "😀";
                    default -> (char) (0xE000 + random.nextInt(0x2000));
                });
            }
            String s = sb.toString();
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            WireBuffer out = new WireBuffer(16);  // tiny buffer: every longer string grows it
            out.require(1);
            out.put(0x55);  // not at offset 0
            out.kryoString(s);
            Output expected = new Output(16 + utf8.length);
            expected.writeByte(0x55);
            expected.writeVarInt(utf8.length, true);
            expected.writeBytes(utf8);
            assertArrayEquals(expected.toBytes(), out.toByteArray(), () -> "string " + s.chars().boxed().toList());
        }
    }

    /**
     * Stored strings may arrive as UTF-8 bytes ({@link ValueSink#writeUtf8}): every format writes exactly what it
     * writes for the decoded String — ASCII passed through (with JSON escaping), anything else decoded first, so
     * malformed bytes become U+FFFD as decoding makes them.
     */
    @ParameterizedTest
    @EnumSource(Format.class)
    void utf8BytesAreWrittenExactlyAsTheDecodedString(Format format) throws IOException {
        byte[][] samples = {
            new byte[0],
            "a".getBytes(StandardCharsets.UTF_8),
            "IfcWallStandardCase 42 mm".getBytes(StandardCharsets.UTF_8),
            "quote \" backslash \\ newline \n tab \t ctrl \u0001 del \u007f </script>".getBytes(StandardCharsets.UTF_8),
            "x".repeat(100_000).getBytes(StandardCharsets.UTF_8),
            "é😀 ünïcödé ✓".getBytes(StandardCharsets.UTF_8),
            {0x61, (byte) 0xC3},                      // truncated sequence
            {(byte) 0xED, (byte) 0xA0, (byte) 0x80},  // an encoded surrogate: malformed in UTF-8
            {(byte) 0xFF, 0x41},
        };
        ByteArrayOutputStream viaString = new ByteArrayOutputStream();
        ByteArrayOutputStream viaBytes = new ByteArrayOutputStream();
        for (boolean bytes : new boolean[] {false, true}) {
            GraphWriter w = Encoders.open(format, bytes ? viaBytes : viaString);
            w.header(FixtureStream.HEADER, new LzfChunkTest.SimpleTokens());
            w.beginNode(7, new int[] {1}, 1);
            for (int i = 0; i < samples.length; i++) {
                w.property(i);
                if (bytes) {
                    byte[] padded = new byte[samples[i].length + 5];  // at an offset, with bytes either side
                    Arrays.fill(padded, (byte) '#');
                    System.arraycopy(samples[i], 0, padded, 3, samples[i].length);
                    w.writeUtf8(padded, 3, samples[i].length);
                } else {
                    w.writeString(new String(samples[i], StandardCharsets.UTF_8));
                }
            }
            w.endNode();
            w.end(1, 0, false);
            w.finish();
        }
        assertArrayEquals(viaString.toByteArray(), viaBytes.toByteArray());
        assertTrue(format == Format.KRYO_LZF || viaBytes.size() > 100_000, "the long sample was written");
    }

    private static final class TrackingStream extends OutputStream {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int flushes;
        int writes;
        boolean closed;

        @Override
        public void write(int b) {
            writes++;
            bytes.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            writes++;
            bytes.write(b, off, len);
        }

        @Override
        public void flush() {
            flushes++;
        }

        @Override
        public void close() {
            closed = true;
        }

        int size() {
            return bytes.size();
        }
    }
}
