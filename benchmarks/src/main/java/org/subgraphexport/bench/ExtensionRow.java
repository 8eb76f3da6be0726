package org.subgraphexport.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.util.Arrays;
import java.util.Objects;
import org.subgraphexport.client.ContentEncodings;
import org.subgraphexport.client.ElementId;
import org.subgraphexport.client.ExportEnd;
import org.subgraphexport.client.ExportNode;
import org.subgraphexport.client.ExportParser;
import org.subgraphexport.client.ExportReader;
import org.subgraphexport.client.ExportRecord;
import org.subgraphexport.client.ExportRelationship;
import org.subgraphexport.wire.Format;

/**
 * This project: {@code GET /extension/{format}/traverse?root=…} or {@code POST /extension/{format}/cypher} (graph
 * mode), decoded by the project's {@link ExportReader} straight from the HTTP stream, record by record, counting
 * (or, {@link Mode#STREAM}, by its streaming API {@link ExportParser}, every value touched).
 *
 * <p>Every request of the ordinary rows ({@link Mode#DECODE}, {@link Mode#BYTES}) sends
 * {@code Cache-Control: no-cache, no-store} ({@link Http#BYPASS_CACHE}): the benchmark server has the response cache
 * on, and these rows must read the store every time and pay for no copy kept for the cache. The repeat rows
 * ({@link Mode#CACHED}, {@link Mode#NOT_MODIFIED}, traverse only) measure the cache and the ETag instead.
 */
final class ExtensionRow implements Row {
    enum Endpoint { TRAVERSE, CYPHER }

    enum Mode {
        /** Read from the store, decoded. */
        DECODE,
        /**
         * Read from the store, decoded by the streaming API ({@link ExportParser}): every value handed to a
         * {@link TouchingHandler}, no record built.
         */
        STREAM,
        /** Read from the store, the body read and dropped, not decoded: encoding and wire without client decoding. */
        BYTES,
        /** Served from the server's response cache (filled by {@link #prepare}), decoded; asserts the hit header. */
        CACHED,
        /** {@code If-None-Match} with the response's ETag (taken in {@link #prepare}); asserts 304 and no body. */
        NOT_MODIFIED
    }

    /** The response header that says a traverse response came from the server-side cache. */
    static final String CACHE_HEADER = "X-Subgraph-Export-Cache";

    private final Endpoint endpoint;
    private final Format format;
    private final Mode mode;
    private final String rootElementId;
    private final String cypher;
    /** The content coding asked for in Accept-Encoding ({@code zstd}, {@code gzip}), or null: none. */
    private final String coding;
    /** The simulated link: the client's reads paced to this many bits per second; 0: loopback as it is. */
    private final long linkBitsPerSecond;
    private String etag;
    private long bodyBytes = -1;

    ExtensionRow(Endpoint endpoint, Format format, String rootElementId, String cypher) {
        this(endpoint, format, Mode.DECODE, rootElementId, cypher, null, 0);
    }

    /** A traverse row in the given mode. */
    static ExtensionRow traverse(Format format, Mode mode, String rootElementId) {
        return new ExtensionRow(Endpoint.TRAVERSE, format, mode, rootElementId, null, null, 0);
    }

    /**
     * A decoded traverse row asking for {@code coding} (null: none) over a link of {@code linkBitsPerSecond} (0:
     * loopback as it is, else the client's reads paced to that rate).
     */
    static ExtensionRow traverse(Format format, String coding, long linkBitsPerSecond, String rootElementId) {
        return new ExtensionRow(Endpoint.TRAVERSE, format, Mode.DECODE, rootElementId, null, coding, linkBitsPerSecond);
    }

    private ExtensionRow(Endpoint endpoint, Format format, Mode mode, String rootElementId, String cypher, String coding,
            long linkBitsPerSecond) {
        if (mode != Mode.DECODE && endpoint != Endpoint.TRAVERSE) {
            throw new IllegalArgumentException(mode + " is a traverse row");
        }
        this.endpoint = endpoint;
        this.format = format;
        this.mode = mode;
        this.rootElementId = rootElementId;
        this.cypher = cypher;
        this.coding = coding;
        this.linkBitsPerSecond = linkBitsPerSecond;
    }

    /** {@code 100 Mbit/s}, {@code 1 Gbit/s}. */
    static String link(long bitsPerSecond) {
        return bitsPerSecond % 1_000_000_000 == 0 ? bitsPerSecond / 1_000_000_000 + " Gbit/s"
                : bitsPerSecond / 1_000_000 + " Mbit/s";
    }

