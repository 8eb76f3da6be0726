package org.subgraphexport.encode;

import java.util.Locale;
import java.util.Optional;

/**
 * The HTTP content codings (RFC 9110, section 8.4.1) an export response can be sent in, in the server's order of
 * preference: {@code zstd} (zstd-jni, from the server's {@code lib/}), {@code gzip} (the JDK), and
 * {@code identity} (none). {@link AsyncBlockOutputStream#open} compresses into one.
 */
public enum ContentCoding {
    ZSTD("zstd"),
    GZIP("gzip"),
    IDENTITY("identity");

    private static final boolean ZSTD_AVAILABLE = zstdAvailable();

    private final String token;

    ContentCoding(String token) {
        this.token = token;
    }

    /** The name in {@code Accept-Encoding} and {@code Content-Encoding}. */
    public String token() {
        return token;
    }

    /** Whether this server can write it: zstd needs zstd-jni and its native library. */
    public boolean available() {
        return this != ZSTD || ZSTD_AVAILABLE;
    }

    private static boolean zstdAvailable() {
        try {
            return ZstdCoding.available();
        } catch (LinkageError noZstdJni) {  // the class itself does not load without zstd-jni
            return false;
        }
    }

    /**
     * The coding named {@code name} (case-insensitive; {@code x-gzip} is gzip, as RFC 9110 section 8.4.1.3 asks), or
     * empty for a coding this server does not know.
     */
    public static Optional<ContentCoding> of(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        if (n.equals("x-gzip")) return Optional.of(GZIP);
        for (ContentCoding c : values()) {
            if (c.token.equals(n)) return Optional.of(c);
        }
        return Optional.empty();
    }
}
