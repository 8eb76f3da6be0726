package org.subgraphexport.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Streaming decoders for the peers' JSON responses, written the way a careful client would: one pass with Jackson's
 * streaming parser, every entity decoded into its id, labels or type and ends, and a property map of Java values,
 * then counted and dropped, so that memory holds one row at a time. The work per entity is comparable to what the
 * project's own decoder does (id string, labels, property map).
 *
 * <ul>
 *   <li>{@link #plain}: Neo4j's plain JSON entities (the Query API, and the transactional endpoint's {@code graph}
 *       result format): an object with {@code elementId} and {@code labels} is a node, one with {@code elementId}
 *       and {@code startNodeElementId} a relationship. Property values are what plain JSON carries (a datetime
 *       stays a string).</li>
 *   <li>{@link #jolt}: Jolt (sparse mode) as sent by the transactional endpoint: {@code {"()": [id, labels,
 *       props]}} nodes, {@code {"->": [id, start, type, end, props]}} relationships, typed values such as
 *       {@code {"Z": "…"}}, {@code {"R": "…"}}, {@code {"T": "…"}} decoded to Long, Double and java.time.</li>
 * </ul>
 */
final class JsonEntities {
    private static final JsonFactory JSON = new JsonFactory();
    /** Marks an entity that was counted and dropped. */
    private static final Object DROPPED = new Object();

    private JsonEntities() {}

