package org.subgraphexport.encode;

import java.io.IOException;
import java.io.OutputStream;
import java.time.format.DateTimeFormatter;
import java.time.temporal.TemporalAccessor;
import java.util.Arrays;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.TokenNames;
import org.subgraphexport.wire.Wire;

/**
 * What the four encoders ({@link JsonGraphWriter}, {@link BsonGraphWriter}, {@link KryoGraphWriter},
 * {@link ArrowGraphWriter}) share: the
 * {@link GraphWriter} call protocol, the record buffer and its hand-over to the target, and the token dictionary.
 * An encoder says only how each record and value is encoded, in bytes written into {@link #out}; each of its
 * {@link GraphWriter} methods first asks this class where the call may go (a "slot"), so that every call the
 * contract forbids throws {@link IllegalStateException} before anything is written, in every format.
 *
 * <p>Buffering: {@link #out} grows rather than hand part of a record to the target, and goes to the target (a write,
 * no flush) at the end of a record once it holds {@link Wire#HAND_OVER_BYTES} bytes or more, so {@link #error} can cut
 * an unfinished record by moving the write position back to {@link #committed}, the end of the last complete one.
 * The target is flushed once, by {@link #finish}, and never closed.
 *
 * <p>Where a value goes: {@link #valueSlot} and its variants check the protocol and return the index of the value
 * in the innermost row, list or typed array (JSON separates it, BSON names it), or -1 for the value of the property
 * or map key written last (BSON puts its type byte in front of that name).
 *
 * <p>Tokens: the database's label, type and key ids map to what the encoder writes for them, through one growable
 * table per kind (no boxing): the name is asked for once, the encoder encodes the reference once
 * ({@link #encodeToken}: a Kryo dictionary index, a quoted JSON name, a BSON string or element name), and the first
 * mention may carry more ({@link #defineToken}: Kryo's name after the new index).
 */
