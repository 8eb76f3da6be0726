package org.subgraphexport.spark;

import java.io.Serializable;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The data source's options, checked when the DataFrame is loaded: an unknown option is refused (a typo never
 * silently changes the export), and so is a value out of its range. The same options and messages as the Python data
 * source ({@code subgraph_export/spark.py}); names are case-insensitive, as Spark's are.
 */
final class Settings implements Serializable {
    private static final long serialVersionUID = 1L;
    static final String NAME = "subgraph_export";
    static final String RESTART = "restart", FAIL = "fail";
    private static final Set<String> KNOWN = new TreeSet<>(List.of("url", "user", "password", "root", "label", "key",
            "value", "expand", "attach", "maxdepth", "limit", "db", "timeout", "entities", "partitions", "state",
            "attempts", "onstatechange", "maxrestarts", "httptimeout", "mount"));
    /** The walk's parameters as the traverse endpoint names them, in the order the Python source sends them. */
    private static final String[][] WALK = {{"root", "root"}, {"label", "label"}, {"key", "key"}, {"value", "value"},
            {"expand", "expand"}, {"attach", "attach"}, {"maxdepth", "maxDepth"}, {"limit", "limit"}, {"db", "db"},
            {"timeout", "timeout"}};

    final String url;
    final String mount;
    /** The walk as a query string ({@code root=...&maxDepth=2}), without partitions and state. */
    final String walk;
    private final String walkWithoutLimit;
    final boolean nodes;
    final int partitions;
    final String pinned;
    final int attempts;
    final boolean restart;
    final int maxRestarts;
    /** Milliseconds to connect and between reads; 0: no limit. */
    final int httpTimeoutMillis;
    /** The {@code Authorization} header, or null. */
    final String authorization;

    Settings(Map<String, String> options) {
        Map<String, String> given = new LinkedHashMap<>();
        options.forEach((k, v) -> {
            String key = k.toLowerCase(Locale.ROOT);
            if (!key.equals("path")) given.put(key, v);
        });
        List<String> unknown = new ArrayList<>(new TreeSet<>(given.keySet()));
        unknown.removeAll(KNOWN);
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("unknown option(s) of the " + NAME + " data source: "
                    + String.join(", ", unknown) + "; known: " + String.join(", ", KNOWN));
        }
        if (!given.containsKey("url")) {
            throw new IllegalArgumentException("the " + NAME + " data source needs .option(\"url\", \"http://host:7474\")");
        }
        String entities = given.getOrDefault("entities", "nodes");
        if (!entities.equals("nodes") && !entities.equals("relationships")) {
            throw new IllegalArgumentException("entities must be \"nodes\" or \"relationships\", got '" + entities + "'");
        }
        nodes = entities.equals("nodes");
        partitions = integer(given, "partitions", 4, 1);
        String onStateChange = given.getOrDefault("onstatechange", RESTART);
        if (!onStateChange.equals(RESTART) && !onStateChange.equals(FAIL)) {
            throw new IllegalArgumentException("onStateChange must be '" + RESTART + "' or '" + FAIL + "', got '"
                    + onStateChange + "'");
        }
        restart = onStateChange.equals(RESTART);
        if (given.containsKey("user") != given.containsKey("password")) {
            throw new IllegalArgumentException("user and password go together");
        }
        authorization = given.containsKey("user") ? "Basic " + Base64.getEncoder().encodeToString(
                (given.get("user") + ":" + given.get("password")).getBytes(StandardCharsets.UTF_8)) : null;
        attempts = integer(given, "attempts", 3, 1);
        maxRestarts = integer(given, "maxrestarts", 2, 0);
        for (String bound : new String[] {"maxdepth", "limit"}) {
            if (given.containsKey(bound)) given.put(bound, Integer.toString(integer(given, bound, 0, 0)));
        }
        if (given.containsKey("httptimeout")) {
            double seconds;
            try {
                seconds = Double.parseDouble(given.get("httptimeout"));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("option httptimeout must be a number of seconds, got '"
                        + given.get("httptimeout") + "'");
            }
            if (!(seconds > 0)) {
                throw new IllegalArgumentException("option httptimeout must be above 0, got '" + given.get("httptimeout") + "'");
            }
            httpTimeoutMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, Math.round(seconds * 1000)));
        } else {
            httpTimeoutMillis = 0;
        }
        url = given.get("url");
        mount = given.getOrDefault("mount", "/extension");
        pinned = given.get("state");
        walk = query(given, false);
        walkWithoutLimit = query(given, true);
    }

    /**
     * The URL of the export with {@code extra} parameters ({@code partitions=4&partition=1}, {@code state=}); with
     * {@code ownLimit} the walk's {@code limit} is left out (extra names another).
     */
    String endpoint(String extra, boolean ownLimit) {
        String base = strip(url, false) + "/" + strip(mount, true) + "/arrow/traverse";
        String w = ownLimit ? walkWithoutLimit : walk;
        String query = w.isEmpty() ? extra : extra.isEmpty() ? w : w + "&" + extra;
        return query.isEmpty() ? base : base + "?" + query;
    }

    private static String query(Map<String, String> given, boolean withoutLimit) {
        StringBuilder query = new StringBuilder();
        for (String[] p : WALK) {
            String v = given.get(p[0]);
            if (v != null && !(withoutLimit && p[0].equals("limit"))) {
                query.append(query.length() == 0 ? "" : "&").append(p[1]).append('=').append(encode(v));
            }
        }
        return query.toString();
    }

    static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    private static String strip(String s, boolean leading) {
        int from = 0, to = s.length();
        while (leading && from < to && s.charAt(from) == '/') from++;
        while (to > from && s.charAt(to - 1) == '/') to--;
        return s.substring(from, to);
    }

    private static int integer(Map<String, String> options, String name, int absent, int least) {
        String text = options.get(name);
        if (text == null) return absent;
        int value;
        try {
            value = Integer.parseInt(text.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("option " + name + " must be an integer, got '" + text + "'");
        }
        if (value < least) {
            throw new IllegalArgumentException("option " + name + " must be at least " + least + ", got " + value);
        }
        return value;
    }
}
