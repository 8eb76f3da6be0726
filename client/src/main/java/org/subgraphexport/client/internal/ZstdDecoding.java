package org.subgraphexport.client.internal;

import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import com.github.luben.zstd.util.Native;
import java.io.IOException;
import java.io.InputStream;

/**
 * The one class that touches zstd-jni, an optional dependency of the client: loaded only through
 * {@link #available} and {@link #open}, so a class path without it works for every other coding.
 */
public final class ZstdDecoding {
    private static final boolean AVAILABLE = load();

    private ZstdDecoding() {}

    /** Whether zstd-jni and its native library are there. */
    public static boolean available() {
        return AVAILABLE;
    }

    /** A zstd-decompressing stream over {@code in}; a frame cut short fails when read to its end. */
    public static InputStream open(InputStream in) throws IOException {
        if (!AVAILABLE) {
            throw new IOException("the response is zstd-compressed, and zstd-jni (com.github.luben:zstd-jni) is not "
                    + "on the class path: add it, or ask without zstd (ContentEncodings.acceptEncoding())");
        }
        return new ZstdInputStreamNoFinalizer(in);
    }

    private static boolean load() {
        try {
            Native.load();
            return Native.isLoaded();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }
}
