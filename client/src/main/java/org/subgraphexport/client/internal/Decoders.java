package org.subgraphexport.client.internal;

import com.ning.compress.lzf.LZFInputStream;
import com.ning.compress.lzf.util.ChunkDecoderFactory;
import java.io.IOException;
import java.io.InputStream;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.wire.Format;

/** The decoders behind {@link ExportReader#open}: one per format, over a {@link Source} of the caller's stream. */
public final class Decoders {
    private Decoders() {}

    /** {@link ExportReader#open(Format, InputStream)}. */
    public static ExportReader open(Format format, InputStream in) throws IOException {
        Source source = new Source(in);
        AbstractRecordReader reader = switch (format) {
            case JSON -> new JsonRecordReader(source);
            case BSON -> new BsonRecordReader(source);
            case KRYO -> new KryoRecordReader(format, source, source);
            case KRYO_LZF -> new KryoRecordReader(format, source,
                    new LZFInputStream(ChunkDecoderFactory.safeInstance(), source));
        };
        reader.start();
        return reader;
    }
}
