package org.subgraphexport.encode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.subgraphexport.encode.ArrowColumn.Bool;
import org.subgraphexport.encode.ArrowColumn.Fixed;
import org.subgraphexport.encode.ArrowColumn.ListColumn;
import org.subgraphexport.encode.ArrowColumn.Struct;
import org.subgraphexport.encode.ArrowColumn.Variable;
import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.TokenNames;
import org.subgraphexport.wire.ValueSink;
import org.subgraphexport.wire.Wire;
import org.subgraphexport.wire.Wire.Arrow;

/**
 * Writes the {@code arrow} format: an Apache Arrow IPC stream (docs/wire-format.md section 7), written by hand for
 * this one layout. Nodes and relationships are rows of one table: {@code kind} (dictionary: node, relationship),
 * {@code id}, {@code labels} (list of dictionary-encoded strings), {@code type} (dictionary), {@code source},
 * {@code target}, one column per (record kind, property key) as {@code node.<key>} / {@code relationship.<key>},
 * and {@code extra_properties}.
 *
 * <p>Rows collect in the columns until a batch holds {@link Arrow#BATCH_ROWS} rows or about
 * {@link Arrow#BATCH_BYTES} bytes, then go out as one record batch (dictionary deltas first). The schema goes out
 * with the first batch: a property column exists for every key seen in it, typed by the first value of that key.
 * A value no column can hold exactly (its key first seen later, another type than its column's, a date or
 * timestamp beyond the Arrow type's range) goes, as the {@code json} format writes it, into the row's
 * {@code extra_properties} JSON object: nothing is dropped or changed. The closing record is an empty record
 * batch whose message metadata says {@code end} (with the counts) or {@code error} (code and message).
 *
 * <p>The protocol checks and the output buffer are {@link ByteRecordWriter}'s; a record is complete when its row
 * is; {@link #error} drops an unfinished row from the columns. Rows streams are refused: the layout has no rows.
 */
public final class ArrowGraphWriter extends ByteRecordWriter {
    // Message.fbs
    private static final int V5 = 4, SCHEMA = 1, DICTIONARY_BATCH = 2, RECORD_BATCH = 3;
    private static final long KIND_DICTIONARY = 0, LABEL_DICTIONARY = 1, TYPE_DICTIONARY = 2;
    // value codes: 0..15 the ArrayKind ordinals, then these; arrays and vectors offset by ARRAY, VECTOR
    private static final int BYTE = 16, BYTES = 17, ARRAY = 32, VECTOR = 64;
    private static final String[] SCALAR_NAMES = {
        "boolean", "short", "int", "long", "float", "double", "char", "string", "point", "date", "localtime",
        "time", "localdatetime", "datetime", "duration", "uuid", "byte", "bytes"
    };
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    /** A property column: the value code it holds, and the column. */
    private record PropertyColumn(int code, ArrowColumn column) {}

    private final Fixed kind = new Fixed(Arrow.KIND, null, 1, ArrowColumn.T_UTF8, new FlatBuffer.Table(), KIND_DICTIONARY);
    private final Fixed id = new Fixed(Arrow.ID, null, 8, ArrowColumn.T_INT, intType(64, true));
    private final ListColumn labels = new ListColumn(Arrow.LABELS, null,
            new Fixed("item", null, 4, ArrowColumn.T_UTF8, new FlatBuffer.Table(), LABEL_DICTIONARY));
    private final Fixed type = new Fixed(Arrow.TYPE, null, 4, ArrowColumn.T_UTF8, new FlatBuffer.Table(), TYPE_DICTIONARY);
    private final Fixed source = new Fixed(Arrow.SOURCE, null, 8, ArrowColumn.T_INT, intType(64, true));
    private final Fixed target = new Fixed(Arrow.TARGET, null, 8, ArrowColumn.T_INT, intType(64, true));
    private final Variable extra = new Variable(Arrow.EXTRA, null, true);
    /** Every column in schema order: the fixed ones, the property columns, extra last. */
    private final List<ArrowColumn> columns = new ArrayList<>(List.of(kind, id, labels, type, source, target, extra));
    /** Property columns by database key id, per record kind (index NODE - 1, RELATIONSHIP - 1). */
    private PropertyColumn[][] properties = {new PropertyColumn[64], new PropertyColumn[64]};
    private boolean schemaSent;
    private Header header;
    /** Dictionary values: labels and types in order of first appearance, and how many went out already. */
    private final List<String> labelNames = new ArrayList<>(), typeNames = new ArrayList<>();
    private int labelsSent, typesSent;
    /** Complete rows in the current batch. */
    private int batchRows;
    private final ArrowBatch batch = new ArrowBatch();
    /** The key of the property whose value is due or being written. */
    private int key;
    /** Inside a typed array: the list column and its element column, or both null when the array falls back. */
    private ListColumn arrayList;
    private ArrowColumn arrayElements;
    /** The element column of the vector being written. */
    private Fixed vectorElements;
    /** Elements of a date, local date-time or date-time array, held until the array ends: do they all fit? */
    private boolean staging;
    private final List<Object> staged = new ArrayList<>();
    /** Values that fall back are written by a json writer as one node record per row, cut out afterwards. */
    private JsonGraphWriter json;
    private final ByteArrayOutputStream jsonSpill = new ByteArrayOutputStream();
    private boolean fallbackOpen;

