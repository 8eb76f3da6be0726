package org.subgraphexport.format;

import java.io.ByteArrayOutputStream;
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
import java.util.Arrays;

/**
 * Writes the {@code bson} format (see {@link Wire}) as bytes into its own buffer: one document per record, the same
 * bytes as {@link BsonGenerator} behind {@link JacksonGraphWriter#bson} (the reference this writer is tested
 * against, call by call and byte by byte), without a Jackson generator and its per-call context checks. It is
 * {@link JsonGraphWriter}'s design in BSON: a record's fixed parts are pre-encoded runs (a node record's length
 * placeholder, {@code record} element and the name of its {@code id} element are one copy), token names are encoded
 * once per stream and kept by database token id (labels and types as whole string payloads, property keys as element
 * names with the type byte's place in front), element ids are the prefix's UTF-8 and decimal digits, array element
 * names {@code "0"}, {@code "1"}, ... come from a table, and every document's and array's int32 length is
 * back-patched in the buffer when it ends. The writer's own state (the open typed array, the row, list and map
 * stack, whether a property's value is due) is all the checking the {@link GraphWriter} contract needs.
 *
 * <p>Bytes are the reference's: an element is its type byte, its name (UTF-8, NUL-terminated) and its value; a
 * value's type byte is written in front of its name, which {@link #property} and {@link #mapKey} write before the
 * value's type is known, so they leave its place and the value fills it in. Strings are UTF-8 of the string with
 * each unpaired surrogate as {@code '?'} (as {@link JacksonGraphWriter#wellFormed} makes them), U+0000 as it is;
 * in element names (property keys, map keys) U+0000 becomes U+FFFD. {@code float} values are the double of the
 * float's exact value; floats and doubles are raw IEEE bits, little-endian like every number.
 *
 * <p>Buffering is {@link JsonGraphWriter}'s: the buffer grows rather than hand part of a record to the target,
 * and goes to the target (a write, no flush) at the end of a record once it holds {@link Wire#KRYO_BUFFER} bytes or
 * more, so {@link #error} can drop an unfinished record by moving the write position back to the end of the last
 * complete one. The target is flushed once, by {@link #finish}. Where the reference wrote a malformed document or
 * threw Jackson's own exception for a call the contract forbids (a value without its {@link #property}, two names
 * in a row, a record or map ended where a value is due, {@link #endRelationship} ending a node, a record after
 * {@link #finish}), this writer throws {@link IllegalStateException} and writes nothing.
 */
public final class BsonGraphWriter implements GraphWriter {
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
            DATE = tag(STRING, Wire.Json.DATE).bytes(), LOCAL_TIME = tag(STRING, Wire.Json.LOCAL_TIME).bytes(),
            TIME = tag(STRING, Wire.Json.TIME).bytes(),
            LOCAL_DATE_TIME = tag(STRING, Wire.Json.LOCAL_DATE_TIME).bytes(),
            DATE_TIME = tag(STRING, Wire.Json.DATE_TIME).bytes(), UUID = tag(STRING, Wire.Json.UUID).bytes(),
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
    /** Array element names {@code "0"}, {@code "1"}, ... without their NUL; larger indexes are formatted. */
    private static final byte[][] INDEXES = new byte[1000][];

    static {
        for (ArrayKind k : ArrayKind.values()) {
            ARRAY_TAGS[k.ordinal()] = tag(ARRAY, Wire.Json.arrayTag(k)).length().bytes();
        }
        for (VectorKind k : VectorKind.values()) {
            VECTOR_STARTS[k.ordinal()] = tag(DOCUMENT, Wire.Json.VECTOR).length().name(STRING, Wire.Json.KIND)
                    .string(k.name()).name(ARRAY, Wire.Json.VALUES).length().bytes();
        }
        for (int i = 0; i < INDEXES.length; i++) {
            INDEXES[i] = Integer.toString(i).getBytes(StandardCharsets.US_ASCII);
        }
    }

