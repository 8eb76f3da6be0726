package org.subgraphexport.encode;

import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.TokenNames;
import org.subgraphexport.wire.Wire;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.format.DateTimeFormatter;
import java.time.temporal.TemporalAccessor;

/**
 * Writes the {@code bson} format (see {@link Wire}) as bytes into its own buffer: one document per record, the same
 * bytes as {@code BsonGenerator} behind the test sources' {@code JacksonGraphWriter.bson} (the reference this writer
 * is tested against, call by call and byte by byte), without a Jackson generator and its per-call context checks. It is
 * {@link JsonGraphWriter}'s design in BSON: a record's fixed parts are pre-encoded runs (a node record's length
 * placeholder, {@code record} element and the name of its {@code id} element are one copy), token names are encoded
 * once per stream and kept by database token id (labels and types as whole string payloads, property keys as element
 * names with the type byte's place in front), element ids are the prefix's UTF-8 and decimal digits, array element
 * names {@code "0"}, {@code "1"}, ... come from a table, and every document's and array's int32 length is
 * back-patched in the buffer when it ends.
 *
 * <p>Bytes are the reference's: an element is its type byte, its name (UTF-8, NUL-terminated) and its value; a
 * value's type byte is written in front of its name, which {@link #property} and {@link #mapKey} write before the
 * value's type is known, so they leave its place and the value fills it in. Strings are UTF-8 of the string with
 * each unpaired surrogate as {@code '?'} (as {@link Wire#wellFormed} makes them), U+0000 as it is;
 * in element names (property keys, map keys) U+0000 becomes U+FFFD. {@code float} values are the double of the
 * float's exact value; floats and doubles are raw IEEE bits, little-endian like every number.
 *
 * <p>Buffering and the protocol checks are {@link ByteRecordWriter}'s, shared with {@link JsonGraphWriter}: the
 * buffer goes to the target at the end of a record once it holds {@link Wire#KRYO_BUFFER} bytes or more, so
 * {@link #error} can drop an unfinished record; the target is flushed once, by {@link #finish}. Where the reference
 * wrote a malformed document or threw Jackson's own exception for a call the contract forbids (a value without its
 * {@link #property}, two names in a row, a record or map ended where a value is due, {@link #endRelationship}
 * ending a node, a record after {@link #finish}), this writer throws {@link IllegalStateException} and writes
 * nothing.
 */
public final class BsonGraphWriter extends ByteRecordWriter {
    private static final byte DOUBLE = 0x01, STRING = 0x02, DOCUMENT = 0x03, ARRAY = 0x04, BINARY = 0x05,
            BOOLEAN = 0x08, NULL = 0x0A, INT32 = 0x10, INT64 = 0x12;

