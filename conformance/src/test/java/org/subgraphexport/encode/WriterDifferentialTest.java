package org.subgraphexport.encode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import de.undercouch.bson4jackson.BsonFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.Array;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.ValueSink.ArrayKind;
import org.subgraphexport.wire.ValueSink.VectorKind;
import org.subgraphexport.wire.Wire;

/**
 * The {@code json} and {@code bson} writers ({@link Encoders#open}) against stock libraries used as documented:
 * Jackson's {@link ObjectMapper} and bson4jackson's, writing and reading plain Java values. Seeded random scripts
 * make {@link GraphWriter} calls: graph and rows streams with odd header strings and element-id prefixes, token
 * names and map keys (quotes, backslashes, control characters, U+0000, non-ASCII, supplementary characters, unpaired
 * surrogates), every scalar with edge values (NaN, infinities, -0.0, subnormals, long extremes, years beyond 4
 * digits, odd zones and offsets, strings as valid and malformed UTF-8 bytes), every array kind (also empty) and
 * vector kind, values above 64 and 128 KiB, row values (null, lists, maps, references, paths) nested up to
 * {@link Wire#MAX_NESTING} levels; {@code error()} after any call (mid-record, in arrays and nested lists) or after
 * a call the writer rejected; {@code abort()} between records.
 *
 * <p>As a script makes its calls it builds the <em>expected</em> records, plain maps, lists, strings, numbers and
 * byte arrays as docs/wire-format.md §4 specifies them; a record joins them once its last call returned, so an
 * error record takes the place of an unfinished one. The writer's bytes must then equal, byte for byte, what
 * {@code new ObjectMapper().writeValueAsBytes(records)} writes (JSON), or the records each written by {@code new
 * ObjectMapper(new BsonFactory())}, concatenated (BSON). In every fourth script the same library must also read
 * them back as the expected records (with the bytes equal, that checks the model more than the writer). Every
 * write to the target must end where a record ends and, before {@code finish()}, be at least
 * {@link Wire#HAND_OVER_BYTES} bytes; the target is flushed once, in {@code finish()}, and never closed. Over all
 * scripts every value type, array and vector kind, and error position must have come up.
 *
 * <p>Where the format is not what the libraries write by default, the rule is in the expected model, citing the
 * document: unpaired surrogates as {@code ?} ({@link #wellFormed}), U+0000 in BSON element names as U+FFFD
 * ({@link Script#mapKey}), token names written as Jackson writes a pre-encoded string ({@link Token}); and one rule
 * the document does not state, element-id prefixes in JSON ({@link Script#nodeId}).
 */
class WriterDifferentialTest {
    /** Scripts per format: as many as the call-by-call comparison with the old reference writers ran. */
    private static final int SCRIPTS = 500;
    private static final ObjectMapper JSON = new ObjectMapper().registerModule(tokenNames());
    private static final ObjectMapper BSON = new ObjectMapper(new BsonFactory()).registerModule(tokenNames());

    @ParameterizedTest
    @EnumSource(value = Format.class, names = {"JSON", "BSON"})
    void randomScriptsWriteExactlyWhatTheStockLibrariesWrite(Format format) {
        Set<String> seen = new TreeSet<>();
        for (long seed = 1; seed <= SCRIPTS; seed++) {
            Script script = new Script(format, seed, seen);
            try {
                script.run();
            } catch (RuntimeException | IOException | AssertionError e) {
                throw new AssertionError(format + " script " + seed + " failed; its last calls: " + script.trace, e);
            }
        }
        Set<String> missing = new TreeSet<>();
        for (String type : ("null Boolean Byte Short Integer Long Float Double Character String Utf8 byte[] Point "
                + "Duration LocalDate LocalTime OffsetTime LocalDateTime ZonedDateTime UUID Vector TypedArray "
                + "ArrayList LinkedHashMap NodeRef RelRef PathIds").split(" ")) {
            missing.add("value " + type);
        }
        for (String after : ("header,columns,endNode,endRelationship,endRow,property,beginArray,beginList,beginMap,"
                + "mapKey,a call that threw,an element of a typed array,a value in a nested list or map").split(",")) {
            missing.add("error after " + after);
        }
        Arrays.stream(ArrayKind.values()).forEach(k -> missing.addAll(List.of("array " + k, "empty array " + k)));
        Arrays.stream(VectorKind.values()).forEach(k -> missing.add("vector " + k));
        missing.addAll(List.of("nesting " + Wire.MAX_NESTING, "misuse", "abort", "read back", "a write before finish",
                "a write above 128 KiB"));
        missing.removeAll(seen);
        assertTrue(missing.isEmpty(), "the scripts never exercised " + missing);
    }

    // ---- the expected model -------------------------------------------------------------------------------------

    /**
     * A label, relationship type or property key. docs/wire-format.md §4.1: these have the escapes of any string
     * except that a character beyond U+FFFF is its 4-byte UTF-8 sequence, not a pair of escapes: what Jackson
     * writes for a pre-encoded {@link SerializedString} (its {@code JsonStringEncoder}). bson4jackson writes a
     * {@link SerializedString} as its plain value.
     */
    private record Token(String name) {}

