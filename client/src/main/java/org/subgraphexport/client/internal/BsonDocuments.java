package org.subgraphexport.client.internal;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import org.subgraphexport.wire.Wire;

/**
 * Reads the concatenated BSON documents of a {@code bson} stream one at a time into a reused buffer that grows
 * as bytes arrive, and checks each document's structure before a parser sees it: every declared length
 * (document, string, binary) fits inside what actually arrived, and only the element types the writer uses
 * occur (double, string, document, array, binary subtype 0, boolean, null, int32, int64), names and strings are
 * terminated, booleans are 0 or 1. {@link BsonTokens} then reads the document relying on exactly that: every
 * declared length inside it is known to be honest.
 */
final class BsonDocuments {
    /** Deepest document nesting: a row value's lists and maps {@link Wire#MAX_NESTING} deep, two levels per map. */
    private static final int MAX_DEPTH = 2 * Wire.MAX_NESTING + 16;

    /** Bytes kept readable after a document's end: {@link ShortStrings} reads up to 8 bytes beyond a string. */
    static final int PADDING = 16;

    private final InputStream in;
    private byte[] doc = new byte[8192];
    private int length;
    /** Scratch of {@link #check}: ends of the enclosing documents. */
    private int[] ends = new int[16];

    BsonDocuments(InputStream source) {
        this.in = new BufferedInputStream(source, 64 * 1024);
    }

    /** Length of the document last returned by {@link #next}. */
    int length() {
        return length;
    }

    /**
     * The next document (in a buffer reused by the following call, with at least {@link #PADDING} bytes after the
     * document), or null at the end of input.
     */
    byte[] next() throws IOException {
        int have = 0;
        while (have < 4) {
            int r = in.read(doc, have, 4 - have);
            if (r < 0) {
                if (have == 0) {
                    return null;
                }
                throw new EOFException("stream ends inside a document length");
            }
            have += r;
        }
        int len = int32(doc, 0);
        if (len < 5 || len > Wire.MAX_BSON_DOCUMENT) {
            throw new DecodeException("BSON document length " + len + " outside 5.." + Wire.MAX_BSON_DOCUMENT);
        }
        while (have < len) {
            if (have == doc.length) {
                doc = Arrays.copyOf(doc, (int) Math.min(len + (long) PADDING, doc.length * 2L));
            }
            int r = in.read(doc, have, Math.min(doc.length, len) - have);
            if (r < 0) {
                throw new EOFException("stream ends inside a document");
            }
            have += r;
        }
        if (doc.length < len + PADDING) {
            doc = Arrays.copyOf(doc, len + PADDING);  // the bytes have arrived: only the padding is new
        }
        length = len;
        check(0, len);
        return doc;
    }

    /**
     * Checks the document occupying {@code [start, end)} and every document and array inside it, iteratively (a
     * stack of the enclosing documents' ends, not recursion: nesting may be {@link #MAX_DEPTH} deep).
     */
    private void check(int start, int end) throws DecodeException {
        byte[] d = doc;
        int[] ends = this.ends;     // ends of the enclosing documents, outermost first
        int depth = 0;
        int docEnd = end;
        int last = terminated(docEnd);  // the terminating 0x00
        int i = start + 4;
        while (true) {
            int type = d[i++];
            if (type == 0) {
                if (i != docEnd) {
                    throw new DecodeException("BSON document ends " + (docEnd - i) + " bytes before its length");
                }
                if (depth == 0) {
                    return;
                }
                docEnd = ends[--depth];  // back in the enclosing document, right after the one just checked
                last = docEnd - 1;
                continue;
            }
            while (i < last && d[i] != 0) {  // element name
                i++;
            }
            i++;
            switch (type) {
                case 0x01, 0x12 -> i += 8;                            // double, int64
                case 0x10 -> i += 4;                                  // int32
                case 0x08 -> {                                        // boolean
                    if (i < last && (d[i] & 0xFE) != 0) {
                        throw new DecodeException("BSON boolean " + d[i]);
                    }
                    i += 1;
                }
                case 0x0A -> { }                                      // null
                case 0x02 -> {                                        // string: int32 length incl. 0x00
                    int n = lengthAt(i, last, 1, last - i - 4);
                    i += 4 + n;
                    if (i > last || d[i - 1] != 0) {
                        throw new DecodeException("BSON string not terminated by 0x00");
                    }
                }
                case 0x03, 0x04 -> {                                  // document, array: check it next
                    int n = lengthAt(i, last, 5, last - i);
                    if (depth == MAX_DEPTH) {
                        throw new DecodeException("BSON documents nested deeper than " + MAX_DEPTH);
                    }
                    if (depth == ends.length) {
                        ends = this.ends = Arrays.copyOf(ends, depth * 2);
                    }
                    ends[depth++] = docEnd;
                    docEnd = i + n;
                    last = terminated(docEnd);
                    i += 4;
                    continue;
                }
                case 0x05 -> {                                        // binary: int32 length, subtype, bytes
                    int n = lengthAt(i, last, 0, last - i - 5);
                    if (d[i + 4] != 0) {
                        throw new DecodeException("BSON binary subtype " + d[i + 4] + ", expected 0");
                    }
                    i += 5 + n;
                }
                default -> throw new DecodeException(String.format("BSON element type 0x%02x", type & 0xFF));
            }
            if (i > last) {
                throw new DecodeException("BSON element overruns its document");
            }
        }
    }

    /** The index of the 0x00 that ends the document ending at {@code end}. */
    private int terminated(int end) throws DecodeException {
        if (doc[end - 1] != 0) {
            throw new DecodeException("BSON document does not end with 0x00");
        }
        return end - 1;
    }

    /** The int32 length at {@code i} (which must fit before {@code last}), checked to be in {@code min..max}. */
    private int lengthAt(int i, int last, int min, int max) throws DecodeException {
        if (i + 4 > last) {
            throw new DecodeException("BSON element overruns its document");
        }
        int n = int32(doc, i);
        if (n < min || n > max) {
            throw new DecodeException("BSON length " + n + " does not fit its document");
        }
        return n;
    }

    private static int int32(byte[] b, int i) {
        return (b[i] & 0xFF) | (b[i + 1] & 0xFF) << 8 | (b[i + 2] & 0xFF) << 16 | (b[i + 3] & 0xFF) << 24;
    }
}
