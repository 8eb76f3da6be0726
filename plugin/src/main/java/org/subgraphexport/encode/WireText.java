package org.subgraphexport.encode;

import org.subgraphexport.wire.Wire;

/** Checks on what the encoders are given: paths, and strings with unpaired surrogates. */
final class WireText {
    private WireText() {}

    /** A path has one node more than relationships, and at most {@link Wire#MAX_LENGTH} nodes: every writer checks. */
    static void checkPath(long[] nodeIds, long[] relationshipIds) {
        if (nodeIds.length != relationshipIds.length + 1 || nodeIds.length > Wire.MAX_LENGTH) {
            throw new IllegalArgumentException("a path has one node more than relationships, not "
                    + nodeIds.length + " and " + relationshipIds.length);
        }
    }

    /** {@code s} with unpaired surrogates replaced by {@code '?'}, as {@link WireBuffer#utf8} encodes them. */
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
