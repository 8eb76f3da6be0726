package org.subgraphexport.format;

import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.util.Pool;
import com.ning.compress.lzf.LZFChunk;
import com.ning.compress.lzf.LZFOutputStream;
import com.ning.compress.lzf.util.ChunkEncoderFactory;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Arrays;

/**
 * Writes the {@code kryo} format (see {@link Wire}) through one pooled Kryo {@link WireOutput} with a 64 KiB
 * buffer: Kryo's var-ints and bytes, and big-endian fixed-width numbers (Kryo 5's own are little-endian); for {@code kryo-lzf} an {@link LZFOutputStream} sits between that buffer and the target.
 *
 * <p>The per-element path does not allocate: ids, counts and numbers are var-ints written into the buffer,
 * strings are encoded in place, token names are written once per stream and referenced by index afterwards
 * (database token id to stream index through a growable {@code int[]}, no boxing).
 */
public final class KryoGraphWriter implements GraphWriter {
    private static final Pool<WireOutput> OUTPUTS = new Pool<>(true, true, 16) {
        @Override
        protected WireOutput create() {
            return new WireOutput(Wire.KRYO_BUFFER);
        }
    };

    private final OutputStream target;
    private final LZFOutputStream lzf;  // null for plain kryo
    private WireOutput out;
    private TokenNames tokens;
    /** Database token id to stream index + 1; 0 = not yet written. */
    private int[] labels = new int[64], types = new int[16], keys = new int[64];
    private int labelCount, typeCount, keyCount;
    /** Element tag of the open array, 0 outside arrays. */
    private int arrayTag;
    private int arrayRemaining;

    private KryoGraphWriter(OutputStream target, LZFOutputStream lzf) {
        this.target = target;
        this.lzf = lzf;
        this.out = OUTPUTS.obtain();
        out.setOutputStream(lzf != null ? lzf : target);
    }

    /** A {@code kryo} writer over {@code target}. */
    public static KryoGraphWriter kryo(OutputStream target) {
        return new KryoGraphWriter(target, null);
    }

    /**
     * A {@code kryo-lzf} writer over {@code target}: full {@link LZFChunk#MAX_CHUNK_LEN} chunks, because the LZF
     * stream does not finish a chunk when Kryo flushes its buffer; {@link #finish} finishes the last one.
     */
    public static KryoGraphWriter kryoLzf(OutputStream target) {
        LZFOutputStream lzf = new LZFOutputStream(
                ChunkEncoderFactory.safeInstance(LZFChunk.MAX_CHUNK_LEN), new CloseShield(target));
        lzf.setFinishBlockOnFlush(false);
        return new KryoGraphWriter(target, lzf);
    }

    @Override
    public void header(Header header, TokenNames tokens) throws IOException {
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
    }

    private void endProperties() throws IOException {
        if (arrayTag != 0) {
            throw new IllegalStateException("record ended inside an array");
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
    public void end(long nodes, long relationships, boolean truncated) throws IOException {
        try {
            out.writeByte(Wire.END);                           // record tag
            out.writeVarLong(nodes, true);                     // node count
            out.writeVarLong(relationships, true);             // relationship count
            out.writeByte(truncated ? 1 : 0);                  // truncated flag
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void error(String code, String message) throws IOException {
        try {
            out.writeByte(Wire.ERROR);                         // record tag
            out.writeWireString(code);                         // code
            out.writeWireString(message == null ? "" : message);  // message
        } catch (KryoException e) {
            throw io(e);
        }
    }

    @Override
    public void finish() throws IOException {
        WireOutput o = out;
        if (o == null) {
            return;
        }
        out = null;
        try {
            // the buffered rest goes down without Output.flush(), which would flush the target before the last chunk
            (lzf != null ? lzf : target).write(o.getBuffer(), 0, o.position());
        } finally {
            o.setOutputStream(null);
            OUTPUTS.free(o);
        }
        if (lzf != null) {
            lzf.close();  // writes the last chunk, flushes the target once, releases the encoder; target stays open
        } else {
            target.flush();
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
            throw new IllegalStateException("byte arrays are written with writeBytes");
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
    public void writeBytes(byte[] value) throws IOException {
        if (arrayTag != 0) {
            throw new IllegalStateException("writeBytes inside an array");
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
            throw new IllegalStateException("writeVector inside an array");
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
        if (arrayTag != 0) {
            throw new IllegalStateException("nested arrays are not values");
        }
        if (size < 0) {
            throw new IllegalArgumentException("negative array size " + size);
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
        if (arrayTag == 0 || arrayRemaining != 0) {
            throw new IllegalStateException(arrayTag == 0 ? "endArray without beginArray"
                    : arrayRemaining + " array elements missing");
        }
        arrayTag = 0;
    }

    /** Outside an array writes the value tag; inside, checks the element against the array's type. */
    private void tag(int tag) {
        if (arrayTag == 0) {
            out.writeByte(tag);                                // value tag
        } else if (arrayTag != tag || arrayRemaining-- == 0) {
            throw new IllegalStateException(arrayTag != tag ? "value tag " + tag + " in an array of tag " + arrayTag
                    : "more array elements than announced");
        }
    }

    // ---- tokens -------------------------------------------------------------------------------------------

    private void labelRef(int id) {
        int[] map = labels = ensure(labels, id);
        int index = map[id] - 1;
        if (index >= 0) {
            out.writeVarInt(index, true);                      // known label
        } else {
            map[id] = ++labelCount;
            out.writeVarInt(labelCount - 1, true);             // new label: index = dictionary size
            out.writeWireString(tokens.label(id));             // its name
        }
    }

    private void typeRef(int id) {
        int[] map = types = ensure(types, id);
        int index = map[id] - 1;
        if (index >= 0) {
            out.writeVarInt(index, true);                      // known type
        } else {
            map[id] = ++typeCount;
            out.writeVarInt(typeCount - 1, true);              // new type: index = dictionary size
            out.writeWireString(tokens.relationshipType(id));  // its name
        }
    }

    private void keyRef(int id) {
        int[] map = keys = ensure(keys, id);
        int index = map[id] - 1;
        if (index >= 0) {
            out.writeVarInt(index, true);                      // known key
        } else {
            map[id] = ++keyCount;
            out.writeVarInt(keyCount - 1, true);               // new key: index = dictionary size
            out.writeWireString(tokens.propertyKey(id));       // its name
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

    /** Passes writes and flushes through, but not {@code close}: the target belongs to its owner. */
    private static final class CloseShield extends FilterOutputStream {
        CloseShield(OutputStream out) {
            super(out);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public void close() {
            // LZFOutputStream.close() has just flushed through us; closing is the owner's business
        }
    }
}
