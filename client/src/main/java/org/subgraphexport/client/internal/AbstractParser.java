package org.subgraphexport.client.internal;

import java.io.EOFException;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import org.subgraphexport.client.CorruptStreamException;
import org.subgraphexport.client.ExportFailedException;
import org.subgraphexport.client.ExportEnd;
import org.subgraphexport.client.ExportHandler;
import org.subgraphexport.client.ExportHeader;
import org.subgraphexport.client.ExportParser;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.Wire;

/**
 * What all decoders share, the streaming layer that both APIs use: the header read on open, the record count, the
 * order of records (columns only right after the header, rows only after columns, one value per column), distinct
 * property keys, the check of the closing record's counts, and the rule that everything wrong with the bytes becomes
 * a {@link CorruptStreamException} (source I/O errors pass unchanged; a failure is remembered and thrown again by
 * later calls). A subclass decodes one record per {@link #readRecord} and hands its parts to the methods below, named
 * as {@link ExportHandler}'s, which check them and pass them on to the caller's handler; an exception the handler
 * throws passes out unchanged (not taken for corrupt bytes) and leaves the parser unusable.
 */
abstract class AbstractParser implements ExportParser {
    /** Longest probe sequence in the property key set before it falls back to a {@link HashSet} for the record. */
    private static final int MAX_PROBES = 32;

    private final Format format;
    final Source source;
    private ExportHeader header;
    private long records;
    private long nodes;
    private long relationships;
    private long rows;
    /** Columns of a rows stream, -1 for a graph stream (so far). */
    private int columnCount = -1;
    private boolean done;
    private ExportEnd endRecord;
    /** The stream's wire format version, from its header (1 until the header says otherwise). */
    int version = 1;
    private IOException failure;
    /** What the handler threw: the parser is unusable. */
    private RuntimeException handlerFailure;
    private ExportHandler handler;

    /**
     * The id views handed to the handler, one per role: node, relationship, start and end node, node and
     * relationship reference.
     */
    private final Ids.Prefixes prefixes = new Ids.Prefixes();
    final Ids nodeId = new Ids(prefixes);
    final Ids relationshipId = new Ids(prefixes);
    final Ids start = new Ids(prefixes);
    final Ids end = new Ids(prefixes);
    final Ids nodeRefId = new Ids(prefixes);
    final Ids relationshipRefId = new Ids(prefixes);

    /**
     * The current record's property keys, an open-addressing set cleared by a new generation per record (no
     * allocation); a record whose keys collide too much (keys chosen to share a hash code) goes on in a HashSet.
     */
    private String[] keySlots = new String[64];
    private int[] keyGenerations = new int[64];
    private int generation;
    private int keyCount;
    private HashSet<String> manyKeys;

    AbstractParser(Format format, Source source) {
        this.format = format;
        this.source = source;
    }

