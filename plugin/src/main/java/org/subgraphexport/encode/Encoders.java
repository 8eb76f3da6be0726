package org.subgraphexport.encode;

import java.io.OutputStream;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;

/** Opens the encoder of each {@link Format}. */
public final class Encoders {
    private Encoders() {}

    /**
     * A fresh writer of {@code format} over {@code out}. The writer never closes {@code out}; its
     * {@link GraphWriter#finish} writes what is buffered, completes the encoding (closes the JSON array, finishes
     * the last LZF chunk) and flushes. Not thread-safe: one writer per stream.
     */
    public static GraphWriter open(Format format, OutputStream out) {
        return switch (format) {
            case JSON -> JsonGraphWriter.json(out);
            case BSON -> BsonGraphWriter.bson(out);
            case KRYO -> KryoGraphWriter.kryo(out);
            case KRYO_LZF -> KryoGraphWriter.kryoLzf(out);
            case ARROW -> ArrowGraphWriter.arrow(out);
        };
    }
}