    private static final byte[]
            HEADER_START = record(Wire.Json.R_HEADER).name(INT32, Wire.Json.VERSION).int32(Wire.VERSION)
                    .name(STRING, Wire.Json.DATABASE).bytes(),
            ROOT = template().name(STRING, Wire.Json.ROOT).bytes(),
            NODE_START = record(Wire.Json.R_NODE).name(STRING, Wire.Json.ID).bytes(),
            LABELS_START = template().name(ARRAY, Wire.Json.LABELS).length().bytes(),
            PROPERTIES_START = template().name(DOCUMENT, Wire.Json.PROPERTIES).length().bytes(),
            RELATIONSHIP_START = record(Wire.Json.R_RELATIONSHIP).name(STRING, Wire.Json.ID).bytes(),
            TYPE = template().name(STRING, Wire.Json.TYPE).bytes(),
            START = template().name(STRING, Wire.Json.START).bytes(),
            END = template().name(STRING, Wire.Json.END).bytes(),
            COLUMNS_START = record(Wire.Json.R_COLUMNS).name(ARRAY, Wire.Json.NAMES).length().bytes(),
            ROW_START = record(Wire.Json.R_ROW).name(ARRAY, Wire.Json.VALUES).length().bytes(),
            END_START = record(Wire.Json.R_END).name(INT64, Wire.Json.NODES).bytes(),
            RELATIONSHIPS = template().name(INT64, Wire.Json.RELATIONSHIPS).bytes(),
            TRUNCATED = template().name(BOOLEAN, Wire.Json.TRUNCATED).bytes(),
            ROWS = template().name(INT64, Wire.Json.ROWS).bytes(),
            ERROR_START = record(Wire.Json.R_ERROR).name(STRING, Wire.Json.CODE).bytes(),
            MESSAGE = template().name(STRING, Wire.Json.MESSAGE).bytes(),
            NAN = template().string(Wire.Json.NAN).bytes(),
            INFINITY = template().string(Wire.Json.INFINITY).bytes(),
            NEGATIVE_INFINITY = template().string(Wire.Json.NEGATIVE_INFINITY).bytes(),
            // a tagged value's document up to its payload: length placeholder, payload type, tag
            BYTE = tag(INT32, Wire.Json.BYTE).bytes(), SHORT = tag(INT32, Wire.Json.SHORT).bytes(),
            INT = tag(INT32, Wire.Json.INT).bytes(), FLOAT_NUMBER = tag(DOUBLE, Wire.Json.FLOAT).bytes(),
            FLOAT_TEXT = tag(STRING, Wire.Json.FLOAT).bytes(), DOUBLE_TEXT = tag(STRING, Wire.Json.DOUBLE).bytes(),
            CHAR = tag(STRING, Wire.Json.CHAR).bytes(), BYTES = tag(BINARY, Wire.Json.BYTES).bytes(),
            POINT = tag(DOCUMENT, Wire.Json.POINT).bytes(), DURATION = tag(ARRAY, Wire.Json.DURATION).bytes(),
            UUID = tag(STRING, Wire.Json.UUID).bytes(),
            NODE_REF = tag(STRING, Wire.Json.NODE_REF).bytes(),
            RELATIONSHIP_REF = tag(STRING, Wire.Json.RELATIONSHIP_REF).bytes(),
            // tagged values with a document or array payload: up to its first element
            MAP = tag(DOCUMENT, Wire.Json.MAP).length().bytes(),
            POINT_START = template().length().name(INT32, Wire.Json.SRID).bytes(),
            COORDINATES = template().name(ARRAY, Wire.Json.COORDINATES).length().bytes(),
            PATH_START = tag(DOCUMENT, Wire.Json.PATH).length().name(ARRAY, Wire.Json.NODES).length().bytes(),
            PATH_RELATIONSHIPS = template().name(ARRAY, Wire.Json.RELATIONSHIPS).length().bytes(),
            LONG_MIN = Long.toString(Long.MIN_VALUE).getBytes(StandardCharsets.US_ASCII);
    /** Where the payload document of a map, path or vector starts, from the start of its tagged document. */
    private static final int MAP_PAYLOAD = MAP.length - 4,
            PATH_PAYLOAD = tag(DOCUMENT, Wire.Json.PATH).bytes().length,
            VECTOR_PAYLOAD = tag(DOCUMENT, Wire.Json.VECTOR).bytes().length;
    /** Per array kind, the tagged document up to the first element; per vector kind, up to the first value. */
    private static final byte[][] ARRAY_TAGS = new byte[ArrayKind.values().length][],
            VECTOR_STARTS = new byte[VectorKind.values().length][];
    /** Per array kind, one value's tagged document up to its payload, a string (used for temporal values). */
    private static final byte[][] TEXT_TAGS = new byte[ArrayKind.values().length][];
    /** Array element names {@code "0"}, {@code "1"}, ... without their NUL; larger indexes are formatted. */
    private static final byte[][] INDEXES = new byte[1000][];

