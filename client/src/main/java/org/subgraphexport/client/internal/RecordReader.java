package org.subgraphexport.client.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.subgraphexport.client.ElementId;
import org.subgraphexport.client.ExportColumns;
import org.subgraphexport.client.ExportHandler;
import org.subgraphexport.client.ExportHeader;
import org.subgraphexport.client.ExportLeft;
import org.subgraphexport.client.ExportNode;
import org.subgraphexport.client.ExportParser;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.ExportRecord;
import org.subgraphexport.client.ExportRelationship;
import org.subgraphexport.client.ExportRow;
import org.subgraphexport.wire.Format;

/**
 * The record API on the streaming one: an {@link ExportReader} that is the {@link ExportHandler} of an
 * {@link ExportParser} and builds each record from the parts the parser hands it: labels lists and
 * {@link PropertyMap}s through {@link RecordParts}, row values as unmodifiable lists and insertion-ordered maps.
 * Node element ids built from prefix and number (Kryo) are kept for a while by number, so that a relationship's
 * start and end share their node's id String instead of formatting it again.
 */
public final class RecordReader implements ExportReader, ExportHandler {
    private static final int RECENT_NODES = 1024;

    private final ExportParser parser;
    private final RecordParts parts = new RecordParts();
    private String id;
    private String type;
    private String start;
    private String end;
    private List<String> columns;
    /** Lists and maps of the current row, the row's own values list first; {@code depth} of them open. */
    private Object[] containers = new Object[8];
    private String[] mapKeys = new String[8];
    private int depth;

    private final long[] recentNodeNumbers = new long[RECENT_NODES];
    private final String[] recentNodePrefixes = new String[RECENT_NODES];
    private final String[] recentNodeIds = new String[RECENT_NODES];

    public RecordReader(ExportParser parser) {
        this.parser = parser;
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
    public ExportRecord next() throws IOException {
        ExportParser.Kind kind;
        try {
            kind = parser.next(this);
        } finally {
            depth = 0;
        }
        if (kind == null) {
            return null;
        }
        return switch (kind) {
            case NODE -> new ExportNode(id, parts.labels(), parts.properties());
            case RELATIONSHIP -> new ExportRelationship(id, type, start, end, parts.properties());
            case COLUMNS -> new ExportColumns(columns);
            case ROW -> new ExportRow(rowValues());
            case END -> parser.end();
            case LEFT -> left;
        };
    }

    @SuppressWarnings("unchecked")
    private List<Object> rowValues() {
        List<Object> values = (List<Object>) containers[0];
        containers[0] = null;
        return values;
    }

    @Override
    public void close() throws IOException {
        parser.close();
    }

    // ---- the handler ------------------------------------------------------------------------------------------

    private ExportLeft left;

    @Override
    public void leftNode(ElementId id) {
        left = new ExportLeft(id.toString(), true);
    }

    @Override
    public void leftRelationship(ElementId id) {
        left = new ExportLeft(id.toString(), false);
    }

    @Override
    public void columns(List<String> names) {
        columns = names;
    }

    @Override
    public void node(ElementId id) {
        this.id = nodeId(id);
        parts.clearLabels();
        parts.clearProperties();
    }

    @Override
    public void label(String label) {
        parts.addLabel(label);
    }

    @Override
    public void relationship(ElementId id, String type, ElementId start, ElementId end) {
        this.id = id.toString();
        this.type = type;
        this.start = nodeId(start);
        this.end = nodeId(end);
        parts.clearProperties();
    }

    @Override
    public void property(String key) {
        mapKeys[0] = key;
    }

    @Override
    public void row() {
        containers[0] = new ArrayList<>();
        depth = 1;
    }


    @Override
    @SuppressWarnings("unchecked")
    public void objectValue(Object value) {
        int d = depth;
        if (d == 0) {
            parts.addProperty(mapKeys[0], value);
        } else if (containers[d - 1] instanceof List<?> list) {
            ((List<Object>) list).add(value);
        } else {
            ((Map<String, Object>) containers[d - 1]).put(mapKeys[d], value);
        }
    }

    @Override
    public void beginList(int size) {
        push(new ArrayList<>(size < 0 ? 10 : Math.min(size, 1024)));
    }

    @Override
    @SuppressWarnings("unchecked")
    public void endList() {
        objectValue(Collections.unmodifiableList((List<Object>) pop()));
    }

    @Override
    public void beginMap(int size) {
        push(new LinkedHashMap<>(size < 0 ? 16 : Math.min(size, 64)));
    }

    @Override
    public void mapKey(String key) {
        mapKeys[depth] = key;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void endMap() {
        objectValue(Collections.unmodifiableMap((Map<String, Object>) pop()));
    }

    private void push(Object container) {
        if (depth + 1 >= containers.length) {
            containers = Arrays.copyOf(containers, containers.length * 2);
            mapKeys = Arrays.copyOf(mapKeys, mapKeys.length * 2);
        }
        containers[depth++] = container;
    }

    private Object pop() {
        Object c = containers[--depth];
        containers[depth] = null;
        return c;
    }

    /** The element id of a node, its String shared with the last record that had it if it was built (Kryo). */
    private String nodeId(ElementId id) {
        if (!(id instanceof Ids ids) || !ids.built()) {
            return id.toString();
        }
        long number = ids.number();
        String prefix = ids.prefix();
        int slot = (int) number & (RECENT_NODES - 1);
        String s = recentNodeIds[slot];
        if (s == null || recentNodeNumbers[slot] != number || recentNodePrefixes[slot] != prefix) {
            s = ids.toString();
            recentNodeIds[slot] = s;
            recentNodeNumbers[slot] = number;
            recentNodePrefixes[slot] = prefix;
        }
        return s;
    }
}
