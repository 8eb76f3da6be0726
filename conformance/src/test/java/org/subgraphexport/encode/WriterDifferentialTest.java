package org.subgraphexport.encode;

import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.TokenNames;
import org.subgraphexport.wire.ValueSink;
import org.subgraphexport.wire.Wire;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.subgraphexport.client.DurationValue;
import org.subgraphexport.client.PointValue;
import org.subgraphexport.client.VectorValue;
import org.subgraphexport.wire.ValueSink.ArrayKind;
import org.subgraphexport.wire.ValueSink.VectorKind;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The {@code json} and {@code bson} writers ({@link Format#JSON}, {@link Format#BSON}: {@link JsonGraphWriter},
 * {@link BsonGraphWriter}) against the Jackson-based writer each must match byte for byte, {@link
 * JacksonGraphWriter#json} and {@link JacksonGraphWriter#bson}, the references. Seeded random scripts (the same
 * for both formats) make each {@link GraphWriter} call on a writer and its reference: graph and rows streams with
 * odd header strings and element-id prefixes, token names and map keys (quotes, backslashes, control characters,
 * U+0000, non-ASCII, supplementary and unpaired surrogates), every value call with edge values (also UTF-8 bytes,
 * valid and malformed, at an offset, and values above 64 and 128 KiB), every array and vector kind, lists and maps
 * nested up to {@link Wire#MAX_NESTING} levels, {@code error()} injected at any call, misuse of the call protocol,
 * {@code finish()} twice, {@code abort()}.
 *
 * <p>For every script: each call throws an exception of the same class in both writers or in neither; the bytes
 * are identical (of a stream aborted unfinished: one is a prefix of the other); each write to the target is, before
 * {@code finish()}, at least {@link Wire#KRYO_BUFFER} bytes, and nothing follows the closing bracket (BSON: the
 * closing record); the target is flushed only in {@code finish()}, as often as the reference flushes it, and never
 * closed. Each write of either writer ends right after a record, as {@link Wire#KRYO_BUFFER} promises: in JSON the
 * nesting depth outside strings is back at the top-level array after a record's closing brace, or at zero after the
 * closing bracket; in BSON the write ends where a document (by its int32 length) ends. Over all scripts of a
 * format: every call, array kind (also empty), vector kind and {@link Misuse} was exercised, {@code error()} came
 * after each kind of call, and a record above 128 KiB was written.
 */
class WriterDifferentialTest {
    private static final int SEEDS = 500;

    @ParameterizedTest
    @EnumSource(value = Format.class, names = {"JSON", "BSON"})
    void randomScriptsWriteExactlyWhatJacksonWrites(Format format) throws IOException {
        Set<String> seen = new HashSet<>();
        for (long seed = 1; seed <= SEEDS; seed++) {
            new Script(format, seed, seen).run();
        }
        Set<String> missing = new TreeSet<>(required());
        missing.removeAll(seen);
        assertTrue(missing.isEmpty(), "the scripts never exercised " + missing);
    }

    /** What the scripts claim to cover, as {@link Script} and {@link Pair} record it in {@code seen}. */
    private static Set<String> required() {
        Set<String> required = new HashSet<>();
        for (Method m : GraphWriter.class.getMethods()) {
            if (!Modifier.isStatic(m.getModifiers())) {
                required.add("call " + m.getName());
            }
        }
        for (ArrayKind k : ArrayKind.values()) {
            required.add("array " + k);
            required.add("empty array " + k);
        }
        for (VectorKind k : VectorKind.values()) {
            required.add("vector " + k);
        }
        for (Misuse m : Misuse.values()) {
            required.add("misuse " + m);
        }
        for (String after : List.of("header", "columns", "endNode", "endRelationship", "endRow", "property",
                "beginArray", "beginList", "beginMap", "mapKey", "a call that threw", "an element of a typed array",
                "a value in a nested list or map")) {
            required.add("error after " + after);
        }
        required.add("a write before finish");
        required.add("a write above 128 KiB");
        return required;
    }

    /** Calls the contract forbids; both writers must reject each alike. */
    private enum Misuse {
        WRONG_ELEMENT_KIND, NESTED_ARRAY, END_ARRAY_WITHOUT_ARRAY, RECORD_ENDED_IN_ARRAY,
        BYTES_VECTOR_OR_BYTE_IN_ARRAY, ROW_VALUE_AS_PROPERTY, ROW_VALUE_IN_TYPED_ARRAY, MAP_KEY_OUTSIDE_MAP,
        PATH_LENGTHS, POINT_COORDINATES, BAD_SIZE, NEGATIVE_TOKEN_ID, UNOPENED_END, END_INSIDE_RECORD, HEADER_TWICE,
        COLUMNS_AGAIN, BEGIN_ROW_INSIDE, WRONG_COUNT(false, true), TOO_DEEP(false, true),
        ROW_WITHOUT_COLUMNS(true, false),
        /** Not among records: end() or error() before the header or after the closing record. */
        CLOSING_BEFORE_HEADER(false, false), CLOSING_AFTER_CLOSING(false, false);

        /** Whether it is scripted among the records of a graph stream, of a rows stream. */
        final boolean graph, rows;

        Misuse() {
            this(true, true);
        }

        Misuse(boolean graph, boolean rows) {
            this.graph = graph;
            this.rows = rows;
        }
    }

    // ---- the script ---------------------------------------------------------------------------------------------

    /** One seeded random script, run on both writers through a {@link Pair}. */
    private static final class Script {
        private static final String[] ZONES = {"Europe/Berlin", "America/New_York", "Asia/Kolkata",
            "Australia/Lord_Howe", "Pacific/Chatham", "America/St_Johns", "UTC", "GMT", "Etc/GMT+12", "Z"};
        private static final long[] LONGS = {0, 1, -1, 9, 10, 99, 100, Integer.MAX_VALUE, Integer.MIN_VALUE,
            Integer.MAX_VALUE + 1L, 999_999_999_999_999_999L, 1_000_000_000_000_000_000L, Long.MAX_VALUE,
            Long.MIN_VALUE, Long.MIN_VALUE + 1};
        private static final float[] FLOATS = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 0f, -0f,
            Float.MIN_VALUE, -Float.MIN_VALUE, Float.MIN_NORMAL, Float.MAX_VALUE, -Float.MAX_VALUE, 1f, -1f, 0.1f,
            1e7f, 9_999_999f, 1e-3f, 9.999e-4f, 1e20f, 16_777_217f};
        private static final double[] DOUBLES = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0.0,
            -0.0, Double.MIN_VALUE, -Double.MIN_VALUE, Double.MIN_NORMAL, Double.MAX_VALUE, -Double.MAX_VALUE, 1.0,
            -1.0, 0.1, 0.30000000000000004, 1e7, 9_999_999.0, 1e-3, 9.999e-4, 1e20, 1e21, 1e22, 1e23, 0x1p53,
            123456789012345680.0};
        /** Malformed UTF-8: lone continuation bytes, truncated and overlong sequences, surrogates, above U+10FFFF. */
        private static final byte[][] MALFORMED = {{(byte) 0x80}, {(byte) 0xBF}, {(byte) 0xC3},
            {(byte) 0xE2, (byte) 0x82}, {(byte) 0xF0, (byte) 0x9F, (byte) 0x98}, {(byte) 0xC0, (byte) 0xAF},
            {(byte) 0xC1, (byte) 0xBF}, {(byte) 0xE0, (byte) 0x80, (byte) 0xAF},
            {(byte) 0xF0, (byte) 0x80, (byte) 0x80, (byte) 0xAF}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
            {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, {(byte) 0xFE}, {(byte) 0xFF}};

        /** Calls after which an error() may be injected ("": any call); the rows-only ones in rows streams. */
        private static final List<String> ERROR_AFTER = List.of("", "", "", "", "header", "property", "beginArray",
                "endNode", "endRelationship", "columns", "beginList", "beginMap", "mapKey", "endRow");
        private static final Set<String> ROWS_ONLY = Set.of("columns", "beginList", "beginMap", "mapKey", "endRow");
        private static final List<Misuse> IN_RECORDS = Arrays.stream(Misuse.values()).filter(m -> m.graph || m.rows)
                .toList();

        private final Random r;
        private final Set<String> seen;
        private final Pair pair;
        /** Both writers. */
        private final GraphWriter w;
        /** Some scripts write few records with large values: strings and byte arrays above 64 and 128 KiB. */
        private final boolean big;
        /** The one misuse among the records, or null. */
        private final Misuse misuse;
        /** The call after which an error() is injected, or null. */
        private final String errorAfter;
        private final boolean rows;
        private final String[] labels, types, keys;
        private final TokenNames tokens;
        private int columns;
        private long nodes, relationships;

        Script(Format format, long seed, Set<String> seen) {
            this.r = new Random(seed * 0x9E3779B97F4A7C15L);  // consecutive seeds start alike otherwise
            this.seen = seen;
            this.pair = new Pair(format, seed, seen);
            this.w = pair.writer;
            this.big = r.nextInt(8) == 0;
            int plan = r.nextInt(8);
            this.misuse = plan < 4 ? IN_RECORDS.get(r.nextInt(IN_RECORDS.size())) : null;
            this.errorAfter = plan >= 4 && plan < 7 ? ERROR_AFTER.get(r.nextInt(ERROR_AFTER.size())) : null;
            this.rows = misuse != null ? misuse.rows && (!misuse.graph || r.nextBoolean())
                    : errorAfter != null && ROWS_ONLY.contains(errorAfter) || r.nextBoolean();
            // sizes beyond the writers' first table sizes, so their caches grow
            this.labels = names("Label", 1 + r.nextInt(r.nextBoolean() ? 8 : 400));
            this.types = names("TYPE_", 1 + r.nextInt(r.nextBoolean() ? 4 : 300));
            this.keys = names("key", 1 + r.nextInt(r.nextBoolean() ? 12 : 400));
            this.tokens = FixtureStream.tokens(labels, types, keys);
        }

        void run() throws IOException {
            if (r.nextInt(15) == 0) {
                closingMisuse(Misuse.CLOSING_BEFORE_HEADER);
            }
            if (errorAfter != null) {
                pair.injectError(errorAfter, errorAfter.isEmpty() ? 1 + r.nextInt(big ? 60 : 400) : 1 + r.nextInt(4),
                        code(), message());
            }
            w.header(header(), tokens);
            try {
                if (!records()) {
                    w.abort();  // the target failed: nothing more is written
                    pair.compare(false);
                    return;
                }
            } catch (Stopped injected) {
                // error() was injected: only finish() may follow
            }
            if (r.nextInt(10) == 0) {
                closingMisuse(Misuse.CLOSING_AFTER_CLOSING);
            }
            switch (r.nextInt(10)) {
                case 0 -> {
                    w.abort();
                    pair.compare(false);
                    return;
                }
                case 1 -> {
                    w.finish();
                    w.finish();
                }
                case 2 -> {
                    w.finish();
                    w.abort();
                    w.abort();
                }
                default -> w.finish();
            }
            pair.compare(true);
        }

        /**
         * Columns (rows streams), records and misuse, then the closing record; false if the stream is given up
         * between records instead.
         */
        private boolean records() throws IOException {
            if (rows) {
                String[] names = new String[r.nextInt(5)];
                for (int i = 0; i < names.length; i++) {
                    names[i] = name();
                }
                w.columns(names);
                columns = names.length;
            }
            int records = r.nextInt(big ? 12 : 60);
            int misuseAt = misuse != null ? r.nextInt(records + 1) : -1;
            int abortAt = r.nextInt(25) == 0 ? r.nextInt(records + 1) : -1;
            for (int i = 0; i <= records; i++) {
                if (i == abortAt) {
                    return false;
                }
                if (i == misuseAt) {
                    if (!misuse(misuse)) {
                        w.error(code(), message());  // after the throw: drops the unfinished record
                        return true;
                    }
                }
                if (i < records) {
                    if (rows && r.nextInt(3) == 0) {
                        row();
                    } else {
                        endRecord(beginRecord(r.nextInt(11)));
                    }
                }
            }
            if (r.nextInt(4) == 0) {
                w.error(code(), message());
            } else {
                w.end(r.nextInt(5) == 0 ? longValue() : nodes, r.nextInt(5) == 0 ? longValue() : relationships,
                        r.nextBoolean());
            }
            return true;
        }

        /** Begins a node or relationship with {@code properties} properties; true for a node. */
        private boolean beginRecord(int properties) throws IOException {
            boolean node = r.nextBoolean();
            if (node) {
                int count = r.nextInt(4);
                int[] labelIds = new int[count + r.nextInt(3)];
                Arrays.fill(labelIds, -1);  // beyond labelCount: never read
                for (int i = 0; i < count; i++) {
                    labelIds[i] = r.nextInt(labels.length);
                }
                w.beginNode(id(), labelIds, count);
            } else {
                w.beginRelationship(id(), r.nextInt(types.length), id(), id());
            }
            for (int i = 0; i < properties; i++) {
                w.property(key());
                write(w, value());
            }
            return node;
        }

        private void endRecord(boolean node) throws IOException {
            if (node) {
                w.endNode();
                nodes++;
            } else {
                w.endRelationship();
                relationships++;
            }
        }

        private void row() throws IOException {
            w.beginRow();
            for (int i = 0; i < columns; i++) {
                write(w, rowValue(1));
            }
            w.endRow();
        }

        /**
         * One misuse, with the calls that lead up to it; true if the stream may go on (the rejected call is
         * documented to write nothing), false if only error() may follow.
         */
        private boolean misuse(Misuse m) throws IOException {
            seen.add("misuse " + m);
            switch (m) {
                case WRONG_ELEMENT_KIND -> {
                    openValue();
                    ArrayKind kind = arrayKind();
                    beginArrayWithElements(kind);
                    ArrayKind other = ArrayKind.values()[(kind.ordinal() + 1 + r.nextInt(ArrayKind.values().length - 1))
                            % ArrayKind.values().length];
                    Object wrong = scalar(other);
                    pair.rejected(() -> write(w, wrong));
                }
                case NESTED_ARRAY -> {
                    openValue();
                    beginArrayWithElements(arrayKind());
                    ArrayKind kind = arrayKind();
                    pair.rejected(() -> w.beginArray(r.nextInt(3), kind));
                }
                case END_ARRAY_WITHOUT_ARRAY -> {
                    if (r.nextBoolean()) {
                        openValue();
                    }
                    pair.rejected(w::endArray);
                }
                case RECORD_ENDED_IN_ARRAY -> {
                    if (rows && r.nextBoolean()) {
                        beginRowWithValues();
                        beginArrayWithElements(arrayKind());
                        pair.rejected(w::endRow);
                    } else {
                        boolean node = beginRecord(r.nextInt(3));
                        w.property(key());
                        beginArrayWithElements(arrayKind());
                        pair.rejected(node ? w::endNode : w::endRelationship);
                    }
                }
                case BYTES_VECTOR_OR_BYTE_IN_ARRAY -> {
                    openValue();
                    beginArrayWithElements(arrayKind());
                    Object notAnElement = switch (r.nextInt(3)) {
                        case 0 -> bytes();
                        case 1 -> vector();
                        default -> (byte) r.nextInt();
                    };
                    pair.rejected(() -> write(w, notAnElement));
                }
                case ROW_VALUE_AS_PROPERTY -> {
                    boolean node = beginRecord(r.nextInt(3));
                    w.property(key());
                    Object rowOnly = rowOnlyValue();
                    pair.rejected(() -> write(w, rowOnly));
                    write(w, value());
                    endRecord(node);
                    return true;
                }
                case ROW_VALUE_IN_TYPED_ARRAY -> {
                    if (rows && columns > 0 && r.nextBoolean()) {
                        w.beginRow();
                        int at = r.nextInt(columns);
                        for (int i = 0; i < columns; i++) {
                            if (i == at) {
                                arrayWithRowValue();
                            } else {
                                write(w, rowValue(1));
                            }
                        }
                        w.endRow();
                    } else {
                        boolean node = beginRecord(r.nextInt(3));
                        w.property(key());
                        arrayWithRowValue();
                        endRecord(node);
                    }
                    return true;
                }
                case MAP_KEY_OUTSIDE_MAP -> {
                    switch (r.nextInt(rows ? 4 : 2)) {
                        case 0 -> { }  // between records
                        case 1 -> {
                            beginRecord(r.nextInt(3));
                            w.property(key());
                        }
                        case 2 -> beginRowWithValues();
                        default -> {
                            beginRowWithValues();
                            w.beginList(3);
                            write(w, rowValue(2));
                        }
                    }
                    String key = name();
                    pair.rejected(() -> w.mapKey(key));
                }
                case PATH_LENGTHS -> {
                    if (r.nextBoolean()) {
                        openValue();
                    }
                    long[] nodeIds = ids(r.nextInt(4));
                    long[] relationshipIds = ids(otherThan(nodeIds.length - 1));
                    pair.rejected(() -> w.writePath(nodeIds, relationshipIds));
                }
                case POINT_COORDINATES -> {
                    openValue();
                    if (r.nextBoolean()) {
                        beginArrayWithElements(ArrayKind.POINT);
                    }
                    double[] coordinates = new double[new int[] {0, 1, 4, 5}[r.nextInt(4)]];
                    pair.rejected(() -> w.writePoint(7203, coordinates));
                }
                case BAD_SIZE -> {
                    if (r.nextBoolean()) {
                        openValue();
                    }
                    int size = switch (r.nextInt(3)) {
                        case 0 -> -1;
                        case 1 -> Integer.MIN_VALUE;
                        default -> Wire.MAX_LENGTH + 1;
                    };
                    pair.rejected(r.nextBoolean() ? () -> w.beginList(size) : () -> w.beginMap(size));
                }
                case NEGATIVE_TOKEN_ID -> {
                    int negative = r.nextBoolean() ? -1 : Integer.MIN_VALUE + r.nextInt(1000);
                    switch (r.nextInt(3)) {
                        case 0 -> {
                            int[] labelIds = {r.nextInt(labels.length), negative};
                            pair.rejected(() -> w.beginNode(id(), labelIds, 2));
                        }
                        case 1 -> pair.rejected(() -> w.beginRelationship(id(), negative, id(), id()));
                        default -> {
                            beginRecord(r.nextInt(3));
                            pair.rejected(() -> w.property(negative));
                        }
                    }
                }
                case UNOPENED_END -> {
                    switch (r.nextInt(rows ? 4 : 2)) {
                        case 0 -> pair.rejected(unopenedEnd(w::endRow, w::endList, w::endMap));  // between records
                        case 1 -> {
                            beginRecord(r.nextInt(3));
                            pair.rejected(unopenedEnd(w::endRow, w::endList, w::endMap));
                        }
                        case 2 -> {
                            beginRowWithValues();
                            pair.rejected(unopenedEnd(w::endList, w::endMap, w::endNode, w::endRelationship));
                        }
                        default -> {
                            beginRowWithValues();
                            w.beginList(2);
                            write(w, rowValue(2));
                            pair.rejected(unopenedEnd(w::endRow, w::endMap, w::endNode));
                        }
                    }
                }
                case END_INSIDE_RECORD -> {
                    openValue();
                    if (r.nextBoolean()) {
                        beginArrayWithElements(arrayKind());
                    }
                    pair.rejected(() -> w.end(nodes, relationships, r.nextBoolean()));
                }
                case HEADER_TWICE -> {
                    if (r.nextBoolean()) {
                        openValue();
                    }
                    Header again = header();
                    pair.rejected(() -> w.header(again, tokens));
                }
                case COLUMNS_AGAIN -> {
                    switch (r.nextInt(3)) {
                        case 0 -> beginRecord(r.nextInt(3));
                        case 1 -> {
                            if (!rows) {
                                endRecord(beginRecord(r.nextInt(3)));  // after a record: too late
                            }
                        }
                        default -> {
                            if (rows) {
                                beginRowWithValues();
                            } else {
                                endRecord(beginRecord(0));
                            }
                        }
                    }
                    String[] names = {name()};
                    pair.rejected(() -> w.columns(names));
                }
                case BEGIN_ROW_INSIDE -> {
                    if (rows && r.nextBoolean()) {
                        beginRowWithValues();
                        if (r.nextBoolean()) {
                            w.beginList(1);
                        }
                    } else {
                        openValue();
                        beginArrayWithElements(arrayKind());
                    }
                    pair.rejected(w::beginRow);
                }
                case WRONG_COUNT -> {
                    w.beginRow();
                    switch (r.nextInt(3)) {
                        case 0 -> {
                            for (int i = otherThan(columns); i > 0; i--) {
                                write(w, rowValue(1));
                            }
                            pair.rejected(w::endRow);
                        }
                        case 1 -> {
                            int size = r.nextInt(4);
                            w.beginList(size);
                            for (int i = otherThan(size); i > 0; i--) {
                                write(w, rowValue(2));
                            }
                            pair.rejected(w::endList);
                        }
                        default -> {
                            int size = r.nextInt(4);
                            w.beginMap(size);
                            for (int i = otherThan(size); i > 0; i--) {
                                w.mapKey(name());
                                write(w, rowValue(2));
                            }
                            pair.rejected(w::endMap);
                        }
                    }
                }
                case TOO_DEEP -> {
                    w.beginRow();
                    for (int level = 1; level <= Wire.MAX_NESTING; level++) {
                        if (r.nextBoolean()) {
                            w.beginList(1 + r.nextInt(2));
                        } else {
                            w.beginMap(1);
                            w.mapKey(name());
                        }
                    }
                    pair.rejected(r.nextBoolean() ? () -> w.beginList(r.nextInt(3)) : () -> w.beginMap(r.nextInt(3)));
                }
                case ROW_WITHOUT_COLUMNS -> pair.rejected(w::beginRow);
                default -> throw new IllegalArgumentException(m + " is not a misuse among records");
            }
            return false;
        }

        /** end() or error() before the header or after the closing record: throws and writes nothing. */
        private void closingMisuse(Misuse m) throws IOException {
            seen.add("misuse " + m);
            if (r.nextBoolean()) {
                pair.rejected(() -> w.end(nodes, relationships, r.nextBoolean()));
            } else {
                String code = code(), message = message();
                pair.rejected(() -> w.error(code, message));
            }
        }

        private Step unopenedEnd(Step... ends) {
            return ends[r.nextInt(ends.length)];
        }

        /** Opens a place a value may go: a property, or in rows streams a column, list element or map entry. */
        private void openValue() throws IOException {
            if (rows && r.nextBoolean()) {
                beginRowWithValues();
                switch (r.nextInt(3)) {
                    case 0 -> { }
                    case 1 -> {
                        w.beginList(3);
                        write(w, rowValue(2));
                    }
                    default -> {
                        w.beginMap(3);
                        w.mapKey(name());
                        write(w, rowValue(2));
                        w.mapKey(name());
                    }
                }
            } else {
                beginRecord(r.nextInt(3));
                w.property(key());
            }
        }

        /** beginRow() and fewer values than there are columns. */
        private void beginRowWithValues() throws IOException {
            w.beginRow();
            for (int i = r.nextInt(Math.max(columns, 1)); i > 0; i--) {
                write(w, rowValue(1));
            }
        }

        private void beginArrayWithElements(ArrayKind kind) throws IOException {
            TypedArray a = typedArray(kind);
            w.beginArray(a.elements().length, kind);
            for (Object e : a.elements()) {
                write(w, e);
            }
        }

        /** A typed array with a row-only value rejected among its elements (which writes nothing). */
        private void arrayWithRowValue() throws IOException {
            TypedArray a = typedArray(arrayKind());
            int at = r.nextInt(a.elements().length + 1);
            w.beginArray(a.elements().length, a.kind());
            for (int i = 0; i <= a.elements().length; i++) {
                if (i == at) {
                    Object rowOnly = rowOnlyValue();
                    pair.rejected(() -> write(w, rowOnly));
                }
                if (i < a.elements().length) {
                    write(w, a.elements()[i]);
                }
            }
            w.endArray();
        }

        /** A count other than {@code n} (0 to n + 2). */
        private int otherThan(int n) {
            int other = r.nextInt(Math.max(n, 0) + 2);
            return other >= n ? other + 1 : other;
        }

        // ---- values ---------------------------------------------------------------------------------------

        /** A property value: a scalar of any array kind, a byte, a byte array, a vector or a typed array. */
        private Object value() {
            return switch (r.nextInt(12)) {
                case 0 -> (byte) r.nextInt();
                case 1 -> bytes();
                case 2 -> vector();
                case 3, 4, 5 -> typedArray(arrayKind());
                default -> scalar(arrayKind());
            };
        }

        /** A row value at nesting {@code level} (1: a column): any value, deep or shallow. */
        private Object rowValue(int level) {
            if (level == 1 && r.nextInt(60) == 0) {
                return deep();
            }
            return switch (r.nextInt(level < 4 ? 14 : 10)) {
                case 0, 1, 2, 3 -> rowOnlyValue(level < 4);
                case 4, 5, 6, 7, 8, 9 -> value();
                case 10, 11 -> {
                    List<Object> list = new ArrayList<>();
                    for (int i = r.nextInt(5); i > 0; i--) {
                        list.add(rowValue(level + 1));
                    }
                    yield list;
                }
                default -> {
                    Map<String, Object> map = new LinkedHashMap<>();
                    for (int i = r.nextInt(5); i > 0; i--) {
                        map.put(name(), rowValue(level + 1));
                    }
                    yield map;
                }
            };
        }

        private Object rowOnlyValue() {
            return rowOnlyValue(true);
        }

        /** Null, a node or relationship reference, a path, or (if {@code containers}) a small list or map. */
        private Object rowOnlyValue(boolean containers) {
            return switch (r.nextInt(containers ? 6 : 4)) {
                case 0 -> null;
                case 1 -> RowsFixture.n(id());
                case 2 -> RowsFixture.r(id());
                case 3 -> {
                    int length = r.nextInt(4);
                    yield RowsFixture.path(ids(length + 1), ids(length));
                }
                case 4 -> RowsFixture.list(value(), null);
                default -> RowsFixture.map(name(), value());
            };
        }

        /** Lists and maps nested exactly {@link Wire#MAX_NESTING} levels, a value at the bottom. */
        private Object deep() {
            Object v = value();
            for (int i = 0; i < Wire.MAX_NESTING; i++) {
                v = r.nextBoolean() ? RowsFixture.list(v) : RowsFixture.map(name(), v);
            }
            return v;
        }

        private TypedArray typedArray(ArrayKind kind) {
            Object[] elements = new Object[r.nextInt(4) == 0 ? 0 : 1 + r.nextInt(big ? 40 : 6)];
            for (int i = 0; i < elements.length; i++) {
                elements[i] = scalar(kind);
            }
            return new TypedArray(kind, elements);
        }

        /** A value of one array element type, written alone or as an element. */
        private Object scalar(ArrayKind kind) {
            return switch (kind) {
                case BOOLEAN -> r.nextBoolean();
                case SHORT -> (short) (r.nextBoolean() ? r.nextInt()
                        : r.nextBoolean() ? Short.MIN_VALUE : Short.MAX_VALUE);
                case INT -> r.nextBoolean() ? r.nextInt() : (int) LONGS[r.nextInt(LONGS.length)];
                case LONG -> longValue();
                case FLOAT -> floatValue();
                case DOUBLE -> doubleValue();
                case CHAR -> switch (r.nextInt(5)) {
                    case 0 -> (char) r.nextInt(0x20);
                    case 1 -> "\"\\/\u007f\u2028\u2029\ufeff\uffff".charAt(r.nextInt(8));
                    case 2 -> (char) (0xD800 + r.nextInt(0x800));  // a surrogate, alone
                    case 3 -> (char) r.nextInt(0x10000);
                    default -> (char) (0x20 + r.nextInt(0x5F));
                };
                case STRING -> r.nextInt(3) == 0 ? utf8() : string();
                case POINT -> new PointValue(new int[] {7203, 9157, 4326, 4979, r.nextInt()}[r.nextInt(5)],
                        r.nextBoolean() ? new double[] {doubleValue(), doubleValue()}
                                : new double[] {doubleValue(), doubleValue(), doubleValue()});
                case DATE -> date();
                case LOCAL_TIME -> time();
                case TIME -> OffsetTime.of(time(), offset());
                case LOCAL_DATE_TIME -> LocalDateTime.of(date(), time());
                case DATE_TIME -> ZonedDateTime.of(LocalDateTime.of(date(), time()),
                        r.nextBoolean() ? offset() : r.nextInt(4) == 0 ? ZoneId.ofOffset("UTC", offset())
                                : ZoneId.of(ZONES[r.nextInt(ZONES.length)]));
                case DURATION -> new DurationValue(longValue(), longValue(), longValue(),
                        r.nextBoolean() ? r.nextInt(1_000_000_000) : (int) LONGS[r.nextInt(LONGS.length)]);
                case UUID -> new UUID(longValue(), longValue());
            };
        }

        private long longValue() {
            return switch (r.nextInt(4)) {
                case 0 -> LONGS[r.nextInt(LONGS.length)];
                case 1 -> r.nextLong();
                case 2 -> r.nextLong() >> r.nextInt(64);
                default -> r.nextInt(2001) - 1000;
            };
        }

        private long id() {
            return r.nextBoolean() ? r.nextInt(1000) : longValue();
        }

        private long[] ids(int n) {
            long[] ids = new long[n];
            for (int i = 0; i < n; i++) {
                ids[i] = id();
            }
            return ids;
        }

        private float floatValue() {
            return switch (r.nextInt(6)) {
                case 0 -> FLOATS[r.nextInt(FLOATS.length)];
                case 1 -> Float.intBitsToFloat(r.nextInt(0x80_0000) | (r.nextBoolean() ? 0x8000_0000 : 0));  // tiny
                case 2 -> r.nextInt(2_000_001) - 1_000_000;
                case 3 -> (r.nextInt(200_001) - 100_000) / 100f;
                default -> Float.intBitsToFloat(r.nextInt());
            };
        }

        private double doubleValue() {
            return switch (r.nextInt(7)) {
                case 0 -> DOUBLES[r.nextInt(DOUBLES.length)];
                case 1 -> Double.longBitsToDouble(r.nextLong() & 0x800F_FFFF_FFFF_FFFFL);  // tiny
                case 2 -> r.nextInt(2_000_001) - 1_000_000;
                case 3 -> (r.nextInt(200_001) - 100_000) / 100.0;
                case 4 -> r.nextGaussian() * Math.pow(10, r.nextInt(600) - 300);
                default -> Double.longBitsToDouble(r.nextLong());
            };
        }

        /** Near the epoch, years below 0 and above 9999, and the extremes. */
        private LocalDate date() {
            return switch (r.nextInt(4)) {
                case 0 -> LocalDate.ofEpochDay(r.nextInt(40_000) - 10_000);
                case 1 -> LocalDate.of(r.nextInt(24_000) - 12_000, 1 + r.nextInt(12), 1 + r.nextInt(28));
                case 2 -> r.nextBoolean() ? LocalDate.MIN : LocalDate.MAX;
                default -> LocalDate.ofEpochDay(r.nextLong(LocalDate.MIN.toEpochDay(), LocalDate.MAX.toEpochDay() + 1));
            };
        }

        /** Minutes only, whole seconds, milli-, micro- and nanoseconds. */
        private LocalTime time() {
            LocalTime t = LocalTime.ofSecondOfDay(r.nextInt(86_400));
            return switch (r.nextInt(6)) {
                case 0 -> t.withSecond(0);
                case 1 -> t;
                case 2 -> t.withNano(r.nextInt(1000) * 1_000_000);
                case 3 -> t.withNano(r.nextInt(1_000_000) * 1000);
                case 4 -> r.nextBoolean() ? LocalTime.MIDNIGHT : LocalTime.MAX;
                default -> t.withNano(r.nextInt(1_000_000_000));
            };
        }

        private ZoneOffset offset() {
            return switch (r.nextInt(4)) {
                case 0 -> ZoneOffset.UTC;
                case 1 -> ZoneOffset.ofHours(r.nextInt(37) - 18);
                case 2 -> ZoneOffset.ofTotalSeconds((r.nextInt(28 * 4 + 1) - 14 * 4) * 900);
                default -> ZoneOffset.ofTotalSeconds(r.nextInt(2 * 64_800 + 1) - 64_800);
            };
        }

        private byte[] bytes() {
            byte[] b = new byte[switch (r.nextInt(big ? 4 : 3)) {
                case 0 -> 0;
                case 1 -> r.nextInt(10);
                case 2 -> r.nextInt(300);
                default -> r.nextBoolean() ? 55_000 + r.nextInt(5000) : 110_000 + r.nextInt(10_000);
            }];
            r.nextBytes(b);
            return b;
        }

        private VectorValue vector() {
            VectorKind kind = VectorKind.values()[r.nextInt(VectorKind.values().length)];
            int n = r.nextInt(4) == 0 ? 0 : 1 + r.nextInt(big ? 3000 : 8);
            Object values = switch (kind) {
                case INT8 -> {
                    byte[] v = new byte[n];
                    r.nextBytes(v);
                    yield v;
                }
                case INT16 -> {
                    short[] v = new short[n];
                    for (int i = 0; i < n; i++) {
                        v[i] = (short) r.nextInt();
                    }
                    yield v;
                }
                case INT32 -> r.ints(n).toArray();
                case INT64 -> {
                    long[] v = new long[n];
                    for (int i = 0; i < n; i++) {
                        v[i] = longValue();
                    }
                    yield v;
                }
                case FLOAT32 -> {
                    float[] v = new float[n];
                    for (int i = 0; i < n; i++) {
                        v[i] = floatValue();
                    }
                    yield v;
                }
                case FLOAT64 -> {
                    double[] v = new double[n];
                    for (int i = 0; i < n; i++) {
                        v[i] = doubleValue();
                    }
                    yield v;
                }
            };
            return new VectorValue(kind, values);
        }

        private String string() {
            if (big && r.nextInt(3) == 0) {
                return huge();
            }
            return text(switch (r.nextInt(4)) {
                case 0 -> r.nextInt(3);
                case 1, 2 -> r.nextInt(20);
                default -> r.nextInt(300);
            });
        }

        /** Above 64 or 128 KiB: a random piece, plain or odd, repeated (an end may cut a surrogate pair). */
        private String huge() {
            String piece = r.nextBoolean() ? "plain ascii text ".repeat(1 + r.nextInt(5)) + r.nextInt()
                    : text(100 + r.nextInt(900));
            int length = r.nextBoolean() ? 70_000 + r.nextInt(5000) : 140_000 + r.nextInt(10_000);
            return piece.repeat(length / piece.length() + 1).substring(r.nextInt(piece.length()), length);
        }

        /** Plain ASCII, or a mix of controls, quotes, backslashes, non-ASCII, supplementary and lone surrogates. */
        private String text(int n) {
            StringBuilder sb = new StringBuilder(n + 1);
            boolean plain = r.nextInt(3) == 0;
            while (sb.length() < n) {
                switch (plain ? 9 : r.nextInt(10)) {
                    case 0 -> sb.append((char) r.nextInt(0x20));
                    case 1 -> sb.append("\"\\/\u007f".charAt(r.nextInt(4)));
                    case 2 -> sb.append((char) (0x80 + r.nextInt(0x780)));
                    case 3 -> sb.append((char) (r.nextBoolean() ? 0x800 + r.nextInt(0xD000)
                            : 0xE000 + r.nextInt(0x2000)));
                    case 4 -> sb.appendCodePoint(0x10000 + r.nextInt(0x100000));
                    case 5 -> sb.append((char) (0xD800 + r.nextInt(0x800)));  // lone, or paired by chance
                    default -> sb.append((char) (0x20 + r.nextInt(0x5F)));
                }
            }
            return sb.toString();
        }

        /** A token name, column name or map key: plain, empty, with U+0000, with a lone surrogate, or odd. */
        private String name() {
            return switch (r.nextInt(8)) {
                case 0 -> "";
                case 1 -> "a\u0000b";
                case 2 -> r.nextBoolean() ? "\uD83D" : "x\uDE00\uD83D\uDE00";
                case 3, 4 -> text(1 + r.nextInt(12));
                default -> "name" + r.nextInt(100);
            };
        }

        private String[] names(String plain, int n) {
            String[] names = new String[n];
            for (int i = 0; i < n; i++) {
                names[i] = r.nextInt(4) == 0 ? name() : plain + i;
            }
            return names;
        }

        private int key() {
            return r.nextInt(keys.length);
        }

        private ArrayKind arrayKind() {
            return ArrayKind.values()[r.nextInt(ArrayKind.values().length)];
        }

        /** UTF-8 bytes at a non-zero offset, random bytes either side: ASCII (with escapes), valid, malformed. */
        private Utf8 utf8() {
            byte[] content = switch (r.nextInt(5)) {
                case 0 -> {
                    byte[] b = new byte[big && r.nextInt(3) == 0 ? 70_000 + r.nextInt(80_000) : r.nextInt(100)];
                    for (int i = 0; i < b.length; i++) {
                        b[i] = (byte) (r.nextInt(4) == 0 ? r.nextInt(0x80) : 0x20 + r.nextInt(0x5F));
                    }
                    yield b;
                }
                case 1 -> (big && r.nextInt(3) == 0 ? huge() : text(r.nextInt(60))).getBytes(StandardCharsets.UTF_8);
                case 2 -> {
                    ByteArrayOutputStream b = new ByteArrayOutputStream();
                    for (int i = r.nextInt(8); i >= 0; i--) {
                        b.writeBytes(text(r.nextInt(6)).getBytes(StandardCharsets.UTF_8));
                        b.writeBytes(MALFORMED[r.nextInt(MALFORMED.length)]);
                    }
                    yield b.toByteArray();
                }
                case 3 -> {
                    byte[] b = new byte[r.nextInt(40)];
                    r.nextBytes(b);
                    yield b;
                }
                default -> ("plain " + r.nextInt()).getBytes(StandardCharsets.US_ASCII);
            };
            int offset = 1 + r.nextInt(8);
            byte[] padded = new byte[offset + content.length + r.nextInt(8)];
            r.nextBytes(padded);
            System.arraycopy(content, 0, padded, offset, content.length);
            return new Utf8(padded, offset, content.length);
        }

        private Header header() {
            String uuid = new UUID(r.nextLong(), r.nextLong()).toString();
            String nodePrefix = prefix("4:" + uuid + ":"), relPrefix = prefix("5:" + uuid + ":");
            String database = r.nextBoolean() ? "neo4j" : r.nextBoolean() ? "" : text(1 + r.nextInt(20));
            String root = switch (r.nextInt(3)) {
                case 0 -> "";
                case 1 -> text(r.nextInt(20));
                default -> nodePrefix + id();
            };
            return new Header(database, root, nodePrefix, relPrefix);
        }

        private String prefix(String typical) {
            return switch (r.nextInt(6)) {
                case 0 -> "";
                case 1, 2 -> text(1 + r.nextInt(10));
                default -> typical;
            };
        }

        private String code() {
            return r.nextBoolean() ? "Neo.TransientError.General.OutOfMemoryError" : text(r.nextInt(20));
        }

        private String message() {
            return switch (r.nextInt(4)) {
                case 0 -> null;
                case 1 -> "";
                default -> text(r.nextInt(200));
            };
        }
    }

    /** A string given as UTF-8 bytes inside a larger array: written with {@link ValueSink#writeUtf8}. */
    private record Utf8(byte[] bytes, int offset, int length) {}

    /** A typed array: {@link ValueSink#beginArray}, one call per element, {@link ValueSink#endArray}. */
    private record TypedArray(ArrayKind kind, Object[] elements) {}

    /** Writes a generated value: lists, maps, UTF-8 strings and typed arrays here, everything else as a row value. */
    private static void write(ValueSink s, Object v) throws IOException {
        switch (v) {
            case Utf8 u -> s.writeUtf8(u.bytes(), u.offset(), u.length());
            case TypedArray a -> {
                s.beginArray(a.elements().length, a.kind());
                for (Object e : a.elements()) {
                    write(s, e);
                }
                s.endArray();
            }
            case List<?> list -> {
                s.beginList(list.size());
                for (Object e : list) {
                    write(s, e);
                }
                s.endList();
            }
            case Map<?, ?> map -> {
                s.beginMap(map.size());
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    s.mapKey((String) e.getKey());
                    write(s, e.getValue());
                }
                s.endMap();
            }
            case null, default -> RowsFixture.writeRowValue(s, v);
        }
    }

    // ---- both writers -------------------------------------------------------------------------------------------

    private interface Step {
        void run() throws IOException;
    }

    /** Both writers threw (exceptions of the same class): the script expected that, or it is wrong. */
    private static final class Rejected extends RuntimeException {
        Rejected(String message, Throwable cause) {
            super(message, cause, false, false);
        }
    }

    /** An error() was injected: the script goes on with finish(). */
    private static final class Stopped extends RuntimeException {
        Stopped() {
            super(null, null, false, false);
        }
    }

    /**
     * The writer under test and the reference behind one {@link GraphWriter} ({@link #writer}, a proxy): each call
     * goes to both, whose exceptions must agree; if both threw, the call throws {@link Rejected}.
     */
    private static final class Pair implements InvocationHandler {
        private static final Set<String> NOT_REPLACED_BY_ERROR = Set.of("header", "error", "finish", "abort");

        final GraphWriter writer = (GraphWriter) Proxy.newProxyInstance(GraphWriter.class.getClassLoader(),
                new Class<?>[] {GraphWriter.class}, this);
        private final Format format;
        /** The format and the seed, for failure messages. */
        private final String seed;
        private final Set<String> seen;
        private final Target expected, actual;
        private final GraphWriter reference, test;
        /** The latest calls, for failure messages. */
        private final ArrayDeque<String> trace = new ArrayDeque<>();
        private long calls;
        /** Header written, closing record not yet. */
        private boolean open;
        /** An error() is injected in place of the next call after the {@code errorIn}th call named errorAfter. */
        private String errorAfter, injectedCode, injectedMessage;
        private int errorIn;
        private boolean errorDue;
        /** What an error() follows, for coverage: the last call, and whether an array or nested container is open. */
        private String last = "";
        private boolean inArray;
        private int containers;

        Pair(Format format, long seed, Set<String> seen) {
            this.format = format;
            this.seed = format.pathSegment() + " seed " + seed;
            this.seen = seen;
            this.expected = new Target(format, this.seed + ", the reference");
            this.actual = new Target(format, this.seed + ", the writer under test");
            this.reference = format == Format.JSON ? JacksonGraphWriter.json(expected)
                    : JacksonGraphWriter.bson(expected);
            this.test = Encoders.open(format, actual);
        }

        /**
         * Replaces the next call after the {@code nth} successful call named {@code after} ("": any call) by
         * {@code error(code, message)}, if it comes between the header and the closing record.
         */
        void injectError(String after, int nth, String code, String message) {
            errorAfter = after;
            errorIn = nth;
            injectedCode = code;
            injectedMessage = message;
        }

        /** Runs steps whose last must throw in both writers (it does in the reference, or the script is wrong). */
        void rejected(Step misuse) throws IOException {
            try {
                misuse.run();
            } catch (Rejected expectedThrow) {
                return;
            }
            fail(seed + ": the reference accepted a misuse, the script is wrong; calls: " + trace);
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws IOException {
            String name = method.getName();
            if (errorDue && open && !NOT_REPLACED_BY_ERROR.contains(name)) {
                errorDue = false;
                writer.error(injectedCode, injectedMessage);
                throw new Stopped();
            }
            if (name.equals("error") && open) {
                seen.add("error after " + last);
                if (inArray && !last.equals("beginArray")) {
                    seen.add("error after an element of a typed array");
                }
                if (containers >= 2) {
                    seen.add("error after a value in a nested list or map");
                }
            }
            calls++;
            if (trace.size() == 16) {
                trace.removeFirst();
            }
            trace.addLast(name);
            seen.add("call " + name);
            expected.finishing = actual.finishing = name.equals("finish");
            Throwable e = attempt(reference, method, args), a = attempt(test, method, args);
            expected.finishing = actual.finishing = false;
            Class<?> ec = e == null ? null : e.getClass(), ac = a == null ? null : a.getClass();
            if (ec != ac) {
                fail(seed + ", call " + calls + " " + name + ": the reference "
                        + (e == null ? "returned" : "threw " + e) + ", the writer under test "
                        + (a == null ? "returned" : "threw " + a) + "; calls up to it: " + trace, a != null ? a : e);
            }
            if (e != null) {
                last = "a call that threw";
                throw new Rejected(seed + ", call " + calls + " " + name + " threw in both writers", e);
            }
            last = name;
            switch (name) {
                case "header" -> open = true;
                case "end", "error" -> {
                    open = inArray = false;
                    containers = 0;
                }
                case "beginArray" -> {
                    seen.add(((int) args[0] == 0 ? "empty array " : "array ") + args[1]);
                    inArray = true;
                }
                case "endArray" -> inArray = false;
                case "beginRow" -> containers = 0;
                case "beginList", "beginMap" -> containers++;
                case "endList", "endMap" -> containers--;
                case "writeVector" -> seen.add("vector " + args[0]);
                default -> { }
            }
            if (open && errorAfter != null && (errorAfter.isEmpty() || errorAfter.equals(name)) && --errorIn == 0) {
                errorDue = true;
            }
            return null;
        }

        /** What {@code method} threw on {@code w}, or null; errors (a failed assertion in a target) pass. */
        private static Throwable attempt(GraphWriter w, Method method, Object[] args) {
            try {
                method.invoke(w, args);
                return null;
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof Error error) {
                    throw error;
                }
                return e.getCause();
            } catch (IllegalAccessException e) {
                throw new AssertionError(e);
            }
        }

        /** Compares the outputs; {@code completed}: finish() was called, the streams must be identical. */
        void compare(boolean completed) {
            byte[] e = expected.bytes.toByteArray(), a = actual.bytes.toByteArray();
            if (completed) {
                if (!Arrays.equals(e, a)) {
                    fail(difference(e, a));
                }
                assertTrue(actual.complete(), () -> actual.who + (format == Format.JSON
                        ? ": finish() did not close the top-level array"
                        : ": the stream does not end with a closing record"));
            } else {
                int common = Math.min(e.length, a.length);
                assertArrayEquals(Arrays.copyOf(e, common), Arrays.copyOf(a, common),
                        () -> "aborted: " + difference(e, a));
            }
            assertEquals(expected.flushes, actual.flushes, () -> actual.who + ": flushes the target "
                    + actual.flushes + " times, the reference " + expected.flushes);
            assertFalse(actual.closed, () -> actual.who + ": closed the target");
            if (expected.writesBeforeFinish > 0) {
                seen.add("a write before finish");
            }
            if (expected.largestWrite > 2 * Wire.KRYO_BUFFER) {
                seen.add("a write above 128 KiB");
            }
        }

        private String difference(byte[] e, byte[] a) {
            int at = Arrays.mismatch(e, a);
            int from = Math.max(0, at - 40);
            return seed + ": the outputs differ first at offset " + at + " (the reference wrote " + e.length
                    + " bytes, the writer under test " + a.length + ")\n  reference:  "
                    + context(e, from, at) + "\n  under test: " + context(a, from, at);
        }

        /** The bytes from {@code from} to 40 after {@code at} (at most the length), {@code at} marked. */
        private String context(byte[] b, int from, int at) {
            int to = Math.min(b.length, at + 40);
            return show(b, from, at) + "⟪here⟫" + show(b, at, to);
        }

        /** JSON as its text; BSON as hex bytes. */
        private String show(byte[] b, int from, int to) {
            if (format == Format.JSON) {
                return new String(b, from, to - from, StandardCharsets.UTF_8);
            }
            return HexFormat.ofDelimiter(" ").formatHex(b, from, to) + " ";
        }
    }

    /**
     * A writer's target: keeps the bytes and checks each write as it comes. Writes before finish() must be at least
     * {@link Wire#KRYO_BUFFER} bytes, none may follow the closing record, flush() must come only in finish(). Each
     * write must end right after a record. JSON: it tracks the nesting depth outside strings across writes, which
     * after each write must be 1 (inside the top-level array) right after a '}' (a record's end), or 0 right after
     * the closing ']'. BSON: it follows the documents by their int32 lengths across writes; a write must end where
     * one ends, and none may start after the closing record's.
     */
    private static final class Target extends OutputStream {
        final String who;
        private final boolean json;
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        /** JSON: nesting depth outside strings. */
        int depth;
        private boolean inString, escaped;
        /** BSON: bytes of the current document still to come; whether the closing record has started. */
        private long documentLeft;
        private boolean closingRecord;
        boolean finishing;
        int flushes;
        boolean closed;
        int largestWrite, writesBeforeFinish;

        Target(Format format, String who) {
            this.json = format == Format.JSON;
            this.who = who;
        }

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            if (len == 0) {
                return;
            }
            assertTrue(json ? depth > 0 || bytes.size() == 0 : !closingRecord || documentLeft > 0,
                    () -> who + ": wrote " + len + " bytes after the closing " + (json ? "]" : "record"));
            assertTrue(finishing || len >= Wire.KRYO_BUFFER, () -> who + ": wrote " + len
                    + " bytes before finish(), fewer than the " + Wire.KRYO_BUFFER + " a writer collects first");
            boolean atRecordEnd = json ? json(b, off, len) : bson(b, off, len);
            bytes.write(b, off, len);
            largestWrite = Math.max(largestWrite, len);
            if (!finishing) {
                writesBeforeFinish++;
            }
            assertTrue(atRecordEnd, () -> who + ": a write (" + len
                    + " bytes) that does not end right after a record; the stream ends with " + tail());
        }

        /** Follows the JSON nesting; true if the write ends right after a record or the closing bracket. */
        private boolean json(byte[] b, int off, int len) {
            for (int i = off; i < off + len; i++) {
                byte c = b[i];
                if (inString) {
                    if (escaped) {
                        escaped = false;
                    } else if (c == '\\') {
                        escaped = true;
                    } else if (c == '"') {
                        inString = false;
                    }
                } else if (c == '"') {
                    inString = true;
                } else if (c == '[' || c == '{') {
                    depth++;
                } else if (c == ']' || c == '}') {
                    depth--;
                }
            }
            byte lastByte = b[off + len - 1];
            return !inString && (depth == 1 && lastByte == '}' || depth == 0 && lastByte == ']');
        }

        /**
         * Follows the BSON documents by their lengths; true if the write ends where one ends. A document's length
         * and its {@code record} element are expected within the write that starts it (else it is not whole).
         */
        private boolean bson(byte[] b, int off, int len) {
            int i = off;
            int end = off + len;
            while (i < end) {
                if (documentLeft == 0) {
                    assertFalse(closingRecord, () -> who + ": a document after the closing record");
                    assertTrue(end - i >= 4, () -> who + ": a write that splits a document's length");
                    int length = le(b, i);
                    assertTrue(length >= 5, () -> who + ": a document of length " + length);
                    String kind = recordKind(b, i, end);
                    closingRecord = Wire.Json.R_END.equals(kind) || Wire.Json.R_ERROR.equals(kind);
                    documentLeft = length;
                }
                int step = (int) Math.min(documentLeft, end - i);
                i += step;
                documentLeft -= step;
            }
            return documentLeft == 0 && b[end - 1] == 0;
        }

        /** The value of a document's first element if it is the string {@code record} and lies in the write. */
        private static String recordKind(byte[] b, int at, int end) {
            byte[] name = (Wire.Json.RECORD + "\0").getBytes(StandardCharsets.US_ASCII);
            int p = at + 5 + name.length;
            if (p + 4 > end || b[at + 4] != 0x02
                    || !Arrays.equals(b, at + 5, p, name, 0, name.length)) {
                return null;
            }
            int length = le(b, p);
            return length < 1 || p + 4 + length > end ? null
                    : new String(b, p + 4, length - 1, StandardCharsets.UTF_8);
        }

        private static int le(byte[] b, int at) {
            return b[at] & 0xFF | (b[at + 1] & 0xFF) << 8 | (b[at + 2] & 0xFF) << 16 | (b[at + 3] & 0xFF) << 24;
        }

        /** Finished as the format wants: JSON, the top-level array closed; BSON, a closing record written whole. */
        boolean complete() {
            return json ? depth == 0 : closingRecord && documentLeft == 0;
        }

        /** The last 80 bytes: JSON as text, BSON as hex. */
        private String tail() {
            byte[] all = bytes.toByteArray();
            int from = Math.max(0, all.length - 80);
            if (json) {
                return new String(all, from, all.length - from, StandardCharsets.UTF_8);
            }
            return HexFormat.ofDelimiter(" ").formatHex(all, from, all.length);
        }

        @Override
        public void flush() {
            assertTrue(finishing, () -> who + ": flushed the target outside finish()");
            flushes++;
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