    /** Rows per batch: {@link Arrow#BATCH_ROWS}, fewer in tests. */
    private final int batchLimit;

    private ArrowGraphWriter(OutputStream sink, int batchLimit) {
        super(sink);
        this.batchLimit = batchLimit;
    }

    /** An {@code arrow} writer over {@code target}. */
    public static ArrowGraphWriter arrow(OutputStream target) {
        return new ArrowGraphWriter(target, Arrow.BATCH_ROWS);
    }

    /** An {@code arrow} writer whose batches close at {@code batchRows} rows (tests: several batches, small). */
    static ArrowGraphWriter arrow(OutputStream target, int batchRows) {
        return new ArrowGraphWriter(target, batchRows);
    }

    // ---- records ------------------------------------------------------------------------------------------

    @Override
    public void header(Header header, TokenNames tokens) throws IOException {
        beginHeader(tokens);
        this.header = header;
        json = JsonGraphWriter.json(jsonSpill);
        json.header(new Header("", "", "", ""), tokens);
        resetJson();
        endHeader();  // nothing written yet: the schema goes out with the first batch
    }

    @Override
    public void beginNode(long id, int[] labelIds, int labelCount) throws IOException {
        beginNodeRecord();
        kind.int8(0);
        this.id.int64(id);
        labels.begin();
        Fixed items = (Fixed) labels.child;
        for (int i = 0; i < labelCount; i++) {
            items.int32(index(token(LABEL_TOKEN, labelIds[i])));
        }
        labels.end();
    }

    @Override
    public void endNode() throws IOException {
        endProperties(NODE);
        rowComplete();
    }

    @Override
    public void beginRelationship(long id, int type, long startNode, long endNode) throws IOException {
        beginRelationshipRecord();
        kind.int8(1);
        this.id.int64(id);
        labels.appendNull();
        this.type.int32(index(token(TYPE_TOKEN, type)));
        source.int64(startNode);
        target.int64(endNode);
    }

    @Override
    public void endRelationship() throws IOException {
        endProperties(RELATIONSHIP);
        rowComplete();
    }

    @Override
    public void property(int key) throws IOException {
        propertySlot();
        this.key = key;
    }

    /** The record's row is complete: its fallback properties, nulls where it has no value; maybe a batch ends. */
    private void rowComplete() throws IOException {
        int row = batchRows;
        if (fallbackOpen) {
            json.endNode();
            fallbackOpen = false;
            byte[] record = json.out.pos > 0 ? json.out.buf : jsonSpill.toByteArray();
            int end = json.out.pos > 0 ? json.out.pos : record.length;
            int start = propertiesStart(record, end);
            extra.bytes(record, start, end - 1 - start);  // the properties object, without the record's '}'
            resetJson();
        }
        for (ArrowColumn c : columns) {
            if (c.length > row + 1) {
                throw new IllegalArgumentException("property key " + key + " twice in one record");
            }
        }
        batchRows = row + 1;
        labels.padTo(batchRows);
        type.padTo(batchRows);
        source.padTo(batchRows);
        target.padTo(batchRows);
        extra.padTo(batchRows);
        if (batchRows >= batchLimit || batchBytes() >= Arrow.BATCH_BYTES) {
            sendBatch();
        }
        endRecord();
    }

    private long batchBytes() {
        long n = 0;
        for (ArrowColumn c : columns) {
            n += c.bytes();
        }
        return n;
    }

    /** Refused: the layout has no rows (the Cypher endpoint answers mode=rows in arrow with 400). */
    @Override
    public void columns(String[] names) {
        checkColumns(names);
        throw new UnsupportedOperationException("the arrow format carries graphs, not rows");
    }

    @Override
    public void beginRow() {
        beginRowSlot(0);  // throws: there are no columns
    }

