package org.subgraphexport.client;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.subgraphexport.client.internal.Decoders;
import org.subgraphexport.wire.Format;

/**
 * Reads an export stream record by record and hands each record's parts to an {@link ExportHandler}, without
 * building record objects: the streaming layer under {@link ExportReader}, as jackson-core's {@code JsonParser} is
 * under its {@code ObjectMapper}. One decoder per format serves both: {@link ExportReader} is a handler that builds
 * records. Use it where an application pours the export into structures of its own (an index, a graph library, a
 * file): primitives come as primitives, names as the stream's shared Strings, ids as {@link ElementId} views.
 *
 * <pre>{@code
 * try (ExportParser parser = ExportParser.open(response)) {    // or open(inputStream), open(Format, inputStream)
 *     ExportHandler handler = new ExportHandler() {
 *         public void node(ElementId id) { ... }                 // id.prefix(), id.number(), id.toString()
 *         public void property(String key) { ... }              // the next value call is its value
 *         public void longValue(long value) { ... }
 *         public void objectValue(Object value) { ... }         // every value without a typed call of its own
 *     };
 *     for (ExportParser.Kind kind; (kind = parser.next(handler)) != null; ) {
 *         ...                                                   // a record is complete: NODE, RELATIONSHIP, ...
 *     }
 * }
 * }</pre>
 *
 * <p>Checks and errors are {@link ExportReader}'s: the header is read on open; the end record's counts, the columns
 * and row order, distinct property keys are checked; the server's error record raises {@link ExportFailedException},
 * corrupt or truncated bytes {@link CorruptStreamException} (then the handler may have received part of the record
 * that failed), and after an exception {@code next} throws it again. Not thread-safe.
 */
public interface ExportParser extends AutoCloseable {
    /** What {@link #next} decoded. */
    enum Kind { COLUMNS, NODE, RELATIONSHIP, ROW, END, /** a delta stream's id that left */ LEFT }

    /** The stream's header record, read when the parser was opened. */
    ExportHeader header();

    /** The stream's format: given to {@code open}, taken from the Content-Type, or detected. */
    Format format();

    /**
     * Decodes the next record (columns, node, relationship, row, then end) into {@code handler} and returns its kind;
     * after the end record null forever. The handler may differ from call to call.
     *
     * @throws ExportFailedException  if the stream ends with the server's error record
     * @throws CorruptStreamException if the bytes are not a valid stream, including one that ends without a
     *                                closing record
     */
    Kind next(ExportHandler handler) throws IOException;

    /** The end record, once {@link #next} has returned {@link Kind#END}; null before. */
    ExportEnd end();

    /** Closes the input stream. */
    @Override
    void close() throws IOException;

    /** As {@link ExportReader#open(Format, InputStream)}. */
    static ExportParser open(Format format, InputStream in) throws IOException {
        return Decoders.open(format, in);
    }

    /** As {@link ExportReader#open(InputStream)}: the format detected from the first bytes. */
    static ExportParser open(InputStream in) throws IOException {
        return Decoders.open(in);
    }

    /** As {@link ExportReader#open(HttpResponse)}: the format from the Content-Type, a refusal as an exception. */
    static ExportParser open(HttpResponse<InputStream> response) throws IOException {
        return Decoders.open(response);
    }

    /** As {@link ExportReader#open(HttpClient, HttpRequest)}: sent, a busy server waited out ({@link BusyRetry#DEFAULT}). */
    static ExportParser open(HttpClient http, HttpRequest request) throws IOException {
        return open(BusyRetry.DEFAULT.send(http, request));
    }
}
