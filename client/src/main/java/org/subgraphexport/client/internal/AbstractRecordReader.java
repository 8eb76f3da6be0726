package org.subgraphexport.client.internal;

import java.io.EOFException;
import java.io.IOException;
import org.subgraphexport.client.CorruptStreamException;
import org.subgraphexport.client.ExportColumns;
import org.subgraphexport.client.ExportEnd;
import org.subgraphexport.client.ExportFailedException;
import org.subgraphexport.client.ExportHeader;
import org.subgraphexport.client.ExportNode;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.ExportRecord;
import org.subgraphexport.client.ExportRelationship;
import org.subgraphexport.client.ExportRow;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.Wire;

/**
 * What all decoders share: the header read on open, the record count, the order of records (columns only right
 * after the header, rows only after columns), the check of the closing record's counts, and the rule that
 * everything wrong with the bytes becomes a {@link CorruptStreamException} (source I/O errors pass unchanged; a
 * failure is remembered and thrown again by later calls).
 */
abstract class AbstractRecordReader implements ExportReader {
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
    private IOException failure;

    AbstractRecordReader(Format format, Source source) {
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
    public final ExportRecord next() throws IOException {
        if (failure != null) {
            throw failure;
        }
        if (done) {
            return null;
        }
        long before = records;
        ExportRecord r = guarded(false);
        if (r instanceof ExportNode) {
            nodes++;
        } else if (r instanceof ExportRelationship) {
            relationships++;
        } else if (r instanceof ExportColumns c) {
            if (before != 1) {
                throw failure = corrupt("a columns record after " + before + " records, not right after the header");
            }
            columnCount = c.names().size();
        } else if (r instanceof ExportRow row) {
            if (columnCount < 0) {
                throw failure = corrupt("a row record in a stream without columns");
            }
            if (row.values().size() != columnCount) {
                throw failure = corrupt("a row of " + row.values().size() + " values for " + columnCount
                        + " columns");
            }
            rows++;
        } else if (r instanceof ExportEnd end) {
            done = true;
            if (end.nodes() != nodes || end.relationships() != relationships || end.rows() != rows) {
                throw failure = new CorruptStreamException("end record counts " + end.nodes() + " nodes, "
                        + end.relationships() + " relationships and " + end.rows() + " rows, but the stream had "
                        + nodes + ", " + relationships + " and " + rows);
            }
        } else {  // ExportHeader: ExportRecord is sealed
            throw failure = new CorruptStreamException("a second header record after " + records + " records");
        }
        return r;
    }

    @SuppressWarnings("unchecked")
    private <R extends ExportRecord> R guarded(boolean first) throws IOException {
        try {
            ExportRecord r = first ? readHeader() : readRecord();
            records++;
            return (R) r;
        } catch (ExportFailedException | CorruptStreamException e) {
            throw failure = e;
        } catch (IOException e) {
            if (source.threw(e)) {
                throw failure = e;
            }
            throw failure = corrupt(e);
        } catch (RuntimeException e) {
            throw failure = corrupt(e);
        } catch (StackOverflowError e) {
            // lists and maps are read recursively, Wire.MAX_NESTING levels at most: about 50 KB of stack
            throw failure = new CorruptStreamException("row values nested too deep for this thread's stack after "
                    + records + " records (the deepest allowed rows need about 50 KB of thread stack)", e);
        }
    }

    private CorruptStreamException corrupt(Exception e) {
        String what = e instanceof EOFException || isJacksonEof(e)
                ? "stream truncated after " + records + " records"
                : "corrupt " + format.pathSegment() + " stream after " + records + " records";
        return new CorruptStreamException(what + " (" + source.count() + " bytes read): " + e, e);
    }

    private static boolean isJacksonEof(Exception e) {
        return e instanceof com.fasterxml.jackson.core.io.JsonEOFException;
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
     * A node, relationship, columns, row or end record; throws {@link ExportFailedException} for an error record.
     */
    abstract ExportRecord readRecord() throws IOException;

    @Override
    public void close() throws IOException {
        done = true;
        source.close();
    }
}