    @Override
    public void endRow() {
        endRowSlot();     // throws: there is no row
    }

    @Override
    public void end(long nodes, long relationships, boolean truncated) throws IOException {
        checkEnd();
        sendBatch();
        Map<String, String> end = new LinkedHashMap<>();
        end.put(Arrow.META_RECORD, Wire.Json.R_END);
        end.put(Arrow.META_NODES, Long.toString(nodes));
        end.put(Arrow.META_RELATIONSHIPS, Long.toString(relationships));
        end.put(Arrow.META_TRUNCATED, Boolean.toString(truncated));
        closingBatch(end);
        endClosingRecord();
    }

    @Override
    public void error(String code, String message) throws IOException {
        beginError();
        for (ArrowColumn c : columns) {  // drops the unfinished row
            c.truncate(Math.min(c.length, batchRows));
        }
        staging = false;
        if (fallbackOpen) {
            fallbackOpen = false;
            json = null;  // its record stays open; nothing more is written after an error
        }
        sendBatch();
        Map<String, String> error = new LinkedHashMap<>();
        error.put(Arrow.META_RECORD, Wire.Json.R_ERROR);
        error.put(Arrow.META_CODE, code);
        error.put(Arrow.META_MESSAGE, message == null ? "" : message);
        closingBatch(error);
        endClosingRecord();
    }

    @Override
    void endStream() {
        out.require(8);
        out.int32le(-1);   // end of stream: continuation marker, metadata length 0
        out.int32le(0);
    }

    // ---- batches ------------------------------------------------------------------------------------------

    /** The rows collected so far as one record batch (the schema and dictionaries first, as needed). */
    private void sendBatch() {
        if (!schemaSent) {
            schema();
            dictionary(KIND_DICTIONARY, List.of(Arrow.KIND_NODE, Arrow.KIND_RELATIONSHIP), false);
            dictionary(LABEL_DICTIONARY, labelNames.subList(0, labelNames.size()), false);
            dictionary(TYPE_DICTIONARY, typeNames.subList(0, typeNames.size()), false);
            labelsSent = labelNames.size();
            typesSent = typeNames.size();
            schemaSent = true;
        } else if (batchRows == 0) {
            return;
        }
        if (labelsSent < labelNames.size()) {
            dictionary(LABEL_DICTIONARY, labelNames.subList(labelsSent, labelNames.size()), true);
            labelsSent = labelNames.size();
        }
        if (typesSent < typeNames.size()) {
            dictionary(TYPE_DICTIONARY, typeNames.subList(typesSent, typeNames.size()), true);
            typesSent = typeNames.size();
        }
        batch.clear();
        for (ArrowColumn c : columns) {
            c.padTo(batchRows);
            c.emit(batch);
        }
        message(RECORD_BATCH, batch.header(batchRows), null);
        for (ArrowColumn c : columns) {
            c.reset();
        }
        batchRows = 0;
    }

    /** An empty record batch whose message metadata is the closing record. */
    private void closingBatch(Map<String, String> metadata) {
        batch.clear();
        for (ArrowColumn c : columns) {
            c.emit(batch);
        }
        message(RECORD_BATCH, batch.header(0), metadata);
    }

    /** A dictionary batch: {@code values} as a utf8 column, new or appended to the dictionary ({@code delta}). */
    private void dictionary(long dictionaryId, List<String> values, boolean delta) {
        Variable v = new Variable("", null, true);
        for (String s : values) {
            v.string(s);
        }
        batch.clear();
        v.emit(batch);
        FlatBuffer.Table dictionary = new FlatBuffer.Table()
                .int64(0, dictionaryId)                            // id
                .child(1, batch.header(values.size()))             // data: RecordBatch
                .bool(2, delta);                                   // isDelta
        message(DICTIONARY_BATCH, dictionary, null);
    }

    /** The schema message: every column's field, and the header as metadata. */
    private void schema() {
        Map<String, String> meta = new LinkedHashMap<>();
        meta.put(Arrow.META_VERSION, Integer.toString(Wire.VERSION));
        meta.put(Arrow.META_DATABASE, WireText.wellFormed(header.database()));
        meta.put(Arrow.META_ROOT, WireText.wellFormed(header.root()));
        meta.put(Arrow.META_NODE_ID_PREFIX, WireText.wellFormed(header.nodeIdPrefix()));
        meta.put(Arrow.META_REL_ID_PREFIX, WireText.wellFormed(header.relIdPrefix()));
        List<FlatBuffer.Table> fields = new ArrayList<>();
        for (ArrowColumn c : columns) {
            fields.add(field(c, c != kind && c != id));
        }
        FlatBuffer.Table schema = new FlatBuffer.Table()
                .int16(0, 0)                                       // endianness: little
                .child(1, fields)                                  // fields
                .child(2, keyValues(meta));                        // custom_metadata
        message(SCHEMA, schema, null);
    }