    static {
        for (ArrayKind k : ArrayKind.values()) {
            ARRAY_TAGS[k.ordinal()] = tag(ARRAY, Wire.Json.arrayTag(k)).length().bytes();
            TEXT_TAGS[k.ordinal()] = tag(STRING, valueTag(k)).bytes();
        }
        for (VectorKind k : VectorKind.values()) {
            VECTOR_STARTS[k.ordinal()] = tag(DOCUMENT, Wire.Json.VECTOR).length().name(STRING, Wire.Json.KIND)
                    .string(k.name()).name(ARRAY, Wire.Json.VALUES).length().bytes();
        }
        for (int i = 0; i < INDEXES.length; i++) {
            INDEXES[i] = Integer.toString(i).getBytes(StandardCharsets.US_ASCII);
        }
    }

    /** Where the open properties document starts. */
    private int propertiesAt;
    /** Where the type byte of the value due after {@link #property} or {@link #mapKey} goes. */
    private int typeAt;
    /** Where the open typed array's tagged document starts. */
    private int arrayAt;
    /** The element-id prefixes as UTF-8 (unpaired surrogates as '?'). */
    private byte[] nodeIdPrefix, relIdPrefix;

    private BsonGraphWriter(OutputStream target) {
        super(target);
    }

    /** A {@code bson} writer over {@code out}. */
    public static BsonGraphWriter bson(OutputStream out) {
        return new BsonGraphWriter(out);
    }

    // ---- records ------------------------------------------------------------------------------------------

    @Override
    public void header(Header header, TokenNames tokens) throws IOException {
        beginHeader(tokens);
        nodeIdPrefix = utf8(WireText.wellFormed(header.nodeIdPrefix()));
        relIdPrefix = utf8(WireText.wellFormed(header.relIdPrefix()));
        put(HEADER_START);
        string(header.database());
        put(ROOT);
        string(header.root());
        endDocument(committed);
        endHeader();
    }

    @Override
    public void beginNode(long id, int[] labelIds, int labelCount) throws IOException {
        beginRecord("beginNode()");
        put(NODE_START);
        id(nodeIdPrefix, id);
        put(LABELS_START);
        int at = pos - 4;
        for (int i = 0; i < labelCount; i++) {
            byte[] label = label(labelIds[i]);
            elementName(STRING, i);
            put(label);
        }
        endDocument(at);
        openProperties(NODE);
    }

    @Override
    public void endNode() throws IOException {
        endRecordWithProperties(NODE);
    }

    @Override
    public void beginRelationship(long id, int type, long startNode, long endNode) throws IOException {
        beginRecord("beginRelationship()");
        put(RELATIONSHIP_START);
        id(relIdPrefix, id);
        put(TYPE);
        put(type(type));
        put(START);
        id(nodeIdPrefix, startNode);
        put(END);
        id(nodeIdPrefix, endNode);
        openProperties(RELATIONSHIP);
    }

    @Override
    public void endRelationship() throws IOException {
        endRecordWithProperties(RELATIONSHIP);
    }

    private void openProperties(int record) {
        put(PROPERTIES_START);
        propertiesAt = pos - 4;
        inProperties = record;
    }

    private void endRecordWithProperties(int record) throws IOException {
        endProperties(record);
        endDocument(propertiesAt);
        endRecordDocument();
    }

    @Override
    public void property(int key) throws IOException {
        checkProperty();
        byte[] name = key(key);
        typeAt = pos;
        put(name);
        valueDue = true;
    }

    @Override
    public void columns(String[] names) throws IOException {
        checkColumns(names);
        put(COLUMNS_START);
        int at = pos - 4;
        for (int i = 0; i < names.length; i++) {
            elementName(STRING, i);
            string(names[i]);
        }
        endDocument(at);
        endRecordDocument();
        columnCount = names.length;
    }

    @Override
    public void beginRow() throws IOException {
        checkBeginRow();
        put(ROW_START);
        push(ROW, columnCount, pos - 4);
    }

    @Override
    public void endRow() throws IOException {
        endDocument(pop(ROW, "endRow() without beginRow()"));
        endRecordDocument();
        rows++;
    }

