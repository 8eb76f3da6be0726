package org.subgraphexport.read;

import org.neo4j.values.ElementIdMapper;

/**
 * Element ids on the wire: binary formats send the numeric id and the header carries the prefix that turns it
 * back into the element id ({@code prefix + decimal id}). This holds for the element ids every supported line makes
 * ({@code 4:<database uuid>:<id>} for nodes, {@code 5:…} for relationships), and is checked, not assumed:
 * {@link #of} fails if the database's mapper does not produce ids of that shape.
 */
public record ElementIds(String nodePrefix, String relationshipPrefix) {

    public static ElementIds of(ElementIdMapper mapper) {
        return new ElementIds(prefix(mapper.nodeElementId(PROBE), "node"), prefix(mapper.relationshipElementId(PROBE), "relationship"));
    }

    private static final long PROBE = 1234567L;

    private static String prefix(String elementId, String what) {
        String suffix = Long.toString(PROBE);
        if (!elementId.endsWith(suffix) || elementId.length() == suffix.length()) {
            throw new IllegalStateException("unsupported " + what + " element id scheme: " + elementId);
        }
        return elementId.substring(0, elementId.length() - suffix.length());
    }

    public String nodeElementId(long id) {
        return nodePrefix + id;
    }
}
