package org.subgraphexport.client;

import java.io.IOException;

/**
 * The bytes are not a valid export stream: truncated (no closing record), garbage, an unsupported version, a
 * length beyond the decoder's limits. Failures of the underlying {@code InputStream} itself are not wrapped.
 */
public class CorruptStreamException extends IOException {
    private static final long serialVersionUID = 1L;

    public CorruptStreamException(String message) {
        super(message);
    }

    public CorruptStreamException(String message, Throwable cause) {
        super(message, cause);
    }
}
