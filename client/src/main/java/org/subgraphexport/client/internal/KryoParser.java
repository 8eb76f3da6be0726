package org.subgraphexport.client.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.subgraphexport.client.DurationValue;
import org.subgraphexport.client.ExportFailedException;
import org.subgraphexport.client.ExportHeader;
import org.subgraphexport.client.PathValue;
import org.subgraphexport.client.PointValue;
import org.subgraphexport.client.VectorValue;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.ValueSink;
import org.subgraphexport.wire.ValueSink.VectorKind;
import org.subgraphexport.wire.Wire;

/**
 * Decodes the {@code kryo} format (see {@link Wire}) from a plain {@code InputStream}, through its own 64 KiB
 * buffer; no Kryo needed. Every length is checked against {@link Wire#MAX_LENGTH} and its storage grows as bytes
 * arrive, so a lying length costs no more memory than the bytes that follow it; lists and maps deeper than
 * {@link Wire#MAX_NESTING} are rejected before the recursion that reads them gets deep. Malformed UTF-8 decodes to
 * U+FFFD.
 */
final class KryoParser extends AbstractParser {
    private static final VectorKind[] VECTOR_KINDS = VectorKind.values();

    private final InputStream in;
    private static final int BUFFER = 64 * 1024;

    /** The input buffer, padded: {@link ShortStrings} reads whole longs, up to 8 bytes past a string's end. */
    private final byte[] buf = new byte[BUFFER + Long.BYTES];
    /** Short ASCII string values seen before (enum-like values recur): a lookup instead of a String. */
    private final ShortStrings shortStrings = ShortStrings.seeded();
    private int pos;
    private int limit;
    private String nodePrefix;
    private String relPrefix;
    private final List<String> labels = new ArrayList<>();
    private final List<String> types = new ArrayList<>();
    private final List<String> keys = new ArrayList<>();

    KryoParser(Format format, Source source, InputStream in) {
        super(format, source);
        this.in = in;
    }

    @Override
    ExportHeader readHeader() throws IOException {
        int s = u8(), g = u8(), x = u8();
        if (s != Wire.MAGIC_0 || g != Wire.MAGIC_1 || x != Wire.MAGIC_2) {
            throw corrupt(String.format("bad magic 0x%02x%02x%02x, expected 0x%02x%02x%02x (\"SGX\")", s, g, x,
                    Wire.MAGIC_0, Wire.MAGIC_1, Wire.MAGIC_2));
        }
        int version = u8();
        if (!supported(version)) {
            throw unsupportedVersion(version);
        }
        int tag = u8();
        if (tag != Wire.HEADER) {
            throw corrupt(String.format("first record has tag 0x%02x, expected header 0x%02x", tag, Wire.HEADER));
        }
        String database = string();
        String root = string();
        nodePrefix = string();
        relPrefix = string();
        if (version == 1) {
            return new ExportHeader(version, database, root);
        }
        this.version = version;
        String state = string();
        int partition = varint();
        int partitions = varint();
        if (partitions < 1 || partition < 0 || partition >= partitions) {
            throw corrupt("partition " + (partition & 0xFFFFFFFFL) + " of " + (partitions & 0xFFFFFFFFL));
        }
        String since = "";
        if (available() && (buf[pos] & 0xFF) == Wire.DELTA) {  // delta streams: the delta record, right after
            pos++;
            since = string();
        }
        return new ExportHeader(version, database, root, state, partition, partitions, since);
    }

