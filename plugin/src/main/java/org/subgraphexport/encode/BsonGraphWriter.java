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
import java.time.temporal.TemporalAccessor;
import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.TokenNames;
import org.subgraphexport.wire.Wire;

/**
 * Writes the {@code bson} format (see {@link Wire}): one document per record, the same bytes as bson4jackson writes
 * for the same records (the conformance module's WriterDifferentialTest holds it to stock bson4jackson, byte by byte),
 * without a generator and its per-call context checks. A record's
 * fixed parts are pre-encoded runs (a node record's length placeholder, {@code record} element and the name of its
 * {@code id} element are one copy), token names are encoded once per stream (labels and types as whole string
 * payloads, property keys as element names with the type byte's place in front), element ids are the prefix's UTF-8
 * and decimal digits, array element names {@code "0"}, {@code "1"}, ... come from a table, and every document's and
 * array's int32 length is back-patched in the buffer when it ends.
 *
 * <p>Bytes are the reference's: an element is its type byte, its name (UTF-8, NUL-terminated) and its value; a
 * value's type byte is written in front of its name, which {@link #property} and {@link #mapKey} write before the
 * value's type is known, so they leave its place and the value fills it in. Strings are UTF-8 of the string with
 * each unpaired surrogate as {@code '?'}, U+0000 as it is; in element names (property keys, map keys) U+0000 becomes
 * U+FFFD. {@code float} values are the double of the float's exact value; floats and doubles are raw IEEE bits,
 * little-endian like every number.
 *
 * <p>The protocol checks, the buffer and its hand-over, and the token dictionary are {@link ByteRecordWriter}'s.
 * Where the reference wrote a malformed document or threw Jackson's own exception for a call the contract forbids
 * (a value without its {@link #property}, two names in a row, a record or map ended where a value is due,
 * {@link #endRelationship} ending a node, a record after {@link #finish}), this writer throws
 * {@link IllegalStateException} and writes nothing.
 */
public final class BsonGraphWriter extends ByteRecordWriter {
    private static final byte DOUBLE = 0x01, STRING = 0x02, DOCUMENT = 0x03, ARRAY = 0x04, BINARY = 0x05,
            BOOLEAN = 0x08, NULL = 0x0A, INT32 = 0x10, INT64 = 0x12;
    /** Most bytes of an element's start: type byte, an index's decimal digits, NUL. */
    private static final int ELEMENT = 13;
    /** Most bytes of a string payload holding "NaN", "Infinity" or "-Infinity". */
    private static final int NON_FINITE = 4 + 9 + 1;

    /** Element names: U+0000 becomes U+FFFD. */
    private static final WireBuffer.Escapes NAME = new WireBuffer.Escapes(false, 3) {
        {
            ascii[0] = true;
        }

        @Override
        int escape(char c, byte[] b, int p) {
            b[p] = (byte) 0xEF;
            b[p + 1] = (byte) 0xBF;
            b[p + 2] = (byte) 0xBD;
            return p + 3;
        }
    };

