package org.subgraphexport.server;

import java.io.InputStream;
import java.util.Set;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import javax.ws.rs.POST;
import javax.ws.rs.Path;
import javax.ws.rs.PathParam;
import javax.ws.rs.core.Context;
import javax.ws.rs.core.Response;
import javax.ws.rs.core.UriInfo;
import org.neo4j.configuration.Config;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.graphdb.ExecutionPlanDescription;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.QueryExecutionException;
import org.neo4j.graphdb.QueryExecutionType;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;
import org.neo4j.internal.kernel.api.security.SecurityContext;
import org.subgraphexport.neo4j.Neo4jLine;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;
import org.neo4j.logging.Log;
import org.neo4j.logging.LogProvider;
import org.subgraphexport.config.ExportSettings;
import org.subgraphexport.read.CypherExport;
import org.subgraphexport.read.ExportState;
import org.subgraphexport.read.StoreState;
import org.subgraphexport.wire.Format;

/**
 * {@code POST /{format}/cypher} with {@code {"query","params"}}: the graph of every node and relationship in
 * the result, each once, in the same record stream as traverse; with {@code mode=rows}, the rows themselves
 * (see {@link CypherExport}). The query runs in a transaction restricted to
 * reading: a query that writes fails before anything is streamed and changes nothing. The query is started
 * and its first row fetched before the response begins, so syntax errors, missing parameters, write
 * attempts and failures of the first row answer with a status and a JSON body carrying Neo4j's code.
 */
@Path("/{format}/cypher")
public final class CypherResource {
    static final Set<String> PARAMETERS = Set.of("db", "mode", "timeout", "state", "partitions", "partition");
    static final String WRITE_REFUSED = "Export.WriteQueryRefused";
    static final String QUERY_TOO_DEEP = "Export.QueryTooDeep";
    static final String NOT_SUPPORTED = "Export.QueryNotSupported";

    /** Plan operators that act on the DBMS although Neo4j plans them as read-only. */
    private static final Set<String> REFUSED_OPERATORS = Set.of("TerminateTransactions");

    /**
     * Plans the query (EXPLAIN: nothing runs) and refuses it unless it only reads: Neo4j's query type must be
     * READ_ONLY and no operator may be a command such as TERMINATE TRANSACTION, which Neo4j counts as a read. The
     * transaction is also restricted to reading, so a write would fail even if it got past this check.
     */
    private static void refuseUnlessReadOnly(InternalTransaction tx, CypherRequest request) {
        try (Result plan = tx.execute("EXPLAIN " + request.query(), request.params())) {
            QueryExecutionType.QueryType type = plan.getQueryExecutionType().queryType();
            if (type != QueryExecutionType.QueryType.READ_ONLY) {
                throw new ApiError(Response.Status.BAD_REQUEST, WRITE_REFUSED,
                        "the Cypher endpoint runs read-only queries; this one is " + type);
            }
            String operator = refusedOperator(plan.getExecutionPlanDescription());
            if (operator != null) {
                throw new ApiError(Response.Status.BAD_REQUEST, WRITE_REFUSED,
                        "the Cypher endpoint runs read-only queries; this one runs " + operator);
            }
        }
    }

    private static String refusedOperator(ExecutionPlanDescription plan) {
        if (REFUSED_OPERATORS.contains(plan.getName())) {
            return plan.getName();
        }
        for (ExecutionPlanDescription child : plan.getChildren()) {
            String found = refusedOperator(child);
            if (found != null) return found;
        }
        return null;
    }

    private final Databases databases;
    private final ExportAdmission admission;
    private final Config config;
    private final Log log;

    public CypherResource(@Context DatabaseManagementService dbms, @Context Config config, @Context LogProvider logs) {
        this.databases = new Databases(dbms, config);
        this.config = config;
        this.log = logs.getLog(CypherResource.class);
        this.admission = ExportAdmission.of(dbms, log);
    }

