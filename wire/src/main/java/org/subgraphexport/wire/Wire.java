package org.subgraphexport.wire;

/**
 * The wire format, specified in one place (mirrored, with a worked example, in {@code docs/wire-format.md}).
 *
 * <h2>Common semantics (every format; {@link Arrow} says how {@code arrow} carries them)</h2>
 * A stream is one {@code header} record, then node and relationship records in any order except that a
 * relationship always comes after both of its end nodes, then exactly one closing record: {@code end} (how many
 * nodes and relationships were written, and whether the export was truncated by a limit) or {@code error}
 * (a code and a message: the export failed after streaming had started). Nothing follows the closing record.
 * A stream without a closing record is truncated, whatever the transport said. Format version: {@link #VERSION}.
 *
 * <p><b>State and partitions</b> (version 2): the header names the store state the export read
 * ({@code state}: an opaque token, the database and its last committed transaction when the read began; empty for
 * an export that reads no store) and which partition of how many the stream is ({@code partition}, {@code partitions};
 * 0 of 1 for a whole export); the end record names the state when the stream ended: equal to the header's, no commit
 * happened while the export read. A partitioned export's partitions carry each record of the whole export once:
 * record {@code k} of the whole export's sequence is in partition {@code (k / PARTITION_BLOCK) % partitions}, in the
 * whole export's order; a relationship's end nodes may be in other partitions. Decoders accept version 1 (no state:
 * empty; partition 0 of 1) and 2.
 * Element ids are the database's element id strings: {@code nodeIdPrefix} or {@code relIdPrefix} followed by
 * the element's numeric id, a signed 64-bit integer, in signed decimal ({@code Long.toString}); Kryo carries the
 * number itself as a varlong of its 64 bits (a negative id takes 9 bytes).
 *
 * <p><b>Delta streams</b> ({@code since=<state>}, same version): the header names the state of the earlier export the
 * stream is relative to ({@code since}: in JSON and BSON a header field present in delta streams only, in Kryo a
 * {@code delta} record right after the header, in Arrow schema metadata); its {@code state} is the state this one
 * read. Then, in any order, full node and relationship records (each entity of today's export that is not
 * in the earlier one or changed after {@code since}; the end nodes of a relationship record are in today's export,
 * not necessarily in this stream) and {@code left} records: the id of a node or relationship of the earlier export
 * that is not in today's. Applying it: drop what left, put every record (replacing one with the same id). The end
 * record counts the full records only.
 *
 * <p><b>Error records</b> carry only whole records before them: a writer that fails in the middle of a record
 * drops that record (Kryo rewinds its buffer, which never hands an unfinished record to the target; JSON holds
 * the unfinished record's bytes back and truncates them; BSON discards the unfinished document), so the error
 * record follows the last complete record and a decoder sees the records before the failed one, intact, then
 * the error.
 *
 * <p><b>Rows streams</b> (Cypher {@code mode=rows}): right after the header one {@code columns} record (the
 * column names), then {@code row} records, each with exactly one value per column, mixed with node and
 * relationship records; a node or relationship a row refers to is written (as a record) before that row. Row
 * values are property values plus null, lists (of any values), maps (string keys, any values), node and
 * relationship references (by id) and paths (node ids and relationship ids, alternating node, relationship,
 * node...). Lists and maps nest at most {@link #MAX_NESTING} levels deep. The {@code end} record of a rows stream
 * also counts the rows. A graph stream never has columns or rows; a property value is never one of the row-only
 * value types.
 *
 * <h2>Kryo ({@code kryo})</h2>
 * The var-ints, var-longs and bytes of Kryo 5's {@code Output}, written by the plugin itself (it does not use the
 * Kryo library). Fixed-width numbers are big-endian (Kryo 5's own {@code writeShort/Int/Long/Float/Double/Char}
 * are little-endian); {@code float} and {@code double} are IEEE 754 bits, NaN canonicalised as by
 * {@code floatToIntBits}/{@code doubleToLongBits}.
 * <ul>
 * <li><b>varint</b>: unsigned LEB128, 7 bits per byte, low group first, high bit = more bytes follow, at most
 *     5 bytes. <b>varlong</b>: the same for 64 bits, but at most 9 bytes: if 8 bytes with the high bit set have
 *     been read, the 9th byte holds the top 8 bits whole (Kryo's {@code writeVarLong}, unlike plain LEB128).
 *     <b>zigzag</b> varint/varlong: {@code (v << 1) ^ (v >> 31|63)} first, so small negative numbers are short.
 *     Plain "varint"/"varlong" below means non-zigzag ({@code optimizePositive=true}).</li>
 * <li><b>string</b>: varint byte length, then that many UTF-8 bytes. Unpaired surrogates are written as
 *     {@code '?'} (0x3F), exactly as {@code String.getBytes(UTF_8)} would.</li>
 * <li><b>stream</b>: {@link #MAGIC_0 magic} {@code 'S' 'G' 'X'} (0x53 0x47 0x58), version byte 0x02, then records.</li>
 * <li><b>record</b>: one tag byte, then its payload:
 *   <ul>
 *   <li>{@link #HEADER} 0x01: string database, string root, string nodeIdPrefix, string relIdPrefix, string state,
 *       varint partition, varint partitions (version 1: the four strings only).</li>
 *   <li>{@link #NODE} 0x02: varlong id, varint labelCount, labelCount × label token reference, properties.</li>
 *   <li>{@link #RELATIONSHIP} 0x03: varlong id, type token reference, varlong startId, varlong endId,
 *       properties.</li>
 *   <li>{@link #END} 0x04: varlong nodes, varlong relationships, byte truncated (0 or 1).</li>
 *   <li>{@link #ERROR} 0x05: string code, string message.</li>
 *   <li>{@link #COLUMNS} 0x06 (rows streams only, right after the header): varint count, count × string.</li>
 *   <li>{@link #ROW} 0x07 (rows streams only): one value per column, in column order.</li>
 *   <li>{@link #DELTA} 0x08 (delta streams only, right after the header): string since.</li>
 *   <li>{@link #LEFT_NODE} 0x09, {@link #LEFT_RELATIONSHIP} 0x0A (delta streams only): varlong id.</li>
 *   </ul>
 *   In a rows stream the END record has one more field after the truncated byte: varlong rows. Last comes
 *   string state (version 2).</li>
 * <li><b>token reference</b>: three stream-local dictionaries (labels, relationship types, property keys), each
 *     starting empty and numbered 0, 1, 2, ... in order of first appearance. A reference is a varint index: equal
 *     to the dictionary's current size, it defines the next token and a string with its name follows at once;
 *     smaller, it refers to a known token; larger, the stream is corrupt.</li>
 * <li><b>properties</b>: repeated [byte {@link #PROPERTY} 0x01, key token reference, value], ended by byte
 *     {@link #PROPERTIES_END} 0x00.</li>
 * <li><b>value</b>: a tag byte, then the payload:
 *   <table>
 *   <caption>value tags</caption>
 *   <tr><td>{@link #T_BOOLEAN} 0x01</td><td>byte 0 or 1</td></tr>
 *   <tr><td>{@link #T_BYTE} 0x02</td><td>1 byte</td></tr>
 *   <tr><td>{@link #T_SHORT} 0x03</td><td>2 bytes</td></tr>
 *   <tr><td>{@link #T_INT} 0x04</td><td>zigzag varint</td></tr>
 *   <tr><td>{@link #T_LONG} 0x05</td><td>zigzag varlong</td></tr>
 *   <tr><td>{@link #T_FLOAT} 0x06</td><td>4 bytes IEEE 754</td></tr>
 *   <tr><td>{@link #T_DOUBLE} 0x07</td><td>8 bytes IEEE 754</td></tr>
 *   <tr><td>{@link #T_CHAR} 0x08</td><td>2 bytes, one UTF-16 code unit</td></tr>
 *   <tr><td>{@link #T_STRING} 0x09</td><td>string</td></tr>
 *   <tr><td>{@link #T_BYTES} 0x0A</td><td>varint length, bytes</td></tr>
 *   <tr><td>{@link #T_POINT} 0x0B</td><td>varint srid, byte dimension (2 or 3), dimension × double</td></tr>
 *   <tr><td>{@link #T_DURATION} 0x0C</td><td>zigzag varlong months, days, seconds; zigzag varint nanos</td></tr>
 *   <tr><td>{@link #T_DATE} 0x0D</td><td>zigzag varlong epochDay</td></tr>
 *   <tr><td>{@link #T_LOCAL_TIME} 0x0E</td><td>varlong nanoOfDay</td></tr>
 *   <tr><td>{@link #T_TIME} 0x0F</td><td>varlong nanoOfDay, zigzag varint offsetSeconds</td></tr>
 *   <tr><td>{@link #T_LOCAL_DATE_TIME} 0x10</td><td>zigzag varlong epochSecond (as if UTC), varint nano</td></tr>
 *   <tr><td>{@link #T_DATE_TIME} 0x11</td><td>zigzag varlong epochSecond, varint nano, string zone id
 *       ({@code ZoneId.getId()}: a region such as {@code Europe/Berlin} or an offset such as {@code +01:00},
 *       {@code Z})</td></tr>
 *   <tr><td>{@link #T_UUID} 0x12</td><td>8 bytes most significant bits, 8 bytes least significant bits</td></tr>
 *   <tr><td>{@link #T_VECTOR} 0x13</td><td>byte kind ({@link #VECTOR_INT8} 0 .. {@link #VECTOR_FLOAT64} 5, in
 *       {@code ValueSink.VectorKind} order), varint length, elements of 1, 2, 4, 8, 4 or 8 bytes</td></tr>
 *   <tr><td>{@link #T_ARRAY} 0x14</td><td>byte element tag (a scalar tag: 0x01 or 0x03..0x12 but not 0x0A),
 *       varint length, then each element's payload without a tag</td></tr>
 *   <tr><td colspan="2">row values only:</td></tr>
 *   <tr><td>{@link #T_NULL} 0x15</td><td>nothing</td></tr>
 *   <tr><td>{@link #T_LIST} 0x16</td><td>varint size, size × value (each with its tag)</td></tr>
 *   <tr><td>{@link #T_MAP} 0x17</td><td>varint size, size × (string key, value with its tag)</td></tr>
 *   <tr><td>{@link #T_NODE_REF} 0x18</td><td>varlong node id (a node record with it came earlier)</td></tr>
 *   <tr><td>{@link #T_RELATIONSHIP_REF} 0x19</td><td>varlong relationship id (likewise)</td></tr>
 *   <tr><td>{@link #T_PATH} 0x1A</td><td>varint n (at least 1), n × varlong node id, (n - 1) × varlong
 *       relationship id</td></tr>
 *   </table></li>
 * </ul>
 * Decoders reject any length (string bytes, byte-array length, array or vector elements, list or map size, path
 * length, column count) above {@link #MAX_LENGTH}, and lists and maps nested deeper than {@link #MAX_NESTING}.
 *
 * <p>The Kryo writer, like every writer, hands its buffer to the target only between records, once it holds
 * {@link #HAND_OVER_BYTES} bytes or more; a record is never partly written, so an error record can replace an
 * unfinished one.
 *
 * <h2>Kryo with LZF ({@code kryo-lzf})</h2>
 * The exact Kryo byte stream, compressed as a sequence of LZF chunks (compress-lzf's format: {@code 'Z' 'V'},
 * type byte 0 = stored: 2-byte length + data, 1 = compressed: 2-byte compressed length, 2-byte uncompressed
 * length + data). Every chunk but the last holds {@link #LZF_CHUNK_LENGTH} uncompressed bytes.
 *
 * <h2>JSON ({@code json}) and BSON ({@code bson})</h2>
 * Both carry the same record objects; JSON as one array of them, BSON as one document per record, concatenated
 * (no outer array, no length of the whole). Field and tag names are in {@link Json}.
 * <pre>
 * {"record":"header","version":1,"database":"neo4j","root":"4:..:0"}
 * {"record":"node","id":"4:..:12","labels":["Object"],"properties":{...}}
 * {"record":"relationship","id":"5:..:3","type":"CHILDREN","start":"4:..:0","end":"4:..:12","properties":{...}}
 * {"record":"end","nodes":N,"relationships":M,"truncated":false}          (rows streams: ...,"rows":R})
 * {"record":"error","code":"...","message":"..."}
 * {"record":"columns","names":["n","name"]}                              (rows streams only)
 * {"record":"row","values":[{"node":"4:..:12"},"Ann"]}                   (rows streams only)
 * </pre>
 * A value is plain JSON for a boolean, a long (integer number; BSON int64), a finite double (a number with a
 * fraction or exponent; BSON double) and a string. Every other value is a one-field object {@code {tag: payload}}:
 * {@code byte}, {@code short}, {@code int} a number (BSON int32); {@code float} a number or one of the strings
 * {@code "NaN"}, {@code "Infinity"}, {@code "-Infinity"}; {@code double} (non-finite doubles only) one of those
 * strings (in BSON too: a non-finite float or double is a BSON string wherever it stands, in arrays, vectors and
 * point coordinates as well, never a BSON double); {@code char} a one-character string; {@code bytes} base64 (BSON: binary subtype 0); {@code point}
 * {@code {"srid":n,"coordinates":[x,y(,z)]}}; {@code duration} {@code [months,days,seconds,nanos]};
 * {@code date}, {@code localtime}, {@code time}, {@code localdatetime}, {@code datetime} strings as java.time's
 * {@code ISO_LOCAL_DATE}, {@code ISO_LOCAL_TIME}, {@code ISO_OFFSET_TIME}, {@code ISO_LOCAL_DATE_TIME},
 * {@code ISO_ZONED_DATE_TIME} write them (beyond ISO 8601 and RFC 3339: offsets with seconds such as
 * {@code +00:53:28}, a {@code [region]} suffix, {@code Z[UTC]}, signed years beyond four digits such as
 * {@code +10000-01-01}; docs/wire-format.md has examples); {@code uuid} the canonical string; {@code vector}
 * {@code {"kind":"FLOAT32","values":[...]}}. An array is {@code {"int[]":[...]}} (element names: tag + "[]"),
 * each element its tag's payload. Unpaired surrogates in string values, names and keys become {@code '?'}, as in
 * Kryo; a BSON property key cannot hold U+0000, which is written there as U+FFFD.
 *
 * <p>Row values only: null is JSON {@code null} (BSON null); a list is a plain JSON array {@code [...]} (BSON
 * array) of values (a plain array is never anything else: typed arrays are tagged objects); a map is
 * {@code {"map":{key:value,...}}} (JSON: keys escaped like string values, so a character outside the BMP is a
 * surrogate-pair escape, where property keys carry raw UTF-8; BSON: element names like property keys, U+0000
 * becomes U+FFFD); a node reference
 * {@code {"node":"<element id>"}}; a relationship reference {@code {"relationship":"<element id>"}}; a path
 * {@code {"path":{"nodes":[ids],"relationships":[ids]}}}.
 */
