package org.subgraphexport.server;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import javax.ws.rs.core.MultivaluedMap;
import javax.ws.rs.core.PathSegment;
import javax.ws.rs.core.UriInfo;

/**
 * Strict reading of query parameters: unknown or repeated names are errors, not silently ignored; so are matrix
 * parameters ({@code /kryo;maxDepth=1/traverse}), which JAX-RS would drop without a word.
 */
final class RequestParameters {
    /** ASCII digits only: Long.parseLong also takes other Unicode digits (fullwidth, Arabic-Indic) and a '+'. */
    private static final Pattern INTEGER = Pattern.compile("-?[0-9]+");

    private final MultivaluedMap<String, String> query;

    RequestParameters(UriInfo uri, Set<String> known) {
        for (PathSegment segment : uri.getPathSegments(true)) {
            if (!segment.getMatrixParameters().isEmpty()) {
                throw ApiError.badParameter("matrix parameters (';' in the path) are not accepted: give "
                        + segment.getMatrixParameters().keySet().stream().map(RequestParameters::abbreviate).toList()
                        + " as query parameters");
            }
        }
        this.query = uri.getQueryParameters(true);
        for (Map.Entry<String, List<String>> e : query.entrySet()) {
            if (!known.contains(e.getKey())) {
                throw ApiError.badParameter("unknown query parameter '" + e.getKey() + "'; this endpoint takes " + known);
            }
            if (e.getValue().size() > 1) {
                throw ApiError.badParameter("query parameter '" + e.getKey() + "' given " + e.getValue().size() + " times");
            }
        }
    }

    /** The value, or null when absent. */
    String get(String name) {
        return query.getFirst(name);
    }

    boolean has(String name) {
        return query.containsKey(name);
    }

    /** A non-negative integer no larger than {@code max}, or {@code fallback} when absent. */
    long nonNegative(String name, long fallback, long max) {
        String text = get(name);
        if (text == null) {
            return fallback;
        }
        long value;
        try {
            String digits = text.strip();
            if (!INTEGER.matcher(digits).matches()) {
                throw new NumberFormatException();
            }
            value = Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw ApiError.badParameter(name + " must be a non-negative integer, got '" + abbreviate(text) + "'");
        }
        if (value < 0) {
            throw ApiError.badParameter(name + " must be a non-negative integer, got " + value);
        }
        if (value > max) {
            throw ApiError.badParameter(name + " must be at most " + max + ", got " + value);
        }
        return value;
    }

    static String abbreviate(String text) {
        return text.length() <= 80 ? text : text.substring(0, 77) + "...";
    }
}
