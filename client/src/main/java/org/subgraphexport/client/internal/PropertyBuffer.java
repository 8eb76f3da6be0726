package org.subgraphexport.client.internal;

import java.util.ArrayList;
import java.util.List;
import org.subgraphexport.client.CorruptStreamException;
import org.subgraphexport.client.ExportHandler;

/**
 * Properties of a JSON or BSON record that came before the record's id (or labels, type, ends): held, boxed, until
 * the record's first call can go to the handler, then handed on in order, each value through its typed call again.
 * Only records whose fields are not in the writer's order need one.
 */
final class PropertyBuffer implements ExportHandler {
    private final List<String> keys = new ArrayList<>();
    private final List<Object> values = new ArrayList<>();

    /** The key of the value that follows. */
    void key(String key) {
        keys.add(key);
    }

    @Override
    public void objectValue(Object value) {
        values.add(value);
    }

    /** Hands the properties on through {@code parser}'s checks (distinct keys) to its handler. */
    void replay(AbstractParser parser) throws CorruptStreamException {
        for (int i = 0; i < keys.size(); i++) {
            parser.property(keys.get(i));
            Object v = values.get(i);
            if (v instanceof String s) {
                parser.stringValue(s);
            } else if (v instanceof Long l) {
                parser.longValue(l);
            } else if (v instanceof Double d) {
                parser.doubleValue(d);
            } else if (v instanceof Boolean b) {
                parser.booleanValue(b);
            } else if (v instanceof Integer n) {
                parser.intValue(n);
            } else if (v instanceof Float f) {
                parser.floatValue(f);
            } else if (v instanceof Short n) {
                parser.shortValue(n);
            } else if (v instanceof Byte n) {
                parser.byteValue(n);
            } else if (v instanceof Character c) {
                parser.charValue(c);
            } else {
                parser.objectValue(v);
            }
        }
    }
}
