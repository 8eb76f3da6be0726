package org.subgraphexport.server;

import java.util.Set;
import javax.servlet.http.HttpServletRequest;
import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.PathParam;
import javax.ws.rs.core.Context;
import javax.ws.rs.core.Response;
import javax.ws.rs.core.UriInfo;
import org.neo4j.configuration.Config;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.logging.Log;
import org.neo4j.logging.LogProvider;
import org.subgraphexport.format.Format;
import org.subgraphexport.read.RelationshipFilter;
import org.subgraphexport.read.TraverseExport;
import org.subgraphexport.read.WalkSpec;

/**
 * {@code GET /{format}/traverse}: the subgraph under a root node. Parameters: {@code root} (element id) or
 * {@code label}+{@code key}+{@code value}; {@code expand} (default {@code CHILDREN>}); {@code attach}
 * (default {@code PROPERTY>}, empty disables); {@code maxDepth}; {@code limit}; {@code db}; {@code timeout}. Everything that
 * can be checked is checked here, before the first byte; see docs/api.md for each error.
 */
@Path("/{format}/traverse")
public final class TraverseResource {
    static final Set<String> PARAMETERS =
            Set.of("root", "label", "key", "value", "expand", "attach", "maxDepth", "limit", "db", "timeout");

    private final Databases databases;
    private final Config config;
    private final Log log;

    public TraverseResource(
            @Context DatabaseManagementService dbms, @Context Config config, @Context LogProvider logs) {
        this.databases = new Databases(dbms, config);
        this.config = config;
        this.log = logs.getLog(TraverseResource.class);
    }

    @GET
    public Response traverse(
            @PathParam("format") String formatName, @Context UriInfo uri, @Context HttpServletRequest request) {
        Format format = Formats.require(formatName);
        RequestParameters params = new RequestParameters(uri, PARAMETERS);
        ExportLimits limits = ExportLimits.of(config, params);
        WalkSpec spec = walkSpec(params, limits);
        Caller caller = Caller.of(request);
        GraphDatabaseService db = databases.require(params.get("db"));
        long root = RootLookup.resolve(caller, db, params);
        ExportOutput output = new ExportOutput(() -> caller.begin(db, limits.timeoutMillis()), format,
                (tx, out) -> TraverseExport.run(tx, root, spec, out), log);
        return Response.ok(output, format.mediaType()).build();
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
