package org.subgraphexport.bench;

import java.io.IOException;
import org.subgraphexport.wire.Format;

/**
 * The wire floor: {@code GET /floor/bytes}, the exact bytes of the kryo traverse export held in memory and
 * streamed by a trivial JAX-RS resource in the same server. Raw: the client only reads the bytes (Jetty, Jersey,
 * loopback TCP, the HTTP client). Decoded: the client also decodes them with the project's ExportReader, so the
 * difference to the kryo traverse row is the time the server spends reading the graph and encoding it.
 */
final class FloorRow implements Row {
    private final boolean decode;

    FloorRow(boolean decode) {
        this.decode = decode;
    }

    @Override
    public String name() {
        return decode ? "floor kryo decoded" : "floor raw bytes";
    }

    @Override
    public String description() {
        return decode
                ? "GET /floor/bytes: the kryo export's bytes from memory, decoded by ExportReader"
                : "GET /floor/bytes: the kryo export's bytes from memory, read and dropped";
    }

    @Override
    public Kind kind() {
        return Kind.FLOOR;
    }

    @Override
    public String countsNote() {
        return decode ? null : "not decoded: bytes only";
    }

    @Override
    public Outcome run(Endpoints endpoints, boolean keepIds) throws IOException {
        long start = System.nanoTime();
        Http.Body body = Http.get(endpoints.http().resolve("/floor/bytes"), "application/octet-stream");
        if (decode) {
            Tally tally = ExtensionRow.decode(Format.KRYO, body, keepIds);
            return new Outcome(body.count(), tally.nodes(), tally.relationships(), System.nanoTime() - start, tally);
        }
        try (body) {
            body.drain();
        }
        return new Outcome(body.count(), -1, -1, System.nanoTime() - start, null);
    }
}
