package org.subgraphexport.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.PathParam;
import javax.ws.rs.core.Context;
import javax.ws.rs.core.EntityTag;
import javax.ws.rs.core.HttpHeaders;
import javax.ws.rs.core.Request;
import javax.ws.rs.core.Response;
import javax.ws.rs.core.UriInfo;
import org.neo4j.configuration.Config;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.logging.Log;
import org.neo4j.logging.LogProvider;
import org.subgraphexport.config.ExportSettings;
import org.subgraphexport.encode.ContentCoding;
import org.subgraphexport.read.ChangeJournal;
import org.subgraphexport.read.DeltaExport;
import org.subgraphexport.read.ExportState;
import org.subgraphexport.read.Partition;
import org.subgraphexport.read.RelationshipFilter;
import org.subgraphexport.read.SharedWalks;
import org.subgraphexport.read.StoreState;
import org.subgraphexport.read.TraverseExport;
import org.subgraphexport.read.WalkSpec;
import org.subgraphexport.wire.Format;

/**
 * {@code GET /{format}/traverse}: the subgraph under a root node. Parameters: {@code root} (element id) or
 * {@code label}+{@code key}+{@code value}; {@code expand} (default {@code CHILDREN>}); {@code attach}
 * (default {@code PROPERTY>}, empty disables); {@code maxDepth}; {@code limit}; {@code db}; {@code timeout};
 * {@code partitions} and {@code partition} (one share of the export, {@link ExportStates}); {@code state} (the store
 * state the export must read: 412 if the database left it). Everything that can be checked is checked here, before
 * the first byte; see README for each error.
 *
 * <p>Every response names the database's state in {@code Subgraph-Export-State}. Partitions of one export that
 * stream at the same time share one walk of its topology ({@link SharedWalks}) and, toward the per-user bound, one
 * slot ({@link ExportAdmission}).
 *
 * <p>Every response carries an ETag covering the database, its last committed transaction, the caller and the
 * normalized request; {@code If-None-Match} with it answers 304 without reading the graph. With
 * {@code server.subgraph_export.response_cache_size} set, complete responses are kept and a repeat is served
 * from memory while the database has had no commit (admitted and watched as a fresh export is: it holds a request
 * thread while its client reads). The request header {@code Cache-Control: no-cache} skips the
 * lookup (the store is read; the fresh response replaces the kept one), {@code no-store} skips keeping the
 * response (no copy is made while it streams); both together leave the cache untouched.
 *
 * <p>The body goes out in the content coding negotiated from {@code Accept-Encoding} ({@link AcceptEncoding}); each
 * coding is a representation with a tag of its own ({@link ETags#of(EntityTag, ContentCoding)}), kept apart in the
 * cache. {@code If-None-Match} naming the tag of any coding this request accepts answers 304 with that tag.
 */
@Path("/{format}/traverse")
public final class TraverseResource {
    static final Set<String> PARAMETERS = Set.of("root", "label", "key", "value", "expand", "attach", "maxDepth",
            "limit", "db", "timeout", "partitions", "partition", "state", "since");

    private final DatabaseManagementService dbms;
    private final Databases databases;
    private final Config config;
    private final Log log;

    public TraverseResource(
            @Context DatabaseManagementService dbms, @Context Config config, @Context LogProvider logs) {
        this.dbms = dbms;
        this.databases = new Databases(dbms, config);
        this.config = config;
        this.log = logs.getLog(TraverseResource.class);
    }

