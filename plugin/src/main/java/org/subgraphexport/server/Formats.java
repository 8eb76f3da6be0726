package org.subgraphexport.server;

import java.util.Arrays;
import java.util.stream.Collectors;
import javax.ws.rs.core.Response;
import org.subgraphexport.wire.Format;

/** The {format} path segment. */
final class Formats {
    private Formats() {}

    static Format require(String segment) {
        return Format.fromPathSegment(segment)
                .orElseThrow(() -> new ApiError(Response.Status.NOT_FOUND, ApiError.UNKNOWN_FORMAT,
                        "unknown format '" + RequestParameters.abbreviate(segment) + "'; use one of "
                                + Arrays.stream(Format.values()).map(Format::pathSegment).collect(Collectors.joining(", "))));
    }
}
