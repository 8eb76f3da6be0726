package org.subgraphexport.client.internal;

import java.io.IOException;
import org.subgraphexport.client.internal.Tokens.Token;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.Wire;

/**
 * Decodes the {@code json} format: one JSON array of record objects, read by one {@link JsonTokens} (the project's
 * own strict RFC 8259 tokenizer, no Jackson parser) over the whole stream.
 */
final class JsonTokenParser extends TokenParser {
    /** JSON nesting the deepest valid row needs (lists and maps {@link Wire#MAX_NESTING} deep), with room. */
    static final int MAX_JSON_DEPTH = 2 * Wire.MAX_NESTING + 16;

    /** Longest JSON string value, in chars: the base64 of the longest byte array. */
    static final int MAX_JSON_STRING = (Wire.MAX_LENGTH / 3 + 1) * 4;

    private final JsonTokens tokens;

    JsonTokenParser(Source source) {
        this(source, new JsonTokens(source, MAX_JSON_DEPTH, MAX_JSON_STRING));
    }

    private JsonTokenParser(Source source, JsonTokens tokens) {
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
        if (t == Token.END_ARRAY) {
            return false;  // the caller says the stream ends without its closing record
        }
        // never null: inside the array JsonTokens returns a token or throws (EOFException if the input ends)
        throw corrupt("a record is an object, not " + t);
    }

    @Override
    void expectEnd() throws IOException {
        Token t = tokens.nextToken();
        if (t != Token.END_ARRAY) {  // never null, as in nextRecord
            throw corrupt("records after the closing record");
        }
        if (tokens.nextToken() != null) {
            throw corrupt("content after the end of the array");
        }
    }
}
