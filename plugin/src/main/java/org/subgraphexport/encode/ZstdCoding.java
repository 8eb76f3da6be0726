package org.subgraphexport.encode;

import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import com.github.luben.zstd.util.Native;
import java.io.IOException;
import java.io.OutputStream;

/**
 * The one class that touches zstd-jni, which the plugin does not bundle: every Neo4j server ships it in
 * {@code lib/} (5.26.30: 1.5.6-6, 2025.10.1: 1.5.7-4, 2026.08.1: 1.5.7-11), and only API that 1.5.6-6 already had
 * is used. Loaded only through {@link #available} and {@link #codec}, so a server without it (or whose native
 * library does not load) simply offers no zstd.
 */
final class ZstdCoding {
    private ZstdCoding() {}

    /** Loads the native library; false if the class or the library is missing. */
    static boolean available() {
        try {
            Native.load();
            return Native.isLoaded();
        } catch (RuntimeException | LinkageError e) {
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
