package org.subgraphexport.encode;

import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.TokenNames;
import org.subgraphexport.wire.Wire;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.format.DateTimeFormatter;
import java.time.temporal.TemporalAccessor;

/**
 * Writes the {@code json} format (see {@link Wire}) as bytes into its own buffer: the same bytes as Jackson's
 * {@code UTF8JsonGenerator} behind the test sources' {@code JacksonGraphWriter.json} (the reference this writer is
 * tested against, call by call and byte by byte), at a fraction of the cost. A record's fixed parts are pre-encoded runs
 * (<code>,{"record":"node","id":</code> is one copy), token names are quoted and encoded once per stream and kept by
 * database token id, element ids are the prefix's bytes and decimal digits, and there is no generator context to
 * keep: this writer's own state (the open typed array, the row, list and map stack, whether a property's value is
 * due) is all the checking the {@link GraphWriter} contract needs.
 *
 * <p>Bytes are Jackson's default output: no whitespace; in strings {@code "} and {@code \} escaped with a
 * backslash, control characters as {@code \b \t \n \f \r} or <code>&#92;u00XX</code>, every UTF-16 surrogate
 * (paired or not) as <code>&#92;uXXXX</code>, all other characters as UTF-8; token names (labels, types, keys) quoted
 * by Jackson's {@link JsonStringEncoder}, which writes a surrogate pair as one 4-byte UTF-8 sequence; numbers as
 * {@link Integer#toString}, {@link Long#toString}, {@link Float#toString} and {@link Double#toString} write them;
 * binary as standard base64 with padding.
 *
 * <p>Buffering and the protocol checks are {@link ByteRecordWriter}'s (shared with {@link BsonGraphWriter}): the
 * buffer goes to the target at the end of a record once it holds {@link Wire#KRYO_BUFFER} bytes or more, so
 * {@link #error} can cut an unfinished record; the target is flushed once, by {@link #finish}.
 */
