package org.subgraphexport.server;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.servlet.http.HttpServletRequest;
import javax.ws.rs.core.Response;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.internal.kernel.api.security.AuthenticationResult;
import org.neo4j.internal.kernel.api.security.LoginContext;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;
import org.neo4j.kernel.internal.GraphDatabaseAPI;
import org.neo4j.server.rest.dbms.AuthorizedRequestWrapper;

/**
 * The authenticated HTTP user, and transactions opened as that user: the server's access rules apply to an
 * export exactly as to the user's own Cypher ({@code beginTx()} would read with full access whoever called).
 * With auth disabled Neo4j's filter gives an auth-disabled login, and exports behave as the server does.
 */
final class Caller {
    static final String CREDENTIALS_EXPIRED = "Neo.ClientError.Security.CredentialsExpired";

    private final LoginContext login;

    private Caller(LoginContext login) {
        this.login = login;
    }

    /** The caller of {@code request}; 403 before anything else if the user must change the password first. */
    static Caller of(HttpServletRequest request) {
        LoginContext login = request == null ? null : AuthorizedRequestWrapper.getLoginContextFromHttpServletRequest(request);
        if (login == null) {
            login = LoginContext.AUTH_DISABLED;
        }
        if (login.subject().getAuthenticationResult() == AuthenticationResult.PASSWORD_CHANGE_REQUIRED) {
            throw new ApiError(Response.Status.FORBIDDEN, CREDENTIALS_EXPIRED,
                    "the password of user '" + login.subject().executingUser()
                            + "' must be changed before it can export (ALTER CURRENT USER SET PASSWORD FROM ... TO ...)");
        }
        return new Caller(login);
    }

    /** The user name ("" with auth disabled). */
    String user() {
        String user = login.subject().executingUser();
        return user == null ? "" : user;
    }

    /** What SHOW TRANSACTIONS shows as an export transaction's metaData. */
    static final Map<String, Object> METADATA = Map.of("app", "subgraph-export");

    /**
     * A transaction of {@code db} as this caller, tagged with {@link #METADATA}; {@code timeoutMillis} 0 means
     * the database's default (db.transaction.timeout).
     */
    InternalTransaction begin(GraphDatabaseService db, long timeoutMillis) {
        GraphDatabaseAPI api = (GraphDatabaseAPI) db;
        InternalTransaction tx = timeoutMillis > 0
                ? api.beginTransaction(KernelTransaction.Type.EXPLICIT, login, login.connectionInfo(),
                        timeoutMillis, TimeUnit.MILLISECONDS)
                : api.beginTransaction(KernelTransaction.Type.EXPLICIT, login, login.connectionInfo());
        tx.setMetaData(METADATA);
        return tx;
    }
}