    @Override
    public void end(long nodes, long relationships, boolean truncated) throws IOException {
        checkEnd();
        put(END_START);
        putLong(nodes);
        put(RELATIONSHIPS);
        putLong(relationships);
        put(TRUNCATED);
        put(truncated ? (byte) 1 : (byte) 0);
        if (columnCount >= 0) {
            put(ROWS);
            putLong(rows);
        }
        endDocument(committed);
        endClosingRecord();
    }

    @Override
    public void error(String code, String message) throws IOException {
        beginError();  // drops an unfinished record
        put(ERROR_START);
        string(code);
        put(MESSAGE);
        string(message == null ? "" : message);
        endDocument(committed);
        endClosingRecord();
    }

    /** Ends the record's document (it starts at {@link #committed}) and the record. */
    private void endRecordDocument() throws IOException {
        endDocument(committed);
        endRecord();
    }

    @Override
    void endStream() {
        // documents follow one another: nothing closes the stream
    }

    // ---- values -------------------------------------------------------------------------------------------

    @Override
    public void writeBoolean(boolean value) throws IOException {
        element(ArrayKind.BOOLEAN, BOOLEAN);
        put(value ? (byte) 1 : (byte) 0);
    }

    @Override
    public void writeByte(byte value) throws IOException {
        typed(scalarSlot("byte arrays are written with writeBytes"), DOCUMENT);
        int at = pos;
        put(BYTE);
        putInt(value);
        endDocument(at);
    }

    @Override
    public void writeShort(short value) throws IOException {
        int at = open(ArrayKind.SHORT, INT32, SHORT);
        putInt(value);
        close(at);
    }

    @Override
    public void writeInt(int value) throws IOException {
        int at = open(ArrayKind.INT, INT32, INT);
        putInt(value);
        close(at);
    }

    @Override
    public void writeLong(long value) throws IOException {
        element(ArrayKind.LONG, INT64);
        putLong(value);
    }

    @Override
    public void writeFloat(float value) throws IOException {
        boolean finite = Float.isFinite(value);
        int at = finite ? open(ArrayKind.FLOAT, DOUBLE, FLOAT_NUMBER) : open(ArrayKind.FLOAT, STRING, FLOAT_TEXT);
        if (finite) {
            putLong(Double.doubleToRawLongBits(value));
        } else {
            nonFinite(value);
        }
        close(at);
    }

    @Override
    public void writeDouble(double value) throws IOException {
        boolean finite = Double.isFinite(value);
        if (array != null) {
            element(ArrayKind.DOUBLE, finite ? DOUBLE : STRING);
            doublePayload(value);
        } else if (finite) {
            value(DOUBLE);
            putLong(Double.doubleToRawLongBits(value));
        } else {
            value(DOCUMENT);
            int at = pos;
            put(DOUBLE_TEXT);
            nonFinite(value);
            endDocument(at);
        }
    }

    @Override
    public void writeChar(char value) throws IOException {
        int at = open(ArrayKind.CHAR, STRING, CHAR);
        char c = Character.isSurrogate(value) ? '?' : value;
        int n = c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
        ensure(n + 5);
        putInt(n + 1);
        byte[] b = buf;
        int p = pos;
        if (n == 1) {
            b[p++] = (byte) c;
        } else if (n == 2) {
            b[p++] = (byte) (0xC0 | c >> 6);
            b[p++] = (byte) (0x80 | c & 0x3F);
        } else {
            b[p++] = (byte) (0xE0 | c >> 12);
            b[p++] = (byte) (0x80 | c >> 6 & 0x3F);
            b[p++] = (byte) (0x80 | c & 0x3F);
        }
        b[p++] = 0;
        pos = p;
        close(at);
    }

    @Override
    public void writeString(String value) throws IOException {
        element(ArrayKind.STRING, STRING);
        string(value);
    }

    /** Well-formed UTF-8 (all ASCII, the usual case, included) is copied as it is; other content is decoded first. */
    @Override
    public void writeUtf8(byte[] utf8, int offset, int length) throws IOException {
        element(ArrayKind.STRING, STRING);
        if (!wellFormedUtf8(utf8, offset, length)) {
            string(new String(utf8, offset, length, StandardCharsets.UTF_8));
            return;
        }
        ensure(length + 5);
        putInt(length + 1);
        System.arraycopy(utf8, offset, buf, pos, length);
        pos += length;
        buf[pos++] = 0;
    }