    @Override
    public String name() {
        String base = (endpoint == Endpoint.TRAVERSE ? "traverse " : "cypher ") + format.pathSegment()
                + (coding == null ? "" : "+" + coding) + (linkBitsPerSecond == 0 ? "" : " @" + link(linkBitsPerSecond));
        return switch (mode) {
            case DECODE -> base;
            case STREAM -> base + " streaming";
            case BYTES -> base + " bytes";
            case CACHED -> base + " cached";
            case NOT_MODIFIED -> base + " 304";
        };
    }

    @Override
    public String description() {
        String get = "GET /extension/" + format.pathSegment() + "/traverse?root=…";
        String coded = (coding == null ? "" : " with Accept-Encoding: " + coding + " (ContentEncodings.decode)")
                + (linkBitsPerSecond == 0 ? "" : ", the client's reads paced to " + link(linkBitsPerSecond)
                        + " (a slow link simulated; the server waits on full socket buffers)");
        return switch (mode) {
            case DECODE -> endpoint == Endpoint.TRAVERSE
                    ? get + coded + ", ExportReader over the HTTP stream"
                    : "POST /extension/" + format.pathSegment() + "/cypher (graph mode, the peers' query), ExportReader "
                            + "over the HTTP stream";
            case STREAM -> get + ", ExportParser (the streaming API) over the HTTP stream, every part of every "
                    + "record touched by a handler, no record built";
            case BYTES -> get + ", read from the store as every ordinary row; the body read and dropped, not decoded "
                    + "(compare with *walk only*: what encoding and the wire add to the walk)";
            case CACHED -> get + " without Cache-Control, answered from the server's response cache (filled by one "
                    + "untimed request before the first pass; every pass checks the `" + CACHE_HEADER
                    + ": hit` header), ExportReader over the HTTP stream";
            case NOT_MODIFIED -> get + " with If-None-Match: the ETag of an untimed request before the first pass; "
                    + "checks status 304 and an empty body";
        };
    }

    @Override
    public Kind kind() {
        return Kind.PROJECT;
    }

    @Override
    public String countsNote() {
        return switch (mode) {
            case DECODE, STREAM, CACHED -> null;
            case BYTES -> "not decoded: bytes only";
            case NOT_MODIFIED -> "304 Not Modified: no body";
        };
    }

    private URI traverseUri(Endpoints endpoints) {
        return endpoints.http().resolve("/extension/" + format.pathSegment() + "/traverse?root="
                + Http.enc(rootElementId));
    }

    @Override
    public void prepare(Endpoints direct) throws IOException {
        if (mode == Mode.CACHED) {
            // An ordinary request (no Cache-Control) reads the store and keeps the response; reading it to its end
            // means the server has stored it (it stores before it completes the response).
            try (Http.Body body = Http.get(traverseUri(direct), format.mediaType())) {
                body.drain();
            }
        } else if (mode == Mode.NOT_MODIFIED) {
            try (Http.Body body = Http.get(traverseUri(direct), format.mediaType(), Http.BYPASS_CACHE)) {
                body.drain();
                etag = body.header("ETag");
            }
            if (etag == null) throw new IllegalStateException(name() + ": the export carries no ETag");
        }
    }

    @Override
    public Outcome run(Endpoints endpoints, boolean keepIds) throws IOException {
        return switch (mode) {
            case DECODE, STREAM -> decoded(endpoints, keepIds, Http.BYPASS_CACHE);
            case CACHED -> decoded(endpoints, keepIds);
            case BYTES -> bytes(endpoints);
            case NOT_MODIFIED -> notModified(endpoints);
        };
    }

    private Outcome decoded(Endpoints endpoints, boolean keepIds, String... headers) throws IOException {
        if (coding != null) {
            headers = Arrays.copyOf(headers, headers.length + 2);
            headers[headers.length - 2] = "Accept-Encoding";
            headers[headers.length - 1] = coding;
        }
        long start = System.nanoTime();
        Http.Body body = endpoint == Endpoint.TRAVERSE
                ? Http.get(traverseUri(endpoints), format.mediaType(), headers)
                : Http.post(endpoints.http().resolve("/extension/" + format.pathSegment() + "/cypher"),
                        format.mediaType(), "{\"query\":" + Http.jsonString(cypher) + ",\"params\":{\"root\":"
                                + Http.jsonString(rootElementId) + "}}", headers);
        String encoding = body.header("Content-Encoding");
        if (!Objects.equals(encoding, format == Format.KRYO_LZF ? null : coding)) {
            body.close();
            throw new IllegalStateException(name() + ": Content-Encoding " + encoding + ", asked for " + coding);
        }
        Tally tally = mode == Mode.STREAM
                ? stream(format, body, keepIds)
                : decode(format, body.paced(linkBitsPerSecond), encoding, keepIds);
        long nanos = System.nanoTime() - start;
        String cache = body.header(CACHE_HEADER);
        if (mode == Mode.CACHED && !"hit".equals(cache)) {
            throw new IllegalStateException(name() + ": not served from the response cache (" + CACHE_HEADER + ": "
                    + cache + ")");
        }
        if (mode != Mode.CACHED && cache != null) {
            throw new IllegalStateException(name() + ": served from the response cache despite no-cache");
        }
        return new Outcome(body.count(), tally.nodes(), tally.relationships(), nanos, tally);
    }

