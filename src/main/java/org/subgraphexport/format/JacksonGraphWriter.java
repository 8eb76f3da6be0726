package org.subgraphexport.format;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.io.SerializedString;
import de.undercouch.bson4jackson.BsonFactory;
import java.io.IOException;
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
 * Writes the {@code json} and {@code bson} formats (see {@link Wire}): the same record objects through a Jackson
 * {@link JsonGenerator}, for JSON as one array, for BSON as one document per record (bson4jackson's generator
 * buffers a document until it is complete; it is flushed after every record into a buffer that does not pass
 * flushes on, so the target sees large writes and one flush in {@link #finish}).
 *
 * <p>Field names are pre-encoded {@link SerializedString}s; token names are encoded once per stream and kept by
 * database token id in growable arrays; element ids are written from a reusable {@code char[]} (prefix + decimal
 * digits); numbers go straight to the generator. No databind, no reflection, no boxing.
 */
public final class JacksonGraphWriter implements GraphWriter {
    private static final JsonFactory JSON = JsonFactory.builder()
            .disable(StreamWriteFeature.AUTO_CLOSE_TARGET)
            .build();
    private static final BsonFactory BSON = new BsonFactory();

    static {
        BSON.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
    }

    private static final SerializedString
            RECORD = name(Wire.Json.RECORD), VERSION = name(Wire.Json.VERSION), DATABASE = name(Wire.Json.DATABASE),
            ROOT = name(Wire.Json.ROOT), ID = name(Wire.Json.ID), LABELS = name(Wire.Json.LABELS),
            PROPERTIES = name(Wire.Json.PROPERTIES), TYPE = name(Wire.Json.TYPE), START = name(Wire.Json.START),
            END = name(Wire.Json.END), NODES = name(Wire.Json.NODES), RELATIONSHIPS = name(Wire.Json.RELATIONSHIPS),
            TRUNCATED = name(Wire.Json.TRUNCATED), CODE = name(Wire.Json.CODE), MESSAGE = name(Wire.Json.MESSAGE),
            R_HEADER = name(Wire.Json.R_HEADER), R_NODE = name(Wire.Json.R_NODE),
            R_RELATIONSHIP = name(Wire.Json.R_RELATIONSHIP), R_END = name(Wire.Json.R_END),
            R_ERROR = name(Wire.Json.R_ERROR),
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

    private final JsonGenerator gen;
    private final UnflushedBuffer bson;  // null for JSON
    private TokenNames tokens;
    private SerializedString[] labels = new SerializedString[64], types = new SerializedString[16],
            keys = new SerializedString[64];
    private char[] nodeId = new char[0], relId = new char[0];
    private int nodePrefix, relPrefix;
    /** Kind of the open array, null outside arrays. */
    private ArrayKind array;
    private final char[] one = new char[1];
    private char[] chars = new char[64];
    private final StringBuilder text = new StringBuilder(64);
    private boolean finished;

    private JacksonGraphWriter(JsonGenerator gen, UnflushedBuffer bson) {
        this.gen = gen;
        this.bson = bson;
    }

    /** A {@code json} writer over {@code out}. */
    public static JacksonGraphWriter json(OutputStream out) {
        try {
            return new JacksonGraphWriter(JSON.createGenerator(out), null);
        } catch (IOException e) {
            throw new IllegalStateException("cannot create a JSON generator", e);  // creating one does no I/O
        }
    }

    /** A {@code bson} writer over {@code out}. */
    public static JacksonGraphWriter bson(OutputStream out) {
        UnflushedBuffer buffer = new UnflushedBuffer(out);
        try {
            return new JacksonGraphWriter(BSON.createGenerator(buffer), buffer);
        } catch (IOException e) {
            throw new IllegalStateException("cannot create a BSON generator", e);  // creating one does no I/O
        }
    }

    private static SerializedString name(String s) {
        return new SerializedString(s);
    }

    // ---- records ------------------------------------------------------------------------------------------

    @Override
    public void header(Header header, TokenNames tokens) throws IOException {
        this.tokens = tokens;
        nodeId = idBuffer(header.nodeIdPrefix());
        nodePrefix = header.nodeIdPrefix().length();
        relId = idBuffer(header.relIdPrefix());
        relPrefix = header.relIdPrefix().length();
        if (bson == null) {
            gen.writeStartArray();
        }
        record(R_HEADER);
        gen.writeFieldName(VERSION);
        gen.writeNumber(Wire.VERSION);
        gen.writeFieldName(DATABASE);
        gen.writeString(wellFormed(header.database()));
        gen.writeFieldName(ROOT);
        gen.writeString(wellFormed(header.root()));
        endRecord();
    }

    @Override
    public void beginNode(long id, int[] labelIds, int labelCount) throws IOException {
        record(R_NODE);
        gen.writeFieldName(ID);
        writeId(nodeId, nodePrefix, id);
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
        writeId(relId, relPrefix, id);
        gen.writeFieldName(TYPE);
        gen.writeString(type(type));
        gen.writeFieldName(START);
        writeId(nodeId, nodePrefix, startNode);
        gen.writeFieldName(END);
        writeId(nodeId, nodePrefix, endNode);
        gen.writeFieldName(PROPERTIES);
        gen.writeStartObject();
    }

    @Override
    public void endRelationship() throws IOException {
        endProperties();
    }

    private void endProperties() throws IOException {
        if (array != null) {
            throw new IllegalStateException("record ended inside an array");
        }
        gen.writeEndObject();
        endRecord();
    }

    @Override
    public void property(int key) throws IOException {
        gen.writeFieldName(key(key));
    }

    @Override
    public void end(long nodes, long relationships, boolean truncated) throws IOException {
        record(R_END);
        gen.writeFieldName(NODES);
        gen.writeNumber(nodes);
        gen.writeFieldName(RELATIONSHIPS);
        gen.writeNumber(relationships);
        gen.writeFieldName(TRUNCATED);
        gen.writeBoolean(truncated);
        endRecord();
    }

    @Override
    public void error(String code, String message) throws IOException {
        record(R_ERROR);
        gen.writeFieldName(CODE);
        gen.writeString(wellFormed(code));
        gen.writeFieldName(MESSAGE);
        gen.writeString(message == null ? "" : wellFormed(message));
        endRecord();
    }

    @Override
    public void finish() throws IOException {
        if (finished) {
            return;
        }
        finished = true;
        if (bson == null) {
            gen.writeEndArray();
        }
        gen.close();  // writes what it buffers, releases its buffers; the target stays open
        if (bson != null) {
            bson.flushToTarget();
        }
    }

    private void record(SerializedString kind) throws IOException {
        gen.writeStartObject();
        gen.writeFieldName(RECORD);
        gen.writeString(kind);
    }

    private void endRecord() throws IOException {
        gen.writeEndObject();
        if (bson != null) {
            gen.flush();  // the complete document into the buffer; the buffer does not flush the target
        }
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
        gen.writeString(wellFormed(value));
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

    /** Writes prefix + decimal id from {@code buffer}, whose first {@code prefix} chars hold the prefix. */
    private void writeId(char[] buffer, int prefix, long id) throws IOException {
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
            s = cache[id] = name(wellFormed(tokens.label(id)));
        }
        return s;
    }

    private SerializedString type(int id) {
        SerializedString[] cache = types = ensure(types, id);
        SerializedString s = cache[id];
        if (s == null) {
            s = cache[id] = name(wellFormed(tokens.relationshipType(id)));
        }
        return s;
    }

    private SerializedString key(int id) {
        SerializedString[] cache = keys = ensure(keys, id);
        SerializedString s = cache[id];
        if (s == null) {
            String name = wellFormed(tokens.propertyKey(id));
            if (bson != null) {
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

    /** {@code s} with unpaired surrogates replaced by {@code '?'}, as UTF-8 encoding does in Kryo. */
    static String wellFormed(String s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                } else {
                    return replaceUnpaired(s);
                }
            }
        }
        return s;
    }

    private static String replaceUnpaired(String s) {
        char[] c = s.toCharArray();
        for (int i = 0; i < c.length; i++) {
            if (Character.isHighSurrogate(c[i]) && i + 1 < c.length && Character.isLowSurrogate(c[i + 1])) {
                i++;
            } else if (Character.isSurrogate(c[i])) {
                c[i] = '?';
            }
        }
        return new String(c);
    }

    /**
     * A buffer in front of the target that ignores {@code flush()}: bson4jackson flushes after every document,
     * the servlet stream should see large writes. {@link #flushToTarget} writes and flushes for real.
     */
    private static final class UnflushedBuffer extends OutputStream {
        private final OutputStream target;
        private final byte[] buffer = new byte[Wire.KRYO_BUFFER];
        private int count;

        UnflushedBuffer(OutputStream target) {
            this.target = target;
        }

        @Override
        public void write(int b) throws IOException {
            if (count == buffer.length) {
                drain();
            }
            buffer[count++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (len >= buffer.length) {
                drain();
                target.write(b, off, len);
            } else {
                if (len > buffer.length - count) {
                    drain();
                }
                System.arraycopy(b, off, buffer, count, len);
                count += len;
            }
        }

        @Override
        public void flush() {
            // deliberately nothing: see the class comment
        }

        @Override
        public void close() {
            // the target belongs to its owner
        }

        void flushToTarget() throws IOException {
            drain();
            target.flush();
        }

        private void drain() throws IOException {
            if (count > 0) {
                target.write(buffer, 0, count);
                count = 0;
            }
        }
    }
}
