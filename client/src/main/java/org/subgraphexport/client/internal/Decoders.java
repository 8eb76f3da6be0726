package org.subgraphexport.client.internal;

import com.ning.compress.lzf.LZFInputStream;
import com.ning.compress.lzf.util.ChunkDecoderFactory;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;
import org.subgraphexport.client.ContentEncodings;
import org.subgraphexport.client.CorruptStreamException;
import org.subgraphexport.client.ExportParser;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.ExportRequestException;
import org.subgraphexport.client.internal.Tokens.Token;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.Wire;

/**
 * The decoders behind {@link ExportParser}'s and {@link ExportReader}'s {@code open} methods: one per format, over a {@link Source} of the
 * caller's stream; the format detected from the first bytes, or taken from an HTTP response's Content-Type.
 */
public final class Decoders {
    /** Most leading JSON whitespace (after an optional byte order mark) detection looks through. */
    static final int MAX_LEADING_WHITESPACE = 4096;
    /** Most bytes of an error response body read for its code and message. */
    static final int MAX_ERROR_BODY = 64 * 1024;
    /** Most characters of a non-JSON error body kept as the exception's message. */
    static final int MAX_ERROR_TEXT = 1000;
    /** Deepest JSON an error body is read through (jackson-core's default nesting limit). */
    private static final int MAX_ERROR_DEPTH = 1000;

    /** A BSON record document: int32 length, then element type 0x02 (string) named "record". */
    private static final byte[] BSON_FIRST_ELEMENT = bsonFirstElement();

    private Decoders() {}

    /** {@link ExportParser#open(Format, InputStream)}. */
    public static ExportParser open(Format format, InputStream in) throws IOException {
        return start(format, new Source(in));
    }

    /** {@link ExportParser#open(InputStream)}: the format detected from the first bytes. */
    public static ExportParser open(InputStream in) throws IOException {
        Source source = new Source(in);
        Format format;
        try {
            format = detect(source);
        } catch (IOException | RuntimeException e) {
            closeAfter(e, source);
            throw e;
        }
        return start(format, source);
    }

    /** {@link ExportParser#open(HttpResponse)}. */
    public static ExportParser open(HttpResponse<InputStream> response) throws IOException {
        InputStream body = response.body();
        int status = response.statusCode();
        if (status < 200 || status > 299) {
            ExportRequestException e = refused(status, body);
            closeAfter(e, body);
            throw e;
        }
        InputStream decoded;
        try {
            decoded = ContentEncodings.decode(response.headers().firstValue("Content-Encoding").orElse(null), body);
        } catch (IOException e) {
            closeAfter(e, body);
            throw e;
        }
        Optional<Format> format = response.headers().firstValue("Content-Type").flatMap(Decoders::ofMediaType);
        return format.isPresent() ? open(format.get(), decoded) : open(decoded);
    }

    private static ExportParser start(Format format, Source source) throws IOException {
        AbstractParser parser = switch (format) {
            case JSON -> new JsonTokenParser(source);
            case BSON -> new BsonTokenParser(source);
            case KRYO -> new KryoParser(format, source, source);
            case KRYO_LZF -> new KryoParser(format, source,
                    new LZFInputStream(ChunkDecoderFactory.safeInstance(), source));
            case ARROW -> throw new IllegalArgumentException(
                    "the Java client decodes the record formats; read an arrow stream with an Arrow reader (pyarrow)");
        };
        parser.start();
        return parser;
    }

    /** The format whose media type {@code contentType} names (parameters and case ignored), if any. */
    static Optional<Format> ofMediaType(String contentType) {
        int semicolon = contentType.indexOf(';');
        String type = (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).strip()
                .toLowerCase(Locale.ROOT);
        for (Format f : Format.values()) {
            if (f.mediaType().equals(type)) {
                return Optional.of(f);
            }
        }
        return Optional.empty();
    }

