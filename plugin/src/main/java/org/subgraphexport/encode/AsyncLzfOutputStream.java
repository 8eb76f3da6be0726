package org.subgraphexport.encode;

import com.ning.compress.lzf.ChunkEncoder;
import com.ning.compress.lzf.LZFChunk;
import com.ning.compress.lzf.util.ChunkEncoderFactory;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * LZF compression off the writing thread: bytes are cut into full {@link LZFChunk#MAX_CHUNK_LEN} chunks (the
 * last one shorter) and handed to a compressor thread, which encodes each chunk and writes it to the target.
 * The output is byte for byte what {@code LZFOutputStream} with {@code finishBlockOnFlush=false} writes (same
 * encoder, same chunk boundaries); {@link #flush} does not cut a chunk.
 *
 * <p>Memory: four chunk buffers per stream, reused; the writer blocks when the compressor is two chunks
 * behind. A failure of the compressor (the client went away) surfaces as an {@link IOException} from the next
 * {@link #write} or {@link #finish}. {@link #abort} stops the compressor without completing the stream.
 */
final class AsyncLzfOutputStream extends OutputStream {
    private static final int CHUNK = LZFChunk.MAX_CHUNK_LEN;
    private static final long POLL_MILLIS = 50;
    private static final ExecutorService COMPRESSORS = Executors.newCachedThreadPool(runnable -> {
        Thread t = new Thread(runnable, "subgraph-export-lzf");
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

    private record Chunk(byte[] data, int length) {}

    private static final Chunk END = new Chunk(new byte[0], 0);

    private final OutputStream target;
    private final BlockingQueue<Chunk> full = new ArrayBlockingQueue<>(2);
    private final BlockingQueue<byte[]> free = new ArrayBlockingQueue<>(4);
    private final java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
    private volatile Throwable failure;
    private volatile boolean aborted;
    private byte[] current;
    private int position;
    private boolean finished;

    AsyncLzfOutputStream(OutputStream target) {
        this.target = target;
        for (int i = 0; i < 4; i++) {
            free.add(new byte[CHUNK]);
        }
        current = free.poll();
        COMPRESSORS.execute(this::compress);
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        if (finished) throw new IOException("stream already finished");
        while (len > 0) {
            int n = Math.min(len, CHUNK - position);
            System.arraycopy(b, off, current, position, n);
            position += n;
            off += n;
            len -= n;
            if (position == CHUNK) {
                handOff(new Chunk(current, position));
                current = take();
                position = 0;
            }
        }
    }

    /** Does not cut a chunk (as LZFOutputStream with finishBlockOnFlush=false); only checks the compressor. */
    @Override
    public void flush() throws IOException {
        checkFailure();
    }

    /** Compresses what is left, waits until everything is written, and flushes the target (not closing it). */
    void finish() throws IOException {
        if (finished) return;
        finished = true;
        if (position > 0) {
            handOff(new Chunk(current, position));
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
    void abort() {
        aborted = true;
        finished = true;
    }

    @Override
    public void close() throws IOException {
        finish();
    }

    private void handOff(Chunk chunk) throws IOException {
        try {
            while (!full.offer(chunk, POLL_MILLIS, TimeUnit.MILLISECONDS)) {
                checkFailure();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            abort();
            throw new InterruptedIOException("interrupted while handing a chunk to the compressor");
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
            throw f instanceof IOException io ? io : new IOException("LZF compression failed: " + f, f);
        }
    }

    private static ChunkEncoder newEncoder() {
        return UNSAFE_ENCODER ? ChunkEncoderFactory.optimalInstance(CHUNK) : ChunkEncoderFactory.safeInstance(CHUNK);
    }

    private static boolean unsafeEncoderWorks() {
        boolean allowed = Runtime.version().feature() < 24 || ManagementFactory.getRuntimeMXBean().getInputArguments()
                .contains("--sun-misc-unsafe-memory-access=allow");
        if (!allowed) return false;
        byte[] sample = new byte[CHUNK];
        for (int i = 0; i < sample.length; i++) {
            sample[i] = (byte) ((i * 31) ^ (i >>> 7)); // repeats with variations: both literal runs and back-references
        }
        ChunkEncoder safe = ChunkEncoderFactory.safeInstance(CHUNK);
        try (ChunkEncoder optimal = ChunkEncoderFactory.optimalInstance(CHUNK)) {
            if (optimal.getClass() == safe.getClass()) return false;
            return Arrays.equals(safe.encodeChunk(sample, 0, CHUNK).getData(),
                    optimal.encodeChunk(sample, 0, CHUNK).getData());
        } catch (RuntimeException | LinkageError e) {
            return false; // Unsafe missing or denied: the plain encoder
        } finally {
            safe.close();
        }
    }

    /** The compressor thread: encodes chunks in order until END, a failure or an abort. */
    private void compress() {
        ChunkEncoder encoder = newEncoder();
        try {
            while (true) {
                Chunk chunk = full.poll(POLL_MILLIS, TimeUnit.MILLISECONDS);
                if (chunk == null) {
                    if (aborted) return;
                    continue;
                }
                if (chunk == END) return;
                encoder.encodeAndWriteChunk(chunk.data(), 0, chunk.length(), target);
                free.offer(chunk.data());
            }
        } catch (Throwable t) {
            failure = t;
        } finally {
            encoder.close();
            done.countDown();
        }
    }
}
