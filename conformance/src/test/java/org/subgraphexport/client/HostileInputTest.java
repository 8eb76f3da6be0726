package org.subgraphexport.client;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.esotericsoftware.kryo.io.Output;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.ning.compress.lzf.LZFEncoder;
import de.undercouch.bson4jackson.BsonFactory;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.subgraphexport.encode.Encoders;
import org.subgraphexport.encode.FixtureStream;
import org.subgraphexport.encode.RowsFixture;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Wire;

/**
 * Decoders under hostile input: truncation at every offset, garbage, absurd lengths, bad magic and versions,
 * unknown tags, token references beyond the dictionary; for rows streams also misplaced columns and rows, absurd
 * list, map and path sizes, lists and maps nested too deep (or 100,000 levels), row-only values where only
 * property values may stand. Each must fail fast with {@link CorruptStreamException} (never another exception, a
 * StackOverflowError, an OutOfMemoryError or a hang).
 */
class HostileInputTest {
    private static final java.time.Duration LIMIT = java.time.Duration.ofSeconds(30);

    @ParameterizedTest
    @ClientFormats
    void truncatedAtEveryOffsetOfTheCompactFixture(Format format) {
        byte[] bytes = FixtureStream.compact().bytes(format);
        assertTimeoutPreemptively(LIMIT, () -> {
            for (int cut = 0; cut < bytes.length; cut++) {
                assertCorrupt(format, Arrays.copyOf(bytes, cut), "cut at " + cut + " of " + bytes.length);
            }
        });
    }

    @ParameterizedTest
    @ClientFormats
    void smallStreamTruncatedAtEveryOffsetReadOneByteAtATime(Format format) {
        byte[] bytes = FixtureStream.small().bytes(format);
        assertTimeoutPreemptively(LIMIT, () -> {
            for (int cut = 0; cut < bytes.length; cut++) {
                byte[] prefix = Arrays.copyOf(bytes, cut);
                CorruptStreamException e = assertThrows(CorruptStreamException.class,
                        () -> Streams.decodeTiny(format, prefix), "cut at " + cut);
                assertTrue(e.getMessage() != null && !e.getMessage().isEmpty());
            }
        });
    }

    @ParameterizedTest
    @ClientFormats
    void fullFixtureTruncatedAtAStride(Format format) {
        byte[] bytes = FixtureStream.full().bytes(format);
        assertTimeoutPreemptively(LIMIT, () -> {
            for (int cut = 0; cut < bytes.length; cut += 1999) {
                assertCorrupt(format, Arrays.copyOf(bytes, cut), "cut at " + cut);
            }
            for (int cut = Math.max(0, bytes.length - 100); cut < bytes.length; cut++) {
                assertCorrupt(format, Arrays.copyOf(bytes, cut), "cut at " + cut);
            }
        });
    }

    @Test
    void truncationMessageCountsRecords() throws IOException {
        byte[] bytes = FixtureStream.small().bytes(Format.KRYO);
        CorruptStreamException e = assertThrows(CorruptStreamException.class,
                () -> Streams.decode(Format.KRYO, Arrays.copyOf(bytes, bytes.length - 4)));
        assertTrue(e.getMessage().startsWith("stream truncated after 4 records"), e.getMessage());
    }

    @ParameterizedTest
    @ClientFormats
    void garbage(Format format) {
        Random random = new Random(42);
        assertTimeoutPreemptively(LIMIT, () -> {
            for (int i = 0; i < 300; i++) {
                byte[] bytes = new byte[random.nextInt(i < 10 ? 10 : 3000)];
                random.nextBytes(bytes);
                assertCorrupt(format, bytes, "garbage " + i);
            }
        });
    }

    @ParameterizedTest
    @ClientFormats
    void garbageAfterAValidHeader(Format format) {
        byte[] header = headerOnly(format == Format.KRYO_LZF ? Format.KRYO : format);
        Random random = new Random(43);
        assertTimeoutPreemptively(LIMIT, () -> {
            for (int i = 0; i < 300; i++) {
                byte[] tail = new byte[random.nextInt(2000)];
                random.nextBytes(tail);
                assertCorrupt(format, kryoFor(format, concat(header, tail)), "tail " + i);
            }
        });
    }

    /** Random byte changes: the decoder returns a (different) subgraph or fails cleanly, nothing else. */
    @ParameterizedTest
    @ClientFormats
    void mutatedStreams(Format format) {
        byte[] valid = FixtureStream.compact().bytes(format);
        Random random = new Random(44);
        assertTimeoutPreemptively(LIMIT, () -> {
            for (int i = 0; i < 500; i++) {
                byte[] bytes = valid.clone();
                for (int k = 1 + random.nextInt(3); k > 0; k--) {
                    int at = random.nextInt(bytes.length);
                    bytes[at] = random.nextBoolean() ? (byte) random.nextInt() : (byte) (bytes[at] ^ 1 << random.nextInt(8));
                }
                try {
                    Streams.decode(format, bytes);
                } catch (CorruptStreamException | ExportFailedException expected) {
                    // clean failure
                } catch (Throwable t) {
                    fail("mutation " + i + " raised " + t, t);
                }
            }
        });
    }

