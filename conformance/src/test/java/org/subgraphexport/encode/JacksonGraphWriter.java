package org.subgraphexport.encode;

import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.TokenNames;
import org.subgraphexport.wire.ValueSink;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Wire;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.StreamWriteConstraints;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.exc.StreamWriteException;
import com.fasterxml.jackson.core.io.SerializedString;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.io.OutputStream;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.TemporalAccessor;
import java.util.Arrays;

/**
 * Writes the {@code json} and {@code bson} formats (see {@link Wire}) as the reference for {@link JsonGraphWriter}
 * and {@link BsonGraphWriter}: the same record objects through a Jackson {@link JsonGenerator}, for JSON as one array
 * (Jackson's own {@code UTF8JsonGenerator}), for BSON as one document per record ({@link BsonGenerator} builds a
 * document until it is complete; it is flushed after every record). {@link Format#JSON} and {@link Format#BSON}
 * streams are written by those two, which produce this writer's bytes at a fraction of the cost;
 * {@code WriterDifferentialTest} holds each to the same bytes, call by call. Test sources only (with
 * {@link BsonGenerator}): the plugin ships the byte-level writers alone; {@code ParallelWalkProbe}'s
 * {@code walk+json-jackson} and {@code walk+bson-jackson} modes measure this one.
 *
 * <p>Both generators write into a {@link RecordBuffer} that does not pass flushes on and hands its bytes to the
 * target only at the end of a record, once it holds {@link Wire#KRYO_BUFFER} bytes or more: the target sees large
 * writes, never part of a record, and one flush in {@link #finish}. That is what lets {@link #error} drop an
 * unfinished record: JSON closes the generator's open arrays and objects (so its state is back at the top-level
 * array), flushes, and truncates the buffer to the end of the last complete record; BSON abandons the generator
 * with its unfinished document (which it never wrote out) and continues with a fresh one. The cost: the
 * record being written and up to 64 KiB before it are in memory, and the bytes are copied once more, from the
 * generator's buffer into this one when it is flushed at the end of each record.
 *
 * <p>Field names are pre-encoded {@link SerializedString}s; token names are encoded once per stream and kept by
 * database token id in growable arrays; element ids are written from a reusable buffer (prefix + decimal digits),
 * as ASCII bytes the generator copies without escaping them; numbers go straight to the generator. No
 * databind, no reflection, no boxing.
 */
public final class JacksonGraphWriter implements GraphWriter {
    /** JSON nesting a row may need: two levels per map, one per list, and the record's own few. */
    static final int MAX_JSON_DEPTH = 2 * Wire.MAX_NESTING + 16;

