package org.subgraphexport.client.internal;

import java.io.IOException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.subgraphexport.client.CorruptStreamException;
import org.subgraphexport.client.DurationValue;
import org.subgraphexport.client.ExportFailedException;
import org.subgraphexport.client.ExportHandler;
import org.subgraphexport.client.ExportHeader;
import org.subgraphexport.client.PathValue;
import org.subgraphexport.client.PointValue;
import org.subgraphexport.client.VectorValue;
import org.subgraphexport.client.internal.Tokens.NumberType;
import org.subgraphexport.client.internal.Tokens.Token;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.ValueSink.ArrayKind;
import org.subgraphexport.wire.ValueSink.VectorKind;
import org.subgraphexport.wire.Wire.Json;
import org.subgraphexport.wire.Wire;

/**
 * What the {@code json} and {@code bson} decoders share: both formats carry the same record objects (see
 * {@link Wire}), read here from tokens in the meaning of Jackson's {@code JsonParser}: {@link JsonTokenParser}
 * gets them from one {@link JsonTokens} over the whole JSON array, {@link BsonTokenParser} from one
 * {@link BsonTokens} over each BSON document in turn. The subclasses supply the tokens and the framing of records
 * (the JSON array, one BSON document per record); everything about records and values is here, so both formats
 * accept and reject the same record objects with the same messages. Row values nest at most
 * {@link Wire#MAX_NESTING} lists and maps deep; the JSON tokens' nesting limit and {@link BsonDocuments}' (BSON)
 * stop anything deeper before it is parsed.
 */
abstract class TokenParser extends AbstractParser {
    private static final Map<String, ArrayKind> ARRAY_KINDS = new HashMap<>();

    static {
        for (ArrayKind k : ArrayKind.values()) {
            ARRAY_KINDS.put(Json.arrayTag(k), k);
        }
    }

    /** Most distinct labels, types and keys {@link #name} keeps; beyond, names pass as they come. */
    private static final int MAX_NAMES = 4096;

    /** Labels, types and property keys seen, so that each is handed on as one shared instance. */
    private final Map<String, String> names = new HashMap<>();
    private final Entity node = new Entity(true);
    private final Entity relationship = new Entity(false);
    /** Name of the field whose value is the current token (parsers forget it on START_OBJECT/ARRAY). */
    private String field;

    private final Tokens tokens;

    TokenParser(Format format, Source source, Tokens tokens) {
        super(format, source);
        this.tokens = tokens;
    }

    // ---- records ------------------------------------------------------------------------------------------

    @Override
    ExportHeader readHeader() throws IOException {
        startStream();
        if (!nextRecord()) {
            throw truncated();
        }
        if (!Json.R_HEADER.equals(recordKind())) {
            throw corrupt("the first record is not a header");
        }
        long version = -1;
        String database = null;
        String root = null;
        String state = null;
        long partition = -1;
        long partitions = -1;
        String since = "";
        while (nextField()) {
            switch (field) {
                case Json.VERSION -> version = integer(Long.MIN_VALUE, Long.MAX_VALUE);
                case Json.DATABASE -> database = text();
                case Json.ROOT -> root = text();
                case Json.STATE -> state = text();
                case Json.PARTITION -> partition = integer(0, Integer.MAX_VALUE - 1);
                case Json.PARTITIONS -> partitions = integer(1, Integer.MAX_VALUE);
                case Json.SINCE -> since = text();
                default -> skipChildren();
            }
        }
        if (!supported(version)) {
            throw version == -1 ? corrupt("header without version") : unsupportedVersion(version);
        }
        if (version == 1) {
            return new ExportHeader((int) version, required(database, Json.DATABASE), required(root, Json.ROOT));
        }
        this.version = (int) version;
        if (partition < 0 || partitions < 0) {
            throw corrupt("header without '" + Json.PARTITION + "' and '" + Json.PARTITIONS + "'");
        }
        if (partition >= partitions) {
            throw corrupt("partition " + partition + " of " + partitions);
        }
        return new ExportHeader((int) version, required(database, Json.DATABASE), required(root, Json.ROOT),
                required(state, Json.STATE), (int) partition, (int) partitions, since);
    }

