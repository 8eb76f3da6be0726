package org.subgraphexport.client;

import com.ning.compress.lzf.LZFInputStream;
import com.ning.compress.lzf.util.ChunkDecoderFactory;
import java.io.IOException;
import java.io.InputStream;
import org.subgraphexport.format.Format;

/**
 * Reads an export stream record by record, in any of the four formats, without holding more than one record.
 *
 * <pre>{@code
 * try (RecordReader reader = RecordReader.open(Format.KRYO_LZF, response.body())) {
 *     for (Record r; (r = reader.next()) != null; ) {
 *         switch (r) {
 *             case Node n -> ...
 *             case Relationship rel -> ...
 *             case ExportEnd end -> ...
 *             case ExportHeader h -> throw new AssertionError("header() has it");
 *         }
 *     }
 * }
 * }</pre>
 *
 * <p>Property values decode to: Boolean, Byte, Short, Integer, Long, Float, Double, Character, String, byte[],
 * LocalDate, LocalTime, OffsetTime, LocalDateTime, ZonedDateTime, {@link Duration}, {@link Point},
 * java.util.UUID, {@link Vector}; arrays to boolean[], short[], int[], long[], float[], double[], char[],
 * String[], Point[], LocalDate[], LocalTime[], OffsetTime[], LocalDateTime[], ZonedDateTime[], Duration[],
 * UUID[]. Every format round-trips every type exactly (JSON and BSON carry type tags for what plain JSON lacks);
 * one exception: in JSON and BSON a {@code char} that is a lone surrogate becomes {@code '?'}.
 *
 * <p>Errors: the server's error record raises {@link ExportFailedException} (after the records before it were
 * returned); bytes that are not a valid stream (truncated, garbage, lengths beyond limits) raise
 * {@link CorruptStreamException}; an {@code IOException} of the input stream itself passes unchanged. After an
 * exception, {@code next()} throws it again. Not thread-safe.
 */
public interface RecordReader extends AutoCloseable {
    /** The stream's header record, read when the reader was opened. */
    ExportHeader header();

    /**
     * The next node or relationship, then the {@link ExportEnd} record, then null forever.
     *
     * @throws ExportFailedException  if the stream ends with the server's error record
     * @throws CorruptStreamException if the bytes are not a valid stream, including one that ends without a
     *                                closing record
     */
    Record next() throws IOException;

    /** Closes the input stream. */
    @Override
    void close() throws IOException;

    /**
     * Opens a reader over {@code in} and reads the header. The reader owns {@code in} and closes it on
     * {@link #close} (or here, if the header cannot be read). Buffers internally: {@code in} need not be buffered.
     */
    static RecordReader open(Format format, InputStream in) throws IOException {
        Source source = new Source(in);
        AbstractRecordReader reader = switch (format) {
            case JSON -> JacksonRecordReader.json(source);
            case BSON -> JacksonRecordReader.bson(source);
            case KRYO -> new KryoRecordReader(format, source, source);
            case KRYO_LZF -> new KryoRecordReader(format, source,
                    new LZFInputStream(ChunkDecoderFactory.safeInstance(), source));
        };
        reader.start();
        return reader;
    }
}
