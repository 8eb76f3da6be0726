package org.subgraphexport.client.internal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * Tokens in the meaning of Jackson's {@code JsonParser}, as {@link TokenParser} reads records from them:
 * {@link JsonTokens} over JSON text, {@link BsonTokens} over one BSON document.
 */
interface Tokens {
    /** The next token, or null at the end of the input. */
    JsonToken nextToken() throws IOException;

    JsonToken currentToken();

    /** The field name, on a FIELD_NAME token. */
    String currentName() throws IOException;

    /** On START_OBJECT or START_ARRAY: moves to the matching end token; else nothing. */
    void skipChildren() throws IOException;

    String getText() throws IOException;

    JsonParser.NumberType getNumberType() throws IOException;

    long getLongValue() throws IOException;

    double getDoubleValue() throws IOException;

    float getFloatValue() throws IOException;

    /** BSON binary: its bytes, on a VALUE_EMBEDDED_OBJECT token. */
    Object getEmbeddedObject() throws IOException;

    /** JSON: the base64 bytes of a VALUE_STRING; BSON: the bytes of a binary. */
    byte[] getBinaryValue() throws IOException;
}
