package org.subgraphexport.client.internal;

import java.io.IOException;
import org.subgraphexport.client.CorruptStreamException;

/** Thrown by decoding helpers about bad bytes; the reader turns it into a {@link CorruptStreamException}. */
final class DecodeException extends IOException {
    private static final long serialVersionUID = 1L;

    DecodeException(String message) {
        super(message);
    }
}
