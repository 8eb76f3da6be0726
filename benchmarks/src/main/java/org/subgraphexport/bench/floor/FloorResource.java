package org.subgraphexport.bench.floor;

import java.util.concurrent.atomic.AtomicReference;
import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.core.Response;
import javax.ws.rs.core.StreamingOutput;

/**
 * Benchmark only: the wire floor. {@code GET /floor/bytes} streams a byte array that the benchmark put here
 * beforehand (the exact bytes of a kryo export), in 64 KiB writes like the export writers' buffer, with no
 * database, no transaction and no encoding. What is left is Jetty, Jersey, loopback TCP and the client.
 *
 * <p>Mounted as a second unmanaged extension ({@code org.subgraphexport.bench.floor=/floor}); the server and
 * the benchmark share one JVM, so the bytes are handed over through a static field.
 */
@Path("/bytes")
public final class FloorResource {
    /** Write size: what every writer hands to the servlet stream at a time ({@code Wire.HAND_OVER_BYTES}). */
    static final int CHUNK = 64 * 1024;
    static final String MEDIA_TYPE = "application/octet-stream";
    private static final AtomicReference<byte[]> PAYLOAD = new AtomicReference<>(new byte[0]);

    /** Sets what {@code GET /floor/bytes} sends from now on. */
    public static void serve(byte[] payload) {
        PAYLOAD.set(payload.clone());
    }

    @GET
    public Response bytes() {
        byte[] payload = PAYLOAD.get();
        StreamingOutput body = out -> {
            for (int off = 0; off < payload.length; off += CHUNK) {
                out.write(payload, off, Math.min(CHUNK, payload.length - off));
            }
            out.flush();
        };
        return Response.ok(body, MEDIA_TYPE).build();
    }
}