    /**
     * True if the bytes are well-formed UTF-8 (Unicode's table 3-7: no overlong forms, no surrogates, nothing
     * above U+10FFFF), so that decoding and encoding them again would give the same bytes.
     */
    static boolean wellFormedUtf8(byte[] b, int offset, int length) {
        int i = offset;
        int end = offset + length;
        while (i < end) {
            int c = b[i];
            if (c >= 0) {
                i++;
                continue;
            }
            c &= 0xFF;
            if (c < 0xC2 || c > 0xF4) {
                return false;
            }
            int n = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
            if (end - i < n) {
                return false;
            }
            int c1 = b[i + 1] & 0xFF;
            int low = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
            int high = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
            if (c1 < low || c1 > high) {
                return false;
            }
            for (int k = 2; k < n; k++) {
                if ((b[i + k] & 0xC0) != 0x80) {
                    return false;
                }
            }
            i += n;
        }
        return true;
    }

    @Override
    public void writeBytes(byte[] value) throws IOException {
        typed(scalarSlot("writeBytes inside an array"), DOCUMENT);
        int at = pos;
        put(BYTES);
        ensure(5 + value.length);
        putInt(value.length);
        buf[pos++] = 0;  // subtype: generic binary
        put(value);
        endDocument(at);
    }

    @Override
    public void writePoint(int srid, double[] coordinates) throws IOException {
        if (coordinates.length != 2 && coordinates.length != 3) {
            throw new IllegalArgumentException("a point has 2 or 3 coordinates, not " + coordinates.length);
        }
        int at = open(ArrayKind.POINT, DOCUMENT, POINT);
        int pointAt = pos;
        put(POINT_START);
        putInt(srid);
        put(COORDINATES);
        int coordinatesAt = pos - 4;
        for (int i = 0; i < coordinates.length; i++) {
            double c = coordinates[i];
            elementName(Double.isFinite(c) ? DOUBLE : STRING, i);
            doublePayload(c);
        }
        endDocument(coordinatesAt);
        endDocument(pointAt);
        close(at);
    }

    @Override
    public void writeDuration(long months, long days, long seconds, int nanos) throws IOException {
        int at = open(ArrayKind.DURATION, ARRAY, DURATION);
        int durationAt = pos;
        putInt(0);
        elementName(INT64, 0);
        putLong(months);
        elementName(INT64, 1);
        putLong(days);
        elementName(INT64, 2);
        putLong(seconds);
        elementName(INT32, 3);
        putInt(nanos);
        endDocument(durationAt);
        close(at);
    }

    @Override
    public void writeUuid(long msb, long lsb) throws IOException {
        int at = open(ArrayKind.UUID, STRING, UUID);
        ensure(41);
        putInt(37);
        byte[] b = buf;
        int p = pos;
        hex(b, p, msb >>> 32, 8);
        b[p + 8] = '-';
        hex(b, p + 9, msb >>> 16, 4);
        b[p + 13] = '-';
        hex(b, p + 14, msb, 4);
        b[p + 18] = '-';
        hex(b, p + 19, lsb >>> 48, 4);
        b[p + 23] = '-';
        hex(b, p + 24, lsb, 12);
        b[p + 36] = 0;
        pos = p + 37;
        close(at);
    }

    @Override
    public void writeVector(VectorKind kind, Object values) throws IOException {
        typed(scalarSlot("writeVector inside an array"), DOCUMENT);
        int at = pos;
        put(VECTOR_STARTS[kind.ordinal()]);
        int valuesAt = pos - 4;
        vectorValues(kind, values);
        endDocument(valuesAt);
        endDocument(at + VECTOR_PAYLOAD);
        endDocument(at);
    }