public final class Wire {
    private Wire() {}

    /** Format version, in the Kryo stream's fifth byte and the header record's {@code version} field. */
    public static final int VERSION = 2;
    /** The oldest version decoders accept: version 1 streams have no state and no partition in header and end. */
    public static final int MIN_VERSION = 1;

    /** The Kryo stream's first three bytes, {@code 'S' 'G' 'X'}. */
    public static final int MAGIC_0 = 0x53, MAGIC_1 = 0x47, MAGIC_2 = 0x58;

    // Record tags (Kryo)
    public static final int HEADER = 0x01;
    public static final int NODE = 0x02;
    public static final int RELATIONSHIP = 0x03;
    public static final int END = 0x04;
    public static final int ERROR = 0x05;
    /** Rows streams: the column names, once, right after the header. */
    public static final int COLUMNS = 0x06;
    /** Rows streams: one value per column. */
    public static final int ROW = 0x07;
    /** Delta streams ({@code since=}): right after the header, string since, the state the delta is relative to. */
    public static final int DELTA = 0x08;
    /** Delta streams: a node of the earlier export that is not in this one; varlong id. */
    public static final int LEFT_NODE = 0x09;
    /** Delta streams: a relationship of the earlier export that is not in this one; varlong id. */
    public static final int LEFT_RELATIONSHIP = 0x0A;