    @Override
    Kind readRecord() throws IOException {
        if (!available()) {
            throw truncated();
        }
        int tag = u8();
        switch (tag) {
            case Wire.NODE -> {
                nodeId.set(nodePrefix, varlong());
                node();
                int count = length(varint(), "label count");
                for (int i = 0; i < count; i++) {
                    label(token(labels, "label"));
                }
                properties();
                return Kind.NODE;
            }
            case Wire.RELATIONSHIP -> {
                relationshipId.set(relPrefix, varlong());
                String type = token(types, "relationship type");
                start.set(nodePrefix, varlong());
                end.set(nodePrefix, varlong());
                relationship(type);
                properties();
                return Kind.RELATIONSHIP;
            }
            case Wire.COLUMNS -> {
                int count = length(varint(), "column count");
                List<String> names = new ArrayList<>(initialCapacity(count));
                for (int i = 0; i < count; i++) {
                    names.add(string());
                }
                columns(names);
                return Kind.COLUMNS;
            }
            case Wire.ROW -> {
                row();
                int count = columnCount();
                for (int i = 0; i < count; i++) {
                    rowValue(u8(), 0);
                }
                return Kind.ROW;
            }
            case Wire.END -> {
                long nodes = varlong();
                long relationships = varlong();
                int truncated = u8();
                if (truncated > 1) {
                    throw corrupt("truncated flag " + truncated + ", expected 0 or 1");
                }
                long rows = columnCount() >= 0 ? varlong() : 0;  // rows streams only
                String state = version >= 2 ? string() : "";
                expectEof();
                end(nodes, relationships, truncated == 1, rows, state);
                return Kind.END;
            }
            case Wire.LEFT_NODE -> {
                nodeId.set(nodePrefix, varlong());
                left(true);
                return Kind.LEFT;
            }
            case Wire.LEFT_RELATIONSHIP -> {
                relationshipId.set(relPrefix, varlong());
                left(false);
                return Kind.LEFT;
            }
            case Wire.ERROR -> {
                String code = string();
                String message = string();
                expectEof();
                throw new ExportFailedException(code, message);
            }
            default -> throw corrupt(String.format("unknown record tag 0x%02x", tag));
        }
    }

    private void expectEof() throws IOException {
        if (available()) {
            throw corrupt("bytes after the closing record");
        }
    }

    private String token(List<String> dictionary, String what) throws IOException {
        int index = varint();
        int size = dictionary.size();
        if (index == size) {
            dictionary.add(string());
        } else if (index < 0 || index > size) {
            throw corrupt(what + " index " + (index & 0xFFFFFFFFL) + " but the stream has defined only " + size);
        }
        return dictionary.get(index);
    }

    private void properties() throws IOException {
        while (true) {
            int marker = u8();
            if (marker == Wire.PROPERTIES_END) {
                return;
            }
            if (marker != Wire.PROPERTY) {
                throw corrupt(String.format("property marker 0x%02x, expected 0x00 or 0x01", marker));
            }
            property(token(keys, "property key"));
            value(u8());
        }
    }

    /** A row value with tag {@code tag}, inside {@code depth} lists and maps: a property value or a row-only one. */
    private void rowValue(int tag, int depth) throws IOException {
        switch (tag) {
            case Wire.T_NULL -> nullValue();
            case Wire.T_LIST -> {
                nest(depth);
                int n = length(varint(), "list");
                beginList(n);
                for (int i = 0; i < n; i++) {
                    rowValue(u8(), depth + 1);
                }
                endList();
            }
            case Wire.T_MAP -> {
                nest(depth);
                int n = length(varint(), "map");
                Set<String> seen = new HashSet<>(Math.min(n, 64));
                beginMap(n);
                for (int i = 0; i < n; i++) {
                    String key = string();
                    if (!seen.add(key)) {
                        throw corrupt("map key '" + key + "' twice in one map");
                    }
                    mapKey(key);
                    rowValue(u8(), depth + 1);
                }
                endMap();
            }
            case Wire.T_NODE_REF -> {
                nodeRefId.set(nodePrefix, varlong());
                nodeRef();
            }
            case Wire.T_RELATIONSHIP_REF -> {
                relationshipRefId.set(relPrefix, varlong());
                relationshipRef();
            }
            case Wire.T_PATH -> {
                int n = length(varint(), "path");
                if (n == 0) {
                    throw corrupt("a path without nodes");
                }
                List<String> nodes = new ArrayList<>(initialCapacity(n));
                for (int i = 0; i < n; i++) {
                    nodes.add(nodePrefix + varlong());
                }
                List<String> relationships = new ArrayList<>(initialCapacity(n - 1));
                for (int i = 1; i < n; i++) {
                    relationships.add(relPrefix + varlong());
                }
                objectValue(new PathValue(nodes, relationships));
            }
            default -> value(tag);
        }
    }