    @Override
    void vectorInteger(int index, long value, boolean int64) {
        if (int64) {
            elementName(INT64, index);
            putLong(value);
        } else {
            elementName(INT32, index);
            putInt((int) value);
        }
    }

    @Override
    void vectorFloat(int index, float value) {
        vectorDouble(index, value);  // a double holding the float's exact value
    }

    @Override
    void vectorDouble(int index, double value) {
        elementName(Double.isFinite(value) ? DOUBLE : STRING, index);
        doublePayload(value);
    }

    @Override
    public void beginArray(int size, ArrayKind kind) throws IOException {
        typed(beginArraySlot(), DOCUMENT);
        arrayAt = pos;
        put(ARRAY_TAGS[kind.ordinal()]);
        array = kind;
        arrayCount = 0;
    }

    @Override
    public void endArray() throws IOException {
        ArrayKind kind = endArraySlot();
        endDocument(arrayAt + ARRAY_TAGS[kind.ordinal()].length - 4);
        endDocument(arrayAt);
    }

    // ---- row values ---------------------------------------------------------------------------------------

    @Override
    public void writeNull() throws IOException {
        typed(rowValueSlot("writeNull()"), NULL);
    }

    @Override
    public void beginList(int size) throws IOException {
        typed(containerSlot("beginList()", size), ARRAY);
        int at = pos;
        putInt(0);
        push(LIST, size, at);
    }

    @Override
    public void endList() throws IOException {
        endDocument(pop(LIST, "endList() without beginList()"));
    }

    @Override
    public void beginMap(int size) throws IOException {
        typed(containerSlot("beginMap()", size), DOCUMENT);
        int at = pos;
        put(MAP);
        push(MAP_KIND, size, at);
    }

    @Override
    public void mapKey(String key) throws IOException {
        int n = key.length();
        mapKeySlot();
        typeAt = pos;
        put((byte) 0);
        chars(key, 0, n, true);
        put((byte) 0);
    }

    @Override
    public void endMap() throws IOException {
        int at = pop(MAP_KIND, "endMap() without beginMap()");
        endDocument(at + MAP_PAYLOAD);
        endDocument(at);
    }

    @Override
    public void writeNodeRef(long id) throws IOException {
        reference("writeNodeRef()", NODE_REF, nodeIdPrefix, id);
    }

    @Override
    public void writeRelationshipRef(long id) throws IOException {
        reference("writeRelationshipRef()", RELATIONSHIP_REF, relIdPrefix, id);
    }

    private void reference(String call, byte[] tag, byte[] prefix, long id) {
        typed(rowValueSlot(call), DOCUMENT);
        int at = pos;
        put(tag);
        id(prefix, id);
        endDocument(at);
    }

    @Override
    public void writePath(long[] nodeIds, long[] relationshipIds) throws IOException {
        WireText.checkPath(nodeIds, relationshipIds);
        typed(rowValueSlot("writePath()"), DOCUMENT);
        int at = pos;
        put(PATH_START);
        int listAt = pos - 4;
        for (int i = 0; i < nodeIds.length; i++) {
            elementName(STRING, i);
            id(nodeIdPrefix, nodeIds[i]);
        }
        endDocument(listAt);
        put(PATH_RELATIONSHIPS);
        listAt = pos - 4;
        for (int i = 0; i < relationshipIds.length; i++) {
            elementName(STRING, i);
            id(relIdPrefix, relationshipIds[i]);
        }
        endDocument(listAt);
        endDocument(at + PATH_PAYLOAD);
        endDocument(at);
    }

    /**
     * Starts a value of BSON type {@code type} where a slot says: the value of the property or map key named last
     * ({@code slot} -1: the type byte goes in front of the name), or the element {@code slot} of a row, list or
     * typed array (type byte and index).
     */
    private void typed(int slot, byte type) {
        if (slot < 0) {
            buf[typeAt] = type;
        } else {
            elementName(type, slot);
        }
    }

    /** Starts a value of BSON type {@code type} outside typed arrays. */
    private void value(byte type) {
        typed(valueSlot(), type);
    }

