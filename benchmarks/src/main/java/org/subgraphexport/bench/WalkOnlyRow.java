package org.subgraphexport.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.subgraphexport.bench.floor.WalkOnlyResource;

/**
 * The walk alone: {@code GET /floor/walk?root=…} ({@link WalkOnlyResource}) runs the traverse endpoint's walk, every
 * value read and handed to a writer that encodes nothing, and answers the counts in a few bytes. Next to the
 * {@code traverse kryo bytes} row (the same walk, encoded and sent, body read and dropped) it shows what encoding and
 * the wire add (README, issue #7 target 2).
 */
final class WalkOnlyRow implements Row {
    private static final Pattern COUNTS = Pattern.compile("\"nodes\":(\\d+),\"relationships\":(\\d+),\"truncated\":false");

    private final String rootElementId;

    WalkOnlyRow(String rootElementId) {
        this.rootElementId = rootElementId;
    }

    @Override
    public String name() {
        return "walk only";
    }

    @Override
    public String description() {
        return "GET /floor/walk?root=…: the traverse endpoint's walk (same read classes and read_threads, every property "
                + "value read and passed to a writer) into a writer that encodes nothing; answers the counts in a "
                + "few bytes";
    }

    @Override
    public Kind kind() {
        return Kind.FLOOR;
    }

    @Override
    public String countsNote() {
        return null; // the server's counts of what it walked, checked like a decoder's
    }

    @Override
    public Outcome run(Endpoints endpoints, boolean keepIds) throws IOException {
        long start = System.nanoTime();
        String answer;
        long bytes;
        try (Http.Body body = Http.get(endpoints.http().resolve("/floor/walk?root=" + Http.enc(rootElementId)),
                "application/json")) {
            answer = new String(body.readAllBytes(), StandardCharsets.UTF_8);
            bytes = body.count();
        }
        long nanos = System.nanoTime() - start;
        Matcher m = COUNTS.matcher(answer);
        if (!m.find()) throw new IllegalStateException("walk only answered " + answer);
        return new Outcome(bytes, Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), nanos, null);
    }
}
