package org.subgraphexport.client;

import java.io.IOException;

/**
 * The server refused the export request before streaming: {@link ExportReader#open(java.net.http.HttpResponse)}
 * got a status other than 2xx. The extension's own errors have a JSON body
 * {@code {"status":400,"code":"Export.InvalidParameter","message":"..."}}; Neo4j's (e.g. 401 for missing
 * credentials) {@code {"errors":[{"code":"...","message":"..."}]}}: either gives {@link #code} and the message.
 * Other bodies give no code and their text (at most 1,000 characters) as the message.
 */
public class ExportRequestException extends IOException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String code;

    /**
     * @param status  the HTTP status, e.g. 404
     * @param code    the server's error code, e.g. {@code Export.RootNotFound}; null if the body had none
     * @param message the server's message, returned verbatim by {@link #getMessage}
     */
    public ExportRequestException(int status, String code, String message) {
        super(message);
        this.status = status;
        this.code = code;
    }

    /** The HTTP status. */
    public int status() {
        return status;
    }

    /** The server's error code, e.g. {@code Export.RootNotFound}, or null if the response body had none. */
    public String code() {
        return code;
    }

    @Override
    public String toString() {
        return getClass().getName() + ": HTTP " + status + (code == null ? "" : " " + code) + ": " + getMessage();
    }
}