    @Override
    Kind readRecord() throws IOException {
        if (!nextRecord()) {
            throw truncated();
        }
        String kind = recordKind();
        Kind r;
        switch (kind) {
            case Json.R_NODE -> {
                node.clear();
                while (nextField()) {
                    switch (field) {
                        case Json.ID -> node.setId(text());
                        case Json.LABELS -> node.labels();
                        case Json.PROPERTIES -> node.properties();
                        default -> skipChildren();
                    }
                }
                node.finish();
                r = Kind.NODE;
            }
            case Json.R_RELATIONSHIP -> {
                relationship.clear();
                while (nextField()) {
                    switch (field) {
                        case Json.ID -> relationship.setId(text());
                        case Json.TYPE -> relationship.setType(name(text()));
                        case Json.START -> relationship.setStart(text());
                        case Json.END -> relationship.setEnd(text());
                        case Json.PROPERTIES -> relationship.properties();
                        default -> skipChildren();
                    }
                }
                relationship.finish();
                r = Kind.RELATIONSHIP;
            }
            case Json.R_COLUMNS -> {
                List<String> names = null;
                while (nextField()) {
                    if (Json.NAMES.equals(field)) {
                        names = once(names, strings());
                    } else {
                        skipChildren();
                    }
                }
                columns(required(names, Json.NAMES));
                r = Kind.COLUMNS;
            }
            case Json.R_ROW -> {
                boolean values = false;
                while (nextField()) {
                    if (Json.VALUES.equals(field)) {
                        values = once(values ? Boolean.TRUE : null, Boolean.TRUE);
                        expect(Token.START_ARRAY);
                        row();
                        int count = 0;
                        for (; nextToken() != Token.END_ARRAY; count++) {
                            rowValue(0);
                        }
                        endRow(count);
                    } else {
                        skipChildren();
                    }
                }
                required(values ? Boolean.TRUE : null, Json.VALUES);
                r = Kind.ROW;
            }
            case Json.R_END -> {
                long nodes = -1, relationships = -1, rows = -1;
                Boolean truncated = null;
                String state = null;
                while (nextField()) {
                    switch (field) {
                        case Json.NODES -> nodes = integer(0, Long.MAX_VALUE);
                        case Json.RELATIONSHIPS -> relationships = integer(0, Long.MAX_VALUE);
                        case Json.TRUNCATED -> truncated = bool();
                        case Json.ROWS -> rows = integer(0, Long.MAX_VALUE);
                        case Json.STATE -> state = text();
                        default -> skipChildren();
                    }
                }
                if (nodes < 0 || relationships < 0) {
                    throw corrupt("end record without counts");
                }
                if (rows < 0 && columnCount() >= 0) {
                    throw corrupt("end record of a rows stream without '" + Json.ROWS + "'");
                }
                boolean t = required(truncated, Json.TRUNCATED);
                String endState = version >= 2 ? required(state, Json.STATE) : "";
                expectEnd();
                end(nodes, relationships, t, Math.max(rows, 0), endState);
                return Kind.END;
            }
            case Json.R_ERROR -> {
                String code = null, message = null;
                while (nextField()) {
                    switch (field) {
                        case Json.CODE -> code = text();
                        case Json.MESSAGE -> message = text();
                        default -> skipChildren();
                    }
                }
                expectEnd();
                throw new ExportFailedException(required(code, Json.CODE), required(message, Json.MESSAGE));
            }
            case Json.R_LEFT -> {
                String node = null, relationship = null;
                while (nextField()) {
                    switch (field) {
                        case Json.NODE_REF -> node = text();
                        case Json.RELATIONSHIP_REF -> relationship = text();
                        default -> skipChildren();
                    }
                }
                if ((node == null) == (relationship == null)) {
                    throw corrupt("a left record names one node or one relationship");
                }
                if (node != null) nodeId.set(node);
                else relationshipId.set(relationship);
                left(node != null);
                r = Kind.LEFT;
            }
            case Json.R_HEADER -> throw corrupt("a second header record");
            default -> throw corrupt("unknown record type '" + kind + "'");
        }
        return r;
    }

