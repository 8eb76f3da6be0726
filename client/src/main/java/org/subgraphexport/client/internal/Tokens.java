package org.subgraphexport.client.internal;

import java.io.IOException;

/**
 * Tokens in the meaning of jackson-core's {@code JsonParser} (its token and number-type names, the subset of its
 * methods that {@link TokenParser} reads records with): {@link JsonTokens} over JSON text, {@link BsonTokens} over one
 * BSON document. The client's own tokenizers, not jackson-core's parser: measured faster for this job
 * (benchmarks/results/client-decoders.md), and the client jar needs no JSON library.
 */
interface Tokens {
    /** A token: the constants of jackson-core's {@code JsonToken} that the formats produce, by the same names. */
    enum Token {
        START_OBJECT("{"),
        END_OBJECT("}"),
        START_ARRAY("["),
        END_ARRAY("]"),
        FIELD_NAME(null),
        /** BSON binary. */
        VALUE_EMBEDDED_OBJECT(null),
        VALUE_STRING(null),
        VALUE_NUMBER_INT(null),
        VALUE_NUMBER_FLOAT(null),
        VALUE_TRUE("true"),
        VALUE_FALSE("false"),
        VALUE_NULL("null");

        private final String text;

        Token(String text) {
            this.text = text;
        }

        /** The token's fixed text ({@code {}, {@code true}, ...), or null for names, strings, numbers, binaries. */
        String asString() {
            return text;
        }
    }

    /** How a number was written, as jackson-core's {@code JsonParser.NumberType} says it. */
    enum NumberType {
        /** An integer in the int range (JSON), a BSON int32. */
        INT,
        /** An integer in the long range, not the int range (JSON), a BSON int64. */
        LONG,
        /** A JSON integer beyond the long range. */
        BIG_INTEGER,
        /** A JSON number with a fraction or an exponent, a BSON double. */
        DOUBLE
    }

    /** The next token, or null at the end of the input. */
    Token nextToken() throws IOException;

    Token currentToken();

    /** The field name, on a FIELD_NAME token. */
    String currentName() throws IOException;

    /** On START_OBJECT or START_ARRAY: moves to the matching end token; else nothing. */
    void skipChildren() throws IOException;

    String getText() throws IOException;

    NumberType getNumberType() throws IOException;

    long getLongValue() throws IOException;

    double getDoubleValue() throws IOException;

    float getFloatValue() throws IOException;

    /** BSON binary: its bytes, on a VALUE_EMBEDDED_OBJECT token. */
    Object getEmbeddedObject() throws IOException;

    /** JSON: the base64 bytes of a VALUE_STRING; BSON: the bytes of a binary. */
    byte[] getBinaryValue() throws IOException;
}