    private static FlatBuffer.Table field(ArrowColumn c, boolean nullable) {
        FlatBuffer.Table f = new FlatBuffer.Table()
                .child(0, c.name)                                  // name
                .bool(1, nullable)                                 // nullable
                .int8(2, c.typeId())                               // type_type
                .child(3, c.type());                               // type
        if (c.dictionaryId() >= 0) {
            f.child(4, new FlatBuffer.Table()                      // dictionary: DictionaryEncoding
                    .int64(0, c.dictionaryId())                    // id
                    .child(1, ((Fixed) c).indexType())             // indexType
                    .bool(2, false));                              // isOrdered
        }
        List<FlatBuffer.Table> children = new ArrayList<>();
        for (ArrowColumn child : c.children()) {
            children.add(field(child, true));
        }
        f.child(5, children);                                      // children
        if (c.metadata != null) {
            f.child(6, keyValues(c.metadata));                     // custom_metadata
        }
        return f;
    }

    private static List<FlatBuffer.Table> keyValues(Map<String, String> map) {
        List<FlatBuffer.Table> kv = new ArrayList<>();
        map.forEach((k, v) -> kv.add(new FlatBuffer.Table().child(0, k).child(1, v)));
        return kv;
    }

    /**
     * One IPC message into the output buffer: continuation marker, metadata length, the Message flatbuffer (padded
     * to 8), then the body of the batch last collected (none for a schema).
     */
    private void message(int headerType, FlatBuffer.Table header, Map<String, String> metadata) {
        long body = headerType == SCHEMA ? 0 : batch.bodyLength();
        FlatBuffer.Table message = new FlatBuffer.Table()
                .int16(0, V5)                                      // version
                .int8(1, headerType)                               // header_type
                .child(2, header)                                  // header
                .int64(3, body);                                   // bodyLength
        if (metadata != null) {
            message.child(4, keyValues(metadata));                 // custom_metadata
        }
        byte[] bytes = FlatBuffer.finish(message);
        WireBuffer o = out;
        o.require(8 + bytes.length);
        o.int32le(-1);                                             // continuation marker
        o.int32le(bytes.length);                                   // metadata length (a multiple of 8)
        o.put(bytes);
        if (headerType != SCHEMA) {
            batch.writeBody(o);
        }
    }

    // ---- tokens -------------------------------------------------------------------------------------------

    @Override
    byte[] encodeToken(int kind, int index, String name) {
        switch (kind) {
            case LABEL_TOKEN -> labelNames.add(name);
            case TYPE_TOKEN -> typeNames.add(name);
            default -> {
                return name.getBytes(StandardCharsets.UTF_8);   // a key: its name, for the column's
            }
        }
        return new byte[] {(byte) index, (byte) (index >>> 8), (byte) (index >>> 16), (byte) (index >>> 24)};
    }

    private static int index(byte[] ref) {
        return ref[0] & 0xFF | (ref[1] & 0xFF) << 8 | (ref[2] & 0xFF) << 16 | (ref[3] & 0xFF) << 24;
    }

    // ---- where a value goes -------------------------------------------------------------------------------

    /**
     * The column of the current property for values of {@code code}, holding this row's earlier rows; null if the
     * value falls back (no such column once the schema is out, or one of another type).
     */
    private ArrowColumn column(int code) {
        int record = inProperties - 1;
        PropertyColumn[] byKey = properties[record];
        if (key >= byKey.length) {
            byKey = properties[record] = Arrays.copyOf(byKey, Math.max(key + 1, 2 * byKey.length));
        }
        PropertyColumn p = byKey[key];
        if (p == null) {
            if (schemaSent) {
                return null;
            }
            String name = (record == 0 ? Arrow.NODE_PREFIX : Arrow.RELATIONSHIP_PREFIX)
                    + new String(token(KEY_TOKEN, key), StandardCharsets.UTF_8);
            p = byKey[key] = new PropertyColumn(code, newColumn(code, name));
            columns.add(columns.size() - 1, p.column);  // before extra
        } else if (p.code != code) {
            return null;
        }
        p.column.padTo(batchRows);
        return p.column;
    }

    /** Where a value of {@code kind} goes that may be an array element: the element column, or a property's. */
    private ArrowColumn element(ArrayKind kind) {
        elementSlot(kind);
        return array != null ? arrayElements : column(kind.ordinal());
    }