    private static final JsonFactory JSON = JsonFactory.builder()
            .disable(StreamWriteFeature.AUTO_CLOSE_TARGET)
            .streamWriteConstraints(StreamWriteConstraints.builder().maxNestingDepth(MAX_JSON_DEPTH).build())
            .build();
    private static final SerializedString
            RECORD = name(Wire.Json.RECORD), VERSION = name(Wire.Json.VERSION), DATABASE = name(Wire.Json.DATABASE),
            ROOT = name(Wire.Json.ROOT), ID = name(Wire.Json.ID), LABELS = name(Wire.Json.LABELS),
            PROPERTIES = name(Wire.Json.PROPERTIES), TYPE = name(Wire.Json.TYPE), START = name(Wire.Json.START),
            END = name(Wire.Json.END), NODES = name(Wire.Json.NODES), RELATIONSHIPS = name(Wire.Json.RELATIONSHIPS),
            TRUNCATED = name(Wire.Json.TRUNCATED), CODE = name(Wire.Json.CODE), MESSAGE = name(Wire.Json.MESSAGE),
            R_HEADER = name(Wire.Json.R_HEADER), R_NODE = name(Wire.Json.R_NODE),
            R_RELATIONSHIP = name(Wire.Json.R_RELATIONSHIP), R_END = name(Wire.Json.R_END),
            R_ERROR = name(Wire.Json.R_ERROR), R_COLUMNS = name(Wire.Json.R_COLUMNS), R_ROW = name(Wire.Json.R_ROW),
            NAMES = name(Wire.Json.NAMES), ROWS = name(Wire.Json.ROWS), MAP = name(Wire.Json.MAP),
            NODE_REF = name(Wire.Json.NODE_REF), RELATIONSHIP_REF = name(Wire.Json.RELATIONSHIP_REF),
            PATH = name(Wire.Json.PATH),
            BYTE = name(Wire.Json.BYTE), SHORT = name(Wire.Json.SHORT), INT = name(Wire.Json.INT),
            FLOAT = name(Wire.Json.FLOAT), DOUBLE = name(Wire.Json.DOUBLE), CHAR = name(Wire.Json.CHAR),
            BYTES = name(Wire.Json.BYTES), POINT = name(Wire.Json.POINT), DURATION = name(Wire.Json.DURATION),
            DATE = name(Wire.Json.DATE), LOCAL_TIME = name(Wire.Json.LOCAL_TIME), TIME = name(Wire.Json.TIME),
            LOCAL_DATE_TIME = name(Wire.Json.LOCAL_DATE_TIME), DATE_TIME = name(Wire.Json.DATE_TIME),
            UUID = name(Wire.Json.UUID), VECTOR = name(Wire.Json.VECTOR), SRID = name(Wire.Json.SRID),
            COORDINATES = name(Wire.Json.COORDINATES), KIND = name(Wire.Json.KIND), VALUES = name(Wire.Json.VALUES),
            NAN = name(Wire.Json.NAN), INFINITY = name(Wire.Json.INFINITY),
            NEGATIVE_INFINITY = name(Wire.Json.NEGATIVE_INFINITY);

    private static final SerializedString[] ARRAY_TAGS = new SerializedString[ArrayKind.values().length];
    private static final SerializedString[] VECTOR_KINDS = new SerializedString[VectorKind.values().length];