    @ParameterizedTest
    @EnumSource(value = Format.class, names = {"KRYO", "KRYO_LZF"})
    void kryoAbsurdLengthsFailFast(Format format) {
        List<byte[]> streams = new ArrayList<>();
        streams.add(kryo(o -> {}, Integer.MAX_VALUE));  // database name of 2^31-1 bytes
        streams.add(kryo(o -> {}, Wire.MAX_LENGTH));    // allowed length, few bytes
        streams.add(kryo(o -> {}, Wire.MAX_LENGTH + 1));
        streams.add(kryo(o -> {
            node(o);
            o.writeVarInt(Integer.MAX_VALUE, true);      // label count
        }, -1));
        streams.add(kryo(o -> property(o, Wire.T_BYTES, Integer.MAX_VALUE), -1));
        streams.add(kryo(o -> property(o, Wire.T_BYTES, Wire.MAX_LENGTH), -1));
        streams.add(kryo(o -> property(o, Wire.T_STRING, Wire.MAX_LENGTH), -1));
        streams.add(kryo(o -> {
            propertyTag(o, Wire.T_ARRAY);
            o.writeByte(Wire.T_LONG);
            o.writeVarInt(Integer.MAX_VALUE, true);
        }, -1));
        for (int elementTag : new int[] {Wire.T_BOOLEAN, Wire.T_SHORT, Wire.T_INT, Wire.T_LONG, Wire.T_FLOAT,
                Wire.T_DOUBLE, Wire.T_CHAR, Wire.T_STRING, Wire.T_POINT, Wire.T_UUID, Wire.T_DATE_TIME}) {
            streams.add(kryo(o -> {
                propertyTag(o, Wire.T_ARRAY);
                o.writeByte(elementTag);
                o.writeVarInt(Wire.MAX_LENGTH, true);
                o.writeBytes(new byte[] {1, 2, 3});
            }, -1));
        }
        for (int kind = 0; kind < 6; kind++) {
            int k = kind;
            streams.add(kryo(o -> {
                propertyTag(o, Wire.T_VECTOR);
                o.writeByte(k);
                o.writeVarInt(Wire.MAX_LENGTH, true);
                o.writeBytes(new byte[] {1, 2, 3});
            }, -1));
        }
        assertAllCorrupt(format, streams.stream().map(b -> kryoFor(format, b)).toList());
    }

    @Test
    void bsonAbsurdLengthsFailFast() {
        List<byte[]> streams = new ArrayList<>();
        byte[] header = header(Format.BSON);
        streams.add(le(Integer.MAX_VALUE, 1, 2, 3));                               // document length 2^31-1
        streams.add(le(Wire.MAX_BSON_DOCUMENT, 1, 2, 3));                          // allowed length, few bytes
        streams.add(le(-5, 0));
        streams.add(le(3, 0));
        // {"record": <string of length 2^31-1>}
        streams.add(concat(header, document(0x02, "record", le(Integer.MAX_VALUE, 'x', 0))));
        // {"record": <binary of length 2^31-1>}
        streams.add(concat(header, document(0x05, "record", le(Integer.MAX_VALUE, 0, 1, 2))));
        // {"record": <binary subtype 2 (old), length 1 but inner length 2^31-1>}
        streams.add(concat(header, document(0x05, "record", le(5, 2, 0xFF, 0xFF, 0xFF, 0x7F, 0))));
        // {"record": <document of length 2^31-1>}
        streams.add(concat(header, document(0x03, "record", le(Integer.MAX_VALUE, 0))));
        // {"record": regex}: a type the writer never uses
        streams.add(concat(header, document(0x0B, "record", new byte[] {'a', 0, 0})));
        assertAllCorrupt(Format.BSON, streams);
    }

    @Test
    void jsonHugeNumbersAndDeepNestingFailFast() {
        String header = "[{\"record\":\"header\",\"version\":1,\"database\":\"d\",\"root\":\"\"},";
        List<byte[]> streams = new ArrayList<>();
        streams.add(utf8(header + "{\"record\":\"node\",\"id\":\"n\",\"labels\":[],\"properties\":{\"x\":"
                + "9".repeat(5000) + "}}"));
        streams.add(utf8(header + "{\"record\":\"node\",\"id\":\"n\",\"labels\":[],\"properties\":{\"x\":"
                + "99999999999999999999}}"));
        streams.add(utf8(header + "[".repeat(100_000)));
        streams.add(utf8(header + "{\"record\":\"node\",\"id\":\"n\",\"labels\":[],\"properties\":{\"x\":"
                + "{\"int[]\":" + "[".repeat(100_000)));
        streams.add(utf8("[" + "{\"a\":".repeat(100_000)));
        assertAllCorrupt(Format.JSON, streams);
    }

    @ParameterizedTest
    @ClientFormats
    void badMagicOrVersion(Format format) {
        List<byte[]> streams = new ArrayList<>();
        switch (format) {
            case KRYO, KRYO_LZF -> {
                byte[] valid = FixtureStream.small().bytes(Format.KRYO);
                byte[] magic = valid.clone();
                magic[2] = 'Y';
                byte[] version = valid.clone();
                version[3] = 3;  // 1 and 2 are read
                streams.add(magic);
                streams.add(version);
                streams.add(new byte[] {'S', 'G', 'X'});
                if (format == Format.KRYO_LZF) {
                    streams = new ArrayList<>(streams.stream().map(LZFEncoder::encode).toList());
                    streams.add(valid);  // not LZF at all
                    byte[] lzf = LZFEncoder.encode(valid);
                    lzf[1] = 'W';        // bad chunk signature
                    streams.add(lzf);
                }
            }
            case JSON, BSON -> {
                String records = "[{\"record\":\"header\",\"version\":3,\"database\":\"d\",\"root\":\"\"},"
                        + "{\"record\":\"end\",\"nodes\":0,\"relationships\":0,\"truncated\":false}]";
                streams.add(encode(format, records));
                streams.add(encode(format, records.replace("\"version\":3,", "")));
                streams.add(encode(format, records.replace("\"header\"", "\"node\"")));
                if (format == Format.JSON) {
                    streams.add(utf8("{\"record\":\"header\"}"));
                    streams.add(utf8(""));
                }
            }
        }
        assertAllCorrupt(format, streams);
    }