    /**
     * A node or relationship record's fields, handed on as they arrive when they come in the order the writer
     * writes them (id, labels or type, start, end, then properties), which costs nothing. Fields in another order
     * (allowed, see docs/wire-format.md section 4) are held until the record's identity is complete: labels in a
     * list, properties in a {@link PropertyBuffer}, handed on at the record's end.
     */
    private final class Entity {
        private final boolean isNode;
        private String idText, typeText, startText, endText;
        private boolean labelsDone;
        private boolean propertiesDone;
        /** True once the record's first call (node or relationship) went to the handler. */
        private boolean begun;
        private List<String> heldLabels;
        private PropertyBuffer heldProperties;

        Entity(boolean isNode) {
            this.isNode = isNode;
        }

        void clear() {
            idText = typeText = startText = endText = null;
            labelsDone = propertiesDone = begun = false;
            heldLabels = null;
            heldProperties = null;
        }

        void setId(String text) throws CorruptStreamException {
            idText = once(idText, text);
        }

        void setType(String text) throws CorruptStreamException {
            typeText = once(typeText, text);
        }

        void setStart(String text) throws CorruptStreamException {
            startText = once(startText, text);
        }

        void setEnd(String text) throws CorruptStreamException {
            endText = once(endText, text);
        }

        /** True if everything before the properties has arrived. */
        private boolean identified() {
            return isNode ? idText != null && labelsDone
                    : idText != null && typeText != null && startText != null && endText != null;
        }

        /** Hands on the record's first call, once. */
        private void begin() {
            if (!begun) {
                begun = true;
                if (isNode) {
                    nodeId.set(idText);
                    node();
                } else {
                    relationshipId.set(idText);
                    start.set(startText);
                    end.set(endText);
                    relationship(typeText);
                }
            }
        }

        void labels() throws IOException {
            once(labelsDone ? Boolean.TRUE : null, Boolean.TRUE);
            expect(Token.START_ARRAY);
            if (idText != null) {
                begin();
                while (nextToken() != Token.END_ARRAY) {
                    label(name(text()));
                }
            } else {
                heldLabels = new ArrayList<>(4);
                while (nextToken() != Token.END_ARRAY) {
                    heldLabels.add(name(text()));
                }
            }
            labelsDone = true;
        }

        void properties() throws IOException {
            once(propertiesDone ? Boolean.TRUE : null, Boolean.TRUE);
            expect(Token.START_OBJECT);
            if (identified()) {
                beginAll();
                while (nextField()) {
                    property(name(field));
                    value();
                }
            } else {
                heldProperties = new PropertyBuffer();
                ExportHandler live = handler(heldProperties);
                try {
                    while (nextField()) {
                        heldProperties.key(name(field));
                        value();
                    }
                } finally {
                    handler(live);
                }
            }
            propertiesDone = true;
        }

        /** The record's first call and held labels, once everything before the properties has arrived. */
        private void beginAll() {
            if (!begun) {
                begin();
                if (heldLabels != null) {
                    for (String label : heldLabels) {
                        label(label);
                    }
                }
            }
        }

        /** At the record's END_OBJECT: checks that every field came, and hands on what was held. */
        void finish() throws IOException {
            required(idText, Json.ID);
            if (isNode) {
                required(labelsDone ? Boolean.TRUE : null, Json.LABELS);
            } else {
                required(typeText, Json.TYPE);
                required(startText, Json.START);
                required(endText, Json.END);
            }
            required(propertiesDone ? Boolean.TRUE : null, Json.PROPERTIES);
            beginAll();
            if (heldProperties != null) {
                heldProperties.replay(TokenParser.this);
            }
        }
    }

    /** The shared instance of a label, type or key equal to {@code s} (the tokens' own caches hold most of them). */
    private String name(String s) {
        String shared = names.get(s);
        if (shared != null) {
            return shared;
        }
        if (names.size() < MAX_NAMES) {
            names.put(s, s);
        }
        return s;
    }

    /** Reads the {@code record} field, which comes first. */
    private String recordKind() throws IOException {
        if (!nextField() || !Json.RECORD.equals(field)) {
            throw corrupt("a record object starts with the field '" + Json.RECORD + "'");
        }
        return text();
    }