    /** Where a value that is never an array element goes. */
    private ArrowColumn scalar(int code, String inArray) {
        scalarSlot(inArray);
        return column(code);
    }

    /** The json writer, ready for the value of the current property (or the next element of a fallen-back array). */
    private ValueSink fallback() throws IOException {
        if (array == null) {
            openFallback();
            json.property(key);
        }
        return json;
    }

    private void openFallback() throws IOException {
        if (!fallbackOpen) {
            json.beginNode(0, new int[0], 0);
            fallbackOpen = true;
        }
    }

    private void resetJson() {
        json.out.pos = 0;
        json.committed = 0;
        jsonSpill.reset();
    }

    /** Where the properties object starts in a json node record: after {@code "properties":}. */
    private static int propertiesStart(byte[] record, int end) {
        byte[] marker = "\"properties\":".getBytes(StandardCharsets.US_ASCII);
        outer:
        for (int i = 0; i + marker.length <= end; i++) {
            for (int j = 0; j < marker.length; j++) {
                if (record[i + j] != marker[j]) {
                    continue outer;
                }
            }
            return i + marker.length;
        }
        throw new IllegalStateException("no properties in the json record");
    }

    // ---- columns of each value type -----------------------------------------------------------------------

    private static ArrowColumn newColumn(int code, String name) {
        String typeName = code >= VECTOR ? "vector(" + VectorKind.values()[code - VECTOR] + ")"
                : code >= ARRAY ? Wire.Json.arrayTag(ArrayKind.values()[code - ARRAY]) : SCALAR_NAMES[code];
        Map<String, String> meta = Map.of(Arrow.META_TYPE, typeName);
        if (code >= VECTOR) {
            int element = switch (VectorKind.values()[code - VECTOR]) {
                case INT8 -> BYTE;
                case INT16 -> ArrayKind.SHORT.ordinal();
                case INT32 -> ArrayKind.INT.ordinal();
                case INT64 -> ArrayKind.LONG.ordinal();
                case FLOAT32 -> ArrayKind.FLOAT.ordinal();
                case FLOAT64 -> ArrayKind.DOUBLE.ordinal();
            };
            return new ListColumn(name, meta, newScalar(element, "item", null));
        }
        if (code >= ARRAY) {
            return new ListColumn(name, meta, newScalar(code - ARRAY, "item", null));
        }
        return newScalar(code, name, meta);
    }

    private static ArrowColumn newScalar(int code, String name, Map<String, String> meta) {
        if (code == BYTE) {
            return new Fixed(name, meta, 1, ArrowColumn.T_INT, intType(8, true));
        }
        if (code == BYTES) {
            return new Variable(name, meta, false);
        }
        return switch (ArrayKind.values()[code]) {
            case BOOLEAN -> new Bool(name, meta);
            case SHORT -> new Fixed(name, meta, 2, ArrowColumn.T_INT, intType(16, true));
            case INT -> new Fixed(name, meta, 4, ArrowColumn.T_INT, intType(32, true));
            case LONG -> int64(name, meta);
            case FLOAT -> new Fixed(name, meta, 4, ArrowColumn.T_FLOAT, new FlatBuffer.Table().int16(0, 1));
            case DOUBLE -> new Fixed(name, meta, 8, ArrowColumn.T_FLOAT, new FlatBuffer.Table().int16(0, 2));
            case CHAR -> new Fixed(name, meta, 2, ArrowColumn.T_INT, intType(16, false));
            case STRING -> new Variable(name, meta, true);
            case POINT -> new Struct(name, meta, List.of(
                    new Fixed("srid", null, 4, ArrowColumn.T_INT, intType(32, true)),
                    float64("x"), float64("y"), float64("z")));
            case DATE -> new Fixed(name, meta, 4, ArrowColumn.T_DATE, new FlatBuffer.Table().int16(0, 0));
            case LOCAL_TIME -> time64(name, meta);
            case TIME -> new Struct(name, meta, List.of(
                    time64("time", null), new Fixed("offset_seconds", null, 4, ArrowColumn.T_INT, intType(32, true))));
            case LOCAL_DATE_TIME -> timestamp(name, meta, null);
            case DATE_TIME -> new Struct(name, meta, List.of(
                    timestamp("instant", null, "UTC"), new Variable("zone", null, true)));
            case DURATION -> new Struct(name, meta, List.of(int64("months", null), int64("days", null),
                    int64("seconds", null), new Fixed("nanoseconds", null, 4, ArrowColumn.T_INT, intType(32, true))));
            case UUID -> {
                Map<String, String> uuid = new LinkedHashMap<>();
                if (meta != null) {
                    uuid.putAll(meta);
                }
                uuid.put("ARROW:extension:name", "arrow.uuid");
                uuid.put("ARROW:extension:metadata", "");
                yield new Fixed(name, uuid, 16, ArrowColumn.T_FIXED_SIZE_BINARY, new FlatBuffer.Table().int32(0, 16));
            }
        };
    }

