package org.subgraphexport.encode;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.TokenNames;
import org.subgraphexport.wire.Wire;

/**
 * Writes the {@code kryo} format (see {@link Wire}): the bytes Kryo 5's {@code Output} would write for it (its
 * var-ints and var-longs, big-endian fixed-width numbers where Kryo's own are little-endian), without the Kryo
 * library; for {@code kryo-lzf} an {@link AsyncBlockOutputStream} sits between the record buffer and the target,
 * compressing on its own thread.
 *
 * <p>A value outside typed arrays is its tag byte and its payload, inside one its payload alone. Token names are
 * written once per stream, after the reference that defines them, and referenced by stream index afterwards
 * ({@link #encodeToken}, {@link #defineToken}). The protocol checks, the buffer and its hand-over, and the token
 * dictionary are {@link ByteRecordWriter}'s.
 */
public final class KryoGraphWriter extends ByteRecordWriter {
    /** The compressor of a kryo-lzf stream; null for plain kryo. */
    private final AsyncBlockOutputStream lzf;

    private KryoGraphWriter(OutputStream sink, AsyncBlockOutputStream lzf) {
        super(sink);
        this.lzf = lzf;
    }

    /** A {@code kryo} writer over {@code target}. */
    public static KryoGraphWriter kryo(OutputStream target) {
        return new KryoGraphWriter(target, null);
    }

    /**
     * A {@code kryo-lzf} writer over {@code target}: full {@link Wire#LZF_CHUNK_LENGTH} chunks ({@link #finish}
     * writes the last), compressed on a thread of their own so that compression overlaps with reading the graph.
     */
    public static KryoGraphWriter kryoLzf(OutputStream target) {
        AsyncBlockOutputStream lzf = AsyncBlockOutputStream.lzf(target);
        return new KryoGraphWriter(lzf, lzf);
    }

    // ---- records ------------------------------------------------------------------------------------------

    @Override
    public void header(Header header, TokenNames tokens) throws IOException {
        beginHeader(tokens, header);
        WireBuffer o = out;
        o.require(5);
        o.put(Wire.MAGIC_0, Wire.MAGIC_1);                 // 'S' 'G'
        o.put(Wire.MAGIC_2, Wire.VERSION);                 // 'X', version
        o.put(Wire.HEADER);                                // record tag
        o.kryoString(header.database());                   // database
        o.kryoString(header.root());                       // root element id
        o.kryoString(header.nodeIdPrefix());               // node id prefix
        o.kryoString(header.relIdPrefix());                // relationship id prefix
        o.kryoString(header.state());                      // state read (version 2)
        o.require(2 * WireBuffer.MAX_VARINT + 1);          // the delta tag too
        o.varInt(header.partition());                      // partition
        o.varInt(header.partitions());                     // of partitions
        if (header.delta()) {
            o.put(Wire.DELTA);                             // delta record tag (delta streams only)
            o.kryoString(header.since());                  // the earlier state
        }
        endHeader();
    }

    @Override
    public void leftNode(long id) throws IOException {
        left("leftNode()", Wire.LEFT_NODE, id);
    }

    @Override
    public void leftRelationship(long id) throws IOException {
        left("leftRelationship()", Wire.LEFT_RELATIONSHIP, id);
    }

    private void left(String call, int tag, long id) throws IOException {
        beginLeftRecord(call);
        WireBuffer o = out;
        o.require(1 + WireBuffer.MAX_VARLONG);
        o.put(tag);                                        // record tag
        o.varLong(id);                                     // id
        endRecord();
    }

    @Override
    public void beginNode(long id, int[] labelIds, int labelCount) throws IOException {
        beginNodeRecord();
        WireBuffer o = out;
        o.require(1 + WireBuffer.MAX_VARLONG + WireBuffer.MAX_VARINT);
        o.put(Wire.NODE);                                  // record tag
        o.varLong(id);                                     // id
        o.varInt(labelCount);                              // label count
        for (int i = 0; i < labelCount; i++) {
            o.append(token(LABEL_TOKEN, labelIds[i]));     // label token references
        }
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
        o.require(1 + WireBuffer.MAX_VARLONG);
        o.put(Wire.RELATIONSHIP);                          // record tag
        o.varLong(id);                                     // id
        o.append(token(TYPE_TOKEN, type));                 // type token reference
        o.require(2 * WireBuffer.MAX_VARLONG);
        o.varLong(startNode);                              // start node id
        o.varLong(endNode);                                // end node id
    }

    @Override
    public void endRelationship() throws IOException {
        endProperties(RELATIONSHIP);
        endRecordWithProperties();
    }

