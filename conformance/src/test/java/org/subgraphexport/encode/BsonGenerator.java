package org.subgraphexport.encode;

import com.fasterxml.jackson.core.Base64Variant;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.TreeNode;
import com.fasterxml.jackson.core.Version;
import com.fasterxml.jackson.core.base.GeneratorBase;
import com.fasterxml.jackson.core.json.JsonWriteContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;

/**
 * The BSON side of {@link JacksonGraphWriter}: a Jackson {@link JsonGenerator} that writes each top-level object as
 * one BSON document (bsonspec.org), built in a reused byte array and handed to the target whole by {@link #flush()}
 * once it is complete. Only what the graph writer calls is supported; anything else throws
 * {@link UnsupportedOperationException}.
 *
 * <p>The bytes are those bson4jackson's generator wrote for the calls the graph writer made of it (the golden files
 * and a differential test, {@code BsonGeneratorTest}, pin that); UTF-8 bytes ({@link #writeUTF8String}), which
 * the graph writer now passes for ASCII strings and element ids, become the same string element as that String
 * would (bson4jackson's own byte methods wrote a length without the final NUL). A document is its int32 length, its elements and {@code 0x00}; an element is its type byte, its
 * name as a NUL-terminated UTF-8 string, and its value; an array is a document whose names are {@code "0"},
 * {@code "1"}, ...; {@code int} is int32 ({@code 0x10}), {@code long} int64 ({@code 0x12}), {@code float} and
 * {@code double} a double ({@code 0x01}, raw bits), strings {@code 0x02} (int32 length including the final NUL,
 * UTF-8, NUL), binary {@code 0x05} subtype {@code 0x00}, booleans {@code 0x08}, null {@code 0x0A}. All numbers are
 * little-endian.
 *
 * <p>It exists because bson4jackson cost a String per {@code char[]} value, a channel and a copy per flushed
 * document, and a linked buffer per document: 632 bytes of garbage per record and about half the speed of the JSON
 * generator (JMH, {@code SerializerBenchmark}). Strings are encoded straight into the buffer; a string's unpaired
 * surrogate is written as {@code '?'} (the graph writer never passes one: {@link JacksonGraphWriter#wellFormed}).
 * A name containing {@code U+0000} cannot be written in BSON: a String name with one is refused
 * ({@link IllegalArgumentException}); pre-encoded names must not have one (the graph writer replaces it first).
 */
final class BsonGenerator extends GeneratorBase {
    private static final byte DOUBLE = 0x01, STRING = 0x02, DOCUMENT = 0x03, ARRAY = 0x04, BINARY = 0x05,
            BOOLEAN = 0x08, NULL = 0x0A, INT32 = 0x10, INT64 = 0x12;
    private static final int INITIAL_BUFFER = 8 << 10;
    /** A buffer that grew beyond this for one large document is dropped once that document is written. */
    private static final int KEPT_BUFFER = 1 << 20;
    private static final int FEATURES = JsonGenerator.Feature.collectDefaults()
            & ~JsonGenerator.Feature.AUTO_CLOSE_TARGET.getMask();

    private final OutputStream out;
    private byte[] buf = new byte[INITIAL_BUFFER];
    private int size;
    /** Open documents, outermost first: where each one's length goes, and its next array index (-1: not an array). */
    private int[] starts = new int[16];
    private int[] arrayIndexes = new int[16];
    private int depth;
    /** Where the type byte of the element being written goes. */
    private int typeAt;

    BsonGenerator(OutputStream out) {
        super(FEATURES, null);
        this.out = out;
    }

    // ---- documents and arrays ---------------------------------------------------------------------------------

    @Override
    public void writeStartObject() throws IOException {
        _verifyValueWrite("start an object");
        _writeContext = _writeContext.createChildObjectContext();
        startDocument(false);
    }

    @Override
    public void writeStartArray() throws IOException {
        if (depth == 0) {
            _reportError("BSON: an array must be inside a document");
        }
        _verifyValueWrite("start an array");
        _writeContext = _writeContext.createChildArrayContext();
        startDocument(true);
    }

