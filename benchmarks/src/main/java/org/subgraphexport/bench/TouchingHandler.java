package org.subgraphexport.bench;

import org.subgraphexport.client.ElementId;
import org.subgraphexport.client.ExportHandler;

/**
 * The streaming API's consumer in the benchmarks: it touches every part of every record (each id's number, each
 * name's length, each value) and folds them into {@link #sum}, so that nothing the parser hands over is dead code,
 * and it keeps nothing: what remains is the decoding.
 */
public class TouchingHandler implements ExportHandler {
    /** Everything touched, folded; different streams of the same records give the same sum in every format. */
    public long sum;

    @Override
    public void node(ElementId id) {
        sum += id.number();
    }

    @Override
    public void label(String label) {
        sum += label.length();
    }

    @Override
    public void relationship(ElementId id, String type, ElementId start, ElementId end) {
        sum += id.number() + type.length() + start.number() + end.number();
    }

    @Override
    public void property(String key) {
        sum += key.length();
    }

    @Override
    public void mapKey(String key) {
        sum += key.length();
    }

    @Override
    public void nodeRef(ElementId id) {
        sum += id.number();
    }

    @Override
    public void relationshipRef(ElementId id) {
        sum += id.number();
    }

    @Override
    public void booleanValue(boolean value) {
        sum += value ? 1 : 0;
    }

    @Override
    public void byteValue(byte value) {
        sum += value;
    }

    @Override
    public void shortValue(short value) {
        sum += value;
    }

    @Override
    public void intValue(int value) {
        sum += value;
    }

    @Override
    public void longValue(long value) {
        sum += value;
    }

    @Override
    public void floatValue(float value) {
        sum += Float.floatToRawIntBits(value);
    }

    @Override
    public void doubleValue(double value) {
        sum += Double.doubleToRawLongBits(value);
    }

    @Override
    public void charValue(char value) {
        sum += value;
    }

    @Override
    public void stringValue(String value) {
        sum += value.length();
    }

    @Override
    public void nullValue() {
        sum++;
    }

    @Override
    public void objectValue(Object value) {
        sum += value.hashCode();
    }
}
