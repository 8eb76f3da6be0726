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
import org.subgraphexport.wire.Format;

/**
 * For the measurement behind the client's choice of decoders only (benchmarks/results/client-decoders.md): the
 * {@code json} and {@code bson} decoders with the client's record code ({@link TokenParser}) over a maintained
 * library's parser instead of the client's own tokenizers: jackson-core's {@link JsonParser} (configured as the JSON
 * decoder had it before {@link JsonTokens}, commit 58bf9a9^) and org.mongodb:bson's {@link BsonBinaryReader}, each
 * behind the same {@link Tokens} seam. Valid streams only: the hostile-input rules of the client's tokenizers are not
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
            if (tokens.nextToken() != JsonToken.START_ARRAY) {
                throw corrupt("a JSON export is an array, but it starts with " + tokens.currentToken());
            }
        }

        @Override
        boolean nextRecord() throws IOException {
            JsonToken t = tokens.nextToken();
            if (t == JsonToken.START_OBJECT) {
                return true;
            }
            if (t == null || t == JsonToken.END_ARRAY) {
                return false;
            }
            throw corrupt("a record is an object, not " + t);
        }

        @Override
        void endRecord() {}

        @Override
        void expectEnd() throws IOException {
            JsonToken t = tokens.nextToken();
            if (t != JsonToken.END_ARRAY) {
                throw t == null ? truncated() : corrupt("records after the closing record");
            }
            if (tokens.nextToken() != null) {
                throw corrupt("content after the end of the array");
            }
        }
    }

    /** Jackson's parser as {@link Tokens}: every method delegates. */
    private record JacksonTokens(JsonParser p) implements Tokens {
        public JsonToken nextToken() throws IOException {
            return p.nextToken();
        }

        public JsonToken currentToken() {
            return p.currentToken();
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

        public JsonParser.NumberType getNumberType() throws IOException {
            return p.getNumberType();
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
            JsonToken t = tokens.nextToken();
            if (t == JsonToken.START_OBJECT) {
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
        private JsonToken current;
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
        public JsonToken nextToken() throws IOException {
            if (current == null) {
                if (depth == 0 && name == null && reader.getState() == org.bson.AbstractBsonReader.State.INITIAL) {
                    reader.readStartDocument();
                    arrays[depth++] = false;
                    return current = JsonToken.START_OBJECT;
                }
                return null;
            }
            if (depth == 0) {
                return current = null;
            }
            if (current == JsonToken.FIELD_NAME) {
                return current = value(pendingType);
            }
            BsonType type = reader.readBsonType();
            boolean array = arrays[depth - 1];
            if (type == BsonType.END_OF_DOCUMENT) {
                depth--;
                if (array) {
                    reader.readEndArray();
                    return current = JsonToken.END_ARRAY;
                }
                reader.readEndDocument();
                return current = JsonToken.END_OBJECT;
            }
            if (array) {  // the reader skips an array element's name itself
                name = null;
                return current = value(type);
            }
            name = reader.readName();
            pendingType = type;
            return current = JsonToken.FIELD_NAME;
        }

        private JsonToken value(BsonType type) throws IOException {
            switch (type) {
                case DOUBLE -> {
                    doubleValue = reader.readDouble();
                    return JsonToken.VALUE_NUMBER_FLOAT;
                }
                case STRING -> {
                    text = reader.readString();
                    return JsonToken.VALUE_STRING;
                }
                case DOCUMENT -> {
                    reader.readStartDocument();
                    push(false);
                    return JsonToken.START_OBJECT;
                }
                case ARRAY -> {
                    reader.readStartArray();
                    push(true);
                    return JsonToken.START_ARRAY;
                }
                case BINARY -> {
                    binary = reader.readBinaryData().getData();
                    return JsonToken.VALUE_EMBEDDED_OBJECT;
                }
                case BOOLEAN -> {
                    return reader.readBoolean() ? JsonToken.VALUE_TRUE : JsonToken.VALUE_FALSE;
                }
                case NULL -> {
                    reader.readNull();
                    return JsonToken.VALUE_NULL;
                }
                case INT32 -> {
                    longValue = reader.readInt32();
                    int64 = false;
                    return JsonToken.VALUE_NUMBER_INT;
                }
                case INT64 -> {
                    longValue = reader.readInt64();
                    int64 = true;
                    return JsonToken.VALUE_NUMBER_INT;
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
        public JsonToken currentToken() {
            return current;
        }

        @Override
        public String currentName() {
            return name;
        }

        @Override
        public void skipChildren() throws IOException {
            if (current == JsonToken.START_OBJECT || current == JsonToken.START_ARRAY) {
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
        public JsonParser.NumberType getNumberType() {
            if (current == JsonToken.VALUE_NUMBER_INT) {
                return int64 ? JsonParser.NumberType.LONG : JsonParser.NumberType.INT;
            }
            return current == JsonToken.VALUE_NUMBER_FLOAT ? JsonParser.NumberType.DOUBLE : null;
        }

        @Override
        public long getLongValue() {
            return current == JsonToken.VALUE_NUMBER_INT ? longValue : (long) doubleValue;
        }

        @Override
        public double getDoubleValue() {
            return current == JsonToken.VALUE_NUMBER_INT ? (double) longValue : doubleValue;
        }

        @Override
        public float getFloatValue() {
            return current == JsonToken.VALUE_NUMBER_INT ? (float) longValue : (float) doubleValue;
        }

        @Override
        public Object getEmbeddedObject() {
            return current == JsonToken.VALUE_EMBEDDED_OBJECT ? binary : null;
        }

        @Override
        public byte[] getBinaryValue() throws DecodeException {
            if (current != JsonToken.VALUE_EMBEDDED_OBJECT) {
                throw new DecodeException("expected BSON binary, found " + current);
            }
            return binary;
        }
    }
}
