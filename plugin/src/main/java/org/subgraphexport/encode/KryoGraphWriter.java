package org.subgraphexport.encode;

import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.TokenNames;
import org.subgraphexport.wire.ValueSink;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Wire;

import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.util.Pool;
import com.ning.compress.lzf.LZFChunk;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.io.OutputStream;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Arrays;

/**
 * Writes the {@code kryo} format (see {@link Wire}) through one pooled Kryo {@link WireOutput}: Kryo's var-ints
 * and bytes, and big-endian fixed-width numbers (Kryo 5's own are little-endian); for {@code kryo-lzf} an
 * {@link AsyncLzfOutputStream} sits between that buffer and the target, compressing on its own thread.
 *
 * <p>The buffer has no output stream: it grows rather than flush in the middle of a record, and the writer hands
 * it to the target (write, flush) at the end of a record once it holds {@link Wire#KRYO_BUFFER} bytes or more. So
 * the target never sees part of a record, and {@link #error} can rewind the buffer to the end of the last complete
 * record and write the error record there. The cost: the record being written, and up to 64 KiB before it, are
 * in memory (a buffer of 128 KiB, grown for a larger record and trimmed when it goes back to the pool).
 *
 * <p>The per-element path does not allocate: ids, counts and numbers are var-ints written into the buffer,
 * strings are encoded in place, token names are written once per stream and referenced by index afterwards
 * (database token id to stream index through a growable {@code int[]}, no boxing). Per record it adds one
 * comparison and one store (the end-of-record bookkeeping) to what Kryo's own flushing check cost.
 */
public final class KryoGraphWriter implements GraphWriter {
    private static final Pool<WireOutput> OUTPUTS = new Pool<>(true, true, 16) {
        @Override
        protected WireOutput create() {
            return new WireOutput(INITIAL_BUFFER, -1);
        }
    };

    /** Room for a full hand-over threshold plus a record of up to 64 KiB without growing. */
    private static final int INITIAL_BUFFER = 2 * Wire.KRYO_BUFFER;
    /** A buffer that grew beyond this for a large record is replaced before it goes back to the pool. */
    private static final int POOLED_MAX = 4 * Wire.KRYO_BUFFER;

    /** {@link #arrayTag} inside a list, map or row (no typed array open): values are tagged and counted. */
    private static final int IN_CONTAINER = -1;
    // kinds of open containers
    private static final int ROW = 1, LIST = 2, MAP = 3;

    private final OutputStream target;
    private final AsyncLzfOutputStream lzf;  // null for plain kryo
    private final OutputStream sink;    // lzf or target: where the buffer goes
    private WireOutput out;
    private TokenNames tokens;
    /** Database token id to stream index + 1; 0 = not yet written. */
    private int[] labels = new int[64], types = new int[16], keys = new int[64];
    private int labelCount, typeCount, keyCount;
    /** Element tag of the open typed array; {@link #IN_CONTAINER} in a list, map or row; 0 otherwise. */
    private int arrayTag;
    private int arrayRemaining;

    /** Buffer position at the end of the last complete record: where {@link #error} rewinds to. */
    private int committed;
    /** Bytes handed to the sink so far. */
    private long drained;
    /** Stream offset right after the header record, -1 before it. */
    private long headerEnd = -1;
    /** True once the closing record is written. */
    private boolean closed;
    /** Number of columns of a rows stream; -1 for a graph stream. */
    private int columnCount = -1;
    private long rows;
    /** Open row, lists and maps, innermost last: their kinds and the values (map: keys + values) still due. */
    private int depth;
    private int[] containerKinds = new int[8];
    private int[] containerRemaining = new int[8];

    private KryoGraphWriter(OutputStream target, AsyncLzfOutputStream lzf) {
        this.target = target;
        this.lzf = lzf;
        this.sink = lzf != null ? lzf : target;
        this.out = OUTPUTS.obtain();  // reset by the pool
    }

    /** A {@code kryo} writer over {@code target}. */
    public static KryoGraphWriter kryo(OutputStream target) {
        return new KryoGraphWriter(target, null);
    }

