package org.subgraphexport.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.subgraphexport.server.ExportHttp.enc;
import static org.subgraphexport.server.ExportHttp.params;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;
import org.subgraphexport.client.ClientFormats;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.Subgraph;
import org.subgraphexport.read.StoreState;
import org.subgraphexport.testkit.RawHttp;
import org.subgraphexport.wire.Format;

/**
 * Hostile requests over real HTTP against one in-process server: for every parameter of both endpoints (and the
 * format path segment, the body and the media types) malformed, huge, negative, Unicode-confusable and
 * injection-like values. Each gets its exact status and error code, and nothing else happens: the last committed
 * transaction, the node, relationship and property counts and the label, type and key tokens are the same before
 * and after, no transaction is left open, and the server still exports the fixture exactly. docs/hostile-input.md
 * lists every case and its answer.
 *
 * <p>Four server bugs this class found (system database exported, a parser stack overflow leaking a transaction,
 * TERMINATE TRANSACTION through the read-only endpoint, CALL IN TRANSACTIONS as a 500) are fixed and kept as
 * regression tests at the end.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HostileRequestTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String IP = ApiError.INVALID_PARAMETER;
    /** Rejected by Jetty before the extension runs: a status, an HTML page, no JSON code. */
    private static final String JETTY = "(Jetty, no JSON)";

    @RegisterExtension
    static final InProcessNeo4j neo4j = InProcessNeo4j.withExtension();
    private static FixtureGraph fixture;
    private static ExportHttp http;
    private static URI server;
    private static String root;
    private static String systemNodeId;
    private static String unicodeRoot;
    private static String unicodeChild;

    @BeforeAll
    static void start() {
        fixture = FixtureGraph.create(neo4j.defaultDatabaseService());
        server = neo4j.httpURI();
        http = new ExportHttp(server);
        root = fixture.id("root");
        try (Transaction tx = neo4j.defaultDatabaseService().beginTx()) {
            var row = tx.execute("""
                    CREATE (o:Объект {ключ: 'значение', name: 'unicode'})-[:CHILDREN]->(c:Объект {ключ: 'дочь'})
                    RETURN elementId(o) AS o, elementId(c) AS c""").next();
            unicodeRoot = (String) row.get("o");
            unicodeChild = (String) row.get("c");
            tx.commit();
        }
        try (Transaction tx = neo4j.databaseManagementService().database("system").beginTx()) {
            systemNodeId = tx.getAllNodes().iterator().next().getElementId();
        }
    }

    // ---- requests ----

    record Resp(int status, String contentType, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    static Resp send(HttpRequest.Builder request) {
        try {
            HttpResponse<byte[]> r = HTTP.send(request.timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofByteArray());
            return new Resp(r.statusCode(), r.headers().firstValue("Content-Type").orElse(""), r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** GET /extension/{pathAndQuery}, the text sent as given (the caller encodes). */
    static Resp get(String pathAndQuery) {
        return send(HttpRequest.newBuilder(server.resolve("/extension/" + pathAndQuery)).GET());
    }

    /** GET kryo/traverse with these parameters, URL-encoded here. */
    static Resp traverse(String... keyValues) {
        return get("kryo/traverse?" + ExportHttp.query(params(keyValues)));
    }

    /** GET with a request target java.net.http would refuse (malformed escapes, raw bytes). */
    static Resp raw(String target) {
        RawHttp.Response r = RawHttp.get(server, "/extension/" + target);
        return new Resp(r.status(), r.contentType(), r.body());
    }

    static Resp post(String pathAndQuery, String contentType, byte[] body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(server.resolve("/extension/" + pathAndQuery))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (contentType != null) b.header("Content-Type", contentType);
        return send(b);
    }

    static Resp cypher(String jsonBody) {
        return post("kryo/cypher", "application/json", jsonBody.getBytes(StandardCharsets.UTF_8));
    }

    static String body(String query) {
        return "{\"query\": " + quote(query) + ", \"params\": {}}";
    }

    static String quote(String s) {
        try {
            return JSON.writeValueAsString(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code root} with its numeric part rewritten. */
    static String rootWithNumber(String number) {
        return root.substring(0, root.lastIndexOf(':') + 1) + number;
    }

    static String digits(String ascii, char zero) {
        StringBuilder sb = new StringBuilder();
        for (char c : ascii.toCharArray()) sb.append(Character.isDigit(c) ? (char) (zero + (c - '0')) : c);
        return sb.toString();
    }

    // ---- the cases ----

    /**
     * One hostile request and its expected answer: status, error code ({@link #JETTY} when Jetty refuses it before
     * the extension runs) and a part of the message.
     */
    record Case(String name, Supplier<Resp> request, int status, String code, String message) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Case c(String name, Supplier<Resp> request, int status, String code, String message) {
        return new Case(name, request, status, code, message);
    }

    static final String KB16 = "x".repeat(16 * 1024);
    static final String MB1 = "x".repeat(1 << 20);

    static Stream<Case> traverseCases() {
        return Stream.of(
                // root
                c("root missing", () -> traverse(), 400, IP, "missing root"),
                c("root empty", () -> traverse("root", ""), 400, IP, "not a node element id"),
                c("root garbage", () -> traverse("root", "nonsense"), 400, IP, "not a node element id"),
                c("root is a relationship's element id", () -> traverse("root", fixture.id("root>a")), 400, IP, "RELATIONSHIP"),
                c("root is an element id of the system database", () -> traverse("root", systemNodeId), 400, IP, "does not belong"),
                c("root of another database id", () -> traverse("root", root.replaceFirst(":[0-9a-f-]+:", ":11111111-2222-4333-8444-555555555555:")), 400, IP, "does not belong"),
                c("root of neo4j looked up in db=system", () -> traverse("root", root, "db", "system"), 403, Databases.SYSTEM_REFUSED, "system database cannot be exported"),
                c("root negative number", () -> traverse("root", rootWithNumber("-5")), 404, ApiError.ROOT_NOT_FOUND, "no node"),
                c("root Long.MAX_VALUE", () -> traverse("root", rootWithNumber(Long.toString(Long.MAX_VALUE))), 404, ApiError.ROOT_NOT_FOUND, "no node"),
                c("root number beyond 64 bits", () -> traverse("root", rootWithNumber("99999999999999999999")), 400, IP, "not a node element id"),
                c("root fullwidth digits", () -> traverse("root", rootWithNumber(digits(root.substring(root.lastIndexOf(':') + 1), '０'))), 400, IP, "as Neo4j writes it"),
                c("root Arabic-Indic digits", () -> traverse("root", rootWithNumber(digits(root.substring(root.lastIndexOf(':') + 1), '٠'))), 400, IP, "as Neo4j writes it"),
                c("root with '+'", () -> traverse("root", rootWithNumber("+" + root.substring(root.lastIndexOf(':') + 1))), 400, IP, "as Neo4j writes it"),
                c("root with leading zeros", () -> traverse("root", rootWithNumber("000" + root.substring(root.lastIndexOf(':') + 1))), 400, IP, "as Neo4j writes it"),
                c("root upper-case database id", () -> traverse("root", root.toUpperCase()), 400, IP, "as Neo4j writes it"),
                c("root with a NUL byte (%00)", () -> traverse("root", root + "\u0000"), 400, IP, "not a node element id"),
                c("root with an RTL mark", () -> traverse("root", "\u200F" + root), 400, IP, "not a node element id"),
                c("root with a zero-width space", () -> traverse("root", root.replace(":", ":\u200B")), 400, IP, "not a node element id"),
                c("root malformed percent escapes", () -> raw("kryo/traverse?root=%ZZ%"), 400, IP, "not a node element id"),
                c("root invalid UTF-8 escapes", () -> raw("kryo/traverse?root=%C3%28%FF"), 400, IP, "not a node element id"),
                c("root raw NUL byte in the request line", () -> raw("kryo/traverse?root=a\u0000b"), 400, JETTY, null),
                c("root 16 KB", () -> traverse("root", KB16), 400, IP, "not a node element id"),
                c("root 1 MB", () -> raw("kryo/traverse?root=" + MB1), 414, JETTY, null),
                c("root and label both", () -> traverse("root", root, "label", "Object", "key", "id", "value", "1"), 400, IP, "not both"),
                // label, key, value: token names and a value, never Cypher
                c("label injection", () -> traverse("label", "`) DETACH DELETE n //", "key", "id", "value", "1"), 404, ApiError.ROOT_NOT_FOUND, "no :"),
                c("key injection", () -> traverse("label", "Object", "key", "id}) DETACH DELETE n //", "value", "1"), 404, ApiError.ROOT_NOT_FOUND, "no :Object"),
                c("value injection", () -> traverse("label", "Object", "key", "id", "value", "1}) DETACH DELETE n RETURN 1 //"), 404, ApiError.ROOT_NOT_FOUND, "(string)"),
                c("label Cyrillic 'О' in Object", () -> traverse("label", "Оbject", "key", "id", "value", "1"), 404, ApiError.ROOT_NOT_FOUND, "no :Оbject"),
                c("label fullwidth", () -> traverse("label", "Ｏｂｊｅｃｔ", "key", "id", "value", "1"), 404, ApiError.ROOT_NOT_FOUND, "no :"),
                c("label with an RTL mark", () -> traverse("label", "Object\u200F", "key", "id", "value", "1"), 404, ApiError.ROOT_NOT_FOUND, "no :"),
                c("label with a NUL byte", () -> traverse("label", "Object\u0000", "key", "id", "value", "1"), 404, ApiError.ROOT_NOT_FOUND, "no :"),
                c("key with a NUL byte", () -> traverse("label", "Object", "key", "id\u0000", "value", "1"), 404, ApiError.ROOT_NOT_FOUND, "no :Object"),
                c("Unicode label that does not exist", () -> traverse("label", "Объект", "key", "ключ", "value", "нет"), 404, ApiError.ROOT_NOT_FOUND, "no :Объект"),
                c("label empty", () -> traverse("label", "", "key", "id", "value", "1"), 400, IP, "missing label"),
                c("value missing", () -> traverse("label", "Object", "key", "id"), 400, IP, "missing value"),
                c("value 16 KB", () -> traverse("label", "Object", "key", "id", "value", KB16), 404, ApiError.ROOT_NOT_FOUND, "(string)"),
                c("value 3,000 nested brackets", () -> traverse("label", "Object", "key", "id", "value", "[".repeat(3000)), 404, ApiError.ROOT_NOT_FOUND, "(string)"),
                c("value 1e999", () -> traverse("label", "Object", "key", "id", "value", "1e999"), 404, ApiError.ROOT_NOT_FOUND, "Infinity (double)"),
                c("value 2,000-digit number", () -> traverse("label", "Object", "key", "id", "value", "9".repeat(2000)), 404, ApiError.ROOT_NOT_FOUND, "(string)"),
                c("value JSON object", () -> traverse("label", "Object", "key", "id", "value", "{\"$ne\": 0}"), 404, ApiError.ROOT_NOT_FOUND, "(string)"),
                c("label 1 MB", () -> raw("kryo/traverse?key=id&value=1&label=" + MB1), 414, JETTY, null),
                // expand, attach: relationship filters, parsed strictly
                c("expand injection", () -> traverse("root", root, "expand", "CHILDREN>]-(x) DETACH DELETE x //"), 400, IP, "expand"),
                c("attach injection", () -> traverse("root", root, "attach", "`) DETACH DELETE n //"), 400, IP, "attach"),
                c("expand variable length", () -> traverse("root", root, "expand", "CHILDREN*..5>"), 400, IP, "expand"),
                c("expand Cyrillic 'С' in CHILDREN", () -> traverse("root", root, "expand", "СHILDREN>"), 400, IP, "expand"),
                c("expand fullwidth", () -> traverse("root", root, "expand", "ＣＨＩＬＤＲＥＮ>"), 400, IP, "expand"),
                c("expand with an RTL mark", () -> traverse("root", root, "expand", "CHILDREN\u200F>"), 400, IP, "expand"),
                c("expand with a NUL byte", () -> traverse("root", root, "expand", "CHILDREN\u0000>"), 400, IP, "expand"),
                c("expand 65 types", () -> traverse("root", root, "expand", "A|".repeat(64) + "A"), 400, IP, "at most 64"),
                c("expand 5,000 types", () -> traverse("root", root, "expand", "A|".repeat(4999) + "A"), 400, IP, "at most 64"),
                c("expand 100,000 types", () -> raw("kryo/traverse?root=" + enc(root) + "&expand=" + "A%7C".repeat(99_999) + "A"), 414, JETTY, null),
                c("expand both arrows", () -> traverse("root", root, "expand", "<A>"), 400, IP, "both '<' and '>'"),
                c("expand only a separator", () -> traverse("root", root, "expand", "|"), 400, IP, "expand"),
                c("expand and attach share a type", () -> traverse("root", root, "expand", "PROPERTY"), 400, IP, "both expand and attach"),
                // maxDepth, limit: ASCII digits only
                c("maxDepth negative", () -> traverse("root", root, "maxDepth", "-1"), 400, IP, "maxDepth"),
                c("maxDepth word", () -> traverse("root", root, "maxDepth", "two"), 400, IP, "maxDepth must be a non-negative integer"),
                c("maxDepth fraction", () -> traverse("root", root, "maxDepth", "1.5"), 400, IP, "maxDepth must be a non-negative integer"),
                c("maxDepth fullwidth digit", () -> traverse("root", root, "maxDepth", "３"), 400, IP, "maxDepth must be a non-negative integer"),
                c("maxDepth Arabic-Indic digit", () -> traverse("root", root, "maxDepth", "٣"), 400, IP, "maxDepth must be a non-negative integer"),
                c("maxDepth with '+'", () -> traverse("root", root, "maxDepth", "+3"), 400, IP, "maxDepth must be a non-negative integer"),
                c("maxDepth hexadecimal", () -> traverse("root", root, "maxDepth", "0x10"), 400, IP, "maxDepth must be a non-negative integer"),
                c("maxDepth exponent", () -> traverse("root", root, "maxDepth", "1e3"), 400, IP, "maxDepth must be a non-negative integer"),
                c("maxDepth with a NUL byte", () -> traverse("root", root, "maxDepth", "3\u0000"), 400, IP, "maxDepth must be a non-negative integer"),
                c("maxDepth with an RTL mark", () -> traverse("root", root, "maxDepth", "3\u200F"), 400, IP, "maxDepth must be a non-negative integer"),
                c("maxDepth 5,000 digits", () -> traverse("root", root, "maxDepth", "9".repeat(5000)), 400, IP, "maxDepth must be a non-negative integer"),
                c("maxDepth above int", () -> traverse("root", root, "maxDepth", "2147483648"), 400, IP, "at most"),
                c("maxDepth empty", () -> traverse("root", root, "maxDepth", ""), 400, IP, "maxDepth must be a non-negative integer"),
                c("limit negative", () -> traverse("root", root, "limit", "-5"), 400, IP, "limit"),
                c("limit fullwidth digits", () -> traverse("root", root, "limit", "１０"), 400, IP, "limit must be a non-negative integer"),
                c("limit above long", () -> traverse("root", root, "limit", "9223372036854775808"), 400, IP, "limit must be a non-negative integer"),
                // db
                c("db unknown", () -> traverse("root", root, "db", "nosuchdb"), 404, ApiError.DATABASE_NOT_FOUND, "nosuchdb"),
                c("db Cyrillic 'о' in neo4j", () -> traverse("root", root, "db", "neо4j"), 404, ApiError.DATABASE_NOT_FOUND, "does not exist"),
                c("db with a NUL byte", () -> traverse("root", root, "db", "neo4j\u0000"), 404, ApiError.DATABASE_NOT_FOUND, "does not exist"),
                c("db path traversal", () -> traverse("root", root, "db", "../../etc"), 404, ApiError.DATABASE_NOT_FOUND, "does not exist"),
                c("db 5,000 characters", () -> traverse("root", root, "db", "d".repeat(5000)), 404, ApiError.DATABASE_NOT_FOUND, "does not exist"),
                c("db empty", () -> traverse("root", root, "db", ""), 400, IP, "db must not be empty"),
                // timeout
                c("timeout zero", () -> traverse("root", root, "timeout", "0"), 400, IP, "timeout must be positive"),
                c("timeout negative", () -> traverse("root", root, "timeout", "-1s"), 400, IP, "timeout must be a whole number"),
                c("timeout fraction", () -> traverse("root", root, "timeout", "1.5s"), 400, IP, "timeout must be a whole number"),
                c("timeout fullwidth digit", () -> traverse("root", root, "timeout", "３s"), 400, IP, "timeout must be a whole number"),
                c("timeout unknown unit", () -> traverse("root", root, "timeout", "1d"), 400, IP, "timeout must be a whole number"),
                c("timeout 13 digits", () -> traverse("root", root, "timeout", "9999999999999s"), 400, IP, "timeout must be a whole number"),
                c("timeout with a NUL byte", () -> traverse("root", root, "timeout", "30s\u0000"), 400, IP, "timeout must be a whole number"),
                // the format path segment
                c("format upper case", () -> get("KRYO/traverse?root=" + enc(root)), 404, ApiError.UNKNOWN_FORMAT, "json, bson, kryo, kryo-lzf"),
                c("format fullwidth", () -> get(enc("ｋｒｙｏ") + "/traverse?root=" + enc(root)), 404, ApiError.UNKNOWN_FORMAT, "unknown format"),
                c("format Cyrillic 'о'", () -> get(enc("kryо") + "/traverse?root=" + enc(root)), 404, ApiError.UNKNOWN_FORMAT, "unknown format"),
                c("format kryo-LZF", () -> get("kryo-LZF/traverse?root=" + enc(root)), 404, ApiError.UNKNOWN_FORMAT, "unknown format"),
                c("format 16 KB", () -> get(KB16 + "/traverse?root=" + enc(root)), 404, ApiError.UNKNOWN_FORMAT, "unknown format"),
                c("format with %00", () -> raw("kryo%00/traverse?root=x"), 400, JETTY, null),
                c("format %2e%2e", () -> raw("%2e%2e/traverse?root=x"), 400, JETTY, null),
                c("format with an encoded slash", () -> raw("kryo%2Flzf/traverse?root=x"), 400, JETTY, null),
                c("format with a matrix parameter", () -> get("kryo;maxDepth=0/traverse?root=" + enc(root)), 400, IP, "matrix parameters"),
                c("format with an encoded ';'", () -> get("kryo%3BmaxDepth=0/traverse?root=" + enc(root)), 404, ApiError.UNKNOWN_FORMAT, "unknown format"),
                // parameter names
                c("parameter name in another case", () -> get("kryo/traverse?Root=" + enc(root)), 400, IP, "unknown query parameter 'Root'"),
                c("parameter repeated", () -> get("kryo/traverse?root=" + enc(root) + "&root=" + enc(root)), 400, IP, "2 times"),
                c("parameter name invalid UTF-8", () -> raw("kryo/traverse?%ff=1"), 400, IP, "unknown query parameter"),
                c("POST on traverse", () -> post("kryo/traverse?root=" + enc(root), "application/json", new byte[] {'{', '}'}), 405, "Neo.ClientError.Request.Invalid", "Method Not Allowed"));
    }

    static Stream<Case> cypherCases() {
        return Stream.of(
                // the body
                c("body 20 MB", () -> cypher("{\"query\": \"RETURN 1\", \"params\": {\"a\": \"" + "x".repeat(20 << 20) + "\"}}"), 413, "Export.BodyTooLarge", "body larger than 16777216 bytes"),
                c("body 64 MB of zeros", () -> post("kryo/cypher", "application/json", new byte[64 << 20]), 413, "Export.BodyTooLarge", "body larger than 16777216 bytes"),
                c("params nested 10,000 levels", () -> cypher("{\"query\": \"RETURN 1\", \"params\": {\"a\": " + "[".repeat(10_000) + "]".repeat(10_000) + "}}"), 400, IP, "nesting depth"),
                c("body nested 10,000 levels", () -> cypher("[".repeat(10_000) + "]".repeat(10_000)), 400, IP, "JSON object"),
                c("params nested 65 levels", () -> cypher("{\"query\": \"RETURN 1\", \"params\": {\"a\": " + "[".repeat(65) + "]".repeat(65) + "}}"), 400, IP, "nesting depth"),
                c("query given twice", () -> cypher("{\"query\": \"RETURN 1\", \"query\": \"MATCH (n) RETURN n\"}"), 400, IP, "Duplicate field 'query'"),
                c("parameter name given twice", () -> cypher("{\"query\": \"RETURN $a\", \"params\": {\"a\": 1, \"a\": 2}}"), 400, IP, "Duplicate field 'a'"),
                c("params and parameters", () -> cypher("{\"query\": \"RETURN $a\", \"params\": {\"a\": 1}, \"parameters\": {\"a\": 2}}"), 400, IP, "not both"),
                c("body invalid UTF-8", () -> post("kryo/cypher", "application/json", new byte[] {'{', '"', 'q', (byte) 0xFF, '"', ':', '1', '}'}), 400, IP, "Invalid UTF-8"),
                c("body empty", () -> cypher(""), 400, IP, "missing body"),
                c("body null", () -> cypher("null"), 400, IP, "JSON object"),
                c("body with trailing garbage", () -> cypher("{\"query\": \"RETURN 1\"} x"), 400, IP, "not valid JSON"),
                c("body with a second object", () -> cypher("{\"query\": \"RETURN 1\"} {\"query\": \"RETURN 2\"}"), 400, IP, "exactly one JSON object"),
                c("parameter number of 101 digits", () -> cypher("{\"query\": \"RETURN $a\", \"params\": {\"a\": " + "9".repeat(101) + "}}"), 400, IP, "not valid JSON"),
                c("parameter integer beyond 64 bits", () -> cypher("{\"query\": \"RETURN $a\", \"params\": {\"a\": 9223372036854775808}}"), 400, IP, "64-bit range"),
                c("query not a string", () -> cypher("{\"query\": {\"nested\": \"MATCH (n) DETACH DELETE n\"}}"), 400, IP, "query must be a string"),
                c("query with a NUL byte", () -> cypher(body("RETURN 1\u0000")), 400, "Neo.ClientError.Statement.SyntaxError", ""),
                c("two statements", () -> cypher(body("MATCH (n) RETURN n; MATCH (n) DETACH DELETE n")), 400, "Neo.ClientError.Statement.SyntaxError", ""),
                c("query injection that deletes", () -> cypher(body("MATCH (n) WHERE n.name = '' OR true DETACH DELETE n //")), 400, CypherResource.WRITE_REFUSED, "read-only"),
                c("LOAD CSV that writes", () -> cypher(body("LOAD CSV FROM 'file:///etc/passwd' AS l CREATE (:Leak {l: l})")), 400, CypherResource.WRITE_REFUSED, "read-only"),
                c("procedure of the DBMS", () -> cypher(body("CALL db.clearQueryCaches()")), 400, CypherResource.WRITE_REFUSED, "read-only"),
                c("system database graph", () -> post("kryo/cypher?db=system", "application/json", body("MATCH (n) RETURN n").getBytes(StandardCharsets.UTF_8)), 403, Databases.SYSTEM_REFUSED, "system database cannot be exported"),
                c("system database users", () -> post("kryo/cypher?db=system", "application/json", body("SHOW USERS").getBytes(StandardCharsets.UTF_8)), 403, Databases.SYSTEM_REFUSED, "system database cannot be exported"),
                // media types: the body is JSON whatever the Content-Type says (see docs/hostile-input.md)
                c("Content-Type application/xml with XML", () -> post("kryo/cypher", "application/xml", "<query>MATCH (n) RETURN n</query>".getBytes(StandardCharsets.UTF_8)), 400, IP, "not valid JSON"),
                c("Content-Type text/plain with Cypher", () -> post("kryo/cypher", "text/plain", "MATCH (n) RETURN n".getBytes(StandardCharsets.UTF_8)), 400, IP, "not valid JSON"),
                // query parameters
                c("mode upper case", () -> post("kryo/cypher?mode=GRAPH", "application/json", body("RETURN 1").getBytes(StandardCharsets.UTF_8)), 400, IP, "mode"),
                c("mode Cyrillic 'а'", () -> post("kryo/cypher?mode=" + enc("grаph"), "application/json", body("RETURN 1").getBytes(StandardCharsets.UTF_8)), 400, IP, "mode"),
                c("mode with a NUL byte", () -> post("kryo/cypher?mode=graph%00", "application/json", body("RETURN 1").getBytes(StandardCharsets.UTF_8)), 400, IP, "mode"),
                c("mode repeated", () -> post("kryo/cypher?mode=graph&mode=rows", "application/json", body("RETURN 1").getBytes(StandardCharsets.UTF_8)), 400, IP, "2 times"),
                c("mode 5,000 characters", () -> post("kryo/cypher?mode=" + "g".repeat(5000), "application/json", body("RETURN 1").getBytes(StandardCharsets.UTF_8)), 400, IP, "mode"),
                c("cypher timeout unknown unit", () -> post("kryo/cypher?timeout=1d", "application/json", body("RETURN 1").getBytes(StandardCharsets.UTF_8)), 400, IP, "timeout"),
                c("cypher db unknown", () -> post("kryo/cypher?db=nosuchdb", "application/json", body("RETURN 1").getBytes(StandardCharsets.UTF_8)), 404, ApiError.DATABASE_NOT_FOUND, "nosuchdb"),
                c("cypher query as a URL parameter", () -> post("kryo/cypher?query=" + enc("MATCH (n) RETURN n"), "application/json", body("RETURN 1").getBytes(StandardCharsets.UTF_8)), 400, IP, "unknown query parameter 'query'"),
                c("cypher format unknown", () -> post("xml/cypher", "application/json", body("RETURN 1").getBytes(StandardCharsets.UTF_8)), 404, ApiError.UNKNOWN_FORMAT, "unknown format"),
                c("GET on cypher", () -> get("kryo/cypher"), 405, "Neo.ClientError.Request.Invalid", "Method Not Allowed"));
    }

    @ParameterizedTest(name = "traverse: {0}")
    @MethodSource("traverseCases")
    @Order(1)
    void traverseRequest(Case c) throws IOException {
        assertAnsweredAndNothingElseHappened(c);
    }

    @ParameterizedTest(name = "cypher: {0}")
    @MethodSource("cypherCases")
    @Order(2)
    void cypherRequest(Case c) throws IOException {
        assertAnsweredAndNothingElseHappened(c);
    }

    private static void assertAnsweredAndNothingElseHappened(Case c) throws IOException {
        State before = State.of(db());
        Resp r = c.request().get();
        assertEquals(c.status(), r.status(), () -> c + ": " + abbreviated(r.text()));
        if (c.code().equals(JETTY)) {
            assertFalse(r.contentType().startsWith("application/json"), c + ": Jetty answers with HTML");
        } else {
            assertEquals("application/json", r.contentType().split(";")[0].strip(), c.toString());
            JsonNode json = JSON.readTree(r.body());
            JsonNode error = json.has("errors") ? json.path("errors").path(0) : json; // Neo4j's own 405 body
            assertEquals(c.code(), error.path("code").asText(), () -> c + ": " + abbreviated(r.text()));
            if (!json.has("errors")) {
                assertEquals(c.status(), json.path("status").asInt(), c.toString());
            }
            assertTrue(error.path("message").asText().contains(c.message()),
                    () -> c + ": message should contain '" + c.message() + "': " + abbreviated(r.text()));
            assertTrue(r.body().length < 4096, () -> c + ": the error echoes the input (" + r.body().length + " bytes)");
        }
        assertEquals(before, State.awaitSame(db(), before), c + " changed the database or left a transaction open");
        assertExportsTheFixture(Format.KRYO);
    }

    // ---- hostile-looking but legal ----

    @Test
    @Order(3)
    void unicodeLabelKeyAndValueAreLegal() throws IOException {
        State before = State.of(db());
        Subgraph g = http.traverse(Format.JSON, params("label", "Объект", "key", "ключ", "value", "значение"));
        assertEquals(unicodeRoot, g.header().root());
        assertEquals(Set.of(unicodeRoot, unicodeChild), g.nodes().keySet());
        assertEquals("значение", g.nodes().get(unicodeRoot).properties().get("ключ"));
        assertEquals(List.of("Объект"), g.nodes().get(unicodeChild).labels());
        assertEquals(before, State.awaitSame(db(), before));
    }

    @Test
    @Order(3)
    void theFormatIsThePathsWhateverTheAcceptHeaderSays() throws IOException {
        byte[] plain = send(HttpRequest.newBuilder(server.resolve("/extension/kryo/traverse?root=" + enc(root))).GET()).body();
        for (String accept : List.of("application/xml", "application/json", "text/html;q=0.9, */*;q=0.1")) {
            Resp r = send(HttpRequest.newBuilder(server.resolve("/extension/kryo/traverse?root=" + enc(root)))
                    .header("Accept", accept).GET());
            assertEquals(200, r.status(), accept);
            assertEquals(Format.KRYO.mediaType(), r.contentType().split(";")[0], accept);
            assertArrayEquals(plain, r.body(), accept);
        }
    }

    @Test
    @Order(3)
    void theCypherBodyIsJsonWhateverTheContentTypeSays() throws IOException {
        byte[] json = body("MATCH (n:Root) RETURN n").getBytes(StandardCharsets.UTF_8);
        byte[] expected = post("kryo/cypher", "application/json", json).body();
        for (String type : new String[] {"text/plain", "application/x-www-form-urlencoded", "application/xml", null}) {
            State before = State.of(db());
            Resp r = post("kryo/cypher", type, json);
            assertEquals(200, r.status(), () -> type + ": " + r.text());
            assertArrayEquals(expected, r.body(), String.valueOf(type));
            assertEquals(before, State.awaitSame(db(), before));
        }
        assertEquals(Set.of(root), decode(Format.KRYO, expected).nodes().keySet());
    }

    @Test
    @Order(3)
    void hugeButLegalValuesDoNoHarm() throws IOException {
        State before = State.of(db());
        // a body of exactly the 16 MiB limit, nearly all of it one string parameter
        String head = "{\"query\": \"RETURN size($s) AS n\", \"params\": {\"s\": \"";
        Resp big = cypher(head + "x".repeat(CypherRequest.MAX_BODY_BYTES - head.length() - 3) + "\"}}");
        assertEquals(200, big.status(), () -> abbreviated(big.text()));
        assertEquals(0, decode(Format.KRYO, big.body()).nodes().size());
        // a legal, 6,000-character relationship type that does not exist: the root alone
        Subgraph longType = http.traverse(Format.KRYO, params("root", root, "expand", "A".repeat(6000), "attach", ""));
        assertEquals(Set.of(root), longType.nodes().keySet());
        assertFalse(longType.end().truncated());
        // an element id of another database as a Cypher parameter is just a string that matches nothing
        Subgraph other = http.cypher(Format.JSON, "{\"query\": \"MATCH (n) WHERE elementId(n) = $id RETURN n\", "
                + "\"params\": {\"id\": " + quote(systemNodeId) + "}}");
        assertEquals(0, other.nodes().size());
        // database names are case-insensitive in Neo4j
        assertEquals(9, http.traverse(Format.BSON, params("root", root, "db", "NEO4J")).nodes().size());
        // a timeout of 999,999,999,999 hours is accepted and the export completes
        assertFalse(http.traverse(Format.KRYO, params("root", root, "timeout", "999999999999h")).end().truncated());
        assertEquals(before, State.awaitSame(db(), before));
    }

    // ---- afterwards ----

    @ParameterizedTest
    @ClientFormats
    @Order(4)
    void afterAllOfItTheServerStillExportsExactly(Format format) throws IOException {
        assertExportsTheFixture(format);
    }

    private static void assertExportsTheFixture(Format format) throws IOException {
        Subgraph g = http.traverse(format, params("root", root));
        assertEquals(new HashSet<>(fixture.ids("root", "a", "b", "d", "s1", "seq", "s2", "s3", "s4")), g.nodes().keySet());
        assertEquals(new HashSet<>(fixture.ids("root>a", "root>b", "a>d", "b>d", "d>root", "a>s1", "d>seq", "seq>s2", "seq>s3", "s3>s4")),
                g.relationships().keySet());
        assertFalse(g.end().truncated());
    }

    // ---- bugs this test class found, fixed: they stay as regression tests ----

    /**
     * Was: {@code db=system} exported the system graph, including each user's {@code credentials} (the salted
     * password hash). Now 403 Export.SystemDatabaseRefused, whoever asks.
     */
    @Test
    @Order(5)
    void systemDatabaseIsNotExportable() {
        Resp r = traverse("db", "system", "label", "User", "key", "name", "value", "neo4j");
        assertFalse(r.text().contains("credentials"), "the password hash of user neo4j was exported");
        assertEquals(403, r.status(), () -> abbreviated(r.text()));
        assertTrue(r.text().contains("\"code\":\"Export.SystemDatabaseRefused\""), r::text);
    }

    /**
     * Was: a Cypher query nested ~200 levels deep ({@code RETURN [[[…1…]]]}, {@code 1+1+…}, {@code NOT NOT …},
     * nested maps) made Neo4j's parser throw StackOverflowError; the request failed with 500 and leaked its
     * transaction. Now 400 Export.QueryTooDeep (or Neo4j's own client error) and the transaction is closed.
     */
    @Test
    @Order(5)
    void deeplyNestedQueryIsA4xxAndLeaksNoTransaction() {
        State before = State.of(db());
        for (String q : List.of("RETURN " + "[".repeat(300) + "1" + "]".repeat(300), "RETURN " + "1+".repeat(5000) + "1",
                "RETURN " + "NOT ".repeat(2000) + "true", "RETURN " + "{a:".repeat(200) + "1" + "}".repeat(200))) {
            Resp r = cypher(body(q));
            assertEquals(400, r.status(), () -> q.substring(0, 20) + "…: " + abbreviated(r.text()));
        }
        assertEquals(before, State.awaitSame(db(), before), "export transactions left open");
    }

    /**
     * Was: {@code TERMINATE TRANSACTION} is planned as READ_ONLY, so the Cypher endpoint ran it and terminated
     * another session's transaction. Now the export transaction is denied every administration action.
     */
    @Test
    @Order(5)
    void terminateTransactionIsRefused() {
        try (Transaction victim = db().beginTx()) {
            victim.execute("MATCH (n) RETURN count(n)").next();
            String id;
            try (Transaction tx = db().beginTx()) {
                id = (String) tx.execute("SHOW TRANSACTIONS YIELD transactionId, currentQuery "
                        + "WHERE NOT currentQuery CONTAINS 'SHOW' RETURN transactionId").next().get("transactionId");
            }
            Resp r = cypher(body("TERMINATE TRANSACTION '" + id + "'"));
            assertEquals(400, r.status(), r::text);
            assertEquals(1L, victim.execute("RETURN 1 AS one").next().get("one"), "the victim transaction still works");
        }
    }

    /** Was: CALL {…} IN TRANSACTIONS answered 500 Neo.DatabaseError.Transaction.TransactionStartFailed. */
    @Test
    @Order(5)
    void callInTransactionsIsA4xx() {
        State before = State.of(db());
        Resp r = cypher(body("CALL () { CREATE (:X) } IN TRANSACTIONS"));
        assertEquals(400, r.status(), r::text);
        assertEquals(before, State.awaitSame(db(), before));
    }

    // ---- the database's state ----

    static GraphDatabaseService db() {
        return neo4j.defaultDatabaseService();
    }

    /**
     * Everything a request could change: the last committed transaction (any write, token creation included, commits
     * one), the counts, the token counts, and the transactions open other than the one asking.
     */
    record State(String version, long nodes, long relationships, long properties, int labels, int types, int keys,
            List<String> openTransactions) {
        static State of(GraphDatabaseService db) {
            try (Transaction tx = db.beginTx()) {
                var tokens = ((InternalTransaction) tx).kernelTransaction().tokenRead();
                List<String> open = tx.execute("SHOW TRANSACTIONS YIELD transactionId, currentQuery, status "
                                + "RETURN transactionId, currentQuery, status").stream()
                        .filter(row -> !String.valueOf(row.get("currentQuery")).contains("SHOW TRANSACTIONS"))
                        .map(row -> row.get("transactionId") + " " + row.get("status"))
                        .collect(Collectors.toCollection(ArrayList::new));
                return new State(StoreState.version(db),
                        count(tx, "MATCH (n) RETURN count(n) AS c"),
                        count(tx, "MATCH ()-[r]->() RETURN count(r) AS c"),
                        count(tx, "CALL { MATCH (n) RETURN sum(size(keys(n))) AS k } "
                                + "CALL { MATCH ()-[r]->() RETURN sum(size(keys(r))) AS l } RETURN k + l AS c"),
                        tokens.labelCount(), tokens.relationshipTypeCount(), tokens.propertyKeyCount(), open);
            }
        }

        /** The state once open transactions had up to 5 s to close (a response is read before its transaction ends). */
        static State awaitSame(GraphDatabaseService db, State expected) {
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            State now = of(db);
            while (!now.equals(expected) && System.nanoTime() < deadline) {
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
                now = of(db);
            }
            return now;
        }

        private static long count(Transaction tx, String query) {
            return ((Number) tx.execute(query).next().get("c")).longValue();
        }
    }

    private static Subgraph decode(Format format, byte[] bytes) throws IOException {
        try (ExportReader reader = ExportReader.open(format, new ByteArrayInputStream(bytes))) {
            return Subgraph.read(reader);
        }
    }

    private static String abbreviated(String text) {
        return text.length() <= 600 ? text : text.substring(0, 600) + "…(" + text.length() + " chars)";
    }
}
