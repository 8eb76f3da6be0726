package org.subgraphexport.format;

import java.io.OutputStream;
import java.util.Optional;

/** The four wire formats: the URL path segment that selects one, its media type, and its writer. */
public enum Format {
    JSON("json", Wire.MEDIA_JSON),
    BSON("bson", Wire.MEDIA_BSON),
    KRYO("kryo", Wire.MEDIA_KRYO),
    KRYO_LZF("kryo-lzf", Wire.MEDIA_KRYO_LZF);

    private final String pathSegment;
    private final String mediaType;

    Format(String pathSegment, String mediaType) {
        this.pathSegment = pathSegment;
        this.mediaType = mediaType;
    }

    /** The name in URLs and file extensions: {@code json}, {@code bson}, {@code kryo}, {@code kryo-lzf}. */
    public String pathSegment() {
        return pathSegment;
    }

    /** The {@code Content-Type} of a stream in this format. */
    public String mediaType() {
        return mediaType;
    }

    /** The format named {@code segment} (exact, lower case), or empty. */
    public static Optional<Format> fromPathSegment(String segment) {
        for (Format f : values()) {
            if (f.pathSegment.equals(segment)) {
                return Optional.of(f);
            }
        }
        return Optional.empty();
    }

    /**
     * A fresh writer over {@code out}. The writer never closes {@code out}; its {@link GraphWriter#finish} writes
     * what is buffered, completes the encoding (closes the JSON array, finishes the last LZF chunk) and flushes.
     * Not thread-safe: one writer per stream.
     */
    public GraphWriter open(OutputStream out) {
        return switch (this) {
            case JSON -> JsonGraphWriter.json(out);
            case BSON -> BsonGraphWriter.bson(out);
            case KRYO -> KryoGraphWriter.kryo(out);
            case KRYO_LZF -> KryoGraphWriter.kryoLzf(out);
        };
    }
}
