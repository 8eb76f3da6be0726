package org.subgraphexport.client.internal;

import org.subgraphexport.client.ElementId;

/**
 * The {@link ElementId} view a parser fills and hands to the handler, one per role (node, relationship, start, end,
 * references) so that a relationship's three ids are valid together. Kryo sets prefix and number; JSON and BSON set
 * the text, split lazily, its prefix taken from the few recent prefixes all views of one parser share when it is
 * one of them (a stream has one node and one relationship prefix per database).
 */
final class Ids implements ElementId {
    /** Recent prefixes of JSON and BSON ids, shared by the views of one parser; replaced round-robin. */
    static final class Prefixes {
        private final String[] recent = new String[4];
        private int next;

        String of(String text, int length) {
            for (String p : recent) {
                if (p != null && p.length() == length && text.startsWith(p)) {
                    return p;
                }
            }
            String p = text.substring(0, length);
            recent[next] = p;
            next = (next + 1) & (recent.length - 1);
            return p;
        }
    }

    private final Prefixes prefixes;
    private String prefix;
    private long number;
    /** The whole element id, if the stream carried it as text or {@link #toString} built it; else null. */
    private String text;
    /** 1 if the id is prefix and number, 0 if its text does not end in a canonical number, -1 if not split yet. */
    private int numbered;

    Ids(Prefixes prefixes) {
        this.prefixes = prefixes;
    }

    /** An id read as prefix and number (Kryo). */
    void set(String prefix, long number) {
        this.prefix = prefix;
        this.number = number;
        this.text = null;
        this.numbered = 1;
    }

    /** An id read as text (JSON, BSON). */
    void set(String text) {
        this.text = text;
        this.numbered = -1;
    }

    @Override
    public String prefix() {
        split();
        return prefix;
    }

    @Override
    public long number() {
        split();
        return number;
    }

    @Override
    public boolean hasNumber() {
        split();
        return numbered == 1;
    }

    @Override
    public String toString() {
        String t = text;
        if (t == null) {
            t = text = prefix + number;
        }
        return t;
    }

    /** True if this id's text was built from its parts, not read (Kryo): its String is worth caching. */
    boolean built() {
        return numbered == 1 && text == null;
    }

    private void split() {
        if (numbered >= 0) {
            return;
        }
        String t = text;
        int end = t.length();
        int i = end;
        while (i > 0 && t.charAt(i - 1) >= '0' && t.charAt(i - 1) <= '9') {
            i--;
        }
        int digits = end - i;
        int start = i > 0 && t.charAt(i - 1) == '-' ? i - 1 : i;
        // canonical: no leading zero (but "0" itself), no "-0", at most 19 digits, within the long range
        boolean canonical = digits > 0 && digits <= 19 && (t.charAt(i) != '0' || digits == 1 && start == i);
        long n = 0;
        if (canonical) {
            try {
                n = Long.parseLong(t, start, end, 10);
            } catch (NumberFormatException e) {
                canonical = false;
            }
        }
        if (!canonical) {
            prefix = t;
            number = 0;
            numbered = 0;
            return;
        }
        prefix = prefixes.of(t, start);
        number = n;
        numbered = 1;
    }
}