    @ParameterizedTest
    @EnumSource(value = Format.class, names = {"KRYO", "KRYO_LZF"})
    void kryoUnknownTagsAndTokenIndexes(Format format) {
        List<byte[]> streams = new ArrayList<>();
        streams.add(kryo(o -> o.writeByte(0x7F), -1));                            // record tag
        streams.add(kryo(o -> o.writeByte(Wire.HEADER), -1));                     // second header
        streams.add(kryo(o -> property(o, 0x7F, 0), -1));                         // value tag
        streams.add(kryo(o -> property(o, 0x00, 0), -1));                         // value tag 0
        for (int bad : new int[] {Wire.T_BYTE, Wire.T_BYTES, Wire.T_VECTOR, Wire.T_ARRAY, 0x15, 0}) {
            streams.add(kryo(o -> {                                                // array element tag
                propertyTag(o, Wire.T_ARRAY);
                o.writeByte(bad);
                o.writeVarInt(1, true);
                o.writeByte(0);
            }, -1));
        }
        streams.add(kryo(o -> {                                                    // vector kind
            propertyTag(o, Wire.T_VECTOR);
            o.writeByte(6);
            o.writeVarInt(0, true);
        }, -1));
        streams.add(kryo(o -> {                                                    // label index beyond size
            o.writeByte(Wire.NODE);
            o.writeVarLong(1, true);
            o.writeVarInt(1, true);
            o.writeVarInt(5, true);
        }, -1));
        streams.add(kryo(o -> {                                                    // type index beyond size
            o.writeByte(Wire.RELATIONSHIP);
            o.writeVarLong(1, true);
            o.writeVarInt(1, true);
        }, -1));
        streams.add(kryo(o -> {                                                    // key index beyond size
            node(o);
            o.writeVarInt(0, true);
            o.writeByte(Wire.PROPERTY);
            o.writeVarInt(3, true);
        }, -1));
        streams.add(kryo(o -> {                                                    // property marker
            node(o);
            o.writeVarInt(0, true);
            o.writeByte(7);
        }, -1));
        streams.add(kryo(o -> {                                                    // malformed varint
            o.writeByte(Wire.NODE);
            o.writeVarLong(1, true);
            o.writeBytes(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0x7F});
        }, -1));
        streams.add(kryo(o -> {                                                    // bytes after the end
            o.writeByte(Wire.END);
            o.writeVarLong(0, true);
            o.writeVarLong(0, true);
            o.writeByte(0);
            o.writeByte(0);
        }, -1));
        streams.add(kryo(o -> {                                                    // truncated flag
            o.writeByte(Wire.END);
            o.writeVarLong(0, true);
            o.writeVarLong(0, true);
            o.writeByte(2);
        }, -1));
        assertAllCorrupt(format, streams.stream().map(b -> kryoFor(format, b)).toList());
    }

    @ParameterizedTest
    @EnumSource(value = Format.class, names = {"JSON", "BSON"})
    void jacksonUnknownTagsAndRecords(Format format) {
        String head = "[{\"record\":\"header\",\"version\":1,\"database\":\"d\",\"root\":\"\"},";
        String end = ",{\"record\":\"end\",\"nodes\":1,\"relationships\":0,\"truncated\":false}]";
        String node = "{\"record\":\"node\",\"id\":\"n\",\"labels\":[],\"properties\":{\"x\":%s}}";
        List<byte[]> streams = new ArrayList<>();
        for (String value : new String[] {"{\"bogus\":1}", "{}", "{\"int\":1,\"int\":2}", "{\"int\":2147483648}",
                "{\"byte\":300}", "{\"float\":\"nan\"}", "{\"char\":\"ab\"}", "{\"date\":\"2020-02-30\"}",
                "{\"uuid\":\"1-1-1-1-1\"}", "{\"point\":{\"srid\":1,\"coordinates\":[1]}}",
                "{\"duration\":[1,2,3]}", "{\"vector\":{\"kind\":\"INT4\",\"values\":[]}}",
                "{\"vector\":{\"kind\":\"INT8\",\"values\":[300]}}", "{\"int[]\":[1,\"a\"]}", "{\"bytes[]\":[]}",
                "{\"datetime\":\"2020-01-01T00:00:00+01:00[Nowhere/Nothing]\"}", "null", "[1]"}) {
            streams.add(encode(format, head + String.format(node, value) + end));
        }
        streams.add(encode(format, head + "{\"record\":\"bogus\"}" + end));
        streams.add(encode(format, head + "{\"id\":\"n\",\"record\":\"node\"}" + end));
        streams.add(encode(format, head + "{\"record\":\"node\",\"labels\":[],\"properties\":{}}" + end));
        streams.add(encode(format, head + "{\"record\":\"node\",\"id\":\"n\",\"labels\":[],\"properties\":{}}" + "]"));
        streams.add(encode(format, head + "{\"record\":\"node\",\"id\":\"n\",\"labels\":[],\"properties\":{}}"
                + end.replace("]", ",{\"record\":\"end\",\"nodes\":1,\"relationships\":0,\"truncated\":false}]")));
        assertAllCorrupt(format, streams);
        // the same frame with a valid value decodes: the failures above are about the values
        assertTimeoutPreemptively(LIMIT, () -> Streams.decode(format,
                encode(format, head + String.format(node, "{\"int\":1}") + end)));
    }

    @ParameterizedTest
    @ClientFormats
    void anIOExceptionOfTheSourcePassesUnchanged(Format format) {
        byte[] bytes = FixtureStream.compact().bytes(format);
        IOException failure = new IOException("connection reset");
        InputStream in = new InputStream() {
            private int at;

            @Override
            public int read() throws IOException {
                if (at == bytes.length / 2) {
                    throw failure;
                }
                return bytes[at++] & 0xFF;
            }
        };
        IOException e = assertThrows(IOException.class, () -> Streams.decode(format, in));
        assertSame(failure, e);
    }

    // ---- rows streams -------------------------------------------------------------------------------------

    @ParameterizedTest
    @ClientFormats
    void rowsFixtureTruncatedAtEveryOffset(Format format) {
        byte[] bytes = RowsFixture.standard().bytes(format);
        assertTimeoutPreemptively(LIMIT, () -> {
            for (int cut = 0; cut < bytes.length; cut++) {
                assertCorrupt(format, Arrays.copyOf(bytes, cut), "cut at " + cut + " of " + bytes.length);
            }
        });
    }

    @ParameterizedTest
    @ClientFormats
    void mutatedRowsStreams(Format format) {
        byte[] valid = RowsFixture.standard().bytes(format);
        Random random = new Random(45);
        assertTimeoutPreemptively(LIMIT, () -> {
            for (int i = 0; i < 1000; i++) {
                byte[] bytes = valid.clone();
                for (int k = 1 + random.nextInt(3); k > 0; k--) {
                    int at = random.nextInt(bytes.length);
                    bytes[at] = random.nextBoolean() ? (byte) random.nextInt() : (byte) (bytes[at] ^ 1 << random.nextInt(8));
                }
                try {
                    Streams.decode(format, bytes);
                } catch (CorruptStreamException | ExportFailedException expected) {
                    // clean failure
                } catch (Throwable t) {
                    fail("mutation " + i + " raised " + t, t);
                }
            }
        });
    }

    /**
     * A property key twice in one record is corrupt: the same token twice, or two tokens with the same name; in small
     * and large records, and right after a valid record with the same keys (which the decoder caches).
     */
    @ParameterizedTest
    @EnumSource(value = Format.class, names = {"KRYO", "KRYO_LZF"})
    void kryoPropertyKeyTwiceInOneRecord(Format format) throws IOException {
        for (int n : new int[] {2, 8, 9, 3000}) {
            for (boolean sameToken : new boolean[] {true, false}) {
                int twice = n / 2;
                byte[] stream = kryo(o -> {
                    intPropertiesNode(o, 1, n);                      // defines keys k0..k(n-1): valid
                    node(o);
                    o.writeVarInt(0, true);
                    for (int i = 0; i < n; i++) {
                        intProperty(o, i, null, i);
                    }
                    intProperty(o, sameToken ? twice : n, sameToken ? null : "k" + twice, -1);
                    o.writeByte(Wire.PROPERTIES_END);
                    o.writeByte(Wire.END);
                    o.writeVarLong(2, true);
                    o.writeVarLong(0, true);
                    o.writeByte(0);
                }, -1);
                CorruptStreamException e = assertThrows(CorruptStreamException.class,
                        () -> Streams.decode(format, kryoFor(format, stream)), n + " keys");
                assertTrue(e.getMessage().contains("property 'k" + twice + "' twice in one record"), e.getMessage());
            }
            byte[] valid = kryo(o -> {
                intPropertiesNode(o, 1, n);
                o.writeByte(Wire.NODE);
                o.writeVarLong(2, true);
                o.writeVarInt(0, true);
                for (int i = n - 1; i >= 0; i--) {
                    intProperty(o, i, null, -i);
                }
                o.writeByte(Wire.PROPERTIES_END);
                o.writeByte(Wire.END);
                o.writeVarLong(2, true);
                o.writeVarLong(0, true);
                o.writeByte(0);
            }, -1);
            Subgraph s = Streams.decode(format, kryoFor(format, valid));
            java.util.Map<String, Object> second = s.nodes().get("4:x:2").properties();
            assertTrue(second.size() == n && second.get("k0").equals(0) && second.get("k" + (n - 1)).equals(1 - n)
                    && second.keySet().iterator().next().equals("k" + (n - 1)), second::toString);
        }
    }

    /** A node with properties k0..k(n-1), each defining its key token, value i. */
    private static void intPropertiesNode(Output o, long id, int n) {
        o.writeByte(Wire.NODE);
        o.writeVarLong(id, true);
        o.writeVarInt(0, true);
        for (int i = 0; i < n; i++) {
            intProperty(o, i, "k" + i, i);
        }
        o.writeByte(Wire.PROPERTIES_END);
    }

    /** A property with key token {@code key} (defined as {@code define} unless null) and an int value. */
    private static void intProperty(Output o, int key, String define, int value) {
        o.writeByte(Wire.PROPERTY);
        o.writeVarInt(key, true);
        if (define != null) {
            o.writeVarInt(define.length(), true);
            o.writeBytes(utf8(define));
        }
        o.writeByte(Wire.T_INT);
        o.writeVarInt(value, false);  // zigzag
    }

    @ParameterizedTest
    @EnumSource(value = Format.class, names = {"JSON", "BSON"})
    void jacksonPropertyKeyTwiceInOneRecord(Format format) throws IOException {
        String head = "[{\"record\":\"header\",\"version\":1,\"database\":\"d\",\"root\":\"\"},";
        String node = "{\"record\":\"node\",\"id\":\"4:x:%d\",\"labels\":[\"L\"],\"properties\":{%s}},";
        String rel = "{\"record\":\"relationship\",\"id\":\"5:x:1\",\"type\":\"T\",\"start\":\"4:x:1\","
                + "\"end\":\"4:x:1\",\"properties\":{%s}},";
        String end = "{\"record\":\"end\",\"nodes\":%d,\"relationships\":%d,\"truncated\":false}]";
        for (int n : new int[] {2, 8, 9, 3000}) {
            StringBuilder keys = new StringBuilder();
            for (int i = 0; i < n; i++) {
                keys.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":").append(i);
            }
            String twice = keys + ",\"k" + n / 2 + "\":{\"int\":1}";
            for (String stream : new String[] {
                    head + String.format(node, 1, twice) + String.format(end, 1, 0),
                    head + String.format(node, 1, keys) + String.format(node, 2, twice) + String.format(end, 2, 0),
                    head + String.format(node, 1, keys) + String.format(rel, twice) + String.format(end, 1, 1)}) {
                CorruptStreamException e = assertThrows(CorruptStreamException.class,
                        () -> Streams.decode(format, encode(format, stream)), n + " keys");
                assertTrue(e.getMessage().contains("property 'k" + n / 2 + "' twice in one record"), e.getMessage());
            }
            Subgraph s = Streams.decode(format, encode(format,
                    head + String.format(node, 1, keys) + String.format(node, 2, keys) + String.format(end, 2, 0)));
            assertTrue(s.nodes().get("4:x:2").properties().equals(s.nodes().get("4:x:1").properties())
                    && s.nodes().get("4:x:2").properties().size() == n);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Format.class, names = {"KRYO", "KRYO_LZF"})
    void kryoRowsHostile(Format format) {
        List<byte[]> streams = new ArrayList<>();
        streams.add(kryo(o -> {                                                    // column count 2^31-1
            o.writeByte(Wire.COLUMNS);
            o.writeVarInt(Integer.MAX_VALUE, true);
        }, -1));
        streams.add(kryo(o -> {                                                    // allowed count, few bytes
            o.writeByte(Wire.COLUMNS);
            o.writeVarInt(Wire.MAX_LENGTH, true);
            o.writeBytes(new byte[] {1, 'a', 1, 'b'});
        }, -1));
        streams.add(kryo(o -> {                                                    // columns after a node
            node(o);
            o.writeVarInt(0, true);
            o.writeByte(Wire.PROPERTIES_END);
            columns(o, 1);
            endRows(o, 1, 0, 0);
        }, -1));
        streams.add(kryo(o -> {                                                    // columns twice
            columns(o, 1);
            columns(o, 1);
            endRows(o, 0, 0, 0);
        }, -1));
        streams.add(kryo(o -> {                                                    // a row without columns
            o.writeByte(Wire.ROW);
            o.writeByte(Wire.T_NULL);
            o.writeByte(Wire.END);
            o.writeVarLong(0, true);
            o.writeVarLong(0, true);
            o.writeByte(0);
        }, -1));
        streams.add(kryo(o -> {                                                    // end without the row count
            columns(o, 1);
            o.writeByte(Wire.END);
            o.writeVarLong(0, true);
            o.writeVarLong(0, true);
            o.writeByte(0);
        }, -1));
        streams.add(kryo(o -> {                                                    // wrong row count
            columns(o, 1);
            row(o, Wire.T_NULL);
            endRows(o, 0, 0, 2);
        }, -1));
        for (int size : new int[] {Integer.MAX_VALUE, Wire.MAX_LENGTH + 1, Wire.MAX_LENGTH}) {
            for (int tag : new int[] {Wire.T_LIST, Wire.T_MAP, Wire.T_PATH}) {
                streams.add(kryo(o -> {                                            // absurd list/map/path sizes
                    columns(o, 1);
                    o.writeByte(Wire.ROW);
                    o.writeByte(tag);
                    o.writeVarInt(size, true);
                    o.writeBytes(new byte[] {Wire.T_NULL, Wire.T_NULL, 1, 'k', Wire.T_NULL});
                }, -1));
            }
        }
        streams.add(kryo(o -> {                                                    // a path without nodes
            columns(o, 1);
            row(o, Wire.T_PATH, 0);
            endRows(o, 0, 0, 1);
        }, -1));
        streams.add(kryo(o -> {                                                    // a map key twice
            columns(o, 1);
            row(o, Wire.T_MAP, 2, 1, 'k', Wire.T_NULL, 1, 'k', Wire.T_NULL);
            endRows(o, 0, 0, 1);
        }, -1));
        streams.add(kryo(o -> {                                                    // unknown value tag in a row
            columns(o, 1);
            row(o, 0x1B);
            endRows(o, 0, 0, 1);
        }, -1));
        for (int levels : new int[] {Wire.MAX_NESTING + 1, 100_000}) {             // too deep, far too deep
            for (int tag : new int[] {Wire.T_LIST, Wire.T_MAP}) {
                streams.add(kryo(o -> {
                    columns(o, 1);
                    o.writeByte(Wire.ROW);
                    for (int i = 0; i < levels; i++) {
                        o.writeByte(tag);
                        o.writeVarInt(1, true);
                        if (tag == Wire.T_MAP) {
                            o.writeVarInt(1, true);
                            o.writeByte('k');
                        }
                    }
                    o.writeByte(Wire.T_NULL);
                    endRows(o, 0, 0, 1);
                }, -1));
            }
        }
        for (int rowOnly : new int[] {Wire.T_NULL, Wire.T_LIST, Wire.T_MAP, Wire.T_NODE_REF,
                Wire.T_RELATIONSHIP_REF, Wire.T_PATH}) {
            streams.add(kryo(o -> {                                                // row-only tags in a property
                propertyTag(o, rowOnly);
                o.writeBytes(new byte[] {0, 0, 0});
            }, -1));
            streams.add(kryo(o -> {                                                // ... and as array elements
                columns(o, 1);
                row(o, Wire.T_ARRAY, rowOnly, 1, 0);
                endRows(o, 0, 0, 1);
            }, -1));
        }
        assertAllCorrupt(format, streams.stream().map(b -> kryoFor(format, b)).toList());
        // the deepest allowed nesting decodes
        assertTimeoutPreemptively(LIMIT, () -> Streams.decode(format, kryoFor(format, kryo(o -> {
            columns(o, 1);
            o.writeByte(Wire.ROW);
            for (int i = 0; i < Wire.MAX_NESTING; i++) {
                o.writeByte(Wire.T_LIST);
                o.writeVarInt(1, true);
            }
            o.writeByte(Wire.T_NULL);
            endRows(o, 0, 0, 1);
        }, -1))));
    }

    @ParameterizedTest
    @EnumSource(value = Format.class, names = {"JSON", "BSON"})
    void jacksonRowsHostile(Format format) {
        String head = "[{\"record\":\"header\",\"version\":1,\"database\":\"d\",\"root\":\"\"},";
        String columns = "{\"record\":\"columns\",\"names\":[\"a\"]},";
        String node = "{\"record\":\"node\",\"id\":\"4:x:1\",\"labels\":[],\"properties\":{}},";
        String end = "{\"record\":\"end\",\"nodes\":%d,\"relationships\":0,\"truncated\":false,\"rows\":%d}]";
        String row = "{\"record\":\"row\",\"values\":[%s]},";
        List<byte[]> streams = new ArrayList<>();
        for (String value : new String[] {"{\"map\":{\"k\":1,\"k\":2}}", "{\"map\":[]}", "{\"map\":{},\"x\":1}",
                "{\"node\":1}", "{\"relationship\":null}", "{\"path\":{\"nodes\":[],\"relationships\":[]}}",
                "{\"path\":{\"nodes\":[\"a\",\"b\"],\"relationships\":[]}}", "{\"path\":{\"nodes\":[\"a\"]}}",
                "{\"list\":[]}", "{}", "{\"int\":null}", "{\"long[]\":[null]}", "[{\"map\":{\"a\":{\"bogus\":1}}}]",
                "1,2", "", "[1,2" , "[".repeat(Wire.MAX_NESTING + 1) + "]".repeat(Wire.MAX_NESTING + 1),
                "{\"map\":{\"k\":".repeat(Wire.MAX_NESTING + 1) + "1" + "}}".repeat(Wire.MAX_NESTING + 1)}) {
            if (format == Format.BSON && value.equals("[1,2")) {
                continue;  // not JSON: BSON cannot carry it
            }
            streams.add(encode(format, head + columns + String.format(row, value) + String.format(end, 0, 1)));
        }
        streams.add(encode(format, head + String.format(row, "1") + String.format(end, 0, 1)));      // no columns
        streams.add(encode(format, head + node + columns + String.format(end, 1, 0)));                 // columns late
        streams.add(encode(format, head + columns + columns + String.format(end, 0, 0)));              // twice
        streams.add(encode(format, head + columns + "{\"record\":\"row\"}," + String.format(end, 0, 1)));
        streams.add(encode(format, head + columns + "{\"record\":\"row\",\"values\":{}}," + String.format(end, 0, 1)));
        streams.add(encode(format, head + "{\"record\":\"columns\",\"names\":[1]}," + String.format(end, 0, 0)));
        streams.add(encode(format, head + columns + String.format(row, "1") + String.format(end, 0, 2)));   // count
        streams.add(encode(format, head + columns + String.format(row, "1") + String.format(end, 0, 1)
                .replace(",\"rows\":1", "")));                                                       // no count
        streams.add(encode(format, head + node + String.format(end, 1, 1)));                          // rows in a graph
        for (String rowOnly : new String[] {"null", "[]", "{\"map\":{}}", "{\"node\":\"4:x:1\"}",
                "{\"path\":{\"nodes\":[\"4:x:1\"],\"relationships\":[]}}"}) {                      // in a property
            streams.add(encode(format, head + node.replace("{}}", "{\"p\":" + rowOnly + "}}")
                    + String.format(end, 1, 0).replace(",\"rows\":0", "")));
        }
        assertAllCorrupt(format, streams);
        // the deepest allowed nesting, and the frame with valid values, decode
        String deepest = "[".repeat(Wire.MAX_NESTING) + "]".repeat(Wire.MAX_NESTING);
        String deepMaps = "{\"map\":{\"k\":".repeat(Wire.MAX_NESTING) + "1" + "}}".repeat(Wire.MAX_NESTING);
        for (String value : new String[] {deepest, deepMaps, "{\"node\":\"4:x:1\"}"}) {
            assertTimeoutPreemptively(LIMIT, () -> Streams.decode(format,
                    encode(format, head + columns + node + String.format(row, value) + String.format(end, 1, 1))));
        }
    }

    @Test
    void jsonFarTooDeepRowsFailFast() {
        String head = "[{\"record\":\"header\",\"version\":1,\"database\":\"d\",\"root\":\"\"},"
                + "{\"record\":\"columns\",\"names\":[\"a\"]},{\"record\":\"row\",\"values\":[";
        assertAllCorrupt(Format.JSON, List.of(utf8(head + "[".repeat(100_000)),
                utf8(head + "{\"map\":{\"k\":".repeat(100_000)),
                utf8(head + "[".repeat(100_000) + "]".repeat(100_000) + "]}]")));
    }

    /**
     * The JSON tokens ({@link JsonTokens}): anything that is not strict RFC 8259 JSON in UTF-8 within the limits is
     * corrupt, fast, in any property value, unknown field or field name; nothing hangs, nothing allocates for what
     * has not arrived.
     */
    @Test
    void jsonMalformedTokensAndUtf8AreCorrupt() {
        String head = "[{\"record\":\"header\",\"version\":1,\"database\":\"d\",\"root\":\"\"},";
        String node = "{\"record\":\"node\",\"id\":\"n\",\"labels\":[],\"properties\":{\"p\":%s}}";
        String unknown = "{\"record\":\"node\",\"id\":\"n\",\"x\":%s,\"labels\":[],\"properties\":{}}";
        String end = ",{\"record\":\"end\",\"nodes\":1,\"relationships\":0,\"truncated\":false}]";
        List<String> bad = List.of("01", "-01", "-", "+1", ".5", "1.", "1e", "1e+", "0x10", "NaN", "Infinity",
                "-Infinity", "tru", "truex", "nul", "'a'", "\"\\x\"", "\"\\u12G4\"", "\"\\U0041\"", "\"a\tb\"",
                "\"\u0001\"", "[1,]", "[,1]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "[1 2]", "/* c */ 1", "# c\n1",
                "\f1", "\u00a01", "\"\\ud800\":1", "1" + "0".repeat(1000), "1." + "0".repeat(1000),
                "1e" + "0".repeat(1000), "[".repeat(300) + "]".repeat(300), "\"" + "x".repeat(100_000));
        List<byte[]> streams = new ArrayList<>();
        for (String v : bad) {
            streams.add(utf8(head + String.format(node, v) + end));
            streams.add(utf8(head + String.format(unknown, v) + end));
        }
        // malformed UTF-8 in a value, a skipped string and a name: overlong, surrogate, beyond U+10FFFF, stray bytes
        byte[][] utf8 = {{(byte) 0xC0, (byte) 0x80}, {(byte) 0xC1, (byte) 0xBF}, {(byte) 0xE0, (byte) 0x9F, (byte) 0xBF},
            {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, {(byte) 0xF0, (byte) 0x8F, (byte) 0xBF, (byte) 0xBF},
            {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, {(byte) 0xF5, (byte) 0x80, (byte) 0x80, (byte) 0x80},
            {(byte) 0x80}, {(byte) 0xFF}, {(byte) 0xC3}, {(byte) 0xC3, (byte) 0x28}, {(byte) 0xE2, (byte) 0x82}};
        for (byte[] b : utf8) {
            for (String template : List.of(node, unknown, "{\"record\":\"node\",\"id\":\"n\",\"labels\":[],"
                    + "\"properties\":{\"%s\":1}}")) {
                String json = head + String.format(template, template.endsWith("{\"%s\":1}}") ? "@" : "\"a@b\"") + end;
                int at = json.indexOf('@');
                streams.add(concat(concat(utf8(json.substring(0, at)), b), utf8(json.substring(at + 1))));
            }
        }
        // a raw control character in a base64 payload (Jackson's base64 reader skipped it), UTF-16 and UTF-32 input
        streams.add(utf8(head + String.format(node, "{\"bytes\":\"AAH/\nf4A=\"}") + end));
        String small = head + String.format(node, "1") + end;
        streams.add(small.getBytes(StandardCharsets.UTF_16LE));
        streams.add(small.getBytes(StandardCharsets.UTF_16BE));
        streams.add(small.getBytes(java.nio.charset.Charset.forName("UTF-32")));
        // limits: a name of 50,001 UTF-8 bytes, nesting of 217 JSON levels, a 100 MB string that never ends
        streams.add(utf8(head + "{\"record\":\"node\",\"id\":\"n\",\"labels\":[],\"properties\":{\""
                + "é".repeat(25_001) + "\":1}}" + end));
        streams.add(utf8(head + String.format(unknown, "[".repeat(215) + "]".repeat(215)) + end));  // 217 levels
        assertAllCorrupt(Format.JSON, streams);
        assertTimeoutPreemptively(LIMIT, () -> assertCorrupt(Format.JSON, null, "an endless string",
                new java.io.SequenceInputStream(new java.io.ByteArrayInputStream(utf8(head + String.format(node, "\""))),
                        new java.io.InputStream() {
                            private long left = 100L << 20;

                            @Override
                            public int read() {
                                return left-- > 0 ? 'x' : -1;
                            }

                            @Override
                            public int read(byte[] b, int off, int len) {
                                int n = (int) Math.min(len, left);
                                if (n <= 0) {
                                    return -1;
                                }
                                Arrays.fill(b, off, off + n, (byte) 'x');
                                left -= n;
                                return n;
                            }
                        })));
    }

    @Test
    void bsonFarTooDeepRowsFailFast() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(encode(Format.BSON, "[{\"record\":\"header\",\"version\":1,\"database\":\"d\",\"root\":\"\"},"
                + "{\"record\":\"columns\",\"names\":[\"a\"]}]"));
        JsonGenerator g = new BsonFactory().createGenerator(out);
        g.writeStartObject();
        g.writeStringField("record", "row");
        g.writeFieldName("values");
        g.writeStartArray();
        for (int i = 0; i < 5000; i++) {
            g.writeStartArray();
        }
        for (int i = 0; i <= 5000; i++) {
            g.writeEndArray();
        }
        g.writeEndObject();
        g.close();
        assertAllCorrupt(Format.BSON, List.of(out.toByteArray()));
    }

    private static void columns(Output o, int count) {
        o.writeByte(Wire.COLUMNS);
        o.writeVarInt(count, true);
        for (int i = 0; i < count; i++) {
            o.writeVarInt(1, true);
            o.writeByte('a' + i);
        }
    }

    /** A row record: the tag, then raw bytes. */
    private static void row(Output o, int... bytes) {
        o.writeByte(Wire.ROW);
        for (int b : bytes) {
            o.writeByte(b);
        }
    }

    private static void endRows(Output o, long nodes, long relationships, long rows) {
        o.writeByte(Wire.END);
        o.writeVarLong(nodes, true);
        o.writeVarLong(relationships, true);
        o.writeByte(0);
        o.writeVarLong(rows, true);
    }

    // ---- helpers ------------------------------------------------------------------------------------------

    private static void assertCorrupt(Format format, byte[] bytes, String what) {
        assertCorrupt(format, bytes, what, null);
    }

    private static void assertCorrupt(Format format, byte[] bytes, String what, InputStream in) {
        try {
            if (in != null) {
                Streams.decode(format, in);
            } else {
                Streams.decode(format, bytes);
            }
            fail(what + ": decoded without error");
        } catch (CorruptStreamException expected) {
            // fine
        } catch (Throwable t) {
            fail(what + ": expected CorruptStreamException, got " + t, t);
        }
    }

    private static void assertAllCorrupt(Format format, List<byte[]> streams) {
        for (int i = 0; i < streams.size(); i++) {
            byte[] bytes = streams.get(i);
            String what = "stream " + i;
            Executable check = () -> assertCorrupt(format, bytes, what);
            assertTimeoutPreemptively(java.time.Duration.ofSeconds(5), check, what);
        }
    }

    /**
     * A kryo stream: magic, version, header, then {@code body}; or, if {@code databaseLength >= 0}, a header
     * whose database name claims that many bytes and has three.
     */
    private static byte[] kryo(Consumer<Output> body, int databaseLength) {
        Output o = new Output(256, -1);
        o.writeByte(Wire.MAGIC_0);
        o.writeByte(Wire.MAGIC_1);
        o.writeByte(Wire.MAGIC_2);
        o.writeByte(1);  // version 1: the header has the four strings only, the end no state
        o.writeByte(Wire.HEADER);
        if (databaseLength >= 0) {
            o.writeVarInt(databaseLength, true);
            o.writeBytes(new byte[] {'a', 'b', 'c'});
        } else {
            for (String s : new String[] {"db", "4:x:0", "4:x:", "5:x:"}) {
                o.writeVarInt(s.length(), true);
                o.writeBytes(s.getBytes(StandardCharsets.UTF_8));
            }
            body.accept(o);
        }
        return o.toBytes();
    }

    /** The header record alone, as written (JSON: without the closing bracket). */
    private static byte[] headerOnly(Format format) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            GraphWriter w = Encoders.open(format, out);
            w.header(FixtureStream.HEADER, RoundTripTest.names());
            w.finish();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        byte[] bytes = out.toByteArray();
        return format == Format.JSON ? Arrays.copyOf(bytes, bytes.length - 1) : bytes;
    }

    private static byte[] kryoFor(Format format, byte[] kryo) {
        return format == Format.KRYO_LZF ? LZFEncoder.encode(kryo) : kryo;
    }

    private static void node(Output o) {
        o.writeByte(Wire.NODE);
        o.writeVarLong(1, true);
    }

    /** A node with one property "k" whose value has tag {@code tag}. */
    private static void propertyTag(Output o, int tag) {
        node(o);
        o.writeVarInt(0, true);         // no labels
        o.writeByte(Wire.PROPERTY);
        o.writeVarInt(0, true);         // new key 0
        o.writeVarInt(1, true);
        o.writeByte('k');
        o.writeByte(tag);
    }

    private static void property(Output o, int tag, int length) {
        propertyTag(o, tag);
        o.writeVarInt(length, true);
        o.writeBytes(new byte[] {1, 2, 3});
    }

    private static byte[] header(Format format) {
        return encode(format, "[{\"record\":\"header\",\"version\":1,\"database\":\"d\",\"root\":\"\"}]");
    }

    /** JSON records as the given format: JSON as is, BSON one document per record object. */
    private static byte[] encode(Format format, String json) {
        if (format == Format.JSON) {
            return utf8(json);
        }
        try (JsonParser p = DEEP_JSON.createParser(json)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            JsonGenerator g = new BsonFactory().createGenerator(out);
            p.nextToken();  // START_ARRAY
            while (p.nextToken() == JsonToken.START_OBJECT) {
                g.copyCurrentStructure(p);
                g.flush();
            }
            g.close();
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Parses the deepest rows the tests build. */
    private static final JsonFactory DEEP_JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(100_000).build()).build();

    /** A BSON document with one element. */
    private static byte[] document(int type, String name, byte[] value) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        int length = 4 + 1 + n.length + 1 + value.length + 1;
        ByteBuffer b = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(length).put((byte) type).put(n).put((byte) 0).put(value).put((byte) 0);
        return b.array();
    }

    /** A little-endian int32 followed by bytes. */
    private static byte[] le(int value, int... bytes) {
        ByteBuffer b = ByteBuffer.allocate(4 + bytes.length).order(ByteOrder.LITTLE_ENDIAN).putInt(value);
        for (int x : bytes) {
            b.put((byte) x);
        }
        return b.array();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

}