public final class JsonGraphWriter extends ByteRecordWriter {
    private static final byte[] HEX = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] BASE64 =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".getBytes(StandardCharsets.US_ASCII);
    /** Per ASCII byte: 0 written as it is, a letter for a two-character escape, 'u' for <code>&#92;u00XX</code>. */
    private static final byte[] ESCAPES = new byte[128];

    static {
        for (int c = 0; c < 0x20; c++) {
            ESCAPES[c] = 'u';
        }
        ESCAPES['"'] = '"';
        ESCAPES['\\'] = '\\';
        ESCAPES['\b'] = 'b';
        ESCAPES['\t'] = 't';
        ESCAPES['\f'] = 'f';
        ESCAPES['\n'] = 'n';
        ESCAPES['\r'] = 'r';
    }

    private static final byte[]
            NODE_START = ascii(",{\"record\":\"node\",\"id\":"),
            LABELS_START = ascii(",\"labels\":["),
            NODE_PROPERTIES = ascii("],\"properties\":{"),
            RELATIONSHIP_START = ascii(",{\"record\":\"relationship\",\"id\":"),
            TYPE = ascii(",\"type\":"), START = ascii(",\"start\":"), END = ascii(",\"end\":"),
            PROPERTIES = ascii(",\"properties\":{"),
            HEADER_START = ascii("[{\"record\":\"header\",\"version\":" + Wire.VERSION + ",\"database\":"),
            ROOT = ascii(",\"root\":"),
            COLUMNS_START = ascii(",{\"record\":\"columns\",\"names\":["),
            ROW_START = ascii(",{\"record\":\"row\",\"values\":["),
            END_START = ascii(",{\"record\":\"end\",\"nodes\":"),
            RELATIONSHIPS = ascii(",\"relationships\":"), TRUNCATED_TRUE = ascii(",\"truncated\":true"),
            TRUNCATED_FALSE = ascii(",\"truncated\":false"), ROWS = ascii(",\"rows\":"),
            ERROR_START = ascii(",{\"record\":\"error\",\"code\":"), MESSAGE = ascii(",\"message\":"),
            TRUE = ascii("true"), FALSE = ascii("false"), NULL = ascii("null"),
            NAN = ascii("\"" + Wire.Json.NAN + "\""), INFINITY = ascii("\"" + Wire.Json.INFINITY + "\""),
            NEGATIVE_INFINITY = ascii("\"" + Wire.Json.NEGATIVE_INFINITY + "\""),
            BYTE = tag(Wire.Json.BYTE), SHORT = tag(Wire.Json.SHORT), INT = tag(Wire.Json.INT),
            FLOAT = tag(Wire.Json.FLOAT), DOUBLE = tag(Wire.Json.DOUBLE), CHAR = tag(Wire.Json.CHAR),
            BYTES = tag(Wire.Json.BYTES), DURATION = tag(Wire.Json.DURATION),
            UUID = tag(Wire.Json.UUID), MAP = ascii("{\"" + Wire.Json.MAP + "\":{"),
            NODE_REF = tag(Wire.Json.NODE_REF), RELATIONSHIP_REF = tag(Wire.Json.RELATIONSHIP_REF),
            POINT_START = ascii("{\"srid\":"), COORDINATES = ascii(",\"coordinates\":["),
            POINT_TAG = tag(Wire.Json.POINT), PATH_START = ascii("{\"" + Wire.Json.PATH + "\":{\"nodes\":["),
            PATH_RELATIONSHIPS = ascii("],\"relationships\":["), LONG_MIN = ascii(Long.toString(Long.MIN_VALUE));
    private static final byte[][] ARRAY_TAGS = new byte[ArrayKind.values().length][];
    /** Per array kind, the tag of one value outside arrays (used for temporal values). */
    private static final byte[][] VALUE_TAGS = new byte[ArrayKind.values().length][];
    /** Per vector kind, everything before the first coordinate. */
    private static final byte[][] VECTOR_STARTS = new byte[VectorKind.values().length][];

    static {
        for (ArrayKind k : ArrayKind.values()) {
            ARRAY_TAGS[k.ordinal()] = ascii("{\"" + Wire.Json.arrayTag(k) + "\":[");
            VALUE_TAGS[k.ordinal()] = tag(valueTag(k));
        }
        for (VectorKind k : VectorKind.values()) {
            VECTOR_STARTS[k.ordinal()] = ascii("{\"" + Wire.Json.VECTOR + "\":{\"" + Wire.Json.KIND + "\":\"" + k.name()
                    + "\",\"" + Wire.Json.VALUES + "\":[");
        }
    }

    /** {@code "} and the element-id prefix as bytes, room for the digits; null if the prefix needs escaping. */
    private byte[] nodeIdBytes, relIdBytes;
    private int nodePrefix, relPrefix;
    private String nodeIdPrefix, relIdPrefix;
    /** Properties of the open record so far. */
    private int propertyCount;

    private JsonGraphWriter(OutputStream target) {
        super(target);
    }

    /** A {@code json} writer over {@code out}. */
    public static JsonGraphWriter json(OutputStream out) {
        return new JsonGraphWriter(out);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] tag(String name) {
        return ascii("{\"" + name + "\":");
    }

    // ---- records ------------------------------------------------------------------------------------------

    @Override
    public void header(Header header, TokenNames tokens) throws IOException {
        beginHeader(tokens);
        nodeIdPrefix = header.nodeIdPrefix();  // as it is: an unpaired surrogate in it is escaped, not replaced
        relIdPrefix = header.relIdPrefix();
        nodeIdBytes = rawIdBuffer(nodeIdPrefix);
        nodePrefix = nodeIdPrefix.length() + 1;
        relIdBytes = rawIdBuffer(relIdPrefix);
        relPrefix = relIdPrefix.length() + 1;
        put(HEADER_START);
        string(WireText.wellFormed(header.database()));
        put(ROOT);
        string(WireText.wellFormed(header.root()));
        put((byte) '}');
        endHeader();
    }

    @Override
    public void beginNode(long id, int[] labelIds, int labelCount) throws IOException {
        beginRecord("beginNode()");
        put(NODE_START);
        nodeId(id);
        put(LABELS_START);
        for (int i = 0; i < labelCount; i++) {
            if (i > 0) {
                put((byte) ',');
            }
            put(label(labelIds[i]));
        }
        put(NODE_PROPERTIES);
        inProperties = NODE;
        propertyCount = 0;
    }

    @Override
    public void endNode() throws IOException {
        endRecordWithProperties(NODE);
    }

    @Override
    public void beginRelationship(long id, int type, long startNode, long endNode) throws IOException {
        beginRecord("beginRelationship()");
        put(RELATIONSHIP_START);
        relationshipId(id);
        put(TYPE);
        put(type(type));
        put(START);
        nodeId(startNode);
        put(END);
        nodeId(endNode);
        put(PROPERTIES);
        inProperties = RELATIONSHIP;
        propertyCount = 0;
    }

    @Override
    public void endRelationship() throws IOException {
        endRecordWithProperties(RELATIONSHIP);
    }

    private void endRecordWithProperties(int record) throws IOException {
        endProperties(record);
        put((byte) '}', (byte) '}');
        endRecord();
    }

    @Override
    public void property(int key) throws IOException {
        checkProperty();
        byte[] name = key(key);
        if (propertyCount++ > 0) {
            put((byte) ',');
        }
        put(name);
        valueDue = true;
    }

    @Override
    public void columns(String[] names) throws IOException {
        checkColumns(names);
        put(COLUMNS_START);
        for (int i = 0; i < names.length; i++) {
            if (i > 0) {
                put((byte) ',');
            }
            string(WireText.wellFormed(names[i]));
        }
        put((byte) ']', (byte) '}');
        endRecord();
        columnCount = names.length;
    }

    @Override
    public void beginRow() throws IOException {
        checkBeginRow();
        put(ROW_START);
        push(ROW, columnCount, pos);
    }

    @Override
    public void endRow() throws IOException {
        pop(ROW, "endRow() without beginRow()");
        put((byte) ']', (byte) '}');
        endRecord();
        rows++;
    }

    @Override
    public void end(long nodes, long relationships, boolean truncated) throws IOException {
        checkEnd();
        put(END_START);
        number(nodes);
        put(RELATIONSHIPS);
        number(relationships);
        put(truncated ? TRUNCATED_TRUE : TRUNCATED_FALSE);
        if (columnCount >= 0) {
            put(ROWS);
            number(rows);
        }
        put((byte) '}');
        endClosingRecord();
    }

    @Override
    public void error(String code, String message) throws IOException {
        beginError();  // drops an unfinished record
        put(ERROR_START);
        string(WireText.wellFormed(code));
        put(MESSAGE);
        string(message == null ? "" : WireText.wellFormed(message));
        put((byte) '}');
        endClosingRecord();
    }

    @Override
    void endStream() {
        put((byte) ']');
    }

    // ---- values -------------------------------------------------------------------------------------------

    @Override
    public void writeBoolean(boolean value) throws IOException {
        element(ArrayKind.BOOLEAN);
        put(value ? TRUE : FALSE);
    }

    @Override
    public void writeByte(byte value) throws IOException {
        comma(scalarSlot("byte arrays are written with writeBytes"));
        put(BYTE);
        number(value);
        put((byte) '}');
    }

    @Override
    public void writeShort(short value) throws IOException {
        boolean tagged = open(ArrayKind.SHORT, SHORT);
        number(value);
        close(tagged);
    }

    @Override
    public void writeInt(int value) throws IOException {
        boolean tagged = open(ArrayKind.INT, INT);
        number(value);
        close(tagged);
    }

    @Override
    public void writeLong(long value) throws IOException {
        element(ArrayKind.LONG);
        number(value);
    }

    @Override
    public void writeFloat(float value) throws IOException {
        boolean tagged = open(ArrayKind.FLOAT, FLOAT);
        if (Float.isFinite(value)) {
            floating(value);
        } else {
            nonFinite(value);
        }
        close(tagged);
    }

    @Override
    public void writeDouble(double value) throws IOException {
        if (array != null) {
            element(ArrayKind.DOUBLE);
            doublePayload(value);
        } else if (Double.isFinite(value)) {
            value();
            floating(value);
        } else {
            value();
            put(DOUBLE);
            nonFinite(value);
            put((byte) '}');
        }
    }

    @Override
    public void writeChar(char value) throws IOException {
        boolean tagged = open(ArrayKind.CHAR, CHAR);
        string(Character.isSurrogate(value) ? "?" : String.valueOf(value));
        close(tagged);
    }

    @Override
    public void writeString(String value) throws IOException {
        element(ArrayKind.STRING);
        string(WireText.wellFormed(value));
    }

    /** ASCII bytes are copied (escaped where JSON needs it) in one pass; other content is decoded first. */
    @Override
    public void writeUtf8(byte[] utf8, int offset, int length) throws IOException {
        element(ArrayKind.STRING);
        int start = pos;
        ensure(length + 2);
        byte[] b = buf;
        int p = pos;
        b[p++] = '"';
        for (int i = offset, end = offset + length; i < end; i++) {
            byte c = utf8[i];
            if (c < 0) {
                pos = start;
                // decoding never yields an unpaired surrogate (malformed bytes become U+FFFD): no wellFormed scan
                string(new String(utf8, offset, length, StandardCharsets.UTF_8));
                return;
            }
            if (ESCAPES[c] == 0) {
                b[p++] = c;
            } else {
                pos = p;
                ensure(6 + end - i);
                b = buf;
                p = escape(c, b, pos);
            }
        }
        b[p++] = '"';
        pos = p;
    }

    @Override
    public void writeBytes(byte[] value) throws IOException {
        comma(scalarSlot("writeBytes inside an array"));
        put(BYTES);
        base64(value);
        put((byte) '}');
    }

    @Override
    public void writePoint(int srid, double[] coordinates) throws IOException {
        if (coordinates.length != 2 && coordinates.length != 3) {
            throw new IllegalArgumentException("a point has 2 or 3 coordinates, not " + coordinates.length);
        }
        boolean tagged = open(ArrayKind.POINT, POINT_TAG);
        put(POINT_START);
        number(srid);
        put(COORDINATES);
        for (int i = 0; i < coordinates.length; i++) {
            if (i > 0) {
                put((byte) ',');
            }
            doublePayload(coordinates[i]);
        }
        put((byte) ']', (byte) '}');
        close(tagged);
    }

    @Override
    public void writeDuration(long months, long days, long seconds, int nanos) throws IOException {
        boolean tagged = open(ArrayKind.DURATION, DURATION);
        put((byte) '[');
        number(months);
        put((byte) ',');
        number(days);
        put((byte) ',');
        number(seconds);
        put((byte) ',');
        number(nanos);
        put((byte) ']');
        close(tagged);
    }

    @Override
    public void writeUuid(long msb, long lsb) throws IOException {
        boolean tagged = open(ArrayKind.UUID, UUID);
        ensure(38);
        byte[] b = buf;
        int p = pos;
        b[p] = '"';
        hex(b, p + 1, msb >>> 32, 8);
        b[p + 9] = '-';
        hex(b, p + 10, msb >>> 16, 4);
        b[p + 14] = '-';
        hex(b, p + 15, msb, 4);
        b[p + 19] = '-';
        hex(b, p + 20, lsb >>> 48, 4);
        b[p + 24] = '-';
        hex(b, p + 25, lsb, 12);
        b[p + 37] = '"';
        pos = p + 38;
        close(tagged);
    }

    @Override
    public void writeVector(VectorKind kind, Object values) throws IOException {
        comma(scalarSlot("writeVector inside an array"));
        put(VECTOR_STARTS[kind.ordinal()]);
        vectorValues(kind, values);
        put((byte) ']', (byte) '}');
        put((byte) '}');
    }

    @Override
    void vectorInteger(int index, long value, boolean int64) {
        comma(index);
        number(value);
    }

    @Override
    void vectorFloat(int index, float value) {
        comma(index);
        if (Float.isFinite(value)) {
            floating(value);
        } else {
            nonFinite(value);
        }
    }

    @Override
    void vectorDouble(int index, double value) {
        comma(index);
        doublePayload(value);
    }

    private void comma(int index) {
        if (index > 0) {
            put((byte) ',');
        }
    }

    @Override
    public void beginArray(int size, ArrayKind kind) throws IOException {
        comma(beginArraySlot());
        put(ARRAY_TAGS[kind.ordinal()]);
        array = kind;
        arrayCount = 0;
    }

    @Override
    public void endArray() throws IOException {
        endArraySlot();
        put((byte) ']', (byte) '}');
    }

    // ---- row values ---------------------------------------------------------------------------------------

    @Override
    public void writeNull() throws IOException {
        rowValue("writeNull()");
        put(NULL);
    }

    @Override
    public void beginList(int size) throws IOException {
        comma(containerSlot("beginList()", size));
        put((byte) '[');  // a plain array is a list: typed arrays are tagged objects
        push(LIST, size, pos);
    }

    @Override
    public void endList() throws IOException {
        pop(LIST, "endList() without beginList()");
        put((byte) ']');
    }

    @Override
    public void beginMap(int size) throws IOException {
        comma(containerSlot("beginMap()", size));
        put(MAP);
        push(MAP_KIND, size, pos);
    }

    @Override
    public void mapKey(String key) throws IOException {
        comma(mapKeySlot());
        string(WireText.wellFormed(key));
        put((byte) ':');
    }

    @Override
    public void endMap() throws IOException {
        pop(MAP_KIND, "endMap() without beginMap()");
        put((byte) '}', (byte) '}');
    }

    @Override
    public void writeNodeRef(long id) throws IOException {
        rowValue("writeNodeRef()");
        put(NODE_REF);
        nodeId(id);
        put((byte) '}');
    }

    @Override
    public void writeRelationshipRef(long id) throws IOException {
        rowValue("writeRelationshipRef()");
        put(RELATIONSHIP_REF);
        relationshipId(id);
        put((byte) '}');
    }

    @Override
    public void writePath(long[] nodeIds, long[] relationshipIds) throws IOException {
        WireText.checkPath(nodeIds, relationshipIds);
        rowValue("writePath()");
        put(PATH_START);
        for (int i = 0; i < nodeIds.length; i++) {
            comma(i);
            nodeId(nodeIds[i]);
        }
        put(PATH_RELATIONSHIPS);
        for (int i = 0; i < relationshipIds.length; i++) {
            comma(i);
            relationshipId(relationshipIds[i]);
        }
        put((byte) ']', (byte) '}');
        put((byte) '}');
    }

    private void rowValue(String call) {
        comma(rowValueSlot(call));
    }

    /** Where a value starts outside typed arrays: after a comma if it is not the first of its row or list. */
    private void value() {
        comma(valueSlot());
    }

    /** A value that is plain JSON outside arrays; inside one, checks its kind and separates it. */
    private void element(ArrayKind kind) {
        comma(elementSlot(kind));
    }

    /** Outside an array opens {@code {tag:} } and returns true; inside, checks and separates the element. */
    private boolean open(ArrayKind kind, byte[] tag) {
        if (array == null) {
            value();
            put(tag);
            return true;
        }
        element(kind);
        return false;
    }

    private void close(boolean tagged) {
        if (tagged) {
            put((byte) '}');
        }
    }

    private void doublePayload(double value) {
        if (Double.isFinite(value)) {
            floating(value);
        } else {
            nonFinite(value);
        }
    }

    private void nonFinite(double value) {
        put(Double.isNaN(value) ? NAN : value > 0 ? INFINITY : NEGATIVE_INFINITY);
    }

    @Override
    void temporal(ArrayKind kind, DateTimeFormatter format, TemporalAccessor value) {
        boolean tagged = open(kind, VALUE_TAGS[kind.ordinal()]);
        string(format(format, value));
        close(tagged);
    }

    // ---- ids and tokens -----------------------------------------------------------------------------------

    /**
     * {@code "} and the prefix as the start of a byte buffer for {@link #id}, if every char of it is printable
     * ASCII that JSON writes as it is (no quote, no backslash), as in Neo4j's element ids; else null.
     */
    private static byte[] rawIdBuffer(String prefix) {
        byte[] buffer = new byte[prefix.length() + 22];  // quotes + sign + 19 digits of a long
        buffer[0] = '"';
        for (int i = 0; i < prefix.length(); i++) {
            char c = prefix.charAt(i);
            if (c < 0x20 || c > 0x7E || c == '"' || c == '\\') {
                return null;
            }
            buffer[i + 1] = (byte) c;
        }
        return buffer;
    }

    private void nodeId(long id) {
        id(nodeIdBytes, nodePrefix, nodeIdPrefix, id);
    }

    private void relationshipId(long id) {
        id(relIdBytes, relPrefix, relIdPrefix, id);
    }

    /** The quoted element id: prefix and decimal digits, copied straight when the prefix needs no escaping. */
    private void id(byte[] prefixBytes, int prefixLength, String prefix, long id) {
        if (prefixBytes == null || id < 0) {
            string(prefix + id);
            return;
        }
        ensure(prefixLength + 21);
        byte[] b = buf;
        System.arraycopy(prefixBytes, 0, b, pos, prefixLength);
        int end = WireText.decimal(b, pos + prefixLength, id);
        b[end] = '"';
        pos = end + 1;
    }

    @Override
    byte[] encodeLabel(String name) {
        return quotedName(name, false);
    }

    @Override
    byte[] encodeType(String name) {
        return quotedName(name, false);
    }

    @Override
    byte[] encodeKey(String name) {
        return quotedName(name, true);
    }

    /** A token name as Jackson writes a pre-encoded name: quoted by {@link JsonStringEncoder}; a key with its colon. */
    private static byte[] quotedName(String name, boolean colon) {
        byte[] quoted = JsonStringEncoder.getInstance().quoteAsUTF8(name);
        byte[] b = new byte[quoted.length + (colon ? 3 : 2)];
        b[0] = '"';
        System.arraycopy(quoted, 0, b, 1, quoted.length);
        b[quoted.length + 1] = '"';
        if (colon) {
            b[quoted.length + 2] = ':';
        }
        return b;
    }

    // ---- bytes --------------------------------------------------------------------------------------------

    private void put(byte a, byte b) {
        ensure(2);
        buf[pos] = a;
        buf[pos + 1] = b;
        pos += 2;
    }

    /** A finite float as {@link Float#toString} spells it, formatted by a reused builder (no String made). */
    private void floating(float value) {
        StringBuilder sb = text;
        sb.setLength(0);
        sb.append(value);  // the characters of String.valueOf(value)
        copy(sb);
    }

    /** A finite double as {@link Double#toString} spells it, formatted by a reused builder (no String made). */
    private void floating(double value) {
        StringBuilder sb = text;
        sb.setLength(0);
        sb.append(value);  // the characters of String.valueOf(value)
        copy(sb);
    }

    /** The builder's ASCII characters, unquoted. */
    private void copy(StringBuilder ascii) {
        int n = ascii.length();
        ensure(n);
        byte[] b = buf;
        int p = pos;
        for (int i = 0; i < n; i++) {
            b[p + i] = (byte) ascii.charAt(i);
        }
        pos = p + n;
    }

    private void number(long value) {
        if (value < 0) {
            if (value == Long.MIN_VALUE) {
                put(LONG_MIN);
                return;
            }
            put((byte) '-');
            value = -value;
        }
        ensure(19);
        pos = WireText.decimal(buf, pos, value);
    }

    /** Writes {@code c}'s escape at {@code p} (room for 6 bytes is there) and returns the position after it. */
    private static int escape(int c, byte[] b, int p) {
        b[p++] = '\\';
        byte e = c < 0x80 ? ESCAPES[c] : (byte) 'u';
        if (e != 'u') {
            b[p++] = e;
            return p;
        }
        b[p++] = 'u';
        b[p++] = HEX[(c >> 12) & 0xF];
        b[p++] = HEX[(c >> 8) & 0xF];
        b[p++] = HEX[(c >> 4) & 0xF];
        b[p++] = HEX[c & 0xF];
        return p;
    }

    /** A quoted JSON string, escaped as Jackson's generator escapes a String value (surrogates included). */
    private void string(CharSequence s) {
        int n = s.length();
        put((byte) '"');
        int i = 0;
        while (i < n) {
            int chunk = Math.min(n - i, 4096);
            ensure(6 * chunk + 1);
            byte[] b = buf;
            int p = pos;
            for (int end = i + chunk; i < end; i++) {
                char c = s.charAt(i);
                if (c < 0x80) {
                    if (ESCAPES[c] == 0) {
                        b[p++] = (byte) c;
                    } else {
                        p = escape(c, b, p);
                    }
                } else if (c < 0x800) {
                    b[p++] = (byte) (0xC0 | c >> 6);
                    b[p++] = (byte) (0x80 | c & 0x3F);
                } else if (Character.isSurrogate(c)) {
                    p = escape(c, b, p);
                } else {
                    b[p++] = (byte) (0xE0 | c >> 12);
                    b[p++] = (byte) (0x80 | c >> 6 & 0x3F);
                    b[p++] = (byte) (0x80 | c & 0x3F);
                }
            }
            pos = p;
        }
        put((byte) '"');
    }

    /** Quoted standard base64 with padding, as Jackson's default variant writes binary (no line feeds). */
    private void base64(byte[] value) {
        int n = value.length;
        ensure(2 + (n + 2) / 3 * 4);
        byte[] b = buf;
        int p = pos;
        b[p++] = '"';
        int i = 0;
        for (int whole = n - n % 3; i < whole; i += 3) {
            int bits = (value[i] & 0xFF) << 16 | (value[i + 1] & 0xFF) << 8 | value[i + 2] & 0xFF;
            b[p++] = BASE64[bits >>> 18];
            b[p++] = BASE64[bits >>> 12 & 0x3F];
            b[p++] = BASE64[bits >>> 6 & 0x3F];
            b[p++] = BASE64[bits & 0x3F];
        }
        if (i < n) {
            int bits = (value[i] & 0xFF) << 16 | (i + 1 < n ? (value[i + 1] & 0xFF) << 8 : 0);
            b[p++] = BASE64[bits >>> 18];
            b[p++] = BASE64[bits >>> 12 & 0x3F];
            b[p++] = i + 1 < n ? BASE64[bits >>> 6 & 0x3F] : (byte) '=';
            b[p++] = '=';
        }
        b[p++] = '"';
        pos = p;
    }
}
