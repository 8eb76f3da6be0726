package org.subgraphexport.encode;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.TokenNames;
import org.subgraphexport.wire.Wire;

/**
 * Writes the {@code json} format (see {@link Wire}): the same bytes as Jackson's default output for the same records
 * (the conformance module's WriterDifferentialTest holds it to stock Jackson, byte by byte), at a fraction of the
 * cost. A record's fixed parts are pre-encoded runs
 * (<code>,{"record":"node","id":</code> is one copy), token names are quoted and encoded once per stream, element
 * ids are the prefix's bytes and decimal digits.
 *
 * <p>Bytes are Jackson's default output: no whitespace; in strings {@code "} and {@code \} escaped with a
 * backslash, control characters as {@code \b \t \n \f \r} or <code>&#92;u00XX</code>, every UTF-16 surrogate
 * (paired or not) as <code>&#92;uXXXX</code>, all other characters as UTF-8; token names (labels, types, keys) as
 * Jackson's {@code JsonStringEncoder} quotes a pre-encoded name: the same escapes, but a surrogate pair as one
 * 4-byte UTF-8 sequence; numbers as {@link Integer#toString}, {@link Long#toString}, {@link Float#toString} and
 * {@link Double#toString} write them; binary as standard base64 with padding.
 *
 * <p>The protocol checks, the buffer and its hand-over, and the token dictionary are {@link ByteRecordWriter}'s.
 */
public final class JsonGraphWriter extends ByteRecordWriter {
    private static final byte[] BASE64 =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".getBytes(StandardCharsets.US_ASCII);
    /** Most bytes of a finite float or double as {@link Double#toString} spells it. */
    private static final int MAX_FLOATING = 24;

    /** JSON's escapes: {@code "}, {@code \}, control characters; in string values also every surrogate. */
    private static final class JsonEscapes extends WireBuffer.Escapes {
        private static final byte[] HEX = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);
        /** Per ASCII char: a letter for a two-character escape, 'u' for <code>&#92;u00XX</code>. */
        private static final byte[] SHORT = new byte[128];

        static {
            for (int c = 0; c < 0x20; c++) {
                SHORT[c] = 'u';
            }
            SHORT['"'] = '"';
            SHORT['\\'] = '\\';
            SHORT['\b'] = 'b';
            SHORT['\t'] = 't';
            SHORT['\f'] = 'f';
            SHORT['\n'] = 'n';
            SHORT['\r'] = 'r';
        }

        JsonEscapes(boolean surrogates) {
            super(surrogates, 6);
            for (int c = 0; c < 128; c++) {
                ascii[c] = SHORT[c] != 0;
            }
        }

        @Override
        int escape(char c, byte[] b, int p) {
            b[p++] = '\\';
            byte e = c < 0x80 ? SHORT[c] : (byte) 'u';
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
    }

    /** String values: every surrogate escaped, as Jackson's generator writes a String. */
    private static final JsonEscapes VALUE = new JsonEscapes(true);
    /** Token names: pairs as UTF-8, as Jackson's {@code JsonStringEncoder.quoteAsUTF8} writes them. */
    private static final JsonEscapes NAME = new JsonEscapes(false);

    private static final byte[]
            NODE_START = ascii(",{\"record\":\"node\",\"id\":"),
            LABELS_START = ascii(",\"labels\":["),
            NODE_PROPERTIES = ascii("],\"properties\":{"),
            RELATIONSHIP_START = ascii(",{\"record\":\"relationship\",\"id\":"),
            TYPE = ascii(",\"type\":"), START = ascii(",\"start\":"), END = ascii(",\"end\":"),
            PROPERTIES = ascii(",\"properties\":{"),
            HEADER_START = ascii("[{\"record\":\"header\",\"version\":" + Wire.VERSION + ",\"database\":"),
            ROOT = ascii(",\"root\":"), STATE = ascii(",\"state\":"), PARTITION = ascii(",\"partition\":"),
            PARTITIONS = ascii(",\"partitions\":"),
            SINCE = ascii(",\"since\":"),
            LEFT_NODE = ascii(",{\"record\":\"left\",\"node\":"),
            LEFT_RELATIONSHIP = ascii(",{\"record\":\"left\",\"relationship\":"),
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
            PATH_RELATIONSHIPS = ascii("],\"relationships\":[");
    /** Longest of {@link #NAN}, {@link #INFINITY}, {@link #NEGATIVE_INFINITY}. */
    private static final int MAX_NON_FINITE = NEGATIVE_INFINITY.length;
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

