package org.subgraphexport.server;

import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.ws.rs.core.MultivaluedMap;
import javax.ws.rs.core.UriInfo;

/** Strict reading of query parameters: unknown or repeated names are errors, not silently ignored. */
final class RequestParameters {
    private final MultivaluedMap<String, String> query;

    RequestParameters(UriInfo uri, Set<String> known) {
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
            value = Long.parseLong(text.strip());
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