    @GET
    public Response traverse(@PathParam("format") String formatName, @Context UriInfo uri,
            @Context HttpServletRequest httpRequest, @Context HttpServletResponse httpResponse,
            @Context Request request) {
        Format format = Formats.require(formatName);
        RequestParameters params = new RequestParameters(uri, PARAMETERS);
        ExportLimits limits = ExportLimits.of(config, params);
        WalkSpec spec = walkSpec(params, limits);
        Partition partition = ExportStates.partition(params, config);
        Caller caller = Caller.of(httpRequest);
        GraphDatabaseService db = databases.require(params.get("db"));
        // watching starts before the first state is handed out: every later state can be the base of a delta
        ChangeJournal journal = ChangeJournal.of(dbms, db, config.get(ExportSettings.DELTA_JOURNAL_SIZE));
        String version = StoreState.version(db);
        String pinned = ExportStates.pinned(params, db, version);
        String since = ExportStates.since(params, db, version, journal);
        long root = RootLookup.resolve(caller, db, params);
        AcceptEncoding.Choice choice = AcceptEncoding.negotiate(httpRequest, format, config);

        String[] identity = {version, caller.user(), format.pathSegment(), "traverse",
                Long.toString(root), spec.expand().toString(), spec.attach().toString(),
                Integer.toString(spec.maxDepth()), Long.toString(spec.limit()), Boolean.toString(spec.reportDepthCut()),
                Integer.toString(partition.count()), Integer.toString(partition.index())};
        if (since != null) {  // a delta is another representation: its own tag (a whole export's tag is unchanged);
            // the partition stays last, so all but the last part name one partitioned delta (admission, below)
            identity = Arrays.copyOf(identity, identity.length + 1);
            identity[identity.length - 1] = identity[identity.length - 2];
            identity[identity.length - 2] = identity[identity.length - 3];
            identity[identity.length - 3] = "since=" + since;
        }
        EntityTag identityTag = tag(identity, identity.length);
        httpResponse.setHeader(ExportStates.HEADER, version);
        EntityTag tag = ETags.of(identityTag, choice.preferred());
        List<EntityTag> acceptable = new ArrayList<>(List.of(tag));
        choice.acceptable().forEach(coding -> acceptable.add(ETags.of(identityTag, coding)));
        EntityTag unchanged = ETags.noneMatch(httpRequest, acceptable);
        if (unchanged != null) {
            return AcceptEncoding.vary(Response.notModified(unchanged), choice).cacheControl(ETags.REVALIDATE).build();
        }
        Response.ResponseBuilder preconditionFailed = request.evaluatePreconditions(tag);  // If-Match
        if (preconditionFailed != null) {
            return AcceptEncoding.vary(preconditionFailed.tag(tag), choice).cacheControl(ETags.REVALIDATE).build();
        }
        long cacheSize = config.get(ExportSettings.RESPONSE_CACHE_SIZE);
        ResponseCache cache = ResponseCache.of(dbms, cacheSize);
        ResponseCache.Directives directives = ResponseCache.Directives.of(httpRequest);
        boolean rootByKey = !params.has("root");
        // a cached response is admitted as an export is: it holds a request thread while its client reads
        // the partitions of one export: the same request but for its partition (the tag of all but the last part)
        String export = partition.whole() ? null : tag(identity, identity.length - 1).getValue();
        ExportAdmission.Ticket ticket = ExportAdmission.of(dbms, log).admit(config, caller, httpRequest, export);
        if (!directives.noCache() && since == null) {
            Response hit = cached(ticket, cache, choice, identityTag, format);
            if (hit != null) return hit;
        }
        // partitions of one export streaming at the same time share one walk of its topology (docs/operations.md)
        SharedWalks walks = partition.whole() ? null
                : SharedWalks.of(dbms, config.get(ExportSettings.PARTITION_SHARE_SIZE));
        ExportOutput.Coding coding = new ExportOutput.Coding(choice, chosen -> {
            AcceptEncoding.announce(httpResponse, chosen);
            httpResponse.setHeader(HttpHeaders.ETAG, ETags.of(identityTag, chosen).toString());
        });
        ExportOutput output = new ExportOutput(ticket, () -> caller.begin(db, limits.timeoutMillis()), format, coding,
                since != null
                        ? (tx, out) -> DeltaExport.run(tx, root, spec, partition,
                                config.get(ExportSettings.READ_THREADS), ExportState.of(db, pinned), journal, since,
                                rootByKey, out)
                        : (tx, out) -> TraverseExport.run(tx, root, spec, partition,
                                config.get(ExportSettings.READ_THREADS), ExportState.of(db, pinned), walks, out), log);
        if (cacheSize > 0 && !directives.noStore() && since == null) {
            output.capturing(new ExportOutput.Capture(cacheSize,
                    (chosen, bytes) -> cache.put(ETags.of(identityTag, chosen).getValue(), version, bytes)));
        }
        // ETag and Content-Encoding are set by the output once the coding is decided, before the first byte
        return AcceptEncoding.vary(Response.ok(output, format.mediaType()), choice)
                .cacheControl(ETags.REVALIDATE).build();
    }

    /**
     * The kept response in the coding this request would get: the preferred coding's, or the identity one if it is
     * small enough to go out uncompressed to this client, sent under {@code ticket}. Null if there is none.
     */
    private Response cached(ExportAdmission.Ticket ticket, ResponseCache cache, AcceptEncoding.Choice choice,
            EntityTag identityTag, Format format) {
        ContentCoding coding = choice.preferred();
        byte[] bytes = cache.get(ETags.of(identityTag, coding).getValue());
        if (bytes == null && coding != ContentCoding.IDENTITY) {
            byte[] identity = cache.get(identityTag.getValue());
            if (identity != null && choice.forSize(identity.length) == ContentCoding.IDENTITY) {
                bytes = identity;
                coding = ContentCoding.IDENTITY;
            }
        }
        if (bytes == null) return null;
        Response.ResponseBuilder ok = Response.ok(ExportOutput.replay(ticket, format, bytes, log), format.mediaType())
                .tag(ETags.of(identityTag, coding)).cacheControl(ETags.REVALIDATE).header(ETags.CACHE_HEADER, "hit");
        if (coding != ContentCoding.IDENTITY) ok.header(HttpHeaders.CONTENT_ENCODING, coding.token());
        return AcceptEncoding.vary(ok, choice).build();
    }

    /** The tag of the first {@code count} parts of an identity: database version, user, then the request's parts. */
    private static EntityTag tag(String[] identity, int count) {
        return ETags.of(identity[0], identity[1], Arrays.copyOfRange(identity, 2, count));
    }

    static WalkSpec walkSpec(RequestParameters params, ExportLimits limits) {
        RelationshipFilter expand = filter(params, "expand", WalkSpec.DEFAULT_EXPAND);
        RelationshipFilter attach = filter(params, "attach", WalkSpec.DEFAULT_ATTACH);
        try {
            return new WalkSpec(expand, attach, limits.maxDepth(), limits.maxNodes(), limits.depthIsCap());
        } catch (IllegalArgumentException e) {
            throw ApiError.badParameter(e.getMessage());
        }
    }

    private static RelationshipFilter filter(RequestParameters params, String name, RelationshipFilter fallback) {
        if (!params.has(name)) {
            return fallback;
        }
        try {
            return RelationshipFilter.parse(params.get(name));
        } catch (IllegalArgumentException e) {
            throw ApiError.badParameter(name + ": " + e.getMessage());
        }
    }
}
