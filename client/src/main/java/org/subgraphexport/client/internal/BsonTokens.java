package org.subgraphexport.client.internal;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The tokens of one BSON document at a time, read directly from the buffer of {@link BsonDocuments} (which has
 * checked its structure: every length fits, only the writer's element types occur, names and strings are
 * terminated, booleans are 0 or 1, binaries are subtype 0). One instance per reader, {@link #reset} per document:
 * no allocation per document, none per field name either (names recur; a small cache keeps their Strings).
 *
 * <p>Tokens as bson4jackson's {@code BsonParser} gives them: a document is START_OBJECT, then FIELD_NAME and value
 * per element, then END_OBJECT; an array is START_ARRAY, its element values (their names "0", "1", ... are
 * skipped, as bson4jackson does), END_ARRAY; double is VALUE_NUMBER_FLOAT ({@code DOUBLE}), int32 and int64 are
 * VALUE_NUMBER_INT ({@code INT}, {@code LONG}), binary is VALUE_EMBEDDED_OBJECT holding a {@code byte[]}. Field
 * names and strings are UTF-8 decoded strictly: malformed UTF-8 is corrupt, as with bson4jackson (the JDK's UTF-8
 * decoder in both).
 */
final class BsonTokens implements Tokens {
    private static final int NAME_SLOTS = 512;
    private static final int NAME_PROBES = 4;
    /** Longest field name (in bytes) cached. */
    private static final int MAX_CACHED_NAME = 64;

    private byte[] d;
    private int pos;
    private boolean started;
    /**
     * Open documents and arrays: whether each is an array. Where each ends needs no record: BsonDocuments checked
     * that each one's terminating 0x00 is where its length says.
     */
    private boolean[] arrays = new boolean[16];
    private int depth;

    private Token current;
    /** Element type of the value after the current FIELD_NAME. */
    private int pendingType;
    private String name;
    private String text;
    private long longValue;
    /** Whether the current VALUE_NUMBER_INT was an int64 (number type LONG) rather than an int32 (INT). */
    private boolean int64;
    private double doubleValue;
    private byte[] binary;

    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder();  // reports malformed input
    /** String values of up to 16 ASCII bytes seen before (labels, types, enum-like values): one String each. */
    private final ShortStrings shortValues = ShortStrings.seeded();
    private final byte[][] nameBytes = new byte[NAME_SLOTS][];
    private final String[] names = new String[NAME_SLOTS];

    /**
     * Starts on the document at the start of {@code document}, checked by {@link BsonDocuments} (which leaves
     * {@link BsonDocuments#PADDING} readable bytes after it, as {@link ShortStrings} needs).
     */
    void reset(byte[] document) {
        d = document;
        pos = 0;
        started = false;
        depth = 0;
        current = null;
        name = null;
        text = null;
        binary = null;
    }

    @Override
    public Token nextToken() throws DecodeException {
        if (depth == 0) {
            if (started) {
                return current = null;  // after the document's END_OBJECT
            }
            started = true;
            push(false);
            pos = 4;
            return current = Token.START_OBJECT;
        }
        if (current == Token.FIELD_NAME) {
            return current = value(pendingType);
        }
        int type = d[pos++];
        if (type == 0) {
            depth--;
            return current = arrays[depth] ? Token.END_ARRAY : Token.END_OBJECT;
        }
        int nameStart = pos;
        while (d[pos] != 0) {
            pos++;
        }
        int nameEnd = pos++;
        if (arrays[depth - 1]) {
            name = null;
            return current = value(type);
        }
        name = name(nameStart, nameEnd);
        pendingType = type;
        return current = Token.FIELD_NAME;
    }

    private Token value(int type) throws DecodeException {
        byte[] b = d;
        int p = pos;
        switch (type) {
            case 0x01 -> {                                            // double
                doubleValue = Double.longBitsToDouble(int64(b, p));
                pos = p + 8;
                return Token.VALUE_NUMBER_FLOAT;
            }
            case 0x02 -> {                                            // string: int32 length incl. 0x00
                int n = int32(b, p);
                if (n < 1) {
                    throw new DecodeException("BSON string length " + n);
                }
                text = n == 1 ? "" : n - 1 <= ShortStrings.MAX_LENGTH && ascii(b, p + 4, p + 4 + n - 1)
                        ? shortValues.get(b, p + 4, n - 1) : utf8(p + 4, p + 4 + n - 1);
                pos = p + 4 + n;
                return Token.VALUE_STRING;
            }
            case 0x03, 0x04 -> {                                      // document, array
                push(type == 0x04);
                pos = p + 4;
                return type == 0x04 ? Token.START_ARRAY : Token.START_OBJECT;
            }
            case 0x05 -> {                                            // binary: int32 length, subtype, bytes
                int n = int32(b, p);
                binary = Arrays.copyOfRange(b, p + 5, p + 5 + n);
                pos = p + 5 + n;
                return Token.VALUE_EMBEDDED_OBJECT;
            }
            case 0x08 -> {                                            // boolean
                pos = p + 1;
                return b[p] != 0 ? Token.VALUE_TRUE : Token.VALUE_FALSE;
            }
            case 0x0A -> {                                            // null
                return Token.VALUE_NULL;
            }
            case 0x10 -> {                                            // int32
                longValue = int32(b, p);
                int64 = false;
                pos = p + 4;
                return Token.VALUE_NUMBER_INT;
            }
            case 0x12 -> {                                            // int64
                longValue = int64(b, p);
                int64 = true;
                pos = p + 8;
                return Token.VALUE_NUMBER_INT;
            }
            default -> throw new DecodeException(String.format("BSON element type 0x%02x", type & 0xFF));
        }
    }

    private void push(boolean array) {
        if (depth == arrays.length) {
            arrays = Arrays.copyOf(arrays, depth * 2);
        }
        arrays[depth++] = array;
    }

    /** The field name in {@code d[start..end)}: the cached String for bytes seen before. */
    private String name(int start, int end) throws DecodeException {
        int length = end - start;
        if (length > MAX_CACHED_NAME) {
            return utf8(start, end);
        }
        byte[] b = d;
        int h = length;
        for (int i = start; i < end; i++) {
            h = 31 * h + b[i];
        }
        int first = (h * 0x9E3779B9) >>> (Integer.SIZE - Integer.numberOfTrailingZeros(NAME_SLOTS));
        int free = -1;
        for (int i = 0, s = first; i < NAME_PROBES; i++, s = (s + 1) & (NAME_SLOTS - 1)) {
            byte[] k = nameBytes[s];
            if (k == null) {
                free = s;
                break;
            }
            if (k.length == length && Arrays.equals(k, 0, length, b, start, end)) {
                return names[s];
            }
        }
        String n = utf8(start, end);
        int s = free >= 0 ? free : first;
        nameBytes[s] = Arrays.copyOfRange(b, start, end);
        names[s] = n;
        return n;
    }

    private static boolean ascii(byte[] b, int start, int end) {
        for (int i = start; i < end; i++) {
            if (b[i] < 0) {
                return false;
            }
        }
        return true;
    }

    /** Strict UTF-8: ASCII copied directly, anything else through the JDK's decoder, which reports malformed input. */
    private String utf8(int start, int end) throws DecodeException {
        byte[] b = d;
        if (ascii(b, start, end)) {
            return new String(b, start, end - start, StandardCharsets.ISO_8859_1);
        }
        try {
            return utf8.decode(ByteBuffer.wrap(b, start, end - start)).toString();
        } catch (CharacterCodingException e) {
            throw new DecodeException("malformed UTF-8 in a BSON string: " + e);
        }
    }

    private static int int32(byte[] b, int i) {
        return (b[i] & 0xFF) | (b[i + 1] & 0xFF) << 8 | (b[i + 2] & 0xFF) << 16 | (b[i + 3] & 0xFF) << 24;
    }

    private static long int64(byte[] b, int i) {
        return (int32(b, i) & 0xFFFFFFFFL) | (long) int32(b, i + 4) << 32;
    }

    // ---- the current token --------------------------------------------------------------------------------

    @Override
    public Token currentToken() {
        return current;
    }

    @Override
    public String currentName() {
        return name;
    }

    /** Token by token, as bson4jackson does: names and strings inside are decoded, so malformed UTF-8 fails. */
    @Override
    public void skipChildren() throws DecodeException {
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
    public long getLongValue() throws DecodeException {
        return switch (number()) {
            case VALUE_NUMBER_INT -> longValue;
            default -> (long) doubleValue;
        };
    }

    @Override
    public double getDoubleValue() throws DecodeException {
        return switch (number()) {
            case VALUE_NUMBER_INT -> (double) longValue;
            default -> doubleValue;
        };
    }

    @Override
    public float getFloatValue() throws DecodeException {
        return switch (number()) {
            case VALUE_NUMBER_INT -> (float) longValue;
            default -> (float) doubleValue;
        };
    }

    private Token number() throws DecodeException {
        if (current != Token.VALUE_NUMBER_INT && current != Token.VALUE_NUMBER_FLOAT) {
            throw new DecodeException("expected a number, found " + current);
        }
        return current;
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
