package org.subgraphexport.client.internal;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The tokens of a JSON stream read straight from its UTF-8 bytes, in the meaning of Jackson's {@code JsonParser} (the
 * subset of its API {@link TokenParser} uses, through {@link JsonTokenParser}), for the {@code json} format. It
 * replaces Jackson's parser there because decoding strings through Jackson (UTF-8 to a char buffer, then a String) was
 * most of the JSON decoder's CPU: here an ASCII string without escapes that lies in the input buffer becomes a String
 * with one Latin-1 copy (found eight bytes at a time), and field names and short values (labels, types, enum-like
 * values) of up to 16 bytes come from small caches keyed by their bytes, seeded with the wire format's own strings so
 * that the decoder's {@code switch} statements match them by identity.
 *
 * <p>It reads exactly RFC 8259 JSON, as Jackson's parser does with its default features, with the limits
 * the JSON decoder's Jackson configuration had: whitespace only space, tab, CR and LF; no comments, no
 * single quotes, no unquoted names, no leading zeros or {@code +}, no {@code NaN}; in strings only the standard
 * escapes (any four hex digits after <code>&#92;u</code>: in a string value a lone surrogate escape is a lone
 * surrogate char, in a field name surrogate escapes must pair, as with Jackson) and no raw control characters;
 * nesting at most {@code maxDepth} levels; numbers of at most {@link #MAX_NUMBER_LENGTH} digits (integer, fraction
 * and exponent digits together, as Jackson counts); field names of at most {@link #MAX_NAME_LENGTH} UTF-8 bytes;
 * string values of at most {@code maxStringLength} chars. A UTF-8 byte order mark at the start is skipped. Stricter
 * than Jackson on malformed input only: UTF-8 is decoded strictly (overlong forms, encoded surrogates, code points
 * above U+10FFFF and stray bytes are errors; Jackson took some of them), a raw control character in a base64
 * {@code bytes} string is an error as in any string (Jackson's streaming base64 decoder skipped it), so is an escaped
 * {@code =} where a raw one is an error (Jackson skipped it or decoded odd bytes), and the input must be UTF-8
 * (Jackson also detected UTF-16 and UTF-32).
 *
 * <p>Strings are read lazily, like Jackson's: a VALUE_STRING token is only the opening quote; {@link #getText} or
 * {@link #getBinaryValue} read the rest, and the next token skips it (checked, not kept, not limited in length, as
 * Jackson skips) if neither was called. Every error is a {@link DecodeException}, or an {@link EOFException} if the
 * input ends inside the JSON; memory is a constant plus what the bytes that arrived need.
 */
final class JsonTokens implements Tokens {
    /** Jackson's default {@code StreamReadConstraints.DEFAULT_MAX_NUM_LEN}. */
    static final int MAX_NUMBER_LENGTH = 1000;
    /** Jackson's default {@code StreamReadConstraints.DEFAULT_MAX_NAME_LEN} (UTF-8 bytes of the name). */
    static final int MAX_NAME_LENGTH = 50_000;

    private static final int BUFFER = 1 << 16;
    /** Bytes after the buffer's last input byte, so that 8 bytes can be read as one long from any input byte. */
    private static final int PADDING = 8;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    /** The cache of longer names: {@link #nameSlot} picks a name's first slot, {@link #name} probes from there. */
    static final int NAME_SLOTS = 512;
    static final int NAME_PROBES = 4;
    /**
     * Names whose closing quote is among this many bytes (so of up to 63 bytes) are cached: up to 16 bytes in {@link
     * ShortStrings}, longer ones in the long-name slots above.
     */
    static final int MAX_CACHED_NAME = 64;
    /** Scratch arrays above this size are dropped after use rather than kept for the next string. */
    private static final int KEEP_SCRATCH = 1 << 16;
    /** The base64 padding character, required on read (as in Jackson's default variant, MIME without line feeds). */
    private static final char PADDING_CHAR = '=';
    /** {@link #BASE64_VALUES} of the padding character, as Jackson's {@code Base64Variant.BASE64_VALUE_PADDING}. */
    private static final int BASE64_PADDING = -2;
    /** {@link #BASE64_VALUES} of a byte that is not base64, as Jackson's {@code Base64Variant.BASE64_VALUE_INVALID}. */
    private static final int BASE64_INVALID = -1;
    /** Each byte's base64 value (0..63; RFC 4648's standard alphabet), or BASE64_PADDING or BASE64_INVALID. */
    private static final int[] BASE64_VALUES = new int[256];

    static {
        Arrays.fill(BASE64_VALUES, BASE64_INVALID);
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for (int i = 0; i < alphabet.length(); i++) {
            BASE64_VALUES[alphabet.charAt(i)] = i;
        }
        BASE64_VALUES[PADDING_CHAR] = BASE64_PADDING;
    }

    /** Decoded base64 goes into blocks of this size first, then of the size so far, at most {@link #MAX_BLOCK}. */
    private static final int FIRST_BLOCK = 4096;
    private static final int MAX_BLOCK = 1 << 20;
    /** Exact powers of ten as doubles (10^22 is the largest that is exact). */
    private static final double[] POWERS = new double[23];

    static {
        double p = 1;
        for (int i = 0; i < POWERS.length; i++) {
            POWERS[i] = p;
            p *= 10;
        }
    }

    private final InputStream in;
    private final int maxDepth;
    private final int maxStringLength;

    private final byte[] buf = new byte[BUFFER + PADDING];
    private int pos;
    private int end;
    private boolean eof;
    private boolean started;

    /** Open containers: true for an object; and whether each has had an element yet. */
    private final boolean[] objects;
    private final boolean[] filled;
    private int depth;
    private boolean rootDone;

    private Token current;
    /** The current VALUE_STRING has not been read beyond its opening quote. */
    private boolean stringPending;
    private String name;
    private String text;

    /** The current number's text (ASCII): sign, digits, '.', 'e', as in the input. */
    private byte[] number = new byte[32];
    private int numberLength;
    /** VALUE_NUMBER_INT: its value, if {@link #numberType} is INT or LONG. */
    private long longValue;
    private NumberType numberType;
    /** VALUE_NUMBER_FLOAT: the decimal significand's digits (if at most 18, else -1), and the decimal exponent. */
    private long significand;
    private int exponent;
    private boolean negative;

    private char[] chars = new char[256];

    /**
     * Bytes of the base64 string being decoded: {@link #fullBlocks} (each full), then {@code block[0..blockLength)};
     * the first block is {@link #firstBlock}, made for the first base64 string and kept for the next ones.
     */
    private byte[] firstBlock;
    private byte[] block;
    private int blockLength;
    private java.util.ArrayList<byte[]> fullBlocks;
    private long fullBytes;

    /** Field names and string values of up to 16 bytes seen before (seeded with the format's own strings). */
    private final ShortStrings shortNames = ShortStrings.seeded();
    private final ShortStrings shortValues = ShortStrings.seeded();
    /** Longer names: each one's bytes as little-endian longs (the last one zero-padded), its length, its String. */
    private final long[][] nameWords = new long[NAME_SLOTS][];
    private final int[] nameLengths = new int[NAME_SLOTS];
    private final String[] names = new String[NAME_SLOTS];

    JsonTokens(InputStream in, int maxDepth, int maxStringLength) {
        this.in = in;
        this.maxDepth = maxDepth;
        this.maxStringLength = maxStringLength;
        this.objects = new boolean[maxDepth];
        this.filled = new boolean[maxDepth];
    }

    // ---- input ----------------------------------------------------------------------------------------------

    /**
     * Reads the next input into the buffer, which every caller has read to its end: a token that spans two reads is
     * read byte by byte ({@link #next}, {@link #peek}), never held in the buffer. False at the end of the input.
     */
    private boolean fill() throws IOException {
        pos = end = 0;
        if (eof) {
            return false;
        }
        int n;
        do {
            n = in.read(buf, 0, BUFFER);
        } while (n == 0);
        if (n < 0) {
            eof = true;
            return false;
        }
        end = n;
        return true;
    }

    /** The next byte (0..255), consumed; EOFException at the end of the input. */
    private int next() throws IOException {
        if (pos == end) {
            if (!fill()) {
                throw new EOFException("JSON input ends inside a token");
            }
        }
        return buf[pos++] & 0xFF;
    }

    /** The next byte (0..255) without consuming it, or -1 at the end of the input. */
    private int peek() throws IOException {
        if (pos == end) {
            if (!fill()) {
                return -1;
            }
        }
        return buf[pos] & 0xFF;
    }

    /** Skips whitespace; the next byte, consumed, or -1 at the end of the input. */
    private int nextNonSpace() throws IOException {
        while (true) {
            byte[] b = buf;
            int p = pos;
            int e = end;
            while (p < e) {
                int c = b[p++] & 0xFF;
                if (c > ' ') {
                    pos = p;
                    return c;
                }
                if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                    pos = p;
                    throw new DecodeException("illegal character (code " + c + ") between JSON tokens: only space, "
                            + "tab, CR and LF are allowed");
                }
            }
            if (!fill()) {
                return -1;
            }
        }
    }

    // ---- tokens ---------------------------------------------------------------------------------------------

    /** The next token, or null at the end of the input after the top-level value. */
    @Override
    public Token nextToken() throws IOException {
        if (stringPending) {
            skipString();
        }
        if (current == Token.FIELD_NAME) {
            return current = value(token());
        }
        int d = depth - 1;
        if (d < 0) {
            return current = root();
        }
        int c = token();
        if (c < 0) {
            throw new EOFException("JSON input ends inside an " + (objects[d] ? "object" : "array"));
        }
        boolean object = objects[d];
        if (c == (object ? '}' : ']')) {
            depth = d;
            return current = object ? Token.END_OBJECT : Token.END_ARRAY;
        }
        if (filled[d]) {
            if (c != ',') {
                throw new DecodeException("expected ',' or '" + (object ? '}' : ']') + "' in a JSON "
                        + (object ? "object" : "array") + ", found " + describe(c));
            }
            c = nextNonSpace();
            if (c < 0) {
                throw new EOFException("JSON input ends after ','");
            }
        } else {
            filled[d] = true;
        }
        if (!object) {
            return current = value(c);
        }
        if (c != '"') {
            throw new DecodeException("expected a field name in a JSON object, found " + describe(c));
        }
        name = name();
        if (pos < end && buf[pos] == ':') {
            pos++;
            return current = Token.FIELD_NAME;
        }
        int colon = nextNonSpace();
        if (colon != ':') {
            if (colon < 0) {
                throw new EOFException("JSON input ends after a field name");
            }
            throw new DecodeException("expected ':' after a field name, found " + describe(colon));
        }
        return current = Token.FIELD_NAME;
    }

    /** The first byte of the next token, consumed (-1 at the end of the input): {@link #nextNonSpace}, inlined. */
    private int token() throws IOException {
        int p = pos;
        if (p < end) {
            int c = buf[p] & 0xFF;
            if (c > ' ') {
                pos = p + 1;
                return c;
            }
        }
        return nextNonSpace();
    }

    /** The token at the top level: the start of the value (after a byte order mark), or null after it. */
    private Token root() throws IOException {
        if (!started) {
            started = true;
            skipByteOrderMark();
        }
        int c = nextNonSpace();
        if (c < 0) {
            return null;
        }
        if (rootDone) {
            throw new DecodeException("content after the top-level JSON value");
        }
        rootDone = true;
        return value(c);
    }

    private void skipByteOrderMark() throws IOException {
        if (peek() == 0xEF) {
            pos++;
            if (next() != 0xBB || next() != 0xBF) {
                throw new DecodeException("JSON input starts with a broken UTF-8 byte order mark");
            }
        }
    }

    /** The value token starting with {@code c} (consumed). */
    private Token value(int c) throws IOException {
        switch (c) {
            case '"' -> {
                stringPending = true;
                return Token.VALUE_STRING;
            }
            case '{', '[' -> {
                if (depth == maxDepth) {
                    throw new DecodeException("JSON nesting depth " + (depth + 1) + " exceeds the maximum allowed ("
                            + maxDepth + ")");
                }
                objects[depth] = c == '{';
                filled[depth++] = false;
                return c == '{' ? Token.START_OBJECT : Token.START_ARRAY;
            }
            case 't' -> {
                literal("true");
                return Token.VALUE_TRUE;
            }
            case 'f' -> {
                literal("false");
                return Token.VALUE_FALSE;
            }
            case 'n' -> {
                literal("null");
                return Token.VALUE_NULL;
            }
            case -1 -> throw new EOFException("JSON input ends where a value was expected");
            default -> {
                if (c == '-' || (c >= '0' && c <= '9')) {
                    return number(c);
                }
                throw new DecodeException("unexpected " + describe(c) + " where a JSON value was expected");
            }
        }
    }

    /** The rest of {@code word}, whose first letter has been read. */
    private void literal(String word) throws IOException {
        for (int i = 1; i < word.length(); i++) {
            int c = next();
            if (c != word.charAt(i)) {
                throw new DecodeException("unrecognized token: expected '" + word + "', found " + describe(c)
                        + " after '" + word.substring(0, i) + "'");
            }
        }
        int c = peek();
        if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$'
                || c >= 0x80) {
            throw new DecodeException("unrecognized token starting with '" + word + "'");
        }
    }

    private static String describe(int c) {
        return c < 0 ? "the end of the input" : c >= ' ' && c < 0x7F ? "'" + (char) c + "'" : "byte " + c;
    }

    // ---- numbers ----------------------------------------------------------------------------------------------

    /**
     * A number starting with {@code first} (consumed): {@code -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?}, as
     * Jackson reads it: at most {@link #MAX_NUMBER_LENGTH} digits in all; an integer is VALUE_NUMBER_INT, anything
     * with a fraction or exponent VALUE_NUMBER_FLOAT.
     */
    private Token number(int first) throws IOException {
        numberLength = 0;
        int digits = 0;  // counted as Jackson does: integer, fraction and exponent digits
        negative = first == '-';
        int c = first;
        if (negative) {
            append(c);
            c = next();
            if (c < '0' || c > '9') {
                throw new DecodeException("expected a digit after '-' in a JSON number, found " + describe(c));
            }
        }
        // integer part
        long value = 0;
        boolean overflow = false;  // |value| beyond 18 digits: the significand is not kept
        int intDigits = 0;
        append(c);
        digits++;
        intDigits++;
        value = c - '0';
        c = peek();
        if (first == '0' || (negative && value == 0)) {
            if (c >= '0' && c <= '9') {
                throw new DecodeException("leading zeros in a JSON number");
            }
        } else {
            while (c >= '0' && c <= '9') {
                pos++;
                if (++digits > MAX_NUMBER_LENGTH) {
                    throw tooLong(digits);
                }
                append(c);
                if (intDigits++ < 18) {
                    value = value * 10 + (c - '0');
                } else {
                    overflow = true;
                }
                c = peek();
            }
        }
        if (c != '.' && c != 'e' && c != 'E') {
            significand = -1;
            if (!overflow) {
                longValue = negative ? -value : value;
                numberType = longValue == (int) longValue ? NumberType.INT : NumberType.LONG;
            } else {
                integerBeyond18Digits();
            }
            return Token.VALUE_NUMBER_INT;
        }
        // fraction and exponent: the significand's digits (up to 18) and the power of ten they are scaled by
        int scale = 0;
        if (c == '.') {
            pos++;
            append(c);
            c = peek();
            if (c < '0' || c > '9') {
                throw new DecodeException("expected a digit after '.' in a JSON number, found " + describe(c));
            }
            while (c >= '0' && c <= '9') {
                pos++;
                if (++digits > MAX_NUMBER_LENGTH) {
                    throw tooLong(digits);
                }
                append(c);
                if (!overflow && value < 100_000_000_000_000_000L) {
                    value = value * 10 + (c - '0');
                    scale--;
                } else if (c != '0') {
                    overflow = true;
                }
                c = peek();
            }
        }
        int exp = 0;
        boolean expOverflow = false;
        if (c == 'e' || c == 'E') {
            pos++;
            append(c);
            c = next();
            boolean expNegative = false;
            if (c == '-' || c == '+') {
                append(c);
                expNegative = c == '-';
                c = next();
            }
            if (c < '0' || c > '9') {
                throw new DecodeException("expected a digit in the exponent of a JSON number, found "
                        + describe(c));
            }
            while (true) {
                if (++digits > MAX_NUMBER_LENGTH) {
                    throw tooLong(digits);
                }
                append(c);
                if (exp < 100_000) {
                    exp = exp * 10 + (c - '0');
                } else {
                    expOverflow = true;
                }
                c = peek();
                if (c < '0' || c > '9') {
                    break;
                }
                pos++;
            }
            if (expNegative) {
                exp = -exp;
            }
        }
        significand = overflow || expOverflow ? -1 : value;
        exponent = scale + exp;
        return Token.VALUE_NUMBER_FLOAT;
    }

    /** An integer token of more than 18 digits: LONG if it fits, else BIG_INTEGER (as Jackson types it). */
    private void integerBeyond18Digits() {
        try {
            longValue = Long.parseLong(numberText());
            numberType = NumberType.LONG;
        } catch (NumberFormatException e) {
            numberType = NumberType.BIG_INTEGER;
        }
    }

    private DecodeException tooLong(int digits) {
        return new DecodeException("JSON number of more than " + MAX_NUMBER_LENGTH + " digits (" + digits
                + " so far)");
    }

    private void append(int c) {
        if (numberLength == number.length) {
            number = Arrays.copyOf(number, numberLength * 2);  // at most ~2 * MAX_NUMBER_LENGTH + 4
        }
        number[numberLength++] = (byte) c;
    }

    private String numberText() {
        return new String(number, 0, numberLength, StandardCharsets.ISO_8859_1);
    }

    // ---- strings ----------------------------------------------------------------------------------------------

    /** A field name, its opening quote read: the cached String for plain ASCII names seen before. */
    private String name() throws IOException {
        byte[] b = buf;
        int start = pos;
        int stop = special(b, start, Math.min(end, start + MAX_CACHED_NAME));
        if (stop < 0 || b[stop] != '"') {
            return readString(MAX_NAME_LENGTH, true);  // long, escaped, non-ASCII, or not all in the buffer
        }
        pos = stop + 1;
        int length = stop - start;
        if (length <= ShortStrings.MAX_LENGTH) {
            return shortNames.get(b, start, length);
        }
        int first = nameSlot(b, start, length);
        int free = -1;
        for (int i = 0, s = first; i < NAME_PROBES; i++, s = (s + 1) & (NAME_SLOTS - 1)) {
            long[] k = nameWords[s];
            if (k == null) {
                free = s;
                break;
            }
            if (nameLengths[s] == length && sameWords(k, b, start, length)) {
                return names[s];
            }
        }
        String n = new String(b, start, length, StandardCharsets.ISO_8859_1);
        long[] k = new long[(length + 7) >>> 3];
        for (int i = 0; i < length; i += 8) {
            k[i >>> 3] = ShortStrings.word(b, start + i, length - i);
        }
        int s = free >= 0 ? free : first;
        nameWords[s] = k;
        nameLengths[s] = length;
        names[s] = n;
        return n;
    }

    /**
     * The first slot a name of more than 16 bytes ({@code b[start..start+length)}) probes; the names it meets there
     * and in the next {@link #NAME_PROBES} - 1 slots are the ones it can match, and when none is free it replaces the
     * first.
     */
    static int nameSlot(byte[] b, int start, int length) {
        long h = length;
        for (int i = 0; i < length; i += 8) {
            h = (h ^ ShortStrings.word(b, start + i, length - i)) * 0x9E3779B97F4A7C15L;
        }
        return (int) (h >>> (Long.SIZE - Integer.numberOfTrailingZeros(NAME_SLOTS)));
    }

    private static boolean sameWords(long[] k, byte[] b, int start, int length) {
        for (int i = 0; i < length; i += 8) {
            if (k[i >>> 3] != ShortStrings.word(b, start + i, length - i)) {
                return false;
            }
        }
        return true;
    }


    /**
     * The index of the first byte in {@code b[from..to)} that ends a plain ASCII run in a string: a quote, a
     * backslash, a control character or a non-ASCII byte; -1 if there is none. Eight bytes at a time (reads up to
     * 7 bytes beyond {@code to}, within the buffer's padding, and ignores them).
     */
    private static int special(byte[] b, int from, int to) {
        for (int p = from; p < to; p += 8) {
            long x = (long) LONGS.get(b, p);
            long q = x ^ 0x2222222222222222L;  // zero where '"'
            long s = x ^ 0x5C5C5C5C5C5C5C5CL;  // zero where '\\'
            // per byte, the high bit: a zero byte of q or s, a byte below 0x20 (borrows), or a byte >= 0x80;
            // exact for the lowest flagged byte (a borrow only flags bytes above a flagged one)
            long t = (((q - ONES) & ~q) | ((s - ONES) & ~s) | (x - 0x2020202020202020L) | x) & HIGHS;
            if (t != 0) {
                int i = p + (Long.numberOfTrailingZeros(t) >>> 3);
                return i < to ? i : -1;
            }
        }
        return -1;
    }

    /** The current VALUE_STRING's text, read now if it has not been. */
    private String stringValue() throws IOException {
        if (stringPending) {
            stringPending = false;
            text = string();
        }
        return text;
    }

    /** A string value, its opening quote read. */
    private String string() throws IOException {
        byte[] b = buf;
        int start = pos;
        int stop = special(b, start, end);
        if (stop >= 0 && b[stop] == '"' && stop - start <= maxStringLength) {
            pos = stop + 1;
            int length = stop - start;
            return length <= ShortStrings.MAX_LENGTH ? shortValues.get(b, start, length)
                    : new String(b, start, length, StandardCharsets.ISO_8859_1);
        }
        return readString(maxStringLength, false);  // escaped, non-ASCII, too long, or not all in the buffer
    }

    /**
     * A string, its opening quote read, decoded into {@link #chars}: escapes, strict UTF-8, refilling the buffer as
     * needed. At most {@code max} chars (a value) or, for a name, {@code max} UTF-8 bytes.
     */
    private String readString(int max, boolean isName) throws IOException {
        char[] cs = chars;
        int n = 0;
        long bytes = 0;  // UTF-8 length of a name, as Jackson measures it
        while (true) {
            int c = next();
            if (c == '"') {
                break;
            }
            int need;  // chars this step adds
            if (c < 0x80) {
                if (c == '\\') {
                    c = escape();
                } else if (c < ' ') {
                    throw controlCharacter(c, isName);
                }
                need = 1;
            } else {
                c = multiByte(c);
                need = c >= 0x10000 ? 2 : 1;
            }
            if (isName) {
                if (c >= 0xD800 && c <= 0xDFFF) {
                    c = nameSurrogates(c);
                    need = 2;
                }
                bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
                if (bytes > max) {
                    throw new DecodeException("JSON field name longer than " + max + " UTF-8 bytes");
                }
            } else if (n + need > max) {
                throw new DecodeException("JSON string longer than " + max + " chars");
            }
            if (n + need > cs.length) {
                // grows with the chars that arrived; never beyond the limit (names: chars <= UTF-8 bytes)
                cs = chars = Arrays.copyOf(cs, (int) Math.min(Math.max(n + need, cs.length * 2L), max));
            }
            if (need == 1) {
                cs[n++] = (char) c;
            } else {
                cs[n++] = Character.highSurrogate(c);
                cs[n++] = Character.lowSurrogate(c);
            }
        }
        String s = new String(cs, 0, n);
        if (cs.length > KEEP_SCRATCH) {
            chars = new char[256];
        }
        return s;
    }

    /**
     * In a field name, an escaped surrogate {@code c} must be the high one of an escaped pair, whose low one it
     * reads (Jackson's rule for names; in string values lone surrogate escapes are chars like others). Raw UTF-8
     * never gets here: {@link #multiByte} rejects encoded surrogates.
     */
    private int nameSurrogates(int c) throws IOException {
        if (c >= 0xDC00) {
            throw new DecodeException(String.format("unexpected low surrogate escape in a JSON field name: 0x%04x", c));
        }
        if (next() != '\\' || next() != 'u') {
            throw new DecodeException("broken surrogate pair in a JSON field name");
        }
        int low = escapeHex();
        if (low < 0xDC00 || low > 0xDFFF) {
            throw new DecodeException("broken surrogate pair in a JSON field name");
        }
        return Character.toCodePoint((char) c, (char) low);
    }

    /** Skips the current string (its opening quote read), checking it as {@link #readString} would, but unbounded. */
    private void skipString() throws IOException {
        stringPending = false;
        while (true) {
            int p = special(buf, pos, end);
            if (p >= 0) {
                pos = p;
                int c = next();
                if (c == '"') {
                    return;
                }
                if (c == '\\') {
                    escape();
                } else if (c >= 0x80) {
                    multiByte(c);
                } else {
                    throw controlCharacter(c, false);
                }
            } else if (!fill()) {
                throw new EOFException("JSON input ends inside a string");
            }
        }
    }

    private static DecodeException controlCharacter(int c, boolean isName) {
        return new DecodeException("unescaped control character (code " + c + ") in a JSON "
                + (isName ? "field name" : "string"));
    }

    /** The char of an escape sequence, its backslash read. */
    private int escape() throws IOException {
        int c = next();
        return switch (c) {
            case '"', '\\', '/' -> c;
            case 'b' -> '\b';
            case 'f' -> '\f';
            case 'n' -> '\n';
            case 'r' -> '\r';
            case 't' -> '\t';
            case 'u' -> escapeHex();
            default -> throw new DecodeException("unrecognized escape '\\" + (char) c + "' in a JSON string");
        };
    }

    /** The four hex digits of a unicode escape, its {@code u} read. */
    private int escapeHex() throws IOException {
        int v = 0;
        for (int i = 0; i < 4; i++) {
            int h = next();
            int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                    : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
            if (d < 0) {
                throw new DecodeException("expected a hex digit in a JSON \\u escape, found " + describe(h));
            }
            v = v << 4 | d;
        }
        return v;
    }

    /** The code point of a multi-byte UTF-8 sequence starting with {@code c} (read), decoded strictly. */
    private int multiByte(int c) throws IOException {
        if (c >= 0xC2 && c <= 0xDF) {
            return (c & 0x1F) << 6 | continuation(0x80, 0xBF);
        }
        if (c >= 0xE0 && c <= 0xEF) {
            int lo = c == 0xE0 ? 0xA0 : 0x80;
            int hi = c == 0xED ? 0x9F : 0xBF;  // no surrogates
            int c2 = continuation(lo, hi);
            return (c & 0x0F) << 12 | c2 << 6 | continuation(0x80, 0xBF);
        }
        if (c >= 0xF0 && c <= 0xF4) {
            int lo = c == 0xF0 ? 0x90 : 0x80;
            int hi = c == 0xF4 ? 0x8F : 0xBF;  // at most U+10FFFF
            int c2 = continuation(lo, hi);
            int c3 = continuation(0x80, 0xBF);
            return (c & 0x07) << 18 | c2 << 12 | c3 << 6 | continuation(0x80, 0xBF);
        }
        throw new DecodeException(String.format("invalid UTF-8 start byte 0x%02x in a JSON string", c));
    }

    /** The 6 payload bits of the next byte, which must be in {@code lo..hi}. */
    private int continuation(int lo, int hi) throws IOException {
        int c = next();
        if (c < lo || c > hi) {
            throw new DecodeException(String.format("invalid UTF-8 continuation byte 0x%02x in a JSON string", c));
        }
        return c & 0x3F;
    }

    // ---- the current token --------------------------------------------------------------------------------

    @Override
    public Token currentToken() {
        return current;
    }

    /** The field name, on a FIELD_NAME token. */
    @Override
    public String currentName() {
        return current == Token.FIELD_NAME ? name : null;
    }

    /** On START_OBJECT or START_ARRAY: moves to the matching end token; else nothing. */
    @Override
    public void skipChildren() throws IOException {
        if (current == Token.START_OBJECT || current == Token.START_ARRAY) {
            for (int outside = depth - 1; depth > outside; ) {
                if (nextToken() == null) {
                    throw new EOFException("JSON input ends inside a skipped value");
                }
            }
        }
    }

    /** The text of the current token (a string's value, a name, a number as written), or null. */
    @Override
    public String getText() throws IOException {
        if (current == null) {
            return null;
        }
        return switch (current) {
            case VALUE_STRING -> stringValue();
            case FIELD_NAME -> name;
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> numberText();
            default -> current.asString();
        };
    }

    @Override
    public NumberType getNumberType() {
        if (current == Token.VALUE_NUMBER_INT) {
            return numberType;
        }
        return current == Token.VALUE_NUMBER_FLOAT ? NumberType.DOUBLE : null;
    }

    /** An integer token that fits a long (callers check {@link #getNumberType} first). */
    @Override
    public long getLongValue() throws IOException {
        if (current != Token.VALUE_NUMBER_INT || numberType == NumberType.BIG_INTEGER) {
            throw new DecodeException("not a JSON integer in the long range: " + getText());
        }
        return longValue;
    }

    /** A number as a double: correctly rounded from its decimal text, as {@link Double#parseDouble} does. */
    @Override
    public double getDoubleValue() throws IOException {
        if (current == Token.VALUE_NUMBER_INT && numberType != NumberType.BIG_INTEGER) {
            return (double) longValue;
        }
        if (current == Token.VALUE_NUMBER_FLOAT) {
            long m = significand;
            int e = exponent;
            // Exact operands, one correctly rounded operation: the same double as parsing the text.
            if (m >= 0 && m < (1L << 53) && e >= -22 && e <= 22) {
                double d = e >= 0 ? (double) m * POWERS[e] : (double) m / POWERS[-e];
                return negative ? -d : d;
            }
        } else {
            number();
        }
        return Double.parseDouble(numberText());
    }

    /** A number as a float: correctly rounded from its decimal text, as {@link Float#parseFloat} does. */
    @Override
    public float getFloatValue() throws IOException {
        if (current == Token.VALUE_NUMBER_INT && numberType != NumberType.BIG_INTEGER) {
            return (float) longValue;
        }
        number();
        return Float.parseFloat(numberText());
    }

    private void number() throws DecodeException {
        if (current != Token.VALUE_NUMBER_INT && current != Token.VALUE_NUMBER_FLOAT) {
            throw new DecodeException("expected a JSON number, found " + current);
        }
    }

    /** JSON has no embedded objects. */
    @Override
    public Object getEmbeddedObject() {
        return null;
    }

    /**
     * The bytes of a base64 string, in Jackson's default variant, decoded as Jackson's parser decoded a string not
     * read yet: straight from the input, by the rules of its streaming decoder (below), into blocks that grow with
     * what arrived (a constant plus about twice the decoded bytes at the most, counting the result). A string is read
     * once, as text or as bytes ({@link TokenParser} reads each value once).
     */
    @Override
    public byte[] getBinaryValue() throws IOException {
        if (current != Token.VALUE_STRING) {
            throw new DecodeException("expected a base64 JSON string, found " + current);
        }
        if (stringPending) {
            stringPending = false;
            text = null;
            return base64();
        }
        throw new IllegalStateException("the JSON string was read already");
    }

    /**
     * The rest of a base64 string, its opening quote read, as Jackson's {@code UTF8StreamJsonParser._decodeBase64}
     * (2.x) decodes it with its default variant: quartets of base64 characters; spaces skipped before a quartet, and
     * so is escaped whitespace there; in a quartet escapes decode to their char ({@code \/} is {@code /},
     * <code>&#92;u0041</code> is {@code A}); padding required; anything else is an error. Stricter in two ways: a raw
     * control character before a quartet is an error (Jackson skipped it; in JSON it is not allowed in a string),
     * and so is an escaped {@code =} where a raw one is, before a quartet or as its second char (Jackson skipped the
     * first and mixed -2 into the bits of the second, decoding to bytes nobody wrote). Whole
     * quartets of plain base64 characters in the buffer are decoded without the per-character checks.
     */
    private byte[] base64() throws IOException {
        long chars = 0;  // of the string, an escape counting one: limited as any string value
        if (firstBlock == null) {
            block = firstBlock = new byte[FIRST_BLOCK];
        }
        while (true) {
            byte[] b = buf;
            int p = pos;
            int last = end - 4;
            byte[] o = block;
            int n = blockLength;
            for (int limit = o.length - 3; p <= last && n <= limit; p += 4, n += 3) {
                int v = BASE64_VALUES[b[p] & 0xFF] << 18 | BASE64_VALUES[b[p + 1] & 0xFF] << 12
                        | BASE64_VALUES[b[p + 2] & 0xFF] << 6 | BASE64_VALUES[b[p + 3] & 0xFF];
                if (v < 0) {  // a negative value (not a base64 char) keeps its sign through the shifts
                    break;
                }
                o[n] = (byte) (v >> 16);
                o[n + 1] = (byte) (v >> 8);
                o[n + 2] = (byte) v;
            }
            blockLength = n;
            chars += p - pos;
            pos = p;
            if (chars > maxStringLength) {
                throw new DecodeException("JSON string longer than " + maxStringLength + " chars");
            }
            // one quartet (or the closing quote) character by character, as Jackson's decoder
            int ch;
            do {
                ch = next();
                chars++;
                if (ch < ' ') {
                    throw controlCharacter(ch, false);
                }
            } while (ch == ' ');
            int bits = BASE64_VALUES[ch];
            if (bits < 0) {
                if (ch == '"') {
                    if (chars - 1 > maxStringLength) {
                        throw new DecodeException("JSON string longer than " + maxStringLength + " chars");
                    }
                    return decoded();
                }
                bits = base64Escape(ch, 0);
                if (bits < 0) {
                    continue;  // escaped whitespace or '=' before a quartet: skipped
                }
            }
            int data = bits << 6 | groupChar(1);
            bits = groupChar(2);
            if (bits == BASE64_PADDING) {
                ch = next();
                if (ch != PADDING_CHAR && base64Escape(ch, 3) != BASE64_PADDING) {
                    throw new DecodeException("malformed base64 in a JSON string: expected padding '"
                            + PADDING_CHAR + "', found " + describe(ch));
                }
                chars += 3;
                emit(data >> 4);
                continue;
            }
            data = data << 6 | bits;
            bits = groupChar(3);
            if (bits == BASE64_PADDING) {
                chars += 3;
                emit(data >> 10);
                emit(data >> 2);
                continue;
            }
            data = data << 6 | bits;
            chars += 3;
            emit(data >> 16);
            emit(data >> 8);
            emit(data);
        }
    }

    /**
     * The value of character {@code index} (1 to 3) of a group: 0..63, or BASE64_PADDING for a raw or escaped
     * {@code =} as the third or fourth one.
     */
    private int groupChar(int index) throws IOException {
        int ch = next();
        int bits = BASE64_VALUES[ch];
        if (bits >= 0 || index > 1 && bits == BASE64_PADDING) {
            return bits;
        }
        if (index > 1 && ch == '"') {
            throw missingPadding();
        }
        return base64Escape(ch, index);
    }

    /**
     * The base64 value of the char that escape {@code ch} (its backslash, read) stands for; -1 for whitespace as a
     * quartet's first char, -2 for padding ({@code BASE64_PADDING}) as its third or fourth; anything else is
     * an error.
     */
    private int base64Escape(int ch, int index) throws IOException {
        if (ch != '\\') {
            throw new DecodeException("malformed base64 in a JSON string: illegal character " + describe(ch)
                    + " as character " + (index + 1) + " of a quartet");
        }
        int c = escape();
        if (c <= ' ' && index == 0) {
            return -1;
        }
        if (c == '=' && index < 2) {  // where a raw '=' is an error (Jackson skipped it, or mixed -2 into the bits)
            throw new DecodeException("malformed base64 in a JSON string: padding as character " + (index + 1)
                    + " of a quartet");
        }
        int bits = c < BASE64_VALUES.length ? BASE64_VALUES[c] : BASE64_INVALID;
        if (bits == BASE64_INVALID) {
            throw new DecodeException(String.format("malformed base64 in a JSON string: illegal escaped character "
                    + "U+%04X as character %d of a quartet", c, index + 1));
        }
        return bits;
    }

    private static DecodeException missingPadding() {
        return new DecodeException("malformed base64 in a JSON string: it ends without padding");
    }

    /** Appends a decoded byte (the low 8 bits of {@code b}), starting a new block when this one is full. */
    private void emit(int b) {
        if (blockLength == block.length) {
            if (fullBlocks == null) {
                fullBlocks = new java.util.ArrayList<>();
            }
            fullBlocks.add(block);
            fullBytes += block.length;
            block = new byte[(int) Math.min(Math.max(fullBytes, FIRST_BLOCK), MAX_BLOCK)];
            blockLength = 0;
        }
        block[blockLength++] = (byte) b;
    }

    /** The bytes decoded, as one array; the blocks are reset for the next string. */
    private byte[] decoded() {
        byte[] out;
        if (fullBlocks == null) {
            out = Arrays.copyOf(block, blockLength);
        } else {
            out = new byte[Math.toIntExact(fullBytes + blockLength)];
            int at = 0;
            for (byte[] full : fullBlocks) {
                System.arraycopy(full, 0, out, at, full.length);
                at += full.length;
            }
            System.arraycopy(block, 0, out, at, blockLength);
            fullBlocks = null;
            fullBytes = 0;
        }
        block = firstBlock;
        blockLength = 0;
        return out;
    }
}