    /** A property value with tag {@code tag}, handed on: primitives as primitives. */
    private void value(int tag) throws IOException {
        switch (tag) {
            case Wire.T_STRING -> stringValue(string());
            case Wire.T_LONG -> longValue(zigzag(varlong()));
            case Wire.T_DOUBLE -> doubleValue(Double.longBitsToDouble(s64()));
            case Wire.T_BOOLEAN -> booleanValue(bool());
            case Wire.T_INT -> intValue(zigzag(varint()));
            case Wire.T_BYTE -> byteValue((byte) u8());
            case Wire.T_SHORT -> shortValue(s16());
            case Wire.T_FLOAT -> floatValue(Float.intBitsToFloat(s32()));
            case Wire.T_CHAR -> charValue((char) s16());
            case Wire.T_BYTES -> objectValue(bytes(length(varint(), "byte array")));
            case Wire.T_VECTOR -> objectValue(vector());
            case Wire.T_ARRAY -> objectValue(array());
            default -> objectValue(scalar(tag));
        }
    }

    /** A value whose tag may also be an array element tag. */
    private Object scalar(int tag) throws IOException {
        return switch (tag) {
            case Wire.T_BOOLEAN -> bool();
            case Wire.T_SHORT -> s16();
            case Wire.T_INT -> zigzag(varint());
            case Wire.T_LONG -> zigzag(varlong());
            case Wire.T_FLOAT -> Float.intBitsToFloat(s32());
            case Wire.T_DOUBLE -> Double.longBitsToDouble(s64());
            case Wire.T_CHAR -> (char) s16();
            case Wire.T_STRING -> string();
            case Wire.T_POINT -> point();
            case Wire.T_DURATION -> new DurationValue(zigzag(varlong()), zigzag(varlong()), zigzag(varlong()),
                    zigzag(varint()));
            case Wire.T_DATE -> LocalDate.ofEpochDay(zigzag(varlong()));
            case Wire.T_LOCAL_TIME -> LocalTime.ofNanoOfDay(varlong());
            case Wire.T_TIME -> OffsetTime.of(LocalTime.ofNanoOfDay(varlong()),
                    ZoneOffset.ofTotalSeconds(zigzag(varint())));
            case Wire.T_LOCAL_DATE_TIME -> LocalDateTime.ofEpochSecond(zigzag(varlong()), varint(), ZoneOffset.UTC);
            case Wire.T_DATE_TIME -> {
                Instant instant = Instant.ofEpochSecond(zigzag(varlong()), varint());
                yield ZonedDateTime.ofInstant(instant, ZoneId.of(string()));
            }
            case Wire.T_UUID -> new UUID(s64(), s64());
            default -> throw corrupt(String.format("unknown value tag 0x%02x", tag));
        };
    }

    private boolean bool() throws IOException {
        int b = u8();
        if (b > 1) {
            throw corrupt("boolean byte " + b + ", expected 0 or 1");
        }
        return b == 1;
    }

    private PointValue point() throws IOException {
        int srid = varint();
        int dimension = u8();
        if (dimension != 2 && dimension != 3) {
            throw corrupt("point dimension " + dimension + ", expected 2 or 3");
        }
        double[] coordinates = new double[dimension];
        for (int i = 0; i < dimension; i++) {
            coordinates[i] = Double.longBitsToDouble(s64());
        }
        return new PointValue(srid, coordinates);
    }

    private VectorValue vector() throws IOException {
        int kind = u8();
        if (kind >= VECTOR_KINDS.length) {
            throw corrupt("unknown vector kind " + kind);
        }
        int n = length(varint(), "vector");
        VectorKind k = VECTOR_KINDS[kind];
        return switch (k) {
            case INT8 -> new VectorValue(k, bytes(n));
            case INT16 -> {
                short[] a = new short[initialCapacity(n)];
                for (int i = 0; i < n; i++) {
                    a = i < a.length ? a : Arrays.copyOf(a, grow(a.length, n));
                    a[i] = s16();
                }
                yield new VectorValue(k, a);
            }
            case INT32 -> {
                int[] a = new int[initialCapacity(n)];
                for (int i = 0; i < n; i++) {
                    a = i < a.length ? a : Arrays.copyOf(a, grow(a.length, n));
                    a[i] = s32();
                }
                yield new VectorValue(k, a);
            }
            case INT64 -> {
                long[] a = new long[initialCapacity(n)];
                for (int i = 0; i < n; i++) {
                    a = i < a.length ? a : Arrays.copyOf(a, grow(a.length, n));
                    a[i] = s64();
                }
                yield new VectorValue(k, a);
            }
            case FLOAT32 -> {
                float[] a = new float[initialCapacity(n)];
                for (int i = 0; i < n; i++) {
                    a = i < a.length ? a : Arrays.copyOf(a, grow(a.length, n));
                    a[i] = Float.intBitsToFloat(s32());
                }
                yield new VectorValue(k, a);
            }
            case FLOAT64 -> {
                double[] a = new double[initialCapacity(n)];
                for (int i = 0; i < n; i++) {
                    a = i < a.length ? a : Arrays.copyOf(a, grow(a.length, n));
                    a[i] = Double.longBitsToDouble(s64());
                }
                yield new VectorValue(k, a);
            }
        };
    }

