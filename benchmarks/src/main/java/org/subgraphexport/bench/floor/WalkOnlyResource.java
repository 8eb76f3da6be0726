package org.subgraphexport.bench.floor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.QueryParam;
import javax.ws.rs.core.Context;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import org.neo4j.configuration.Config;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.internal.kernel.api.security.LoginContext;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;
import org.neo4j.kernel.internal.GraphDatabaseAPI;
import org.subgraphexport.bench.DiscardingWriter;
import org.subgraphexport.config.ExportSettings;
import org.subgraphexport.read.SubgraphWalker;
import org.subgraphexport.read.TraverseExport;
import org.subgraphexport.read.WalkSpec;
import org.subgraphexport.wire.GraphWriter;

/**
 * Benchmark only: the walk without the output. {@code GET /floor/walk?root=<elementId>} runs exactly what
 * {@code GET /extension/{format}/traverse?root=…} runs inside its transaction, {@link TraverseExport#run} with the
 * endpoint's default walk (expand {@code CHILDREN>}, attach {@code PROPERTY>}, no depth or node limit) and the
 * server's {@code server.subgraph_export.read_threads}, but into a {@link GraphWriter} that encodes nothing: every
 * label, token id and property value is still read from the store and handed to the writer call by call, which
 * folds it into a number and drops it. It answers {@code {"nodes":…,"relationships":…}} (a few bytes, so there is
 * no wire either). The difference to the traverse rows is encoding, the servlet stream and the client.
 *
 * <p>The transaction is opened like the endpoint's with authentication disabled (the benchmark server's setting):
 * an explicit transaction with the auth-disabled login. What the endpoint does before it (parameter checks, the
 * root lookup, the ETag: the store's last transaction id and one SHA-256) is not repeated here; it is small.
 */
@Path("/walk")
public final class WalkOnlyResource {
    private final DatabaseManagementService dbms;
    private final Config config;

    public WalkOnlyResource(@Context DatabaseManagementService dbms, @Context Config config) {
        this.dbms = dbms;
        this.config = config;
    }

    @GET
    public Response walk(@QueryParam("root") String rootElementId) throws IOException {
        if (rootElementId == null) {
            return Response.status(400).entity("root= missing").type(MediaType.TEXT_PLAIN_TYPE).build();
        }
        GraphDatabaseAPI db = (GraphDatabaseAPI) dbms.database(config.get(GraphDatabaseSettings.initial_default_database));
        WalkSpec spec = new WalkSpec(WalkSpec.DEFAULT_EXPAND, WalkSpec.DEFAULT_ATTACH, Integer.MAX_VALUE, Long.MAX_VALUE);
        DiscardingWriter out = new DiscardingWriter();
        SubgraphWalker.Result result;
        try (InternalTransaction tx = db.beginTransaction(KernelTransaction.Type.EXPLICIT, LoginContext.AUTH_DISABLED,
                LoginContext.AUTH_DISABLED.connectionInfo())) {
            long root = tx.elementIdMapper().nodeId(rootElementId);
            result = TraverseExport.run(tx, root, spec, config.get(ExportSettings.READ_THREADS), out);
            out.finish();
        }
        String body = "{\"nodes\":" + result.nodes() + ",\"relationships\":" + result.relationships()
                + ",\"truncated\":" + result.truncated() + ",\"sink\":" + out.sink + "}";
        return Response.ok(body.getBytes(StandardCharsets.UTF_8), MediaType.APPLICATION_JSON_TYPE).build();
    }
}