    // kinds of open containers
    private static final int ROW = 1, LIST = 2, MAP_KIND = 3;
    // records with properties
    private static final int NODE = 1, RELATIONSHIP = 2;

    private final OutputStream target;
    private byte[] buf = new byte[2 * Wire.KRYO_BUFFER];
    private int pos;
    /** Buffer position at the end of the last complete record: where the next record's document starts. */
    private int committed;
    /** Bytes handed to the target so far. */
    private long drained;
    private TokenNames tokens;
    /** Labels and types as string payloads, keys as element names (type byte's place, name, NUL), by token id. */
    private byte[][] labels = new byte[64][], types = new byte[16][], keys = new byte[64][];
    /** The element-id prefixes as UTF-8 (unpaired surrogates as '?'). */
    private byte[] nodeIdPrefix, relIdPrefix;
    private boolean started, closed, finished;
    /** Stream offset right after the header record. */
    private long headerEnd;
    /** The record whose properties document is open: {@link #NODE}, {@link #RELATIONSHIP}, or 0. */
    private int inProperties;
    /** Where the open properties document starts. */
    private int propertiesAt;
    /** After {@link #property}, before its value. */
    private boolean valueDue;
    /** Where the type byte of the value due after {@link #property} or {@link #mapKey} goes. */
    private int typeAt;
    /** Kind of the open typed array, null outside arrays; its elements so far; where its tag document starts. */
    private ArrayKind array;
    private int arrayCount, arrayAt;
    /** Number of columns of a rows stream; -1 for a graph stream. */
    private int columnCount = -1;
    private long rows;
    /**
     * Open row, lists and maps, innermost last: kinds, announced sizes, entries so far, a map entry's value due,
     * where each one's document starts (a map's: its tagged document).
     */
    private int depth;
    private int[] containerKinds = new int[8], containerSizes = new int[8], containerCounts = new int[8],
            containerStarts = new int[8];
    private boolean[] mapValueDue = new boolean[8];
    private final StringBuilder text = new StringBuilder(64);

    private BsonGraphWriter(OutputStream target) {
        this.target = target;
    }

    /** A {@code bson} writer over {@code out}. */
    public static BsonGraphWriter bson(OutputStream out) {
        return new BsonGraphWriter(out);
    }

    // ---- records ------------------------------------------------------------------------------------------

    @Override
    public void header(Header header, TokenNames tokens) throws IOException {
        if (started) {
            throw new IllegalStateException("header() twice");
        }
        this.tokens = tokens;
        pos = committed;  // nothing of a header() that threw half-way
        nodeIdPrefix = utf8(JacksonGraphWriter.wellFormed(header.nodeIdPrefix()));
        relIdPrefix = utf8(JacksonGraphWriter.wellFormed(header.relIdPrefix()));
        put(HEADER_START);
        string(header.database());
        put(ROOT);
        string(header.root());
        endRecord();
        headerEnd = drained + pos;
        started = true;
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
        endProperties(NODE);
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
        endProperties(RELATIONSHIP);
    }

    private void openProperties(int record) {
        put(PROPERTIES_START);
        propertiesAt = pos - 4;
        inProperties = record;
    }

    private void endProperties(int record) throws IOException {
        if (array != null || depth != 0) {
            throw new IllegalStateException("record ended inside an array or a row");
        }
        if (inProperties != record || valueDue) {
            throw new IllegalStateException(valueDue ? "record ended where a property's value is due"
                    : record == NODE ? "endNode() without beginNode()"
                    : "endRelationship() without beginRelationship()");
        }
        endDocument(propertiesAt);
        endRecord();
    }

    @Override
    public void property(int key) throws IOException {
        if (inProperties == 0 || valueDue || array != null) {
            throw new IllegalStateException(inProperties == 0 ? "property() outside a node or relationship"
                    : valueDue ? "property() where the previous property's value is due"
                    : "property() inside an array");
        }
        byte[] name = key(key);
        typeAt = pos;
        put(name);
        valueDue = true;
    }