    /** In a Kryo properties block: another property follows. */
    public static final int PROPERTY = 0x01;
    /** In a Kryo properties block: no more properties. */
    public static final int PROPERTIES_END = 0x00;

    // Value tags (Kryo)
    public static final int T_BOOLEAN = 0x01;
    public static final int T_BYTE = 0x02;
    public static final int T_SHORT = 0x03;
    public static final int T_INT = 0x04;
    public static final int T_LONG = 0x05;
    public static final int T_FLOAT = 0x06;
    public static final int T_DOUBLE = 0x07;
    public static final int T_CHAR = 0x08;
    public static final int T_STRING = 0x09;
    public static final int T_BYTES = 0x0A;
    public static final int T_POINT = 0x0B;
    public static final int T_DURATION = 0x0C;
    public static final int T_DATE = 0x0D;
    public static final int T_LOCAL_TIME = 0x0E;
    public static final int T_TIME = 0x0F;
    public static final int T_LOCAL_DATE_TIME = 0x10;
    public static final int T_DATE_TIME = 0x11;
    public static final int T_UUID = 0x12;
    public static final int T_VECTOR = 0x13;
    public static final int T_ARRAY = 0x14;
    // Value tags of row values only (Kryo)
    public static final int T_NULL = 0x15;
    public static final int T_LIST = 0x16;
    public static final int T_MAP = 0x17;
    public static final int T_NODE_REF = 0x18;
    public static final int T_RELATIONSHIP_REF = 0x19;
    public static final int T_PATH = 0x1A;