    /**
     * A {@code kryo-lzf} writer over {@code target}: full {@link LZFChunk#MAX_CHUNK_LEN} chunks (a flush does not
     * cut one; {@link #finish} writes the last), compressed on a thread of their own so that compression
     * overlaps with reading the graph.
     */
    public static KryoGraphWriter kryoLzf(OutputStream target) {
        return new KryoGraphWriter(target, new AsyncLzfOutputStream(target));
    }

    @Override
    public void header(Header header, TokenNames tokens) throws IOException {
        if (headerEnd >= 0) {
            throw new IllegalStateException("header() twice");
        }
        this.tokens = tokens;
        try {
            out.writeByte(Wire.MAGIC_0);                       // 'S'
            out.writeByte(Wire.MAGIC_1);                       // 'G'
            out.writeByte(Wire.MAGIC_2);                       // 'X'
            out.writeByte(Wire.VERSION);                       // version
            out.writeByte(Wire.HEADER);                        // record tag
            out.writeWireString(header.database());            // database
            out.writeWireString(header.root());                // root element id
            out.writeWireString(header.nodeIdPrefix());        // node id prefix
            out.writeWireString(header.relIdPrefix());         // relationship id prefix
        } catch (KryoException e) {
            throw io(e);
        }
        endRecord();
        headerEnd = drained + out.position();
    }

