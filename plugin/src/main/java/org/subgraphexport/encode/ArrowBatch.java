package org.subgraphexport.encode;

import java.util.Arrays;

/**
 * The field nodes and buffers of one Arrow record batch, collected column by column in pre-order
 * ({@link ArrowColumn#emit}), then written as one IPC message: the RecordBatch header and the body, each buffer at
 * an 8-aligned offset. The buffers are the columns' own arrays, copied once, into the writer's output buffer.
 */
final class ArrowBatch {
    private long[] nodes = new long[64];
    private int nodeCount;
    private byte[][] arrays = new byte[64][];
    private int[] lengths = new int[64];
    private int bufferCount;

    void clear() {
        nodeCount = 0;
        bufferCount = 0;
        Arrays.fill(arrays, null);
    }

    /** One field node: the column's length and null count. */
    void node(long length, long nulls) {
        if (2 * nodeCount + 2 > nodes.length) {
            nodes = Arrays.copyOf(nodes, nodes.length * 2);
        }
        nodes[2 * nodeCount] = length;
        nodes[2 * nodeCount + 1] = nulls;
        nodeCount++;
    }

    /** One buffer: the first {@code length} bytes of {@code array} (length 0: an empty buffer). */
    void buffer(byte[] array, int length) {
        if (bufferCount == arrays.length) {
            arrays = Arrays.copyOf(arrays, bufferCount * 2);
            lengths = Arrays.copyOf(lengths, bufferCount * 2);
        }
        arrays[bufferCount] = array;
        lengths[bufferCount] = length;
        bufferCount++;
    }

    /** The body's length: every buffer padded to 8 bytes. */
    long bodyLength() {
        long n = 0;
        for (int i = 0; i < bufferCount; i++) {
            n += pad8(lengths[i]);
        }
        return n;
    }

    /** The RecordBatch table ({@code Message.fbs}): length, nodes, buffers (offset and length in the body). */
    FlatBuffer.Table header(long rows) {
        long[] buffers = new long[2 * bufferCount];
        long offset = 0;
        for (int i = 0; i < bufferCount; i++) {
            buffers[2 * i] = offset;
            buffers[2 * i + 1] = lengths[i];
            offset += pad8(lengths[i]);
        }
        return new FlatBuffer.Table()
                .int64(0, rows)                                        // length
                .child(1, Arrays.copyOf(nodes, 2 * nodeCount))         // nodes: [FieldNode]
                .child(2, buffers);                                    // buffers: [Buffer]
    }

    /** The body: each buffer, zero-padded to 8 bytes. */
    void writeBody(WireBuffer out) {
        for (int i = 0; i < bufferCount; i++) {
            int n = lengths[i];
            int padded = (int) pad8(n);
            out.require(padded);
            System.arraycopy(arrays[i], 0, out.buf, out.pos, n);
            Arrays.fill(out.buf, out.pos + n, out.pos + padded, (byte) 0);
            out.pos += padded;
        }
    }

    static long pad8(long n) {
        return (n + 7) & ~7L;
    }
}