    static {
        for (ArrayKind k : ArrayKind.values()) {
            ARRAY_TAGS[k.ordinal()] = name(Wire.Json.arrayTag(k));
        }
        for (VectorKind k : VectorKind.values()) {
            VECTOR_KINDS[k.ordinal()] = name(k.name());
        }
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    // kinds of open containers
    private static final int ROW = 1, LIST = 2, MAP_KIND = 3;

    private JsonGenerator gen;  // BSON: replaced by error() inside a record
    private final RecordBuffer buffer;
    private final boolean bson;
    private TokenNames tokens;
    private SerializedString[] labels = new SerializedString[64], types = new SerializedString[16],
            keys = new SerializedString[64];
    private char[] nodeId = new char[0], relId = new char[0];
    private int nodePrefix, relPrefix;
    /** The id buffers as ASCII bytes, written unescaped; null for a prefix that JSON would need to escape. */
    private byte[] nodeIdBytes, relIdBytes;
    /** Kind of the open array, null outside arrays. */
    private ArrayKind array;
    private final char[] one = new char[1];
    private char[] chars = new char[64];
    private final StringBuilder text = new StringBuilder(64);
    private boolean finished;
    private boolean started;
    /** Stream offset right after the header record. */
    private long headerEnd;
    /** True once the closing record is written. */
    private boolean closed;
    /** Number of columns of a rows stream; -1 for a graph stream. */
    private int columnCount = -1;
    private long rows;
    /** Open row, lists and maps, innermost last: kinds and announced sizes (checked against Jackson's counts). */
    private int depth;
    private int[] containerKinds = new int[8];
    private int[] containerSizes = new int[8];

    private JacksonGraphWriter(OutputStream out, boolean bson) {
        this.buffer = new RecordBuffer(out);
        this.bson = bson;
        this.gen = generator();
    }

    private JsonGenerator generator() {
        try {
            return bson ? new BsonGenerator(buffer) : JSON.createGenerator(buffer);
        } catch (IOException e) {
            throw new IllegalStateException("cannot create a generator", e);  // creating one does no I/O
        }
    }

    /** A {@code json} writer over {@code out}: the reference {@link JsonGraphWriter} is tested and measured against. */
    public static JacksonGraphWriter json(OutputStream out) {
        return new JacksonGraphWriter(out, false);
    }

    /** A {@code bson} writer over {@code out}: the reference {@link BsonGraphWriter} is tested and measured against. */
    public static JacksonGraphWriter bson(OutputStream out) {
        return new JacksonGraphWriter(out, true);
    }

    private static SerializedString name(String s) {
        return new SerializedString(s);
    }

    // ---- records ------------------------------------------------------------------------------------------

    @Override
    public void header(Header header, TokenNames tokens) throws IOException {
        if (started) {
            throw new IllegalStateException("header() twice");
        }
        this.tokens = tokens;
        nodeId = idBuffer(header.nodeIdPrefix());
        nodePrefix = header.nodeIdPrefix().length();
        relId = idBuffer(header.relIdPrefix());
        relPrefix = header.relIdPrefix().length();
        nodeIdBytes = rawIdBuffer(header.nodeIdPrefix());
        relIdBytes = rawIdBuffer(header.relIdPrefix());
        if (!bson) {
            gen.writeStartArray();
        }
        record(R_HEADER);
        gen.writeFieldName(VERSION);
        gen.writeNumber(Wire.VERSION);
        gen.writeFieldName(DATABASE);
        gen.writeString(WireText.wellFormed(header.database()));
        gen.writeFieldName(ROOT);
        gen.writeString(WireText.wellFormed(header.root()));
        endRecord();
        headerEnd = buffer.committed;
        started = true;
    }

    @Override
    public void beginNode(long id, int[] labelIds, int labelCount) throws IOException {
        record(R_NODE);
        gen.writeFieldName(ID);
        writeId(nodeId, nodeIdBytes, nodePrefix, id);
        gen.writeFieldName(LABELS);
        gen.writeStartArray();
        for (int i = 0; i < labelCount; i++) {
            gen.writeString(label(labelIds[i]));
        }
        gen.writeEndArray();
        gen.writeFieldName(PROPERTIES);
        gen.writeStartObject();
    }

    @Override
    public void endNode() throws IOException {
        endProperties();
    }

    @Override
    public void beginRelationship(long id, int type, long startNode, long endNode) throws IOException {
        record(R_RELATIONSHIP);
        gen.writeFieldName(ID);
        writeId(relId, relIdBytes, relPrefix, id);
        gen.writeFieldName(TYPE);
        gen.writeString(type(type));
        gen.writeFieldName(START);
        writeId(nodeId, nodeIdBytes, nodePrefix, startNode);
        gen.writeFieldName(END);
        writeId(nodeId, nodeIdBytes, nodePrefix, endNode);
        gen.writeFieldName(PROPERTIES);
        gen.writeStartObject();
    }

    @Override
    public void endRelationship() throws IOException {
        endProperties();
    }

    private void endProperties() throws IOException {
        if (array != null || depth != 0) {
            throw new IllegalStateException("record ended inside an array or a row");
        }
        gen.writeEndObject();
        endRecord();
    }

    @Override
    public void property(int key) throws IOException {
        gen.writeFieldName(key(key));
    }

    @Override
    public void columns(String[] names) throws IOException {
        if (!started || closed || buffer.committed != headerEnd || !betweenRecords()) {
            throw new IllegalStateException("columns() comes once, right after header()");
        }
        if (names.length > Wire.MAX_LENGTH) {
            throw new IllegalArgumentException(names.length + " columns");
        }
        record(R_COLUMNS);
        gen.writeFieldName(NAMES);
        gen.writeStartArray();
        for (String name : names) {
            gen.writeString(WireText.wellFormed(name));
        }
        gen.writeEndArray();
        endRecord();
        columnCount = names.length;
    }

    @Override
    public void beginRow() throws IOException {
        if (columnCount < 0 || depth != 0 || array != null) {
            throw new IllegalStateException(columnCount < 0 ? "beginRow() without columns()"
                    : "beginRow() inside a row or an array");
        }
        record(R_ROW);
        gen.writeFieldName(VALUES);
        gen.writeStartArray();
        push(ROW, columnCount);
    }

    @Override
    public void endRow() throws IOException {
        pop(ROW, "endRow() without beginRow()");
        gen.writeEndArray();
        endRecord();
        rows++;
    }

    @Override
    public void end(long nodes, long relationships, boolean truncated) throws IOException {
        requireOpen("end()");
        if (!betweenRecords() || depth != 0 || array != null) {
            throw new IllegalStateException("end() inside a record");
        }
        record(R_END);
        gen.writeFieldName(NODES);
        gen.writeNumber(nodes);
        gen.writeFieldName(RELATIONSHIPS);
        gen.writeNumber(relationships);
        gen.writeFieldName(TRUNCATED);
        gen.writeBoolean(truncated);
        if (columnCount >= 0) {
            gen.writeFieldName(ROWS);
            gen.writeNumber(rows);
        }
        endRecord();
        closed = true;
    }

    @Override
    public void error(String code, String message) throws IOException {
        requireOpen("error()");
        if (!betweenRecords()) {
            dropUnfinishedRecord();
        }
        array = null;
        depth = 0;
        record(R_ERROR);
        gen.writeFieldName(CODE);
        gen.writeString(WireText.wellFormed(code));
        gen.writeFieldName(MESSAGE);
        gen.writeString(message == null ? "" : WireText.wellFormed(message));
        endRecord();
        closed = true;
    }

    private void requireOpen(String call) {
        if (!started || closed || finished) {
            throw new IllegalStateException(call + (!started ? " before header(): no stream has started"
                    : " after the closing record"));
        }
    }

    /** True if the generator is not inside a record object: at the top-level array (JSON) or root (BSON). */
    private boolean betweenRecords() {
        JsonStreamContext c = gen.getOutputContext();
        return bson ? c.inRoot() : c.inArray() && c.getParent().inRoot();
    }

    /**
     * BSON: a fresh generator; the old one holds the unfinished document and is dropped unwritten. JSON: closes
     * whatever is open down to the top-level array (the bytes do not matter: they are cut), moves everything into
     * the buffer, and cuts it back to the end of the last complete record; the generator then continues the
     * top-level array, and its next record starts with the separating comma.
     */
    private void dropUnfinishedRecord() throws IOException {
        if (bson) {
            gen = generator();
            return;
        }
        for (JsonStreamContext c = gen.getOutputContext(); !(c.inArray() && c.getParent().inRoot());
                c = gen.getOutputContext()) {
            if (c.inArray()) {
                gen.writeEndArray();
            } else {
                try {
                    gen.writeEndObject();
                } catch (StreamWriteException pendingName) {
                    gen.writeNull();  // a field name without its value: give it one, then close
                    gen.writeEndObject();
                }
            }
        }
        gen.flush();  // into the buffer, which keeps flushes from the target
        buffer.rewind();
    }

    @Override
    public void finish() throws IOException {
        if (finished) {
            return;
        }
        finished = true;
        if (!bson) {
            gen.writeEndArray();
        }
        gen.close();  // writes what it buffers, releases its buffers; the target stays open
        buffer.flushToTarget();
    }

    private void record(SerializedString kind) throws IOException {
        gen.writeStartObject();
        gen.writeFieldName(RECORD);
        gen.writeString(kind);
    }

    private void endRecord() throws IOException {
        gen.writeEndObject();
        gen.flush();  // the complete record into the buffer, which keeps flushes from the target
        buffer.endRecord();
    }

    // ---- values -------------------------------------------------------------------------------------------

    @Override
    public void writeBoolean(boolean value) throws IOException {
        element(ArrayKind.BOOLEAN);
        gen.writeBoolean(value);
    }

    @Override
    public void writeByte(byte value) throws IOException {
        if (array != null) {
            throw new IllegalStateException("byte arrays are written with writeBytes");
        }
        open(BYTE);
        gen.writeNumber((int) value);
        gen.writeEndObject();
    }

    @Override
    public void writeShort(short value) throws IOException {
        boolean tagged = open(ArrayKind.SHORT, SHORT);
        gen.writeNumber((int) value);
        close(tagged);
    }

    @Override
    public void writeInt(int value) throws IOException {
        boolean tagged = open(ArrayKind.INT, INT);
        gen.writeNumber(value);
        close(tagged);
    }

    @Override
    public void writeLong(long value) throws IOException {
        element(ArrayKind.LONG);
        gen.writeNumber(value);
    }

    @Override
    public void writeFloat(float value) throws IOException {
        boolean tagged = open(ArrayKind.FLOAT, FLOAT);
        if (Float.isFinite(value)) {
            gen.writeNumber(value);
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
            gen.writeNumber(value);
        } else {
            open(DOUBLE);
            nonFinite(value);
            gen.writeEndObject();
        }
    }

    @Override
    public void writeChar(char value) throws IOException {
        boolean tagged = open(ArrayKind.CHAR, CHAR);
        one[0] = Character.isSurrogate(value) ? '?' : value;
        gen.writeString(one, 0, 1);
        close(tagged);
    }

    @Override
    public void writeString(String value) throws IOException {
        element(ArrayKind.STRING);
        gen.writeString(WireText.wellFormed(value));
    }

    /** ASCII bytes go to the generator undecoded (JSON escapes them as it would the String); others are decoded. */
    @Override
    public void writeUtf8(byte[] utf8, int offset, int length) throws IOException {
        if (!ValueSink.isAscii(utf8, offset, length)) {
            writeString(new String(utf8, offset, length, StandardCharsets.UTF_8));
            return;
        }
        element(ArrayKind.STRING);
        gen.writeUTF8String(utf8, offset, length);
    }

    @Override
    public void writeBytes(byte[] value) throws IOException {
        if (array != null) {
            throw new IllegalStateException("writeBytes inside an array");
        }
        open(BYTES);
        gen.writeBinary(value);
        gen.writeEndObject();
    }

    @Override
    public void writePoint(int srid, double[] coordinates) throws IOException {
        if (coordinates.length != 2 && coordinates.length != 3) {
            throw new IllegalArgumentException("a point has 2 or 3 coordinates, not " + coordinates.length);
        }
        boolean tagged = open(ArrayKind.POINT, POINT);
        gen.writeStartObject();
        gen.writeFieldName(SRID);
        gen.writeNumber(srid);
        gen.writeFieldName(COORDINATES);
        gen.writeStartArray();
        for (double c : coordinates) {
            doublePayload(c);
        }
        gen.writeEndArray();
        gen.writeEndObject();
        close(tagged);
    }

    @Override
    public void writeDuration(long months, long days, long seconds, int nanos) throws IOException {
        boolean tagged = open(ArrayKind.DURATION, DURATION);
        gen.writeStartArray();
        gen.writeNumber(months);
        gen.writeNumber(days);
        gen.writeNumber(seconds);
        gen.writeNumber(nanos);
        gen.writeEndArray();
        close(tagged);
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
        boolean tagged = open(ArrayKind.UUID, UUID);
        char[] c = chars;
        hex(c, 0, msb >>> 32, 8);
        c[8] = '-';
        hex(c, 9, msb >>> 16, 4);
        c[13] = '-';
        hex(c, 14, msb, 4);
        c[18] = '-';
        hex(c, 19, lsb >>> 48, 4);
        c[23] = '-';
        hex(c, 24, lsb, 12);
        gen.writeString(c, 0, 36);
        close(tagged);
    }

    @Override
    public void writeVector(VectorKind kind, Object values) throws IOException {
        if (array != null) {
            throw new IllegalStateException("writeVector inside an array");
        }
        open(VECTOR);
        gen.writeStartObject();
        gen.writeFieldName(KIND);
        gen.writeString(VECTOR_KINDS[kind.ordinal()]);
        gen.writeFieldName(VALUES);
        gen.writeStartArray();
        switch (kind) {
            case INT8 -> {
                for (byte x : (byte[]) values) {
                    gen.writeNumber((int) x);
                }
            }
            case INT16 -> {
                for (short x : (short[]) values) {
                    gen.writeNumber((int) x);
                }
            }
            case INT32 -> {
                for (int x : (int[]) values) {
                    gen.writeNumber(x);
                }
            }
            case INT64 -> {
                for (long x : (long[]) values) {
                    gen.writeNumber(x);
                }
            }
            case FLOAT32 -> {
                for (float x : (float[]) values) {
                    if (Float.isFinite(x)) {
                        gen.writeNumber(x);
                    } else {
                        nonFinite(x);
                    }
                }
            }
            case FLOAT64 -> {
                for (double x : (double[]) values) {
                    doublePayload(x);
                }
            }
        }
        gen.writeEndArray();
        gen.writeEndObject();
        gen.writeEndObject();
    }

    @Override
    public void beginArray(int size, ArrayKind kind) throws IOException {
        if (array != null) {
            throw new IllegalStateException("nested arrays are not values");
        }
        open(ARRAY_TAGS[kind.ordinal()]);
        gen.writeStartArray();
        array = kind;
    }

    @Override
    public void endArray() throws IOException {
        if (array == null) {
            throw new IllegalStateException("endArray without beginArray");
        }
        array = null;
        gen.writeEndArray();
        gen.writeEndObject();
    }

    // ---- row values ---------------------------------------------------------------------------------------

    @Override
    public void writeNull() throws IOException {
        rowValue("writeNull()");
        gen.writeNull();
    }

    @Override
    public void beginList(int size) throws IOException {
        beginContainer("beginList()", size);
        gen.writeStartArray();  // a plain array is a list: typed arrays are tagged objects
        push(LIST, size);
    }

    @Override
    public void endList() throws IOException {
        pop(LIST, "endList() without beginList()");
        gen.writeEndArray();
    }

    @Override
    public void beginMap(int size) throws IOException {
        beginContainer("beginMap()", size);
        open(MAP);
        gen.writeStartObject();
        push(MAP_KIND, size);
    }

    @Override
    public void mapKey(String key) throws IOException {
        if (depth == 0 || array != null || containerKinds[depth - 1] != MAP_KIND) {
            throw new IllegalStateException("mapKey() outside a map");
        }
        String name = WireText.wellFormed(key);
        gen.writeFieldName(bson ? name.replace('\u0000', '\uFFFD') : name);  // a BSON field name ends at NUL
    }

    @Override
    public void endMap() throws IOException {
        pop(MAP_KIND, "endMap() without beginMap()");
        gen.writeEndObject();
        gen.writeEndObject();
    }

    @Override
    public void writeNodeRef(long id) throws IOException {
        rowValue("writeNodeRef()");
        open(NODE_REF);
        writeId(nodeId, nodeIdBytes, nodePrefix, id);
        gen.writeEndObject();
    }

    @Override
    public void writeRelationshipRef(long id) throws IOException {
        rowValue("writeRelationshipRef()");
        open(RELATIONSHIP_REF);
        writeId(relId, relIdBytes, relPrefix, id);
        gen.writeEndObject();
    }

    @Override
    public void writePath(long[] nodeIds, long[] relationshipIds) throws IOException {
        WireText.checkPath(nodeIds, relationshipIds);
        rowValue("writePath()");
        open(PATH);
        gen.writeStartObject();
        gen.writeFieldName(NODES);
        gen.writeStartArray();
        for (long id : nodeIds) {
            writeId(nodeId, nodeIdBytes, nodePrefix, id);
        }
        gen.writeEndArray();
        gen.writeFieldName(RELATIONSHIPS);
        gen.writeStartArray();
        for (long id : relationshipIds) {
            writeId(relId, relIdBytes, relPrefix, id);
        }
        gen.writeEndArray();
        gen.writeEndObject();
        gen.writeEndObject();
    }

    private void rowValue(String call) {
        if (depth == 0 || array != null) {
            throw new IllegalStateException(call + (array != null ? " inside a typed array" : " outside a row"));
        }
    }

    private void beginContainer(String call, int size) {
        if (size < 0 || size > Wire.MAX_LENGTH) {
            throw new IllegalArgumentException(call + " size " + size + " outside 0.." + Wire.MAX_LENGTH);
        }
        rowValue(call);
        if (depth > Wire.MAX_NESTING) {  // the row is depth 1: lists and maps nest depth - 1 levels deep
            throw new IllegalStateException("lists and maps nested deeper than " + Wire.MAX_NESTING + " levels");
        }
    }

    private void push(int kind, int size) {
        if (depth == containerKinds.length) {
            containerKinds = Arrays.copyOf(containerKinds, depth * 2);
            containerSizes = Arrays.copyOf(containerSizes, depth * 2);
        }
        containerKinds[depth] = kind;
        containerSizes[depth] = size;
        depth++;
    }

    /** Checks the innermost container against Jackson's count of what it received, and forgets it. */
    private void pop(int kind, String unopened) {
        if (depth == 0 || array != null || containerKinds[depth - 1] != kind) {
            throw new IllegalStateException(unopened);
        }
        int expected = containerSizes[depth - 1];
        int actual = gen.getOutputContext().getEntryCount();  // values of the array, entries of the map object
        if (actual != expected) {
            throw new IllegalStateException((kind == ROW ? "a row of " : kind == LIST ? "a list of " : "a map of ")
                    + expected + (kind == MAP_KIND ? " entries" : " values") + " received " + actual);
        }
        depth--;
    }

    /** A value that is plain JSON outside arrays: checks its kind inside one. */
    private void element(ArrayKind kind) {
        if (array != null && array != kind) {
            throw new IllegalStateException(kind + " value in an array of " + array);
        }
    }

    /** Outside an array opens {@code {tag:} } and returns true; inside, checks the element's kind. */
    private boolean open(ArrayKind kind, SerializedString tag) throws IOException {
        if (array == null) {
            open(tag);
            return true;
        }
        element(kind);
        return false;
    }

    private void open(SerializedString tag) throws IOException {
        gen.writeStartObject();
        gen.writeFieldName(tag);
    }

    private void close(boolean tagged) throws IOException {
        if (tagged) {
            gen.writeEndObject();
        }
    }

    private void doublePayload(double value) throws IOException {
        if (Double.isFinite(value)) {
            gen.writeNumber(value);
        } else {
            nonFinite(value);
        }
    }

    private void nonFinite(double value) throws IOException {
        gen.writeString(Double.isNaN(value) ? NAN : value > 0 ? INFINITY : NEGATIVE_INFINITY);
    }

    private void temporal(ArrayKind kind, SerializedString tag, DateTimeFormatter format, TemporalAccessor value)
            throws IOException {
        boolean tagged = open(kind, tag);
        StringBuilder sb = text;
        sb.setLength(0);
        format.formatTo(value, sb);
        int n = sb.length();
        if (chars.length < n) {
            chars = new char[Math.max(n, chars.length * 2)];
        }
        sb.getChars(0, n, chars, 0);
        gen.writeString(chars, 0, n);
        close(tagged);
    }

    private static void hex(char[] c, int at, long bits, int digits) {
        for (int i = at + digits - 1; i >= at; i--) {
            c[i] = HEX[(int) (bits & 0xF)];
            bits >>>= 4;
        }
    }

    // ---- ids and tokens -----------------------------------------------------------------------------------

    private static char[] idBuffer(String prefix) {
        char[] buffer = new char[prefix.length() + 20];  // sign + 19 digits of a long
        prefix.getChars(0, prefix.length(), buffer, 0);
        return buffer;
    }

    /**
     * The prefix as the start of a byte buffer for {@link #writeId}, if every char of it is printable ASCII that
     * JSON writes as it is (no quote, no backslash), as in Neo4j's element ids; else null.
     */
    private static byte[] rawIdBuffer(String prefix) {
        byte[] buffer = new byte[prefix.length() + 20];  // sign + 19 digits of a long
        for (int i = 0; i < prefix.length(); i++) {
            char c = prefix.charAt(i);
            if (c < 0x20 || c > 0x7E || c == '"' || c == '\\') {
                return null;
            }
            buffer[i] = (byte) c;
        }
        return buffer;
    }

    /**
     * Writes prefix + decimal id: from {@code bytes} (the prefix in its first {@code prefix} bytes) straight into the
     * generator's buffer when there is one and the id is not negative (no escaping to check: prefix and digits are
     * plain ASCII), else from {@code buffer} (the prefix in its first {@code prefix} chars) as an ordinary string.
     */
    private void writeId(char[] buffer, byte[] bytes, int prefix, long id) throws IOException {
        if (bytes != null && id >= 0) {
            gen.writeRawUTF8String(bytes, 0, WireText.decimal(bytes, prefix, id));
            return;
        }
        int pos = prefix;
        if (id < 0) {
            buffer[pos++] = '-';
        }
        long n = id < 0 ? id : -id;  // work on the non-positive magnitude: Long.MIN_VALUE has no positive
        int digits = 1;
        for (long t = n; t <= -10; t /= 10) {
            digits++;
        }
        int end = pos + digits;
        for (int i = end - 1; i >= pos; i--) {
            buffer[i] = (char) ('0' - (n % 10));
            n /= 10;
        }
        gen.writeString(buffer, 0, end);
    }

    private SerializedString label(int id) {
        SerializedString[] cache = labels = ensure(labels, id);
        SerializedString s = cache[id];
        if (s == null) {
            s = cache[id] = name(WireText.wellFormed(tokens.label(id)));
        }
        return s;
    }

    private SerializedString type(int id) {
        SerializedString[] cache = types = ensure(types, id);
        SerializedString s = cache[id];
        if (s == null) {
            s = cache[id] = name(WireText.wellFormed(tokens.relationshipType(id)));
        }
        return s;
    }

    private SerializedString key(int id) {
        SerializedString[] cache = keys = ensure(keys, id);
        SerializedString s = cache[id];
        if (s == null) {
            String name = WireText.wellFormed(tokens.propertyKey(id));
            if (bson) {
                name = name.replace('\u0000', '\uFFFD');  // a BSON field name is NUL-terminated
            }
            s = cache[id] = name(name);
        }
        return s;
    }

    private static SerializedString[] ensure(SerializedString[] cache, int id) {
        if (id < cache.length) {
            if (id < 0) {
                throw new IllegalArgumentException("negative token id " + id);
            }
            return cache;
        }
        return Arrays.copyOf(cache, Math.max(id + 1, cache.length * 2));
    }

    /**
     * The generators' output stream: collects bytes, ignores {@code flush()}, and hands its content to the target
     * at the end of a record once it holds {@link Wire#KRYO_BUFFER} bytes or more (never in the middle of one, so
     * the content since the last complete record can be cut). Grows to hold a large record whole.
     */
    private static final class RecordBuffer extends OutputStream {
        private final OutputStream target;
        private byte[] buffer = new byte[2 * Wire.KRYO_BUFFER];
        private int count;
        /** Bytes handed to the target so far. */
        private long drained;
        /** Stream offset of the end of the last complete record. */
        private long committed;

        RecordBuffer(OutputStream target) {
            this.target = target;
        }

        @Override
        public void write(int b) {
            if (count == buffer.length) {
                grow(1);
            }
            buffer[count++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            if (len > buffer.length - count) {
                grow(len);
            }
            System.arraycopy(b, off, buffer, count, len);
            count += len;
        }

        private void grow(int len) {
            long needed = (long) count + len;
            if (needed > Integer.MAX_VALUE - 8) {
                throw new IllegalStateException("a record of more than 2 GB");
            }
            buffer = Arrays.copyOf(buffer, (int) Math.min(Integer.MAX_VALUE - 8, Math.max(needed, 2L * buffer.length)));
        }

        @Override
        public void flush() {
            // deliberately nothing: see the class comment
        }

        @Override
        public void close() {
            // the target belongs to its owner
        }

        /** A record has ended (the generator flushed it here): remembers the offset, hands over enough content. */
        void endRecord() throws IOException {
            committed = drained + count;
            if (count >= Wire.KRYO_BUFFER) {
                drain();
            }
        }

        /** Cuts everything after the last complete record (the generator must have flushed into this first). */
        void rewind() {
            count = (int) (committed - drained);
        }

        void flushToTarget() throws IOException {
            drain();
            target.flush();
        }

        private void drain() throws IOException {
            if (count > 0) {
                target.write(buffer, 0, count);
                drained += count;
                count = 0;
            }
        }
    }
}