    @Override
    public void beginNode(long id, int[] labelIds, int labelCount) throws IOException {
        try {
            out.writeByte(Wire.NODE);                          // record tag
            out.writeVarLong(id, true);                        // id
            out.writeVarInt(labelCount, true);                 // label count
            for (int i = 0; i < labelCount; i++) {
                labelRef(labelIds[i]);                         // label token references
            }
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void endNode() throws IOException {
        endProperties();
        endRecord();
    }

    @Override
    public void beginRelationship(long id, int type, long startNode, long endNode) throws IOException {
        try {
            out.writeByte(Wire.RELATIONSHIP);                  // record tag
            out.writeVarLong(id, true);                        // id
            typeRef(type);                                     // type token reference
            out.writeVarLong(startNode, true);                 // start node id
            out.writeVarLong(endNode, true);                   // end node id
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void endRelationship() throws IOException {
        endProperties();
        endRecord();
    }

    private void endProperties() throws IOException {
        if (arrayTag != 0) {
            throw new IllegalStateException("record ended inside an array or a row");
        }
        try {
            out.writeByte(Wire.PROPERTIES_END);                // end of properties
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void property(int key) throws IOException {
        try {
            out.writeByte(Wire.PROPERTY);                      // a property follows
            keyRef(key);                                       // key token reference
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void columns(String[] names) throws IOException {
        if (headerEnd < 0 || drained + out.position() != headerEnd || closed) {
            throw new IllegalStateException("columns() comes once, right after header()");
        }
        if (names.length > Wire.MAX_LENGTH) {
            throw new IllegalArgumentException(names.length + " columns");
        }
        try {
            out.writeByte(Wire.COLUMNS);                       // record tag
            out.writeVarInt(names.length, true);               // column count
            for (String name : names) {
                out.writeWireString(name);                     // column names
            }
        } catch (KryoException e) {
            throw io(e);
        }
        columnCount = names.length;
        endRecord();
    }

    @Override
    public void beginRow() throws IOException {
        if (columnCount < 0 || arrayTag != 0) {
            throw new IllegalStateException(columnCount < 0 ? "beginRow() without columns()"
                    : "beginRow() inside a row or an array");
        }
        try {
            out.writeByte(Wire.ROW);                           // record tag; the values follow
        } catch (KryoException e) {
            throw io(e);
        }
        push(ROW, columnCount);
    }

    @Override
    public void endRow() throws IOException {
        pop(ROW, "endRow() without beginRow()", " row values missing");
        rows++;
        endRecord();
    }

    @Override
    public void end(long nodes, long relationships, boolean truncated) throws IOException {
        requireOpen("end()");
        if (out.position() != committed || depth != 0 || arrayTag != 0) {
            throw new IllegalStateException("end() inside a record");
        }
        try {
            out.writeByte(Wire.END);                           // record tag
            out.writeVarLong(nodes, true);                     // node count
            out.writeVarLong(relationships, true);             // relationship count
            out.writeByte(truncated ? 1 : 0);                  // truncated flag
            if (columnCount >= 0) {
                out.writeVarLong(rows, true);                  // row count (rows streams only)
            }
        } catch (KryoException e) {
            throw io(e);
        }
        closed = true;
    }

    @Override
    public void error(String code, String message) throws IOException {
        requireOpen("error()");
        out.setPosition(committed);                            // drops an unfinished record
        arrayTag = 0;
        arrayRemaining = 0;
        depth = 0;
        try {
            out.writeByte(Wire.ERROR);                         // record tag
            out.writeWireString(code);                         // code
            out.writeWireString(message == null ? "" : message);  // message
        } catch (KryoException e) {
            throw io(e);
        }
        closed = true;
    }

    private void requireOpen(String call) {
        if (headerEnd < 0 || closed || out == null) {
            throw new IllegalStateException(call + (headerEnd < 0 ? " before header(): no stream has started"
                    : " after the closing record"));
        }
    }

    /**
     * At the end of every record: hands the buffer to the sink (write, flush) if it holds {@link Wire#KRYO_BUFFER}
     * bytes or more, and remembers where the next record starts.
     */
    private void endRecord() throws IOException {
        int p = out.position();
        if (p >= Wire.KRYO_BUFFER) {
            sink.write(out.getBuffer(), 0, p);
            sink.flush();
            drained += p;
            out.setPosition(0);
            p = 0;
        }
        committed = p;
    }

    @Override
    public void finish() throws IOException {
        WireOutput o = out;
        if (o == null) {
            return;
        }
        out = null;
        try {
            // the buffered rest goes down without a flush, which would flush the target before the last chunk
            sink.write(o.getBuffer(), 0, o.position());
        } finally {
            if (o.getBuffer().length > POOLED_MAX) {
                o.setBuffer(new byte[INITIAL_BUFFER], -1);  // do not keep a large record's buffer in the pool
            }
            OUTPUTS.free(o);
        }
        if (lzf != null) {
            lzf.finish();  // compresses the last chunk, waits for the compressor, flushes the target; target stays open
        } else {
            target.flush();
        }
    }

    @Override
    public void abort() {
        WireOutput o = out;
        out = null;
        if (o != null) {
            if (o.getBuffer().length > POOLED_MAX) {
                o.setBuffer(new byte[INITIAL_BUFFER], -1);
            }
            OUTPUTS.free(o);
        }
        if (lzf != null) {
            lzf.abort();
        }
    }

    // ---- values -------------------------------------------------------------------------------------------

    @Override
    public void writeBoolean(boolean value) throws IOException {
        try {
            tag(Wire.T_BOOLEAN);
            out.writeByte(value ? 1 : 0);                      // 0 or 1
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void writeByte(byte value) throws IOException {
        if (arrayTag != 0) {
            containerValue("byte arrays are written with writeBytes");
        }
        try {
            out.writeByte(Wire.T_BYTE);
            out.writeByte(value);                              // 1 byte
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void writeShort(short value) throws IOException {
        try {
            tag(Wire.T_SHORT);
            out.putShort(value);                             // 2 bytes big-endian
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void writeInt(int value) throws IOException {
        try {
            tag(Wire.T_INT);
            out.writeVarInt(value, false);                     // zigzag varint
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void writeLong(long value) throws IOException {
        try {
            tag(Wire.T_LONG);
            out.writeVarLong(value, false);                    // zigzag varlong
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void writeFloat(float value) throws IOException {
        try {
            tag(Wire.T_FLOAT);
            out.putFloat(value);                             // 4 bytes IEEE 754
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void writeDouble(double value) throws IOException {
        try {
            tag(Wire.T_DOUBLE);
            out.putDouble(value);                            // 8 bytes IEEE 754
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void writeChar(char value) throws IOException {
        try {
            tag(Wire.T_CHAR);
            out.putShort(value);                              // 2 bytes, UTF-16 code unit
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void writeString(String value) throws IOException {
        try {
            tag(Wire.T_STRING);
            out.writeWireString(value);                        // varint length, UTF-8
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void writeUtf8(byte[] utf8, int offset, int length) throws IOException {
        if (!ValueSink.isAscii(utf8, offset, length)) {
            writeString(new String(utf8, offset, length, StandardCharsets.UTF_8));  // malformed bytes replaced
            return;
        }
        try {
            tag(Wire.T_STRING);
            out.writeVarInt(length, true);                     // varint length, the bytes as they are
            out.writeBytes(utf8, offset, length);
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void writeBytes(byte[] value) throws IOException {
        if (arrayTag != 0) {
            containerValue("writeBytes inside an array");
        }
        try {
            out.writeByte(Wire.T_BYTES);
            out.writeVarInt(value.length, true);               // length
            out.writeBytes(value);                             // bytes
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void writePoint(int srid, double[] coordinates) throws IOException {
        int dimension = coordinates.length;
        if (dimension != 2 && dimension != 3) {
            throw new IllegalArgumentException("a point has 2 or 3 coordinates, not " + dimension);
        }
        try {
            tag(Wire.T_POINT);
            out.writeVarInt(srid, true);                       // srid
            out.writeByte(dimension);                          // dimension
            for (double c : coordinates) {
                out.putDouble(c);                            // coordinates
            }
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void writeDuration(long months, long days, long seconds, int nanos) throws IOException {
        try {
            tag(Wire.T_DURATION);
            out.writeVarLong(months, false);                   // zigzag months
            out.writeVarLong(days, false);                     // zigzag days
            out.writeVarLong(seconds, false);                  // zigzag seconds
            out.writeVarInt(nanos, false);                     // zigzag nanos
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void writeDate(LocalDate value) throws IOException {
        try {
            tag(Wire.T_DATE);
            out.writeVarLong(value.toEpochDay(), false);       // zigzag epoch day
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void writeLocalTime(LocalTime value) throws IOException {
        try {
            tag(Wire.T_LOCAL_TIME);
            out.writeVarLong(value.toNanoOfDay(), true);       // nano of day
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void writeTime(OffsetTime value) throws IOException {
        try {
            tag(Wire.T_TIME);
            out.writeVarLong(value.toLocalTime().toNanoOfDay(), true);     // nano of day
            out.writeVarInt(value.getOffset().getTotalSeconds(), false);  // zigzag offset seconds
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void writeLocalDateTime(LocalDateTime value) throws IOException {
        try {
            tag(Wire.T_LOCAL_DATE_TIME);
            out.writeVarLong(value.toEpochSecond(ZoneOffset.UTC), false);  // zigzag epoch second
            out.writeVarInt(value.getNano(), true);                        // nano
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void writeDateTime(ZonedDateTime value) throws IOException {
        try {
            tag(Wire.T_DATE_TIME);
            out.writeVarLong(value.toEpochSecond(), false);    // zigzag epoch second
            out.writeVarInt(value.getNano(), true);            // nano
            out.writeWireString(value.getZone().getId());      // zone id
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void writeUuid(long mostSignificantBits, long leastSignificantBits) throws IOException {
        try {
            tag(Wire.T_UUID);
            out.putLong(mostSignificantBits);                // 8 bytes
            out.putLong(leastSignificantBits);               // 8 bytes
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void writeVector(VectorKind kind, Object values) throws IOException {
        if (arrayTag != 0) {
            containerValue("writeVector inside an array");
        }
        try {
            out.writeByte(Wire.T_VECTOR);
            out.writeByte(kind.ordinal());                     // kind
            switch (kind) {
                case INT8 -> {
                    byte[] v = (byte[]) values;
                    out.writeVarInt(v.length, true);           // length
                    out.writeBytes(v);                         // 1 byte each
                }
                case INT16 -> {
                    short[] v = (short[]) values;
                    out.writeVarInt(v.length, true);
                    for (short x : v) {
                        out.putShort(x);                     // 2 bytes each
                    }
                }
                case INT32 -> {
                    int[] v = (int[]) values;
                    out.writeVarInt(v.length, true);
                    for (int x : v) {
                        out.putInt(x);                       // 4 bytes each
                    }
                }
                case INT64 -> {
                    long[] v = (long[]) values;
                    out.writeVarInt(v.length, true);
                    for (long x : v) {
                        out.putLong(x);                      // 8 bytes each
                    }
                }
                case FLOAT32 -> {
                    float[] v = (float[]) values;
                    out.writeVarInt(v.length, true);
                    for (float x : v) {
                        out.putFloat(x);                     // 4 bytes each
                    }
                }
                case FLOAT64 -> {
                    double[] v = (double[]) values;
                    out.writeVarInt(v.length, true);
                    for (double x : v) {
                        out.putDouble(x);                    // 8 bytes each
                    }
                }
            }
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void beginArray(int size, ArrayKind kind) throws IOException {
        if (size < 0) {
            throw new IllegalArgumentException("negative array size " + size);
        }
        if (arrayTag != 0) {
            containerValue("nested arrays are not values");
        }
        int tag = Wire.elementTag(kind);
        try {
            out.writeByte(Wire.T_ARRAY);
            out.writeByte(tag);                                // element tag
            out.writeVarInt(size, true);                       // length
        } catch (KryoException e) {
            throw io(e);
        }
        arrayTag = tag;
        arrayRemaining = size;
    }

    @Override
    public void endArray() {
        if (arrayTag <= 0 || arrayRemaining != 0) {
            throw new IllegalStateException(arrayTag <= 0 ? "endArray without beginArray"
                    : arrayRemaining + " array elements missing");
        }
        arrayTag = depth == 0 ? 0 : IN_CONTAINER;
    }

    /**
     * Outside arrays and containers writes the value tag; in a list, map or row counts the value and writes the
     * tag; inside a typed array checks the element against the array's type (and writes no tag).
     */
    private void tag(int tag) {
        if (arrayTag == 0) {
            out.writeByte(tag);                                // value tag
        } else if (arrayTag == IN_CONTAINER) {
            containerValue(null);
            out.writeByte(tag);                                // value tag
        } else if (arrayTag != tag || arrayRemaining-- == 0) {
            throw new IllegalStateException(arrayTag != tag ? "value tag " + tag + " in an array of tag " + arrayTag
                    : "more array elements than announced");
        }
    }

    // ---- row values ---------------------------------------------------------------------------------------

    @Override
    public void writeNull() throws IOException {
        rowValue("writeNull()");
        try {
            out.writeByte(Wire.T_NULL);                        // value tag, no payload
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void beginList(int size) throws IOException {
        beginContainer("beginList()", size);
        try {
            out.writeByte(Wire.T_LIST);                        // value tag
            out.writeVarInt(size, true);                       // size; the values follow, each tagged
        } catch (KryoException e) {
            throw io(e);
        }
        push(LIST, size);
    }

    @Override
    public void endList() {
        pop(LIST, "endList() without beginList()", " list values missing");
    }

    @Override
    public void beginMap(int size) throws IOException {
        beginContainer("beginMap()", size);
        try {
            out.writeByte(Wire.T_MAP);                         // value tag
            out.writeVarInt(size, true);                       // size; (key, tagged value) pairs follow
        } catch (KryoException e) {
            throw io(e);
        }
        push(MAP, 2 * size);
    }

    @Override
    public void mapKey(String key) throws IOException {
        int d = depth - 1;
        if (arrayTag != IN_CONTAINER || containerKinds[d] != MAP || (containerRemaining[d] & 1) != 0
                || containerRemaining[d] == 0) {
            throw new IllegalStateException(arrayTag != IN_CONTAINER || containerKinds[d] != MAP
                    ? "mapKey() outside a map" : containerRemaining[d] == 0 ? "more map entries than announced"
                    : "mapKey() where the previous key's value is due");
        }
        containerRemaining[d]--;
        try {
            out.writeWireString(key);                          // key
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void endMap() {
        pop(MAP, "endMap() without beginMap()", " map keys and values missing");
    }

    @Override
    public void writeNodeRef(long id) throws IOException {
        rowValue("writeNodeRef()");
        try {
            out.writeByte(Wire.T_NODE_REF);                    // value tag
            out.writeVarLong(id, true);                        // node id
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void writeRelationshipRef(long id) throws IOException {
        rowValue("writeRelationshipRef()");
        try {
            out.writeByte(Wire.T_RELATIONSHIP_REF);            // value tag
            out.writeVarLong(id, true);                        // relationship id
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void writePath(long[] nodeIds, long[] relationshipIds) throws IOException {
        WireText.checkPath(nodeIds, relationshipIds);
        rowValue("writePath()");
        try {
            out.writeByte(Wire.T_PATH);                        // value tag
            out.writeVarInt(nodeIds.length, true);             // node count
            for (long id : nodeIds) {
                out.writeVarLong(id, true);                    // node ids
            }
            for (long id : relationshipIds) {
                out.writeVarLong(id, true);                    // relationship ids
            }
        } catch (KryoException e) {
            throw io(e);
        }
    }

    /** A row-only value: counts it in its container, or throws if there is none (or a typed array is open). */
    private void rowValue(String call) {
        if (arrayTag != IN_CONTAINER) {
            throw new IllegalStateException(call + (arrayTag == 0 ? " outside a row" : " inside a typed array"));
        }
        containerValue(null);
    }

    private void beginContainer(String call, int size) {
        if (size < 0 || size > Wire.MAX_LENGTH) {
            throw new IllegalArgumentException(call + " size " + size + " outside 0.." + Wire.MAX_LENGTH);
        }
        if (depth > Wire.MAX_NESTING) {  // the row is depth 1: lists and maps nest depth - 1 levels deep
            throw new IllegalStateException("lists and maps nested deeper than " + Wire.MAX_NESTING + " levels");
        }
        rowValue(call);
    }

    /**
     * One value of the innermost list, map or row (called when {@link #arrayTag} is not 0); {@code arrayError}
     * is the message if a typed array is open instead, null if that cannot be.
     */
    private void containerValue(String arrayError) {
        if (arrayTag != IN_CONTAINER) {
            throw new IllegalStateException(arrayError);
        }
        int d = depth - 1;
        int r = containerRemaining[d];
        boolean map = containerKinds[d] == MAP;
        if (map ? (r & 1) == 0 : r == 0) {
            throw new IllegalStateException(map ? "a map value without its mapKey()"
                    : containerKinds[d] == ROW ? "more row values than columns" : "more list values than announced");
        }
        containerRemaining[d] = r - 1;
    }

    private void push(int kind, int remaining) {
        if (depth == containerKinds.length) {
            containerKinds = Arrays.copyOf(containerKinds, depth * 2);
            containerRemaining = Arrays.copyOf(containerRemaining, depth * 2);
        }
        containerKinds[depth] = kind;
        containerRemaining[depth] = remaining;
        depth++;
        arrayTag = IN_CONTAINER;
    }

    private void pop(int kind, String unopened, String missing) {
        int d = depth - 1;
        if (arrayTag != IN_CONTAINER || containerKinds[d] != kind) {
            throw new IllegalStateException(unopened);
        }
        if (containerRemaining[d] != 0) {
            throw new IllegalStateException(containerRemaining[d] + missing);
        }
        depth = d;
        arrayTag = d == 0 ? 0 : IN_CONTAINER;
    }

    // ---- tokens -------------------------------------------------------------------------------------------

    private void labelRef(int id) {
        int[] map = labels = ensure(labels, id);
        int index = map[id] - 1;
        if (index >= 0) {
            out.writeVarInt(index, true);                      // known label
        } else {
            String name = tokens.label(id);                    // first: it may fail
            map[id] = ++labelCount;
            out.writeVarInt(labelCount - 1, true);             // new label: index = dictionary size
            out.writeWireString(name);                         // its name
        }
    }

    private void typeRef(int id) {
        int[] map = types = ensure(types, id);
        int index = map[id] - 1;
        if (index >= 0) {
            out.writeVarInt(index, true);                      // known type
        } else {
            String name = tokens.relationshipType(id);         // first: it may fail
            map[id] = ++typeCount;
            out.writeVarInt(typeCount - 1, true);              // new type: index = dictionary size
            out.writeWireString(name);                         // its name
        }
    }

    private void keyRef(int id) {
        int[] map = keys = ensure(keys, id);
        int index = map[id] - 1;
        if (index >= 0) {
            out.writeVarInt(index, true);                      // known key
        } else {
            String name = tokens.propertyKey(id);              // first: it may fail
            map[id] = ++keyCount;
            out.writeVarInt(keyCount - 1, true);               // new key: index = dictionary size
            out.writeWireString(name);                         // its name
        }
    }

    private static int[] ensure(int[] map, int id) {
        if (id < map.length) {
            if (id < 0) {
                throw new IllegalArgumentException("negative token id " + id);
            }
            return map;
        }
        return Arrays.copyOf(map, Math.max(id + 1, map.length * 2));
    }

    private static IOException io(KryoException e) {
        return e.getCause() instanceof IOException io ? io : new IOException(e.getMessage(), e);
    }
}
