package org.subgraphexport.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.subgraphexport.client.Streams.assertSubgraph;
import static org.subgraphexport.client.Streams.decode;
import static org.subgraphexport.client.Streams.decodeTiny;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.subgraphexport.encode.Encoders;
import org.subgraphexport.encode.FixtureStream;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.TokenNames;

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