    private static SimpleModule tokenNames() {
        return new SimpleModule()
                .addSerializer(Token.class, new JsonSerializer<>() {
                    @Override
                    public void serialize(Token t, JsonGenerator g, SerializerProvider p) throws IOException {
                        g.writeString(new SerializedString(t.name()));
                    }
                })
                .addKeySerializer(Token.class, new JsonSerializer<>() {
                    @Override
                    public void serialize(Token t, JsonGenerator g, SerializerProvider p) throws IOException {
                        g.writeFieldName(new SerializedString(t.name()));
                    }
                });
    }

    /** docs/wire-format.md §1 and §4.1: each unpaired surrogate becomes '?', as Java's UTF-8 encoder makes it. */
    static String wellFormed(String s) {
        return s.chars().noneMatch(c -> Character.isSurrogate((char) c)) ? s
                : new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
    }

    /**
     * The expected records as the library reads them back: token names as strings; JSON: a {@code float} as the
     * double its {@link Float#toString} text reads as (docs/wire-format.md §4.1), an integer that fits an int as an
     * {@code Integer} (as Jackson reads untyped numbers), bytes as base64 text; BSON: a {@code float} as the double
     * of its exact value (§4.1), bytes as hex, to compare them by value.
     */
    static Object asRead(Object v, boolean json) {
        return switch (v) {
            case Token t -> t.name();
            case Float f -> json ? Double.parseDouble(f.toString()) : (double) f;
            case Long l when json && l == l.intValue() -> l.intValue();
            case byte[] b -> json ? Base64.getEncoder().encodeToString(b) : HexFormat.of().formatHex(b);
            case List<?> l -> l.stream().map(e -> asRead(e, json)).toList();
            case Map<?, ?> m -> {
                Map<Object, Object> copy = new LinkedHashMap<>();
                m.forEach((key, value) -> copy.put(asRead(key, json), asRead(value, json)));
                yield copy;
            }
            case null, default -> v;
        };
    }

    // ---- values as the scripts make them, the target, the script ------------------------------------------------

    private record Utf8(byte[] bytes, int offset, int length) {}
    private record Point(int srid, double[] coordinates) {}
    private record Duration(long months, long days, long seconds, int nanos) {}
    private record Vector(VectorKind kind, Object values) {}
    private record TypedArray(ArrayKind kind, Object[] elements) {}
    private record NodeRef(long id) {}
    private record RelRef(long id) {}
    private record PathIds(long[] nodes, long[] relationships) {}

    /** An error() came in place of a call, or after a rejected one: only finish() may follow. */
    private static final class Stopped extends RuntimeException {
        Stopped() {
            super(null, null, false, false);
        }
    }

    /** One write to the target: the stream offset it ended at, its length, whether finish() made it. */
    private record Write(int end, int length, boolean inFinish) {}

    /** A writer's target: keeps the bytes, each write, and the flushes. */
    private static final class Target extends OutputStream {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final List<Write> writes = new ArrayList<>();
        boolean finishing, closed, flushedOutsideFinish;
        int flushes;

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            if (len > 0) {
                bytes.write(b, off, len);
                writes.add(new Write(bytes.size(), len, finishing));
            }
        }