    private void startDocument(boolean array) {
        if (depth > 0) {
            arrayElementName();
            buf[typeAt] = array ? ARRAY : DOCUMENT;
        }
        if (depth == starts.length) {
            starts = Arrays.copyOf(starts, depth * 2);
            arrayIndexes = Arrays.copyOf(arrayIndexes, depth * 2);
        }
        starts[depth] = size;
        arrayIndexes[depth] = array ? 0 : -1;
        depth++;
        ensure(4);
        size += 4;
    }

    @Override
    public void writeEndObject() throws IOException {
        if (!_writeContext.inObject()) {
            _reportError("Current context not an object but " + _writeContext.typeDesc());
        }
        _writeContext = _writeContext.getParent();
        endDocument();
    }

    @Override
    public void writeEndArray() throws IOException {
        if (!_writeContext.inArray()) {
            _reportError("Current context not an array but " + _writeContext.typeDesc());
        }
        _writeContext = _writeContext.getParent();
        endDocument();
    }

    private void endDocument() {
        ensure(1);
        buf[size++] = 0;
        int start = starts[--depth];
        putInt(start, size - start);
    }

    // ---- names ------------------------------------------------------------------------------------------------

    @Override
    public void writeFieldName(String name) throws IOException {
        if (name.indexOf('\u0000') >= 0) {
            throw nulInName();
        }
        if (_writeContext.writeFieldName(name) == JsonWriteContext.STATUS_EXPECT_VALUE) {
            _reportError("Can not write a field name, expecting a value");
        }
        elementStart();
        utf8(name);
        ensure(1);
        buf[size++] = 0;
    }

    /**
     * A pre-encoded name, written as it is: the caller encodes it once and keeps it free of {@code U+0000} (the
     * graph writer replaces it when it caches a property key), so it is not scanned on every write (asserted).
     */
    @Override
    public void writeFieldName(SerializableString name) throws IOException {
        byte[] utf8 = name.asUnquotedUTF8();
        assert name.getValue().indexOf('\u0000') < 0 : "a pre-encoded BSON name with U+0000";
        if (_writeContext.writeFieldName(name.getValue()) == JsonWriteContext.STATUS_EXPECT_VALUE) {
            _reportError("Can not write a field name, expecting a value");
        }
        elementStart();
        put(utf8, 0, utf8.length);
        ensure(1);
        buf[size++] = 0;
    }

    /** Reserves the type byte of the next element. */
    private void elementStart() {
        ensure(1);
        typeAt = size;
        buf[size++] = 0;
    }

    private static IllegalArgumentException nulInName() {
        return new IllegalArgumentException("a BSON element name cannot contain U+0000");
    }

    /** Inside an array, the next element's name: its index in decimal. */
    private void arrayElementName() {
        int index = arrayIndexes[depth - 1];
        if (index < 0) {
            return;
        }
        arrayIndexes[depth - 1] = index + 1;
        elementStart();
        ensure(11);
        int digits = 1;
        for (int t = index; t >= 10; t /= 10) {
            digits++;
        }
        for (int i = size + digits - 1; i >= size; i--) {
            buf[i] = (byte) ('0' + index % 10);
            index /= 10;
        }
        size += digits;
        buf[size++] = 0;
    }

    // ---- values -----------------------------------------------------------------------------------------------

    /** Starts a value of BSON type {@code type}: its name if in an array, its type byte. */
    private void value(byte type, String what) throws IOException {
        if (depth == 0) {
            _reportError("BSON: cannot " + what + " outside a document");
        }
        arrayElementName();
        _verifyValueWrite(what);
        buf[typeAt] = type;
    }

    @Override
    protected void _verifyValueWrite(String what) throws IOException {
        if (_writeContext.writeValue() == JsonWriteContext.STATUS_EXPECT_NAME) {
            _reportError("Can not " + what + ", expecting field name");
        }
    }

    @Override
    public void writeString(String text) throws IOException {
        value(STRING, "write a string");
        int at = size;
        ensure(4);
        size += 4;
        utf8(text);
        endString(at);
    }

