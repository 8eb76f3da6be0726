package org.subgraphexport.server;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.neo4j.configuration.Config;
import org.subgraphexport.config.ExportSettings;

/**
 * The budget of one export: the request's {@code timeout}, {@code maxDepth} and {@code limit} checked against
 * the server's settings ({@link ExportSettings}). Asking for more than a server maximum is a 400; asking for
 * nothing gets the server's default, and a cut made by a server maximum is reported as truncation.
 *
 * @param timeoutMillis  transaction timeout; 0 = the database's own (db.transaction.timeout)
 * @param maxDepth       deepest member depth
 * @param depthIsCap     maxDepth came from the server's maximum, not from the request
 * @param maxNodes       most nodes
 */
record ExportLimits(long timeoutMillis, int maxDepth, boolean depthIsCap, long maxNodes) {
    private static final Pattern TIMEOUT = Pattern.compile("(\\d{1,12})(ms|s|m|h)?");

    static ExportLimits of(Config config, RequestParameters params) {
        long timeout = timeoutMillis(config, params.get("timeout"));
        int serverDepth = config.get(ExportSettings.MAX_DEPTH);
        long serverNodes = config.get(ExportSettings.MAX_NODES);
        boolean depthGiven = params.has("maxDepth");
        int depth = (int) params.nonNegative("maxDepth", serverDepth, Integer.MAX_VALUE);
        if (depth > serverDepth) {
            throw ApiError.badParameter("maxDepth " + depth + " exceeds the server's maximum " + serverDepth
                    + " (" + ExportSettings.MAX_DEPTH.name() + ")");
        }
        long nodes = params.nonNegative("limit", serverNodes, Long.MAX_VALUE);
        if (nodes > serverNodes) {
            throw ApiError.badParameter("limit " + nodes + " exceeds the server's maximum " + serverNodes
                    + " (" + ExportSettings.MAX_NODES.name() + ")");
        }
        return new ExportLimits(timeout, depth, !depthGiven && serverDepth != Integer.MAX_VALUE, nodes);
    }

    private static long timeoutMillis(Config config, String text) {
        long max = config.get(ExportSettings.MAX_TIMEOUT).toMillis();
        long requested;
        if (text == null) {
            requested = config.get(ExportSettings.DEFAULT_TIMEOUT).toMillis();
            return max > 0 && (requested == 0 || requested > max) ? max : requested;
        }
        Matcher m = TIMEOUT.matcher(text.strip());
        if (!m.matches()) {
            throw ApiError.badParameter("timeout must be a whole number with an optional unit ms, s, m or h "
                    + "(default s), e.g. 30s or 1500ms; got '" + RequestParameters.abbreviate(text) + "'");
        }
        long amount = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        Duration d = switch (unit) {
            case "ms" -> Duration.ofMillis(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            default -> Duration.ofSeconds(amount);
        };
        requested = d.toMillis();
        if (requested == 0) {
            throw ApiError.badParameter("timeout must be positive");
        }
        if (max > 0 && requested > max) {
            throw ApiError.badParameter("timeout " + text.strip() + " exceeds the server's maximum " + max + "ms ("
                    + ExportSettings.MAX_TIMEOUT.name() + ")");
        }
        return requested;
    }
}
