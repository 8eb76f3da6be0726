package org.subgraphexport.client.internal;

import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import com.github.luben.zstd.util.Native;
import java.io.IOException;
import java.io.InputStream;

/**
 * The one class that touches zstd-jni, an optional dependency of the client. Without zstd-jni on the class path
 * this class does not even load ({@link NoClassDefFoundError}): callers ask {@link #available} once, catching that.
 */
public final class ZstdDecoding {
    private ZstdDecoding() {}

    /** Whether the native library loads. */
    public static boolean available() {
        try {
            Native.load();
            return Native.isLoaded();
        } catch (RuntimeException | UnsatisfiedLinkError e) {
            return false;
        }
    }

    /** A zstd-decompressing stream over {@code in}; a frame cut short fails when read to its end. */
    public static InputStream open(InputStream in) throws IOException {
        return new ZstdInputStreamNoFinalizer(in);
    }
}
