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

    /** Hands the properties on through {@code reader}'s checks (distinct keys) to its handler. */
    void replay(AbstractRecordReader reader) throws CorruptStreamException {
        for (int i = 0; i < keys.size(); i++) {
            reader.property(keys.get(i));
            Object v = values.get(i);
            if (v instanceof String s) {
                reader.stringValue(s);
            } else if (v instanceof Long l) {
                reader.longValue(l);
            } else if (v instanceof Double d) {
                reader.doubleValue(d);
            } else if (v instanceof Boolean b) {
                reader.booleanValue(b);
            } else if (v instanceof Integer n) {
                reader.intValue(n);
            } else if (v instanceof Float f) {
                reader.floatValue(f);
            } else if (v instanceof Short n) {
                reader.shortValue(n);
            } else if (v instanceof Byte n) {
                reader.byteValue(n);
            } else if (v instanceof Character c) {
                reader.charValue(c);
            } else {
                reader.objectValue(v);
            }
        }
    }
}