    private Object array() throws IOException {
        int tag = u8();
        int n = length(varint(), "array");
        int cap = initialCapacity(n);
        switch (tag) {
            case Wire.T_BOOLEAN -> {
                boolean[] a = new boolean[cap];
                for (int i = 0; i < n; i++) {
                    a = i < a.length ? a : Arrays.copyOf(a, grow(a.length, n));
                    a[i] = bool();
                }
                return a;
            }
            case Wire.T_SHORT -> {
                short[] a = new short[cap];
                for (int i = 0; i < n; i++) {
                    a = i < a.length ? a : Arrays.copyOf(a, grow(a.length, n));
                    a[i] = s16();
                }
                return a;
            }
            case Wire.T_INT -> {
                int[] a = new int[cap];
                for (int i = 0; i < n; i++) {
                    a = i < a.length ? a : Arrays.copyOf(a, grow(a.length, n));
                    a[i] = zigzag(varint());
                }
                return a;
            }
            case Wire.T_LONG -> {
                long[] a = new long[cap];
                for (int i = 0; i < n; i++) {
                    a = i < a.length ? a : Arrays.copyOf(a, grow(a.length, n));
                    a[i] = zigzag(varlong());
                }
                return a;
            }
            case Wire.T_FLOAT -> {
                float[] a = new float[cap];
                for (int i = 0; i < n; i++) {
                    a = i < a.length ? a : Arrays.copyOf(a, grow(a.length, n));
                    a[i] = Float.intBitsToFloat(s32());
                }
                return a;
            }
            case Wire.T_DOUBLE -> {
                double[] a = new double[cap];
                for (int i = 0; i < n; i++) {
                    a = i < a.length ? a : Arrays.copyOf(a, grow(a.length, n));
                    a[i] = Double.longBitsToDouble(s64());
                }
                return a;
            }
            case Wire.T_CHAR -> {
                char[] a = new char[cap];
                for (int i = 0; i < n; i++) {
                    a = i < a.length ? a : Arrays.copyOf(a, grow(a.length, n));
                    a[i] = (char) s16();
                }
                return a;
            }
            default -> {
                Object[] a = switch (tag) {
                    case Wire.T_STRING -> new String[cap];
                    case Wire.T_POINT -> new PointValue[cap];
                    case Wire.T_DURATION -> new DurationValue[cap];
                    case Wire.T_DATE -> new LocalDate[cap];
                    case Wire.T_LOCAL_TIME -> new LocalTime[cap];
                    case Wire.T_TIME -> new OffsetTime[cap];
                    case Wire.T_LOCAL_DATE_TIME -> new LocalDateTime[cap];
                    case Wire.T_DATE_TIME -> new ZonedDateTime[cap];
                    case Wire.T_UUID -> new UUID[cap];
                    default -> throw corrupt(String.format("array element tag 0x%02x is not an element type", tag));
                };
                for (int i = 0; i < n; i++) {
                    a = i < a.length ? a : Arrays.copyOf(a, grow(a.length, n));
                    a[i] = scalar(tag);
                }
                return a;
            }
        }
    }

    // ---- primitives ---------------------------------------------------------------------------------------

    private String string() throws IOException {
        int n = length(varint(), "string");
        if (n <= limit - pos) {
            String s = n <= ShortStrings.MAX_LENGTH && ValueSink.isAscii(buf, pos, n) ? shortStrings.get(buf, pos, n)
                    : new String(buf, pos, n, StandardCharsets.UTF_8);
            pos += n;
            return s;
        }
        return new String(bytes(n), StandardCharsets.UTF_8);
    }

