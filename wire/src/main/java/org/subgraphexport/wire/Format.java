package org.subgraphexport.wire;

import java.util.Optional;

/**
 * The five wire formats: the URL path segment that selects one, and its media type. Four are record streams that
 * the Java client decodes; {@code arrow} is columnar, for Arrow readers (pyarrow, the Python package).
 */
public enum Format {
    JSON("json", Wire.MEDIA_JSON),
    BSON("bson", Wire.MEDIA_BSON),
    KRYO("kryo", Wire.MEDIA_KRYO),
    KRYO_LZF("kryo-lzf", Wire.MEDIA_KRYO_LZF),
    ARROW("arrow", Wire.MEDIA_ARROW);

    private final String pathSegment;
    private final String mediaType;

    Format(String pathSegment, String mediaType) {
        this.pathSegment = pathSegment;
        this.mediaType = mediaType;
    }

    /** The name in URLs and file extensions: {@code json}, {@code bson}, {@code kryo}, {@code kryo-lzf}, {@code arrow}. */
    public String pathSegment() {
        return pathSegment;
    }

    /** The {@code Content-Type} of a stream in this format. */
    public String mediaType() {
        return mediaType;
    }

    /** True for the record-stream formats the Java client decodes (all but {@code arrow}). */
    public boolean clientDecodes() {
        return this != ARROW;
    }

    /** True if the format carries rows streams (Cypher {@code mode=rows}): all but {@code arrow}, a graph layout. */
    public boolean carriesRows() {
        return this != ARROW;
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
}
