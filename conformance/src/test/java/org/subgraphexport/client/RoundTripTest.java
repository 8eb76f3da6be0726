package org.subgraphexport.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.subgraphexport.client.Streams.assertSubgraph;
import static org.subgraphexport.client.Streams.decode;
import static org.subgraphexport.client.Streams.decodeTiny;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.subgraphexport.encode.Encoders;
import org.subgraphexport.encode.FixtureStream;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.TokenNames;
import org.subgraphexport.wire.ValueSink.VectorKind;

/** Every format round-trips the fixture exactly through the project's own decoder, with tiny and normal reads. */
class RoundTripTest {
    private static final FixtureStream FULL = FixtureStream.full();

    @ParameterizedTest
    @ClientFormats
    void fullFixtureRoundTrips(Format format) throws IOException {
        byte[] bytes = FULL.bytes(format);
        assertSubgraph(FULL.expected(), decode(format, bytes));
    }

    @ParameterizedTest
    @ClientFormats
    void fullFixtureRoundTripsOneByteAtATime(Format format) throws IOException {
        byte[] bytes = FULL.bytes(format);
        assertSubgraph(FULL.expected(), decodeTiny(format, bytes));
    }

    @ParameterizedTest
    @ClientFormats
    void compactAndSmallFixturesRoundTrip(Format format) throws IOException {
        for (FixtureStream f : new FixtureStream[] {FixtureStream.compact(), FixtureStream.small()}) {
            assertSubgraph(f.expected(), decode(format, f.bytes(format)));
            assertSubgraph(f.expected(), decodeTiny(format, f.bytes(format)));
        }
    }

    @ParameterizedTest
    @ClientFormats
    void writingIsDeterministic(Format format) {
        assertArrayEquals(FULL.bytes(format), FULL.bytes(format));
    }

    /** Random float and double bit patterns survive the text formats' shortest-decimal round trip. */
    @ParameterizedTest
    @ClientFormats
    void randomFloatsAndDoublesRoundTripBitExactly(Format format) throws IOException {
        Random random = new Random(7);
        float[] floats = new float[5000];
        double[] doubles = new double[5000];
        for (int i = 0; i < floats.length; i++) {
            floats[i] = Float.intBitsToFloat(random.nextInt());
            doubles[i] = Double.longBitsToDouble(random.nextLong());
            if (Float.isNaN(floats[i])) {
                floats[i] = Float.NaN;  // NaN payloads are canonicalised
            }
            if (Double.isNaN(doubles[i])) {
                doubles[i] = Double.NaN;
            }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = Encoders.open(format, out);
        w.header(new Header("db", "", "n:", "r:"), names());
        w.beginNode(1, new int[0], 0);
        w.property(0);
        FixtureStream.writeValue(w, floats);
        w.property(1);
        FixtureStream.writeValue(w, doubles);
        w.property(2);
        w.writeFloat(floats[1]);
        w.endNode();
        w.end(1, 0, false);
        w.finish();
        Subgraph s = decode(format, new ByteArrayInputStream(out.toByteArray()));
        ExportNode n = s.nodes().get("n:1");
        assertArrayEquals(floats, (float[]) n.properties().get("k0"));
        assertArrayEquals(doubles, (double[]) n.properties().get("k1"));
        assertEquals(floats[1], (Float) n.properties().get("k2"));
    }

    /**
     * Arrays and vectors longer than a decoder's first allocation for them (1,024 elements) and a byte array longer
     * than its 64 KiB buffer: each grows as the elements arrive, and every element comes back in place, in every
     * array and vector kind, with normal and one-byte reads.
     */
    @ParameterizedTest
    @ClientFormats
    void arraysAndVectorsLongerThanTheFirstAllocationRoundTrip(Format format) throws IOException {
        int n = 2500;
        Random random = new Random(11);
        boolean[] booleans = new boolean[n];
        short[] shorts = new short[n];
        int[] ints = new int[n];
        long[] longs = new long[n];
        float[] floats = new float[n];
        double[] doubles = new double[n];
        char[] chars = new char[n];
        byte[] int8 = new byte[n];
        String[] strings = new String[n];
        LocalDate[] dates = new LocalDate[n];
        UUID[] uuids = new UUID[n];
        PointValue[] points = new PointValue[n];
        DurationValue[] durations = new DurationValue[n];
        LocalTime[] localTimes = new LocalTime[n];
        OffsetTime[] times = new OffsetTime[n];
        LocalDateTime[] localDateTimes = new LocalDateTime[n];
        ZonedDateTime[] dateTimes = new ZonedDateTime[n];
        for (int i = 0; i < n; i++) {
            booleans[i] = random.nextBoolean();
            shorts[i] = (short) random.nextInt();
            ints[i] = random.nextInt();
            longs[i] = random.nextLong();
            floats[i] = random.nextFloat() * i;
            doubles[i] = random.nextDouble() * i;
            chars[i] = (char) ('a' + i % 26);
            int8[i] = (byte) random.nextInt();
            strings[i] = "s" + i;
            dates[i] = LocalDate.ofEpochDay(i - 1000);
            uuids[i] = new UUID(random.nextLong(), random.nextLong());
            points[i] = new PointValue(7203, new double[] {i, -i});
            durations[i] = new DurationValue(i, -i, i * 60L, i);
            localTimes[i] = LocalTime.ofSecondOfDay(i * 7);
            times[i] = OffsetTime.of(LocalTime.ofSecondOfDay(i * 11), ZoneOffset.ofHours(i % 14));
            localDateTimes[i] = LocalDateTime.ofEpochSecond(i * 86_401L, i, ZoneOffset.UTC);
            dateTimes[i] = ZonedDateTime.ofInstant(Instant.ofEpochSecond(i * 3_600L), ZoneOffset.ofHours(i % 12));
        }
        byte[] bytes = new byte[150_000];
        random.nextBytes(bytes);
        Object[] values = {booleans, shorts, ints, longs, floats, doubles, chars, strings, dates, uuids, points,
            durations, localTimes, times, localDateTimes, dateTimes, bytes,
            new VectorValue(VectorKind.INT8, int8), new VectorValue(VectorKind.INT16, shorts),
            new VectorValue(VectorKind.INT32, ints), new VectorValue(VectorKind.INT64, longs),
            new VectorValue(VectorKind.FLOAT32, floats), new VectorValue(VectorKind.FLOAT64, doubles)};
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = Encoders.open(format, out);
        w.header(new Header("db", "", "n:", "r:"), names());
        w.beginNode(1, new int[0], 0);
        for (int i = 0; i < values.length; i++) {
            w.property(i);
            FixtureStream.writeValue(w, values[i]);
        }
        w.endNode();
        w.end(1, 0, false);
        w.finish();
        for (Subgraph s : new Subgraph[] {decode(format, out.toByteArray()), decodeTiny(format, out.toByteArray())}) {
            Map<String, Object> properties = s.nodes().get("n:1").properties();
            assertEquals(values.length, properties.size());
            for (int i = 0; i < values.length; i++) {
                Streams.assertRowValue("k" + i, values[i], properties.get("k" + i));
            }
        }
    }

    /**
     * Node ids 1,024 apart share a slot of the decoder's cache of recent node ids (Kryo sends ids as numbers and
     * the decoder builds their text): each record still gets its own id, and a relationship its own ends.
     */
    @ParameterizedTest
    @ClientFormats
    void nodeIdsThatShareACacheSlotKeepTheirOwnIds(Format format) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = Encoders.open(format, out);
        w.header(new Header("db", "", "n:", "r:"), names());
        long[] ids = {1, 1025, 2049};
        for (long id : ids) {
            w.beginNode(id, new int[0], 0);
            w.endNode();
        }
        w.beginRelationship(7, 0, 1025, 1);
        w.endRelationship();
        w.beginRelationship(8, 0, 1, 2049);
        w.endRelationship();
        w.beginRelationship(9, 0, 2049, 1025);
        w.endRelationship();
        w.end(3, 3, false);
        w.finish();
        Subgraph s = decode(format, out.toByteArray());
        assertEquals(java.util.Set.of("n:1", "n:1025", "n:2049"), s.nodes().keySet());
        assertEquals(List.of("n:1025 n:1", "n:1 n:2049", "n:2049 n:1025"), List.of("r:7", "r:8", "r:9").stream()
                .map(id -> s.relationships().get(id).start() + " " + s.relationships().get(id).end()).toList());
    }