    /**
     * Decodes a plain-JSON response; closes {@code in}. Entities are recognised in three shapes: the Query API's
     * (and the graph result format's) node {@code {elementId, labels, properties}} and relationship
     * {@code {elementId, startNodeElementId, endNodeElementId, type, properties}}, and the transactional
     * endpoint's {@code meta} entries {@code {id, elementId, type: node|relationship, deleted}} that go with the
     * property maps in {@code row}.
     *
     * @throws IOException also when the body reports errors (the transactional endpoint answers 200 with an
     *                     {@code errors} list)
     */
    static void plain(InputStream in, Tally tally) throws IOException {
        try (JsonParser p = JSON.createParser(in)) {
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                Object v = plainValue(p, tally);
                if (v instanceof Map<?, ?> m && m.get("errors") instanceof List<?> errors && !errors.isEmpty()) {
                    throw new IOException("the server reported errors: " + errors);
                }
            }
        }
    }

    /** Entities are dropped after counting, and so are the rows they leave empty: memory holds one row. */
    private static boolean keep(Object v) {
        return !hollow(v);
    }

    /** Dropped, or a list or map with nothing left but hollow values. */
    private static boolean hollow(Object v) {
        if (v == DROPPED) return true;
        if (v instanceof List<?> l) return l.isEmpty();
        if (v instanceof Map<?, ?> m) {
            for (Object e : m.values()) {
                if (!hollow(e)) return false;
            }
            return true;
        }
        return false;
    }

    private static Object plainValue(JsonParser p, Tally tally) throws IOException {
        switch (p.currentToken()) {
            case START_OBJECT -> {
                Map<String, Object> map = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String key = p.currentName();
                    p.nextToken();
                    Object v = plainValue(p, tally);
                    if (v != DROPPED) map.put(key, v);
                }
                Object id = map.get("elementId");
                if (id instanceof String elementId) {
                    if (map.get("labels") instanceof List<?> && map.get("properties") instanceof Map<?, ?>) {
                        tally.node(elementId);
                        return DROPPED;
                    }
                    if (map.get("startNodeElementId") instanceof String && map.get("endNodeElementId") instanceof String
                            && map.get("type") instanceof String) {
                        tally.relationship(elementId);
                        return DROPPED;
                    }
                    // the transactional endpoint's "meta" entry of an entity whose properties came in "row"
                    if (map.containsKey("deleted") && "node".equals(map.get("type"))) {
                        tally.node(elementId);
                        return DROPPED;
                    }
                    if (map.containsKey("deleted") && "relationship".equals(map.get("type"))) {
                        tally.relationship(elementId);
                        return DROPPED;
                    }
                }
                if (map.containsKey("row") && map.containsKey("meta")) {
                    return DROPPED; // a transactional endpoint row, decoded and counted: let it go
                }
                return map;
            }
            case START_ARRAY -> {
                List<Object> list = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    Object v = plainValue(p, tally);
                    if (keep(v)) list.add(v);
                }
                return list;
            }
            default -> {
                return scalar(p);
            }
        }
    }

    private static Object scalar(JsonParser p) throws IOException {
        return switch (p.currentToken()) {
            case VALUE_STRING -> p.getText();
            case VALUE_NUMBER_INT -> p.getLongValue();
            case VALUE_NUMBER_FLOAT -> p.getDoubleValue();
            case VALUE_TRUE -> Boolean.TRUE;
            case VALUE_FALSE -> Boolean.FALSE;
            case VALUE_NULL -> null;
            default -> throw new IOException("unexpected " + p.currentToken() + " at " + p.currentLocation());
        };
    }

    /** Decodes a Jolt json-seq response (v1 or v2); closes {@code in}. */
    static void jolt(InputStream in, Tally tally) throws IOException {
        try (JsonParser p = JSON.createParser(new RecordSeparatorAsSpace(in))) {
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                Object v = joltValue(p, tally);
                if (v instanceof Map<?, ?> m && m.containsKey("error")) {
                    throw new IOException("Jolt error: " + m);
                }
            }
        }
    }

    private static Object joltValue(JsonParser p, Tally tally) throws IOException {
        switch (p.currentToken()) {
            case START_OBJECT -> {
                if (p.nextToken() != JsonToken.FIELD_NAME) {
                    return Map.of(); // {}
                }
                String first = p.currentName();
                switch (first) {
                    case "()" -> {
                        expect(p, JsonToken.START_ARRAY);
                        p.nextToken();
                        String id = p.getText();
                        p.nextToken();
                        Object labels = joltValue(p, tally);
                        p.nextToken();
                        Object properties = joltValue(p, tally);
                        expect(p, JsonToken.END_ARRAY);
                        expect(p, JsonToken.END_OBJECT);
                        if (!(labels instanceof List<?>) || !(properties instanceof Map<?, ?>)) {
                            throw new IOException("malformed Jolt node " + id);
                        }
                        tally.node(id);
                        return DROPPED;
                    }
                    case "->", "<-" -> {
                        expect(p, JsonToken.START_ARRAY);
                        p.nextToken();
                        String id = p.getText();
                        p.nextToken();
                        String start = p.getText();
                        p.nextToken();
                        String type = p.getText();
                        p.nextToken();
                        String end = p.getText();
                        p.nextToken();
                        Object properties = joltValue(p, tally);
                        expect(p, JsonToken.END_ARRAY);
                        expect(p, JsonToken.END_OBJECT);
                        if (start == null || end == null || type == null || !(properties instanceof Map<?, ?>)) {
                            throw new IOException("malformed Jolt relationship " + id);
                        }
                        tally.relationship(id);
                        return DROPPED;
                    }
                    case "Z", "R", "T", "U", "?", "#", "@" -> {
                        if (p.nextToken().isScalarValue()) {
                            String text = p.getText();
                            if (p.nextToken() == JsonToken.END_OBJECT) {
                                return typed(first, text);
                            }
                            // a plain map whose first key happens to be a sigil
                            Map<String, Object> map = new LinkedHashMap<>();
                            map.put(first, text);
                            return joltMapRest(p, map, tally);
                        }
                        Map<String, Object> map = new LinkedHashMap<>();
                        map.put(first, joltValue(p, tally));
                        p.nextToken();
                        return joltMapRest(p, map, tally);
                    }
                    case "[]", "{}" -> {
                        p.nextToken();
                        Object v = joltValue(p, tally);
                        expect(p, JsonToken.END_OBJECT);
                        return v;
                    }
                    default -> {
                        Map<String, Object> map = new LinkedHashMap<>();
                        p.nextToken();
                        Object v = joltValue(p, tally);
                        if (v != DROPPED) map.put(first, v);
                        p.nextToken();
                        return joltMapRest(p, map, tally);
                    }
                }
            }
            case START_ARRAY -> {
                List<Object> list = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    Object v = joltValue(p, tally);
                    if (keep(v)) list.add(v);
                }
                return list;
            }
            default -> {
                return scalar(p);
            }
        }
    }

    /** The rest of a plain map; the parser is on the token after the previous value. */
    private static Map<String, Object> joltMapRest(JsonParser p, Map<String, Object> map, Tally tally)
            throws IOException {
        while (p.currentToken() == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            p.nextToken();
            Object v = joltValue(p, tally);
            if (v != DROPPED) map.put(key, v);
            p.nextToken();
        }
        if (p.currentToken() != JsonToken.END_OBJECT) {
            throw new IOException("expected end of object at " + p.currentLocation());
        }
        return map;
    }

    private static Object typed(String sigil, String text) {
        return switch (sigil) {
            case "Z" -> Long.parseLong(text);
            case "R" -> Double.parseDouble(text);
            case "?" -> Boolean.parseBoolean(text);
            case "#" -> HexFormat.of().parseHex(text);
            case "T" -> temporal(text);
            default -> text; // "U" string, "@" point as WKT
        };
    }

    /** Jolt temporal values are ISO-8601: date, time, local/offset/zoned date-time, or a duration (P…). */
    private static Object temporal(String s) {
        if (s.startsWith("P")) {
            return java.time.Duration.parse(s.contains("T") ? s.substring(0, 1) + s.substring(s.indexOf('T')) : s);
        }
        int t = s.indexOf('T');
        if (t < 0) {
            return s.indexOf(':') < 0 ? LocalDate.parse(s) : s.length() > 8 && (s.contains("+") || s.endsWith("Z")
                    || s.lastIndexOf('-') > 0) ? OffsetTime.parse(s) : LocalTime.parse(s);
        }
        char last = s.charAt(s.length() - 1);
        boolean hasZone = last == 'Z' || last == ']' || s.indexOf('+', t) > 0 || s.indexOf('-', t) > 0;
        return hasZone ? ZonedDateTime.parse(s, DateTimeFormatter.ISO_ZONED_DATE_TIME) : LocalDateTime.parse(s);
    }

    private static void expect(JsonParser p, JsonToken token) throws IOException {
        if (p.nextToken() != token) {
            throw new IOException("expected " + token + " but got " + p.currentToken() + " at " + p.currentLocation());
        }
    }

    /** json-seq separates records with RS (0x1E), which JSON parsers do not take as whitespace. */
    private static final class RecordSeparatorAsSpace extends FilterInputStream {
        RecordSeparatorAsSpace(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            return b == 0x1E ? ' ' : b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            for (int i = off; i < off + n; i++) {
                if (b[i] == 0x1E) b[i] = ' ';
            }
            return n;
        }
    }
}
