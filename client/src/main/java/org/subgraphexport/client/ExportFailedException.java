package org.subgraphexport.client;

import java.io.IOException;

/**
 * The server reported, in the stream's closing error record, that the export failed after streaming had
 * started. The records before it were delivered; the export is incomplete.
 */
public class ExportFailedException extends IOException {
    private static final long serialVersionUID = 1L;

    private final String code;

    /**
     * @param code    the server's error code, e.g. {@code Neo.TransientError.Transaction.Terminated}
     * @param message the server's message, returned verbatim by {@link #getMessage}
     */
    public ExportFailedException(String code, String message) {
        super(message);
        this.code = code;
    }

    /** The server's error code. */
    public String code() {
        return code;
    }

    @Override
    public String toString() {
        return getClass().getName() + ": " + code + ": " + getMessage();
    }
}