    private void endRecordWithProperties() throws IOException {
        out.require(1);
        out.put(Wire.PROPERTIES_END);                      // end of properties
        endRecord();
    }

    @Override
    public void property(int key) throws IOException {
        propertySlot();
        byte[] ref = token(KEY_TOKEN, key);
        WireBuffer o = out;
        o.require(1 + ref.length);
        o.put(Wire.PROPERTY);                              // a property follows
        o.put(ref);                                        // key token reference
    }

    @Override
    public void columns(String[] names) throws IOException {
        checkColumns(names);
        WireBuffer o = out;
        o.require(1 + WireBuffer.MAX_VARINT);
        o.put(Wire.COLUMNS);                               // record tag
        o.varInt(names.length);                            // column count
        for (String name : names) {
            o.kryoString(name);                            // column names
        }
        endColumns(names.length);
    }

    @Override
    public void beginRow() throws IOException {
        beginRowSlot(out.pos);
        out.require(1);
        out.put(Wire.ROW);                                 // record tag; the values follow
    }

    @Override
    public void endRow() throws IOException {
        endRowSlot();
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
        o.require(2 + 3 * WireBuffer.MAX_VARLONG);
        o.put(Wire.END);                                   // record tag
        o.varLong(nodes);                                  // node count
        o.varLong(relationships);                          // relationship count
        o.put(truncated ? 1 : 0);                          // truncated flag
        if (columnCount >= 0) {
            o.varLong(rows);                               // row count (rows streams only)
        }
        o.kryoString(state);                               // state at the end (version 2)
        endClosingRecord();
    }

    @Override
    public void error(String code, String message) throws IOException {
        beginError();                                      // drops an unfinished record
        WireBuffer o = out;
        o.require(1);
        o.put(Wire.ERROR);                                 // record tag
        o.kryoString(code);                                // code
        o.kryoString(message == null ? "" : message);      // message
        endClosingRecord();
    }

    @Override
    void completeStream() throws IOException {
        if (lzf != null) {
            lzf.finish();  // compresses the last chunk, waits for the compressor, flushes the target; target stays open
        } else {
            super.completeStream();
        }
    }

    @Override
    void release() {
        if (lzf != null) {
            lzf.abort();
        }
    }

    // ---- values -------------------------------------------------------------------------------------------

    /**
     * Checks that a value of {@code kind} may come here, requires room for its tag and {@code payload} bytes, and
     * writes the tag unless the value is an element of a typed array.
     */
    private void tag(ArrayKind kind, int tag, int payload) {
        elementSlot(kind);
        WireBuffer o = out;
        o.require(1 + payload);
        if (array == null) {
            o.put(tag);                                    // value tag
        }
    }

    /** A value that is never an array element: checks it may come here, requires its room, writes its tag. */
    private void scalar(String inArray, int tag, int payload) {
        scalarSlot(inArray);
        out.require(1 + payload);
        out.put(tag);                                      // value tag
    }

    @Override
    public void writeBoolean(boolean value) throws IOException {
        tag(ArrayKind.BOOLEAN, Wire.T_BOOLEAN, 1);
        out.put(value ? 1 : 0);                            // 0 or 1
    }

    @Override
    public void writeByte(byte value) throws IOException {
        scalar("byte arrays are written with writeBytes", Wire.T_BYTE, 1);
        out.put(value);                                    // 1 byte
    }

    @Override
    public void writeShort(short value) throws IOException {
        tag(ArrayKind.SHORT, Wire.T_SHORT, 2);
        out.int16(value);                                  // 2 bytes big-endian
    }

    @Override
    public void writeInt(int value) throws IOException {
        tag(ArrayKind.INT, Wire.T_INT, WireBuffer.MAX_VARINT);
        out.zigZagInt(value);                              // zigzag varint
    }

    @Override
    public void writeLong(long value) throws IOException {
        tag(ArrayKind.LONG, Wire.T_LONG, WireBuffer.MAX_VARLONG);
        out.zigZagLong(value);                             // zigzag varlong
    }

    @Override
    public void writeFloat(float value) throws IOException {
        tag(ArrayKind.FLOAT, Wire.T_FLOAT, 4);
        out.int32(Float.floatToIntBits(value));            // 4 bytes IEEE 754, NaN canonical
    }

    @Override
    public void writeDouble(double value) throws IOException {
        tag(ArrayKind.DOUBLE, Wire.T_DOUBLE, 8);
        out.int64(Double.doubleToLongBits(value));         // 8 bytes IEEE 754, NaN canonical
    }

    @Override
    public void writeChar(char value) throws IOException {
        tag(ArrayKind.CHAR, Wire.T_CHAR, 2);
        out.int16(value);                                  // 2 bytes, UTF-16 code unit
    }

