package org.subgraphexport.encode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.ning.compress.lzf.ChunkEncoder;
import com.ning.compress.lzf.LZFChunk;
import com.ning.compress.lzf.LZFDecoder;
import com.ning.compress.lzf.util.ChunkEncoderFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.TokenNames;
import org.subgraphexport.wire.Wire;

/**
 * kryo-lzf is the exact kryo stream in full LZF chunks: Kryo flushes its 64 KiB buffer into the LZF stream, which
 * must not finish a chunk on flush, so every chunk but the last holds {@link LZFChunk#MAX_CHUNK_LEN} bytes.
 */
class LzfChunkTest {
    @Test
    void everyChunkButTheLastIsFull() throws IOException {
        assertEquals(0xFFFF, LZFChunk.MAX_CHUNK_LEN);
        assertEquals(LZFChunk.MAX_CHUNK_LEN, Wire.LZF_CHUNK_LENGTH);

        byte[] kryo = largeExport(Format.KRYO);
        byte[] lzf = largeExport(Format.KRYO_LZF);
        assertTrue(kryo.length > 20 * LZFChunk.MAX_CHUNK_LEN, "large enough: " + kryo.length);

        List<Integer> chunks = new ArrayList<>();
        int pos = 0;
        while (pos < lzf.length) {
            assertEquals('Z', lzf[pos]);
            assertEquals('V', lzf[pos + 1]);
            int type = lzf[pos + 2];
            int length = u16(lzf, pos + 3);
            if (type == LZFChunk.BLOCK_TYPE_NON_COMPRESSED) {
                chunks.add(length);
                pos += LZFChunk.HEADER_LEN_NOT_COMPRESSED + length;
            } else {
                assertEquals(LZFChunk.BLOCK_TYPE_COMPRESSED, type);
                chunks.add(u16(lzf, pos + 5));
                pos += LZFChunk.HEADER_LEN_COMPRESSED + length;
            }
        }
        assertEquals(lzf.length, pos);
        for (int i = 0; i < chunks.size() - 1; i++) {
            assertEquals(LZFChunk.MAX_CHUNK_LEN, chunks.get(i), "chunk " + i + " of " + chunks.size());
        }
        assertEquals(kryo.length, chunks.stream().mapToLong(Integer::longValue).sum());
        assertArrayEquals(kryo, LZFDecoder.decode(lzf), "kryo-lzf is the kryo stream, compressed");
    }

    /** Compression runs on the compressor thread, never on the thread that writes records. */
    @Test
    void compressionRunsOffTheWritingThread() throws IOException {
        java.util.Set<String> writers = java.util.concurrent.ConcurrentHashMap.newKeySet();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        java.io.OutputStream target = new java.io.FilterOutputStream(bytes) {
            @Override
            public synchronized void write(byte[] b, int off, int len) throws IOException {
                writers.add(Thread.currentThread().getName());
                out.write(b, off, len);
            }
        };
        byte[] kryo = largeExport(Format.KRYO);
        GraphWriter w = Encoders.open(Format.KRYO_LZF, target);
        writeLarge(w);
        assertEquals(java.util.Set.of("subgraph-export-compressor"), writers);
        assertArrayEquals(kryo, LZFDecoder.decode(bytes.toByteArray()));
    }

    /**
     * The test JVM runs with Neo4j's {@code --sun-misc-unsafe-memory-access=allow}, so the streams (golden files
     * included) come from the Unsafe encoder; its chunks are the plain encoder's, byte for byte.
     */
    @Test
    void theUnsafeEncoderWritesThePlainEncodersBytes() throws IOException {
        assertTrue(AsyncBlockOutputStream.UNSAFE_ENCODER, "the Unsafe encoder is used where Unsafe access is allowed");
        byte[] kryo = largeExport(Format.KRYO);
        ByteArrayOutputStream plain = new ByteArrayOutputStream();
        try (ChunkEncoder encoder = ChunkEncoderFactory.safeInstance(LZFChunk.MAX_CHUNK_LEN)) {
            for (int at = 0; at < kryo.length; at += LZFChunk.MAX_CHUNK_LEN) {
                encoder.encodeAndWriteChunk(kryo, at, Math.min(LZFChunk.MAX_CHUNK_LEN, kryo.length - at), plain);
            }
        }
        assertArrayEquals(plain.toByteArray(), largeExport(Format.KRYO_LZF));
    }

    private static int u16(byte[] b, int at) {
        return (b[at] & 0xFF) << 8 | (b[at + 1] & 0xFF);
    }

    /** 20,000 nodes with pseudo-random text: about 2 MB of kryo. */
    static byte[] largeExport(Format format) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        writeLarge(Encoders.open(format, out));
        return out.toByteArray();
    }

    private static void writeLarge(GraphWriter w) throws IOException {
        w.header(FixtureStream.HEADER, new SimpleTokens());
        Random random = new Random(5);
        int[] labels = {1, 2};
        char[] text = new char[80];
        for (int i = 0; i < 20_000; i++) {
            w.beginNode(i, labels, 1 + i % 2);
            w.property(i % 7);
            for (int k = 0; k < text.length; k++) {
                text[k] = (char) ('a' + random.nextInt(26));
            }
            w.writeString(new String(text));
            w.property(7);
            w.writeLong(random.nextLong());
            w.endNode();
        }
        w.end(20_000, 0, false);
        w.finish();
    }

    static final class SimpleTokens implements TokenNames {
        @Override
        public String label(int id) {
            return "Label" + id;
        }

        @Override
        public String relationshipType(int id) {
            return "TYPE_" + id;
        }

        @Override
        public String propertyKey(int id) {
            return "key" + id;
        }
    }
}
