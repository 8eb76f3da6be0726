package org.subgraphexport.encode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A strict reader of the {@code arrow} format's IPC streams for the Java tests, written from the Arrow
 * specification (Columnar format, {@code Message.fbs}, {@code Schema.fbs}) and checking what the FlatBuffers
 * verifier and pyarrow's reader check, and what this writer promises on top: every scalar aligned to its size from
 * the flatbuffer's start, tables 4-aligned with their vtable before them and inside its bounds, metadata padded to
 * 8, buffers at 8-aligned offsets inside the body, each buffer exactly as long as its column needs (a validity
 * bitmap only when there are nulls, its null count equal to the field node's), padding zero, and what the writer's
 * columns promise (ArrowColumn): the data of a null and the bits past a column's end are zero. pyarrow is the oracle
 * in python/tests; PIT runs the Java tests only, so these decode what the writer wrote, value by value.
 *
 * <p>Values: int8/int16/int32/int64 as Byte/Short/Integer/Long, uint16 as Character, float32/float64, bool,
 * utf8 as String, binary as "hex:..", date32 as LocalDate, time64[ns] as LocalTime, timestamp[ns] as LocalDateTime
 * (no zone) or Instant, fixed_size_binary(16) as UUID, dictionary columns as the String they index, lists as List,
 * structs as maps by child name (null when the struct value is null), the union as {@link Row}s.
 */
final class ArrowStreamReader {
    private ArrowStreamReader() {}

    /** A field of the schema. */
    record Field(String name, boolean nullable, int typeType, Fb type, long dictionaryId, int indexBits,
                 List<Field> children, Map<String, String> metadata) {
        Field child(String n) {
            for (Field f : children) {
                if (f.name.equals(n)) {
                    return f;
                }
            }
            throw new AssertionError("no child " + n + " in " + name);
        }
    }

    /** One row of the union: the group's position and name, and the struct's values by column name. */
    record Row(int group, String groupName, Map<String, Object> values) {
        Object get(String column) {
            return values.get(column);
        }
    }

    /** A whole stream, read. */
    static final class Stream {
        Map<String, String> schemaMetadata;
        Field element;
        /** Every message in order: "schema", "dictionary 0", "delta 1", "batch 10" (its row count). */
        final List<String> messages = new ArrayList<>();
        /** The rows of each record batch (the closing batch's too: none). */
        final List<List<Row>> batches = new ArrayList<>();
        /** The closing batch's metadata. */
        Map<String, String> closing;
        final List<String> labels = new ArrayList<>(), types = new ArrayList<>();

        List<Row> rows() {
            List<Row> all = new ArrayList<>();
            batches.forEach(all::addAll);
            return all;
        }

        Field group(int i) {
            return element.children.get(i);
        }
    }

    static Stream read(byte[] b) {
        return read(b, true);
    }

    /** Only the messages' framing and headers, not the batches' bodies: the message list of a large stream. */
    static List<String> messages(byte[] b) {
        return read(b, false).messages;
    }

    private static Stream read(byte[] b, boolean bodies) {
        Stream s = new Stream();
        int p = 0;
        while (true) {
            assertEquals(0, p % 8, "message at " + p + " not 8-aligned");
            assertEquals(-1, int32(b, p), "continuation marker at " + p);
            int metaLength = int32(b, p + 4);
            p += 8;
            if (metaLength == 0) {
                break;
            }
            assertTrue(metaLength > 0 && metaLength % 8 == 0, "metadata length " + metaLength);
            Fb message = Fb.root(b, p, metaLength);
            assertEquals(4, message.scalar(0, 2), "metadata version V5");
            int headerType = (int) message.scalar(1, 1);
            long bodyLength = message.scalar(3, 8);
            Map<String, String> custom = keyValues(message, 4);
            int body = p + metaLength;
            assertTrue(body + bodyLength <= b.length, "body past the end");
            Fb header = message.table(2);
            switch (headerType) {
                case 1 -> {
                    assertEquals(null, s.element, "a second schema");
                    assertEquals(0, bodyLength, "schema with a body");
                    assertEquals(0, header.scalar(0, 2), "little-endian");
                    List<Fb> fields = header.tables(1);
                    assertEquals(1, fields.size(), "one column");
                    s.element = field(fields.get(0));
                    s.schemaMetadata = keyValues(header, 2);
                    s.messages.add("schema");
                }
                case 2 -> {
                    long id = header.scalar(0, 8);
                    boolean delta = header.scalar(2, 1) != 0;
                    Fb data = header.table(1);
                    Body d = new Body(b, body, bodyLength, data);
                    List<String> dict = id == 0 ? s.labels : s.types;
                    assertTrue(id == 0 || id == 1, "dictionary id " + id);
                    if (!delta) {
                        assertTrue(dict.isEmpty(), "a second non-delta dictionary " + id);
                    }
                    Field utf8 = new Field("", true, ArrowColumn.T_UTF8, null, -1, 0, List.of(), null);
                    int n = (int) data.scalar(0, 8);
                    Object[] values = d.column(utf8, s, n);
                    for (Object v : values) {
                        dict.add((String) v);
                    }
                    d.done();
                    s.messages.add((delta ? "delta " : "dictionary ") + id);
                }
                case 3 -> {
                    assertTrue(s.element != null, "a batch before the schema");
                    int n = (int) header.scalar(0, 8);
                    if (bodies) {
                        Body d = new Body(b, body, bodyLength, header);
                        Object[] rows = d.column(s.element, s, n);
                        d.done();
                        List<Row> list = new ArrayList<>();
                        for (Object r : rows) {
                            list.add((Row) r);
                        }
                        s.batches.add(list);
                    }
                    s.messages.add("batch " + n);
                    if (!custom.isEmpty()) {
                        assertEquals(0, n, "closing metadata on a batch with rows");
                        s.closing = custom;
                    }
                }
                default -> throw new AssertionError("message header type " + headerType);
            }
            p = body + (int) bodyLength;
        }
        assertEquals(b.length, p, "bytes after the end-of-stream marker");
        return s;
    }

    private static Field field(Fb f) {
        Fb dict = f.table(4);
        List<Field> children = new ArrayList<>();
        for (Fb c : f.tables(5)) {
            children.add(field(c));
        }
        long dictionaryId = -1;
        int indexBits = 0;
        if (dict != null) {
            dictionaryId = dict.scalar(0, 8);
            Fb index = dict.table(1);
            indexBits = (int) index.scalar(0, 4);
            assertEquals(1, index.scalar(1, 1), "signed dictionary index");
            assertEquals(0, dict.scalar(2, 1), "unordered dictionary");
        }
        Map<String, String> meta = f.has(6) ? keyValues(f, 6) : null;
        return new Field(f.string(0), f.scalar(1, 1) != 0, (int) f.scalar(2, 1), f.table(3), dictionaryId, indexBits,
                children, meta);
    }

    private static Map<String, String> keyValues(Fb t, int slot) {
        Map<String, String> m = new LinkedHashMap<>();
        for (Fb kv : t.tables(slot)) {
            m.put(kv.string(0), kv.string(1));
        }
        return m;
    }

    /** The nodes and buffers of one record batch, taken in pre-order. */
    private static final class Body {
        final byte[] b;
        final int at;
        final long length;
        final long[] nodes, buffers;
        int node, buffer;

        Body(byte[] b, int at, long length, Fb recordBatch) {
            this.b = b;
            this.at = at;
            this.length = length;
            nodes = recordBatch.structs(1);
            buffers = recordBatch.structs(2);
            long end = 0;
            for (int i = 0; i < buffers.length; i += 2) {
                assertEquals(0, buffers[i] % 8, "buffer offset " + buffers[i] + " not 8-aligned");
                assertTrue(buffers[i] >= end, "buffers overlap");
                end = buffers[i] + buffers[i + 1];
                assertTrue(end <= length, "buffer past the body");
                for (long z = end; z < (i + 2 < buffers.length ? buffers[i + 2] : length); z++) {
                    assertEquals(0, b[at + (int) z], "padding byte " + z + " of the body");
                }
            }
            assertEquals(0, length % 8, "body length " + length);
        }

        void done() {
            assertEquals(nodes.length, 2 * node, "field nodes left over");
            assertEquals(buffers.length, 2 * buffer, "buffers left over");
        }

        /** The next buffer: its absolute start and length. */
        int[] buffer() {
            assertTrue(2 * buffer < buffers.length, "too few buffers");
            int[] r = {at + (int) buffers[2 * buffer], (int) buffers[2 * buffer + 1]};
            buffer++;
            return r;
        }

        Object[] column(Field f, Stream s, int expectedLength) {
            assertTrue(2 * node < nodes.length, "too few field nodes");
            int n = (int) nodes[2 * node];
            int nulls = (int) nodes[2 * node + 1];
            node++;
            assertTrue(n >= expectedLength, f.name + ": " + n + " values, " + expectedLength + " needed");
            Object[] out = new Object[n];
            if (f.typeType == ArrowColumn.T_UNION) {
                assertEquals(0, nulls, "a union has no nulls");
                assertEquals(1, f.type.scalar(0, 2), "dense union");
                int[] typeIds = buffer();
                int[] offsets = buffer();
                assertEquals(n, typeIds[1], "type id buffer");
                assertEquals(4 * n, offsets[1], "offset buffer");
                int[] ids = f.type.ints(1);
                List<Object[]> children = new ArrayList<>();
                for (int i = 0; i < f.children.size(); i++) {
                    assertEquals(i, ids[i], "type id of child " + i);
                    children.add(column(f.children.get(i), s, 0));
                }
                for (int i = 0; i < n; i++) {
                    int child = b[typeIds[0] + i];
                    int offset = int32(b, offsets[0] + 4 * i);
                    @SuppressWarnings("unchecked")
                    Map<String, Object> values = (Map<String, Object>) children.get(child)[offset];
                    out[i] = new Row(child, f.children.get(child).name, values);
                }
                return out;
            }
            int[] validity = buffer();
            boolean[] valid = new boolean[n];
            if (validity[1] == 0) {
                assertEquals(0, nulls, f.name + ": nulls without a validity bitmap");
                java.util.Arrays.fill(valid, true);
            } else {
                assertEquals((n + 7) / 8, validity[1], f.name + ": validity bitmap length");
                int count = 0;
                for (int i = 0; i < n; i++) {
                    valid[i] = (b[validity[0] + (i >> 3)] >> (i & 7) & 1) != 0;
                    count += valid[i] ? 0 : 1;
                }
                assertEquals(nulls, count, f.name + ": null count");
                assertEquals(0, n % 8 == 0 ? 0 : b[validity[0] + n / 8] >> (n % 8), f.name + ": bits past the end");
                assertTrue(nulls > 0, f.name + ": a bitmap without nulls");
            }
            if (f.dictionaryId >= 0) {
                int[] data = buffer();
                assertEquals(32, f.indexBits);
                assertEquals(4 * n, data[1], f.name + ": index buffer");
                List<String> dict = f.dictionaryId == 0 ? s.labels : s.types;
                for (int i = 0; i < n; i++) {
                    out[i] = valid[i] ? dict.get(int32(b, data[0] + 4 * i)) : null;
                }
                return out;
            }
            switch (f.typeType) {
                case ArrowColumn.T_STRUCT -> {
                    List<Object[]> children = new ArrayList<>();
                    for (Field c : f.children) {
                        Object[] child = column(c, s, n);
                        assertEquals(n, child.length, f.name + "." + c.name + ": not as long as its struct");
                        children.add(child);
                    }
                    for (int i = 0; i < n; i++) {
                        if (valid[i]) {
                            Map<String, Object> m = new LinkedHashMap<>();
                            for (int c = 0; c < f.children.size(); c++) {
                                m.put(f.children.get(c).name, children.get(c)[i]);
                            }
                            out[i] = m;
                        }
                    }
                }
                case ArrowColumn.T_LIST, ArrowColumn.T_UTF8, ArrowColumn.T_BINARY -> {
                    int[] offsets = buffer();
                    assertEquals(4 * (n + 1), offsets[1], f.name + ": offset buffer");
                    int[] o = new int[n + 1];
                    for (int i = 0; i <= n; i++) {
                        o[i] = int32(b, offsets[0] + 4 * i);
                        assertTrue(i == 0 ? o[i] == 0 : o[i] >= o[i - 1], f.name + ": offsets not rising");
                    }
                    if (f.typeType == ArrowColumn.T_LIST) {
                        Object[] items = column(f.children.get(0), s, o[n]);
                        assertEquals(o[n], items.length, f.name + ": list child length");
                        for (int i = 0; i < n; i++) {
                            out[i] = valid[i] ? List.of(java.util.Arrays.copyOfRange(items, o[i], o[i + 1]))
                                    .stream().toList() : null;
                        }
                    } else {
                        int[] data = buffer();
                        assertEquals(o[n], data[1], f.name + ": data buffer");
                        for (int i = 0; i < n; i++) {
                            if (valid[i]) {
                                out[i] = f.typeType == ArrowColumn.T_UTF8
                                        ? new String(b, data[0] + o[i], o[i + 1] - o[i], StandardCharsets.UTF_8)
                                        : "hex:" + HexFormat.of().formatHex(b, data[0] + o[i], data[0] + o[i + 1]);
                            } else {
                                assertEquals(o[i], o[i + 1], f.name + ": a null with data");
                            }
                        }
                    }
                }
                case ArrowColumn.T_BOOL -> {
                    int[] data = buffer();
                    assertEquals((n + 7) / 8, data[1], f.name + ": bit buffer");
                    assertEquals(0, n % 8 == 0 ? 0 : b[data[0] + n / 8] >> (n % 8), f.name + ": bits past the end");
                    for (int i = 0; i < n; i++) {
                        boolean v = (b[data[0] + (i >> 3)] >> (i & 7) & 1) != 0;
                        out[i] = valid[i] ? v : null;
                        assertTrue(valid[i] || !v, f.name + ": a null with a set bit");
                    }
                }
                default -> {
                    int width = width(f);
                    int[] data = buffer();
                    assertEquals(width * n, data[1], f.name + ": data buffer");
                    for (int i = 0; i < n; i++) {
                        int p = data[0] + width * i;
                        if (!valid[i]) {
                            for (int k = 0; k < width; k++) {
                                assertEquals(0, b[p + k], f.name + ": a null's data is not zero");
                            }
                            continue;
                        }
                        out[i] = fixed(f, b, p);
                    }
                }
            }
            return out;
        }
    }

    private static int width(Field f) {
        return switch (f.typeType) {
            case ArrowColumn.T_INT -> (int) f.type.scalar(0, 4) / 8;
            case ArrowColumn.T_FLOAT -> f.type.scalar(0, 2) == 1 ? 4 : 8;
            case ArrowColumn.T_DATE -> 4;
            case ArrowColumn.T_TIME, ArrowColumn.T_TIMESTAMP -> 8;
            case ArrowColumn.T_FIXED_SIZE_BINARY -> (int) f.type.scalar(0, 4);
            default -> throw new AssertionError(f.name + ": type " + f.typeType);
        };
    }

    private static Object fixed(Field f, byte[] b, int p) {
        switch (f.typeType) {
            case ArrowColumn.T_INT -> {
                boolean signed = f.type.scalar(1, 1) != 0;
                return switch ((int) f.type.scalar(0, 4)) {
                    case 8 -> b[p];
                    case 16 -> signed ? (Object) (short) int16(b, p) : (Object) (char) int16(b, p);
                    case 32 -> int32(b, p);
                    default -> int64(b, p);
                };
            }
            case ArrowColumn.T_FLOAT -> {
                return f.type.scalar(0, 2) == 1 ? (Object) Float.intBitsToFloat(int32(b, p))
                        : (Object) Double.longBitsToDouble(int64(b, p));
            }
            case ArrowColumn.T_DATE -> {
                assertEquals(0, f.type.scalar(0, 2), "date unit: day");
                return LocalDate.ofEpochDay(int32(b, p));
            }
            case ArrowColumn.T_TIME -> {
                assertEquals(3, f.type.scalar(0, 2), "time unit: nanosecond");
                assertEquals(64, f.type.scalar(1, 4), "time bit width");
                return LocalTime.ofNanoOfDay(int64(b, p));
            }
            case ArrowColumn.T_TIMESTAMP -> {
                assertEquals(3, f.type.scalar(0, 2), "timestamp unit: nanosecond");
                long nanos = int64(b, p);
                Instant instant = Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L),
                        Math.floorMod(nanos, 1_000_000_000L));
                if (f.type.has(1)) {
                    assertEquals("UTC", f.type.string(1));
                    return instant;
                }
                return LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
            }
            default -> {
                return new UUID(Long.reverseBytes(int64(b, p)), Long.reverseBytes(int64(b, p + 8)));
            }
        }
    }

    static int int16(byte[] b, int p) {
        return (b[p] & 0xFF) | (b[p + 1] & 0xFF) << 8;
    }

    static int int32(byte[] b, int p) {
        return (b[p] & 0xFF) | (b[p + 1] & 0xFF) << 8 | (b[p + 2] & 0xFF) << 16 | b[p + 3] << 24;
    }

    static long int64(byte[] b, int p) {
        return (int32(b, p) & 0xFFFFFFFFL) | (long) int32(b, p + 4) << 32;
    }

    /**
     * A flatbuffer table, read with the verifier's checks: the table 4-aligned, its vtable 2-aligned, even-sized and
     * inside the buffer, each field inside the table's inline size and aligned to its size from the buffer's start.
     */
    static final class Fb {
        final byte[] b;
        final int base, end, table, vtable, vtableSize, inline;

        private Fb(byte[] b, int base, int end, int table) {
            this.b = b;
            this.base = base;
            this.end = end;
            this.table = table;
            assertEquals(0, (table - base) % 4, "table not 4-aligned");
            vtable = table - int32(b, table);
            assertTrue(vtable >= base && vtable < end, "vtable outside the buffer");
            assertEquals(0, (vtable - base) % 2, "vtable not 2-aligned");
            vtableSize = int16(b, vtable);
            inline = int16(b, vtable + 2);
            assertTrue(vtableSize >= 4 && vtableSize % 2 == 0 && vtable + vtableSize <= end, "vtable size");
            assertTrue(inline >= 4 && table + inline <= end, "table size");
        }

        static Fb root(byte[] b, int base, int length) {
            return new Fb(b, base, base + length, base + int32(b, base));
        }

        boolean has(int slot) {
            return field(slot) != 0;
        }

        /** The field's offset in the table, 0 if absent. */
        private int field(int slot) {
            int v = 4 + 2 * slot;
            return v < vtableSize ? int16(b, vtable + v) : 0;
        }

        private int at(int slot, int size) {
            int f = field(slot);
            if (f == 0) {
                return 0;
            }
            assertTrue(f >= 4 && f + size <= inline, "field " + slot + " outside the table");
            assertEquals(0, (table + f - base) % size, "field " + slot + " not aligned to " + size);
            return table + f;
        }

        long scalar(int slot, int size) {
            int p = at(slot, size);
            if (p == 0) {
                return 0;
            }
            return switch (size) {
                case 1 -> b[p];
                case 2 -> (short) int16(b, p);
                case 4 -> int32(b, p);
                default -> int64(b, p);
            };
        }

        /** Where the uoffset at {@code slot} points, 0 if absent; the target is after it and inside the buffer. */
        private int target(int slot) {
            int p = at(slot, 4);
            if (p == 0) {
                return 0;
            }
            int t = p + int32(b, p);
            assertTrue(t > p && t < end, "offset of field " + slot + " outside the buffer");
            return t;
        }

        Fb table(int slot) {
            int t = target(slot);
            return t == 0 ? null : new Fb(b, base, end, t);
        }

        String string(int slot) {
            int t = target(slot);
            if (t == 0) {
                return null;
            }
            return stringAt(t);
        }

        private String stringAt(int t) {
            assertEquals(0, (t - base) % 4, "string not 4-aligned");
            int n = int32(b, t);
            assertTrue(t + 4 + n < end, "string past the buffer");
            assertEquals(0, b[t + 4 + n], "string not null-terminated");
            return new String(b, t + 4, n, StandardCharsets.UTF_8);
        }

        /** A vector of tables; empty when absent. */
        List<Fb> tables(int slot) {
            int t = target(slot);
            List<Fb> out = new ArrayList<>();
            if (t == 0) {
                return out;
            }
            assertEquals(0, (t - base) % 4, "vector not 4-aligned");
            int n = int32(b, t);
            for (int i = 0; i < n; i++) {
                int p = t + 4 + 4 * i;
                out.add(new Fb(b, base, end, p + int32(b, p)));
            }
            return out;
        }

        /** A vector of strings; empty when absent. */
        List<String> strings(int slot) {
            int t = target(slot);
            List<String> out = new ArrayList<>();
            if (t == 0) {
                return out;
            }
            assertEquals(0, (t - base) % 4, "vector not 4-aligned");
            int n = int32(b, t);
            for (int i = 0; i < n; i++) {
                int p = t + 4 + 4 * i;
                out.add(stringAt(p + int32(b, p)));
            }
            return out;
        }

        int[] ints(int slot) {
            int t = target(slot);
            assertEquals(0, (t - base) % 4, "vector not 4-aligned");
            int[] out = new int[int32(b, t)];
            for (int i = 0; i < out.length; i++) {
                out[i] = int32(b, t + 4 + 4 * i);
            }
            assertTrue(t + 4 + 4 * out.length <= end, "vector past the buffer");
            return out;
        }

        /** A vector of structs of two longs, flattened. */
        long[] structs(int slot) {
            int t = target(slot);
            assertEquals(0, (t + 4 - base) % 8, "struct vector's elements not 8-aligned");
            long[] out = new long[2 * int32(b, t)];
            assertTrue(t + 4 + 8 * out.length <= end, "vector past the buffer");
            for (int i = 0; i < out.length; i++) {
                out[i] = int64(b, t + 4 + 8 * i);
            }
            return out;
        }
    }
}