    // Vector kinds (Kryo), the ordinals of ValueSink.VectorKind
    public static final int VECTOR_INT8 = 0;
    public static final int VECTOR_INT16 = 1;
    public static final int VECTOR_INT32 = 2;
    public static final int VECTOR_INT64 = 3;
    public static final int VECTOR_FLOAT32 = 4;
    public static final int VECTOR_FLOAT64 = 5;

    /**
     * Records per block of a partitioned export: record {@code k} of the walk's sequence (nodes and relationships in
     * the single stream's order, from 0) belongs to partition {@code (k / PARTITION_BLOCK) % partitions}.
     */
    public static final int PARTITION_BLOCK = 256;

    /** Largest string byte length, byte-array length or element count a decoder accepts (256 Mi). */
    public static final int MAX_LENGTH = 1 << 28;

    /**
     * Deepest nesting of lists and maps in a row value a writer writes and a decoder accepts: a list in a row is
     * level 1, a list in that list level 2, and so on.
     */
    public static final int MAX_NESTING = 100;

    /** Largest BSON document (one record) a decoder accepts (1 Gi). */
    public static final int MAX_BSON_DOCUMENT = 1 << 30;

    /** Uncompressed bytes in every LZF chunk of a kryo-lzf stream but the last ({@code LZFChunk.MAX_CHUNK_LEN}). */
    public static final int LZF_CHUNK_LENGTH = 0xFFFF;

