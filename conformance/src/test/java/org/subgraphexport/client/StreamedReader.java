package org.subgraphexport.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.subgraphexport.wire.Format;

/**
 * The streaming API seen as records, built by the test's own code (not the client's record layer), so that a
 * comparison with {@link ExportReader} is a differential test of the two APIs. It also checks the streaming
 * contract as it goes: the call order of each record, primitives and strings through their typed calls (never
 * boxed into {@code objectValue}), names (labels, types, keys) as one shared instance each, and {@link ElementId}
 * views whose prefix and number make their text, with one shared prefix String per prefix and role.
 */
final class StreamedReader implements ExportReader, ExportHandler {
    private final ExportParser parser;
    private final Map<String, String> names = new HashMap<>();
    private final Map<String, String> nodePrefixes = new HashMap<>();
    private final Map<String, String> relationshipPrefixes = new HashMap<>();

    private String id, type, start, end;
    private List<String> labels;
    private Map<String, Object> properties;
    private String key;
    private boolean propertiesBegun;
    private List<String> columns;
    private ExportEnd endRecord;
    /** Open lists and maps of a row value, innermost first; the row's own values list at the bottom. */
    private final Deque<Object> open = new ArrayDeque<>();
    private final Deque<String> mapKeys = new ArrayDeque<>();
    private boolean expectValue;

    StreamedReader(ExportParser parser) {
        this.parser = parser;
    }

    static ExportReader open(Format format, java.io.InputStream in) throws IOException {
        return new StreamedReader(ExportParser.open(format, in));
    }

    @Override
    public ExportHeader header() {
        return parser.header();
    }

    @Override
    public Format format() {
        return parser.format();
    }

    @Override
    @SuppressWarnings("unchecked")
    public ExportRecord next() throws IOException {
        id = type = start = end = null;
        labels = null;
        properties = null;
        propertiesBegun = false;
        open.clear();
        ExportParser.Kind kind = parser.next(this);
        if (kind == null) {
            return null;
        }
        assertFalse(expectValue, "a property or map key without its value");
        return switch (kind) {
            case NODE -> new ExportNode(id, labels, properties);
            case RELATIONSHIP -> new ExportRelationship(id, type, start, end, properties);
            case COLUMNS -> new ExportColumns(columns);
            case ROW -> {
                assertEquals(1, open.size(), "lists and maps closed");
                yield new ExportRow((List<Object>) open.pop());
            }
            case END -> withState(endRecord, parser.end());
            case LEFT -> new org.subgraphexport.client.ExportLeft(id, leftNode);
        };
    }

    @Override
    public void close() throws IOException {
        parser.close();
    }

    // ---- the handler ----

    private String shared(String name) {
        String first = names.putIfAbsent(name, name);
        if (first != null) {
            assertSame(first, name, () -> "name '" + name + "' not the stream's shared instance");
        }
        return name;
    }

    private String checked(ElementId id, Map<String, String> prefixes) {
        String text = id.toString();
        if (id.hasNumber()) {
            assertEquals(text, id.prefix() + id.number(), "prefix and number make the id");
            String first = prefixes.putIfAbsent(id.prefix(), id.prefix());
            // the JSON and BSON decoders keep the 4 most recent prefixes of all ids: beyond 4 (a mutated stream), a
            // prefix seen before may come as a new instance
            if (first != null && nodePrefixes.size() + relationshipPrefixes.size() <= 4) {
                assertSame(first, id.prefix(), () -> "prefix of " + text + " not shared");
            }
        } else {
            assertEquals(text, id.prefix(), "an id without number is its own prefix");
            assertEquals(0, id.number());
        }
        return text;
    }

    private boolean leftNode;

    @Override
    public void leftNode(ElementId id) {
        this.id = checked(id, nodePrefixes);
        leftNode = true;
    }

    @Override
    public void leftRelationship(ElementId id) {
        this.id = checked(id, relationshipPrefixes);
        leftNode = false;
    }

    @Override
    public void columns(List<String> names) {
        columns = names;
    }

    @Override
    public void node(ElementId id) {
        assertEquals(null, this.id, "one node call per record");
        this.id = checked(id, nodePrefixes);
        labels = new ArrayList<>();
        properties = new LinkedHashMap<>();
    }

    @Override
    public void label(String label) {
        assertNotNull(labels, "a label outside a node");
        assertFalse(propertiesBegun, "a label after a property");
        labels.add(shared(label));
    }

