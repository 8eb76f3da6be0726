package org.subgraphexport.client;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.subgraphexport.client.internal.Decoders;
import org.subgraphexport.client.internal.RecordReader;
import org.subgraphexport.wire.Format;

/**
 * Reads an export stream record by record, in any of the four record formats, without holding more than one record.
 * Built on the streaming API {@link ExportParser}, which hands over the same records' parts without building objects.
 * The columnar {@code arrow} format is for Arrow readers (pyarrow, the Python package): opening it throws
 * {@link IllegalArgumentException}.
 *
 * <pre>{@code
 * HttpRequest request = ContentEncodings.request(URI.create(url)).build();   // asks for zstd/gzip compression
 * try (ExportReader reader = ExportReader.open(HttpClient.newHttpClient(), request)) {   // waits out a busy server
 *     // or open(httpResponse), open(inputStream), open(Format, inputStream)
 *     ExportHeader header = reader.header();                   // database, root
 *     for (ExportRecord r; (r = reader.next()) != null; ) {
 *         if (r instanceof ExportNode n) {
 *             ...                                              // n.id(), n.labels(), n.properties()
 *         } else if (r instanceof ExportRelationship rel) {
 *             ...                                              // rel.type(), rel.start(), rel.end(), ...
 *         } else if (r instanceof ExportColumns c) {           // rows streams: right after the header
 *             ...
 *         } else if (r instanceof ExportRow row) {             // rows streams
 *             ...
 *         } else if (r instanceof ExportEnd end) {             // the last record: end.truncated()
 *             ...
 *         }
 *     }
 * }
 * }</pre>
 *
 * <p>Property values decode to: Boolean, Byte, Short, Integer, Long, Float, Double, Character, String, byte[],
 * LocalDate, LocalTime, OffsetTime, LocalDateTime, ZonedDateTime, {@link DurationValue}, {@link PointValue},
 * java.util.UUID, {@link VectorValue}; arrays to boolean[], short[], int[], long[], float[], double[], char[],
 * String[], PointValue[], LocalDate[], LocalTime[], OffsetTime[], LocalDateTime[], ZonedDateTime[], DurationValue[],
 * UUID[]. Every format round-trips every type exactly (JSON and BSON carry type tags for what plain JSON lacks);
 * one exception: in JSON and BSON a {@code char} that is a lone surrogate becomes {@code '?'}.
 *
 * <p>Row values ({@link ExportRow}) are any of those, or null, {@code List<Object>} (unmodifiable, stream order),
 * {@code Map<String, Object>} (unmodifiable, insertion-ordered: stream order), {@link NodeRef},
 * {@link RelationshipRef} or {@link PathValue}, nested at most {@link org.subgraphexport.wire.Wire#MAX_NESTING} lists
 * and maps deep. The reader checks that columns come right after the header and each row has one value per
 * column; {@link Subgraph#read} also checks that references resolve to earlier records. Lists and maps are read
 * recursively: the deepest allowed rows need about 50 KB of thread stack (the JVM's default is 1 MB); with less,
 * such a row fails with {@link CorruptStreamException}, never a {@code StackOverflowError}.
 *
 * <p>Errors: a response with a status other than 2xx raises {@link ExportRequestException} (status, the server's
 * code and message) from {@link #open(HttpResponse)} (and from {@link #open(HttpClient, HttpRequest)} after
 * {@link BusyRetry}). The server's error record raises
 * {@link ExportFailedException} after the records before it were returned: every complete record the server wrote
 * (a record it was writing when it failed is not in the stream at all). Bytes that are not a valid stream
 * (truncated, garbage, lengths beyond limits, no format detected) raise {@link CorruptStreamException}; an
 * {@code IOException} of the input stream itself passes unchanged. After an exception, {@code next()} throws it
 * again. Not thread-safe.
 */
public interface ExportReader extends AutoCloseable {
    /** The stream's header record, read when the reader was opened. */
    ExportHeader header();

    /**
     * The next record (columns, node, relationship, row), then the {@link ExportEnd} record, then null forever.
     *
     * @throws ExportFailedException  if the stream ends with the server's error record
     * @throws CorruptStreamException if the bytes are not a valid stream, including one that ends without a
     *                                closing record
     */
    ExportRecord next() throws IOException;

    /** Closes the input stream. */
    @Override
    void close() throws IOException;

    /** The stream's format: given to {@code open}, taken from the Content-Type, or detected. */
    Format format();

    /**
     * Opens a reader over {@code in}, a stream in {@code format}, and reads the header. The reader owns {@code in}
     * and closes it on {@link #close} (or here, if the header cannot be read). Buffers internally: {@code in} need
     * not be buffered.
     */
    static ExportReader open(Format format, InputStream in) throws IOException {
        return new RecordReader(Decoders.open(format, in));
    }

    /**
     * Opens a reader over {@code in}, detecting its format from the first bytes, and reads the header: {@code kryo}
     * starts with the magic {@code 'S' 'G' 'X'}, {@code kryo-lzf} with an LZF chunk's {@code 'Z' 'V'}, {@code json}
     * with {@code '['} (after an optional UTF-8 byte order mark and whitespace), {@code bson} with a document whose
     * first element is the string field {@code "record"}. As {@link #open(Format, InputStream)} otherwise.
     *
     * @throws CorruptStreamException if the stream is empty or starts like none of the formats
     */
    static ExportReader open(InputStream in) throws IOException {
        return new RecordReader(Decoders.open(in));
    }

    /**
     * Opens a reader over the body of an export endpoint's response (from {@code java.net.http.HttpClient} with
     * {@code BodyHandlers.ofInputStream()}) and reads the header. The format is the one whose media type the
     * {@code Content-Type} header names ({@link Format#mediaType}), else detected as by {@link #open(InputStream)}.
     * A compressed body ({@code Content-Encoding: zstd} or {@code gzip}) is decompressed on the way
     * ({@link ContentEncodings#decode}); ask for it with {@link ContentEncodings#request}. The reader owns the body
     * and closes it on {@link #close}.
     *
     * @throws ExportRequestException if the status is not 2xx: the export was refused before streaming (the body
     *                                is read for the server's code and message, then closed)
     */
    static ExportReader open(HttpResponse<InputStream> response) throws IOException {
        return new RecordReader(Decoders.open(response));
    }

    /**
     * Sends {@code request} (build it with {@link ContentEncodings#request} to get compression) and opens a reader
     * over the response as {@link #open(HttpResponse)} does. A busy server's {@code 503} with {@code Retry-After} is
     * waited out, up to 30 s in all ({@link BusyRetry#DEFAULT}; choose another budget or {@link BusyRetry#NONE}
     * with {@code open(retry.send(http, request))}).
     *
     * @throws ExportRequestException if the final status is not 2xx, a {@code 503 Export.ServerBusy} included once
     *                                the retry budget is spent
     */
    static ExportReader open(HttpClient http, HttpRequest request) throws IOException {
        return open(BusyRetry.DEFAULT.send(http, request));
    }
}
