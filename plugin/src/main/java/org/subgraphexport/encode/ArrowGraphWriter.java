package org.subgraphexport.encode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.Array;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.subgraphexport.encode.ArrowColumn.Bool;
import org.subgraphexport.encode.ArrowColumn.DenseUnion;
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
 * this one layout. The stream has one column, {@code element}: a dense union with one struct child per
 * <em>group</em> of records, the nodes of one label set or the relationships of one type, each holding only its
 * own rows and only its own property columns. A node group has {@code id}, {@code labels} (list of
 * dictionary-encoded strings), its property columns and {@code extra_properties}; a relationship group has
 * {@code id}, {@code type} (dictionary), {@code source}, {@code target}, its property columns and
 * {@code extra_properties}.
 *
 * <p>Rows collect in the columns until a batch holds {@link Arrow#BATCH_ROWS} rows or about
 * {@link Arrow#BATCH_BYTES} bytes, then go out as one record batch (dictionary deltas first). The schema goes out
 * with the first batch: a group for every label set and type seen in it, then one catch-all group per record kind
 * ({@code node}, {@code relationship}) for those seen later; a property column for every (key, value type) a
 * group held in it. A value no column can hold exactly (no column of its type in its group, a date or timestamp
 * beyond the Arrow type's range) goes, as the {@code json} format writes it, into the row's
 * {@code extra_properties} JSON object: nothing is dropped or changed. The closing record is an empty record
 * batch whose message metadata says {@code end} (with the counts) or {@code error} (code and message).
 *
 * <p>The protocol checks and the output buffer are {@link ByteRecordWriter}'s; a record is complete when its row
 * is; {@link #error} drops an unfinished row from the columns. Rows streams are refused: the layout has no rows.
 */
public final class ArrowGraphWriter extends ByteRecordWriter {
    // Message.fbs
    private static final int V5 = 4, SCHEMA = 1, DICTIONARY_BATCH = 2, RECORD_BATCH = 3;
    private static final long LABEL_DICTIONARY = 0, TYPE_DICTIONARY = 1;
    // value codes: 0..15 the ArrayKind ordinals, then these; arrays and vectors offset by ARRAY, VECTOR
    private static final int BYTE = 16, BYTES = 17, ARRAY = 32, VECTOR = 64;
    private static final String[] SCALAR_NAMES = {
        "boolean", "short", "int", "long", "float", "double", "char", "string", "point", "date", "localtime",
        "time", "localdatetime", "datetime", "duration", "uuid", "byte", "bytes"
    };
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    /** The batch's size is summed every this many rows, or once the variable-length values since exceed
     *  {@link #CHECK_BYTES}: a batch overshoots {@link Arrow#BATCH_BYTES} by less than that. */
    private static final int CHECK_ROWS = 256, CHECK_BYTES = 256 << 10;
    /** Union type ids are below 128: groups beyond this many (the catch-alls included) use the catch-alls. */
    private static final int MAX_GROUPS = 127;
    /** Record kinds of a delta stream's two groups of ids that left (children 2 and 3 of the union). */
    private static final int LEFT_NODE = 3, LEFT_RELATIONSHIP = 4;

    /** A property column: the key and value code it holds, and the column. */
    private record PropertyColumn(int key, int code, ArrowColumn column) {}

    /** The rows of one label set or one relationship type (or a catch-all): a struct child of the union. */
    private static final class Group {
        final int record;
        /** Its type id in the union: its position. */
        final int child;
        final Struct struct;
        final Fixed id;
        final ListColumn labels;
        final Fixed type, source, target;
        final Variable extra;
        /** Property columns by database key id: those of each value type the key has in this group. */
        PropertyColumn[][] byKey = new PropertyColumn[16][];

        Group(int record, String name, int child) {
            this.record = record;
            this.child = child;
            id = int64(Arrow.ID, null);
            List<ArrowColumn> columns = new ArrayList<>();
            columns.add(id);
            if (record == LEFT_NODE || record == LEFT_RELATIONSHIP) {  // a delta stream's ids that left: id only
                labels = null;
                type = source = target = null;
                extra = null;
                struct = new Struct(name, Map.of(Arrow.META_KIND,
                        record == LEFT_NODE ? Arrow.LEFT_NODE : Arrow.LEFT_RELATIONSHIP), columns);
                return;
            }
            extra = new Variable(Arrow.EXTRA, null, true);
            if (record == NODE) {
                labels = new ListColumn(Arrow.LABELS, null,
                        new Fixed("item", null, 4, ArrowColumn.T_UTF8, new FlatBuffer.Table(), LABEL_DICTIONARY));
                columns.add(labels);
                type = source = target = null;
            } else {
                labels = null;
                type = new Fixed(Arrow.TYPE, null, 4, ArrowColumn.T_UTF8, new FlatBuffer.Table(), TYPE_DICTIONARY);
                source = int64(Arrow.SOURCE, null);
                target = int64(Arrow.TARGET, null);
                columns.addAll(List.of(type, source, target));
            }
            columns.add(extra);
            struct = new Struct(name, Map.of(Arrow.META_KIND, record == NODE ? Arrow.NODE : Arrow.RELATIONSHIP),
                    columns);
        }

        PropertyColumn find(int key, int code) {
            PropertyColumn[] columns = key < byKey.length ? byKey[key] : null;
            if (columns != null) {
                for (PropertyColumn p : columns) {
                    if (p.code == code) {
                        return p;
                    }
                }
            }
            return null;
        }

        PropertyColumn add(int key, int code, ArrowColumn column) {
            if (key >= byKey.length) {
                byKey = Arrays.copyOf(byKey, Math.max(key + 1, 2 * byKey.length));
            }
            PropertyColumn[] columns = byKey[key] == null ? new PropertyColumn[1] : Arrays.copyOf(byKey[key],
                    byKey[key].length + 1);
            PropertyColumn p = columns[columns.length - 1] = new PropertyColumn(key, code, column);
            byKey[key] = columns;
            struct.children.add(struct.children.size() - 1, column);  // before extra
            column.padTo(struct.length - 1);
            return p;
        }

        /** Rows of this group in the batch (the current one included while it is written). */
        int rows() {
            return struct.length;
        }
    }

    /** The names of the property columns of one record kind, across its groups, by (key, value code). */
    private static final class ColumnNames {
        final Map<Long, String> byKeyAndCode = new LinkedHashMap<>();
        final Set<String> taken = new HashSet<>();

        ColumnNames(String... fixed) {
            taken.addAll(List.of(fixed));
        }
    }

    private final List<Struct> groupStructs = new ArrayList<>();
    private final List<Group> groups = new ArrayList<>();
    private final DenseUnion element = new DenseUnion(Arrow.ELEMENT, null, groupStructs);
    /** Groups of nodes by label set, of relationships by type id; the catch-alls once the schema is out. */
    private final Map<LabelSet, Group> nodeGroups = new HashMap<>();
    private Group[] typeGroups = new Group[16];
    /** The catch-all groups, children 0 and 1: label sets and types first seen after the schema went out. */
    private final Group otherNodes = newGroup(NODE, Arrow.NODE), otherRelationships = newGroup(RELATIONSHIP,
            Arrow.RELATIONSHIP);
    private final ColumnNames[] names = {
        new ColumnNames(Arrow.ID, Arrow.LABELS, Arrow.EXTRA, Arrow.ELEMENT_ID),
        new ColumnNames(Arrow.ID, Arrow.TYPE, Arrow.SOURCE, Arrow.TARGET, Arrow.EXTRA, Arrow.ELEMENT_ID,
                Arrow.SOURCE_ELEMENT_ID, Arrow.TARGET_ELEMENT_ID)
    };
    /** The group of the record being written; the last node group and its label set, for the next node. */
    private Group current, lastNodeGroup;
    /** A delta stream's groups of ids that left; null otherwise. */
    private Group leftNodes, leftRelationships;
    /** The groups of nodes with exactly one label, by its dictionary index: most nodes, found without hashing. */
    private Group[] singleLabelGroups = new Group[16];
    private final LabelSet probe = new LabelSet(new int[8], 0);
    /** The labels of the node being begun, as dictionary indexes. */
    private int[] labels = new int[8];
    private boolean rowOpen;
    private boolean schemaSent;
    private Header header;
    /** Dictionary values: labels and types in order of first appearance, and how many went out already. */
    private final List<String> labelNames = new ArrayList<>(), typeNames = new ArrayList<>();
    private int labelsSent, typesSent;
    /** Complete rows in the current batch; bytes of variable-length values since its size was last summed. */
    private int batchRows;
    private long unchecked;
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
        beginHeader(tokens, header);
        this.header = header;
        if (header.delta()) {  // declared in every delta stream's schema, right after the catch-alls
            leftNodes = newGroup(LEFT_NODE, "left:" + Arrow.NODE);
            leftRelationships = newGroup(LEFT_RELATIONSHIP, "left:" + Arrow.RELATIONSHIP);
        }
        json = JsonGraphWriter.json(jsonSpill);
        json.header(new Header("", "", "", ""), tokens);
        resetJson();
        endHeader();  // nothing written yet: the schema goes out with the first batch
    }

    @Override
    public void beginNode(long id, int[] labelIds, int labelCount) throws IOException {
        beginNodeRecord();
        if (labels.length < labelCount) {
            labels = new int[labelCount];
        }
        for (int i = 0; i < labelCount; i++) {
            labels[i] = index(token(LABEL_TOKEN, labelIds[i]));
        }
        Group g = startRow(nodeGroup(labels, labelCount));
        g.id.int64(id);
        g.labels.begin();
        Fixed items = (Fixed) g.labels.child;
        for (int i = 0; i < labelCount; i++) {
            items.int32(labels[i]);
        }
        g.labels.end();
    }

    @Override
    public void endNode() throws IOException {
        endProperties(NODE);
        rowComplete();
    }

    @Override
    public void beginRelationship(long id, int type, long startNode, long endNode) throws IOException {
        beginRelationshipRecord();
        Group g = startRow(relationshipGroup(index(token(TYPE_TOKEN, type))));
        g.id.int64(id);
        g.type.int32(index(token(TYPE_TOKEN, type)));
        g.source.int64(startNode);
        g.target.int64(endNode);
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

    @Override
    public void leftNode(long id) throws IOException {
        beginLeftRecord("leftNode()");
        startRow(leftNodes).id.int64(id);
        rowComplete();
    }

    @Override
    public void leftRelationship(long id) throws IOException {
        beginLeftRecord("leftRelationship()");
        startRow(leftRelationships).id.int64(id);
        rowComplete();
    }

    /** A row of {@code g} begins: the union's entry, the struct's. */
    private Group startRow(Group g) {
        element.row(g.child, g.rows());
        g.struct.begin();
        current = g;
        rowOpen = true;
        return g;
    }

    /** The record's row is complete: its fallback properties, nulls where it has no value; maybe a batch ends. */
    private void rowComplete() throws IOException {
        Group g = current;
        if (fallbackOpen) {
            json.endNode();
            fallbackOpen = false;
            byte[] record = json.out.pos > 0 ? json.out.buf : jsonSpill.toByteArray();
            int end = json.out.pos > 0 ? json.out.pos : record.length;
            int start = propertiesStart(record, end);
            g.extra.bytes(record, start, end - 1 - start);  // the properties object, without the record's '}'
            unchecked += end - start;
            resetJson();
        }
        if (g.extra != null) {
            g.extra.padTo(g.rows());
        }
        rowOpen = false;
        batchRows++;
        if (batchRows >= batchLimit
                || ((batchRows % CHECK_ROWS == 0 || unchecked >= CHECK_BYTES) && batchBytes() >= Arrow.BATCH_BYTES)) {
            sendBatch();
        }
        endRecord();
    }

    private long batchBytes() {
        unchecked = 0;
        return element.bytes() + groupStructs.stream().mapToLong(ArrowColumn::bytes).sum();
    }

    // ---- groups -------------------------------------------------------------------------------------------

    /** Label sets as map keys; {@link #probe} looks up without allocating. */
    private static final class LabelSet {
        int[] labels;
        int count;

        LabelSet(int[] labels, int count) {
            this.labels = labels;
            this.count = count;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof LabelSet l && Arrays.equals(labels, 0, count, l.labels, 0, l.count);
        }

        @Override
        public int hashCode() {
            int h = 1;
            for (int i = 0; i < count; i++) {
                h = 31 * h + labels[i];
            }
            return h;
        }
    }

    /**
     * The group of nodes with the first {@code count} of these labels (dictionary indexes): found, new before the
     * schema, else the catch-all.
     */
    private Group nodeGroup(int[] labels, int count) {
        if (count == 1 && labels[0] < singleLabelGroups.length && singleLabelGroups[labels[0]] != null) {
            return singleLabelGroups[labels[0]];
        }
        if (lastNodeGroup != null && Arrays.equals(probe.labels, 0, probe.count, labels, 0, count)) {
            return lastNodeGroup;
        }
        if (probe.labels.length < count) {
            probe.labels = new int[count];
        }
        System.arraycopy(labels, 0, probe.labels, 0, count);
        probe.count = count;
        Group g = nodeGroups.get(probe);
        if (g == null) {
            if (schemaSent || groups.size() == MAX_GROUPS) {
                g = otherNodes;
            } else {
                StringBuilder name = new StringBuilder(Arrow.NODE);
                for (int i = 0; i < count; i++) {
                    name.append(':').append(labelNames.get(labels[i]));
                }
                g = newGroup(NODE, name.toString());
                nodeGroups.put(new LabelSet(Arrays.copyOf(labels, count), count), g);
            }
        }
        lastNodeGroup = g;
        if (count == 1) {
            if (labels[0] >= singleLabelGroups.length) {
                singleLabelGroups = Arrays.copyOf(singleLabelGroups,
                        Math.max(labels[0] + 1, 2 * singleLabelGroups.length));
            }
            singleLabelGroups[labels[0]] = g;
        }
        return g;
    }

    /** The group of relationships of this type (dictionary index): as {@link #nodeGroup}. */
    private Group relationshipGroup(int type) {
        if (type >= typeGroups.length) {
            typeGroups = Arrays.copyOf(typeGroups, Math.max(type + 1, 2 * typeGroups.length));
        }
        Group g = typeGroups[type];
        if (g == null) {
            if (schemaSent || groups.size() == MAX_GROUPS) {
                return otherRelationships;
            }
            g = typeGroups[type] = newGroup(RELATIONSHIP, Arrow.RELATIONSHIP + ":" + typeNames.get(type));
        }
        return g;
    }

    private Group newGroup(int record, String name) {
        Group g = new Group(record, name, groups.size());
        groups.add(g);
        groupStructs.add(g.struct);
        return g;
    }

    /** As the schema goes out: the catch-all groups get a column for every (key, type) of their record kind. */
    private void completeCatchAlls() {
        for (Group g : List.of(otherNodes, otherRelationships)) {
            names[g.record - 1].byKeyAndCode.forEach((keyAndCode, name) -> {
                int key = (int) (keyAndCode >>> 8);
                int code = (int) (keyAndCode & 0xFF);
                if (g.find(key, code) == null) {
                    g.add(key, code, newColumn(code, name, keyName(key)));
                }
            });
        }
    }

    // ---- rows streams: refused ----------------------------------------------------------------------------

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
        end(nodes, relationships, truncated, "");
    }

    @Override
    public void end(long nodes, long relationships, boolean truncated, String state) throws IOException {
        checkEnd();
        if (rowOpen) {  // the other formats see the open record in their output buffer; arrow's is in the columns
            throw new IllegalStateException("end() inside a record");
        }
        sendBatch();
        Map<String, String> end = new LinkedHashMap<>();
        end.put(Arrow.META_RECORD, Wire.Json.R_END);
        end.put(Arrow.META_NODES, Long.toString(nodes));
        end.put(Arrow.META_RELATIONSHIPS, Long.toString(relationships));
        end.put(Arrow.META_TRUNCATED, Boolean.toString(truncated));
        end.put(Arrow.META_STATE, WireText.wellFormed(state));
        closingBatch(end);
        endClosingRecord();
    }

    @Override
    public void error(String code, String message) throws IOException {
        beginError();
        if (rowOpen) {  // drops the unfinished row
            current.struct.truncate(current.rows() - 1);
            element.truncate(batchRows);
            rowOpen = false;
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
            completeCatchAlls();
            schema();
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
        for (Struct s : groupStructs) {
            for (ArrowColumn c : s.children) {
                c.padTo(s.length);
            }
        }
        element.emit(batch);
        message(RECORD_BATCH, batch.header(batchRows), null);
        element.reset();
        batchRows = 0;
        unchecked = 0;
    }

    /** An empty record batch whose message metadata is the closing record. */
    private void closingBatch(Map<String, String> metadata) {
        batch.clear();
        element.emit(batch);
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

    /** The schema message: the union's field with every group's, and the header as metadata. */
    private void schema() {
        Map<String, String> meta = new LinkedHashMap<>();
        meta.put(Arrow.META_VERSION, Integer.toString(Wire.VERSION));
        meta.put(Arrow.META_DATABASE, WireText.wellFormed(header.database()));
        meta.put(Arrow.META_ROOT, WireText.wellFormed(header.root()));
        meta.put(Arrow.META_NODE_ID_PREFIX, WireText.wellFormed(header.nodeIdPrefix()));
        meta.put(Arrow.META_REL_ID_PREFIX, WireText.wellFormed(header.relIdPrefix()));
        meta.put(Arrow.META_STATE, WireText.wellFormed(header.state()));
        meta.put(Arrow.META_PARTITION, Integer.toString(header.partition()));
        meta.put(Arrow.META_PARTITIONS, Integer.toString(header.partitions()));
        if (header.delta()) {
            meta.put(Arrow.META_SINCE, WireText.wellFormed(header.since()));
        }
        FlatBuffer.Table schema = new FlatBuffer.Table()
                .int16(0, 0)                                       // endianness: little
                .child(1, List.of(field(element, false)))          // fields
                .child(2, keyValues(meta));                        // custom_metadata
        message(SCHEMA, schema, null);
    }

    /** A column's field; never null: the union, the groups, their ids, labels, types and ends. */
    private FlatBuffer.Table field(ArrowColumn c, boolean nullable) {
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
            children.add(field(child, c instanceof Struct && !required(child)));
        }
        f.child(5, children);                                      // children
        if (c.metadata != null) {
            f.child(6, keyValues(c.metadata));                     // custom_metadata
        }
        return f;
    }

    private boolean required(ArrowColumn c) {
        for (Group g : groups) {
            if (c == g.struct || c == g.id || c == g.labels || c == g.type || c == g.source || c == g.target) {
                return true;
            }
        }
        return false;
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

    private String keyName(int key) {
        return new String(token(KEY_TOKEN, key), StandardCharsets.UTF_8);
    }

    // ---- where a value goes -------------------------------------------------------------------------------

    /**
     * The column of the current property for values of {@code code} in the current group, holding the group's
     * earlier rows; null if the value falls back (no such column once the schema is out).
     */
    private ArrowColumn column(int code) {
        Group g = current;
        PropertyColumn p = g.find(key, code);
        if (p == null) {
            if (schemaSent) {
                return null;
            }
            p = g.add(key, code, newColumn(code, columnName(g.record, key, code), keyName(key)));
        }
        int row = g.rows() - 1;
        if (p.column.length > row) {
            throw new IllegalArgumentException("property key " + key + " twice in one record");
        }
        p.column.padTo(row);
        return p.column;
    }

    /**
     * The name of the column of {@code key} with values of {@code code} in every group of {@code record}'s kind:
     * the key for its first type, unless a fixed or a derived element id column has that name; {@code key:type} for
     * the others.
     */
    private String columnName(int record, int key, int code) {
        ColumnNames kind = names[record - 1];
        long keyAndCode = (long) key << 8 | code;
        String name = kind.byKeyAndCode.get(keyAndCode);
        if (name == null) {
            String base = keyName(key);
            name = kind.taken.contains(base) ? base + ":" + typeName(code) : base;
            for (int n = 2; kind.taken.contains(name); n++) {
                name = base + ":" + typeName(code) + ":" + n;
            }
            kind.taken.add(name);
            kind.byKeyAndCode.put(keyAndCode, name);
        }
        return name;
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

    /** The wire type's name of values of {@code code}: {@code long}, {@code int[]}, {@code vector(FLOAT32)}. */
    private static String typeName(int code) {
        return code >= VECTOR ? "vector(" + VectorKind.values()[code - VECTOR] + ")"
                : code >= ARRAY ? Wire.Json.arrayTag(ArrayKind.values()[code - ARRAY]) : SCALAR_NAMES[code];
    }

    /** A property column for values of {@code code}, named {@code name}, of the property key {@code key}. */
    private static ArrowColumn newColumn(int code, String name, String key) {
        Map<String, String> meta = new LinkedHashMap<>();
        meta.put(Arrow.META_KEY, key);
        meta.put(Arrow.META_TYPE, typeName(code));
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
        unchecked += value.length();
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
        unchecked += length;
        if (c != null) {
            ((Variable) c).bytes(utf8, offset, length);
        } else {
            fallback().writeUtf8(utf8, offset, length);
        }
    }

    @Override
    public void writeBytes(byte[] value) throws IOException {
        ArrowColumn c = scalar(BYTES, "writeBytes inside an array");
        unchecked += value.length;
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
        unchecked += 8L * Array.getLength(values);
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
        unchecked += 8L * size;
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

    /**
     * True if {@code second} and {@code nano} as nanoseconds since the epoch fit a long (years 1677 to 2262), except
     * {@link Long#MIN_VALUE}, which pandas reads as NaT. Summed from the side that cannot overflow before the sum
     * does: {@code second * 10^9 + nano} from a second at or after the epoch, {@code (second + 1) * 10^9 +
     * (nano - 10^9)} from one before it (the product alone overflowed in the range's first second).
     */
    private static boolean fitsNanos(long second, int nano) {
        boolean before = second < 0 && nano > 0;
        long s = before ? second + 1 : second;
        long n = before ? nano - NANOS_PER_SECOND : nano;
        long high = Math.multiplyHigh(s, NANOS_PER_SECOND);
        long low = s * NANOS_PER_SECOND;
        if (high != (low >> 63)) {
            return false;
        }
        long sum = low + n;
        return ((low ^ sum) & (n ^ sum)) >= 0 && sum != Long.MIN_VALUE;
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