    /** Advances to the next field name of the current object (true), or its END_OBJECT (false). */
    private boolean nextField() throws IOException {
        Token t = nextToken();
        if (t == Token.FIELD_NAME) {
            field = currentName();
            nextToken();  // onto the value
            return true;
        }
        if (t == Token.END_OBJECT) {
            return false;
        }
        throw corrupt("expected a field name, found " + t);  // never null: an object ends with END_OBJECT first
    }

    private <T> T required(T value, String field) throws CorruptStreamException {
        if (value == null) {
            throw corrupt("record without '" + field + "'");
        }
        return value;
    }

    /** {@code value} for a field of a record that had none yet ({@code previous} null). */
    private <T> T once(T previous, T value) throws CorruptStreamException {
        if (previous != null) {
            throw corrupt("field '" + field + "' twice in one record");
        }
        return value;
    }

    private List<String> strings() throws IOException {
        expect(Token.START_ARRAY);
        List<String> labels = new ArrayList<>(4);
        while (nextToken() != Token.END_ARRAY) {
            labels.add(text());
        }
        return labels;
    }

    // ---- values -------------------------------------------------------------------------------------------

    /** The value at the current token, handed on. */
    private void value() throws IOException {
        Token t = currentToken();
        if (t == null) {
            throw truncated();
        }
        switch (t) {
            case VALUE_STRING -> stringValue(getText());
            case VALUE_NUMBER_INT -> longValue(integer(Long.MIN_VALUE, Long.MAX_VALUE));
            case VALUE_NUMBER_FLOAT -> doubleValue(getDoubleValue());
            case VALUE_TRUE -> booleanValue(true);
            case VALUE_FALSE -> booleanValue(false);
            case START_OBJECT -> tagged();
            default -> throw corrupt("unexpected " + t + " as a value");
        }
    }

    /**
     * The row value at the current token, inside {@code depth} lists and maps, handed on: null, a plain array (a
     * list), a {@code map}, {@code node}, {@code relationship} or {@code path} object, or a property value.
     */
    private void rowValue(int depth) throws IOException {
        Token t = currentToken();
        if (t == Token.VALUE_NULL) {
            nullValue();
            return;
        }
        if (t == Token.START_ARRAY) {
            nest(depth);
            beginList(-1);
            while (nextToken() != Token.END_ARRAY) {
                rowValue(depth + 1);
            }
            endList();
            return;
        }
        if (t != Token.START_OBJECT) {
            value();
            return;
        }
        if (!nextField()) {
            throw corrupt("empty object as a value");
        }
        String tag = field;
        switch (tag) {
            case Json.MAP -> {
                nest(depth);
                expect(Token.START_OBJECT);
                beginMap(-1);
                Set<String> seen = new HashSet<>();
                while (nextField()) {
                    String key = field;
                    if (!seen.add(key)) {
                        throw corrupt("map key '" + key + "' twice in one map");
                    }
                    mapKey(key);
                    rowValue(depth + 1);
                }
                endMap();
            }
            case Json.NODE_REF -> {
                nodeRefId.set(text());
                nodeRef();
            }
            case Json.RELATIONSHIP_REF -> {
                relationshipRefId.set(text());
                relationshipRef();
            }
            case Json.PATH -> objectValue(path());
            default -> {
                tagged(tag);
                return;
            }
        }
        if (nextToken() != Token.END_OBJECT) {
            throw corrupt("a tagged value has exactly one field, '" + tag + "' has company");
        }
    }

    private PathValue path() throws IOException {
        expect(Token.START_OBJECT);
        List<String> nodes = null, relationships = null;
        while (nextField()) {
            switch (field) {
                case Json.NODES -> nodes = strings();
                case Json.RELATIONSHIPS -> relationships = strings();
                default -> skipChildren();
            }
        }
        required(nodes, Json.NODES);
        required(relationships, Json.RELATIONSHIPS);
        if (nodes.size() != relationships.size() + 1) {
            throw corrupt("a path of " + nodes.size() + " nodes and " + relationships.size() + " relationships");
        }
        return new PathValue(nodes, relationships);
    }

    private void tagged() throws IOException {
        if (!nextField()) {
            throw corrupt("empty object as a value");
        }
        tagged(field);
    }

