package org.subgraphexport.server;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import javax.ws.rs.core.Response;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.ResourceIterator;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;

/**
 * Finds the root node before streaming: by element id ({@code root}), or by one property
 * ({@code label}, {@code key}, {@code value}). The value is read as a JSON literal when it is one
 * ({@code 42} a long, {@code 4.2} a double, {@code true} a boolean, {@code "42"} a string) and as a plain string
 * otherwise ({@code value=Router-7}). Neo4j compares numbers by value, so {@code 42} also finds a stored 42.0.
 * The lookup runs as the caller: a node the caller may not see is not found.
 */
final class RootLookup {
    private static final JsonFactory JSON = new JsonFactory();

    private RootLookup() {}

    /** Returns the root's node id, or throws an {@link ApiError}. */
    static long resolve(Caller caller, GraphDatabaseService db, RequestParameters params) {
        String root = params.get("root");
        boolean byProperty = params.has("label") || params.has("key") || params.has("value");
        if (root != null && byProperty) {
            throw ApiError.badParameter("give either root or label+key+value, not both");
        }
        if (root == null && !byProperty) {
            throw ApiError.badParameter("missing root: give root=<elementId> or label=…&key=…&value=…");
        }
        try (InternalTransaction tx = caller.begin(db, 0)) {
            return root != null ? byElementId(tx, root.strip()) : byProperty(tx, params);
        }
    }

    private static long byElementId(InternalTransaction tx, String elementId) {
        long id;
        try {
            id = tx.elementIdMapper().nodeId(elementId);
        } catch (RuntimeException e) {
            throw ApiError.badParameter("root '" + RequestParameters.abbreviate(elementId)
                    + "' is not a node element id of database '" + tx.getDatabaseName() + "': "
                    + String.valueOf(e.getMessage()).replace(elementId, RequestParameters.abbreviate(elementId)));
        }
        if (id >= 0 && !tx.elementIdMapper().nodeElementId(id).equals(elementId)) {
            // Neo4j also parses other spellings of the same id (fullwidth or Arabic-Indic digits, '+', leading
            // zeros, an upper-case database id): accept only the element id exactly as Neo4j writes it.
            throw ApiError.badParameter("root '" + RequestParameters.abbreviate(elementId)
                    + "' is not a node element id as Neo4j writes it (elementId(n)); did you mean '"
                    + tx.elementIdMapper().nodeElementId(id) + "'?");
        }
        if (id < 0 || !tx.kernelTransaction().dataRead().nodeExists(id)) {
            throw new ApiError(Response.Status.NOT_FOUND, ApiError.ROOT_NOT_FOUND,
                    "no node with element id '" + RequestParameters.abbreviate(elementId) + "'");
        }
        return id;
    }

    private static long byProperty(InternalTransaction tx, RequestParameters params) {
        String label = required(params, "label");
        String key = required(params, "key");
        Object value = parseValue(required(params, "value"));
        try (ResourceIterator<Node> found = tx.findNodes(Label.label(label), key, value)) {
            if (!found.hasNext()) {
                throw new ApiError(Response.Status.NOT_FOUND, ApiError.ROOT_NOT_FOUND,
                        "no :" + RequestParameters.abbreviate(label) + " node with " + RequestParameters.abbreviate(key)
                                + " = " + describe(value));
            }
            Node node = found.next();
            if (found.hasNext()) {
                throw new ApiError(Response.Status.CONFLICT, ApiError.AMBIGUOUS_ROOT,
                        "more than one :" + RequestParameters.abbreviate(label) + " node with "
                                + RequestParameters.abbreviate(key) + " = " + describe(value) + "; use root=<elementId>");
            }
            return tx.elementIdMapper().nodeId(node.getElementId());
        }
    }

    private static String required(RequestParameters params, String name) {
        String v = params.get(name);
        if (v == null || v.isEmpty()) {
            throw ApiError.badParameter("label, key and value go together; missing " + name);
        }
        return v;
    }

    private static String describe(Object value) {
        String text = RequestParameters.abbreviate(String.valueOf(value));
        return value instanceof String ? '"' + text + '"' + " (string)" : text + " (" + value.getClass().getSimpleName().toLowerCase() + ")";
    }

    /** A JSON literal (number, string, boolean) as the matching Java value; any other text as a string. */
    static Object parseValue(String text) {
        try (JsonParser p = JSON.createParser(text)) {
            JsonToken token = p.nextToken();
            Object value = token == null ? null : switch (token) {
                case VALUE_NUMBER_INT -> p.getNumberType() == JsonParser.NumberType.BIG_INTEGER ? null : p.getLongValue();
                case VALUE_NUMBER_FLOAT -> p.getDoubleValue();
                case VALUE_STRING -> p.getText();
                case VALUE_TRUE -> Boolean.TRUE;
                case VALUE_FALSE -> Boolean.FALSE;
                default -> null;
            };
            if (value != null && p.nextToken() == null) {
                return value;
            }
        } catch (IOException | RuntimeException e) {
            // not a JSON literal: fall through to a plain string
        }
        return text;
    }
}
