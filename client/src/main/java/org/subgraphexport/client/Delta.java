package org.subgraphexport.client;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Delta exports ({@code since=<state>}, docs/operations.md "Delta exports"): apply a delta stream to an export held in
 * memory, or {@link #refresh} one from its server.
 *
 * <pre>{@code
 * URI export = URI.create("http://host:7474/extension/kryo/traverse?root=" + root);
 * Subgraph copy = Delta.refresh(http, export, null);     // the first time: the whole export
 * ...
 * copy = Delta.refresh(http, export, copy);              // later: only what changed since copy's state
 * }</pre>
 */
public final class Delta {
    /** The error code of a delta the server cannot answer exactly: the client reads the whole export instead. */
    public static final String UNAVAILABLE = "Export.DeltaUnavailable";
    /** Deltas read again when a commit fell inside one (header and end states differ) before a whole export. */
    static final int ATTEMPTS = 3;

    private Delta() {}

    /**
     * Reads the delta stream {@code delta} (to its end record, without closing it) and applies it to {@code base}:
     * every node and relationship record put (replacing one with the same id), every left id removed. Returns the
     * export as of the delta's state: header and end name that state, the end record counts what the result holds.
     *
     * @throws IllegalArgumentException if {@code delta} is not a delta of {@code base}'s state, or {@code base} is a
     *                                  partition or a rows stream
     * @throws CorruptStreamException   if the result has a relationship whose end node it lacks
     * @throws ExportFailedException    if the delta stream ends with an error record
     */
    public static Subgraph apply(Subgraph base, ExportReader delta) throws IOException {
        ExportHeader header = delta.header();
        if (!header.delta()) {
            throw new IllegalArgumentException("not a delta stream (its header has no since)");
        }
        if (!header.since().equals(base.header().state())) {
            throw new IllegalArgumentException("a delta since " + header.since() + " does not apply to an export of state "
                    + base.header().state());
        }
        if (base.header().partitions() != 1 || !base.columns().isEmpty()) {
            throw new IllegalArgumentException("deltas apply to a whole graph export");
        }
        Map<String, ExportNode> nodes = new LinkedHashMap<>(base.nodes());
        Map<String, ExportRelationship> relationships = new LinkedHashMap<>(base.relationships());
        ExportEnd end;
        while (true) {
            ExportRecord r = delta.next();
            if (r instanceof ExportNode n) {
                nodes.put(n.id(), n);
            } else if (r instanceof ExportRelationship rel) {
                relationships.put(rel.id(), rel);
            } else if (r instanceof ExportLeft left) {
                if ((left.node() ? nodes.remove(left.id()) : relationships.remove(left.id())) == null) {
                    throw new CorruptStreamException("the delta removes " + (left.node() ? "node " : "relationship ")
                            + left.id() + ", which the export does not hold");
                }
            } else if (r instanceof ExportEnd e) {
                end = e;
                break;
            } else {
                throw new CorruptStreamException("a delta stream has no " + r.getClass().getSimpleName() + " records");
            }
        }
        for (ExportRelationship rel : relationships.values()) {
            if (!nodes.containsKey(rel.start()) || !nodes.containsKey(rel.end())) {
                throw new CorruptStreamException("after the delta, relationship " + rel.id() + " lacks its end node "
                        + (nodes.containsKey(rel.start()) ? rel.end() : rel.start()));
            }
        }
        ExportHeader now = new ExportHeader(header.version(), header.database(), header.root(), header.state(), 0, 1);
        return new Subgraph(now, nodes, relationships,
                new ExportEnd(nodes.size(), relationships.size(), end.truncated(), 0, end.state()));
    }

    /** Neo4j's transient errors (a read that met a concurrent write, say): the same request may succeed again. */
    private static boolean transient_(String code) {
        return code.startsWith("Neo.TransientError.");
    }

    /**
     * Today's export of {@code export} (a {@code traverse} URL without {@code since}): with {@code base} null, the whole
     * export; else a delta since {@code base}'s state applied to it. Falls back to the whole export by itself when the
     * server cannot answer the delta ({@code 410 Export.DeltaUnavailable}, or that error record), or when commits fell
     * inside {@value #ATTEMPTS} deltas in a row (the stream's end state differs from its header's, or it ended with one of
     * Neo4j's transient errors, {@code Neo.TransientError.*}, such as a read that met a concurrent write). A whole export is
     * read again when a commit fell inside it, up to {@value #ATTEMPTS} times; after that it is returned with an empty
     * state (it is not the export of one state: the next refresh reads it whole). Requests ask for
     * compression ({@link ContentEncodings#request}) and wait out a busy server ({@link BusyRetry#DEFAULT}).
     */
    public static Subgraph refresh(HttpClient http, URI export, Subgraph base) throws IOException {
        if (base != null && !base.header().state().isEmpty()) {
            URI delta = URI.create(export + (export.getRawQuery() == null ? "?" : "&") + "since="
                    + URLEncoder.encode(base.header().state(), StandardCharsets.UTF_8));
            for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
                try (ExportReader reader = ExportReader.open(http, ContentEncodings.request(delta).build())) {
                    Subgraph applied = apply(base, reader);
                    if (applied.end().state().equals(applied.header().state())) {
                        return applied;
                    }
                } catch (ExportRequestException e) {
                    if (!UNAVAILABLE.equals(e.code())) throw e;
                    break;
                } catch (ExportFailedException e) {
                    if (transient_(e.code())) continue;  // e.g. Neo.TransientError.Transaction.Outdated: read again
                    if (!UNAVAILABLE.equals(e.code())) throw e;
                    break;
                }
            }
        }
        Subgraph whole = null;
        for (int attempt = 0; attempt < ATTEMPTS || whole == null; attempt++) {
            try (ExportReader reader = ExportReader.open(http, ContentEncodings.request(export).build())) {
                whole = Subgraph.read(reader);
            } catch (ExportFailedException e) {
                if (!transient_(e.code()) || attempt >= ATTEMPTS - 1) throw e;
                continue;
            }
            if (whole.end().state().equals(whole.header().state())) {
                return whole;
            }
        }
        // commits fell inside every read: the copy is not of one state, so it cannot be the base of a delta
        ExportHeader h = whole.header();
        return new Subgraph(new ExportHeader(h.version(), h.database(), h.root(), "", h.partition(), h.partitions()),
                whole.nodes(), whole.relationships(), whole.end());
    }
}
