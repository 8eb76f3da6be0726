package org.subgraphexport.server;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import javax.ws.rs.core.StreamingOutput;
import org.neo4j.graphdb.Transaction;
import org.neo4j.kernel.api.exceptions.Status;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;
import org.neo4j.logging.Log;
import org.subgraphexport.encode.ContentCoding;
import org.subgraphexport.encode.Encoders;
import org.subgraphexport.read.ExportState;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.TokenNames;

/**
 * The streaming half of every export endpoint: opens the read transaction, the writer and the body inside
 * {@link #write}, and decides how the stream ends.
 * <ul>
 *   <li>Success: the body writes its end record; the writer is finished; the transaction closes (read only,
 *       nothing to commit).</li>
 *   <li>A failure while reading or encoding: an error record with the Neo4j status code when there is one,
 *       then the writer is finished, so the client sees a well-formed stream that says what went wrong.</li>
 *   <li>The client went away (a write to the servlet stream failed), or stopped reading for longer than
 *       {@code server.subgraph_export.write_stall_timeout} (the {@link ExportAdmission.Ticket} aborts the response): nothing
 *       more can be written; the transaction is terminated so the read stops and its resources are released, and
 *       the exception is rethrown for the container.</li>
 *   <li>Whatever the end, the export's slot is given back.</li>
 * </ul>
 * The body goes through a {@link CodedStream} in the negotiated content coding, whose frame is completed after the
 * end or error record alike. A response kept by the {@link ResponseCache} goes out through {@link #replay}: admitted
 * and watched the same way, without a transaction.
 */
final class ExportOutput implements StreamingOutput {
    /** The export itself, run inside the transaction; must write the end record on success. */
    @FunctionalInterface
    interface Body {
        void run(InternalTransaction tx, GraphWriter out) throws Exception;
    }

    static final String FAILED = "Export.Failed";

    /** Opens (or hands over) the export's transaction; it is closed at the end of {@link #write}. */
    @FunctionalInterface
    interface TransactionSource {
        Transaction open();
    }

    /**
     * Receives the complete response of a successful export of at most {@code maxBytes}, as sent: in the content
     * coding named.
     */
    record Capture(long maxBytes, BiConsumer<ContentCoding, byte[]> complete) {}

    /** The negotiated content coding, and what announces the one chosen (headers) before the first byte. */
    record Coding(AcceptEncoding.Choice choice, Consumer<ContentCoding> announce) {}

    private final ExportAdmission.Ticket ticket;
    private final TransactionSource transactions;
    private final Format format;
    private final Body body;
    private final Log log;
    private final Coding coding;
    private Capture capture;

    /** An export admitted with {@code ticket}, which it gives back when the stream ends. */
    ExportOutput(ExportAdmission.Ticket ticket, TransactionSource transactions, Format format, Coding coding, Body body,
            Log log) {
        this.ticket = ticket;
        this.transactions = transactions;
        this.format = format;
        this.coding = coding;
        this.body = body;
        this.log = log;
    }

    /** Also keeps a copy of the response, handed to {@code capture} if the export succeeds and fits. */
    ExportOutput capturing(Capture capture) {
        this.capture = capture;
        return this;
    }

    @Override
    public void write(OutputStream servletStream) throws IOException {
        ClientStream client = new ClientStream(servletStream, ticket);
        CopyStream copy = capture == null ? null : new CopyStream(client, capture.maxBytes());
        CodedStream coded = new CodedStream(copy == null ? client : copy, coding.choice(), coding.announce());
        GraphWriter out = Encoders.open(format, coded);
        Transaction tx = null;
        try {
            tx = transactions.open();
            ticket.watch((InternalTransaction) tx);
            body.run((InternalTransaction) tx, out);
            out.finish();
            coded.finish();
            if (copy != null && !copy.overflowed) {
                capture.complete().accept(coded.coding(), copy.copy.toByteArray());
            }
        } catch (Throwable failure) {
            String ended = ticket.endedBecause(); // the watchdog's: the response is aborted, nothing more goes out
            if (client.failed != null || ended != null) {
                if (tx != null) tx.terminate();
                log.info("export to %s client ended early: %s", format.pathSegment(),
                        ended != null ? ended : client.failed.getMessage());
                throw client.failed != null ? client.failed : new IOException(ended, failure);
            }
            log.warn("export failed after streaming started: " + failure, failure);
            try {
                writeError(out, tx, failure);
                out.finish();
                coded.finish();  // a complete compressed frame around the error record
            } catch (IOException e) {
                if (tx != null) tx.terminate();
                throw client.failed != null ? client.failed : e;
            }
        } finally {
            try {
                out.abort(); // after finish() a no-op; otherwise releases buffers and any compressor thread
                coded.abort();
                if (tx != null) tx.close();
            } finally {
                ticket.close();
            }
        }
    }