    @Override
    public void relationship(ElementId id, String type, ElementId start, ElementId end) {
        assertEquals(null, this.id, "one relationship call per record");
        this.id = checked(id, relationshipPrefixes);
        this.type = shared(type);
        this.start = checked(start, nodePrefixes);
        this.end = checked(end, nodePrefixes);
        properties = new LinkedHashMap<>();
    }

    @Override
    public void property(String key) {
        assertNotNull(properties, "a property outside a node or relationship");
        assertFalse(expectValue, "a property key without its value");
        assertFalse(properties.containsKey(key), "a key twice");
        propertiesBegun = true;
        this.key = shared(key);
        expectValue = true;
    }

    @Override
    public void row() {
        List<Object> values = new ArrayList<>();
        open.push(values);
    }

    @Override
    public void end(long nodes, long relationships, boolean truncated, long rows) {
        endRecord = new ExportEnd(nodes, relationships, truncated, rows);
    }

    private void add(Object value) {
        if (open.isEmpty()) {
            assertTrue(expectValue, "a value without its property key");
            properties.put(key, value);
            expectValue = false;
        } else if (open.peek() instanceof Map<?, ?> map) {
            assertFalse(mapKeys.peek().isEmpty(), "a map value without its key");
            @SuppressWarnings("unchecked")
            Map<String, Object> m = (Map<String, Object>) map;
            m.put(mapKeys.pop().substring(1), value);
            mapKeys.push("");
        } else {
            @SuppressWarnings("unchecked")
            List<Object> list = (List<Object>) open.peek();
            list.add(value);
        }
    }

    @Override
    public void objectValue(Object value) {
        assertFalse(value instanceof Number || value instanceof Boolean || value instanceof Character
                || value instanceof String, () -> value.getClass() + " boxed into objectValue, not its typed call");
        assertFalse(value instanceof NodeRef || value instanceof RelationshipRef, "refs have their own calls");
        assertNotNull(value, "null has its own call");
        add(value);
    }

    @Override
    public void booleanValue(boolean value) {
        add(value);
    }

    @Override
    public void byteValue(byte value) {
        add(value);
    }

    @Override
    public void shortValue(short value) {
        add(value);
    }

    @Override
    public void intValue(int value) {
        add(value);
    }

    @Override
    public void longValue(long value) {
        add(value);
    }

    @Override
    public void floatValue(float value) {
        add(value);
    }

    @Override
    public void doubleValue(double value) {
        add(value);
    }

    @Override
    public void charValue(char value) {
        add(value);
    }

    @Override
    public void stringValue(String value) {
        add(value);
    }

    @Override
    public void nullValue() {
        assertFalse(open.isEmpty(), "null as a property value");
        add(null);
    }

    @Override
    public void beginList(int size) {
        assertFalse(open.isEmpty(), "a list as a property value");
        assertTrue(size >= -1);
        open.push(new ArrayList<>());
    }

    @Override
    public void endList() {
        Object list = open.pop();
        add(Collections.unmodifiableList((List<?>) list));
    }

    @Override
    public void beginMap(int size) {
        assertFalse(open.isEmpty(), "a map as a property value");
        assertTrue(size >= -1);
        open.push(new LinkedHashMap<>());
        mapKeys.push("");
    }

    /** The pending key of each open map, after a '=' ("" when none is pending: keys may be empty strings). */
    @Override
    public void mapKey(String key) {
        assertTrue(open.peek() instanceof Map<?, ?>, "a map key outside a map");
        assertTrue(mapKeys.pop().isEmpty(), "a map key without its value");
        mapKeys.push("=" + key);
    }

    @Override
    public void endMap() {
        assertTrue(mapKeys.peek().isEmpty(), "a map key without its value");
        Object map = open.pop();
        mapKeys.pop();
        add(Collections.unmodifiableMap((Map<?, ?>) map));
    }

    @Override
    public void nodeRef(ElementId id) {
        add(new NodeRef(checked(id, nodePrefixes)));
    }

    @Override
    public void relationshipRef(ElementId id) {
        add(new RelationshipRef(checked(id, relationshipPrefixes)));
    }

    /**
     * The end record the handler saw, with the state the parser read (the handler's end call carries the counts
     * only); the parser's own end record must agree on the counts.
     */
    private static ExportEnd withState(ExportEnd handled, ExportEnd parsed) {
        ExportEnd end = new ExportEnd(handled.nodes(), handled.relationships(), handled.truncated(), handled.rows(),
                parsed.state());
        if (!end.equals(parsed)) {
            throw new IllegalStateException("the handler saw " + handled + ", the parser read " + parsed);
        }
        return end;
    }
}