    @POST
    public Response cypher(@PathParam("format") String formatName, @Context UriInfo uri,
            @Context HttpServletRequest httpRequest, @Context HttpServletResponse httpResponse, InputStream body) {
        // The body first, whatever else is wrong: an answer sent before the request body was read makes Jetty
        // reset the connection (HTTP/2: the stream), and a client still sending may see the reset, not the answer.
        byte[] bodyBytes = CypherRequest.read(body);
        Format format = Formats.require(formatName);
        RequestParameters params = new RequestParameters(uri, PARAMETERS);
        if (params.has("partitions") || params.has("partition")) {
            throw ApiError.badParameter("partitions: the Cypher endpoint is not partitioned (each partition would run "
                    + "the whole query again and keep a share of its rows); partition a traverse export, or split the "
                    + "query itself");
        }
        String mode = params.get("mode");
        if (mode != null && !mode.equals("graph") && !mode.equals("rows")) {
            throw ApiError.badParameter("mode must be 'graph' (the default) or 'rows', got '"
                    + RequestParameters.abbreviate(mode) + "'");
        }
        boolean rows = "rows".equals(mode);
        if (rows && !format.carriesRows()) {
            throw ApiError.badParameter("mode=rows is not available in the " + format.pathSegment()
                    + " format, a graph layout; use json, bson, kryo or kryo-lzf for rows");
        }
        ExportLimits limits = ExportLimits.of(config, params);
        CypherRequest request = CypherRequest.parse(bodyBytes);
        Caller caller = Caller.of(httpRequest);
        GraphDatabaseService db = databases.require(params.get("db"));
        String version = StoreState.version(db);
        String pinned = ExportStates.pinned(params, db, version);
        AcceptEncoding.Choice choice = AcceptEncoding.negotiate(httpRequest, format, config);
        httpResponse.setHeader(ExportStates.HEADER, version);

        ExportAdmission.Ticket ticket = admission.admit(config, caller, httpRequest);
        InternalTransaction tx;
        try {
            tx = caller.begin(db, limits.timeoutMillis());
        } catch (Throwable e) {
            ticket.close();
            throw e;
        }
        ticket.watch(tx); // a client that leaves while the query computes its first row ends it too
        Result result;
        try {
            SecurityContext context = tx.securityContext();
            tx.overrideWith(context.withMode(Neo4jLine.readOnly(context.mode())));
            refuseUnlessReadOnly(tx, request);
            result = tx.execute(request.query(), request.params());
            if (result.getQueryExecutionType().isExplained()) {
                // the user's own EXPLAIN: no rows, so an export would come back silently empty
                throw ApiError.badParameter("EXPLAIN returns a plan, not data: the Cypher endpoint exports results");
            }
            result.hasNext(); // runs the query up to its first row: its failures still get a status
        } catch (ApiError e) {
            tx.close();
            ticket.close();
            throw e;
        } catch (RuntimeException e) {
            tx.close();
            ticket.close();
            throw queryError(e);
        } catch (StackOverflowError e) {
            tx.close();
            ticket.close();
            throw new ApiError(Response.Status.BAD_REQUEST, QUERY_TOO_DEEP,
                    "the query is nested too deeply for Neo4j's parser");
        } catch (Throwable e) {
            tx.close();
            ticket.close();
            throw e;
        }
        Transaction open = tx;
        ExportOutput output = new ExportOutput(ticket, () -> open, format,
                new ExportOutput.Coding(choice, chosen -> AcceptEncoding.announce(httpResponse, chosen)),
                (t, out) -> CypherExport.run(t, result, rows, limits.maxNodes(), config.get(ExportSettings.READ_THREADS),
                        ExportState.of(db, pinned), out),
                log);
        return AcceptEncoding.vary(Response.ok(output, format.mediaType()), choice).build();
    }

    /** A failure of the query before streaming, as a status and Neo4j's code; rethrows what has no code. */
    static ApiError queryError(RuntimeException e) {
        String code = e instanceof QueryExecutionException q && q.getStatusCode() != null ? q.getStatusCode() : ExportOutput.code(e);
        if (code.equals(ExportOutput.FAILED)) {
            throw e;
        }
        if (String.valueOf(e.getMessage()).contains("IN TRANSACTIONS")) {
            // CALL { } IN TRANSACTIONS commits on its own: impossible inside the export's one read transaction
            return new ApiError(Response.Status.BAD_REQUEST, NOT_SUPPORTED,
                    "CALL { ... } IN TRANSACTIONS cannot run in an export, which reads in one transaction: " + e.getMessage());
        }
        if (code.equals("Neo.ClientError.Security.Forbidden")) {
            return new ApiError(Response.Status.BAD_REQUEST, WRITE_REFUSED,
                    "the Cypher endpoint runs read-only queries: " + code + ": " + e.getMessage());
        }
        Response.Status status = code.startsWith("Neo.ClientError.") ? Response.Status.BAD_REQUEST
                : code.startsWith("Neo.TransientError.") ? Response.Status.SERVICE_UNAVAILABLE
                : Response.Status.INTERNAL_SERVER_ERROR;
        return new ApiError(status, code, e.getMessage());
    }
}