        @Override
        public void flush() {
            flushes++;
            flushedOutsideFinish |= !finishing;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /**
     * One seeded random script. Its calls go through {@link #w}, a proxy of the writer under test that keeps the
     * last calls, notes what each error() follows, and replaces a call by an injected error().
     */
    private static final class Script implements InvocationHandler {
        private static final String[] ZONES = {"Europe/Berlin", "America/New_York", "Asia/Kolkata",
            "Australia/Lord_Howe", "Pacific/Chatham", "America/St_Johns", "UTC", "GMT", "Etc/GMT+12", "Z"};
        private static final long[] LONGS = {0, 1, -1, 9, 10, 99, 100, Integer.MAX_VALUE, Integer.MIN_VALUE,
            Integer.MAX_VALUE + 1L, 999_999_999_999_999_999L, 1_000_000_000_000_000_000L, Long.MAX_VALUE,
            Long.MIN_VALUE, Long.MIN_VALUE + 1};
        private static final Float[] FLOATS = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 0f, -0f,
            Float.MIN_VALUE, -Float.MIN_VALUE, Float.MIN_NORMAL, Float.MAX_VALUE, -Float.MAX_VALUE, 1f, -1f, 0.1f,
            1e7f, 9_999_999f, 1e-3f, 9.999e-4f, 1e20f, 16_777_217f, 7.038531E-26f, Float.intBitsToFloat(0xFFC00001)};
        private static final Double[] DOUBLES = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0.0,
            -0.0, Double.MIN_VALUE, -Double.MIN_VALUE, Double.MIN_NORMAL, Double.MAX_VALUE, -Double.MAX_VALUE, 1.0,
            -1.0, 0.1, 0.30000000000000004, 1e7, 9_999_999.0, 1e-3, 9.999e-4, 1e20, 1e21, 1e22, 1e23, 0x1p53,
            123456789012345680.0, Double.longBitsToDouble(0xFFF8000000000001L)};
        /** Malformed UTF-8: lone continuation bytes, truncated and overlong sequences, surrogates, above U+10FFFF. */
        private static final byte[][] MALFORMED = {{(byte) 0x80}, {(byte) 0xBF}, {(byte) 0xC3},
            {(byte) 0xE2, (byte) 0x82}, {(byte) 0xF0, (byte) 0x9F, (byte) 0x98}, {(byte) 0xC0, (byte) 0xAF},
            {(byte) 0xE0, (byte) 0x80, (byte) 0xAF}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
            {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, {(byte) 0xFE}, {(byte) 0xFF}};
        /** Calls after which an error() may be injected ("": any call); the rows-only ones in rows streams. */
        private static final String[] ERROR_AFTER = {"", "", "", "", "header", "property", "beginArray", "endNode",
            "endRelationship", "columns", "beginList", "beginMap", "mapKey", "endRow"};
        private static final Set<String> ROWS_ONLY = Set.of("columns", "beginList", "beginMap", "mapKey", "endRow");
        private static final Set<String> NOT_REPLACED_BY_ERROR = Set.of("header", "error", "finish", "abort");

        private final Format format;
        private final boolean bson;
        private final long seed;
        private final Random r;
        private final Set<String> seen;
        private final Target target = new Target();
        private final GraphWriter real;
        private final GraphWriter w = (GraphWriter) Proxy.newProxyInstance(GraphWriter.class.getClassLoader(),
                new Class<?>[] {GraphWriter.class}, this);
        /** big: few records with large values (strings and byte arrays above 64 and 128 KiB). */
        private final boolean big, misuse, rows;
        private final String[] labels, types, keys;
        private String nodePrefix, relPrefix;
        /** The expected records: the complete ones. */
        private final List<Map<String, Object>> records = new ArrayList<>();
        private int columns;
        private long nodes, relationships, rowCount;
        // the proxy's state
        final ArrayDeque<String> trace = new ArrayDeque<>();
        private final String errorAfter, injectedCode, injectedMessage;
        private int errorIn, containers;
        private boolean errorDue, open, inArray;
        private String last = "";

        Script(Format format, long seed, Set<String> seen) {
            this.format = format;
            this.bson = format == Format.BSON;
            this.seed = seed;
            this.r = new Random(seed * 0x9E3779B97F4A7C15L);  // consecutive seeds start alike otherwise
            this.seen = seen;
            this.real = Encoders.open(format, target);
            this.big = r.nextInt(8) == 0;
            int plan = r.nextInt(8);
            this.misuse = plan < 2;
            this.errorAfter = plan >= 2 && plan < 6 ? pick(ERROR_AFTER) : null;
            this.errorIn = errorAfter == null ? 0 : 1 + r.nextInt(errorAfter.isEmpty() ? big ? 60 : 400 : 4);
            this.injectedCode = code();
            this.injectedMessage = message();
            this.rows = errorAfter != null && ROWS_ONLY.contains(errorAfter) || r.nextBoolean();
            // sizes beyond the writers' first table sizes, so their caches grow
            this.labels = names("Label", 1 + r.nextInt(r.nextBoolean() ? 8 : 400));
            this.types = names("TYPE_", 1 + r.nextInt(r.nextBoolean() ? 4 : 300));
            this.keys = names("key", 1 + r.nextInt(r.nextBoolean() ? 12 : 400));
        }

        void run() throws IOException {
            try {
                String uuid = new UUID(r.nextLong(), r.nextLong()).toString();
                nodePrefix = prefix("4:" + uuid + ":");
                relPrefix = prefix("5:" + uuid + ":");
                String database = r.nextBoolean() ? "neo4j" : r.nextBoolean() ? "" : text(1 + r.nextInt(20));
                String root = r.nextBoolean() ? text(r.nextInt(20)) : nodePrefix + id();
                String state = r.nextBoolean() ? uuid + ":" + r.nextInt(1 << 20) : text(r.nextInt(20));
                int partitions = r.nextBoolean() ? 1 : 1 + r.nextInt(r.nextBoolean() ? 8 : Integer.MAX_VALUE);
                int partition = r.nextInt(partitions);
                w.header(new Header(database, root, nodePrefix, relPrefix, state, partition, partitions),
                        FixtureStream.tokens(labels, types, keys));
                records.add(record("header", "version", 2, "database", wellFormed(database), "root", wellFormed(root),
                        "state", wellFormed(state), "partition", partition, "partitions", partitions));
                if (rows) {
                    String[] names = new String[r.nextInt(5)];
                    Arrays.setAll(names, i -> name());
                    w.columns(names);
                    columns = names.length;
                    records.add(record("columns", "names", Arrays.stream(names).map(n -> wellFormed(n)).toList()));
                }
                int count = r.nextInt(big ? 12 : 60);
                int misuseAt = misuse ? r.nextInt(count + 1) : -1;
                int abortAt = r.nextInt(25) == 0 ? r.nextInt(count + 1) : -1;
                for (int i = 0; i <= count; i++) {
                    if (i == abortAt) {
                        seen.add("abort");
                        w.abort();  // the target failed: nothing more is written
                        check(false);
                        return;
                    }
                    if (i == misuseAt) {
                        misuse();
                    }
                    if (i < count && rows && r.nextInt(3) == 0) {
                        row();
                    } else if (i < count) {
                        nodeOrRelationship(r.nextInt(11));
                    }
                }
                if (r.nextInt(4) == 0) {
                    error(code(), message());
                } else {
                    long n = r.nextInt(5) == 0 ? longValue() : nodes;
                    long rels = r.nextInt(5) == 0 ? longValue() : relationships;
                    boolean truncated = r.nextBoolean();
                    String endState = r.nextBoolean() ? text(r.nextInt(30)) : "";
                    w.end(n, rels, truncated, endState);
                    Map<String, Object> end = record("end", "nodes", n, "relationships", rels, "truncated", truncated);
                    if (rows) {
                        end.put("rows", rowCount);
                    }
                    end.put("state", wellFormed(endState));
                    records.add(end);
                }
            } catch (Stopped stopped) {
                // only finish() follows
            }
            w.finish();
            switch (r.nextInt(10)) {
                case 0 -> w.finish();
                case 1 -> w.abort();
                default -> { }
            }
            check(true);
        }

        private void nodeOrRelationship(int properties) throws IOException {
            Map<Object, Object> expected = new LinkedHashMap<>();
            boolean node = r.nextBoolean();
            Map<String, Object> record;
            if (node) {
                long id = id();
                int count = r.nextInt(4);
                int[] labelIds = new int[count + r.nextInt(3)];
                Arrays.fill(labelIds, -1);  // beyond labelCount: never read
                List<Object> names = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    labelIds[i] = r.nextInt(labels.length);
                    names.add(new Token(wellFormed(labels[labelIds[i]])));
                }
                w.beginNode(id, labelIds, count);
                record = record("node", "id", nodeId(id), "labels", names, "properties", expected);
            } else {
                long id = id(), start = id(), end = id();
                int type = r.nextInt(types.length);
                w.beginRelationship(id, type, start, end);
                record = record("relationship", "id", relId(id), "type", new Token(wellFormed(types[type])),
                        "start", nodeId(start), "end", nodeId(end), "properties", expected);
            }
            for (int key : r.ints(0, keys.length).distinct().limit(Math.min(properties, keys.length)).toArray()) {
                w.property(key);
                expected.put(new Token(mapKey(keys[key])), put(value(), false));
            }
            if (node) {
                w.endNode();
                nodes++;
            } else {
                w.endRelationship();
                relationships++;
            }
            records.add(record);
        }