    @Override
    public void writeString(String value) throws IOException {
        tag(ArrayKind.STRING, Wire.T_STRING, 0);
        out.kryoString(value);                             // varint length, UTF-8
    }

    /** Well-formed UTF-8 (all ASCII, the usual case, included) is copied as it is; other content is decoded first. */
    @Override
    public void writeUtf8(byte[] utf8, int offset, int length) throws IOException {
        tag(ArrayKind.STRING, Wire.T_STRING, WireBuffer.MAX_VARINT);
        if (WireBuffer.wellFormedUtf8(utf8, offset, length)) {
            out.varInt(length);                            // varint length, the bytes as they are
            out.bytes(utf8, offset, length);
        } else {
            out.kryoString(new String(utf8, offset, length, StandardCharsets.UTF_8));  // malformed bytes replaced
        }
    }

    @Override
    public void writeBytes(byte[] value) throws IOException {
        scalar("writeBytes inside an array", Wire.T_BYTES, WireBuffer.MAX_VARINT);
        out.varInt(value.length);                          // length
        out.bytes(value, 0, value.length);                 // bytes
    }

    @Override
    public void writePoint(int srid, double[] coordinates) throws IOException {
        int dimension = coordinates.length;
        if (dimension != 2 && dimension != 3) {
            throw new IllegalArgumentException("a point has 2 or 3 coordinates, not " + dimension);
        }
        tag(ArrayKind.POINT, Wire.T_POINT, WireBuffer.MAX_VARINT + 1 + 3 * 8);
        WireBuffer o = out;
        o.varInt(srid);                                    // srid
        o.put(dimension);                                  // dimension
        for (double c : coordinates) {
            o.int64(Double.doubleToLongBits(c));           // coordinates
        }
    }

    @Override
    public void writeDuration(long months, long days, long seconds, int nanos) throws IOException {
        tag(ArrayKind.DURATION, Wire.T_DURATION, 3 * WireBuffer.MAX_VARLONG + WireBuffer.MAX_VARINT);
        WireBuffer o = out;
        o.zigZagLong(months);                              // zigzag months
        o.zigZagLong(days);                                // zigzag days
        o.zigZagLong(seconds);                             // zigzag seconds
        o.zigZagInt(nanos);                                // zigzag nanos
    }

    @Override
    public void writeDate(LocalDate value) throws IOException {
        tag(ArrayKind.DATE, Wire.T_DATE, WireBuffer.MAX_VARLONG);
        out.zigZagLong(value.toEpochDay());                // zigzag epoch day
    }

    @Override
    public void writeLocalTime(LocalTime value) throws IOException {
        tag(ArrayKind.LOCAL_TIME, Wire.T_LOCAL_TIME, WireBuffer.MAX_VARLONG);
        out.varLong(value.toNanoOfDay());                  // nano of day
    }

    @Override
    public void writeTime(OffsetTime value) throws IOException {
        tag(ArrayKind.TIME, Wire.T_TIME, WireBuffer.MAX_VARLONG + WireBuffer.MAX_VARINT);
        out.varLong(value.toLocalTime().toNanoOfDay());    // nano of day
        out.zigZagInt(value.getOffset().getTotalSeconds()); // zigzag offset seconds
    }

    @Override
    public void writeLocalDateTime(LocalDateTime value) throws IOException {
        tag(ArrayKind.LOCAL_DATE_TIME, Wire.T_LOCAL_DATE_TIME, WireBuffer.MAX_VARLONG + WireBuffer.MAX_VARINT);
        out.zigZagLong(value.toEpochSecond(ZoneOffset.UTC)); // zigzag epoch second
        out.varInt(value.getNano());                       // nano
    }

    @Override
    public void writeDateTime(ZonedDateTime value) throws IOException {
        tag(ArrayKind.DATE_TIME, Wire.T_DATE_TIME, WireBuffer.MAX_VARLONG + WireBuffer.MAX_VARINT);
        out.zigZagLong(value.toEpochSecond());             // zigzag epoch second
        out.varInt(value.getNano());                       // nano
        out.kryoString(value.getZone().getId());           // zone id
    }

    @Override
    public void writeUuid(long mostSignificantBits, long leastSignificantBits) throws IOException {
        tag(ArrayKind.UUID, Wire.T_UUID, 16);
        out.int64(mostSignificantBits);                    // 8 bytes
        out.int64(leastSignificantBits);                   // 8 bytes
    }

