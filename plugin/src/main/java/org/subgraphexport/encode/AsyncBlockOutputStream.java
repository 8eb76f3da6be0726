package org.subgraphexport.encode;

import com.ning.compress.lzf.ChunkEncoder;
import com.ning.compress.lzf.LZFChunk;
import com.ning.compress.lzf.util.ChunkEncoderFactory;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

/**
 * Compression off the writing thread: bytes are cut into full blocks (the last one shorter) and handed to a
 * compressor thread, which compresses each block with its {@link Codec} and writes the result to the target. One
 * design for the {@code kryo-lzf} format (one LZF chunk per {@link LZFChunk#MAX_CHUNK_LEN} block: byte for byte
 * what {@code LZFOutputStream} with {@code finishBlockOnFlush=false} writes) and for the HTTP content codings
 * {@code zstd} and {@code gzip} ({@link ContentCoding}: one frame over the whole response, fed a block at a time).
 * {@link #flush} does not cut a block; {@link #finish} compresses the last one and completes the frame.
 *
 * <p>Memory: four block buffers per stream, reused, plus the codec's own state; the writer blocks when the
 * compressor is two blocks behind. A failure of the compressor (the client went away) surfaces as an
 * {@link IOException} from the next {@link #write} or {@link #finish}. {@link #abort} stops the compressor without
 * completing the stream and releases the codec.
 */
public final class AsyncBlockOutputStream extends OutputStream {
    /** Block size of the {@code zstd} and {@code gzip} codings: zstd's own block size, 128 KiB. */
    static final int CODING_BLOCK = 128 * 1024;
    private static final long POLL_MILLIS = 50;
    private static final ExecutorService COMPRESSORS = Executors.newCachedThreadPool(runnable -> {
        Thread t = new Thread(runnable, "subgraph-export-compressor");
        t.setDaemon(true);
        return t;
    });

    /**
     * Whether compress-lzf's {@code sun.misc.Unsafe} encoder is used: it writes the very bytes of the plain Java
     * encoder, with about 10% less CPU on the demo export (LzfProbe figures in issue #7's notes). Only where Unsafe
     * memory access is allowed without a warning: Java before 24, or a JVM started with
     * {@code --sun-misc-unsafe-memory-access=allow}, as Neo4j starts its own; and only if it encodes a sample chunk
     * to the plain encoder's bytes. Elsewhere the plain encoder.
     */
    static final boolean UNSAFE_ENCODER = unsafeEncoderWorks();

    /** Compresses blocks in order, on the compressor thread, which creates it ({@link Factory}) and alone uses it. */
    interface Codec {
        /** Compresses one block and writes what it can to the target. */
        void block(byte[] data, int length) throws IOException;

        /** Writes the rest of the compressed stream (the frame's end, a trailer). */
        void end() throws IOException;

        /** Frees what the codec holds; writes nothing. Called once, after {@link #end} or instead of it. */
        void release();
    }

    /** Makes the codec of one stream over its target. */
    @FunctionalInterface
    interface Factory {
        Codec open(OutputStream target) throws IOException;
    }

    private record Block(byte[] data, int length) {}

    private static final Block END = new Block(new byte[0], 0);

    private final OutputStream target;
    private final Factory codecs;
    private final BlockingQueue<Block> full = new ArrayBlockingQueue<>(2);
    private final BlockingQueue<byte[]> free = new ArrayBlockingQueue<>(4);
    private final CountDownLatch done = new CountDownLatch(1);
    private final int blockSize;
    private volatile Throwable failure;
    private volatile boolean aborted;
    private byte[] current;
    private int position;
    private boolean finished;

    private AsyncBlockOutputStream(OutputStream target, int blockSize, Factory codecs) {
        this.target = target;
        this.blockSize = blockSize;
        this.codecs = codecs;
        for (int i = 0; i < 4; i++) {
            free.add(new byte[blockSize]);
        }
        current = free.poll();
        COMPRESSORS.execute(this::compress);
    }