    /** {@code n} bytes, the array growing as they arrive. */
    private byte[] bytes(int n) throws IOException {
        byte[] out = new byte[Math.min(n, BUFFER)];
        int have = 0;
        while (have < n) {
            if (pos == limit && !fill()) {
                throw truncated();
            }
            int k = Math.min(limit - pos, n - have);
            if (have + k > out.length) {
                out = Arrays.copyOf(out, Math.max(have + k, grow(out.length, n)));
            }
            System.arraycopy(buf, pos, out, have, k);
            pos += k;
            have += k;
        }
        return out;
    }

    private int u8() throws IOException {
        if (pos == limit && !fill()) {
            throw truncated();
        }
        return buf[pos++] & 0xFF;
    }

    private short s16() throws IOException {
        return (short) ((u8() << 8) | u8());
    }

    private int s32() throws IOException {
        require(4);
        byte[] b = buf;
        int p = pos;
        pos = p + 4;
        return (b[p] & 0xFF) << 24 | (b[p + 1] & 0xFF) << 16 | (b[p + 2] & 0xFF) << 8 | (b[p + 3] & 0xFF);
    }

    private long s64() throws IOException {
        return ((long) s32() << 32) | (s32() & 0xFFFFFFFFL);
    }

    /** Kryo var-int: 7 bits a byte, low group first; the fifth byte carries the top 4 bits. */
    private int varint() throws IOException {
        if (limit - pos >= 5) {  // all of it buffered: no refill checks
            byte[] b = buf;
            int p = pos;
            int result = 0;
            for (int shift = 0; shift < 28; shift += 7) {
                int x = b[p++];
                result |= (x & 0x7F) << shift;
                if (x >= 0) {
                    pos = p;
                    return result;
                }
            }
            int x = b[p] & 0xFF;
            pos = p + 1;
            if ((x & 0xF0) != 0) {
                throw corrupt("malformed var-int");
            }
            return result | x << 28;
        }
        int result = 0;
        for (int shift = 0; shift < 28; shift += 7) {
            int b = u8();
            result |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return result;
            }
        }
        int b = u8();
        if ((b & 0xF0) != 0) {
            throw corrupt("malformed var-int");
        }
        return result | b << 28;
    }

    /** Kryo var-long: 7 bits a byte, low group first; a ninth byte carries the top 8 bits whole. */
    private long varlong() throws IOException {
        if (limit - pos >= 9) {  // all of it buffered: no refill checks
            byte[] b = buf;
            int p = pos;
            long result = 0;
            for (int shift = 0; shift < 56; shift += 7) {
                int x = b[p++];
                result |= (long) (x & 0x7F) << shift;
                if (x >= 0) {
                    pos = p;
                    return result;
                }
            }
            pos = p + 1;
            return result | (long) (b[p] & 0xFF) << 56;
        }
        long result = 0;
        for (int shift = 0; shift < 56; shift += 7) {
            int b = u8();
            result |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return result;
            }
        }
        return result | (long) u8() << 56;
    }

    private static int zigzag(int v) {
        return (v >>> 1) ^ -(v & 1);
    }

    private static long zigzag(long v) {
        return (v >>> 1) ^ -(v & 1);
    }

    private void require(int n) throws IOException {
        if (limit - pos >= n) {
            return;
        }
        System.arraycopy(buf, pos, buf, 0, limit - pos);
        limit -= pos;
        pos = 0;
        while (limit < n) {
            int r = read(buf, limit, BUFFER - limit);
            if (r < 0) {
                throw truncated();
            }
            limit += r;
        }
    }

    /** True if at least one more byte is buffered or could be read. */
    private boolean available() throws IOException {
        return pos < limit || fill();
    }

    private boolean fill() throws IOException {
        pos = 0;
        limit = 0;
        int r = read(buf, 0, BUFFER);
        if (r < 0) {
            return false;
        }
        limit = r;
        return true;
    }

    /** Like {@code in.read}, but never 0: a stream that returns 0 is asked for a single byte, which blocks. */
    private int read(byte[] b, int off, int len) throws IOException {
        int r = in.read(b, off, len);
        if (r == 0) {
            int one = in.read();
            if (one < 0) {
                return -1;
            }
            b[off] = (byte) one;
            r = 1;
        }
        return r;
    }
}