    /** Reads the header; called once, by {@link Decoders}. */
    final void start() throws IOException {
        try {
            header = guarded(true);
        } catch (IOException e) {
            try {
                source.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    @Override
    public final Format format() {
        return format;
    }

    @Override
    public final ExportHeader header() {
        return header;
    }

    @Override
    public final Kind next(ExportHandler handler) throws IOException {
        if (failure != null) {
            throw failure;
        }
        if (handlerFailure != null) {
            throw new IllegalStateException("the parser is unusable: its handler threw " + handlerFailure,
                    handlerFailure);
        }
        if (done) {
            return null;
        }
        this.handler = Objects.requireNonNull(handler, "handler");
        try {
            Kind kind = guarded(false);
            switch (kind) {
                case NODE -> nodes++;
                case RELATIONSHIP -> relationships++;
                case ROW -> rows++;
                default -> { }
            }
            return kind;
        } finally {
            this.handler = null;
        }
    }

    @SuppressWarnings("unchecked")
    private <R> R guarded(boolean first) throws IOException {
        try {
            Object r = first ? readHeader() : readRecord();
            records++;
            return (R) r;
        } catch (ExportFailedException | CorruptStreamException e) {
            throw failure = e;
        } catch (IOException e) {
            if (source.threw(e)) {
                throw failure = e;
            }
            throw failure = corrupt(e);
        } catch (HandlerFailure e) {
            throw handlerFailure = e.getCause();
        } catch (RuntimeException e) {
            throw failure = corrupt(e);
        } catch (StackOverflowError e) {
            // lists and maps are read recursively, Wire.MAX_NESTING levels at most: about 50 KB of stack
            throw failure = new CorruptStreamException("row values nested too deep for this thread's stack after "
                    + records + " records (the deepest allowed rows need about 50 KB of thread stack)", e);
        }
    }
    private CorruptStreamException corrupt(Exception e) {
        String what = e instanceof EOFException
                ? "stream truncated after " + records + " records"
                : "corrupt " + format.pathSegment() + " stream after " + records + " records";
        return new CorruptStreamException(what + " (" + source.count() + " bytes read): " + e, e);
    }

    /** The exception for a stream that ends before its closing record. */
    final CorruptStreamException truncated() {
        return new CorruptStreamException("stream truncated after " + records + " records (" + source.count()
                + " bytes read)");
    }

    final CorruptStreamException corrupt(String message) {
        return new CorruptStreamException("corrupt " + format.pathSegment() + " stream after " + records
                + " records (" + source.count() + " bytes read): " + message);
    }

    @Override
    public final ExportEnd end() {
        return done ? endRecord : null;
    }

    /** Whether this decoder reads streams of {@code version}. */
    static boolean supported(long version) {
        return version >= Wire.MIN_VERSION && version <= Wire.VERSION;
    }

    final CorruptStreamException unsupportedVersion(long version) {
        return new CorruptStreamException("unsupported " + format.pathSegment() + " stream version " + version
                + " (this decoder reads version " + Wire.VERSION + ")");
    }

    /** The number of columns of this rows stream, or -1 if no columns record has been returned. */
    final int columnCount() {
        return columnCount;
    }

    /** Checks the nesting of a list or map about to be read at {@code depth} (0 = a value of the row itself). */
    final void nest(int depth) throws CorruptStreamException {
        if (depth >= Wire.MAX_NESTING) {
            throw corrupt("lists and maps nested deeper than " + Wire.MAX_NESTING + " levels");
        }
    }

    /** Checks a decoded length against {@link Wire#MAX_LENGTH}. */
    final int length(long n, String what) throws CorruptStreamException {
        if (n < 0 || n > Wire.MAX_LENGTH) {
            throw corrupt(what + " length " + n + " outside 0.." + Wire.MAX_LENGTH);
        }
        return (int) n;
    }

    /** Capacity to allocate for {@code n} announced elements before any has arrived. */
    static int initialCapacity(int n) {
        return Math.min(n, 1024);
    }

    /** Next capacity of an array being filled that holds {@code length} of at most {@code n} elements. */
    static int grow(int length, int n) {
        return (int) Math.min(n, Math.max(16L, length * 2L));
    }

    abstract ExportHeader readHeader() throws IOException;

    /**
     * Decodes a node, relationship, columns, row or end record into the methods below and returns its kind; throws
     * {@link ExportFailedException} for an error record.
     */
    abstract Kind readRecord() throws IOException;

    @Override
    public void close() throws IOException {
        done = true;
        source.close();
    }

    /** Makes {@code h} the handler the methods below hand on to (a buffer, for a while); returns the previous one. */
    final ExportHandler handler(ExportHandler h) {
        ExportHandler previous = handler;
        handler = h;
        return previous;
    }

    // ---- records: checked, then handed to the handler -------------------------------------------------------

    final void columns(List<String> names) throws CorruptStreamException {
        if (records != 1) {
            throw corrupt("a columns record after " + records + " records, not right after the header");
        }
        columnCount = names.size();
        try {
            handler.columns(names);
        } catch (RuntimeException e) {
            throw new HandlerFailure(e);
        }
    }

    /** A node record begins; {@link #nodeId} holds its id. */
    final void node() {
        startKeys();
        try {
            handler.node(nodeId);
        } catch (RuntimeException e) {
            throw new HandlerFailure(e);
        }
    }

    final void label(String label) {
        try {
            handler.label(label);
        } catch (RuntimeException e) {
            throw new HandlerFailure(e);
        }
    }

    /** A relationship record begins; {@link #relationshipId}, {@link #start} and {@link #end} hold its ids. */
    final void relationship(String type) {
        startKeys();
        try {
            handler.relationship(relationshipId, type, start, end);
        } catch (RuntimeException e) {
            throw new HandlerFailure(e);
        }
    }

    final void property(String key) throws CorruptStreamException {
        if (!addKey(key)) {
            throw corrupt("property '" + key + "' twice in one record");
        }
        try {
            handler.property(key);
        } catch (RuntimeException e) {
            throw new HandlerFailure(e);
        }
    }

    /** A delta stream's left record: {@link #nodeId} (node) or {@link #relationshipId} holds its id. */
    final void left(boolean node) throws CorruptStreamException {
        if (!header.delta()) {
            throw corrupt("a left record in a stream that is not a delta");
        }
        try {
            if (node) handler.leftNode(nodeId);
            else handler.leftRelationship(relationshipId);
        } catch (RuntimeException e) {
            throw new HandlerFailure(e);
        }
    }

    /** A row record begins. */
    final void row() throws CorruptStreamException {
        if (columnCount < 0) {
            throw corrupt("a row record in a stream without columns");
        }
        try {
            handler.row();
        } catch (RuntimeException e) {
            throw new HandlerFailure(e);
        }
    }

    /** A row record ends after {@code values} values. */
    final void endRow(int values) throws CorruptStreamException {
        if (values != columnCount) {
            throw corrupt("a row of " + values + " values for " + columnCount + " columns");
        }
    }

    /** The end record, all of it read (nothing after it). */
    final void end(long nodes, long relationships, boolean truncated, long rows, String state)
            throws CorruptStreamException {
        done = true;
        endRecord = new ExportEnd(nodes, relationships, truncated, rows, state);
        if (nodes != this.nodes || relationships != this.relationships || rows != this.rows) {
            throw new CorruptStreamException("end record counts " + nodes + " nodes, " + relationships
                    + " relationships and " + rows + " rows, but the stream had " + this.nodes + ", "
                    + this.relationships + " and " + this.rows);
        }
        try {
            handler.end(nodes, relationships, truncated, rows);
        } catch (RuntimeException e) {
            throw new HandlerFailure(e);
        }
    }

    // ---- values -------------------------------------------------------------------------------------------

    final void objectValue(Object value) {
        try {
            handler.objectValue(value);
        } catch (RuntimeException e) {
            throw new HandlerFailure(e);
        }
    }

    final void booleanValue(boolean value) {
        try {
            handler.booleanValue(value);
        } catch (RuntimeException e) {
            throw new HandlerFailure(e);
        }
    }

    final void byteValue(byte value) {
        try {
            handler.byteValue(value);
        } catch (RuntimeException e) {
            throw new HandlerFailure(e);
        }
    }

    final void shortValue(short value) {
        try {
            handler.shortValue(value);
        } catch (RuntimeException e) {
            throw new HandlerFailure(e);
        }
    }

    final void intValue(int value) {
        try {
            handler.intValue(value);
        } catch (RuntimeException e) {
            throw new HandlerFailure(e);
        }
    }

    final void longValue(long value) {
        try {
            handler.longValue(value);
        } catch (RuntimeException e) {
            throw new HandlerFailure(e);
        }
    }

    final void floatValue(float value) {
        try {
            handler.floatValue(value);
        } catch (RuntimeException e) {
            throw new HandlerFailure(e);
        }
    }

    final void doubleValue(double value) {
        try {
            handler.doubleValue(value);
        } catch (RuntimeException e) {
            throw new HandlerFailure(e);
        }
    }

    final void charValue(char value) {
        try {
            handler.charValue(value);
        } catch (RuntimeException e) {
            throw new HandlerFailure(e);
        }
    }

    final void stringValue(String value) {
        try {
            handler.stringValue(value);
        } catch (RuntimeException e) {
            throw new HandlerFailure(e);
        }
    }

    final void nullValue() {
        try {
            handler.nullValue();
        } catch (RuntimeException e) {
            throw new HandlerFailure(e);
        }
    }

    final void beginList(int size) {
        try {
            handler.beginList(size);
        } catch (RuntimeException e) {
            throw new HandlerFailure(e);
        }
    }

    final void endList() {
        try {
            handler.endList();
        } catch (RuntimeException e) {
            throw new HandlerFailure(e);
        }
    }

    final void beginMap(int size) {
        try {
            handler.beginMap(size);
        } catch (RuntimeException e) {
            throw new HandlerFailure(e);
        }
    }

    /** A map key; the decoder checks that it is distinct within its map. */
    final void mapKey(String key) {
        try {
            handler.mapKey(key);
        } catch (RuntimeException e) {
            throw new HandlerFailure(e);
        }
    }

    final void endMap() {
        try {
            handler.endMap();
        } catch (RuntimeException e) {
            throw new HandlerFailure(e);
        }
    }

    /** A node reference; {@link #nodeRefId} holds its id. */
    final void nodeRef() {
        try {
            handler.nodeRef(nodeRefId);
        } catch (RuntimeException e) {
            throw new HandlerFailure(e);
        }
    }

    /** A relationship reference; {@link #relationshipRefId} holds its id. */
    final void relationshipRef() {
        try {
            handler.relationshipRef(relationshipRefId);
        } catch (RuntimeException e) {
            throw new HandlerFailure(e);
        }
    }

    // ---- distinct property keys ------------------------------------------------------------------------------

    private void startKeys() {
        keyCount = 0;
        manyKeys = null;
        if (++generation == 0) {
            Arrays.fill(keyGenerations, 0);
            generation = 1;
        }
    }

    /** Adds a key of the current record; false if it was there already. */
    private boolean addKey(String key) {
        if (manyKeys != null) {
            return manyKeys.add(key);
        }
        if (keyCount * 2 >= keySlots.length) {
            growKeys();
        }
        String[] slots = keySlots;
        int[] generations = keyGenerations;
        int mask = slots.length - 1;
        int g = generation;
        int i = (key.hashCode() * 0x9E3779B9) >>> 16 & mask;
        for (int probes = 0; generations[i] == g; probes++, i = (i + 1) & mask) {
            String s = slots[i];
            if (s == key || s.equals(key)) {
                return false;
            }
            if (probes == MAX_PROBES) {  // keys chosen to collide: a HashSet's tree bins keep them O(log n)
                manyKeys = new HashSet<>();
                for (int j = 0; j < slots.length; j++) {
                    if (generations[j] == g) {
                        manyKeys.add(slots[j]);
                    }
                }
                return manyKeys.add(key);
            }
        }
        generations[i] = g;
        slots[i] = key;
        keyCount++;
        return true;
    }

    private void growKeys() {
        String[] old = keySlots;
        int[] oldGenerations = keyGenerations;
        int g = generation;
        keySlots = new String[old.length * 2];
        keyGenerations = new int[old.length * 2];
        keyCount = 0;
        for (int j = 0; j < old.length; j++) {
            if (oldGenerations[j] == g) {
                addKey(old[j]);
            }
        }
    }

    /** A handler's exception on its way out of {@link #next}, unchanged. */
    private static final class HandlerFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        HandlerFailure(RuntimeException cause) {
            super(cause);
        }

        @Override
        public synchronized RuntimeException getCause() {
            return (RuntimeException) super.getCause();
        }
    }
}