abstract sealed class ByteRecordWriter implements GraphWriter
        permits JsonGraphWriter, BsonGraphWriter, KryoGraphWriter, ArrowGraphWriter {
    // kinds of open containers
    static final int ROW = 1, LIST = 2, MAP_KIND = 3;
    // records with properties
    static final int NODE = 1, RELATIONSHIP = 2;
    // kinds of tokens
    static final int LABEL_TOKEN = 0, TYPE_TOKEN = 1, KEY_TOKEN = 2;

    /** Where complete records go. */
    private final OutputStream sink;
    /** The record buffer: room for a full hand-over threshold plus a record of up to 64 KiB without growing. */
    final WireBuffer out = new WireBuffer(2 * Wire.HAND_OVER_BYTES);
    /** Buffer position at the end of the last complete record: where {@link #error} cuts back to. */
    int committed;
    /** Bytes handed to the target so far. */
    private long drained;
    private TokenNames tokens;
    /** Per token kind, what {@link #encodeToken} made, by database token id; null until first met. */
    private byte[][] labelRefs = new byte[64][], typeRefs = new byte[16][], keyRefs = new byte[64][];
    /** Per token kind, the tokens in the stream so far. */
    private final int[] dictionarySize = new int[3];
    private boolean started, closed, finished;
    /** Stream offset right after the header record. */
    private long headerEnd;
    /** The record whose properties are open: {@link #NODE}, {@link #RELATIONSHIP}, or 0 between records. */
    int inProperties;
    /** After {@link #property}, before its value. */
    boolean valueDue;
    /** Kind of the open typed array, null outside arrays; its announced size and elements so far. */
    ArrayKind array;
    private int arraySize, arrayCount;
    /** Number of columns of a rows stream; -1 for a graph stream. */
    int columnCount = -1;
    long rows;
    /**
     * Open row, lists and maps, innermost last: kinds, announced sizes, entries so far, a map entry's value due,
     * and where the encoder says each one starts in the buffer.
     */
    private int depth;
    private int[] containerKinds = new int[8], containerSizes = new int[8], containerCounts = new int[8];
    private int[] containerStarts = new int[8];
    private boolean[] mapValueDue = new boolean[8];
    /** For formatting temporal values and numbers without a String. */
    final StringBuilder text = new StringBuilder(64);

    ByteRecordWriter(OutputStream sink) {
        this.sink = sink;
    }

    // ---- records ------------------------------------------------------------------------------------------

    /** Whether this is a delta stream ({@link org.subgraphexport.wire.Header#delta()}): left records may come. */
    boolean delta;

    /** As {@link #beginHeader(TokenNames)}, for a stream with this header (a delta stream or not). */
    final void beginHeader(TokenNames tokens, org.subgraphexport.wire.Header header) {
        beginHeader(tokens);
        delta = header.delta();
    }

    /** Checks that a left record ({@code leftNode}, {@code leftRelationship}) may come here: a delta stream, between records. */
    final void beginLeftRecord(String call) {
        if (!delta) {
            throw new IllegalStateException(call + " in a stream that is not a delta");
        }
        beginRecord(call);
    }

    /** Starts {@link #header}: checks it comes once, and drops what a header() that threw half-way wrote. */
    final void beginHeader(TokenNames tokens) {
        if (started || finished) {
            throw new IllegalStateException(started ? "header() twice" : "header() after finish()");
        }
        this.tokens = tokens;
        out.pos = committed;
    }

    /** The header record's bytes are complete. */
    final void endHeader() throws IOException {
        endRecord();
        headerEnd = drained + out.pos;
        started = true;
    }

    /** Checks that a node, relationship or row may begin here: after the header, between records. */
    final void beginRecord(String call) {
        if (!started || closed || finished || out.pos != committed) {
            throw new IllegalStateException(call + (!started ? " before header()" : closed || finished
                    ? " after the closing record" : " inside a record"));
        }
    }

    /** Checks that {@link #beginNode} may come here; its properties are then open. */
    final void beginNodeRecord() {
        beginRecord("beginNode()");
        inProperties = NODE;
    }

    /** Checks that {@link #beginRelationship} may come here; its properties are then open. */
    final void beginRelationshipRecord() {
        beginRecord("beginRelationship()");
        inProperties = RELATIONSHIP;
    }

    /** Checks that the open record is {@code record} and may end here. */
    final void endProperties(int record) {
        if (array != null || depth != 0) {
            throw new IllegalStateException("record ended inside an array or a row");
        }
        if (inProperties != record || valueDue) {
            throw new IllegalStateException(valueDue ? "record ended where a property's value is due"
                    : record == NODE ? "endNode() without beginNode()"
                    : "endRelationship() without beginRelationship()");
        }
    }

    /** Checks that a property may start here; its value is then due. */
    final void propertySlot() {
        if (inProperties == 0 || valueDue || array != null) {
            throw new IllegalStateException(inProperties == 0 ? "property() outside a node or relationship"
                    : valueDue ? "property() where the previous property's value is due"
                    : "property() inside an array");
        }
        valueDue = true;
    }

    /** Checks that {@code names} may be the columns record here: right after the header, at most as many as allowed. */
    final void checkColumns(String[] names) {
        if (!started || closed || finished || drained + committed != headerEnd || out.pos != committed) {
            throw new IllegalStateException("columns() comes once, right after header()");
        }
        if (names.length > Wire.MAX_LENGTH) {
            throw new IllegalArgumentException(names.length + " columns");
        }
    }

    /** The columns record's bytes are complete: this is a rows stream. */
    final void endColumns(int count) throws IOException {
        endRecord();
        columnCount = count;
    }

    /** Checks that a row may begin here, and opens it; {@code start} is where the encoder says it starts. */
    final void beginRowSlot(int start) {
        if (columnCount < 0 || depth != 0 || array != null) {
            throw new IllegalStateException(columnCount < 0 ? "beginRow() without columns()"
                    : "beginRow() inside a row or an array");
        }
        beginRecord("beginRow()");
        push(ROW, columnCount, start);
    }

    /** Checks that the open row has all its values, and closes it; returns where the encoder said it starts. */
    final int endRowSlot() {
        int start = pop(ROW, "endRow() without beginRow()");
        rows++;
        return start;
    }

    /** Checks that the end record may come here. */
    final void checkEnd() {
        requireOpen("end()");
        if (out.pos != committed || depth != 0 || array != null) {
            throw new IllegalStateException("end() inside a record");
        }
    }

    /** Starts {@link #error}: checks it may come, and drops an unfinished record. */
    final void beginError() {
        requireOpen("error()");
        out.pos = committed;
        array = null;
        depth = 0;
        inProperties = 0;
        valueDue = false;
    }

    /** The closing record (end or error) is complete. */
    final void endClosingRecord() throws IOException {
        endRecord();
        closed = true;
    }

    private void requireOpen(String call) {
        if (!started || closed || finished) {
            throw new IllegalStateException(call + (!started ? " before header(): no stream has started"
                    : " after the closing record"));
        }
    }

    /** A record's bytes are complete: remembers where it ends, and hands the buffer over once it is full enough. */
    final void endRecord() throws IOException {
        inProperties = 0;
        WireBuffer o = out;
        int n = o.pos;
        if (n >= Wire.HAND_OVER_BYTES) {
            o.pos = 0;
            committed = 0;
            sink.write(o.buf, 0, n);
            drained += n;
            return;
        }
        committed = n;
    }

    @Override
    public final void finish() throws IOException {
        if (finished) {
            return;
        }
        finished = true;
        if (!started || out.pos != committed) {
            release();
            throw new IllegalStateException(!started ? "finish() before header()" : "finish() inside a record");
        }
        endStream();
        int n = out.pos;
        out.pos = 0;
        committed = 0;
        if (n > 0) {
            sink.write(out.buf, 0, n);
            drained += n;
        }
        completeStream();
    }

    /** Whatever follows the last record (JSON: the closing bracket). */
    void endStream() {}

    /** After the last bytes went to the sink: flushes it (kryo-lzf: finishes the compression, which flushes). */
    void completeStream() throws IOException {
        sink.flush();
    }

    @Override
    public final void abort() {
        finished = true;
        release();
    }

    /** Releases what the encoder holds besides the buffer (kryo-lzf: the compressor); safe more than once. */
    void release() {}

    // ---- where values go ----------------------------------------------------------------------------------

    /**
     * Checks that a value may start here, outside typed arrays: the value of the property named last, or the next
     * value of the innermost row or list, or of the map key written last. Returns the row or list index, or -1.
     */
    final int valueSlot() {
        if (valueDue) {  // a property's value (never inside a row: rows have no properties)
            valueDue = false;
            return -1;
        }
        if (depth > 0) {
            int d = depth - 1;
            if (containerKinds[d] == MAP_KIND) {
                if (!mapValueDue[d]) {
                    throw new IllegalStateException("a map value without its mapKey()");
                }
                mapValueDue[d] = false;
                return -1;
            }
            return containerCounts[d]++;
        }
        throw new IllegalStateException("a value without its property()");
    }

    /** A value that may also be an element of a typed array of {@code kind}: its index there, or {@link #valueSlot}. */
    final int elementSlot(ArrayKind kind) {
        if (array == null) {
            return valueSlot();
        }
        if (array != kind || arrayCount == arraySize) {
            throw new IllegalStateException(array != kind ? kind + " value in an array of " + array
                    : "more array elements than the " + arraySize + " announced");
        }
        return arrayCount++;
    }

    /** A value that is never an array element (a byte, bytes, a vector). */
    final int scalarSlot(String inArray) {
        if (array != null) {
            throw new IllegalStateException(inArray);
        }
        return valueSlot();
    }

    /** A typed array of {@code size} elements starts here: it is then open; returns its {@link #valueSlot}. */
    final int beginArraySlot(int size, ArrayKind kind) {
        if (size < 0 || size > Wire.MAX_LENGTH) {
            throw new IllegalArgumentException("array size " + size + " outside 0.." + Wire.MAX_LENGTH);
        }
        int slot = scalarSlot("nested arrays are not values");
        array = kind;
        arraySize = size;
        arrayCount = 0;
        return slot;
    }

    /** Ends the open typed array, which has all its elements, and returns its kind. */
    final ArrayKind endArraySlot() {
        ArrayKind kind = array;
        if (kind == null || arrayCount != arraySize) {
            throw new IllegalStateException(kind == null ? "endArray without beginArray"
                    : "an array of " + arraySize + " elements received " + arrayCount);
        }
        array = null;
        return kind;
    }

    /** A value only a row may hold (null, a reference, a path). */
    final int rowValueSlot(String call) {
        if (depth == 0 || array != null) {
            throw new IllegalStateException(call + (array != null ? " inside a typed array" : " outside a row"));
        }
        return valueSlot();
    }

    /** A list or a map of {@code size} entries starts; the encoder then {@link #push}es it. */
    final int containerSlot(String call, int size) {
        if (size < 0 || size > Wire.MAX_LENGTH) {
            throw new IllegalArgumentException(call + " size " + size + " outside 0.." + Wire.MAX_LENGTH);
        }
        if (depth == 0 || array != null) {
            throw new IllegalStateException(call + (array != null ? " inside a typed array" : " outside a row"));
        }
        if (depth > Wire.MAX_NESTING) {  // the row is depth 1: lists and maps nest depth - 1 levels deep
            throw new IllegalStateException("lists and maps nested deeper than " + Wire.MAX_NESTING + " levels");
        }
        return valueSlot();
    }

    /** Checks that a map key may come here; returns the entry's index in its map. Its value is then due. */
    final int mapKeySlot() {
        int d = depth - 1;
        if (depth == 0 || array != null || containerKinds[d] != MAP_KIND) {
            throw new IllegalStateException("mapKey() outside a map");
        }
        if (mapValueDue[d]) {
            throw new IllegalStateException("mapKey() where the previous key's value is due");
        }
        mapValueDue[d] = true;
        return containerCounts[d]++;
    }

    /** Opens a row, list or map of {@code size} entries; {@code start} is where the encoder says it starts. */
    final void push(int kind, int size, int start) {
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

    /**
     * Checks the innermost container's entries against its announced size, and forgets it; returns where it
     * starts.
     */
    final int pop(int kind, String unopened) {
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
        return containerStarts[d];
    }

    // ---- helpers of the text formats ----------------------------------------------------------------------

    /** The tag of a single value of {@code kind} outside arrays: its array tag without the brackets, e.g. "date". */
    static String valueTag(ArrayKind kind) {
        String arrayTag = Wire.Json.arrayTag(kind);
        return arrayTag.substring(0, arrayTag.length() - 2);
    }

    /** {@code value} as {@code format} writes it, in {@link #text}. */
    final StringBuilder iso(DateTimeFormatter format, TemporalAccessor value) {
        StringBuilder sb = text;
        sb.setLength(0);
        format.formatTo(value, sb);
        return sb;
    }

    // ---- vectors ------------------------------------------------------------------------------------------

    /** Each of a vector's values, in order, to the encoder's hook for its kind. */
    final void vectorValues(VectorKind kind, Object values) {
        switch (kind) {
            case INT8 -> {
                byte[] v = (byte[]) values;
                for (int i = 0; i < v.length; i++) {
                    vectorInteger(i, v[i], kind);
                }
            }
            case INT16 -> {
                short[] v = (short[]) values;
                for (int i = 0; i < v.length; i++) {
                    vectorInteger(i, v[i], kind);
                }
            }
            case INT32 -> {
                int[] v = (int[]) values;
                for (int i = 0; i < v.length; i++) {
                    vectorInteger(i, v[i], kind);
                }
            }
            case INT64 -> {
                long[] v = (long[]) values;
                for (int i = 0; i < v.length; i++) {
                    vectorInteger(i, v[i], kind);
                }
            }
            case FLOAT32 -> {
                float[] v = (float[]) values;
                for (int i = 0; i < v.length; i++) {
                    vectorFloat(i, v[i]);
                }
            }
            case FLOAT64 -> {
                double[] v = (double[]) values;
                for (int i = 0; i < v.length; i++) {
                    vectorDouble(i, v[i]);
                }
            }
        }
    }

    /** The number of values of a vector. */
    static int vectorLength(VectorKind kind, Object values) {
        return switch (kind) {
            case INT8 -> ((byte[]) values).length;
            case INT16 -> ((short[]) values).length;
            case INT32 -> ((int[]) values).length;
            case INT64 -> ((long[]) values).length;
            case FLOAT32 -> ((float[]) values).length;
            case FLOAT64 -> ((double[]) values).length;
        };
    }

    /** The {@code index}th value of an integer vector of {@code kind} (it fits an int unless INT64). */
    abstract void vectorInteger(int index, long value, VectorKind kind);

    abstract void vectorFloat(int index, float value);

    abstract void vectorDouble(int index, double value);

    // ---- tokens -------------------------------------------------------------------------------------------

    /**
     * What to write for the token {@code id} of {@code kind} ({@link #LABEL_TOKEN}, {@link #TYPE_TOKEN},
     * {@link #KEY_TOKEN}): its reference, or on its first mention in the stream its definition. Asks
     * {@link TokenNames} once per token.
     */
    final byte[] token(int kind, int id) {
        byte[][] refs = kind == KEY_TOKEN ? keyRefs : kind == LABEL_TOKEN ? labelRefs : typeRefs;
        byte[] ref;
        if (id < refs.length && id >= 0 && (ref = refs[id]) != null) {
            return ref;
        }
        return newToken(kind, id);
    }

    /** A token's first mention: its name, its reference, what defines it. */
    private byte[] newToken(int kind, int id) {
        if (id < 0) {
            throw new IllegalArgumentException("negative token id " + id);
        }
        String name = WireText.wellFormed(switch (kind) {  // first: it may fail, and nothing is defined then
            case LABEL_TOKEN -> tokens.label(id);
            case TYPE_TOKEN -> tokens.relationshipType(id);
            default -> tokens.propertyKey(id);
        });
        byte[] ref = encodeToken(kind, dictionarySize[kind]++, name);
        byte[][] refs = kind == KEY_TOKEN ? keyRefs : kind == LABEL_TOKEN ? labelRefs : typeRefs;
        if (id >= refs.length) {
            refs = Arrays.copyOf(refs, Math.max(id + 1, refs.length * 2));
            switch (kind) {
                case LABEL_TOKEN -> labelRefs = refs;
                case TYPE_TOKEN -> typeRefs = refs;
                default -> keyRefs = refs;
            }
        }
        refs[id] = ref;
        return defineToken(ref, name);
    }

    /**
     * How the encoder refers to the {@code index}th token of {@code kind} in the stream, named {@code name}
     * (unpaired surrogates already replaced by {@code '?'}).
     */
    abstract byte[] encodeToken(int kind, int index, String name);

    /** What the first mention of a token writes: by default its reference. */
    byte[] defineToken(byte[] ref, String name) {
        return ref;
    }
}