    /** The rest of a tagged value whose tag (the field name) has just been read, handed on. */
    private void tagged(String tag) throws IOException {
        switch (tag) {
            case Json.INT -> intValue((int) integer(Integer.MIN_VALUE, Integer.MAX_VALUE));
            case Json.DOUBLE -> doubleValue(doublePayload());
            case Json.FLOAT -> floatValue(floatPayload());
            case Json.BYTE -> byteValue((byte) integer(Byte.MIN_VALUE, Byte.MAX_VALUE));
            case Json.SHORT -> shortValue((short) integer(Short.MIN_VALUE, Short.MAX_VALUE));
            case Json.CHAR -> charValue(charPayload());
            case Json.BYTES -> objectValue(binary());
            case Json.VECTOR -> objectValue(vector());
            default -> {
                ArrayKind kind = ARRAY_KINDS.get(tag);
                objectValue(kind != null ? array(kind) : element(elementKind(tag)));
            }
        }
        if (nextToken() != Token.END_OBJECT) {
            throw corrupt("a tagged value has exactly one field, '" + tag + "' has company");
        }
    }

    private ArrayKind elementKind(String tag) throws CorruptStreamException {
        return switch (tag) {
            case Json.POINT -> ArrayKind.POINT;
            case Json.DURATION -> ArrayKind.DURATION;
            case Json.DATE -> ArrayKind.DATE;
            case Json.LOCAL_TIME -> ArrayKind.LOCAL_TIME;
            case Json.TIME -> ArrayKind.TIME;
            case Json.LOCAL_DATE_TIME -> ArrayKind.LOCAL_DATE_TIME;
            case Json.DATE_TIME -> ArrayKind.DATE_TIME;
            case Json.UUID -> ArrayKind.UUID;
            default -> throw corrupt("unknown value tag '" + tag + "'");
        };
    }

    /** The payload of one element of {@code kind} at the current token (objects only, for Object[] arrays). */
    private Object element(ArrayKind kind) throws IOException {
        return switch (kind) {
            case STRING -> text();
            case POINT -> point();
            case DURATION -> duration();
            case DATE -> IsoTemporals.date(text());
            case LOCAL_TIME -> IsoTemporals.localTime(text());
            case TIME -> IsoTemporals.time(text());
            case LOCAL_DATE_TIME -> IsoTemporals.localDateTime(text());
            case DATE_TIME -> IsoTemporals.dateTime(text());
            case UUID -> uuid();
            default -> throw new IllegalStateException(kind + " is a primitive element");
        };
    }

    private Object array(ArrayKind kind) throws IOException {
        expect(Token.START_ARRAY);
        int n = Integer.MAX_VALUE;  // unknown up front: arrays grow as elements arrive
        int i = 0;
        switch (kind) {
            case BOOLEAN -> {
                boolean[] a = new boolean[8];
                for (; nextToken() != Token.END_ARRAY; i++) {
                    a = i < a.length ? a : Arrays.copyOf(a, grow(a.length, n));
                    a[i] = bool();
                }
                return Arrays.copyOf(a, i);
            }
            case SHORT -> {
                short[] a = new short[8];
                for (; nextToken() != Token.END_ARRAY; i++) {
                    a = i < a.length ? a : Arrays.copyOf(a, grow(a.length, n));
                    a[i] = (short) integer(Short.MIN_VALUE, Short.MAX_VALUE);
                }
                return Arrays.copyOf(a, i);
            }
            case INT -> {
                int[] a = new int[8];
                for (; nextToken() != Token.END_ARRAY; i++) {
                    a = i < a.length ? a : Arrays.copyOf(a, grow(a.length, n));
                    a[i] = (int) integer(Integer.MIN_VALUE, Integer.MAX_VALUE);
                }
                return Arrays.copyOf(a, i);
            }
            case LONG -> {
                long[] a = new long[8];
                for (; nextToken() != Token.END_ARRAY; i++) {
                    a = i < a.length ? a : Arrays.copyOf(a, grow(a.length, n));
                    a[i] = integer(Long.MIN_VALUE, Long.MAX_VALUE);
                }
                return Arrays.copyOf(a, i);
            }
            case FLOAT -> {
                float[] a = new float[8];
                for (; nextToken() != Token.END_ARRAY; i++) {
                    a = i < a.length ? a : Arrays.copyOf(a, grow(a.length, n));
                    a[i] = floatPayload();
                }
                return Arrays.copyOf(a, i);
            }
            case DOUBLE -> {
                double[] a = new double[8];
                for (; nextToken() != Token.END_ARRAY; i++) {
                    a = i < a.length ? a : Arrays.copyOf(a, grow(a.length, n));
                    a[i] = doublePayload();
                }
                return Arrays.copyOf(a, i);
            }
            case CHAR -> {
                char[] a = new char[8];
                for (; nextToken() != Token.END_ARRAY; i++) {
                    a = i < a.length ? a : Arrays.copyOf(a, grow(a.length, n));
                    a[i] = charPayload();
                }
                return Arrays.copyOf(a, i);
            }
            default -> {
                Object[] a = switch (kind) {
                    case STRING -> new String[8];
                    case POINT -> new PointValue[8];
                    case DURATION -> new DurationValue[8];
                    case DATE -> new LocalDate[8];
                    case LOCAL_TIME -> new LocalTime[8];
                    case TIME -> new OffsetTime[8];
                    case LOCAL_DATE_TIME -> new LocalDateTime[8];
                    case DATE_TIME -> new ZonedDateTime[8];
                    case UUID -> new UUID[8];
                    default -> throw new IllegalStateException(kind.name());
                };
                for (; nextToken() != Token.END_ARRAY; i++) {
                    a = i < a.length ? a : Arrays.copyOf(a, grow(a.length, n));
                    a[i] = element(kind);
                }
                return Arrays.copyOf(a, i);
            }
        }
    }