    @Override
    public void writeString(char[] text, int offset, int len) throws IOException {
        value(STRING, "write a string");
        int at = size;
        ensure(4 + len);
        size += 4;
        int end = offset + len;
        int i = offset;
        byte[] b = buf;
        int p = size;
        for (; i < end; i++) {  // ASCII, the usual case: one byte per char
            char c = text[i];
            if (c >= 0x80) {
                break;
            }
            b[p++] = (byte) c;
        }
        size = p;
        for (; i < end; i++) {
            char c = text[i];
            i = utf8(c, i + 1 < end ? text[i + 1] : 0, i);
        }
        endString(at);
    }

    @Override
    public void writeString(SerializableString text) throws IOException {
        value(STRING, "write a string");
        byte[] utf8 = text.asUnquotedUTF8();
        putInt(utf8.length + 1);
        put(utf8, 0, utf8.length);
        ensure(1);
        buf[size++] = 0;
    }

    /** Writes {@code length} bytes of UTF-8 as a string, as they are. */
    @Override
    public void writeUTF8String(byte[] utf8, int offset, int length) throws IOException {
        value(STRING, "write a string");
        putInt(length + 1);
        put(utf8, offset, length);
        ensure(1);
        buf[size++] = 0;
    }

    /** The same as {@link #writeUTF8String}: BSON escapes nothing. */
    @Override
    public void writeRawUTF8String(byte[] utf8, int offset, int length) throws IOException {
        writeUTF8String(utf8, offset, length);
    }

    /** Ends a string whose int32 length goes at {@code lengthAt}: the final NUL, then the length. */
    private void endString(int lengthAt) {
        ensure(1);
        buf[size++] = 0;
        putInt(lengthAt, size - lengthAt - 4);
    }

    @Override
    public void writeNumber(int v) throws IOException {
        value(INT32, "write a number");
        putInt(v);
    }

    @Override
    public void writeNumber(long v) throws IOException {
        value(INT64, "write a number");
        putLong(v);
    }

    @Override
    public void writeNumber(double v) throws IOException {
        value(DOUBLE, "write a number");
        putLong(Double.doubleToRawLongBits(v));
    }

    /** A double holding the float's exact value. */
    @Override
    public void writeNumber(float v) throws IOException {
        writeNumber((double) v);
    }

    @Override
    public void writeBoolean(boolean v) throws IOException {
        value(BOOLEAN, "write a boolean");
        ensure(1);
        buf[size++] = (byte) (v ? 1 : 0);
    }

    @Override
    public void writeNull() throws IOException {
        value(NULL, "write null");
    }

    /** Binary, subtype 0x00 (generic); the Base64 variant does not apply. */
    @Override
    public void writeBinary(Base64Variant variant, byte[] data, int offset, int len) throws IOException {
        value(BINARY, "write binary");
        putInt(len);
        ensure(1);
        buf[size++] = 0;
        put(data, offset, len);
    }

    // ---- output -----------------------------------------------------------------------------------------------

    /** Between documents, hands the complete documents to the target (in one write) and flushes it. */
    @Override
    public void flush() throws IOException {
        if (depth == 0) {
            writeOut();
        }
        out.flush();
    }

    private void writeOut() throws IOException {
        if (size > 0) {
            out.write(buf, 0, size);
            size = 0;
        }
        if (buf.length > KEPT_BUFFER) {
            buf = new byte[INITIAL_BUFFER];
        }
    }

    /** Ends any open document (as bson4jackson did with Jackson's AUTO_CLOSE_JSON_CONTENT), writes, flushes. */
    @Override
    public void close() throws IOException {
        if (isClosed()) {
            return;
        }
        while (depth > 0 && isEnabled(JsonGenerator.Feature.AUTO_CLOSE_JSON_CONTENT)) {
            if (_writeContext.inArray()) {
                writeEndArray();
            } else {
                writeEndObject();
            }
        }
        if (depth == 0) {
            writeOut();
        }
        out.flush();
        super.close();
    }

    @Override
    protected void _releaseBuffers() {
        size = 0;
    }

    @Override
    public Version version() {
        return Version.unknownVersion();
    }

    // ---- the buffer -------------------------------------------------------------------------------------------

    private void ensure(int more) {
        if (size + more > buf.length) {
            long wanted = Math.max((long) size + more, 2L * buf.length);
            if ((long) size + more > Integer.MAX_VALUE - 8) {
                throw new IllegalStateException("a BSON document larger than 2 GiB");
            }
            buf = Arrays.copyOf(buf, (int) Math.min(wanted, Integer.MAX_VALUE - 8));
        }
    }