    private Outcome bytes(Endpoints endpoints) throws IOException {
        long start = System.nanoTime();
        Http.Body body = Http.get(traverseUri(endpoints), format.mediaType(), Http.BYPASS_CACHE);
        try (body) {
            body.drain();
        }
        long nanos = System.nanoTime() - start;
        if (body.header(CACHE_HEADER) != null) {
            throw new IllegalStateException(name() + ": served from the response cache despite no-cache");
        }
        if (bodyBytes >= 0 && body.count() != bodyBytes) {
            throw new IllegalStateException(name() + ": " + body.count() + " body bytes, " + bodyBytes + " before");
        }
        bodyBytes = body.count();
        return new Outcome(body.count(), -1, -1, nanos, null);
    }

    private Outcome notModified(Endpoints endpoints) throws IOException {
        long start = System.nanoTime();
        Http.Body body = Http.getConditional(traverseUri(endpoints), format.mediaType(), "If-None-Match", etag);
        long rest;
        try (body) {
            rest = body.drain();
        }
        long nanos = System.nanoTime() - start;
        if (body.status() != 304 || rest != 0) {
            throw new IllegalStateException(name() + ": status " + body.status() + " with " + rest
                    + " body bytes, expected 304 and none");
        }
        return new Outcome(0, -1, -1, nanos, null);
    }

    /** Decodes a whole export stream with the streaming API, counting, every value touched; closes {@code body}. */
    static Tally stream(Format format, Http.Body body, boolean keepIds) throws IOException {
        Tally tally = new Tally(keepIds);
        TouchingHandler handler = new TouchingHandler() {
            @Override
            public void node(ElementId id) {
                tally.node(id);
                super.node(id);
            }

            @Override
            public void relationship(ElementId id, String type, ElementId start, ElementId end) {
                tally.relationship(id);
                super.relationship(id, type, start, end);
            }

            @Override
            public void end(long nodes, long relationships, boolean truncated, long rows) {
                if (truncated) throw new IllegalStateException("export truncated");
            }
        };
        try (ExportParser parser = ExportParser.open(format, body)) {
            for (ExportParser.Kind kind; (kind = parser.next(handler)) != null; ) {
                if (kind != ExportParser.Kind.NODE && kind != ExportParser.Kind.RELATIONSHIP
                        && kind != ExportParser.Kind.END) {
                    throw new IllegalStateException("unexpected " + kind + " record in a graph export");
                }
            }
            long rest = body.drain();
            if (rest != 0) throw new IllegalStateException(rest + " bytes after the end record");
        }
        if (handler.sum == 0) throw new IllegalStateException("nothing touched");
        return tally;
    }

    /** Decodes a whole export stream, counting; closes {@code body}. */
    static Tally decode(Format format, Http.Body body, boolean keepIds) throws IOException {
        return decode(format, body, null, keepIds);
    }

    /** Decodes a whole export stream sent in {@code contentEncoding} (null: none), counting; closes {@code body}. */
    static Tally decode(Format format, Http.Body body, String contentEncoding, boolean keepIds) throws IOException {
        Tally tally = new Tally(keepIds);
        InputStream decoded = ContentEncodings.decode(contentEncoding, body);
        try (ExportReader reader = ExportReader.open(format, decoded)) {
            for (ExportRecord r; (r = reader.next()) != null; ) {
                if (r instanceof ExportNode n) {
                    tally.node(n.id());
                } else if (r instanceof ExportRelationship rel) {
                    tally.relationship(rel.id());
                } else if (r instanceof ExportEnd end) {
                    if (end.truncated()) throw new IllegalStateException("export truncated");
                } else {
                    throw new IllegalStateException("unexpected record in a graph export: " + r);
                }
            }
            if (decoded != body && !body.closed()) {  // the end of the frame, after the end record
                long rest = decoded.transferTo(OutputStream.nullOutputStream());
                if (rest != 0) throw new IllegalStateException(rest + " decoded bytes after the end record");
            }
            long rest = body.drain();
            if (rest != 0) throw new IllegalStateException(rest + " bytes after the end record");
        }
        return tally;
    }
}