    /** A value written untagged outside arrays; inside one, checks its kind and starts the element. */
    private void element(ArrayKind kind, byte type) {
        typed(elementSlot(kind), type);
    }

    /**
     * Outside an array starts the tagged document (up to its payload, {@code tag}) and returns where it starts;
     * inside, checks the element's kind, starts it as {@code type}, and returns -1.
     */
    private int open(ArrayKind kind, byte type, byte[] tag) {
        if (array == null) {
            value(DOCUMENT);
            int at = pos;
            put(tag);
            return at;
        }
        element(kind, type);
        return -1;
    }

    private void close(int at) {
        if (at >= 0) {
            endDocument(at);
        }
    }

    /** A double's payload: its raw bits if finite (the element's type is double), else its name as a string. */
    private void doublePayload(double value) {
        if (Double.isFinite(value)) {
            putLong(Double.doubleToRawLongBits(value));
        } else {
            nonFinite(value);
        }
    }

    private void nonFinite(double value) {
        put(Double.isNaN(value) ? NAN : value > 0 ? INFINITY : NEGATIVE_INFINITY);
    }

    @Override
    void temporal(ArrayKind kind, DateTimeFormatter format, TemporalAccessor value) {
        int at = open(kind, STRING, TEXT_TAGS[kind.ordinal()]);
        string(format(format, value));
        close(at);
    }

    // ---- ids and tokens -----------------------------------------------------------------------------------

    /** The element id as a string payload: the prefix's UTF-8 and the id's decimal digits. */
    private void id(byte[] prefix, long id) {
        int n = prefix.length;
        ensure(n + 25);  // length, sign and 19 digits, NUL
        byte[] b = buf;
        int at = pos;
        System.arraycopy(prefix, 0, b, at + 4, n);
        int p = at + 4 + n;
        if (id < 0) {
            if (id == Long.MIN_VALUE) {
                System.arraycopy(LONG_MIN, 0, b, p, LONG_MIN.length);
                p += LONG_MIN.length;
            } else {
                b[p++] = '-';
                p = WireText.decimal(b, p, -id);
            }
        } else {
            p = WireText.decimal(b, p, id);
        }
        b[p++] = 0;
        putInt(b, at, p - at - 4);
        pos = p;
    }

    @Override
    byte[] encodeLabel(String name) {
        return template().string(name).bytes();
    }

    @Override
    byte[] encodeType(String name) {
        return template().string(name).bytes();
    }

    /** A property key as an element name: the type byte's place, the name (U+0000 as U+FFFD), NUL. */
    @Override
    byte[] encodeKey(String name) {
        return template().name((byte) 0, name.replace('\u0000', '\uFFFD')).bytes();
    }

    // ---- bytes --------------------------------------------------------------------------------------------

    private void putInt(int v) {
        ensure(4);
        putInt(buf, pos, v);
        pos += 4;
    }

    private void putLong(long v) {
        ensure(8);
        byte[] b = buf;
        int p = pos;
        putInt(b, p, (int) v);
        putInt(b, p + 4, (int) (v >>> 32));
        pos = p + 8;
    }

