package org.subgraphexport.client.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.bson.BsonBinaryReader;
import org.bson.BsonType;
import org.subgraphexport.client.ExportParser;
import org.subgraphexport.client.internal.Tokens.NumberType;
import org.subgraphexport.client.internal.Tokens.Token;
import org.subgraphexport.wire.Format;

/**
 * For the measurement behind the client's choice of decoders only (benchmarks/results/client-decoders.md): the
 * {@code json} and {@code bson} decoders with the client's record code ({@link TokenParser}) over a maintained
 * library's parser instead of the client's own tokenizers: jackson-core's {@link JsonParser} (configured as the JSON
 * decoder had it before {@link JsonTokens}, commit 58bf9a9^) and org.mongodb:bson's {@link BsonBinaryReader}, each
 * behind the same {@link Tokens} seam (since the client has its own token enums: jackson-core's mapped to them by
 * ordinal, an array load per token). Valid streams only: the hostile-input rules of the client's tokenizers are not
 * reproduced here.
 */
public final class LibraryDecoders {
    private static final JsonFactory JACKSON = JsonFactory.builder()
            .disable(StreamReadFeature.AUTO_CLOSE_SOURCE)
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxStringLength(JsonTokenParser.MAX_JSON_STRING)
                    .maxNestingDepth(JsonTokenParser.MAX_JSON_DEPTH)
                    .build())
            .build();

    private LibraryDecoders() {}

    /** A started parser for {@code format} (json or bson) over a library's parser. */
    public static ExportParser open(Format format, InputStream in) throws IOException {
        Source source = new Source(in);
        AbstractParser parser = switch (format) {
            case JSON -> new JacksonJson(source, new JacksonTokens(JACKSON.createParser(source)));
            case BSON -> new MongoBson(source, new MongoBsonTokens());
            default -> throw new IllegalArgumentException(format.pathSegment());
        };
        parser.start();
        return parser;
    }

    /** {@link JsonTokenParser}'s framing over Jackson's tokens. */
    private static final class JacksonJson extends TokenParser {
        private final Tokens tokens;

        JacksonJson(Source source, Tokens tokens) {
            super(Format.JSON, source, tokens);
            this.tokens = tokens;
        }

        @Override
        void startStream() throws IOException {
            if (tokens.nextToken() != Token.START_ARRAY) {
                throw corrupt("a JSON export is an array, but it starts with " + tokens.currentToken());
            }
        }

        @Override
        boolean nextRecord() throws IOException {
            Token t = tokens.nextToken();
            if (t == Token.START_OBJECT) {
                return true;
            }
            if (t == null || t == Token.END_ARRAY) {
                return false;
            }
            throw corrupt("a record is an object, not " + t);
        }

        @Override
        void endRecord() {}

        @Override
        void expectEnd() throws IOException {
            Token t = tokens.nextToken();
            if (t != Token.END_ARRAY) {
                throw t == null ? truncated() : corrupt("records after the closing record");
            }
            if (tokens.nextToken() != null) {
                throw corrupt("content after the end of the array");
            }
        }
    }

    /** jackson-core's tokens and number types as the seam's (the same names), by ordinal. */
    private static final Token[] TOKENS = new Token[JsonToken.values().length];
    private static final NumberType[] NUMBER_TYPES = new NumberType[JsonParser.NumberType.values().length];

    static {
        for (Token t : Token.values()) {
            TOKENS[JsonToken.valueOf(t.name()).ordinal()] = t;
        }
        for (NumberType t : NumberType.values()) {
            NUMBER_TYPES[JsonParser.NumberType.valueOf(t.name()).ordinal()] = t;
        }
    }

    /** Jackson's parser as {@link Tokens}: every method delegates (tokens and number types mapped by ordinal). */
    private record JacksonTokens(JsonParser p) implements Tokens {
        public Token nextToken() throws IOException {
            JsonToken t = p.nextToken();
            return t == null ? null : TOKENS[t.ordinal()];
        }

        public Token currentToken() {
            JsonToken t = p.currentToken();
            return t == null ? null : TOKENS[t.ordinal()];
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
            JsonParser.NumberType t = p.getNumberType();
            return t == null ? null : NUMBER_TYPES[t.ordinal()];
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
    }

    /** {@link BsonTokenParser}'s framing: one document per record, read whole, then one reader over it. */
    private static final class MongoBson extends TokenParser {
        private final Source source;
        private final MongoBsonTokens tokens;
        private byte[] document = new byte[1 << 12];

        MongoBson(Source source, MongoBsonTokens tokens) {
            super(Format.BSON, source, tokens);
            this.source = source;
            this.tokens = tokens;
        }

        /** The next document into {@link #document}, or false at the end of the input. */
        private boolean nextDocument() throws IOException {
            int n = source.readNBytes(document, 0, 4);
            if (n == 0) {
                return false;
            }
            if (n < 4) {
                throw new EOFException("BSON input ends inside a document's length");
            }
            int length = ByteBuffer.wrap(document, 0, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
            if (length < 5 || length > org.subgraphexport.wire.Wire.MAX_LENGTH) {
                throw corrupt("BSON document length " + length);
            }
            if (length > document.length) {
                byte[] bigger = new byte[Math.max(length, document.length * 2)];
                System.arraycopy(document, 0, bigger, 0, 4);
                document = bigger;
            }
            if (source.readNBytes(document, 4, length - 4) != length - 4) {
                throw new EOFException("BSON input ends inside a document");
            }
            tokens.reset(ByteBuffer.wrap(document, 0, length).order(ByteOrder.LITTLE_ENDIAN));
            return true;
        }

        @Override
        void startStream() {}

        @Override
        boolean nextRecord() throws IOException {
            if (!nextDocument()) {
                return false;
            }
            Token t = tokens.nextToken();
            if (t == Token.START_OBJECT) {
                return true;
            }
            throw corrupt("a record is an object, not " + t);
        }

        @Override
        void endRecord() throws IOException {
            if (tokens.nextToken() != null) {
                throw corrupt("a BSON document holds more than one record object");
            }
        }

        @Override
        void expectEnd() throws IOException {
            if (nextDocument()) {
                throw corrupt("documents after the closing record");
            }
        }
    }

    /** org.bson's {@link BsonBinaryReader} over one document at a time, as {@link Tokens} like {@link BsonTokens}. */
    private static final class MongoBsonTokens implements Tokens {
        private BsonBinaryReader reader;
        private int depth;
        /** Whether each open container (below {@link #depth}) is an array. */
        private boolean[] arrays = new boolean[64];
        private Token current;
        private BsonType pendingType;
        private String name;
        private String text;
        private long longValue;
        private boolean int64;
        private double doubleValue;
        private byte[] binary;

        void reset(ByteBuffer document) {
            reader = new BsonBinaryReader(document);
            depth = 0;
            current = null;
            name = null;
        }

        @Override
        public Token nextToken() throws IOException {
            if (current == null) {
                if (depth == 0 && name == null && reader.getState() == org.bson.AbstractBsonReader.State.INITIAL) {
                    reader.readStartDocument();
                    arrays[depth++] = false;
                    return current = Token.START_OBJECT;
                }
                return null;
            }
            if (depth == 0) {
                return current = null;
            }
            if (current == Token.FIELD_NAME) {
                return current = value(pendingType);
            }
            BsonType type = reader.readBsonType();
            boolean array = arrays[depth - 1];
            if (type == BsonType.END_OF_DOCUMENT) {
                depth--;
                if (array) {
                    reader.readEndArray();
                    return current = Token.END_ARRAY;
                }
                reader.readEndDocument();
                return current = Token.END_OBJECT;
            }
            if (array) {  // the reader skips an array element's name itself
                name = null;
                return current = value(type);
            }
            name = reader.readName();
            pendingType = type;
            return current = Token.FIELD_NAME;
        }

        private Token value(BsonType type) throws IOException {
            switch (type) {
                case DOUBLE -> {
                    doubleValue = reader.readDouble();
                    return Token.VALUE_NUMBER_FLOAT;
                }
                case STRING -> {
                    text = reader.readString();
                    return Token.VALUE_STRING;
                }
                case DOCUMENT -> {
                    reader.readStartDocument();
                    push(false);
                    return Token.START_OBJECT;
                }
                case ARRAY -> {
                    reader.readStartArray();
                    push(true);
                    return Token.START_ARRAY;
                }
                case BINARY -> {
                    binary = reader.readBinaryData().getData();
                    return Token.VALUE_EMBEDDED_OBJECT;
                }
                case BOOLEAN -> {
                    return reader.readBoolean() ? Token.VALUE_TRUE : Token.VALUE_FALSE;
                }
                case NULL -> {
                    reader.readNull();
                    return Token.VALUE_NULL;
                }
                case INT32 -> {
                    longValue = reader.readInt32();
                    int64 = false;
                    return Token.VALUE_NUMBER_INT;
                }
                case INT64 -> {
                    longValue = reader.readInt64();
                    int64 = true;
                    return Token.VALUE_NUMBER_INT;
                }
                default -> throw new DecodeException("BSON element type " + type);
            }
        }

        private void push(boolean array) {
            if (depth == arrays.length) {
                arrays = java.util.Arrays.copyOf(arrays, depth * 2);
            }
            arrays[depth++] = array;
        }

        @Override
        public Token currentToken() {
            return current;
        }

        @Override
        public String currentName() {
            return name;
        }

        @Override
        public void skipChildren() throws IOException {
            if (current == Token.START_OBJECT || current == Token.START_ARRAY) {
                for (int outside = depth - 1; depth > outside; ) {
                    nextToken();
                }
            }
        }

        @Override
        public String getText() {
            if (current == null) {
                return null;
            }
            return switch (current) {
                case VALUE_STRING -> text;
                case FIELD_NAME -> name;
                case VALUE_NUMBER_INT -> String.valueOf(longValue);
                case VALUE_NUMBER_FLOAT -> String.valueOf(doubleValue);
                case VALUE_TRUE -> "true";
                case VALUE_FALSE -> "false";
                default -> null;
            };
        }

        @Override
        public NumberType getNumberType() {
            if (current == Token.VALUE_NUMBER_INT) {
                return int64 ? NumberType.LONG : NumberType.INT;
            }
            return current == Token.VALUE_NUMBER_FLOAT ? NumberType.DOUBLE : null;
        }

        @Override
        public long getLongValue() {
            return current == Token.VALUE_NUMBER_INT ? longValue : (long) doubleValue;
        }

        @Override
        public double getDoubleValue() {
            return current == Token.VALUE_NUMBER_INT ? (double) longValue : doubleValue;
        }

        @Override
        public float getFloatValue() {
            return current == Token.VALUE_NUMBER_INT ? (float) longValue : (float) doubleValue;
        }

        @Override
        public Object getEmbeddedObject() {
            return current == Token.VALUE_EMBEDDED_OBJECT ? binary : null;
        }

        @Override
        public byte[] getBinaryValue() throws DecodeException {
            if (current != Token.VALUE_EMBEDDED_OBJECT) {
                throw new DecodeException("expected BSON binary, found " + current);
            }
            return binary;
        }
    }
}
