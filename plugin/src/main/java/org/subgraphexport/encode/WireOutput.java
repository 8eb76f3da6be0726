package org.subgraphexport.encode;

import com.esotericsoftware.kryo.io.Output;
import java.io.OutputStream;

/**
 * Kryo's {@link Output} plus the two string encodings the wire format needs, written straight into the buffer:
 * the chars of an ASCII string as bytes, and UTF-8 without {@code String.getBytes}. With an output stream, a fill
 * of the buffer is one write to it; without one (as {@link KryoGraphWriter} uses it), the buffer grows up to its
 * maximum instead, and the owner decides when its bytes go out.
 */
final class WireOutput extends Output {
    /** A fixed buffer of {@code bufferSize} bytes, no output stream. */
    WireOutput(int bufferSize) {
        super(bufferSize, bufferSize);
    }

    /** A buffer of {@code bufferSize} bytes growing up to {@code maxBufferSize} (-1: no limit), no output stream. */
    WireOutput(int bufferSize, int maxBufferSize) {
        super(bufferSize, maxBufferSize);
    }

    WireOutput(OutputStream out, int bufferSize) {
        super(out, bufferSize);
    }

    // Fixed-width numbers are big-endian on the wire. Kryo 5's own writeShort/writeInt/writeLong/writeFloat/
    // writeDouble/writeChar are little-endian, so these replace them (same shape: one bounds check, stores).

    /** 2 bytes, big-endian. */
    void putShort(int v) {
        require(2);
        byte[] b = buffer;
        int p = position;
        b[p] = (byte) (v >>> 8);
        b[p + 1] = (byte) v;
        position = p + 2;
    }

    /** 4 bytes, big-endian. */
    void putInt(int v) {
        require(4);
        byte[] b = buffer;
        int p = position;
        b[p] = (byte) (v >>> 24);
        b[p + 1] = (byte) (v >>> 16);
        b[p + 2] = (byte) (v >>> 8);
        b[p + 3] = (byte) v;
        position = p + 4;
    }

    /** 8 bytes, big-endian. */
    void putLong(long v) {
        require(8);
        byte[] b = buffer;
        int p = position;
        b[p] = (byte) (v >>> 56);
        b[p + 1] = (byte) (v >>> 48);
        b[p + 2] = (byte) (v >>> 40);
        b[p + 3] = (byte) (v >>> 32);
        b[p + 4] = (byte) (v >>> 24);
        b[p + 5] = (byte) (v >>> 16);
        b[p + 6] = (byte) (v >>> 8);
        b[p + 7] = (byte) v;
        position = p + 8;
    }

    /** IEEE 754 bits, NaN canonical, 4 bytes big-endian. */
    void putFloat(float v) {
        putInt(Float.floatToIntBits(v));
    }

    /** IEEE 754 bits, NaN canonical, 8 bytes big-endian. */
    void putDouble(double v) {
        putLong(Double.doubleToLongBits(v));
    }

    /**
     * Writes a wire string: varint UTF-8 byte length, then the bytes. ASCII strings are copied char by char
     * into the buffer; others are UTF-8 encoded in place, an unpaired surrogate as {@code '?'}.
     */
    void writeWireString(String s) {
        int n = s.length();
        int i = 0;
        while (i < n && s.charAt(i) < 0x80) {
            i++;
        }
        if (i == n) {
            writeVarInt(n, true);  // byte length = char count
            putAscii(s, n);
        } else {
            writeVarInt(utf8Length(s, i), true);  // byte length
            putUtf8(s, n);
        }
    }

    private void putAscii(String s, int n) {
        int i = 0;
        while (i < n) {
            if (position == capacity) {
                require(1);  // flushes or grows
            }
            int end = Math.min(n, i + capacity - position);
            byte[] b = buffer;
            int p = position;
            while (i < end) {
                b[p++] = (byte) s.charAt(i++);  // one ASCII char = one byte
            }
            position = p;
        }
    }

    private void putUtf8(String s, int n) {
        int i = 0;
        while (i < n) {
            if (capacity - position < 4) {
                require(4);  // flushes or grows
            }
            byte[] b = buffer;
            int p = position;
            int limit = capacity - 4;  // room for the longest sequence
            while (i < n && p <= limit) {
                char c = s.charAt(i++);
                if (c < 0x80) {
                    b[p++] = (byte) c;                                  // 0xxxxxxx
                } else if (c < 0x800) {
                    b[p++] = (byte) (0xC0 | (c >> 6));                  // 110xxxxx
                    b[p++] = (byte) (0x80 | (c & 0x3F));                // 10xxxxxx
                } else if (Character.isSurrogate(c)) {
                    char d;
                    if (Character.isHighSurrogate(c) && i < n && Character.isLowSurrogate(d = s.charAt(i))) {
                        i++;
                        int cp = Character.toCodePoint(c, d);
                        b[p++] = (byte) (0xF0 | (cp >> 18));            // 11110xxx
                        b[p++] = (byte) (0x80 | ((cp >> 12) & 0x3F));   // 10xxxxxx
                        b[p++] = (byte) (0x80 | ((cp >> 6) & 0x3F));    // 10xxxxxx
                        b[p++] = (byte) (0x80 | (cp & 0x3F));           // 10xxxxxx
                    } else {
                        b[p++] = '?';                                   // unpaired surrogate
                    }
                } else {
                    b[p++] = (byte) (0xE0 | (c >> 12));                 // 1110xxxx
                    b[p++] = (byte) (0x80 | ((c >> 6) & 0x3F));         // 10xxxxxx
                    b[p++] = (byte) (0x80 | (c & 0x3F));                // 10xxxxxx
                }
            }
            position = p;
        }
    }

    /** UTF-8 byte length of {@code s}, whose first {@code asciiPrefix} chars are known to be ASCII. */
    static int utf8Length(String s, int asciiPrefix) {
        int n = s.length();
        long len = asciiPrefix;
        for (int i = asciiPrefix; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                len += 1;
            } else if (c < 0x800) {
                len += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                len += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                len += 1;
            } else {
                len += 3;
            }
        }
        if (len > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("string too long for UTF-8 encoding: " + len + " bytes");
        }
        return (int) len;
    }
}