    private VectorValue vector() throws IOException {
        expect(Token.START_OBJECT);
        VectorKind kind = null;
        Object values = null;
        while (nextField()) {
            switch (field) {
                case Json.KIND -> {
                    String name = text();
                    try {
                        kind = VectorKind.valueOf(name);
                    } catch (IllegalArgumentException e) {
                        throw corrupt("unknown vector kind '" + name + "'");
                    }
                }
                case Json.VALUES -> {
                    if (kind == null) {
                        throw corrupt("vector values before its kind");
                    }
                    values = switch (kind) {
                        case INT8 -> {
                            short[] s = (short[]) array(ArrayKind.SHORT);
                            byte[] b = new byte[s.length];
                            for (int i = 0; i < s.length; i++) {
                                if (s[i] != (byte) s[i]) {
                                    throw corrupt("INT8 vector element " + s[i]);
                                }
                                b[i] = (byte) s[i];
                            }
                            yield b;
                        }
                        case INT16 -> array(ArrayKind.SHORT);
                        case INT32 -> array(ArrayKind.INT);
                        case INT64 -> array(ArrayKind.LONG);
                        case FLOAT32 -> array(ArrayKind.FLOAT);
                        case FLOAT64 -> array(ArrayKind.DOUBLE);
                    };
                }
                default -> skipChildren();
            }
        }
        return new VectorValue(required(kind, Json.KIND), required(values, Json.VALUES));
    }

    private PointValue point() throws IOException {
        expect(Token.START_OBJECT);
        Integer srid = null;
        double[] coordinates = null;
        while (nextField()) {
            switch (field) {
                case Json.SRID -> srid = (int) integer(Integer.MIN_VALUE, Integer.MAX_VALUE);
                case Json.COORDINATES -> coordinates = (double[]) array(ArrayKind.DOUBLE);
                default -> skipChildren();
            }
        }
        if (coordinates != null && coordinates.length != 2 && coordinates.length != 3) {
            throw corrupt("a point has 2 or 3 coordinates, not " + coordinates.length);
        }
        return new PointValue(required(srid, Json.SRID), required(coordinates, Json.COORDINATES));
    }

    private DurationValue duration() throws IOException {
        long[] parts = (long[]) array(ArrayKind.LONG);
        if (parts.length != 4 || parts[3] != (int) parts[3]) {
            throw corrupt("a duration is [months, days, seconds, nanos], not " + Arrays.toString(parts));
        }
        return new DurationValue(parts[0], parts[1], parts[2], (int) parts[3]);
    }

    private UUID uuid() throws IOException {
        String s = text();
        if (s.length() != 36) {
            throw corrupt("malformed UUID '" + s + "'");
        }
        return UUID.fromString(s);
    }