    private static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
        b[at + 2] = (byte) (v >>> 16);
        b[at + 3] = (byte) (v >>> 24);
    }

    /** Ends the document or array whose int32 length is at {@code at}: its final NUL, then its length. */
    private void endDocument(int at) {
        put((byte) 0);
        putInt(buf, at, pos - at);
    }

    /** Starts an element: its type byte and its name, the decimal {@code index}, NUL-terminated. */
    private void elementName(byte type, int index) {
        ensure(13);
        byte[] b = buf;
        int p = pos;
        b[p++] = type;
        if (index < 10) {
            b[p++] = (byte) ('0' + index);
        } else if (index < INDEXES.length) {
            byte[] name = INDEXES[index];
            System.arraycopy(name, 0, b, p, name.length);
            p += name.length;
        } else {
            p = WireText.decimal(b, p, index);
        }
        b[p++] = 0;
        pos = p;
    }

    /** A string payload: int32 length, UTF-8 (unpaired surrogates as '?'), NUL. */
    private void string(CharSequence s) {
        ensure(4);
        int lengthAt = pos;
        pos += 4;
        chars(s, 0, s.length(), false);
        endString(lengthAt);
    }

    /** The final NUL of a string whose int32 length goes at {@code lengthAt}, then that length. */
    private void endString(int lengthAt) {
        put((byte) 0);
        putInt(buf, lengthAt, pos - lengthAt - 4);
    }

    /**
     * UTF-8 of {@code s} from {@code from} to {@code to}: a surrogate pair as one 4-byte sequence, an unpaired
     * surrogate as {@code '?'}; in an element {@code name}, U+0000 as U+FFFD.
     */
    private void chars(CharSequence s, int from, int to, boolean name) {
        int i = from;
        while (i < to) {
            int chunk = Math.min(to - i, 4096);
            ensure(3 * chunk + 1);  // a pair's second half may lie beyond the chunk: 4 bytes for its first
            byte[] b = buf;
            int p = pos;
            for (int end = i + chunk; i < end; i++) {
                char c = s.charAt(i);
                if (c < 0x80) {
                    if (c == 0 && name) {
                        b[p++] = (byte) 0xEF;
                        b[p++] = (byte) 0xBF;
                        b[p++] = (byte) 0xBD;
                    } else {
                        b[p++] = (byte) c;
                    }
                } else if (c < 0x800) {
                    b[p++] = (byte) (0xC0 | c >> 6);
                    b[p++] = (byte) (0x80 | c & 0x3F);
                } else if (!Character.isSurrogate(c)) {
                    b[p++] = (byte) (0xE0 | c >> 12);
                    b[p++] = (byte) (0x80 | c >> 6 & 0x3F);
                    b[p++] = (byte) (0x80 | c & 0x3F);
                } else if (Character.isHighSurrogate(c) && i + 1 < to && Character.isLowSurrogate(s.charAt(i + 1))) {
                    int cp = Character.toCodePoint(c, s.charAt(++i));
                    b[p++] = (byte) (0xF0 | cp >> 18);
                    b[p++] = (byte) (0x80 | cp >> 12 & 0x3F);
                    b[p++] = (byte) (0x80 | cp >> 6 & 0x3F);
                    b[p++] = (byte) (0x80 | cp & 0x3F);
                } else {
                    b[p++] = '?';
                }
            }
            pos = p;
        }
    }

    private static byte[] utf8(String wellFormed) {
        return wellFormed.getBytes(StandardCharsets.UTF_8);
    }

    // ---- pre-encoded runs ---------------------------------------------------------------------------------

    private static Template template() {
        return new Template();
    }

    /** A record's document up to the value of its second element: length placeholder, {@code record: kind}. */
    private static Template record(String kind) {
        return template().length().name(STRING, Wire.Json.RECORD).string(kind);
    }

    /** A tagged value's document up to its payload: length placeholder, the payload's type, the tag. */
    private static Template tag(byte payloadType, String tag) {
        return template().length().name(payloadType, tag);
    }

    /** Builds a pre-encoded run of BSON bytes; only for constants and token names. */
    private static final class Template {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        /** An int32 length placeholder, patched when the document or array ends. */
        Template length() {
            return int32(0);
        }

        Template int32(int v) {
            byte[] b = new byte[4];
            putInt(b, 0, v);
            out.writeBytes(b);
            return this;
        }

        /** An element's start: type byte, name, NUL (the name must not hold U+0000). */
        Template name(byte type, String name) {
            out.write(type);
            out.writeBytes(utf8(name));
            out.write(0);
            return this;
        }

        /** A string payload (of a well-formed string). */
        Template string(String s) {
            byte[] b = utf8(s);
            int32(b.length + 1);
            out.writeBytes(b);
            out.write(0);
            return this;
        }

        byte[] bytes() {
            return out.toByteArray();
        }
    }
}
