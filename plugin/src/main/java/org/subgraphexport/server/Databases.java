package org.subgraphexport.server;

import javax.ws.rs.core.Response;
import org.neo4j.configuration.Config;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseNotFoundException;
import org.neo4j.graphdb.GraphDatabaseService;
import org.subgraphexport.neo4j.Neo4jLine;

/**
 * Resolves the {@code db} parameter; absent means the server's default database. Every export passes here before
 * its response starts, so this is also where a Neo4j release the plugin cannot serve is refused, with a status.
 */
final class Databases {
    static final String SYSTEM_REFUSED = "Export.SystemDatabaseRefused";
    static final String UNSUPPORTED_NEO4J = "Export.UnsupportedNeo4j";

    private final DatabaseManagementService dbms;
    private final Config config;

    Databases(DatabaseManagementService dbms, Config config) {
        this.dbms = dbms;
        this.config = config;
    }

    GraphDatabaseService require(String name) {
        try {
            Neo4jLine.check();
        } catch (UnsupportedOperationException e) {
            throw new ApiError(Response.Status.NOT_IMPLEMENTED, UNSUPPORTED_NEO4J, e.getMessage());
        }
        String database = name == null ? config.get(GraphDatabaseSettings.initial_default_database) : name.strip();
        if (database.isEmpty()) {
            throw ApiError.badParameter("db must not be empty");
        }
        if (database.equalsIgnoreCase(GraphDatabaseSettings.SYSTEM_DATABASE_NAME)) {
            // the system graph holds users and their credentials: never exported, whoever asks
            throw new ApiError(Response.Status.FORBIDDEN, SYSTEM_REFUSED,
                    "the system database cannot be exported");
        }
        GraphDatabaseService db;
        try {
            db = dbms.database(database);
        } catch (DatabaseNotFoundException e) {
            throw new ApiError(Response.Status.NOT_FOUND, ApiError.DATABASE_NOT_FOUND,
                    "database '" + RequestParameters.abbreviate(database) + "' does not exist");
        }
        if (!db.isAvailable(1000)) {
            throw new ApiError(Response.Status.SERVICE_UNAVAILABLE, ApiError.DATABASE_UNAVAILABLE,
                    "database '" + database + "' is not available");
        }
        return db;
    }
}
