package org.subgraphexport.encode;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The record buffer every encoder writes into, and every byte routine the wire formats need, once: UTF-8 (ASCII fast
 * path, an unpaired surrogate as {@code '?'}, optional per-format escapes), decimal digits, lower-case hex and the
 * canonical UUID text, big-endian fixed-width numbers (Kryo), little-endian ones (BSON), and Kryo 5's var-ints
 * (varint, varlong with its 9-byte form, zigzag).
 *
 * <p>Bounds: {@link #require} makes room for {@code n} more bytes, growing the buffer (never writing it anywhere:
 * {@link ByteRecordWriter} decides when its bytes go out). The fixed-size writers ({@link #put(int)}, the numbers,
 * the var-ints, the digits) do not check: a value requires its largest size once, then writes its parts. Writers
 * of variable length (byte arrays, strings) require their own room.
 */
final class WireBuffer {
    /** Most bytes of a varint, a varlong, a long's decimal digits with sign, the canonical UUID text. */
    static final int MAX_VARINT = 5, MAX_VARLONG = 9, MAX_DECIMAL = 20, UUID_TEXT = 36;
    /** Chars encoded per room check: bounds the room a string requires beyond its own size. */
    private static final int CHUNK = 4096;
    private static final byte[] LONG_MIN = Long.toString(Long.MIN_VALUE).getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DIGIT_PAIRS = new byte[200];
    private static final byte[] HEX = {'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'};

    static {
        for (int i = 0; i < 100; i++) {
            DIGIT_PAIRS[2 * i] = (byte) ('0' + i / 10);
            DIGIT_PAIRS[2 * i + 1] = (byte) ('0' + i % 10);
        }
    }

    byte[] buf;
    int pos;

    WireBuffer(int capacity) {
        buf = new byte[capacity];
    }

    // ---- room ---------------------------------------------------------------------------------------------

    /** Room for {@code n} more bytes: the buffer grows (at least doubling) rather than hand part of a record on. */
    void require(int n) {
        if (n > buf.length - pos) {
            grow(n);
        }
    }

    private void grow(int n) {
        long needed = (long) pos + n;
        if (needed > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("a record of more than 2 GB");
        }
        buf = Arrays.copyOf(buf, (int) Math.min(Integer.MAX_VALUE - 8, Math.max(needed, 2L * buf.length)));
    }

    // ---- bytes (unchecked: the caller required the room) ----------------------------------------------------

    void put(int b) {
        buf[pos++] = (byte) b;
    }

    void put(int a, int b) {
        byte[] bb = buf;
        int p = pos;
        bb[p] = (byte) a;
        bb[p + 1] = (byte) b;
        pos = p + 2;
    }

    /** A pre-encoded run (a constant, a token): unchecked. */
    void put(byte[] bytes) {
        int n = bytes.length;
        System.arraycopy(bytes, 0, buf, pos, n);
        pos += n;
    }

    /** A pre-encoded run, checking its own room. */
    void append(byte[] bytes) {
        require(bytes.length);
        put(bytes);
    }

    /** Bytes as they are, checking their own room. */
    void bytes(byte[] bytes, int offset, int length) {
        require(length);
        System.arraycopy(bytes, offset, buf, pos, length);
        pos += length;
    }

    // ---- big-endian (Kryo) ----------------------------------------------------------------------------------

    void int16(int v) {
        byte[] b = buf;
        int p = pos;
        b[p] = (byte) (v >>> 8);
        b[p + 1] = (byte) v;
        pos = p + 2;
    }

    void int32(int v) {
        byte[] b = buf;
        int p = pos;
        b[p] = (byte) (v >>> 24);
        b[p + 1] = (byte) (v >>> 16);
        b[p + 2] = (byte) (v >>> 8);
        b[p + 3] = (byte) v;
        pos = p + 4;
    }

    void int64(long v) {
        byte[] b = buf;
        int p = pos;
        b[p] = (byte) (v >>> 56);
        b[p + 1] = (byte) (v >>> 48);
        b[p + 2] = (byte) (v >>> 40);
        b[p + 3] = (byte) (v >>> 32);
        b[p + 4] = (byte) (v >>> 24);
        b[p + 5] = (byte) (v >>> 16);
        b[p + 6] = (byte) (v >>> 8);
        b[p + 7] = (byte) v;
        pos = p + 8;
    }

    // ---- little-endian (BSON) -------------------------------------------------------------------------------

    void int32le(int v) {
        int32le(buf, pos, v);
        pos += 4;
    }

    void int64le(long v) {
        byte[] b = buf;
        int p = pos;
        int32le(b, p, (int) v);
        int32le(b, p + 4, (int) (v >>> 32));
        pos = p + 8;
    }

    /** Patches an int32 at {@code at}: a BSON length written when its document ends. */
    static void int32le(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
        b[at + 2] = (byte) (v >>> 16);
        b[at + 3] = (byte) (v >>> 24);
    }

    // ---- Kryo 5 var-ints ------------------------------------------------------------------------------------

    /** Kryo's {@code writeVarInt(v, true)}: unsigned LEB128, 1 to 5 bytes. */
    void varInt(int v) {
        byte[] b = buf;
        int p = pos;
        while ((v & ~0x7F) != 0) {
            b[p++] = (byte) (v & 0x7F | 0x80);
            v >>>= 7;
        }
        b[p++] = (byte) v;
        pos = p;
    }

    /** Kryo's {@code writeVarInt(v, false)}: zigzag, then {@link #varInt}. */
    void zigZagInt(int v) {
        varInt(v << 1 ^ v >> 31);
    }

    /**
     * Kryo's {@code writeVarLong(v, true)}: LEB128 of 1 to 8 bytes for values below 2^56; above, 8 bytes of 7 bits
     * each (high bit set) and a 9th holding the top 8 bits whole.
     */
    void varLong(long v) {
        byte[] b = buf;
        int p = pos;
        for (int i = 0; i < 8; i++) {
            if ((v & ~0x7FL) == 0) {
                b[p] = (byte) v;
                pos = p + 1;
                return;
            }
            b[p++] = (byte) (v & 0x7F | 0x80);
            v >>>= 7;
        }
        b[p] = (byte) v;  // the top 8 bits
        pos = p + 1;
    }

    /** Kryo's {@code writeVarLong(v, false)}: zigzag, then {@link #varLong}. */
    void zigZagLong(long v) {
        varLong(v << 1 ^ v >> 63);
    }

    /** Bytes of {@link #varInt}{@code (v)}. */
    static int varIntLength(int v) {
        return v >>> 7 == 0 ? 1 : v >>> 14 == 0 ? 2 : v >>> 21 == 0 ? 3 : v >>> 28 == 0 ? 4 : 5;
    }

    // ---- text -----------------------------------------------------------------------------------------------

    /** The decimal digits of {@code v}, with a minus sign if negative ({@link Long#toString}'s characters). */
    void decimal(long v) {
        if (v < 0) {
            if (v == Long.MIN_VALUE) {
                System.arraycopy(LONG_MIN, 0, buf, pos, LONG_MIN.length);
                pos += LONG_MIN.length;
                return;
            }
            buf[pos++] = '-';
            v = -v;
        }
        pos = decimal(buf, pos, v);
    }

    /** Writes the decimal digits of {@code n >= 0} at {@code pos}, two at a time; returns the end. */
    static int decimal(byte[] b, int pos, long n) {
        int digits = 1;
        for (long p = 10; digits < 19 && n >= p; p *= 10) {
            digits++;
        }
        int i = pos + digits;
        int end = i;
        while (n > Integer.MAX_VALUE) {
            long q = n / 100;
            int r = (int) (n - q * 100);
            b[--i] = DIGIT_PAIRS[2 * r + 1];
            b[--i] = DIGIT_PAIRS[2 * r];
            n = q;
        }
        int m = (int) n;
        while (m >= 100) {
            int q = m / 100;
            int r = m - q * 100;
            b[--i] = DIGIT_PAIRS[2 * r + 1];
            b[--i] = DIGIT_PAIRS[2 * r];
            m = q;
        }
        if (m >= 10) {
            b[--i] = DIGIT_PAIRS[2 * m + 1];
            b[--i] = DIGIT_PAIRS[2 * m];
        } else {
            b[--i] = (byte) ('0' + m);
        }
        return end;
    }

    /** The canonical UUID text, {@link java.util.UUID#toString()}'s 36 lower-case characters. */
    void uuid(long msb, long lsb) {
        byte[] b = buf;
        int p = pos;
        hex(b, p, msb >>> 32, 8);
        b[p + 8] = '-';
        hex(b, p + 9, msb >>> 16, 4);
        b[p + 13] = '-';
        hex(b, p + 14, msb, 4);
        b[p + 18] = '-';
        hex(b, p + 19, lsb >>> 48, 4);
        b[p + 23] = '-';
        hex(b, p + 24, lsb, 12);
        pos = p + UUID_TEXT;
    }

    private static void hex(byte[] b, int at, long bits, int digits) {
        for (int i = at + digits - 1; i >= at; i--) {
            b[i] = HEX[(int) (bits & 0xF)];
            bits >>>= 4;
        }
    }

    /**
     * How a format escapes characters in UTF-8 text: the ASCII characters it escapes, whether it escapes every
     * surrogate (paired or not) instead of encoding it, and how an escape is written.
     */
    abstract static class Escapes {
        /** Per ASCII char: true if {@link #escape} writes it. */
        final boolean[] ascii = new boolean[128];
        final boolean surrogates;
        /** Most bytes {@link #escape} writes for one char. */
        final int maxBytes;

        Escapes(boolean surrogates, int maxBytes) {
            this.surrogates = surrogates;
            this.maxBytes = maxBytes;
        }

        /** Writes {@code c}'s escape at {@code p} (room for {@link #maxBytes} is there); returns the end. */
        abstract int escape(char c, byte[] b, int p);
    }

    /**
     * Chars {@code from} to {@code to} of {@code s} as UTF-8: a surrogate pair as one 4-byte sequence, an unpaired
     * surrogate as {@code '?'} (as {@code String.getBytes(UTF_8)} writes them); with {@code escapes}, the ASCII chars
     * it names, and with {@code escapes.surrogates} every surrogate, written by it instead. Checks its own room,
     * and leaves room for {@code after} more bytes (a closing quote, a NUL) unchecked.
     *
     * <p>The ASCII fast path, small enough to be inlined where it is called: one room check, one byte per char, until
     * a char needs more (or the string is longer than a chunk); the rest goes to {@link #utf8Rest}.
     */
    void utf8(CharSequence s, int from, int to, Escapes escapes, int after) {
        int i = from;
        if (to - from <= CHUNK) {
            require(to - from + after);
            boolean[] escaped = escapes == null ? NO_ESCAPES : escapes.ascii;
            byte[] b = buf;
            int p = pos;
            char c;
            while (i < to && (c = s.charAt(i)) < 0x80 && !escaped[c]) {
                b[p++] = (byte) c;
                i++;
            }
            pos = p;
            if (i == to) {
                return;
            }
        }
        utf8Rest(s, i, to, escapes, after);
    }

    /** No ASCII char escaped. */
    private static final boolean[] NO_ESCAPES = new boolean[128];

    /** {@link #utf8} from the first char that is not plain ASCII (or of a long string), chunk by chunk. */
    private void utf8Rest(CharSequence s, int from, int to, Escapes escapes, int after) {
        int maxBytes = escapes == null ? 3 : Math.max(3, escapes.maxBytes);
        boolean[] escaped = escapes == null ? NO_ESCAPES : escapes.ascii;
        boolean escapeSurrogates = escapes != null && escapes.surrogates;
        int i = from;
        while (i < to) {
            int end = Math.min(to, i + CHUNK);
            require(maxBytes * (end - i) + 1 + after);  // + 1: a pair's second half may lie beyond the chunk
            byte[] b = buf;
            int p = pos;
            for (; i < end; i++) {
                char c = s.charAt(i);
                if (c < 0x80) {
                    if (!escaped[c]) {
                        b[p++] = (byte) c;                                   // 0xxxxxxx
                    } else {
                        p = escapes.escape(c, b, p);
                    }
                } else if (c < 0x800) {
                    b[p++] = (byte) (0xC0 | c >> 6);                         // 110xxxxx
                    b[p++] = (byte) (0x80 | c & 0x3F);                       // 10xxxxxx
                } else if (!Character.isSurrogate(c)) {
                    b[p++] = (byte) (0xE0 | c >> 12);                        // 1110xxxx
                    b[p++] = (byte) (0x80 | c >> 6 & 0x3F);                  // 10xxxxxx
                    b[p++] = (byte) (0x80 | c & 0x3F);                       // 10xxxxxx
                } else if (escapeSurrogates) {
                    p = escapes.escape(c, b, p);
                } else if (Character.isHighSurrogate(c) && i + 1 < to && Character.isLowSurrogate(s.charAt(i + 1))) {
                    int cp = Character.toCodePoint(c, s.charAt(++i));
                    b[p++] = (byte) (0xF0 | cp >> 18);                       // 11110xxx
                    b[p++] = (byte) (0x80 | cp >> 12 & 0x3F);                // 10xxxxxx
                    b[p++] = (byte) (0x80 | cp >> 6 & 0x3F);                 // 10xxxxxx
                    b[p++] = (byte) (0x80 | cp & 0x3F);                      // 10xxxxxx
                } else {
                    b[p++] = '?';                                            // unpaired surrogate
                }
            }
            pos = p;
        }
    }

    /**
     * A Kryo string: varint UTF-8 byte length, then the bytes ({@link #utf8}, no escapes). The length's room is
     * guessed from the char count (exact for ASCII); if the UTF-8 is longer by a varint byte, the bytes move up.
     */
    void kryoString(String s) {
        int n = s.length();
        int guess = varIntLength(n);
        require(guess);
        int at = pos;
        pos = at + guess;
        utf8(s, 0, n, null, 0);
        int length = pos - at - guess;
        int width = varIntLength(length);
        if (width != guess) {  // non-ASCII: at most one byte more
            require(width - guess);
            System.arraycopy(buf, at + guess, buf, at + width, length);
            pos += width - guess;
        }
        int end = pos;
        pos = at;
        varInt(length);
        pos = end;
    }

    /**
     * True if the bytes are well-formed UTF-8 (Unicode's table 3-7: no overlong forms, no surrogates, nothing
     * above U+10FFFF), so that decoding them and encoding the string with {@link #utf8} gives the same bytes.
     */
    static boolean wellFormedUtf8(byte[] b, int offset, int length) {
        int i = offset;
        int end = offset + length;
        while (i < end) {
            int c = b[i];
            if (c >= 0) {
                i++;
                continue;
            }
            c &= 0xFF;
            if (c < 0xC2 || c > 0xF4) {
                return false;
            }
            int n = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
            if (end - i < n) {
                return false;
            }
            int c1 = b[i + 1] & 0xFF;
            int low = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
            int high = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
            if (c1 < low || c1 > high) {
                return false;
            }
            for (int k = 2; k < n; k++) {
                if ((b[i + k] & 0xC0) != 0x80) {
                    return false;
                }
            }
            i += n;
        }
        return true;
    }

    /** A copy of the bytes written: for pre-encoding constants and token names. */
    byte[] toByteArray() {
        return Arrays.copyOf(buf, pos);
    }
}
