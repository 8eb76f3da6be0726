package org.subgraphexport.client;

import java.util.List;

/**
 * Receives the parts of each record that {@link ExportParser#next} decodes, in stream order, as the decoder reads
 * them: no record object, no property map, no boxing of primitives unless the handler asks for it.
 *
 * <p>The calls for one record:
 * <ul>
 *   <li>node: {@link #node}, {@link #label} per label, then per property {@link #property} (its key) followed by
 *       exactly one value;</li>
 *   <li>relationship: {@link #relationship}, then its properties as a node's;</li>
 *   <li>columns (rows streams, right after the header): {@link #columns};</li>
 *   <li>row (rows streams): {@link #row}, then one value per column;</li>
 *   <li>end: {@link #end}.</li>
 * </ul>
 * A value is one call: {@link #booleanValue}, {@link #byteValue}, {@link #shortValue}, {@link #intValue},
 * {@link #longValue}, {@link #floatValue}, {@link #doubleValue}, {@link #charValue}, {@link #stringValue}, or
 * {@link #objectValue} for every other type, exact: {@code byte[]}, primitive arrays ({@code boolean[]},
 * {@code short[]}, {@code int[]}, {@code long[]}, {@code float[]}, {@code double[]}, {@code char[]}), the other
 * arrays, {@link PointValue}, {@link DurationValue}, the {@code java.time} types, {@code UUID}, {@link VectorValue}
 * (the types {@link ExportReader} lists). Row values may also be {@link #nullValue}, a list ({@link #beginList},
 * its elements, {@link #endList}), a map ({@link #beginMap}, per entry {@link #mapKey} and a value,
 * {@link #endMap}), {@link #nodeRef}, {@link #relationshipRef}, or a {@link PathValue} through {@code objectValue}.
 *
 * <p>Every method but {@code objectValue} has a default: the record calls do nothing, and the typed value calls
 * pass the value on to {@code objectValue}, boxed, so a handler that implements only {@code objectValue} still sees
 * every value (as the record API's types); implement the typed ones to avoid boxing. Labels, types, property keys
 * and map keys are the stream's shared String instances (compare them with {@code ==} against ones seen before);
 * {@link ElementId}s are views valid during the call only. Arrays and objects handed over are the handler's.
 *
 * <p>A handler's exception passes out of {@code next} unchanged and leaves the parser unusable. The parser checks
 * the stream (property keys distinct, counts, order) as the record API does; when it finds the bytes corrupt, the
 * handler may have received part of that record.
 */
public interface ExportHandler {
    /** A columns record: the column names of a rows stream. */
    default void columns(List<String> names) {}

    /** A node record begins: its labels and properties follow. */
    default void node(ElementId id) {}

    /** One label of the current node, in stream order. */
    default void label(String label) {}

    /** A relationship record begins: its properties follow. {@code start} and {@code end} are node ids. */
    default void relationship(ElementId id, String type, ElementId start, ElementId end) {}

    /** Delta streams: a node of the earlier export that is not in this one. */
    default void leftNode(ElementId id) {}

    /** Delta streams: a relationship of the earlier export that is not in this one. */
    default void leftRelationship(ElementId id) {}

    /** A property of the current node or relationship: the next value call is its value. */
    default void property(String key) {}

    /** A row record begins: one value per column follows. */
    default void row() {}

    /** The end record: the stream is complete and its counts were checked. */
    default void end(long nodes, long relationships, boolean truncated, long rows) {}

    /** Any value not passed to a typed call: see the class comment for the types. */
    void objectValue(Object value);

    default void booleanValue(boolean value) {
        objectValue(value);
    }

    default void byteValue(byte value) {
        objectValue(value);
    }

    default void shortValue(short value) {
        objectValue(value);
    }

    default void intValue(int value) {
        objectValue(value);
    }

    default void longValue(long value) {
        objectValue(value);
    }

    default void floatValue(float value) {
        objectValue(value);
    }

    default void doubleValue(double value) {
        objectValue(value);
    }

    default void charValue(char value) {
        objectValue(value);
    }

    default void stringValue(String value) {
        objectValue(value);
    }

    /** Row values: null. */
    default void nullValue() {
        objectValue(null);
    }

    /** Row values: a list begins; {@code size} elements follow (-1: not known up front, in JSON and BSON). */
    default void beginList(int size) {}

    default void endList() {}

    /** Row values: a map begins; {@code size} entries follow (-1: not known up front, in JSON and BSON). */
    default void beginMap(int size) {}

    /** A key of the current map (distinct within it): the next value call is its value. */
    default void mapKey(String key) {}

    default void endMap() {}

    /** Row values: a reference to a node sent earlier. Default: {@code objectValue(new NodeRef(id.toString()))}. */
    default void nodeRef(ElementId id) {
        objectValue(new NodeRef(id.toString()));
    }

    /** Row values: a reference to a relationship sent earlier. Default: a {@link RelationshipRef} to objectValue. */
    default void relationshipRef(ElementId id) {
        objectValue(new RelationshipRef(id.toString()));
    }
}