    private byte[] binary() throws IOException {
        Token t = currentToken();
        if (t == Token.VALUE_EMBEDDED_OBJECT && getEmbeddedObject() instanceof byte[] b) {
            return b;  // BSON binary
        }
        if (t == Token.VALUE_STRING) {
            return getBinaryValue();  // JSON base64
        }
        throw corrupt("bytes payload is " + t);
    }

    private float floatPayload() throws IOException {
        Token t = currentToken();
        if (t == Token.VALUE_NUMBER_FLOAT || t == Token.VALUE_NUMBER_INT) {
            return getFloatValue();
        }
        return (float) nonFinite(t);
    }

    private double doublePayload() throws IOException {
        Token t = currentToken();
        if (t == Token.VALUE_NUMBER_FLOAT || t == Token.VALUE_NUMBER_INT) {
            return getDoubleValue();
        }
        return nonFinite(t);
    }

    private double nonFinite(Token t) throws IOException {
        if (t != Token.VALUE_STRING) {
            throw corrupt("expected a number, found " + t);
        }
        return switch (getText()) {
            case Json.NAN -> Double.NaN;
            case Json.INFINITY -> Double.POSITIVE_INFINITY;
            case Json.NEGATIVE_INFINITY -> Double.NEGATIVE_INFINITY;
            default -> throw corrupt("expected a number, found '" + getText() + "'");
        };
    }

    private char charPayload() throws IOException {
        String s = text();
        if (s.length() != 1) {
            throw corrupt("a char payload is one character, not '" + s + "'");
        }
        return s.charAt(0);
    }

    private long integer(long min, long max) throws IOException {
        if (currentToken() != Token.VALUE_NUMBER_INT) {
            throw corrupt("expected an integer, found " + currentToken());
        }
        NumberType type = getNumberType();
        if (type != NumberType.INT && type != NumberType.LONG) {
            throw corrupt("integer " + getText() + " outside the long range");
        }
        long v = getLongValue();
        if (v < min || v > max) {
            throw corrupt("integer " + v + " outside " + min + ".." + max);
        }
        return v;
    }

    private boolean bool() throws IOException {
        Token t = currentToken();
        if (t == Token.VALUE_TRUE || t == Token.VALUE_FALSE) {
            return t == Token.VALUE_TRUE;
        }
        throw corrupt("expected a boolean, found " + t);
    }

    private String text() throws IOException {
        if (currentToken() != Token.VALUE_STRING) {
            throw corrupt("expected a string, found " + currentToken());
        }
        return getText();
    }

    private void expect(Token expected) throws IOException {
        if (currentToken() != expected) {
            throw corrupt("expected " + expected + ", found " + currentToken());
        }
    }

    // ---- what the subclasses supply: framing ----------------------------------------------------------------

    /** Before the first record: JSON reads the array's START_ARRAY; BSON has nothing to read. */
    abstract void startStream() throws IOException;

    /** Positions the tokens on the START_OBJECT of the next record; false at the end of the records. */
    abstract boolean nextRecord() throws IOException;

    /** After the closing record: the JSON array ends, then the input; BSON input ends. */
    abstract void expectEnd() throws IOException;

    // The tokens, as the record-reading code above calls them.

    final Token nextToken() throws IOException {
        return tokens.nextToken();
    }

    final Token currentToken() {
        return tokens.currentToken();
    }

    final String currentName() throws IOException {
        return tokens.currentName();
    }

    final void skipChildren() throws IOException {
        tokens.skipChildren();
    }

    final String getText() throws IOException {
        return tokens.getText();
    }

    final NumberType getNumberType() throws IOException {
        return tokens.getNumberType();
    }

    final long getLongValue() throws IOException {
        return tokens.getLongValue();
    }

    final double getDoubleValue() throws IOException {
        return tokens.getDoubleValue();
    }

    final float getFloatValue() throws IOException {
        return tokens.getFloatValue();
    }

    final Object getEmbeddedObject() throws IOException {
        return tokens.getEmbeddedObject();
    }

    final byte[] getBinaryValue() throws IOException {
        return tokens.getBinaryValue();
    }
}