    private static FlatBuffer.Table intType(int bits, boolean signed) {
        return new FlatBuffer.Table().int32(0, bits).bool(1, signed);
    }

    private static Fixed int64(String name, Map<String, String> meta) {
        return new Fixed(name, meta, 8, ArrowColumn.T_INT, intType(64, true));
    }

    private static Fixed float64(String name) {
        return new Fixed(name, null, 8, ArrowColumn.T_FLOAT, new FlatBuffer.Table().int16(0, 2));
    }

    private static Fixed time64(String name, Map<String, String> meta) {
        return new Fixed(name, meta, 8, ArrowColumn.T_TIME, new FlatBuffer.Table().int16(0, 3).int32(1, 64));
    }

    private static Fixed timestamp(String name, Map<String, String> meta, String zone) {
        FlatBuffer.Table t = new FlatBuffer.Table().int16(0, 3);   // unit: nanosecond
        if (zone != null) {
            t.child(1, zone);                                       // timezone
        }
        return new Fixed(name, meta, 8, ArrowColumn.T_TIMESTAMP, t);
    }

    // ---- values -------------------------------------------------------------------------------------------

    @Override
    public void writeBoolean(boolean value) throws IOException {
        ArrowColumn c = element(ArrayKind.BOOLEAN);
        if (c != null) {
            ((Bool) c).bool(value);
        } else {
            fallback().writeBoolean(value);
        }
    }

    @Override
    public void writeByte(byte value) throws IOException {
        ArrowColumn c = scalar(BYTE, "writeByte inside an array (byte arrays are writeBytes)");
        if (c != null) {
            ((Fixed) c).int8(value);
        } else {
            fallback().writeByte(value);
        }
    }

    @Override
    public void writeShort(short value) throws IOException {
        ArrowColumn c = element(ArrayKind.SHORT);
        if (c != null) {
            ((Fixed) c).int16(value);
        } else {
            fallback().writeShort(value);
        }
    }

    @Override
    public void writeInt(int value) throws IOException {
        ArrowColumn c = element(ArrayKind.INT);
        if (c != null) {
            ((Fixed) c).int32(value);
        } else {
            fallback().writeInt(value);
        }
    }

    @Override
    public void writeLong(long value) throws IOException {
        ArrowColumn c = element(ArrayKind.LONG);
        if (c != null) {
            ((Fixed) c).int64(value);
        } else {
            fallback().writeLong(value);
        }
    }

    @Override
    public void writeFloat(float value) throws IOException {
        ArrowColumn c = element(ArrayKind.FLOAT);
        if (c != null) {
            ((Fixed) c).float32(value);
        } else {
            fallback().writeFloat(value);
        }
    }

    @Override
    public void writeDouble(double value) throws IOException {
        ArrowColumn c = element(ArrayKind.DOUBLE);
        if (c != null) {
            ((Fixed) c).float64(value);
        } else {
            fallback().writeDouble(value);
        }
    }

    @Override
    public void writeChar(char value) throws IOException {
        ArrowColumn c = element(ArrayKind.CHAR);
        if (c != null) {
            ((Fixed) c).int16(value);
        } else {
            fallback().writeChar(value);
        }
    }

    @Override
    public void writeString(String value) throws IOException {
        ArrowColumn c = element(ArrayKind.STRING);
        if (c != null) {
            ((Variable) c).string(value);
        } else {
            fallback().writeString(value);
        }
    }

    @Override
    public void writeUtf8(byte[] utf8, int offset, int length) throws IOException {
        if (!WireBuffer.wellFormedUtf8(utf8, offset, length)) {
            writeString(new String(utf8, offset, length, StandardCharsets.UTF_8));  // malformed bytes replaced
            return;
        }
        ArrowColumn c = element(ArrayKind.STRING);
        if (c != null) {
            ((Variable) c).bytes(utf8, offset, length);
        } else {
            fallback().writeUtf8(utf8, offset, length);
        }
    }

    @Override
    public void writeBytes(byte[] value) throws IOException {
        ArrowColumn c = scalar(BYTES, "writeBytes inside an array");
        if (c != null) {
            ((Variable) c).bytes(value, 0, value.length);
        } else {
            fallback().writeBytes(value);
        }
    }