    /** {@code "} and the element-id prefix as bytes; null if the prefix needs escaping. */
    private byte[] nodeIdBytes, relIdBytes;
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
        beginHeader(tokens, header);
        nodeIdPrefix = header.nodeIdPrefix();  // as it is: an unpaired surrogate in it is escaped, not replaced
        relIdPrefix = header.relIdPrefix();
        nodeIdBytes = rawIdPrefix(nodeIdPrefix);
        relIdBytes = rawIdPrefix(relIdPrefix);
        out.append(HEADER_START);
        string(WireText.wellFormed(header.database()), 0);
        out.append(ROOT);
        string(WireText.wellFormed(header.root()), 0);
        out.append(STATE);
        string(WireText.wellFormed(header.state()), 0);
        out.require(PARTITION.length + PARTITIONS.length + 2 * WireBuffer.MAX_DECIMAL + 1);
        out.put(PARTITION);
        out.decimal(header.partition());
        out.put(PARTITIONS);
        out.decimal(header.partitions());
        if (header.delta()) {  // delta streams only: the earlier state
            out.append(SINCE);
            string(WireText.wellFormed(header.since()), 1);
        }
        out.put('}');
        endHeader();
    }

    @Override
    public void leftNode(long id) throws IOException {
        beginLeftRecord("leftNode()");
        out.append(LEFT_NODE);
        nodeId(id);
        out.require(1);
        out.put('}');
        endRecord();
    }

    @Override
    public void leftRelationship(long id) throws IOException {
        beginLeftRecord("leftRelationship()");
        out.append(LEFT_RELATIONSHIP);
        relationshipId(id);
        out.require(1);
        out.put('}');
        endRecord();
    }

    @Override
    public void beginNode(long id, int[] labelIds, int labelCount) throws IOException {
        beginNodeRecord();
        WireBuffer o = out;
        o.append(NODE_START);
        nodeId(id);
        o.append(LABELS_START);
        for (int i = 0; i < labelCount; i++) {
            byte[] label = token(LABEL_TOKEN, labelIds[i]);
            o.require(1 + label.length);
            if (i > 0) {
                o.put(',');
            }
            o.put(label);
        }
        o.append(NODE_PROPERTIES);
        propertyCount = 0;
    }

    @Override
    public void endNode() throws IOException {
        endProperties(NODE);
        endRecordWithProperties();
    }

    @Override
    public void beginRelationship(long id, int type, long startNode, long endNode) throws IOException {
        beginRelationshipRecord();
        WireBuffer o = out;
        o.append(RELATIONSHIP_START);
        relationshipId(id);
        o.append(TYPE);
        o.append(token(TYPE_TOKEN, type));
        o.append(START);
        nodeId(startNode);
        o.append(END);
        nodeId(endNode);
        o.append(PROPERTIES);
        propertyCount = 0;
    }

    @Override
    public void endRelationship() throws IOException {
        endProperties(RELATIONSHIP);
        endRecordWithProperties();
    }

    private void endRecordWithProperties() throws IOException {
        out.require(2);
        out.put('}', '}');
        endRecord();
    }

    @Override
    public void property(int key) throws IOException {
        propertySlot();
        byte[] name = token(KEY_TOKEN, key);
        WireBuffer o = out;
        o.require(1 + name.length);
        if (propertyCount++ > 0) {
            o.put(',');
        }
        o.put(name);
    }

    @Override
    public void columns(String[] names) throws IOException {
        checkColumns(names);
        out.append(COLUMNS_START);
        for (int i = 0; i < names.length; i++) {
            out.require(2);
            comma(i);
            string(WireText.wellFormed(names[i]), 0);
        }
        out.require(2);
        out.put(']', '}');
        endColumns(names.length);
    }

    @Override
    public void beginRow() throws IOException {
        beginRowSlot(out.pos);
        out.append(ROW_START);
    }

    @Override
    public void endRow() throws IOException {
        endRowSlot();
        out.require(2);
        out.put(']', '}');
        endRecord();
    }

    @Override
    public void end(long nodes, long relationships, boolean truncated) throws IOException {
        end(nodes, relationships, truncated, "");
    }

    @Override
    public void end(long nodes, long relationships, boolean truncated, String state) throws IOException {
        checkEnd();
        WireBuffer o = out;
        o.require(END_START.length + RELATIONSHIPS.length + TRUNCATED_FALSE.length + ROWS.length
                + 3 * WireBuffer.MAX_DECIMAL + 1);
        o.put(END_START);
        o.decimal(nodes);
        o.put(RELATIONSHIPS);
        o.decimal(relationships);
        o.put(truncated ? TRUNCATED_TRUE : TRUNCATED_FALSE);
        if (columnCount >= 0) {
            o.put(ROWS);
            o.decimal(rows);
        }
        o.append(STATE);
        string(WireText.wellFormed(state), 1);
        o.put('}');
        endClosingRecord();
    }

    @Override
    public void error(String code, String message) throws IOException {
        beginError();  // drops an unfinished record
        out.append(ERROR_START);
        string(WireText.wellFormed(code), 0);
        out.append(MESSAGE);
        string(message == null ? "" : WireText.wellFormed(message), 1);
        out.put('}');
        endClosingRecord();
    }

    @Override
    void endStream() {
        out.require(1);
        out.put(']');
    }

    // ---- values -------------------------------------------------------------------------------------------

    @Override
    public void writeBoolean(boolean value) throws IOException {
        element(ArrayKind.BOOLEAN, FALSE.length);
        out.put(value ? TRUE : FALSE);
    }

    @Override
    public void writeByte(byte value) throws IOException {
        int slot = scalarSlot("byte arrays are written with writeBytes");
        WireBuffer o = out;
        o.require(1 + BYTE.length + 4 + 1);
        comma(slot);
        o.put(BYTE);
        o.decimal(value);
        o.put('}');
    }

    @Override
    public void writeShort(short value) throws IOException {
        boolean tagged = open(ArrayKind.SHORT, SHORT, 6);
        out.decimal(value);
        close(tagged);
    }

    @Override
    public void writeInt(int value) throws IOException {
        boolean tagged = open(ArrayKind.INT, INT, 11);
        out.decimal(value);
        close(tagged);
    }

    @Override
    public void writeLong(long value) throws IOException {
        element(ArrayKind.LONG, WireBuffer.MAX_DECIMAL);
        out.decimal(value);
    }

    @Override
    public void writeFloat(float value) throws IOException {
        boolean tagged = open(ArrayKind.FLOAT, FLOAT, MAX_FLOATING);
        floatPayload(value);
        close(tagged);
    }

    @Override
    public void writeDouble(double value) throws IOException {
        if (array != null) {
            element(ArrayKind.DOUBLE, MAX_FLOATING);
            doublePayload(value);
        } else if (Double.isFinite(value)) {
            int slot = valueSlot();
            out.require(1 + MAX_FLOATING);
            comma(slot);
            floating(value);
        } else {
            int slot = valueSlot();
            WireBuffer o = out;
            o.require(1 + DOUBLE.length + MAX_NON_FINITE + 1);
            comma(slot);
            o.put(DOUBLE);
            nonFinite(value);
            o.put('}');
        }
    }

    @Override
    public void writeChar(char value) throws IOException {
        boolean tagged = open(ArrayKind.CHAR, CHAR, 1);
        StringBuilder c = text;
        c.setLength(0);
        c.append(Character.isSurrogate(value) ? '?' : value);  // a lone surrogate is unpaired
        string(c, 1);
        close(tagged);
    }

    @Override
    public void writeString(String value) throws IOException {
        element(ArrayKind.STRING, 0);
        string(WireText.wellFormed(value), 0);
    }

    /** ASCII bytes are copied (escaped where JSON needs it) in one pass; other content is decoded first. */
    @Override
    public void writeUtf8(byte[] utf8, int offset, int length) throws IOException {
        element(ArrayKind.STRING, 0);
        WireBuffer o = out;
        int start = o.pos;
        o.require(length + 2);
        byte[] b = o.buf;
        int p = o.pos;
        b[p++] = '"';
        for (int i = offset, end = offset + length; i < end; i++) {
            byte c = utf8[i];
            if (c < 0) {
                o.pos = start;
                // decoding never yields an unpaired surrogate (malformed bytes become U+FFFD): no wellFormed scan
                string(new String(utf8, offset, length, StandardCharsets.UTF_8), 0);
                return;
            }
            if (!VALUE.ascii[c]) {
                b[p++] = c;
            } else {
                o.pos = p;
                o.require(6 + end - i);
                b = o.buf;
                p = VALUE.escape((char) c, b, p);
            }
        }
        b[p++] = '"';
        o.pos = p;
    }

    @Override
    public void writeBytes(byte[] value) throws IOException {
        int slot = scalarSlot("writeBytes inside an array");
        WireBuffer o = out;
        o.require(1 + BYTES.length + 2 + (value.length + 2) / 3 * 4 + 1);
        comma(slot);
        o.put(BYTES);
        base64(value);
        o.put('}');
    }

    @Override
    public void writePoint(int srid, double[] coordinates) throws IOException {
        if (coordinates.length != 2 && coordinates.length != 3) {
            throw new IllegalArgumentException("a point has 2 or 3 coordinates, not " + coordinates.length);
        }
        boolean tagged = open(ArrayKind.POINT, POINT_TAG,
                POINT_START.length + 11 + COORDINATES.length + 3 * (1 + MAX_FLOATING) + 2);
        WireBuffer o = out;
        o.put(POINT_START);
        o.decimal(srid);
        o.put(COORDINATES);
        for (int i = 0; i < coordinates.length; i++) {
            comma(i);
            doublePayload(coordinates[i]);
        }
        o.put(']', '}');
        close(tagged);
    }

    @Override
    public void writeDuration(long months, long days, long seconds, int nanos) throws IOException {
        boolean tagged = open(ArrayKind.DURATION, DURATION, 5 + 4 * WireBuffer.MAX_DECIMAL);
        WireBuffer o = out;
        o.put('[');
        o.decimal(months);
        o.put(',');
        o.decimal(days);
        o.put(',');
        o.decimal(seconds);
        o.put(',');
        o.decimal(nanos);
        o.put(']');
        close(tagged);
    }

    @Override
    public void writeDate(LocalDate value) throws IOException {
        temporal(ArrayKind.DATE, DateTimeFormatter.ISO_LOCAL_DATE, value);
    }

    @Override
    public void writeLocalTime(LocalTime value) throws IOException {
        temporal(ArrayKind.LOCAL_TIME, DateTimeFormatter.ISO_LOCAL_TIME, value);
    }

    @Override
    public void writeTime(OffsetTime value) throws IOException {
        temporal(ArrayKind.TIME, DateTimeFormatter.ISO_OFFSET_TIME, value);
    }

    @Override
    public void writeLocalDateTime(LocalDateTime value) throws IOException {
        temporal(ArrayKind.LOCAL_DATE_TIME, DateTimeFormatter.ISO_LOCAL_DATE_TIME, value);
    }

    @Override
    public void writeDateTime(ZonedDateTime value) throws IOException {
        temporal(ArrayKind.DATE_TIME, DateTimeFormatter.ISO_ZONED_DATE_TIME, value);
    }

    /** A temporal value of {@code kind} as an ISO string; outside arrays tagged with {@link #valueTag}. */
    private void temporal(ArrayKind kind, DateTimeFormatter format, java.time.temporal.TemporalAccessor value) {
        boolean tagged = open(kind, VALUE_TAGS[kind.ordinal()], 1);
        string(iso(format, value), 1);
        close(tagged);
    }

    @Override
    public void writeUuid(long msb, long lsb) throws IOException {
        boolean tagged = open(ArrayKind.UUID, UUID, 2 + WireBuffer.UUID_TEXT);
        WireBuffer o = out;
        o.put('"');
        o.uuid(msb, lsb);
        o.put('"');
        close(tagged);
    }

    @Override
    public void writeVector(VectorKind kind, Object values) throws IOException {
        int slot = scalarSlot("writeVector inside an array");
        byte[] start = VECTOR_STARTS[kind.ordinal()];
        out.require(1 + start.length);
        comma(slot);
        out.put(start);
        vectorValues(kind, values);
        out.require(3);
        out.put(']', '}');
        out.put('}');
    }

    @Override
    void vectorInteger(int index, long value, VectorKind kind) {
        out.require(1 + WireBuffer.MAX_DECIMAL);
        comma(index);
        out.decimal(value);
    }

    @Override
    void vectorFloat(int index, float value) {
        out.require(1 + MAX_FLOATING);
        comma(index);
        floatPayload(value);
    }

    @Override
    void vectorDouble(int index, double value) {
        out.require(1 + MAX_FLOATING);
        comma(index);
        doublePayload(value);
    }

    @Override
    public void beginArray(int size, ArrayKind kind) throws IOException {
        int slot = beginArraySlot(size, kind);
        byte[] tag = ARRAY_TAGS[kind.ordinal()];
        out.require(1 + tag.length);
        comma(slot);
        out.put(tag);
    }

    @Override
    public void endArray() throws IOException {
        endArraySlot();
        out.require(2);
        out.put(']', '}');
    }

    // ---- row values ---------------------------------------------------------------------------------------

    @Override
    public void writeNull() throws IOException {
        int slot = rowValueSlot("writeNull()");
        out.require(1 + NULL.length);
        comma(slot);
        out.put(NULL);
    }

    @Override
    public void beginList(int size) throws IOException {
        int slot = containerSlot("beginList()", size);
        out.require(2);
        comma(slot);
        out.put('[');  // a plain array is a list: typed arrays are tagged objects
        push(LIST, size, out.pos);
    }

    @Override
    public void endList() throws IOException {
        pop(LIST, "endList() without beginList()");
        out.require(1);
        out.put(']');
    }

    @Override
    public void beginMap(int size) throws IOException {
        int slot = containerSlot("beginMap()", size);
        out.require(1 + MAP.length);
        comma(slot);
        out.put(MAP);
        push(MAP_KIND, size, out.pos);
    }

    @Override
    public void mapKey(String key) throws IOException {
        int slot = mapKeySlot();
        out.require(1);
        comma(slot);
        string(WireText.wellFormed(key), 1);
        out.put(':');
    }

    @Override
    public void endMap() throws IOException {
        pop(MAP_KIND, "endMap() without beginMap()");
        out.require(2);
        out.put('}', '}');
    }

    @Override
    public void writeNodeRef(long id) throws IOException {
        reference(rowValueSlot("writeNodeRef()"), NODE_REF);
        nodeId(id);
        out.require(1);
        out.put('}');
    }

    @Override
    public void writeRelationshipRef(long id) throws IOException {
        reference(rowValueSlot("writeRelationshipRef()"), RELATIONSHIP_REF);
        relationshipId(id);
        out.require(1);
        out.put('}');
    }

    private void reference(int slot, byte[] tag) {
        out.require(1 + tag.length);
        comma(slot);
        out.put(tag);
    }

    @Override
    public void writePath(long[] nodeIds, long[] relationshipIds) throws IOException {
        WireText.checkPath(nodeIds, relationshipIds);
        reference(rowValueSlot("writePath()"), PATH_START);
        for (int i = 0; i < nodeIds.length; i++) {
            out.require(1);
            comma(i);
            nodeId(nodeIds[i]);
        }
        out.append(PATH_RELATIONSHIPS);
        for (int i = 0; i < relationshipIds.length; i++) {
            out.require(1);
            comma(i);
            relationshipId(relationshipIds[i]);
        }
        out.require(3);
        out.put(']', '}');
        out.put('}');
    }

    // ---- value helpers: the room each needs was required before ---------------------------------------------

    private void comma(int index) {
        if (index > 0) {
            out.put(',');
        }
    }

    /** A value that is plain JSON outside arrays; inside one, checks its kind. Separates it, with room for it. */
    private void element(ArrayKind kind, int room) {
        int slot = elementSlot(kind);
        out.require(1 + room);
        comma(slot);
    }

    /**
     * Outside an array opens {@code {tag:} } and returns true; inside, checks the element. Separates it, with room
     * for a payload of up to {@code room} bytes and the closing brace.
     */
    private boolean open(ArrayKind kind, byte[] tag, int room) {
        if (array == null) {
            int slot = valueSlot();
            out.require(1 + tag.length + room + 1);
            comma(slot);
            out.put(tag);
            return true;
        }
        element(kind, room);
        return false;
    }

    private void close(boolean tagged) {
        if (tagged) {
            out.put('}');
        }
    }

    private void floatPayload(float value) {
        if (Float.isFinite(value)) {
            floating(value);
        } else {
            nonFinite(value);
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
        out.put(Double.isNaN(value) ? NAN : value > 0 ? INFINITY : NEGATIVE_INFINITY);
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
        WireBuffer o = out;
        int n = ascii.length();
        byte[] b = o.buf;
        int p = o.pos;
        for (int i = 0; i < n; i++) {
            b[p + i] = (byte) ascii.charAt(i);
        }
        o.pos = p + n;
    }

    /**
     * A quoted JSON string, escaped as Jackson's generator escapes a String value (surrogates included), with room
     * for {@code after} more bytes.
     */
    private void string(CharSequence s, int after) {
        out.require(1);
        out.put('"');
        out.utf8(s, 0, s.length(), VALUE, 1 + after);
        out.put('"');
    }

    /** Quoted standard base64 with padding, as Jackson's default variant writes binary (no line feeds). */
    private void base64(byte[] value) {
        int n = value.length;
        byte[] b = out.buf;
        int p = out.pos;
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
        out.pos = p;
    }

    // ---- ids and tokens -----------------------------------------------------------------------------------

    /**
     * {@code "} and the prefix as bytes, if every char of it is printable ASCII that JSON writes as it is (no
     * quote, no backslash), as in Neo4j's element ids; else null.
     */
    private static byte[] rawIdPrefix(String prefix) {
        byte[] bytes = new byte[prefix.length() + 1];
        bytes[0] = '"';
        for (int i = 0; i < prefix.length(); i++) {
            char c = prefix.charAt(i);
            if (c < 0x20 || c > 0x7E || c == '"' || c == '\\') {
                return null;
            }
            bytes[i + 1] = (byte) c;
        }
        return bytes;
    }

    private void nodeId(long id) {
        id(nodeIdBytes, nodeIdPrefix, id);
    }

    private void relationshipId(long id) {
        id(relIdBytes, relIdPrefix, id);
    }

    /** The quoted element id, prefix and decimal digits: the prefix's bytes copied when it needs no escaping. */
    private void id(byte[] prefixBytes, String prefix, long id) {
        WireBuffer o = out;
        if (prefixBytes != null) {
            o.require(prefixBytes.length + WireBuffer.MAX_DECIMAL + 1);
            o.put(prefixBytes);
        } else {
            o.require(1);
            o.put('"');
            o.utf8(prefix, 0, prefix.length(), VALUE, WireBuffer.MAX_DECIMAL + 1);
        }
        o.decimal(id);
        o.put('"');
    }

    /** A token name as Jackson writes a pre-encoded name, quoted; a key with its colon. */
    @Override
    byte[] encodeToken(int kind, int index, String name) {
        WireBuffer b = new WireBuffer(name.length() + 3);
        b.put('"');
        b.utf8(name, 0, name.length(), NAME, 2);
        b.put('"');
        if (kind == KEY_TOKEN) {
            b.put(':');
        }
        return b.toByteArray();
    }
}
