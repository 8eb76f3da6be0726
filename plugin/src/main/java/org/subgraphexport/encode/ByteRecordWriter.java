package org.subgraphexport.encode;

import org.subgraphexport.wire.TokenNames;
import org.subgraphexport.wire.Wire;
import org.subgraphexport.wire.GraphWriter;

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
 * What the byte-level writers ({@link JsonGraphWriter}, {@link BsonGraphWriter}) share besides their encoding: the
 * record buffer and its hand-over to the target, the token-name caches, and the {@link GraphWriter} call protocol,
 * which they check themselves (the open typed array, the row, list and map stack, whether a property's value is
 * due) so that a call the contract forbids throws {@link IllegalStateException} before it writes anything.
 *
 * <p>Buffering: the buffer grows rather than hand part of a record to the target, and goes to the target (a write,
 * no flush) at the end of a record once it holds {@link Wire#KRYO_BUFFER} bytes or more, so {@link #error} can cut
 * an unfinished record by moving the write position back to {@link #committed}, the end of the last complete one.
 * The target is flushed once, by {@link #finish}, and never closed.
 *
 * <p>Where a value goes: {@link #valueSlot} and its variants check the protocol and return the index of the value
 * in the innermost row, list or typed array (the writer separates or names it), or -1 for the value of the property
 * or map key written last (its name is written).
 */
abstract sealed class ByteRecordWriter implements GraphWriter permits JsonGraphWriter, BsonGraphWriter {
    // kinds of open containers
    static final int ROW = 1, LIST = 2, MAP_KIND = 3;
    // records with properties
    static final int NODE = 1, RELATIONSHIP = 2;

    private final OutputStream target;
    byte[] buf = new byte[2 * Wire.KRYO_BUFFER];
    int pos;
    /** Buffer position at the end of the last complete record: where {@link #error} cuts back to. */
    int committed;
    /** Bytes handed to the target so far. */
    private long drained;
    private TokenNames tokens;
    /** Encoded names by database token id, as {@link #encodeLabel} and its kin make them. Null until first met. */
    private byte[][] labels = new byte[64][], types = new byte[16][], keys = new byte[64][];
    private boolean started, closed, finished;
    /** Stream offset right after the header record. */
    private long headerEnd;
    /** The record whose properties are open: {@link #NODE}, {@link #RELATIONSHIP}, or 0 between records. */
    int inProperties;
    /** After {@link #property}, before its value. */
    boolean valueDue;
    /** Kind of the open typed array, null outside arrays; its elements so far. */
    ArrayKind array;
    int arrayCount;
    /** Number of columns of a rows stream; -1 for a graph stream. */
    int columnCount = -1;
    long rows;
    /**
     * Open row, lists and maps, innermost last: kinds, announced sizes, entries so far, a map entry's value due,
     * and where the writer says each one starts in the buffer.
     */
    int depth;
    private int[] containerKinds = new int[8], containerSizes = new int[8], containerCounts = new int[8];
    int[] containerStarts = new int[8];
    private boolean[] mapValueDue = new boolean[8];
    /** For formatting temporal values and numbers without a String. */
    final StringBuilder text = new StringBuilder(64);

    ByteRecordWriter(OutputStream target) {
        this.target = target;
    }

    // ---- records ------------------------------------------------------------------------------------------

    /** Starts {@link #header}: checks it comes once, and drops what a header() that threw half-way wrote. */
    final void beginHeader(TokenNames tokens) {
        if (started) {
            throw new IllegalStateException("header() twice");
        }
        this.tokens = tokens;
        pos = committed;
    }

    /** The header record's bytes are complete. */
    final void endHeader() throws IOException {
        endRecord();
        headerEnd = drained + pos;
        started = true;
    }

    /** Checks that a node, relationship or row may begin here: after the header, between records. */
    final void beginRecord(String call) {
        if (!started || closed || finished || pos != committed) {
            throw new IllegalStateException(call + (!started ? " before header()" : closed || finished
                    ? " after the closing record" : " inside a record"));
        }
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

    /** Checks that a property may start here. */
    final void checkProperty() {
        if (inProperties == 0 || valueDue || array != null) {
            throw new IllegalStateException(inProperties == 0 ? "property() outside a node or relationship"
                    : valueDue ? "property() where the previous property's value is due"
                    : "property() inside an array");
        }
    }

    /** Checks that {@code names} may be the columns record here: right after the header, at most as many as allowed. */
    final void checkColumns(String[] names) {
        if (!started || closed || drained + committed != headerEnd || pos != committed) {
            throw new IllegalStateException("columns() comes once, right after header()");
        }
        if (names.length > Wire.MAX_LENGTH) {
            throw new IllegalArgumentException(names.length + " columns");
        }
    }

    /** Checks that a row may begin here. */
    final void checkBeginRow() {
        if (columnCount < 0 || depth != 0 || array != null) {
            throw new IllegalStateException(columnCount < 0 ? "beginRow() without columns()"
                    : "beginRow() inside a row or an array");
        }
        beginRecord("beginRow()");
    }

    /** Checks that the end record may come here. */
    final void checkEnd() {
        requireOpen("end()");
        if (pos != committed || depth != 0 || array != null) {
            throw new IllegalStateException("end() inside a record");
        }
    }

    /** Starts {@link #error}: checks it may come, and drops an unfinished record. */
    final void beginError() {
        requireOpen("error()");
        pos = committed;
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
    public final void finish() throws IOException {
        if (finished) {
            return;
        }
        finished = true;
        if (!started || pos != committed) {
            throw new IllegalStateException(!started ? "finish() before header()" : "finish() inside a record");
        }
        endStream();
        int n = pos;
        pos = 0;
        committed = 0;
        if (n > 0) {
            target.write(buf, 0, n);
            drained += n;
        }
        target.flush();
    }

    /** Whatever follows the last record (JSON: the closing bracket). */
    abstract void endStream();

    // ---- where values go ----------------------------------------------------------------------------------

    /**
     * Checks that a value may start here, outside typed arrays: the value of the property named last, or the next
     * value of the innermost row or list, or of the map key written last. Returns the row or list index, or -1.
     */
    final int valueSlot() {
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
        if (valueDue) {
            valueDue = false;
            return -1;
        }
        throw new IllegalStateException("a value without its property()");
    }

    /** A value that may also be an element of a typed array of {@code kind}: its index there, or {@link #valueSlot}. */
    final int elementSlot(ArrayKind kind) {
        if (array == null) {
            return valueSlot();
        }
        if (array != kind) {
            throw new IllegalStateException(kind + " value in an array of " + array);
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

    /** A typed array starts (the writer opens it, then sets {@link #array}). */
    final int beginArraySlot() {
        return scalarSlot("nested arrays are not values");
    }

    /** Ends the open typed array and returns its kind. */
    final ArrayKind endArraySlot() {
        ArrayKind kind = array;
        if (kind == null) {
            throw new IllegalStateException("endArray without beginArray");
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

    /** A list or a map of {@code size} entries starts; the writer then {@link #push}es it. */
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

    // ---- temporal values -----------------------------------------------------------------------------------

    @Override
    public final void writeDate(LocalDate value) throws IOException {
        temporal(ArrayKind.DATE, DateTimeFormatter.ISO_LOCAL_DATE, value);
    }

    @Override
    public final void writeLocalTime(LocalTime value) throws IOException {
        temporal(ArrayKind.LOCAL_TIME, DateTimeFormatter.ISO_LOCAL_TIME, value);
    }

    @Override
    public final void writeTime(OffsetTime value) throws IOException {
        temporal(ArrayKind.TIME, DateTimeFormatter.ISO_OFFSET_TIME, value);
    }

    @Override
    public final void writeLocalDateTime(LocalDateTime value) throws IOException {
        temporal(ArrayKind.LOCAL_DATE_TIME, DateTimeFormatter.ISO_LOCAL_DATE_TIME, value);
    }

    @Override
    public final void writeDateTime(ZonedDateTime value) throws IOException {
        temporal(ArrayKind.DATE_TIME, DateTimeFormatter.ISO_ZONED_DATE_TIME, value);
    }

    /** The tag of a single value of {@code kind} outside arrays: its array tag without the brackets, e.g. "date". */
    static String valueTag(ArrayKind kind) {
        String arrayTag = Wire.Json.arrayTag(kind);
        return arrayTag.substring(0, arrayTag.length() - 2);
    }

    /**
     * A temporal value of {@code kind} (the array kind that holds it), as {@code format} writes it: outside arrays
     * tagged with {@link #valueTag}.
     */
    abstract void temporal(ArrayKind kind, DateTimeFormatter format, TemporalAccessor value);

    /** {@code value} as {@code format} writes it, in {@link #text}. */
    final StringBuilder format(DateTimeFormatter format, TemporalAccessor value) {
        StringBuilder sb = text;
        sb.setLength(0);
        format.formatTo(value, sb);
        return sb;
    }

    // ---- vectors ------------------------------------------------------------------------------------------

    /** Each of a vector's values, in order, to the writer's hook for its kind. */
    final void vectorValues(VectorKind kind, Object values) {
        switch (kind) {
            case INT8 -> {
                byte[] v = (byte[]) values;
                for (int i = 0; i < v.length; i++) {
                    vectorInteger(i, v[i], false);
                }
            }
            case INT16 -> {
                short[] v = (short[]) values;
                for (int i = 0; i < v.length; i++) {
                    vectorInteger(i, v[i], false);
                }
            }
            case INT32 -> {
                int[] v = (int[]) values;
                for (int i = 0; i < v.length; i++) {
                    vectorInteger(i, v[i], false);
                }
            }
            case INT64 -> {
                long[] v = (long[]) values;
                for (int i = 0; i < v.length; i++) {
                    vectorInteger(i, v[i], true);
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

    /** The {@code index}th value of an integer vector; {@code int64} for INT64, else it fits an int. */
    abstract void vectorInteger(int index, long value, boolean int64);

    abstract void vectorFloat(int index, float value);

    abstract void vectorDouble(int index, double value);

    // ---- tokens -------------------------------------------------------------------------------------------

    final byte[] label(int id) {
        byte[][] cache = labels = ensure(labels, id);
        byte[] s = cache[id];
        if (s == null) {
            s = cache[id] = encodeLabel(WireText.wellFormed(tokens.label(id)));
        }
        return s;
    }

    final byte[] type(int id) {
        byte[][] cache = types = ensure(types, id);
        byte[] s = cache[id];
        if (s == null) {
            s = cache[id] = encodeType(WireText.wellFormed(tokens.relationshipType(id)));
        }
        return s;
    }

    final byte[] key(int id) {
        byte[][] cache = keys = ensure(keys, id);
        byte[] s = cache[id];
        if (s == null) {
            s = cache[id] = encodeKey(WireText.wellFormed(tokens.propertyKey(id)));
        }
        return s;
    }

    /** A label as the writer copies it, from its name with unpaired surrogates replaced. */
    abstract byte[] encodeLabel(String name);

    abstract byte[] encodeType(String name);

    abstract byte[] encodeKey(String name);

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

    final void ensure(int n) {
        if (n > buf.length - pos) {
            long needed = (long) pos + n;
            if (needed > Integer.MAX_VALUE - 8) {
                throw new IllegalStateException("a record of more than 2 GB");
            }
            buf = Arrays.copyOf(buf, (int) Math.min(Integer.MAX_VALUE - 8, Math.max(needed, 2L * buf.length)));
        }
    }

    final void put(byte b) {
        ensure(1);
        buf[pos++] = b;
    }

    final void put(byte[] bytes) {
        int n = bytes.length;
        ensure(n);
        System.arraycopy(bytes, 0, buf, pos, n);
        pos += n;
    }

    /** Lower-case hex digits, as {@link java.util.UUID#toString()} writes them. */
    static void hex(byte[] b, int at, long bits, int digits) {
        for (int i = at + digits - 1; i >= at; i--) {
            int d = (int) (bits & 0xF);
            b[i] = (byte) (d < 10 ? '0' + d : 'a' + d - 10);
            bits >>>= 4;
        }
    }
}