    /**
     * A delta stream of partition 2 of 3 as the writers write it: the header names partition, partitions, state and
     * since, left nodes and relationships come back as {@link ExportLeft} records in place, between the others.
     */
    @ParameterizedTest
    @ClientFormats
    void deltaPartitionStreamsKeepTheirHeaderAndLeftRecords(Format format) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = Encoders.open(format, out);
        w.header(new Header("db", "n:0", "n:", "r:", "s2", 2, 3, "s1"), names());
        w.leftNode(5);
        w.beginNode(7, new int[] {0}, 1);
        w.endNode();
        w.leftRelationship(300);
        w.leftNode(1L << 40);
        w.end(1, 0, true, "s2");
        w.finish();
        for (InputStream in : new InputStream[] {new ByteArrayInputStream(out.toByteArray()),
                Streams.tiny(out.toByteArray())}) {
            try (ExportReader reader = ExportReader.open(format, in)) {
                assertEquals(new ExportHeader(2, "db", "n:0", "s2", 2, 3, "s1"), reader.header());
                assertEquals(new ExportLeft("n:5", true), reader.next());
                assertEquals(new ExportNode("n:7", List.of("L0"), Map.of()), reader.next());
                assertEquals(new ExportLeft("r:300", false), reader.next());
                assertEquals(new ExportLeft("n:" + (1L << 40), true), reader.next());
                assertEquals(new ExportEnd(1, 0, true, 0, "s2"), reader.next());
                assertEquals(null, reader.next());
            }
        }
    }

    static TokenNames names() {
        return new TokenNames() {
            @Override
            public String label(int id) {
                return "L" + id;
            }

            @Override
            public String relationshipType(int id) {
                return "T" + id;
            }

            @Override
            public String propertyKey(int id) {
                return "k" + id;
            }
        };
    }
}