    /**
     * The format of the stream in {@code source}, from its first bytes, none of them consumed. BSON is tried first
     * (a header document whose length happens to begin with 'S' 'G' 'X', 'Z' 'V' or '[' is still BSON), then the
     * Kryo magic, the LZF chunk signature, and JSON's '['. No valid stream of one format looks like another's.
     */
    static Format detect(Source source) throws IOException {
        if (isBson(source)) {
            return Format.BSON;
        }
        int b0 = source.peek(0);
        if (b0 < 0) {
            throw new CorruptStreamException("empty stream (0 bytes read): no export format to detect");
        }
        if (b0 == Wire.MAGIC_0 && source.peek(1) == Wire.MAGIC_1 && source.peek(2) == Wire.MAGIC_2) {
            return Format.KRYO;
        }
        if (b0 == 'Z' && source.peek(1) == 'V') {  // every LZF chunk starts so
            return Format.KRYO_LZF;
        }
        int i = 0;
        if (b0 == 0xEF && source.peek(1) == 0xBB && source.peek(2) == 0xBF) {
            i = 3;  // a UTF-8 byte order mark, which the JSON decoder skips
        }
        for (int end = i + MAX_LEADING_WHITESPACE; i < end; i++) {
            int c = source.peek(i);
            if (c == '[') {
                return Format.JSON;
            }
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                break;
            }
        }
        throw new CorruptStreamException("not an export stream: it starts with " + hex(source.peeked(16))
                + ", none of kryo ('SGX'), kryo-lzf ('ZV'), json ('[') or bson (a document whose first element is "
                + "the string '" + Wire.Json.RECORD + "')");
    }

    private static boolean isBson(Source source) throws IOException {
        for (int i = 0; i < BSON_FIRST_ELEMENT.length; i++) {
            if (source.peek(4 + i) != (BSON_FIRST_ELEMENT[i] & 0xFF)) {
                return false;
            }
        }
        return true;
    }

    private static byte[] bsonFirstElement() {
        byte[] name = Wire.Json.RECORD.getBytes(StandardCharsets.UTF_8);
        byte[] b = new byte[name.length + 2];
        b[0] = 0x02;  // BSON element type: string
        System.arraycopy(name, 0, b, 1, name.length);
        return b;  // the name's terminating NUL is the last byte
    }

    private static String hex(byte[] bytes) {
        StringBuilder sb = new StringBuilder();
        for (byte b : bytes) {
            sb.append(sb.length() == 0 ? "" : " ").append(String.format("%02x", b & 0xFF));
        }
        return bytes.length == 0 ? "(nothing)" : sb.toString();
    }

    /**
     * The exception for an error response: its JSON body's code and message (the extension's
     * {@code {"status","code","message"}}, or Neo4j's {@code {"errors":[{"code","message"}]}}), else its text.
     */
    public static ExportRequestException refused(int status, InputStream body) {
        byte[] bytes;
        try {
            bytes = body == null ? new byte[0] : body.readNBytes(MAX_ERROR_BODY);
        } catch (IOException e) {
            ExportRequestException refused = new ExportRequestException(status, null,
                    "HTTP " + status + "; the error body could not be read: " + e);
            refused.addSuppressed(e);
            return refused;
        }
        String[] codeAndMessage = codeAndMessage(bytes);
        if (codeAndMessage != null) {
            return new ExportRequestException(status, codeAndMessage[0], codeAndMessage[1]);
        }
        String text = new String(bytes, StandardCharsets.UTF_8).strip();
        if (text.length() > MAX_ERROR_TEXT) {
            text = text.substring(0, MAX_ERROR_TEXT) + "...";
        }
        return new ExportRequestException(status, null, text.isEmpty() ? "HTTP " + status : text);
    }

    /** {code, message} of a JSON error body (message "" if absent), or null if it is not one. */
    private static String[] codeAndMessage(byte[] body) {
        JsonTokens p = new JsonTokens(new ByteArrayInputStream(body), MAX_ERROR_DEPTH, MAX_ERROR_BODY);
        try {
            if (p.nextToken() != Token.START_OBJECT) {
                return null;
            }
            String[] found = new String[2];
            while (p.nextToken() == Token.FIELD_NAME) {
                String field = p.currentName();
                if (p.nextToken() == Token.START_ARRAY && "errors".equals(field)) {
                    // Neo4j's {"errors":[{"code":"...","message":"..."}, ...]}: the first error
                    if (p.nextToken() == Token.START_OBJECT && found[0] == null) {
                        codeAndMessageFields(p, found);
                    }
                    while (p.currentToken() != Token.END_ARRAY) {
                        p.skipChildren();
                        if (p.nextToken() == null) {
                            return null;
                        }
                    }
                } else {
                    codeAndMessageField(p, field, found);
                }
            }
            return found[0] == null && found[1] == null ? null
                    : new String[] {found[0], found[1] == null ? "" : found[1]};
        } catch (IOException | RuntimeException e) {
            return null;  // not JSON, or cut off: the caller uses the text
        }
    }

    /** Reads the fields of the object {@code p} is on (its START_OBJECT) up to its END_OBJECT. */
    private static void codeAndMessageFields(JsonTokens p, String[] found) throws IOException {
        while (p.nextToken() == Token.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            codeAndMessageField(p, field, found);
        }
    }

    /** Takes a string value of a field {@code code} or {@code message}; skips any other value. */
    private static void codeAndMessageField(JsonTokens p, String field, String[] found) throws IOException {
        if (p.currentToken() == Token.VALUE_STRING && "code".equals(field)) {
            found[0] = p.getText();
        } else if (p.currentToken() == Token.VALUE_STRING && "message".equals(field)) {
            found[1] = p.getText();
        } else {
            p.skipChildren();
        }
    }

    private static void closeAfter(Exception e, InputStream in) {
        if (in == null) {
            return;
        }
        try {
            in.close();
        } catch (IOException suppressed) {
            e.addSuppressed(suppressed);
        }
    }
}
