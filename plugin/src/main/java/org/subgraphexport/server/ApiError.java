package org.subgraphexport.server;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import javax.ws.rs.WebApplicationException;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;

/**
 * A request that fails before streaming starts: an HTTP status and a JSON body
 * {@code {"status":400,"code":"Export.InvalidParameter","message":"..."}}. Codes from Neo4j (e.g.
 * {@code Neo.ClientError.Statement.SyntaxError}) are passed through unchanged.
 */
public final class ApiError extends WebApplicationException {
    private static final JsonFactory JSON = new JsonFactory();

    public static final String INVALID_PARAMETER = "Export.InvalidParameter";
    public static final String BODY_TOO_LARGE = "Export.BodyTooLarge";
    public static final String UNKNOWN_FORMAT = "Export.UnknownFormat";
    public static final String ROOT_NOT_FOUND = "Export.RootNotFound";
    public static final String AMBIGUOUS_ROOT = "Export.AmbiguousRoot";
    public static final String DATABASE_NOT_FOUND = "Export.DatabaseNotFound";
    public static final String DATABASE_UNAVAILABLE = "Export.DatabaseUnavailable";

    private final String code;

    public ApiError(Response.Status status, String code, String message) {
        this(status, code, message, Map.of());
    }

    /** With response headers, such as {@code Retry-After} on a 503. */
    public ApiError(Response.Status status, String code, String message, Map<String, String> headers) {
        super(message, response(status.getStatusCode(), code, message, headers));
        this.code = code;
    }

    public String code() {
        return code;
    }

    public static ApiError badParameter(String message) {
        return new ApiError(Response.Status.BAD_REQUEST, INVALID_PARAMETER, message);
    }

    static Response response(int status, String code, String message) {
        return response(status, code, message, Map.of());
    }

    private static Response response(int status, String code, String message, Map<String, String> headers) {
        ByteArrayOutputStream body = new ByteArrayOutputStream(128);
        try (JsonGenerator json = JSON.createGenerator(body)) {
            json.writeStartObject();
            json.writeNumberField("status", status);
            json.writeStringField("code", code);
            json.writeStringField("message", message == null ? "" : message);
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Response.ResponseBuilder response = Response.status(status).type(MediaType.APPLICATION_JSON_TYPE);
        headers.forEach(response::header);
        return response.entity(body.toByteArray()).build();
    }
}
