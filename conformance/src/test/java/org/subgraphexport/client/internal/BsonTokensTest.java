package org.subgraphexport.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.core.JsonParser;
import de.undercouch.bson4jackson.BsonFactory;
import de.undercouch.bson4jackson.BsonParser;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.subgraphexport.client.DecoderFuzzTest;
import org.subgraphexport.client.internal.Tokens.NumberType;
import org.subgraphexport.client.internal.Tokens.Token;
import org.subgraphexport.wire.Format;

/**
 * {@link BsonTokens} against bson4jackson's {@link BsonParser} (what the BSON decoder used before, one parser per
 * document): the same tokens, names, strings, numbers (number types, and values as long, double and float, bit for
 * bit), binaries, and failures, on every document of the valid streams and of seeded mutations of them (those
 * that pass {@link BsonDocuments}' check, as every document the decoder parses does), with skipChildren taken at
 * random.
 */
class BsonTokensTest {
    private static final BsonFactory BSON = new BsonFactory();

    static {
        BSON.enable(BsonParser.Feature.HONOR_DOCUMENT_LENGTH);
        BSON.disable(JsonParser.Feature.AUTO_CLOSE_SOURCE);
    }

    private final BsonTokens ours = new BsonTokens();  // one for all documents, as in the decoder
    private final Map<String, Integer> outcomes = new TreeMap<>();

    @Test
    void sameTokensAsBson4jacksonOnValidAndMutatedDocuments() throws IOException {
        List<byte[]> corpus = DecoderFuzzTest.corpus(Format.BSON);
        Random random = new Random(20250101);
        for (byte[] stream : corpus) {
            compareDocuments(stream, random);
        }
        int cases = 20_000;
        for (int i = 0; i < cases; i++) {
            long seed = DecoderFuzzTest.caseSeed(77, Format.BSON, i);
            compareDocuments(DecoderFuzzTest.mutate(Format.BSON, corpus, seed).bytes(), new Random(seed));
        }
        System.out.println("BsonTokensTest: " + cases + " mutated streams, documents compared: " + outcomes);
        assertTrue(outcomes.getOrDefault("threw", 0) > 100, "mutations reach strings and names: " + outcomes);
        assertTrue(outcomes.getOrDefault("complete", 0) > 10_000, outcomes::toString);
    }

    /** Compares every document of {@code stream} that passes the check, up to the first that does not. */
    private void compareDocuments(byte[] stream, Random random) throws IOException {
        BsonDocuments documents = new BsonDocuments(new ByteArrayInputStream(stream));
        while (true) {
            byte[] doc;
            try {
                doc = documents.next();
            } catch (IOException e) {
                return;  // the decoder stops here too: corrupt or truncated
            }
            if (doc == null) {
                return;
            }
            int length = documents.length();
            ours.reset(doc);
            JsonParser parser = BSON.createParser(new ByteArrayInputStream(doc.clone(), 0, length));
            compare(of(parser), ours, random, HexFormat.of().formatHex(doc, 0, Math.min(length, 400)));
            parser.close();
        }
    }

    private void compare(Tokens reference, Tokens actual, Random random, String doc) {
        for (int step = 0; ; step++) {
            boolean skip = (reference.currentToken() == Token.START_OBJECT
                    || reference.currentToken() == Token.START_ARRAY) && random.nextInt(4) == 0;
            String expected = observe(reference, skip);
            String observed = observe(actual, skip);
            if (!expected.equals(observed)) {
                fail("step " + step + (skip ? " (skipChildren)" : "") + ": bson4jackson " + expected + ", ours "
                        + observed + " in document " + doc);
            }
            if (expected.equals("threw") || expected.equals("null")) {
                outcomes.merge(expected.equals("null") ? "complete" : "threw", 1, Integer::sum);
                return;
            }
        }
    }

    /** One step (nextToken, or skipChildren) and everything there is to see about the token it ends on. */
    private static String observe(Tokens t, boolean skip) {
        try {
            if (skip) {
                t.skipChildren();
            } else {
                t.nextToken();
            }
            Token token = t.currentToken();
            if (token == null) {
                return "null";
            }
            StringBuilder sb = new StringBuilder(token.name());
            switch (token) {
                case FIELD_NAME -> sb.append(' ').append(t.currentName());
                case VALUE_STRING -> sb.append(' ').append(t.getText());
                case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> sb.append(' ').append(t.getNumberType())
                        .append(' ').append(t.getLongValue())
                        .append(' ').append(Double.doubleToRawLongBits(t.getDoubleValue()))
                        .append(' ').append(Float.floatToRawIntBits(t.getFloatValue()));
                case VALUE_EMBEDDED_OBJECT -> sb.append(' ').append(HexFormat.of().formatHex((byte[]) t.getEmbeddedObject()))
                        .append(' ').append(HexFormat.of().formatHex(t.getBinaryValue()));
                default -> { }
            }
            return sb.toString();
        } catch (IOException | RuntimeException e) {
            return "threw";
        }
    }

    @Test
    void malformedUtf8InANameOrStringIsAnError() throws IOException {
        // {"k\xff": "v"} and {"k": "\xc3("}
        byte[][] docs = {
            {15, 0, 0, 0, 0x02, 'k', (byte) 0xff, 0, 2, 0, 0, 0, 'v', 0, 0},
            {15, 0, 0, 0, 0x02, 'k', 0, 3, 0, 0, 0, (byte) 0xc3, '(', 0, 0},
        };
        for (byte[] doc : docs) {
            BsonDocuments documents = new BsonDocuments(new ByteArrayInputStream(doc));
            byte[] d = documents.next();
            ours.reset(d);
            compare(of(BSON.createParser(doc)), ours, new Random(1), HexFormat.of().formatHex(doc));
        }
        assertEquals(Map.of("threw", 2), outcomes);
    }

    /** Jackson's token as the decoder's {@link Token} of the same name. */
    private static Token token(com.fasterxml.jackson.core.JsonToken t) {
        return t == null ? null : Token.valueOf(t.name());
    }

    /** bson4jackson's parser as the decoder's {@link Tokens}, which {@link BsonTokens} implements. */
    private static Tokens of(JsonParser p) {
        return new Tokens() {
            public Token nextToken() throws IOException {
                return token(p.nextToken());
            }

            public Token currentToken() {
                return token(p.currentToken());
            }

            public String currentName() throws IOException {
                return p.currentName();
            }

            public void skipChildren() throws IOException {
                p.skipChildren();
            }

            public String getText() throws IOException {
                return p.getText();
            }

            public NumberType getNumberType() throws IOException {
                JsonParser.NumberType type = p.getNumberType();
                return type == null ? null : NumberType.valueOf(type.name());
            }

            public long getLongValue() throws IOException {
                return p.getLongValue();
            }

            public double getDoubleValue() throws IOException {
                return p.getDoubleValue();
            }

            public float getFloatValue() throws IOException {
                return p.getFloatValue();
            }

            public Object getEmbeddedObject() throws IOException {
                return p.getEmbeddedObject();
            }

            public byte[] getBinaryValue() throws IOException {
                return p.getBinaryValue();
            }
        };
    }
}