    @Override
    public void columns(String[] names) throws IOException {
        if (!started || closed || drained + committed != headerEnd || pos != committed) {
            throw new IllegalStateException("columns() comes once, right after header()");
        }
        if (names.length > Wire.MAX_LENGTH) {
            throw new IllegalArgumentException(names.length + " columns");
        }
        put(COLUMNS_START);
        int at = pos - 4;
        for (int i = 0; i < names.length; i++) {
            elementName(STRING, i);
            string(names[i]);
        }
        endDocument(at);
        endRecord();
        columnCount = names.length;
    }

    @Override
    public void beginRow() throws IOException {
        if (columnCount < 0 || depth != 0 || array != null) {
            throw new IllegalStateException(columnCount < 0 ? "beginRow() without columns()"
                    : "beginRow() inside a row or an array");
        }
        beginRecord("beginRow()");
        put(ROW_START);
        push(ROW, columnCount, pos - 4);
    }

    @Override
    public void endRow() throws IOException {
        pop(ROW, "endRow() without beginRow()");
        endDocument(containerStarts[depth]);
        endRecord();
        rows++;
    }

    @Override
    public void end(long nodes, long relationships, boolean truncated) throws IOException {
        requireOpen("end()");
        if (pos != committed || depth != 0 || array != null) {
            throw new IllegalStateException("end() inside a record");
        }
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
        endRecord();
        closed = true;
    }

    @Override
    public void error(String code, String message) throws IOException {
        requireOpen("error()");
        pos = committed;  // drops an unfinished record
        array = null;
        depth = 0;
        inProperties = 0;
        valueDue = false;
        put(ERROR_START);
        string(code);
        put(MESSAGE);
        string(message == null ? "" : message);
        endRecord();
        closed = true;
    }

    private void requireOpen(String call) {
        if (!started || closed || finished) {
            throw new IllegalStateException(call + (!started ? " before header(): no stream has started"
                    : " after the closing record"));
        }
    }

    private void beginRecord(String call) {
        if (!started || closed || finished || pos != committed) {
            throw new IllegalStateException(call + (!started ? " before header()" : closed || finished
                    ? " after the closing record" : " inside a record"));
        }
    }

    /**
     * Ends the record's document (it starts at {@link #committed}), remembers where it ends, and hands the buffer
     * to the target once it is full enough.
     */
    private void endRecord() throws IOException {
        endDocument(committed);
        inProperties = 0;
        if (pos >= Wire.KRYO_BUFFER) {
            int n = pos;
            pos = 0;
            committed = 0;
            target.write(buf, 0, n);
            drained += n;
            return;
        }
        committed = pos;
    }

    @Override
    public void finish() throws IOException {
        if (finished) {
            return;
        }
        finished = true;
        if (!started || pos != committed) {
            throw new IllegalStateException(!started ? "finish() before header()" : "finish() inside a record");
        }
        int n = pos;
        pos = 0;
        committed = 0;
        if (n > 0) {
            target.write(buf, 0, n);
            drained += n;
        }
        target.flush();
    }

    // ---- values -------------------------------------------------------------------------------------------

    @Override
    public void writeBoolean(boolean value) throws IOException {
        element(ArrayKind.BOOLEAN, BOOLEAN);
        put(value ? (byte) 1 : (byte) 0);
    }