    /** The {@code kryo-lzf} compressor: one LZF chunk per full block of {@link LZFChunk#MAX_CHUNK_LEN} bytes. */
    static AsyncBlockOutputStream lzf(OutputStream target) {
        return new AsyncBlockOutputStream(target, LZFChunk.MAX_CHUNK_LEN, LzfCodec::new);
    }

    /**
     * A compressor writing {@code coding} (not {@link ContentCoding#IDENTITY}) to {@code target}: one zstd frame
     * at {@code zstdLevel}, or one gzip member at deflate level 1, over everything written until {@link #finish}.
     */
    public static AsyncBlockOutputStream open(ContentCoding coding, OutputStream target, int zstdLevel) {
        return switch (coding) {
            case ZSTD -> new AsyncBlockOutputStream(target, CODING_BLOCK, t -> ZstdCoding.codec(t, zstdLevel));
            case GZIP -> new AsyncBlockOutputStream(target, CODING_BLOCK, t -> new StreamCodec(t, Gzip::new));
            case IDENTITY -> throw new IllegalArgumentException("identity is no compression");
        };
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        if (finished) throw new IOException("stream already finished");
        while (len > 0) {
            int n = Math.min(len, blockSize - position);
            System.arraycopy(b, off, current, position, n);
            position += n;
            off += n;
            len -= n;
            if (position == blockSize) {
                handOff(new Block(current, position));
                current = take();
                position = 0;
            }
        }
    }

    /** Does not cut a block (as LZFOutputStream with finishBlockOnFlush=false); only checks the compressor. */
    @Override
    public void flush() throws IOException {
        checkFailure();
    }

