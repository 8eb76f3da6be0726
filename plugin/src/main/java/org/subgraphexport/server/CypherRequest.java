package org.subgraphexport.server;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.ws.rs.core.Response;

/**
 * The body of {@code POST /{format}/cypher}: {@code {"query": "...", "params": {...}}}. Parameters are JSON
 * values: objects become maps, arrays lists, integral numbers longs, other numbers doubles; so an element id
 * is passed as a string ({@code elementId(n) = $id}) and a numeric id as a number. Bounded: the body size,
 * the nesting depth and the string lengths are limited, and any other field is an error, as is a field (or a
 * parameter name) given twice: a proxy that inspects the first "query" must not see another query than Neo4j.
 */
record CypherRequest(String query, Map<String, Object> params) {
    static final int MAX_BODY_BYTES = 16 << 20;
    /**
     * How much of a body beyond {@link #MAX_BODY_BYTES} is read (and dropped) before the refusal, so that a client
     * still sending it sees the answer rather than a reset connection; anything longer is not read at all.
     */
    static final long MAX_DRAINED_BYTES = 64L << 20;
    static final int MAX_DEPTH = 64;
    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(MAX_DEPTH + 2)
                    .maxStringLength(MAX_BODY_BYTES)
                    .maxNumberLength(100)
                    .build())
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    /**
     * The body, read from the request: at most {@link #MAX_BODY_BYTES} are kept. A longer one is refused with 413
     * {@code Export.BodyTooLarge} after reading up to {@link #MAX_DRAINED_BYTES} more into a small scratch buffer,
     * so a large body costs no heap (JAX-RS, given a {@code byte[]} parameter, read it whole first).
     */
    static byte[] read(InputStream in) {
        try {
            byte[] body = in.readNBytes(MAX_BODY_BYTES + 1);
            if (body.length <= MAX_BODY_BYTES) {
                return body;
            }
            byte[] scratch = new byte[64 << 10];
            for (long drained = 0; drained < MAX_DRAINED_BYTES; ) {
                int n = in.read(scratch);
                if (n < 0) break;
                drained += n;
            }
            throw new ApiError(Response.Status.REQUEST_ENTITY_TOO_LARGE, ApiError.BODY_TOO_LARGE,
                    "body larger than " + MAX_BODY_BYTES + " bytes");
        } catch (IOException e) {
            throw ApiError.badParameter("cannot read the body: " + e.getMessage());
        }
    }

    static CypherRequest parse(byte[] body) {
        if (body == null || body.length == 0) {
            throw ApiError.badParameter("missing body: send {\"query\": \"...\", \"params\": {...}} as JSON");
        }
        if (body.length > MAX_BODY_BYTES) {
            throw ApiError.badParameter("body larger than " + MAX_BODY_BYTES + " bytes");
        }
        try (JsonParser p = JSON.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw ApiError.badParameter("body must be a JSON object {\"query\": \"...\", \"params\": {...}}");
            }
            String query = null;
            Map<String, Object> params = Map.of();
            boolean paramsSeen = false;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken token = p.nextToken();
                switch (field) {
                    case "query" -> {
                        if (token != JsonToken.VALUE_STRING) throw ApiError.badParameter("query must be a string");
                        query = p.getText();
                    }
                    case "params", "parameters" -> {
                        if (paramsSeen) throw ApiError.badParameter("give params or parameters, not both");
                        paramsSeen = true;
                        if (token == JsonToken.VALUE_NULL) break;
                        if (token != JsonToken.START_OBJECT) throw ApiError.badParameter("params must be a JSON object");
                        @SuppressWarnings("unchecked")
                        Map<String, Object> map = (Map<String, Object>) value(p, 0);
                        params = map;
                    }
                    default -> throw ApiError.badParameter("unknown field '" + RequestParameters.abbreviate(field)
                            + "' in the body; it takes query and params");
                }
            }
            if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
                throw ApiError.badParameter("body must be exactly one JSON object");
            }
            if (query == null || query.isBlank()) {
                throw ApiError.badParameter("missing query");
            }
            return new CypherRequest(query, params);
        } catch (com.fasterxml.jackson.core.JacksonException e) {
            throw ApiError.badParameter("body is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw ApiError.badParameter("body could not be read: " + e.getMessage());
        }
    }

    private static Object value(JsonParser p, int depth) throws IOException {
        if (depth > MAX_DEPTH) {
            throw ApiError.badParameter("params nested deeper than " + MAX_DEPTH + " levels");
        }
        return switch (p.currentToken()) {
            case START_OBJECT -> {
                Map<String, Object> map = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String key = p.currentName();
                    p.nextToken();
                    map.put(key, value(p, depth + 1));
                }
                yield map;
            }
            case START_ARRAY -> {
                List<Object> list = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    list.add(value(p, depth + 1));
                }
                yield list;
            }
            case VALUE_STRING -> p.getText();
            case VALUE_NUMBER_INT -> {
                if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                    throw ApiError.badParameter("integer parameter out of the 64-bit range: " + p.getText());
                }
                yield p.getLongValue();
            }
            case VALUE_NUMBER_FLOAT -> p.getDoubleValue();
            case VALUE_TRUE -> Boolean.TRUE;
            case VALUE_FALSE -> Boolean.FALSE;
            case VALUE_NULL -> null;
            default -> throw ApiError.badParameter("unexpected " + p.currentToken() + " in params");
        };
    }
}