        private void row() throws IOException {
            List<Object> expected = new ArrayList<>();
            w.beginRow();
            for (int i = 0; i < columns; i++) {
                expected.add(put(rowValue(1), false));
            }
            w.endRow();
            rowCount++;
            records.add(record("row", "values", expected));
        }

        private void error(String code, String message) throws IOException {
            w.error(code, message);
            String text = message == null ? "" : message;
            records.add(record("error", "code", wellFormed(code), "message", wellFormed(text)));
        }

        /** At a value's place, a call the writer must reject (throwing, writing nothing); then error(). */
        private void misuse() throws IOException {
            seen.add("misuse");
            if (rows && columns > 0 && r.nextBoolean()) {
                w.beginRow();
                if (r.nextBoolean()) {
                    w.beginList(2);
                    put(rowValue(2), false);
                }
            } else {
                w.beginNode(id(), new int[0], 0);
                w.property(r.nextInt(keys.length));
            }
            long[] two = {id(), id()};
            RuntimeException e = assertThrows(RuntimeException.class, switch (r.nextInt(5)) {
                case 0 -> () -> put(new TypedArray(ArrayKind.INT, new Object[] {1, 2L}), false);  // a wrong element
                case 1 -> () -> put(new TypedArray(ArrayKind.LONG, new Object[] {new byte[1]}), false);  // bytes
                case 2 -> () -> w.writePath(two, two);  // a path has one node more than relationships
                case 3 -> () -> w.writePoint(7203, new double[4]);
                default -> () -> w.end(nodes, relationships, false);  // inside a record
            });
            assertTrue(e instanceof IllegalStateException || e instanceof IllegalArgumentException, e::toString);
            error(code(), message());
            throw new Stopped();
        }

        private static Map<String, Object> record(String kind, Object... fields) {
            Map<String, Object> record = fields("record", kind);
            record.putAll(fields(fields));
            return record;
        }

        /** An object's fields in order: name, value, name, value, ... */
        private static Map<String, Object> fields(Object... namesAndValues) {
            Map<String, Object> fields = new LinkedHashMap<>();
            for (int i = 0; i < namesAndValues.length; i += 2) {
                fields.put((String) namesAndValues[i], namesAndValues[i + 1]);
            }
            return fields;
        }

