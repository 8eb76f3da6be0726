package org.subgraphexport.jmh;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.subgraphexport.client.ExportEnd;
import org.subgraphexport.client.ExportHeader;
import org.subgraphexport.client.ExportNode;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.ExportRecord;
import org.subgraphexport.client.ExportRelationship;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.TokenNames;
import org.subgraphexport.wire.ValueSink;

/**
 * An in-memory stream of records, replayable into any {@link GraphWriter} exactly as the read side would call it:
 * header, then per node {@code beginNode}, {@code property} + one value call per property, {@code endNode}; per
 * relationship likewise; {@code end}; {@code finish}. Token ids are dense small ints with their names in arrays,
 * values are pre-built Java objects dispatched by type, so a replay itself allocates nothing and costs little next
 * to the encoding it drives.
 */
final class Tape {
    private record NodeRecord(long id, int[] labels, int[] keys, Object[] values) {}

    private record RelationshipRecord(long id, int type, long start, long end, int[] keys, Object[] values) {}

    final Header header;
    private final String[] labels;
    private final String[] types;
    private final String[] keys;
    private final Object[] records;
    final long nodes;
    final long relationships;
    private final TokenNames tokens;

    private Tape(Header header, String[] labels, String[] types, String[] keys, Object[] records, long nodes,
            long relationships) {
        this.header = header;
        this.labels = labels;
        this.types = types;
        this.keys = keys;
        this.records = records;
        this.nodes = nodes;
        this.relationships = relationships;
        this.tokens = new TokenNames() {
            @Override
            public String label(int id) {
                return Tape.this.labels[id];
            }

            @Override
            public String relationshipType(int id) {
                return Tape.this.types[id];
            }

            @Override
            public String propertyKey(int id) {
                return Tape.this.keys[id];
            }
        };
    }

    /** Records: nodes and relationships, the header and end record not counted. */
    long records() {
        return nodes + relationships;
    }

    /** The records of a complete kryo stream. */
    static Tape fromKryo(byte[] kryo) throws IOException {
        Map<String, Integer> labelIds = new HashMap<>();
        Map<String, Integer> typeIds = new HashMap<>();
        Map<String, Integer> keyIds = new HashMap<>();
        List<Object> records = new ArrayList<>();
        long nodes = 0;
        long relationships = 0;
        String nodePrefix = null;
        String relPrefix = null;
        ExportHeader h;
        try (ExportReader reader = ExportReader.open(Format.KRYO, new ByteArrayInputStream(kryo))) {
            h = reader.header();
            for (ExportRecord r; (r = reader.next()) != null; ) {
                if (r instanceof ExportNode n) {
                    nodePrefix = prefix(n.id());
                    int[] ls = n.labels().stream().mapToInt(l -> labelIds.computeIfAbsent(l, k -> labelIds.size()))
                            .toArray();
                    records.add(new NodeRecord(number(n.id()), ls, keys(n.properties(), keyIds),
                            n.properties().values().toArray()));
                    nodes++;
                } else if (r instanceof ExportRelationship rel) {
                    relPrefix = prefix(rel.id());
                    records.add(new RelationshipRecord(number(rel.id()),
                            typeIds.computeIfAbsent(rel.type(), k -> typeIds.size()), number(rel.start()),
                            number(rel.end()), keys(rel.properties(), keyIds), rel.properties().values().toArray()));
                    relationships++;
                } else if (!(r instanceof ExportEnd)) {
                    throw new IllegalStateException("unexpected record " + r);
                }
            }
        }
        return new Tape(new Header(h.database(), h.root(), nodePrefix, relPrefix), names(labelIds), names(typeIds),
                names(keyIds), records.toArray(), nodes, relationships);
    }

    /** Writes the whole stream into {@code w} and finishes it. */
    void replay(GraphWriter w) throws IOException {
        w.header(header, tokens);
        for (Object r : records) {
            if (r instanceof NodeRecord n) {
                w.beginNode(n.id, n.labels, n.labels.length);
                properties(w, n.keys, n.values);
                w.endNode();
            } else {
                RelationshipRecord rel = (RelationshipRecord) r;
                w.beginRelationship(rel.id, rel.type, rel.start, rel.end);
                properties(w, rel.keys, rel.values);
                w.endRelationship();
            }
        }
        w.end(nodes, relationships, false);
        w.finish();
    }

    private static void properties(GraphWriter w, int[] keys, Object[] values) throws IOException {
        for (int i = 0; i < keys.length; i++) {
            w.property(keys[i]);
            value(w, values[i]);
        }
    }

    /** The value types a demo graph holds, plus the other common ones; each as the one typed call it is. */
    private static void value(ValueSink s, Object v) throws IOException {
        switch (v) {
            case String x -> s.writeString(x);
            case Long x -> s.writeLong(x);
            case Integer x -> s.writeInt(x);
            case Double x -> s.writeDouble(x);
            case Boolean x -> s.writeBoolean(x);
            case ZonedDateTime x -> s.writeDateTime(x);
            case Float x -> s.writeFloat(x);
            case Short x -> s.writeShort(x);
            case Byte x -> s.writeByte(x);
            case Character x -> s.writeChar(x);
            case byte[] x -> s.writeBytes(x);
            case LocalDate x -> s.writeDate(x);
            case LocalTime x -> s.writeLocalTime(x);
            case OffsetTime x -> s.writeTime(x);
            case LocalDateTime x -> s.writeLocalDateTime(x);
            case UUID x -> s.writeUuid(x.getMostSignificantBits(), x.getLeastSignificantBits());
            case long[] x -> {
                s.beginArray(x.length, ValueSink.ArrayKind.LONG);
                for (long e : x) s.writeLong(e);
                s.endArray();
            }
            case double[] x -> {
                s.beginArray(x.length, ValueSink.ArrayKind.DOUBLE);
                for (double e : x) s.writeDouble(e);
                s.endArray();
            }
            case String[] x -> {
                s.beginArray(x.length, ValueSink.ArrayKind.STRING);
                for (String e : x) s.writeString(e);
                s.endArray();
            }
            default -> throw new IllegalArgumentException("no replay for " + v.getClass().getName());
        }
    }

    private static int[] keys(Map<String, Object> properties, Map<String, Integer> keyIds) {
        return properties.keySet().stream().mapToInt(k -> keyIds.computeIfAbsent(k, x -> keyIds.size())).toArray();
    }

    private static String[] names(Map<String, Integer> ids) {
        String[] names = new String[ids.size()];
        ids.forEach((name, id) -> names[id] = name);
        return names;
    }

    private static String prefix(String elementId) {
        return elementId.substring(0, elementId.lastIndexOf(':') + 1);
    }

    private static long number(String elementId) {
        return Long.parseLong(elementId, elementId.lastIndexOf(':') + 1, elementId.length(), 10);
    }
}