    private void put(byte[] b, int offset, int length) {
        ensure(length);
        System.arraycopy(b, offset, buf, size, length);
        size += length;
    }

    private void putInt(int v) {
        ensure(4);
        putInt(size, v);
        size += 4;
    }

    private void putInt(int at, int v) {
        byte[] b = buf;
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
        b[at + 2] = (byte) (v >>> 16);
        b[at + 3] = (byte) (v >>> 24);
    }

    private void putLong(long v) {
        ensure(8);
        putInt(size, (int) v);
        putInt(size + 4, (int) (v >>> 32));
        size += 8;
    }

    /** {@code s} as UTF-8 (an unpaired surrogate as {@code '?'}). */
    private void utf8(String s) {
        int n = s.length();
        ensure(n);
        byte[] b = buf;
        int p = size;
        int i = 0;
        for (; i < n; i++) {  // ASCII, the usual case: one byte per char
            char c = s.charAt(i);
            if (c >= 0x80) {
                break;
            }
            b[p++] = (byte) c;
        }
        size = p;
        for (; i < n; i++) {
            i = utf8(s.charAt(i), i + 1 < n ? s.charAt(i + 1) : 0, i);
        }
    }

    /** Writes char {@code c} (at index {@code i}; {@code next} follows it, or 0) and returns the last index used. */
    private int utf8(char c, char next, int i) {
        ensure(4);
        byte[] b = buf;
        int p = size;
        if (c < 0x80) {
            b[p++] = (byte) c;
        } else if (c < 0x800) {
            b[p++] = (byte) (0xC0 | c >> 6);
            b[p++] = (byte) (0x80 | c & 0x3F);
        } else if (!Character.isSurrogate(c)) {
            b[p++] = (byte) (0xE0 | c >> 12);
            b[p++] = (byte) (0x80 | c >> 6 & 0x3F);
            b[p++] = (byte) (0x80 | c & 0x3F);
        } else if (Character.isHighSurrogate(c) && Character.isLowSurrogate(next)) {
            int cp = Character.toCodePoint(c, next);
            b[p++] = (byte) (0xF0 | cp >> 18);
            b[p++] = (byte) (0x80 | cp >> 12 & 0x3F);
            b[p++] = (byte) (0x80 | cp >> 6 & 0x3F);
            b[p++] = (byte) (0x80 | cp & 0x3F);
            i++;
        } else {
            b[p++] = '?';
        }
        size = p;
        return i;
    }

    // ---- not supported ----------------------------------------------------------------------------------------

    private static UnsupportedOperationException unsupported(String what) {
        return new UnsupportedOperationException("BsonGenerator does not " + what);
    }

    @Override
    public void writeNumber(BigInteger v) {
        throw unsupported("write BigInteger");
    }

    @Override
    public void writeNumber(BigDecimal v) {
        throw unsupported("write BigDecimal");
    }

    @Override
    public void writeNumber(String encodedValue) {
        throw unsupported("write numbers from text");
    }

    @Override
    public int writeBinary(Base64Variant variant, InputStream data, int dataLength) {
        throw unsupported("write binary from a stream");
    }

    @Override
    public void writeRaw(String text) {
        throw unsupported("write raw content");
    }

    @Override
    public void writeRaw(String text, int offset, int len) {
        throw unsupported("write raw content");
    }

    @Override
    public void writeRaw(char[] text, int offset, int len) {
        throw unsupported("write raw content");
    }

    @Override
    public void writeRaw(char c) {
        throw unsupported("write raw content");
    }

    @Override
    public void writeRawValue(String text) {
        throw unsupported("write raw content");
    }

    @Override
    public void writeRawValue(String text, int offset, int len) {
        throw unsupported("write raw content");
    }

    @Override
    public void writeRawValue(char[] text, int offset, int len) {
        throw unsupported("write raw content");
    }

    @Override
    public void writeObject(Object value) {
        throw unsupported("write objects");
    }

    @Override
    public void writeTree(TreeNode rootNode) {
        throw unsupported("write trees");
    }
}
