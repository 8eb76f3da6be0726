package org.subgraphexport.read;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.neo4j.graphdb.Direction;

/**
 * A parsed relationship filter in APOC's syntax: {@code CHILDREN>} (outgoing), {@code <PARENT} (incoming),
 * {@code KNOWS} (both directions), several joined by {@code |}. A type named twice with different directions
 * is merged into one entry with both. Type names are plain identifiers: letters, digits and underscore,
 * not starting with a digit; anything else is rejected, so no filter can smuggle in other syntax. The empty
 * filter matches nothing.
 */
public record RelationshipFilter(List<Entry> entries) {
    /** One relationship type and the direction(s) it is followed in, seen from the node being walked. */
    public record Entry(String type, Direction direction) {}

    private static final Pattern TYPE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    /** Generous bound: a filter is a handful of types; more is a mistake or an attack. */
    public static final int MAX_TYPES = 64;

    public RelationshipFilter {
        entries = List.copyOf(entries);
    }

    public static final RelationshipFilter NONE = new RelationshipFilter(Collections.emptyList());

    public boolean isEmpty() {
        return entries.isEmpty();
    }

    /** True if some type is followed in both directions, so one relationship can be met from both ends. */
    public boolean hasBothDirections() {
        return entries.stream().anyMatch(e -> e.direction() == Direction.BOTH);
    }

    /**
     * Parses {@code text}; {@code null} or blank gives the empty filter.
     *
     * @throws IllegalArgumentException with a message naming the offending part
     */
    public static RelationshipFilter parse(String text) {
        if (text == null || text.isBlank()) {
            return NONE;
        }
        String[] parts = text.split("\\|", -1);
        if (parts.length > MAX_TYPES) {
            throw new IllegalArgumentException("at most " + MAX_TYPES + " relationship types, got " + parts.length);
        }
        Map<String, Direction> byType = new LinkedHashMap<>();
        for (String raw : parts) {
            String part = raw.strip();
            Direction direction = Direction.BOTH;
            String type = part;
            boolean in = part.startsWith("<");
            boolean out = part.endsWith(">");
            if (in && out) {
                throw new IllegalArgumentException("'" + part + "' has both '<' and '>'; write the type without arrows for both directions");
            }
            if (in) {
                direction = Direction.INCOMING;
                type = part.substring(1);
            } else if (out) {
                direction = Direction.OUTGOING;
                type = part.substring(0, part.length() - 1);
            }
            if (!TYPE.matcher(type).matches()) {
                throw new IllegalArgumentException("'" + part + "' is not TYPE, TYPE> or <TYPE with TYPE made of letters, digits and '_'");
            }
            byType.merge(type, direction, (a, b) -> a == b ? a : Direction.BOTH);
        }
        List<Entry> entries = new ArrayList<>(byType.size());
        byType.forEach((type, direction) -> entries.add(new Entry(type, direction)));
        return new RelationshipFilter(entries);
    }

    /** The types this filter shares with {@code other}. */
    public List<String> sharedTypes(RelationshipFilter other) {
        List<String> shared = new ArrayList<>();
        for (Entry e : entries) {
            for (Entry o : other.entries) {
                if (e.type().equals(o.type())) {
                    shared.add(e.type());
                }
            }
        }
        return shared;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (Entry e : entries) {
            if (!sb.isEmpty()) sb.append('|');
            switch (e.direction()) {
                case OUTGOING -> sb.append(e.type()).append('>');
                case INCOMING -> sb.append('<').append(e.type());
                case BOTH -> sb.append(e.type());
            }
        }
        return sb.toString();
    }
}
