package org.subgraphexport.encode;

import org.subgraphexport.wire.Wire;

/** Checks and text routines the encoders share. */
final class WireText {
    private WireText() {}

    /** A path has one node more than relationships, and at most {@link Wire#MAX_LENGTH} nodes: every writer checks. */
    static void checkPath(long[] nodeIds, long[] relationshipIds) {
        if (nodeIds.length != relationshipIds.length + 1 || nodeIds.length > Wire.MAX_LENGTH) {
            throw new IllegalArgumentException("a path has one node more than relationships, not "
                    + nodeIds.length + " and " + relationshipIds.length);
        }
    }

    private static final byte[] DIGIT_PAIRS = new byte[200];

    static {
        for (int i = 0; i < 100; i++) {
            DIGIT_PAIRS[2 * i] = (byte) ('0' + i / 10);
            DIGIT_PAIRS[2 * i + 1] = (byte) ('0' + i % 10);
        }
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

    /** {@code s} with unpaired surrogates replaced by {@code '?'}, as UTF-8 encoding does in Kryo. */
    static String wellFormed(String s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                } else {
                    return replaceUnpaired(s);
                }
            }
        }
        return s;
    }

    private static String replaceUnpaired(String s) {
        char[] c = s.toCharArray();
        for (int i = 0; i < c.length; i++) {
            if (Character.isHighSurrogate(c[i]) && i + 1 < c.length && Character.isLowSurrogate(c[i + 1])) {
                i++;
            } else if (Character.isSurrogate(c[i])) {
                c[i] = '?';
            }
        }
        return new String(c);
    }
}