    /** Compresses what is left, completes the frame, waits until everything is written, and flushes the target. */
    public void finish() throws IOException {
        if (finished) return;
        finished = true;
        if (position > 0) {
            handOff(new Block(current, position));
        }
        handOff(END);
        try {
            while (!done.await(POLL_MILLIS, TimeUnit.MILLISECONDS)) {
                checkFailure();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            abort();
            throw new InterruptedIOException("interrupted while finishing compression");
        }
        checkFailure();
        target.flush();
    }

    /** Stops the compressor without completing the stream; safe at any time, also after {@link #finish}. */
    public void abort() {
        aborted = true;
        finished = true;
    }

    /** {@link #finish}; the target stays open. */
    @Override
    public void close() throws IOException {
        finish();
    }

    private void handOff(Block block) throws IOException {
        try {
            while (!full.offer(block, POLL_MILLIS, TimeUnit.MILLISECONDS)) {
                checkFailure();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            abort();
            throw new InterruptedIOException("interrupted while handing a block to the compressor");
        }
    }

    private byte[] take() throws IOException {
        try {
            byte[] buffer;
            while ((buffer = free.poll(POLL_MILLIS, TimeUnit.MILLISECONDS)) == null) {
                checkFailure();
            }
            return buffer;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            abort();
            throw new InterruptedIOException("interrupted while waiting for the compressor");
        }
    }

    private void checkFailure() throws IOException {
        Throwable f = failure;
        if (f != null) {
            throw f instanceof IOException io ? io : new IOException("compression failed: " + f, f);
        }
    }

    /** The compressor thread: compresses blocks in order until END (then ends the frame), a failure or an abort. */
    private void compress() {
        Codec codec = null;
        try {
            codec = codecs.open(target);
            while (true) {
                Block block = full.poll(POLL_MILLIS, TimeUnit.MILLISECONDS);
                if (block == null) {
                    if (aborted) return;
                    continue;
                }
                if (block == END) {
                    codec.end();
                    return;
                }
                codec.block(block.data(), block.length());
                free.offer(block.data());
            }
        } catch (Throwable t) {
            failure = t;
        } finally {
            if (codec != null) codec.release();
            done.countDown();
        }
    }

    // ---- codecs -------------------------------------------------------------------------------------------

    /** LZF: each block one chunk, nothing at the end. */
    private static final class LzfCodec implements Codec {
        private final ChunkEncoder encoder = UNSAFE_ENCODER
                ? ChunkEncoderFactory.optimalInstance(LZFChunk.MAX_CHUNK_LEN)
                : ChunkEncoderFactory.safeInstance(LZFChunk.MAX_CHUNK_LEN);
        private final OutputStream target;

        LzfCodec(OutputStream target) {
            this.target = target;
        }

        @Override
        public void block(byte[] data, int length) throws IOException {
            encoder.encodeAndWriteChunk(data, 0, length, target);
        }

        @Override
        public void end() {}

        @Override
        public void release() {
            encoder.close();
        }
    }

    /**
     * A compressing {@link OutputStream} (zstd-jni's, the JDK's gzip) as a codec: blocks are written to it, its
     * {@code close} ends the frame. It writes through a gate that never closes the target and, once the codec is
     * released, drops whatever the stream still writes while it frees its state.
     */
    static final class StreamCodec implements Codec {
        /** Opens the compressing stream over the gate. */
        @FunctionalInterface
        interface Opener {
            OutputStream open(OutputStream gate) throws IOException;
        }

        private final Gate gate;
        private final OutputStream compressor;

        StreamCodec(OutputStream target, Opener opener) throws IOException {
            this.gate = new Gate(target);
            this.compressor = opener.open(gate);
        }

        @Override
        public void block(byte[] data, int length) throws IOException {
            compressor.write(data, 0, length);
        }

        @Override
        public void end() throws IOException {
            compressor.close();
        }

        @Override
        public void release() {
            gate.open = false;
            try {
                compressor.close();  // a no-op after end(); frees native state otherwise (its output is dropped)
            } catch (IOException | RuntimeException ignored) {
                // nothing reaches the target any more, and the stream's first failure was reported already
            }
        }
    }

    /** Passes writes and flushes to the target while open; never closes it. */
    private static final class Gate extends FilterOutputStream {
        volatile boolean open = true;

        Gate(OutputStream target) {
            super(target);
        }

        @Override
        public void write(int b) throws IOException {
            if (open) out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (open) out.write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
            if (open) out.flush();
        }

        @Override
        public void close() {
            // the target belongs to the caller
        }
    }

    /** The JDK's gzip at deflate level 1 (BEST_SPEED), which compresses several times faster than the default 6. */
    private static final class Gzip extends GZIPOutputStream {
        Gzip(OutputStream out) throws IOException {
            super(out, CODING_BLOCK);
            def.setLevel(Deflater.BEST_SPEED);
        }

        @Override
        public void close() throws IOException {
            finish();   // the trailer; then free the deflater (GZIPOutputStream.close would also close the gate)
            def.end();
        }
    }

    private static boolean unsafeEncoderWorks() {
        boolean allowed = Runtime.version().feature() < 24 || ManagementFactory.getRuntimeMXBean().getInputArguments()
                .contains("--sun-misc-unsafe-memory-access=allow");
        if (!allowed) return false;
        int chunk = LZFChunk.MAX_CHUNK_LEN;
        byte[] sample = new byte[chunk];
        for (int i = 0; i < sample.length; i++) {
            sample[i] = (byte) ((i * 31) ^ (i >>> 7)); // repeats with variations: both literal runs and back-references
        }
        ChunkEncoder safe = ChunkEncoderFactory.safeInstance(chunk);
        try (ChunkEncoder optimal = ChunkEncoderFactory.optimalInstance(chunk)) {
            if (optimal.getClass() == safe.getClass()) return false;
            return Arrays.equals(safe.encodeChunk(sample, 0, chunk).getData(),
                    optimal.encodeChunk(sample, 0, chunk).getData());
        } catch (RuntimeException | LinkageError e) {
            return false; // Unsafe missing or denied: the plain encoder
        } finally {
            safe.close();
        }
    }
}