    /**
     * Bytes a writer collects before it hands them to the target, at the next record boundary (all formats): the
     * target sees writes of at least this size, and never part of a record. A record larger than this is held in
     * memory whole.
     */
    public static final int HAND_OVER_BYTES = 64 * 1024;

    // Media types
    public static final String MEDIA_JSON = "application/json";
    public static final String MEDIA_BSON = "application/bson";
    public static final String MEDIA_KRYO = "application/x-subgraph-kryo";
    public static final String MEDIA_KRYO_LZF = "application/x-subgraph-kryo-lzf";
    public static final String MEDIA_ARROW = "application/vnd.apache.arrow.stream";

    /** The Kryo element tag of an array kind: {@code ArrayKind} order is tag order, BYTE and BYTES skipped. */
    public static int elementTag(ValueSink.ArrayKind kind) {
        return ELEMENT_TAGS[kind.ordinal()];
    }

    private static final int[] ELEMENT_TAGS = {
        T_BOOLEAN, T_SHORT, T_INT, T_LONG, T_FLOAT, T_DOUBLE, T_CHAR, T_STRING,
        T_POINT, T_DATE, T_LOCAL_TIME, T_TIME, T_LOCAL_DATE_TIME, T_DATE_TIME, T_DURATION, T_UUID
    };

