package org.subgraphexport.client.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.subgraphexport.wire.ValueSink;
import org.subgraphexport.wire.Wire;

/**
 * A cache of ASCII strings of at most 16 bytes, keyed by their bytes as two little-endian longs: a recurring
 * label, type, key or enum-like value costs a lookup instead of a String. Bounded: each lookup probes two slots,
 * and a new string that finds neither free replaces the first. {@link #seeded} caches start with the wire format's
 * own strings (field names, record kinds, value tags, vector kinds, ...), the instances the decoders' {@code switch}
 * statements hold, so that a name or short value found in them matches by identity. One per decoder (not
 * thread-safe); used by {@link JsonTokens} and {@link BsonTokens}. The bytes are read as whole longs and masked:
 * the 8 bytes from the string's start (and from its ninth byte, if longer) must be readable, so up to 8 bytes beyond
 * its end (both callers' buffers are padded).
 */
final class ShortStrings {
    static final int MAX_LENGTH = 16;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    /** The wire format's own strings, the template of {@link #seeded} caches. */
    private static final ShortStrings CANONICAL = new ShortStrings(1024);

    static {
        List<String> canonical = new ArrayList<>();
        for (Field f : Wire.Json.class.getFields()) {
            if (f.getType() == String.class && Modifier.isStatic(f.getModifiers())) {
                try {
                    canonical.add((String) f.get(null));
                } catch (IllegalAccessException e) {
                    throw new ExceptionInInitializerError(e);
                }
            }
        }
        for (ValueSink.ArrayKind k : ValueSink.ArrayKind.values()) {
            canonical.add(Wire.Json.arrayTag(k));
        }
        for (ValueSink.VectorKind k : ValueSink.VectorKind.values()) {
            canonical.add(k.name());
        }
        for (String c : canonical) {
            if (c.length() <= MAX_LENGTH) {
                byte[] b = Arrays.copyOf(c.getBytes(StandardCharsets.ISO_8859_1), c.length() + 2 * Long.BYTES);
                CANONICAL.put(b, 0, c.length(), c);
            }
        }
    }

    private final long[] words0;
    private final long[] words1;
    /** Length + 1 of each slot's string; 0 for a free slot. */
    private final int[] lengths;
    private final String[] strings;
    private final int shift;

    private ShortStrings(int slots) {
        words0 = new long[slots];
        words1 = new long[slots];
        lengths = new int[slots];
        strings = new String[slots];
        shift = Long.SIZE - Integer.numberOfTrailingZeros(slots);
    }

    private ShortStrings(ShortStrings template) {
        words0 = template.words0.clone();
        words1 = template.words1.clone();
        lengths = template.lengths.clone();
        strings = template.strings.clone();
        shift = template.shift;
    }

    /** The string of the ASCII bytes {@code b[start..start+length)} (length at most 16; see the class comment). */
    String get(byte[] b, int start, int length) {
        long w0 = word(b, start, length);
        long w1 = length > 8 ? word(b, start + 8, length - 8) : 0;
        int s = slot(w0, w1, length);
        int mask = lengths.length - 1;
        for (int i = 0; i < 2; i++, s = (s + 1) & mask) {
            if (lengths[s] == length + 1 && words0[s] == w0 && words1[s] == w1) {
                return strings[s];
            }
        }
        String string = new String(b, start, length, StandardCharsets.ISO_8859_1);
        put(w0, w1, length, string);
        return string;
    }

    void put(byte[] b, int start, int length, String string) {
        long w0 = word(b, start, length);
        put(w0, length > 8 ? word(b, start + 8, length - 8) : 0, length, string);
    }

    private void put(long w0, long w1, int length, String string) {
        int first = slot(w0, w1, length);
        int s = lengths[first] == 0 ? first : (first + 1) & (lengths.length - 1);
        if (lengths[s] != 0) {
            s = first;
        }
        words0[s] = w0;
        words1[s] = w1;
        lengths[s] = length + 1;
        strings[s] = string;
    }

    private int slot(long w0, long w1, int length) {
        long h = (w0 ^ Long.rotateLeft(w1, 29) ^ length) * 0x9E3779B97F4A7C15L;
        return (int) (h >>> shift);
    }

    /** A cache holding the wire format's own strings to start with. */
    static ShortStrings seeded() {
        return new ShortStrings(CANONICAL);
    }

    /** The {@code min(8, left)} bytes at {@code i} as a little-endian long, zero-padded (reads 8 bytes). */
    static long word(byte[] b, int i, int left) {
        long w = (long) LONGS.get(b, i);
        return left >= 8 ? w : w & ((1L << (left << 3)) - 1);
    }
}