    @Override
    public void writePoint(int srid, double[] coordinates) throws IOException {
        int dimension = coordinates.length;
        if (dimension != 2 && dimension != 3) {
            throw new IllegalArgumentException("a point has 2 or 3 coordinates, not " + dimension);
        }
        ArrowColumn c = element(ArrayKind.POINT);
        if (c == null) {
            fallback().writePoint(srid, coordinates);
            return;
        }
        Struct s = (Struct) c;
        s.begin();
        ((Fixed) s.child(0)).int32(srid);
        ((Fixed) s.child(1)).float64(coordinates[0]);
        ((Fixed) s.child(2)).float64(coordinates[1]);
        if (dimension == 3) {
            ((Fixed) s.child(3)).float64(coordinates[2]);
        } else {
            s.child(3).appendNull();
        }
    }

    @Override
    public void writeDuration(long months, long days, long seconds, int nanos) throws IOException {
        ArrowColumn c = element(ArrayKind.DURATION);
        if (c == null) {
            fallback().writeDuration(months, days, seconds, nanos);
            return;
        }
        Struct s = (Struct) c;
        s.begin();
        ((Fixed) s.child(0)).int64(months);
        ((Fixed) s.child(1)).int64(days);
        ((Fixed) s.child(2)).int64(seconds);
        ((Fixed) s.child(3)).int32(nanos);
    }

    @Override
    public void writeDate(LocalDate value) throws IOException {
        ArrowColumn c = element(ArrayKind.DATE);
        if (staging) {
            staged.add(value);
        } else if (c != null && fits(value)) {
            ((Fixed) c).int32((int) value.toEpochDay());
        } else {
            fallback().writeDate(value);
        }
    }

    @Override
    public void writeLocalTime(LocalTime value) throws IOException {
        ArrowColumn c = element(ArrayKind.LOCAL_TIME);
        if (c != null) {
            ((Fixed) c).int64(value.toNanoOfDay());
        } else {
            fallback().writeLocalTime(value);
        }
    }

    @Override
    public void writeTime(OffsetTime value) throws IOException {
        ArrowColumn c = element(ArrayKind.TIME);
        if (c == null) {
            fallback().writeTime(value);
            return;
        }
        Struct s = (Struct) c;
        s.begin();
        ((Fixed) s.child(0)).int64(value.toLocalTime().toNanoOfDay());
        ((Fixed) s.child(1)).int32(value.getOffset().getTotalSeconds());
    }

    @Override
    public void writeLocalDateTime(LocalDateTime value) throws IOException {
        ArrowColumn c = element(ArrayKind.LOCAL_DATE_TIME);
        if (staging) {
            staged.add(value);
        } else if (c != null && fits(value)) {
            ((Fixed) c).int64(nanos(value.toEpochSecond(ZoneOffset.UTC), value.getNano()));
        } else {
            fallback().writeLocalDateTime(value);
        }
    }

    @Override
    public void writeDateTime(ZonedDateTime value) throws IOException {
        ArrowColumn c = element(ArrayKind.DATE_TIME);
        if (staging) {
            staged.add(value);
        } else if (c != null && fits(value)) {
            dateTime((Struct) c, value);
        } else {
            fallback().writeDateTime(value);
        }
    }

    private static void dateTime(Struct s, ZonedDateTime value) {
        s.begin();
        ((Fixed) s.child(0)).int64(nanos(value.toEpochSecond(), value.getNano()));
        ((Variable) s.child(1)).string(value.getZone().getId());
    }

    @Override
    public void writeUuid(long mostSignificantBits, long leastSignificantBits) throws IOException {
        ArrowColumn c = element(ArrayKind.UUID);
        if (c != null) {
            ((Fixed) c).uuid(mostSignificantBits, leastSignificantBits);
        } else {
            fallback().writeUuid(mostSignificantBits, leastSignificantBits);
        }
    }

    @Override
    public void writeVector(VectorKind kind, Object values) throws IOException {
        ArrowColumn c = scalar(VECTOR + kind.ordinal(), "a vector inside an array");
        if (c == null) {
            fallback().writeVector(kind, values);
            return;
        }
        ListColumn l = (ListColumn) c;
        l.begin();
        vectorElements = (Fixed) l.child;
        vectorValues(kind, values);
        l.end();
    }

    @Override
    void vectorInteger(int index, long value, VectorKind kind) {
        switch (kind) {
            case INT8 -> vectorElements.int8((int) value);
            case INT16 -> vectorElements.int16((int) value);
            case INT32 -> vectorElements.int32((int) value);
            default -> vectorElements.int64(value);
        }
    }