    private static final byte[]
            HEADER_START = record(Wire.Json.R_HEADER).name(INT32, Wire.Json.VERSION).int32(Wire.VERSION)
                    .name(STRING, Wire.Json.DATABASE).bytes(),
            ROOT = template().name(STRING, Wire.Json.ROOT).bytes(),
            STATE = template().name(STRING, Wire.Json.STATE).bytes(),
            PARTITION = template().name(INT32, Wire.Json.PARTITION).bytes(),
            PARTITIONS = template().name(INT32, Wire.Json.PARTITIONS).bytes(),
            SINCE = template().name(STRING, Wire.Json.SINCE).bytes(),
            LEFT_NODE = record(Wire.Json.R_LEFT).name(STRING, Wire.Json.NODE_REF).bytes(),
            LEFT_RELATIONSHIP = record(Wire.Json.R_LEFT).name(STRING, Wire.Json.RELATIONSHIP_REF).bytes(),
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
            PATH_RELATIONSHIPS = template().name(ARRAY, Wire.Json.RELATIONSHIPS).length().bytes();
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
        beginHeader(tokens, header);
        nodeIdPrefix = template().utf8(header.nodeIdPrefix()).bytes();
        relIdPrefix = template().utf8(header.relIdPrefix()).bytes();
        out.append(HEADER_START);
        string(header.database(), 0);
        out.append(ROOT);
        string(header.root(), 0);
        out.append(STATE);
        string(header.state(), 0);
        out.require(PARTITION.length + PARTITIONS.length + 2 * 4 + 1);
        out.put(PARTITION);
        out.int32le(header.partition());
        out.put(PARTITIONS);
        out.int32le(header.partitions());
        if (header.delta()) {  // delta streams only: the earlier state
            out.append(SINCE);
            string(header.since(), 1);
        }
        close(committed);
        endHeader();
    }

    @Override
    public void leftNode(long id) throws IOException {
        beginLeftRecord("leftNode()");
        out.append(LEFT_NODE);
        id(nodeIdPrefix, id, 1);
        close(committed);
        endRecord();
    }

    @Override
    public void leftRelationship(long id) throws IOException {
        beginLeftRecord("leftRelationship()");
        out.append(LEFT_RELATIONSHIP);
        id(relIdPrefix, id, 1);
        close(committed);
        endRecord();
    }

    @Override
    public void beginNode(long id, int[] labelIds, int labelCount) throws IOException {
        beginNodeRecord();
        WireBuffer o = out;
        o.append(NODE_START);
        id(nodeIdPrefix, id, LABELS_START.length);
        o.put(LABELS_START);
        int at = o.pos - 4;
        for (int i = 0; i < labelCount; i++) {
            byte[] label = token(LABEL_TOKEN, labelIds[i]);
            o.require(ELEMENT + label.length);
            elementName(STRING, i);
            o.put(label);
        }
        o.require(1 + PROPERTIES_START.length);
        close(at);
        openProperties();
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
        id(relIdPrefix, id, TYPE.length);
        o.put(TYPE);
        o.append(token(TYPE_TOKEN, type));
        o.append(START);
        id(nodeIdPrefix, startNode, END.length);
        o.put(END);
        id(nodeIdPrefix, endNode, PROPERTIES_START.length);
        openProperties();
    }

    @Override
    public void endRelationship() throws IOException {
        endProperties(RELATIONSHIP);
        endRecordWithProperties();
    }

    /** The properties document's start; its room was required. */
    private void openProperties() {
        out.put(PROPERTIES_START);
        propertiesAt = out.pos - 4;
    }

    private void endRecordWithProperties() throws IOException {
        out.require(2);
        close(propertiesAt);
        close(committed);
        endRecord();
    }

    @Override
    public void property(int key) throws IOException {
        propertySlot();
        byte[] name = token(KEY_TOKEN, key);
        out.require(name.length);
        typeAt = out.pos;
        out.put(name);
    }

    @Override
    public void columns(String[] names) throws IOException {
        checkColumns(names);
        WireBuffer o = out;
        o.append(COLUMNS_START);
        int at = o.pos - 4;
        for (int i = 0; i < names.length; i++) {
            o.require(ELEMENT);
            elementName(STRING, i);
            string(names[i], 0);
        }
        o.require(2);
        close(at);
        close(committed);
        endColumns(names.length);
    }

    @Override
    public void beginRow() throws IOException {
        beginRowSlot(out.pos + ROW_START.length - 4);
        out.append(ROW_START);
    }

    @Override
    public void endRow() throws IOException {
        int at = endRowSlot();
        out.require(2);
        close(at);
        close(committed);
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
        o.require(END_START.length + RELATIONSHIPS.length + TRUNCATED.length + ROWS.length + 3 * 8 + 2);
        o.put(END_START);
        o.int64le(nodes);
        o.put(RELATIONSHIPS);
        o.int64le(relationships);
        o.put(TRUNCATED);
        o.put(truncated ? 1 : 0);
        if (columnCount >= 0) {
            o.put(ROWS);
            o.int64le(rows);
        }
        o.append(STATE);
        string(state, 1);
        close(committed);
        endClosingRecord();
    }

    @Override
    public void error(String code, String message) throws IOException {
        beginError();  // drops an unfinished record
        out.append(ERROR_START);
        string(code, 0);
        out.append(MESSAGE);
        string(message == null ? "" : message, 1);
        close(committed);
        endClosingRecord();
    }

    // ---- values -------------------------------------------------------------------------------------------

    @Override
    public void writeBoolean(boolean value) throws IOException {
        element(ArrayKind.BOOLEAN, BOOLEAN, 1);
        out.put(value ? 1 : 0);
    }

    @Override
    public void writeByte(byte value) throws IOException {
        int slot = scalarSlot("byte arrays are written with writeBytes");
        out.require(ELEMENT + BYTE.length + 4 + 1);
        typed(slot, DOCUMENT);
        int at = out.pos;
        out.put(BYTE);
        out.int32le(value);
        close(at);
    }

    @Override
    public void writeShort(short value) throws IOException {
        int at = open(ArrayKind.SHORT, INT32, SHORT, 4);
        out.int32le(value);
        close(at);
    }

    @Override
    public void writeInt(int value) throws IOException {
        int at = open(ArrayKind.INT, INT32, INT, 4);
        out.int32le(value);
        close(at);
    }

    @Override
    public void writeLong(long value) throws IOException {
        element(ArrayKind.LONG, INT64, 8);
        out.int64le(value);
    }

    @Override
    public void writeFloat(float value) throws IOException {
        boolean finite = Float.isFinite(value);
        int at = finite ? open(ArrayKind.FLOAT, DOUBLE, FLOAT_NUMBER, 8)
                : open(ArrayKind.FLOAT, STRING, FLOAT_TEXT, NON_FINITE);
        doublePayload(value);  // a double holding the float's exact value
        close(at);
    }

    @Override
    public void writeDouble(double value) throws IOException {
        boolean finite = Double.isFinite(value);
        if (array != null) {
            element(ArrayKind.DOUBLE, finite ? DOUBLE : STRING, NON_FINITE);
            doublePayload(value);
        } else if (finite) {
            int slot = valueSlot();
            out.require(ELEMENT + 8);
            typed(slot, DOUBLE);
            out.int64le(Double.doubleToRawLongBits(value));
        } else {
            int slot = valueSlot();
            out.require(ELEMENT + DOUBLE_TEXT.length + NON_FINITE + 1);
            typed(slot, DOCUMENT);
            int at = out.pos;
            out.put(DOUBLE_TEXT);
            nonFinite(value);
            close(at);
        }
    }

    @Override
    public void writeChar(char value) throws IOException {
        int at = open(ArrayKind.CHAR, STRING, CHAR, 0);
        StringBuilder c = text;
        c.setLength(0);
        c.append(value);  // a lone surrogate is unpaired: '?'
        string(c, 1);
        close(at);
    }

    @Override
    public void writeString(String value) throws IOException {
        element(ArrayKind.STRING, STRING, 0);
        string(value, 0);
    }

    /** Well-formed UTF-8 (all ASCII, the usual case, included) is copied as it is; other content is decoded first. */
    @Override
    public void writeUtf8(byte[] utf8, int offset, int length) throws IOException {
        element(ArrayKind.STRING, STRING, 0);
        if (!WireBuffer.wellFormedUtf8(utf8, offset, length)) {
            string(new String(utf8, offset, length, StandardCharsets.UTF_8), 0);
            return;
        }
        WireBuffer o = out;
        o.require(4 + length + 1);
        o.int32le(length + 1);
        System.arraycopy(utf8, offset, o.buf, o.pos, length);
        o.pos += length;
        o.put(0);
    }

    @Override
    public void writeBytes(byte[] value) throws IOException {
        int slot = scalarSlot("writeBytes inside an array");
        WireBuffer o = out;
        o.require(ELEMENT + BYTES.length + 5 + value.length + 1);
        typed(slot, DOCUMENT);
        int at = o.pos;
        o.put(BYTES);
        o.int32le(value.length);
        o.put(0);  // subtype: generic binary
        o.put(value);
        close(at);
    }

    @Override
    public void writePoint(int srid, double[] coordinates) throws IOException {
        if (coordinates.length != 2 && coordinates.length != 3) {
            throw new IllegalArgumentException("a point has 2 or 3 coordinates, not " + coordinates.length);
        }
        int at = open(ArrayKind.POINT, DOCUMENT, POINT,
                POINT_START.length + 4 + COORDINATES.length + 3 * (ELEMENT + NON_FINITE) + 2);
        WireBuffer o = out;
        int pointAt = o.pos;
        o.put(POINT_START);
        o.int32le(srid);
        o.put(COORDINATES);
        int coordinatesAt = o.pos - 4;
        for (int i = 0; i < coordinates.length; i++) {
            double c = coordinates[i];
            elementName(Double.isFinite(c) ? DOUBLE : STRING, i);
            doublePayload(c);
        }
        close(coordinatesAt);
        close(pointAt);
        close(at);
    }

    @Override
    public void writeDuration(long months, long days, long seconds, int nanos) throws IOException {
        int at = open(ArrayKind.DURATION, ARRAY, DURATION, 4 + 3 * (ELEMENT + 8) + ELEMENT + 4 + 1);
        WireBuffer o = out;
        int durationAt = o.pos;
        o.int32le(0);
        elementName(INT64, 0);
        o.int64le(months);
        elementName(INT64, 1);
        o.int64le(days);
        elementName(INT64, 2);
        o.int64le(seconds);
        elementName(INT32, 3);
        o.int32le(nanos);
        close(durationAt);
        close(at);
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
    private void temporal(ArrayKind kind, DateTimeFormatter format, TemporalAccessor value) {
        int at = open(kind, STRING, TEXT_TAGS[kind.ordinal()], 0);
        string(iso(format, value), 1);
        close(at);
    }

    @Override
    public void writeUuid(long msb, long lsb) throws IOException {
        int at = open(ArrayKind.UUID, STRING, UUID, 4 + WireBuffer.UUID_TEXT + 1);
        WireBuffer o = out;
        o.int32le(WireBuffer.UUID_TEXT + 1);
        o.uuid(msb, lsb);
        o.put(0);
        close(at);
    }

    @Override
    public void writeVector(VectorKind kind, Object values) throws IOException {
        int slot = scalarSlot("writeVector inside an array");
        byte[] start = VECTOR_STARTS[kind.ordinal()];
        out.require(ELEMENT + start.length);
        typed(slot, DOCUMENT);
        int at = out.pos;
        out.put(start);
        int valuesAt = out.pos - 4;
        vectorValues(kind, values);
        out.require(3);
        close(valuesAt);
        close(at + VECTOR_PAYLOAD);
        close(at);
    }

    @Override
    void vectorInteger(int index, long value, VectorKind kind) {
        out.require(ELEMENT + 8);
        if (kind == VectorKind.INT64) {
            elementName(INT64, index);
            out.int64le(value);
        } else {
            elementName(INT32, index);
            out.int32le((int) value);
        }
    }

    @Override
    void vectorFloat(int index, float value) {
        vectorDouble(index, value);  // a double holding the float's exact value
    }

    @Override
    void vectorDouble(int index, double value) {
        out.require(ELEMENT + NON_FINITE);
        elementName(Double.isFinite(value) ? DOUBLE : STRING, index);
        doublePayload(value);
    }

    @Override
    public void beginArray(int size, ArrayKind kind) throws IOException {
        int slot = beginArraySlot(size, kind);
        byte[] tag = ARRAY_TAGS[kind.ordinal()];
        out.require(ELEMENT + tag.length);
        typed(slot, DOCUMENT);
        arrayAt = out.pos;
        out.put(tag);
    }

    @Override
    public void endArray() throws IOException {
        ArrayKind kind = endArraySlot();
        out.require(2);
        close(arrayAt + ARRAY_TAGS[kind.ordinal()].length - 4);
        close(arrayAt);
    }

    // ---- row values ---------------------------------------------------------------------------------------

    @Override
    public void writeNull() throws IOException {
        int slot = rowValueSlot("writeNull()");
        out.require(ELEMENT);
        typed(slot, NULL);
    }

    @Override
    public void beginList(int size) throws IOException {
        int slot = containerSlot("beginList()", size);
        out.require(ELEMENT + 4);
        typed(slot, ARRAY);
        int at = out.pos;
        out.int32le(0);
        push(LIST, size, at);
    }

    @Override
    public void endList() throws IOException {
        int at = pop(LIST, "endList() without beginList()");
        out.require(1);
        close(at);
    }

    @Override
    public void beginMap(int size) throws IOException {
        int slot = containerSlot("beginMap()", size);
        out.require(ELEMENT + MAP.length);
        typed(slot, DOCUMENT);
        int at = out.pos;
        out.put(MAP);
        push(MAP_KIND, size, at);
    }

    @Override
    public void mapKey(String key) throws IOException {
        mapKeySlot();
        WireBuffer o = out;
        o.require(1);
        typeAt = o.pos;
        o.put(0);
        o.utf8(key, 0, key.length(), NAME, 1);
        o.put(0);
    }

    @Override
    public void endMap() throws IOException {
        int at = pop(MAP_KIND, "endMap() without beginMap()");
        out.require(2);
        close(at + MAP_PAYLOAD);
        close(at);
    }

    @Override
    public void writeNodeRef(long id) throws IOException {
        reference(rowValueSlot("writeNodeRef()"), NODE_REF, nodeIdPrefix, id);
    }

    @Override
    public void writeRelationshipRef(long id) throws IOException {
        reference(rowValueSlot("writeRelationshipRef()"), RELATIONSHIP_REF, relIdPrefix, id);
    }

    private void reference(int slot, byte[] tag, byte[] prefix, long id) {
        out.require(ELEMENT + tag.length);
        typed(slot, DOCUMENT);
        int at = out.pos;
        out.put(tag);
        id(prefix, id, 1);
        close(at);
    }

    @Override
    public void writePath(long[] nodeIds, long[] relationshipIds) throws IOException {
        WireText.checkPath(nodeIds, relationshipIds);
        int slot = rowValueSlot("writePath()");
        WireBuffer o = out;
        o.require(ELEMENT + PATH_START.length);
        typed(slot, DOCUMENT);
        int at = o.pos;
        o.put(PATH_START);
        int listAt = o.pos - 4;
        for (int i = 0; i < nodeIds.length; i++) {
            o.require(ELEMENT);
            elementName(STRING, i);
            id(nodeIdPrefix, nodeIds[i], 1);
        }
        close(listAt);
        o.append(PATH_RELATIONSHIPS);
        listAt = o.pos - 4;
        for (int i = 0; i < relationshipIds.length; i++) {
            o.require(ELEMENT);
            elementName(STRING, i);
            id(relIdPrefix, relationshipIds[i], 1);
        }
        o.require(3);
        close(listAt);
        close(at + PATH_PAYLOAD);
        close(at);
    }

    // ---- value helpers: the room each needs was required before ---------------------------------------------

    /**
     * Starts a value of BSON type {@code type} where a slot says: the value of the property or map key named last
     * ({@code slot} -1: the type byte goes in front of the name), or the element {@code slot} of a row, list or
     * typed array (type byte and index).
     */
    private void typed(int slot, byte type) {
        if (slot < 0) {
            out.buf[typeAt] = type;
        } else {
            elementName(type, slot);
        }
    }

    /** A value written untagged outside arrays; inside one, checks its kind. Starts it, with room for it. */
    private void element(ArrayKind kind, byte type, int room) {
        int slot = elementSlot(kind);
        out.require(ELEMENT + room);
        typed(slot, type);
    }

    /**
     * Outside an array starts the tagged document (up to its payload, {@code tag}) and returns where it starts;
     * inside, checks the element's kind, starts it as {@code type}, and returns -1. With room for a payload of up
     * to {@code room} bytes and the document's end.
     */
    private int open(ArrayKind kind, byte type, byte[] tag, int room) {
        if (array == null) {
            int slot = valueSlot();
            out.require(ELEMENT + tag.length + room + 1);
            typed(slot, DOCUMENT);
            int at = out.pos;
            out.put(tag);
            return at;
        }
        element(kind, type, room);
        return -1;
    }

    /** Ends the document or array whose int32 length is at {@code at} (none if negative): its NUL, its length. */
    private void close(int at) {
        if (at >= 0) {
            WireBuffer o = out;
            o.put(0);
            WireBuffer.int32le(o.buf, at, o.pos - at);
        }
    }

    /** A double's payload: its raw bits if finite (the element's type is double), else its name as a string. */
    private void doublePayload(double value) {
        if (Double.isFinite(value)) {
            out.int64le(Double.doubleToRawLongBits(value));
        } else {
            nonFinite(value);
        }
    }

    private void nonFinite(double value) {
        out.put(Double.isNaN(value) ? NAN : value > 0 ? INFINITY : NEGATIVE_INFINITY);
    }

    /** Starts an element: its type byte and its name, the decimal {@code index}, NUL-terminated. */
    private void elementName(byte type, int index) {
        WireBuffer o = out;
        byte[] b = o.buf;
        int p = o.pos;
        b[p++] = type;
        if (index < 10) {
            b[p++] = (byte) ('0' + index);
        } else if (index < INDEXES.length) {
            byte[] name = INDEXES[index];
            System.arraycopy(name, 0, b, p, name.length);
            p += name.length;
        } else {
            p = WireBuffer.decimal(b, p, index);
        }
        b[p++] = 0;
        o.pos = p;
    }

    /** A string payload: int32 length, UTF-8 (unpaired surrogates as '?'), NUL; with room for {@code after} more. */
    private void string(CharSequence s, int after) {
        string(out, s, after);
    }

    private static void string(WireBuffer o, CharSequence s, int after) {
        o.require(4);
        int at = o.pos;
        o.pos = at + 4;
        o.utf8(s, 0, s.length(), null, 1 + after);
        o.put(0);
        WireBuffer.int32le(o.buf, at, o.pos - at - 4);
    }

    // ---- ids and tokens -----------------------------------------------------------------------------------

    /** The element id as a string payload, the prefix's UTF-8 and the id's decimal digits; room for {@code after}. */
    private void id(byte[] prefix, long id, int after) {
        WireBuffer o = out;
        o.require(4 + prefix.length + WireBuffer.MAX_DECIMAL + 1 + after);
        int at = o.pos;
        o.pos = at + 4;
        o.put(prefix);
        o.decimal(id);
        o.put(0);
        WireBuffer.int32le(o.buf, at, o.pos - at - 4);
    }

    /** Labels and types as whole string payloads; a key as an element name: the type byte's place, name, NUL. */
    @Override
    byte[] encodeToken(int kind, int index, String name) {
        return kind == KEY_TOKEN ? template().name((byte) 0, name).bytes() : template().string(name).bytes();
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

    /** Builds a pre-encoded run of BSON bytes; only for constants, prefixes and token names. */
    private static final class Template {
        private final WireBuffer b = new WireBuffer(64);

        /** An int32 length placeholder, patched when the document or array ends. */
        Template length() {
            return int32(0);
        }

        Template int32(int v) {
            b.require(4);
            b.int32le(v);
            return this;
        }

        /** An element's start: type byte, name (U+0000 as U+FFFD), NUL. */
        Template name(byte type, String name) {
            b.require(1);
            b.put(type);
            b.utf8(name, 0, name.length(), NAME, 1);
            b.put(0);
            return this;
        }

        /** A string payload. */
        Template string(String s) {
            BsonGraphWriter.string(b, s, 0);
            return this;
        }

        /** UTF-8 alone (unpaired surrogates as '?'). */
        Template utf8(String s) {
            b.utf8(s, 0, s.length(), null, 0);
            return this;
        }

        byte[] bytes() {
            return b.toByteArray();
        }
    }
}