        // ---- each value: its calls, and what docs/wire-format.md §4.2 says it is ---------------------------------

        /** Makes {@code v}'s calls; returns it as the records hold it ({@code element}: in a typed array, untagged). */
        private Object put(Object v, boolean element) throws IOException {
            seen.add("value " + (v == null ? "null" : v.getClass().getSimpleName()));
            switch (v) {
                case null -> w.writeNull();
                case Boolean b -> w.writeBoolean(b);
                case Byte b -> w.writeByte(b);
                case Short s -> w.writeShort(s);
                case Integer i -> w.writeInt(i);
                case Long l -> w.writeLong(l);
                case Float f -> w.writeFloat(f);
                case Double d -> w.writeDouble(d);
                case Character c -> w.writeChar(c);
                case String s -> w.writeString(s);
                case Utf8 u -> w.writeUtf8(u.bytes(), u.offset(), u.length());
                case byte[] b -> w.writeBytes(b);
                case Point p -> w.writePoint(p.srid(), p.coordinates());
                case Duration d -> w.writeDuration(d.months(), d.days(), d.seconds(), d.nanos());
                case LocalDate d -> w.writeDate(d);
                case LocalTime t -> w.writeLocalTime(t);
                case OffsetTime t -> w.writeTime(t);
                case LocalDateTime t -> w.writeLocalDateTime(t);
                case ZonedDateTime t -> w.writeDateTime(t);
                case UUID u -> w.writeUuid(u.getMostSignificantBits(), u.getLeastSignificantBits());
                case Vector x -> {
                    seen.add("vector " + x.kind());
                    w.writeVector(x.kind(), x.values());
                }
                case NodeRef n -> w.writeNodeRef(n.id());
                case RelRef x -> w.writeRelationshipRef(x.id());
                case PathIds p -> w.writePath(p.nodes(), p.relationships());
                case TypedArray a -> {
                    seen.add((a.elements().length == 0 ? "empty array " : "array ") + a.kind());
                    w.beginArray(a.elements().length, a.kind());
                    List<Object> elements = new ArrayList<>();
                    for (Object e : a.elements()) {
                        elements.add(put(e, true));
                    }
                    w.endArray();
                    return tag(a.kind().name().toLowerCase(Locale.ROOT).replace("_", "") + "[]", elements);
                }
                case List<?> l -> {
                    w.beginList(l.size());
                    List<Object> elements = new ArrayList<>();
                    for (Object e : l) {
                        elements.add(put(e, false));
                    }
                    w.endList();
                    return elements;
                }
                case Map<?, ?> m -> {
                    w.beginMap(m.size());
                    Map<String, Object> entries = new LinkedHashMap<>();
                    for (Map.Entry<?, ?> e : m.entrySet()) {
                        w.mapKey((String) e.getKey());
                        entries.put(mapKey((String) e.getKey()), put(e.getValue(), false));
                    }
                    w.endMap();
                    return tag("map", entries);
                }
                default -> throw new IllegalArgumentException(v.getClass().getName());
            }
            return switch (v) {
                case null -> null;
                case Byte b -> tag("byte", (int) b);
                case Short s -> tagged("short", (int) s, element);
                case Integer i -> tagged("int", i, element);
                case Float f -> tagged("float", number(f), element);
                case Double d -> Double.isFinite(d) ? d : tagged("double", number(d), element);
                case Character c -> tagged("char", wellFormed(c.toString()), element);
                case String s -> wellFormed(s);
                case Utf8 u -> new String(u.bytes(), u.offset(), u.length(), StandardCharsets.UTF_8);  // bad: U+FFFD
                case byte[] b -> tag("bytes", b);
                case Point p -> tagged("point", fields("srid", p.srid(),
                        "coordinates", Arrays.stream(p.coordinates()).mapToObj(Script::number).toList()), element);
                case Duration d -> tagged("duration", List.of(d.months(), d.days(), d.seconds(), d.nanos()), element);
                case LocalDate d -> tagged("date", DateTimeFormatter.ISO_LOCAL_DATE.format(d), element);
                case LocalTime t -> tagged("localtime", DateTimeFormatter.ISO_LOCAL_TIME.format(t), element);
                case OffsetTime t -> tagged("time", DateTimeFormatter.ISO_OFFSET_TIME.format(t), element);
                case LocalDateTime t -> tagged("localdatetime", DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(t),
                        element);
                case ZonedDateTime t -> tagged("datetime", DateTimeFormatter.ISO_ZONED_DATE_TIME.format(t), element);
                case UUID u -> tagged("uuid", u.toString(), element);
                case Vector x -> {
                    List<Object> values = new ArrayList<>();
                    for (int i = 0; i < Array.getLength(x.values()); i++) {
                        values.add(switch (Array.get(x.values(), i)) {  // INT8 and INT16 are int32 in BSON
                            case Byte b -> (int) b;
                            case Short s -> (int) s;
                            case Float f -> number(f);
                            case Double d -> number(d);
                            case Object other -> other;
                        });
                    }
                    yield tag("vector", fields("kind", x.kind().name(), "values", values));
                }
                case NodeRef n -> tag("node", nodeId(n.id()));
                case RelRef x -> tag("relationship", relId(x.id()));
                case PathIds p -> tag("path", fields("nodes", Arrays.stream(p.nodes()).mapToObj(this::nodeId).toList(),
                        "relationships", Arrays.stream(p.relationships()).mapToObj(this::relId).toList()));
                default -> v;  // Boolean, Long
            };
        }