    /** Field names and value tags of the JSON and BSON record objects. */
    public static final class Json {
        private Json() {}

        public static final String RECORD = "record";
        public static final String VERSION = "version";
        public static final String DATABASE = "database";
        public static final String ROOT = "root";
        public static final String ID = "id";
        public static final String LABELS = "labels";
        public static final String PROPERTIES = "properties";
        public static final String TYPE = "type";
        public static final String START = "start";
        public static final String END = "end";
        public static final String NODES = "nodes";
        public static final String RELATIONSHIPS = "relationships";
        public static final String TRUNCATED = "truncated";
        public static final String CODE = "code";
        public static final String MESSAGE = "message";
        public static final String NAMES = "names";
        public static final String ROWS = "rows";
        public static final String STATE = "state";
        public static final String PARTITION = "partition";
        public static final String PARTITIONS = "partitions";
        /** Delta streams only: the header's field naming the state of the earlier export the delta is relative to. */
        public static final String SINCE = "since";

        // values of "record"
        public static final String R_HEADER = "header";
        public static final String R_NODE = "node";
        public static final String R_RELATIONSHIP = "relationship";
        public static final String R_END = "end";
        public static final String R_ERROR = "error";
        public static final String R_COLUMNS = "columns";
        public static final String R_ROW = "row";
        /** Delta streams: {@code {"record":"left","node":"<id>"}} or {@code {"record":"left","relationship":"<id>"}}. */
        public static final String R_LEFT = "left";

        // value tags
        public static final String BYTE = "byte";
        public static final String SHORT = "short";
        public static final String INT = "int";
        public static final String FLOAT = "float";
        public static final String DOUBLE = "double";
        public static final String CHAR = "char";
        public static final String BYTES = "bytes";
        public static final String POINT = "point";
        public static final String DURATION = "duration";
        public static final String DATE = "date";
        public static final String LOCAL_TIME = "localtime";
        public static final String TIME = "time";
        public static final String LOCAL_DATE_TIME = "localdatetime";
        public static final String DATE_TIME = "datetime";
        public static final String UUID = "uuid";
        public static final String VECTOR = "vector";
        // value tags of row values only (lists are plain arrays, null is null)
        public static final String MAP = "map";
        public static final String NODE_REF = "node";
        public static final String RELATIONSHIP_REF = "relationship";
        public static final String PATH = "path";

        // payload fields
        public static final String SRID = "srid";
        public static final String COORDINATES = "coordinates";
        public static final String KIND = "kind";
        public static final String VALUES = "values";
        // path payload fields: NODES and RELATIONSHIPS

        // non-finite float and double payloads
        public static final String NAN = "NaN";
        public static final String INFINITY = "Infinity";
        public static final String NEGATIVE_INFINITY = "-Infinity";