    /**
     * A complete response kept from an earlier export ({@link ResponseCache}), sent as an export is: admitted with
     * {@code ticket}, each write watched, so that a client that stops reading is ended after the write-stall time
     * (and one that leaves is noticed), and the slot given back at the end.
     */
    static StreamingOutput replay(ExportAdmission.Ticket ticket, Format format, byte[] response, Log log) {
        return servletStream -> {
            ClientStream client = new ClientStream(servletStream, ticket);
            ticket.watch(null);
            try {
                client.write(response, 0, response.length);
                client.flush();
            } catch (IOException failure) {
                String ended = ticket.endedBecause();
                log.info("cached export to %s client ended early: %s", format.pathSegment(),
                        ended != null ? ended : failure.getMessage());
                throw ended != null ? new IOException(ended, failure) : failure;
            } finally {
                ticket.close();
            }
        };
    }

    /** The error record; if the failure came before the header (no transaction, say), a bare header first. */
    private static void writeError(GraphWriter out, Transaction tx, Throwable failure) throws IOException {
        try {
            out.error(code(failure), message(failure));
        } catch (IllegalStateException noHeaderYet) {
            String database = tx instanceof InternalTransaction itx ? itx.getDatabaseName() : "";
            out.header(new Header(database, "", "", ""), NO_TOKENS);
            out.error(code(failure), message(failure));
        }
    }

    private static final TokenNames NO_TOKENS = new TokenNames() {
        @Override
        public String label(int id) {
            throw new IllegalStateException("no tokens in an error-only stream");
        }

        @Override
        public String relationshipType(int id) {
            return label(id);
        }

        @Override
        public String propertyKey(int id) {
            return label(id);
        }
    };

    static String code(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof ExportState.Changed changed) {
                return changed.code();
            }
            if (c instanceof org.subgraphexport.read.ChangeJournal.Unavailable unavailable) {
                return unavailable.code();
            }
            if (c instanceof Status.HasStatus s) {
                return s.status().code().serialize();
            }
        }
        return FAILED;
    }

    static String message(Throwable t) {
        String m = t.getMessage();
        return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
    }

    /** Passes everything on and keeps a copy of the first {@code max} bytes. */
    private static final class CopyStream extends FilterOutputStream {
        final java.io.ByteArrayOutputStream copy = new java.io.ByteArrayOutputStream(1 << 16);
        final long max;
        boolean overflowed;

        CopyStream(OutputStream out, long max) {
            super(out);
            this.max = max;
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            keep(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            keep(b, off, len);
        }

        private void keep(byte[] b, int off, int len) {
            if (overflowed) return;
            if (copy.size() + (long) len > max) {
                overflowed = true;
                copy.reset();
                return;
            }
            copy.write(b, off, len);
        }

        @Override
        public void close() {
            // The container owns and closes the servlet stream.
        }
    }

    /**
     * Remembers the first failure of the servlet stream (after it the client is gone), and tells the ticket when a
     * write is under way, so that one the client does not take can be ended.
     */
    private static final class ClientStream extends FilterOutputStream {
        /** The most bytes one write hands the container: a client must take this much per stall time. */
        static final int WRITE_PIECE = 32 * 1024;
        /** Set by whichever thread writes to the client (a compressor writes from its own). */
        volatile IOException failed;
        private final ExportAdmission.Ticket ticket;

        ClientStream(OutputStream out, ExportAdmission.Ticket ticket) {
            super(out);
            this.ticket = ticket;
        }

        @Override
        public void write(int b) throws IOException {
            ticket.writing();
            try {
                out.write(b);
            } catch (IOException e) {
                throw fail(e);
            } finally {
                ticket.written();
            }
        }

        /** In pieces of {@link #WRITE_PIECE}: each must go out within the stall time, whatever the buffer's size. */
        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            for (int done = 0; done < len; ) {
                int n = Math.min(len - done, WRITE_PIECE);
                ticket.writing();
                try {
                    out.write(b, off + done, n);
                } catch (IOException e) {
                    throw fail(e);
                } finally {
                    ticket.written();
                }
                done += n;
            }
        }

        @Override
        public void flush() throws IOException {
            ticket.writing();
            try {
                out.flush();
            } catch (IOException e) {
                throw fail(e);
            } finally {
                ticket.written();
            }
        }

        @Override
        public void close() {
            // The container owns and closes the servlet stream.
        }

        private IOException fail(IOException e) {
            if (failed == null) failed = e;
            return e;
        }
    }
}