        private static Map<String, Object> tag(String tag, Object payload) {
            return Map.of(tag, payload);
        }

        /** A typed array's element is its tag's payload; any other value is tagged. */
        private static Object tagged(String tag, Object payload, boolean element) {
            return element ? payload : tag(tag, payload);
        }

        /** docs/wire-format.md §4.2: a finite float or double is a number, NaN and the infinities are strings. */
        private static Object number(float f) {
            return Float.isFinite(f) ? (Object) f : number((double) f);
        }

        private static Object number(double d) {
            return Double.isFinite(d) ? (Object) d : Double.isNaN(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity";
        }

        /** A property or map key; BSON (docs/wire-format.md §4.1, §4.2): an element name, with U+0000 as U+FFFD. */
        private String mapKey(String key) {
            return bson ? wellFormed(key).replace('\u0000', '\uFFFD') : wellFormed(key);
        }

        /**
         * An element id: prefix and decimal id. In BSON the prefix is a string like any other (unpaired surrogates
         * as '?'); the JSON writer writes it as it is, an unpaired surrogate escaped, not replaced (see {@code
         * JsonGraphWriter#header}): docs/wire-format.md §1 and §4.1 say '?' for every string in every format.
         */
        private String nodeId(long id) {
            return (bson ? wellFormed(nodePrefix) : nodePrefix) + id;
        }

        private String relId(long id) {
            return (bson ? wellFormed(relPrefix) : relPrefix) + id;
        }

        // ---- random values ----------------------------------------------------------------------------------------

        private <T> T pick(T[] choices) {
            return choices[r.nextInt(choices.length)];
        }

        /** A property value: a scalar of any array kind, a byte, a byte array, a vector or a typed array. */
        private Object value() {
            return switch (r.nextInt(12)) {
                case 0 -> (byte) r.nextInt();
                case 1 -> bytes();
                case 2 -> vector();
                case 3, 4, 5 -> typedArray(pick(ArrayKind.values()));
                default -> scalar(pick(ArrayKind.values()));
            };
        }

        /** A row value at nesting {@code level} (1: a column): any value, nested or not, or as deep as allowed. */
        private Object rowValue(int level) {
            if (level == 1 && r.nextInt(60) == 0) {
                seen.add("nesting " + Wire.MAX_NESTING);
                Object v = value();
                for (int i = 0; i < Wire.MAX_NESTING; i++) {
                    v = r.nextBoolean() ? new ArrayList<>(List.of(v)) : new LinkedHashMap<>(Map.of(name(), v));
                }
                return v;
            }
            return switch (r.nextInt(level < 4 ? 14 : 10)) {
                case 0 -> null;
                case 1 -> new NodeRef(id());
                case 2 -> new RelRef(id());
                case 3 -> {
                    int length = r.nextInt(4);
                    yield new PathIds(ids(length + 1), ids(length));
                }
                case 4, 5, 6, 7, 8, 9 -> value();
                case 10, 11 -> {
                    List<Object> list = new ArrayList<>();
                    for (int i = r.nextInt(5); i > 0; i--) {
                        list.add(rowValue(level + 1));
                    }
                    yield list;
                }
                default -> {  // keys unique also as written (unpaired surrogates '?', in BSON no U+0000)
                    Map<String, Object> map = new LinkedHashMap<>();
                    Set<String> written = new HashSet<>();
                    for (int i = r.nextInt(5); i > 0; i--) {
                        String key = name();
                        if (written.add(wellFormed(key).replace('\u0000', '\uFFFD'))) {
                            map.put(key, rowValue(level + 1));
                        }
                    }
                    yield map;
                }
            };
        }

        private TypedArray typedArray(ArrayKind kind) {
            Object[] elements = new Object[r.nextInt(4) == 0 ? 0 : 1 + r.nextInt(big ? 40 : 6)];
            Arrays.setAll(elements, i -> scalar(kind));
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
                case FLOAT -> switch (r.nextInt(6)) {
                    case 0 -> pick(FLOATS);
                    case 1 -> Float.intBitsToFloat(r.nextInt(0x80_0000) | (r.nextBoolean() ? 0x8000_0000 : 0));  // tiny
                    case 2 -> (float) (r.nextInt(2_000_001) - 1_000_000);
                    case 3 -> (r.nextInt(200_001) - 100_000) / 100f;
                    default -> Float.intBitsToFloat(r.nextInt());
                };
                case DOUBLE -> doubleValue();
                case CHAR -> switch (r.nextInt(5)) {
                    case 0 -> (char) r.nextInt(0x20);
                    case 1 -> "\"\\/\u007f\u2028\u2029\ufeff\uffff".charAt(r.nextInt(8));
                    case 2 -> (char) (0xD800 + r.nextInt(0x800));  // a surrogate, alone
                    case 3 -> (char) r.nextInt(0x10000);
                    default -> (char) (0x20 + r.nextInt(0x5F));
                };
                case STRING -> r.nextInt(3) == 0 ? utf8() : big && r.nextInt(3) == 0 ? huge()
                        : text(r.nextInt(new int[] {3, 20, 20, 300}[r.nextInt(4)]));
                case POINT -> new Point(new int[] {7203, 9157, 4326, 4979, r.nextInt()}[r.nextInt(5)],
                        r.doubles(r.nextBoolean() ? 2 : 3).map(x -> doubleValue()).toArray());
                case DATE -> date();
                case LOCAL_TIME -> time();
                case TIME -> OffsetTime.of(time(), offset());
                case LOCAL_DATE_TIME -> LocalDateTime.of(date(), time());
                case DATE_TIME -> ZonedDateTime.of(LocalDateTime.of(date(), time()), r.nextBoolean() ? offset()
                        : r.nextInt(4) == 0 ? ZoneId.ofOffset("UTC", offset()) : ZoneId.of(pick(ZONES)));
                case DURATION -> new Duration(longValue(), longValue(), longValue(),
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

        private double doubleValue() {
            return switch (r.nextInt(7)) {
                case 0 -> pick(DOUBLES);
                case 1 -> Double.longBitsToDouble(r.nextLong() & 0x800F_FFFF_FFFF_FFFFL);  // tiny
                case 2 -> r.nextInt(2_000_001) - 1_000_000;
                case 3 -> (r.nextInt(200_001) - 100_000) / 100.0;
                case 4 -> r.nextGaussian() * Math.pow(10, r.nextInt(600) - 300);
                default -> Double.longBitsToDouble(r.nextLong());
            };
        }

        private long id() {
            return r.nextBoolean() ? r.nextInt(1000) : longValue();
        }

        private long[] ids(int n) {
            return r.longs(n).map(x -> id()).toArray();
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

        /** Minutes only, whole seconds, milli-, micro- and nanoseconds, the extremes. */
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

        /** UTC, whole hours, quarter hours, or any second within ±18 hours. */
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

        /** Elements as the scalars of that width (edge values included); INT8: random bytes. */
        private Vector vector() {
            VectorKind kind = pick(VectorKind.values());
            Map.Entry<Class<?>, ArrayKind> type = switch (kind) {  // the element type, and the scalars to use
                case INT8 -> Map.entry(byte.class, ArrayKind.SHORT);
                case INT16 -> Map.entry(short.class, ArrayKind.SHORT);
                case INT32 -> Map.entry(int.class, ArrayKind.INT);
                case INT64 -> Map.entry(long.class, ArrayKind.LONG);
                case FLOAT32 -> Map.entry(float.class, ArrayKind.FLOAT);
                case FLOAT64 -> Map.entry(double.class, ArrayKind.DOUBLE);
            };
            Object values = Array.newInstance(type.getKey(), r.nextInt(4) == 0 ? 0 : 1 + r.nextInt(big ? 3000 : 8));
            for (int i = 0; i < Array.getLength(values); i++) {
                Object e = scalar(type.getValue());
                Array.set(values, i, kind == VectorKind.INT8 ? (Object) (byte) (short) e : e);
            }
            return new Vector(kind, values);
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

        /** Token names, unique also as written (a property key occurs once per record). */
        private String[] names(String plain, int n) {
            String[] names = new String[n];
            Set<String> written = new HashSet<>();
            for (int i = 0; i < n; i++) {
                names[i] = r.nextInt(4) == 0 ? name() : plain + i;
                while (!written.add(wellFormed(names[i]).replace('\u0000', '\uFFFD'))) {
                    names[i] = plain + i + "_" + written.size();
                }
            }
            return names;
        }

        /** UTF-8 bytes at an offset, random bytes either side: ASCII (with escapes), valid, malformed, random. */
        private Utf8 utf8() {
            ByteArrayOutputStream content = new ByteArrayOutputStream();
            switch (r.nextInt(4)) {
                case 0 -> r.ints(big && r.nextInt(3) == 0 ? 70_000 + r.nextInt(80_000) : r.nextInt(100), 0, 0x80)
                        .forEach(c -> content.write(c < 0x20 && r.nextBoolean() ? c + 0x40 : c));
                case 1 -> content.writeBytes((big && r.nextInt(3) == 0 ? huge() : text(r.nextInt(60)))
                        .getBytes(StandardCharsets.UTF_8));
                case 2 -> {
                    for (int i = r.nextInt(8); i >= 0; i--) {
                        content.writeBytes(text(r.nextInt(6)).getBytes(StandardCharsets.UTF_8));
                        content.writeBytes(pick(MALFORMED));
                    }
                }
                default -> r.ints(r.nextInt(40)).forEach(content::write);
            }
            int offset = 1 + r.nextInt(8);
            byte[] padded = new byte[offset + content.size() + r.nextInt(8)];
            r.nextBytes(padded);
            System.arraycopy(content.toByteArray(), 0, padded, offset, content.size());
            return new Utf8(padded, offset, content.size());
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

        // ---- the writer's calls and its output ----------------------------------------------------------------------

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            String name = method.getName();
            if (errorDue && open && !NOT_REPLACED_BY_ERROR.contains(name)) {
                errorDue = false;
                error(injectedCode, injectedMessage);
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
            if (trace.size() == 16) {
                trace.removeFirst();
            }
            trace.addLast(name);
            target.finishing = name.equals("finish");
            try {
                method.invoke(real, args);
            } catch (InvocationTargetException e) {
                last = "a call that threw";
                throw e.getCause();
            } finally {
                target.finishing = false;
            }
            last = name;
            switch (name) {
                case "header" -> open = true;
                case "end", "error" -> open = false;
                case "beginArray", "endArray" -> inArray = name.equals("beginArray");
                case "beginRow" -> containers = 0;
                case "beginList", "beginMap" -> containers++;
                case "endList", "endMap" -> containers--;
                default -> { }
            }
            if (open && errorAfter != null && (errorAfter.isEmpty() || errorAfter.equals(name)) && --errorIn == 0) {
                errorDue = true;
            }
            return null;
        }

        /**
         * The writer's bytes against the library's for the expected records; {@code finished}: finish() was called,
         * else abort() (between records): what was written must be the start, ending right after a record.
         */
        private void check(boolean finished) throws IOException {
            Set<Integer> recordEnds = new HashSet<>();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            if (bson) {
                for (Map<String, Object> record : records) {
                    out.write(BSON.writeValueAsBytes(record));
                    recordEnds.add(out.size());
                }
            } else {  // writeValueAsBytes(records), one record at a time to see where each ends
                try (JsonGenerator g = JSON.createGenerator(out)) {
                    g.writeStartArray();
                    for (Map<String, Object> record : records) {
                        JSON.writeValue(g, record);  // and flushes
                        recordEnds.add(out.size());
                    }
                    g.writeEndArray();
                }
            }
            byte[] expected = out.toByteArray();
            byte[] actual = target.bytes.toByteArray();
            if (finished) {
                recordEnds.add(expected.length);
                if (!Arrays.equals(expected, actual)) {
                    fail(difference(expected, actual));
                }
                if (seed % 4 == 0) {
                    seen.add("read back");
                    Object read = bson ? BSON.readerFor(Object.class).readValues(actual).readAll()
                            : JSON.readValue(actual, Object.class);
                    assertEquals(asRead(records, !bson), asRead(read, !bson), "the records as the library reads them");
                }
            } else if (actual.length > expected.length || !Arrays.equals(expected, 0, actual.length, actual, 0,
                    actual.length) || actual.length > 0 && !recordEnds.contains(actual.length)) {
                fail("aborted: " + difference(expected, actual));
            }
            assertEquals(finished ? 1 : 0, target.flushes, "flushes");
            assertFalse(target.flushedOutsideFinish, "flushed outside finish()");
            assertFalse(target.closed, "closed the target");
            for (Write write : target.writes) {
                assertTrue(recordEnds.contains(write.end()), () -> "a write of " + write.length()
                        + " bytes does not end right after a record, at " + write.end() + " of " + expected.length);
                assertTrue(write.inFinish() || write.length() >= Wire.HAND_OVER_BYTES, () -> "a write of "
                        + write.length() + " bytes before finish(), fewer than " + Wire.HAND_OVER_BYTES);
                if (!write.inFinish()) {
                    seen.add("a write before finish");
                }
                if (write.length() > 2 * Wire.HAND_OVER_BYTES) {
                    seen.add("a write above 128 KiB");
                }
            }
        }

        private String difference(byte[] expected, byte[] actual) {
            int at = Arrays.mismatch(expected, actual);
            int from = Math.max(0, at - 40);
            return format + " script " + seed + ": the bytes differ from " + (bson ? "bson4jackson's" : "Jackson's")
                    + " first at offset " + at + " (" + actual.length + " bytes written, " + expected.length
                    + " expected)\n  expected: " + show(expected, from, at) + "\n  written:  " + show(actual, from, at);
        }

        /** The bytes from {@code from} to 40 after {@code at} (at most the length), {@code at} marked: JSON as text. */
        private String show(byte[] b, int from, int at) {
            int mark = Math.min(at, b.length), to = Math.min(b.length, at + 40);
            return bson ? HexFormat.ofDelimiter(" ").formatHex(b, from, mark) + " ⟪here⟫ "
                    + HexFormat.ofDelimiter(" ").formatHex(b, mark, to)
                    : new String(b, from, mark - from, StandardCharsets.UTF_8) + "⟪here⟫"
                            + new String(b, mark, to - mark, StandardCharsets.UTF_8);
        }
    }
}