    @Override
    public void writeVector(VectorKind kind, Object values) throws IOException {
        int length = vectorLength(kind, values);
        int width = switch (kind) {
            case INT8 -> 1;
            case INT16 -> 2;
            case INT32, FLOAT32 -> 4;
            case INT64, FLOAT64 -> 8;
        };
        scalar("writeVector inside an array", Wire.T_VECTOR,
                (int) Math.min(Integer.MAX_VALUE - 16, 1 + WireBuffer.MAX_VARINT + (long) length * width));
        out.put(kind.ordinal());                           // kind
        out.varInt(length);                                // length
        vectorValues(kind, values);                        // 1, 2, 4 or 8 bytes each
    }

    @Override
    void vectorInteger(int index, long value, VectorKind kind) {
        switch (kind) {
            case INT8 -> out.put((int) value);
            case INT16 -> out.int16((int) value);
            case INT32 -> out.int32((int) value);
            default -> out.int64(value);
        }
    }

    @Override
    void vectorFloat(int index, float value) {
        out.int32(Float.floatToIntBits(value));
    }

    @Override
    void vectorDouble(int index, double value) {
        out.int64(Double.doubleToLongBits(value));
    }

    @Override
    public void beginArray(int size, ArrayKind kind) throws IOException {
        beginArraySlot(size, kind);
        WireBuffer o = out;
        o.require(2 + WireBuffer.MAX_VARINT);
        o.put(Wire.T_ARRAY, Wire.elementTag(kind));       // array tag, element tag
        o.varInt(size);                                    // length; the elements follow, untagged
    }

    @Override
    public void endArray() throws IOException {
        endArraySlot();
    }

    // ---- row values ---------------------------------------------------------------------------------------

    @Override
    public void writeNull() throws IOException {
        rowValueSlot("writeNull()");
        out.require(1);
        out.put(Wire.T_NULL);                              // value tag, no payload
    }

    @Override
    public void beginList(int size) throws IOException {
        containerSlot("beginList()", size);
        out.require(1 + WireBuffer.MAX_VARINT);
        out.put(Wire.T_LIST);                              // value tag
        out.varInt(size);                                  // size; the values follow, each tagged
        push(LIST, size, 0);
    }

    @Override
    public void endList() throws IOException {
        pop(LIST, "endList() without beginList()");
    }

    @Override
    public void beginMap(int size) throws IOException {
        containerSlot("beginMap()", size);
        out.require(1 + WireBuffer.MAX_VARINT);
        out.put(Wire.T_MAP);                               // value tag
        out.varInt(size);                                  // size; (key, tagged value) pairs follow
        push(MAP_KIND, size, 0);
    }

    @Override
    public void mapKey(String key) throws IOException {
        mapKeySlot();
        out.kryoString(key);                               // key
    }

    @Override
    public void endMap() throws IOException {
        pop(MAP_KIND, "endMap() without beginMap()");
    }

    @Override
    public void writeNodeRef(long id) throws IOException {
        rowValueSlot("writeNodeRef()");
        out.require(1 + WireBuffer.MAX_VARLONG);
        out.put(Wire.T_NODE_REF);                          // value tag
        out.varLong(id);                                   // node id
    }

    @Override
    public void writeRelationshipRef(long id) throws IOException {
        rowValueSlot("writeRelationshipRef()");
        out.require(1 + WireBuffer.MAX_VARLONG);
        out.put(Wire.T_RELATIONSHIP_REF);                  // value tag
        out.varLong(id);                                   // relationship id
    }

    @Override
    public void writePath(long[] nodeIds, long[] relationshipIds) throws IOException {
        WireText.checkPath(nodeIds, relationshipIds);
        rowValueSlot("writePath()");
        WireBuffer o = out;
        o.require((int) Math.min(Integer.MAX_VALUE - 16,
                1 + WireBuffer.MAX_VARINT + (long) WireBuffer.MAX_VARLONG * (nodeIds.length + relationshipIds.length)));
        o.put(Wire.T_PATH);                                // value tag
        o.varInt(nodeIds.length);                          // node count
        for (long id : nodeIds) {
            o.varLong(id);                                 // node ids
        }
        for (long id : relationshipIds) {
            o.varLong(id);                                 // relationship ids
        }
    }

    // ---- tokens -------------------------------------------------------------------------------------------

    /** A token's reference: its index in the stream's dictionary of its kind, a varint. */
    @Override
    byte[] encodeToken(int kind, int index, String name) {
        WireBuffer b = new WireBuffer(WireBuffer.MAX_VARINT);
        b.varInt(index);
        return b.toByteArray();
    }

    /** A new token: its reference (the dictionary's size so far), then its name. */
    @Override
    byte[] defineToken(byte[] ref, String name) {
        WireBuffer b = new WireBuffer(ref.length + WireBuffer.MAX_VARINT + name.length());
        b.put(ref);
        b.kryoString(name);
        return b.toByteArray();
    }
}