    @Override
    void vectorFloat(int index, float value) {
        vectorElements.float32(value);
    }

    @Override
    void vectorDouble(int index, double value) {
        vectorElements.float64(value);
    }

    @Override
    public void beginArray(int size, ArrayKind kind) throws IOException {
        beginArraySlot(size, kind);
        ArrowColumn c = column(ARRAY + kind.ordinal());
        if (c == null) {
            openFallback();
            json.property(key);
            json.beginArray(size, kind);
            arrayList = null;
            arrayElements = null;
            return;
        }
        arrayList = (ListColumn) c;
        arrayElements = arrayList.child;
        if (kind == ArrayKind.DATE || kind == ArrayKind.LOCAL_DATE_TIME || kind == ArrayKind.DATE_TIME) {
            staging = true;
            staged.clear();
        } else {
            arrayList.begin();
        }
    }

    @Override
    public void endArray() throws IOException {
        ArrayKind kind = endArraySlot();
        if (arrayList == null) {
            json.endArray();
        } else if (staging) {
            staging = false;
            endStagedArray(kind);
        } else {
            arrayList.end();
        }
        arrayList = null;
        arrayElements = null;
    }

    /** A date or date-time array: into its column if every element fits the Arrow type, else all into fallback. */
    private void endStagedArray(ArrayKind kind) throws IOException {
        boolean fit = true;
        for (Object o : staged) {
            fit &= o instanceof LocalDate d ? fits(d) : o instanceof LocalDateTime t ? fits(t) : fits((ZonedDateTime) o);
        }
        if (fit) {
            arrayList.begin();
            for (Object o : staged) {
                if (o instanceof LocalDate d) {  // instanceof, not a pattern switch: the plugin is Java 17 bytecode
                    ((Fixed) arrayElements).int32((int) d.toEpochDay());
                } else if (o instanceof LocalDateTime t) {
                    ((Fixed) arrayElements).int64(nanos(t.toEpochSecond(ZoneOffset.UTC), t.getNano()));
                } else {
                    dateTime((Struct) arrayElements, (ZonedDateTime) o);
                }
            }
            arrayList.end();
            return;
        }
        openFallback();
        json.property(key);
        json.beginArray(staged.size(), kind);
        for (Object o : staged) {
            if (o instanceof LocalDate d) {
                json.writeDate(d);
            } else if (o instanceof LocalDateTime t) {
                json.writeLocalDateTime(t);
            } else {
                json.writeDateTime((ZonedDateTime) o);
            }
        }
        json.endArray();
    }

    private static boolean fits(LocalDate d) {
        long day = d.toEpochDay();
        return day == (int) day;
    }

    private static boolean fits(LocalDateTime t) {
        return fitsNanos(t.toEpochSecond(ZoneOffset.UTC), t.getNano());
    }

    private static boolean fits(ZonedDateTime t) {
        return fitsNanos(t.toEpochSecond(), t.getNano());
    }

    /** True if {@code second} and {@code nano} as nanoseconds since the epoch fit a long (years 1677 to 2262). */
    private static boolean fitsNanos(long second, int nano) {
        long high = Math.multiplyHigh(second, NANOS_PER_SECOND);
        long low = second * NANOS_PER_SECOND;
        if (high != (low >> 63)) {
            return false;
        }
        long sum = low + nano;
        return ((low ^ sum) & (nano ^ sum)) >= 0;
    }

    private static long nanos(long second, int nano) {
        return second * NANOS_PER_SECOND + nano;
    }

    // ---- row values: the arrow layout has no rows -----------------------------------------------------------

    @Override
    public void writeNull() {
        rowValueSlot("writeNull()");
    }

    @Override
    public void beginList(int size) {
        containerSlot("beginList()", size);
    }

    @Override
    public void endList() {
        pop(LIST, "endList() without beginList()");
    }

    @Override
    public void beginMap(int size) {
        containerSlot("beginMap()", size);
    }

    @Override
    public void mapKey(String key) {
        mapKeySlot();
    }

    @Override
    public void endMap() {
        pop(MAP_KIND, "endMap() without beginMap()");
    }

    @Override
    public void writeNodeRef(long id) {
        rowValueSlot("writeNodeRef()");
    }

    @Override
    public void writeRelationshipRef(long id) {
        rowValueSlot("writeRelationshipRef()");
    }

    @Override
    public void writePath(long[] nodeIds, long[] relationshipIds) {
        rowValueSlot("writePath()");
    }
}
