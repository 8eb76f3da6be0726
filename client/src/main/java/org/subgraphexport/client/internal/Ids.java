package org.subgraphexport.client.internal;

import org.subgraphexport.client.ElementId;

/**
 * The {@link ElementId} view a parser fills and hands to the handler, one per role (record id, start, end, reference)
 * so that a relationship's three ids are valid together. Kryo sets prefix and number; JSON and BSON set the text,
 * split lazily, keeping the prefix String of the previous id in this role when it is the same.
 */
final class Ids implements ElementId {
    private String prefix;
    private long number;
    /** The whole element id, if the stream carried it as text or {@link #toString} built it; else null. */
    private String text;
    /** 1 if the id is prefix and number, 0 if its text does not end in a canonical number, -1 if not split yet. */
    private int numbered;

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
        String p = prefix;
        if (p == null || p.length() != start || !t.startsWith(p)) {
            p = t.substring(0, start);
        }
        prefix = p;
        number = n;
        numbered = 1;
    }
}
