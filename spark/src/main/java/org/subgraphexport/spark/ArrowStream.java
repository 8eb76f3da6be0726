package org.subgraphexport.spark;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.util.HashMap;
import java.util.Map;
import org.apache.arrow.flatbuf.KeyValue;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.DenseUnionVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.message.MessageChannelReader;
import org.apache.arrow.vector.ipc.message.MessageResult;
import org.apache.arrow.vector.types.pojo.Schema;
import org.subgraphexport.wire.Wire;

/**
 * One export's Arrow stream (docs/wire-format.md section 7) read with Arrow Java, the session's own: the schema and
 * its header metadata, then batch after batch of the {@code element} union, then the closing record (the last, empty
 * batch's custom metadata), which Arrow's reader does not expose: the messages are read through a reader that keeps
 * the last one. A stream that ends without its closing record is cut ({@link Cut}); an error record throws
 * {@link Failed}.
 */
final class ArrowStream implements AutoCloseable {
    /** The stream ended before its closing record, or the connection failed: worth another request. */
    static final class Cut extends IOException {
        private static final long serialVersionUID = 1L;

        Cut(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The stream's error record: the server's code and message. */
    static final class Failed extends IOException {
        private static final long serialVersionUID = 1L;
        final String code;

        Failed(String code, String message) {
            super(code + ": " + message);
            this.code = code;
        }

        boolean transientError() {
            return code.contains(".TransientError.");
        }
    }

    private static final class Keeping extends MessageChannelReader {
        Message last;

        Keeping(ReadChannel in, BufferAllocator allocator) {
            super(in, allocator);
        }

        @Override
        public MessageResult readNext() throws IOException {
            MessageResult result = super.readNext();
            last = result == null ? null : result.getMessage();
            return result;
        }
    }

    private final InputStream body;
    private final Keeping messages;
    private final ArrowStreamReader reader;
    final Schema schema;
    final VectorSchemaRoot root;
    /** The closing record's metadata once read (end: counts and state), else null. */
    Map<String, String> end;

    ArrowStream(InputStream body, BufferAllocator allocator) throws IOException {
        this.body = body;
        this.messages = new Keeping(new ReadChannel(Channels.newChannel(body)), allocator);
        this.reader = new ArrowStreamReader(messages, allocator);
        try {
            this.root = reader.getVectorSchemaRoot();
        } catch (IOException | RuntimeException e) {
            reader.close();
            throw cut("the stream ended or failed before its schema", e);
        }
        this.schema = root.getSchema();
    }

    String meta(String key) {
        String v = schema.getCustomMetadata().get(key);
        return v == null ? "" : v;
    }

    DenseUnionVector element() {
        return (DenseUnionVector) root.getVector(0);
    }

    Dictionary dictionary(long id) {
        return reader.lookup(id);
    }

    /**
     * Loads the next batch of records: true, or false once the closing record was read ({@link #end}). Throws
     * {@link Failed} for an error record, {@link Cut} when the stream ends or breaks before it.
     */
    boolean next() throws IOException {
        boolean loaded;
        try {
            loaded = reader.loadNextBatch();
        } catch (IOException | RuntimeException e) {
            throw cut("the stream broke off", e);
        }
        if (!loaded) {
            throw new Cut("the stream ended without its closing record (cut off)", new EOFException());
        }
        Message m = messages.last;
        if (root.getRowCount() > 0 || m == null || m.headerType() != MessageHeader.RecordBatch
                || m.customMetadataLength() == 0) {
            return true;
        }
        Map<String, String> meta = new HashMap<>();
        for (int i = 0; i < m.customMetadataLength(); i++) {
            KeyValue kv = m.customMetadata(i);
            meta.put(kv.key(), kv.value());
        }
        String record = meta.get(Wire.Arrow.META_RECORD);
        if ("end".equals(record)) {
            end = meta;
            return false;
        }
        if ("error".equals(record)) {
            throw new Failed(meta.getOrDefault(Wire.Arrow.META_CODE, ""), meta.getOrDefault(Wire.Arrow.META_MESSAGE, ""));
        }
        return true;
    }

    private static Cut cut(String what, Throwable e) {
        return e instanceof Cut c ? c : new Cut(what + ": " + e, e);
    }

    @Override
    public void close() {
        try {
            reader.close();
        } catch (IOException | RuntimeException ignored) {
            // the connection is being dropped anyway
        }
        try {
            body.close();
        } catch (IOException ignored) {
            // as above
        }
    }
}
