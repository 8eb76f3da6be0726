package org.subgraphexport.server;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Set;
import javax.ws.rs.POST;
import javax.ws.rs.Path;
import javax.ws.rs.core.Context;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import javax.ws.rs.core.UriInfo;
import org.neo4j.configuration.Config;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.graphdb.GraphDatabaseService;
import org.subgraphexport.read.StoreState;

/**
 * {@code POST /warmup?db=}: loads the database's store files into the page cache and reports what it did,
 * {@code {"database","files","pages","bytes","millis"}}. A cold first export reads from disk and can be many
 * times slower; run this after a restart. It reads no graph data, so it needs no read permission.
 */
@Path("/warmup")
public final class WarmupResource {
    private static final JsonFactory JSON = new JsonFactory();
    private final Databases databases;

    public WarmupResource(@Context DatabaseManagementService dbms, @Context Config config) {
        this.databases = new Databases(dbms, config);
    }

    @POST
    public Response warmUp(@Context UriInfo uri) throws IOException {
        RequestParameters params = new RequestParameters(uri, Set.of("db"));
        GraphDatabaseService db = databases.require(params.get("db"));
        StoreState.Warmup done = StoreState.warmUp(db);
        ByteArrayOutputStream body = new ByteArrayOutputStream(128);
        try (JsonGenerator json = JSON.createGenerator(body)) {
            json.writeStartObject();
            json.writeStringField("database", done.database());
            json.writeNumberField("files", done.files());
            json.writeNumberField("pages", done.pages());
            json.writeNumberField("bytes", done.bytes());
            json.writeNumberField("millis", done.nanos() / 1_000_000);
            json.writeEndObject();
        }
        return Response.ok(body.toByteArray(), MediaType.APPLICATION_JSON_TYPE).build();
    }
}