        /** The tag of an array of {@code kind}, e.g. {@code "int[]"}, {@code "localdatetime[]"}. */
        public static String arrayTag(ValueSink.ArrayKind kind) {
            return ARRAY_TAGS[kind.ordinal()];
        }

        private static final String[] ARRAY_TAGS = {
            "boolean[]", "short[]", "int[]", "long[]", "float[]", "double[]", "char[]", "string[]",
            "point[]", "date[]", "localtime[]", "time[]", "localdatetime[]", "datetime[]", "duration[]", "uuid[]"
        };
    }

    /**
     * The {@code arrow} format: an Apache Arrow IPC stream (columnar, one schema for nodes and relationships; see
     * docs/wire-format.md section 7). The column names, metadata keys and batch limits are here; the layout is
     * Arrow's own.
     */
    public static final class Arrow {
        private Arrow() {}

        /** A record batch closes once it holds this many rows... */
        public static final int BATCH_ROWS = 65_536;
        /** ...or about this many bytes of column data, well below Arrow's 2 GiB limit of 32-bit offsets. */
        public static final int BATCH_BYTES = 8 << 20;

        /** The stream's one column: a dense union of the groups (structs), one per label set or type. */
        public static final String ELEMENT = "element";
        /** The catch-all groups' names; the others' start with them: {@code node:Person}. */
        public static final String NODE = "node", RELATIONSHIP = "relationship";
        // a group's fixed columns, in order; the property columns follow, then EXTRA
        public static final String ID = "id";
        public static final String LABELS = "labels";
        public static final String TYPE = "type";
        public static final String SOURCE = "source";
        public static final String TARGET = "target";
        /** The fallback column: properties no column holds, as the {@code json} format's properties object. */
        public static final String EXTRA = "extra_properties";
        /**
         * The element id columns every reader derives from the ids and the header's prefixes (docs/wire-format.md
         * 7.2). Never sent, but taken: a property key named like one of them, as one named like a fixed column, gets
         * the column {@code key:type}, so that the reader's tables never hold two columns of one name.
         */
        public static final String ELEMENT_ID = "element_id", SOURCE_ELEMENT_ID = "source_element_id",
                TARGET_ELEMENT_ID = "target_element_id";

        // schema metadata (the header)
        public static final String META_VERSION = "subgraph.version";
        public static final String META_DATABASE = "subgraph.database";
        public static final String META_ROOT = "subgraph.root";
        public static final String META_NODE_ID_PREFIX = "subgraph.node_id_prefix";
        public static final String META_REL_ID_PREFIX = "subgraph.relationship_id_prefix";
        /** Schema metadata (version 2): the state read, and partition and partitions in decimal. */
        public static final String META_STATE = "subgraph.state";
        public static final String META_PARTITION = "subgraph.partition";
        public static final String META_PARTITIONS = "subgraph.partitions";
        /** Schema metadata of a delta stream only: the state of the earlier export the delta is relative to. */
        public static final String META_SINCE = "subgraph.since";
        /** Field metadata ({@link #META_KIND}) of the two groups a delta stream declares, children 2 and 3: ids that left. */
        public static final String LEFT_NODE = "left_node", LEFT_RELATIONSHIP = "left_relationship";
        /** Field metadata of a group: its record kind, {@link #NODE} or {@link #RELATIONSHIP}. */
        public static final String META_KIND = "subgraph.kind";
        /** Field metadata of a property column: the property key, and the wire type it holds ({@code int[]}). */
        public static final String META_KEY = "subgraph.key", META_TYPE = "subgraph.type";
        // custom metadata of the last (empty) record batch: the closing record
        public static final String META_RECORD = "subgraph.record";
        public static final String META_NODES = "subgraph.nodes";
        public static final String META_RELATIONSHIPS = "subgraph.relationships";
        public static final String META_TRUNCATED = "subgraph.truncated";
        public static final String META_CODE = "subgraph.code";
        public static final String META_MESSAGE = "subgraph.message";
    }
}