    @Override
    public void writeByte(byte value) throws IOException {
        if (array != null) {
            throw new IllegalStateException("byte arrays are written with writeBytes");
        }
        value(DOCUMENT);
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
        if (array != null) {
            throw new IllegalStateException("writeBytes inside an array");
        }
        value(DOCUMENT);
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
    public void writeDate(LocalDate value) throws IOException {
        temporal(ArrayKind.DATE, DATE, DateTimeFormatter.ISO_LOCAL_DATE, value);
    }

    @Override
    public void writeLocalTime(LocalTime value) throws IOException {
        temporal(ArrayKind.LOCAL_TIME, LOCAL_TIME, DateTimeFormatter.ISO_LOCAL_TIME, value);
    }

    @Override
    public void writeTime(OffsetTime value) throws IOException {
        temporal(ArrayKind.TIME, TIME, DateTimeFormatter.ISO_OFFSET_TIME, value);
    }

    @Override
    public void writeLocalDateTime(LocalDateTime value) throws IOException {
        temporal(ArrayKind.LOCAL_DATE_TIME, LOCAL_DATE_TIME, DateTimeFormatter.ISO_LOCAL_DATE_TIME, value);
    }

    @Override
    public void writeDateTime(ZonedDateTime value) throws IOException {
        temporal(ArrayKind.DATE_TIME, DATE_TIME, DateTimeFormatter.ISO_ZONED_DATE_TIME, value);
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

    /** Lower-case hex digits, as {@link java.util.UUID#toString()} writes them. */
    private static void hex(byte[] b, int at, long bits, int digits) {
        for (int i = at + digits - 1; i >= at; i--) {
            int d = (int) (bits & 0xF);
            b[i] = (byte) (d < 10 ? '0' + d : 'a' + d - 10);
            bits >>>= 4;
        }
    }

    @Override
    public void writeVector(VectorKind kind, Object values) throws IOException {
        if (array != null) {
            throw new IllegalStateException("writeVector inside an array");
        }
        value(DOCUMENT);
        int at = pos;
        put(VECTOR_STARTS[kind.ordinal()]);
        int valuesAt = pos - 4;
        switch (kind) {
            case INT8 -> {
                byte[] v = (byte[]) values;
                for (int i = 0; i < v.length; i++) {
                    elementName(INT32, i);
                    putInt(v[i]);
                }
            }
            case INT16 -> {
                short[] v = (short[]) values;
                for (int i = 0; i < v.length; i++) {
                    elementName(INT32, i);
                    putInt(v[i]);
                }
            }
            case INT32 -> {
                int[] v = (int[]) values;
                for (int i = 0; i < v.length; i++) {
                    elementName(INT32, i);
                    putInt(v[i]);
                }
            }
            case INT64 -> {
                long[] v = (long[]) values;
                for (int i = 0; i < v.length; i++) {
                    elementName(INT64, i);
                    putLong(v[i]);
                }
            }
            case FLOAT32 -> {
                float[] v = (float[]) values;
                for (int i = 0; i < v.length; i++) {
                    float x = v[i];
                    elementName(Float.isFinite(x) ? DOUBLE : STRING, i);
                    doublePayload(x);
                }
            }
            case FLOAT64 -> {
                double[] v = (double[]) values;
                for (int i = 0; i < v.length; i++) {
                    double x = v[i];
                    elementName(Double.isFinite(x) ? DOUBLE : STRING, i);
                    doublePayload(x);
                }
            }
        }
        endDocument(valuesAt);
        endDocument(at + VECTOR_PAYLOAD);
        endDocument(at);
    }

    @Override
    public void beginArray(int size, ArrayKind kind) throws IOException {
        if (array != null) {
            throw new IllegalStateException("nested arrays are not values");
        }
        value(DOCUMENT);
        arrayAt = pos;
        put(ARRAY_TAGS[kind.ordinal()]);
        array = kind;
        arrayCount = 0;
    }

    @Override
    public void endArray() throws IOException {
        if (array == null) {
            throw new IllegalStateException("endArray without beginArray");
        }
        endDocument(arrayAt + ARRAY_TAGS[array.ordinal()].length - 4);
        endDocument(arrayAt);
        array = null;
    }

    // ---- row values ---------------------------------------------------------------------------------------

    @Override
    public void writeNull() throws IOException {
        rowValue("writeNull()", NULL);
    }

    @Override
    public void beginList(int size) throws IOException {
        beginContainer("beginList()", size, ARRAY);
        int at = pos;
        putInt(0);
        push(LIST, size, at);
    }

    @Override
    public void endList() throws IOException {
        pop(LIST, "endList() without beginList()");
        endDocument(containerStarts[depth]);
    }

    @Override
    public void beginMap(int size) throws IOException {
        beginContainer("beginMap()", size, DOCUMENT);
        int at = pos;
        put(MAP);
        push(MAP_KIND, size, at);
    }

    @Override
    public void mapKey(String key) throws IOException {
        int d = depth - 1;
        if (depth == 0 || array != null || containerKinds[d] != MAP_KIND) {
            throw new IllegalStateException("mapKey() outside a map");
        }
        if (mapValueDue[d]) {
            throw new IllegalStateException("mapKey() where the previous key's value is due");
        }
        int n = key.length();
        containerCounts[d]++;
        typeAt = pos;
        put((byte) 0);
        chars(key, 0, n, true);
        put((byte) 0);
        mapValueDue[d] = true;
    }

    @Override
    public void endMap() throws IOException {
        pop(MAP_KIND, "endMap() without beginMap()");
        int at = containerStarts[depth];
        endDocument(at + MAP_PAYLOAD);
        endDocument(at);
    }

    @Override
    public void writeNodeRef(long id) throws IOException {
        rowValue("writeNodeRef()", DOCUMENT);
        int at = pos;
        put(NODE_REF);
        id(nodeIdPrefix, id);
        endDocument(at);
    }

    @Override
    public void writeRelationshipRef(long id) throws IOException {
        rowValue("writeRelationshipRef()", DOCUMENT);
        int at = pos;
        put(RELATIONSHIP_REF);
        id(relIdPrefix, id);
        endDocument(at);
    }

    @Override
    public void writePath(long[] nodeIds, long[] relationshipIds) throws IOException {
        Wire.checkPath(nodeIds, relationshipIds);
        rowValue("writePath()", DOCUMENT);
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

    private void rowValue(String call, byte type) {
        if (depth == 0 || array != null) {
            throw new IllegalStateException(call + (array != null ? " inside a typed array" : " outside a row"));
        }
        value(type);
    }

    private void beginContainer(String call, int size, byte type) {
        if (size < 0 || size > Wire.MAX_LENGTH) {
            throw new IllegalArgumentException(call + " size " + size + " outside 0.." + Wire.MAX_LENGTH);
        }
        if (depth == 0 || array != null) {
            throw new IllegalStateException(call + (array != null ? " inside a typed array" : " outside a row"));
        }
        if (depth > Wire.MAX_NESTING) {  // the row is depth 1: lists and maps nest depth - 1 levels deep
            throw new IllegalStateException("lists and maps nested deeper than " + Wire.MAX_NESTING + " levels");
        }
        value(type);
    }

    private void push(int kind, int size, int start) {
        if (depth == containerKinds.length) {
            containerKinds = Arrays.copyOf(containerKinds, depth * 2);
            containerSizes = Arrays.copyOf(containerSizes, depth * 2);
            containerCounts = Arrays.copyOf(containerCounts, depth * 2);
            containerStarts = Arrays.copyOf(containerStarts, depth * 2);
            mapValueDue = Arrays.copyOf(mapValueDue, depth * 2);
        }
        containerKinds[depth] = kind;
        containerSizes[depth] = size;
        containerCounts[depth] = 0;
        containerStarts[depth] = start;
        mapValueDue[depth] = false;
        depth++;
    }

    /** Checks the innermost container's entries against its announced size, and forgets it (its start stays). */
    private void pop(int kind, String unopened) {
        int d = depth - 1;
        if (depth == 0 || array != null || containerKinds[d] != kind) {
            throw new IllegalStateException(unopened);
        }
        if (mapValueDue[d]) {
            throw new IllegalStateException("endMap() where the last key's value is due");
        }
        int expected = containerSizes[d];
        int actual = containerCounts[d];
        if (actual != expected) {
            throw new IllegalStateException((kind == ROW ? "a row of " : kind == LIST ? "a list of " : "a map of ")
                    + expected + (kind == MAP_KIND ? " entries" : " values") + " received " + actual);
        }
        depth = d;
    }

    /**
     * Starts a value of BSON type {@code type} outside typed arrays: the value of the property named last or of
     * the map key written last (their name is written, the type byte goes in front of it), or the next element of
     * the innermost row or list (type byte and index).
     */
    private void value(byte type) {
        if (depth > 0) {
            int d = depth - 1;
            if (containerKinds[d] == MAP_KIND) {
                if (!mapValueDue[d]) {
                    throw new IllegalStateException("a map value without its mapKey()");
                }
                mapValueDue[d] = false;
                buf[typeAt] = type;
            } else {
                elementName(type, containerCounts[d]++);
            }
        } else if (valueDue) {
            valueDue = false;
            buf[typeAt] = type;
        } else {
            throw new IllegalStateException("a value without its property()");
        }
    }

    /** A value written untagged outside arrays; inside one, checks its kind and starts the element. */
    private void element(ArrayKind kind, byte type) {
        if (array == null) {
            value(type);
        } else if (array != kind) {
            throw new IllegalStateException(kind + " value in an array of " + array);
        } else {
            elementName(type, arrayCount++);
        }
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

    private void temporal(ArrayKind kind, byte[] tag, DateTimeFormatter format, TemporalAccessor value) {
        int at = open(kind, STRING, tag);
        StringBuilder sb = text;
        sb.setLength(0);
        format.formatTo(value, sb);
        string(sb);
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
                p = JacksonGraphWriter.decimal(b, p, -id);
            }
        } else {
            p = JacksonGraphWriter.decimal(b, p, id);
        }
        b[p++] = 0;
        putInt(b, at, p - at - 4);
        pos = p;
    }

    private byte[] label(int id) {
        byte[][] cache = labels = ensure(labels, id);
        byte[] s = cache[id];
        if (s == null) {
            s = cache[id] = template().string(JacksonGraphWriter.wellFormed(tokens.label(id))).bytes();
        }
        return s;
    }

    private byte[] type(int id) {
        byte[][] cache = types = ensure(types, id);
        byte[] s = cache[id];
        if (s == null) {
            s = cache[id] = template().string(JacksonGraphWriter.wellFormed(tokens.relationshipType(id))).bytes();
        }
        return s;
    }

    /** A property key as an element name: the type byte's place, the name (U+0000 as U+FFFD), NUL. */
    private byte[] key(int id) {
        byte[][] cache = keys = ensure(keys, id);
        byte[] s = cache[id];
        if (s == null) {
            String name = JacksonGraphWriter.wellFormed(tokens.propertyKey(id)).replace('\u0000', '\uFFFD');
            s = cache[id] = template().name((byte) 0, name).bytes();
        }
        return s;
    }

    private static byte[][] ensure(byte[][] cache, int id) {
        if (id < cache.length) {
            if (id < 0) {
                throw new IllegalArgumentException("negative token id " + id);
            }
            return cache;
        }
        return Arrays.copyOf(cache, Math.max(id + 1, cache.length * 2));
    }

    // ---- bytes --------------------------------------------------------------------------------------------

    private void ensure(int n) {
        if (n > buf.length - pos) {
            long needed = (long) pos + n;
            if (needed > Integer.MAX_VALUE - 8) {
                throw new IllegalStateException("a record of more than 2 GB");
            }
            buf = Arrays.copyOf(buf, (int) Math.min(Integer.MAX_VALUE - 8, Math.max(needed, 2L * buf.length)));
        }
    }

    private void put(byte b) {
        ensure(1);
        buf[pos++] = b;
    }

    private void put(byte[] bytes) {
        int n = bytes.length;
        ensure(n);
        System.arraycopy(bytes, 0, buf, pos, n);
        pos += n;
    }

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
            p = JacksonGraphWriter.decimal(b, p, index);
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
