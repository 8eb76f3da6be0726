package org.subgraphexport.encode;

import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import com.github.luben.zstd.util.Native;
import java.io.IOException;
import java.io.OutputStream;

/**
 * The one class that touches zstd-jni, which the plugin does not bundle: every Neo4j server ships it in
 * {@code lib/} (5.26.30: 1.5.6-6, 2025.10.1: 1.5.7-4, 2026.08.1: 1.5.7-11), and only API that 1.5.6-6 already had
 * is used. Without zstd-jni this class does not load at all ({@link NoClassDefFoundError}); {@link ContentCoding}
 * asks {@link #available} once, catching that, so a server without it (or whose native library does not load)
 * simply offers no zstd.
 */
final class ZstdCoding {
    private ZstdCoding() {}

    /** Loads the native library; false if it does not load. */
    static boolean available() {
        try {
            Native.load();
            return Native.isLoaded();
        } catch (RuntimeException | UnsatisfiedLinkError e) {
            return false;
        }
    }

    /** One zstd frame over everything written, at {@code level}; no checksum (TCP and the record stream check). */
    static AsyncBlockOutputStream.Codec codec(OutputStream target, int level) throws IOException {
        return new AsyncBlockOutputStream.StreamCodec(target, gate -> new ZstdOutputStreamNoFinalizer(gate, level) {
            @Override
            public synchronized void close() throws IOException {
                closeWithoutClosingParentStream();
            }
        });
    }
}
