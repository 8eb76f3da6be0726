package org.subgraphexport.bench.floor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZonedDateTime;
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
import org.subgraphexport.config.ExportSettings;
import org.subgraphexport.read.SubgraphWalker;
import org.subgraphexport.read.TraverseExport;
import org.subgraphexport.read.WalkSpec;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.TokenNames;

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

    /**
     * Encodes nothing; folds every id and value into {@link #sink} so that no call is optimised away. Stored strings
     * that arrive as UTF-8 bytes are not decoded. Also the "walk" of {@code ParallelWalkProbe}.
     */
    public static final class DiscardingWriter implements GraphWriter {
        public long sink;

        public void header(Header header, TokenNames tokens) {}

        public void beginNode(long id, int[] labels, int labelCount) {
            sink += id;
            for (int i = 0; i < labelCount; i++) sink += labels[i];
        }

        public void endNode() {}

        public void beginRelationship(long id, int type, long startNode, long endNode) {
            sink += id + type + startNode + endNode;
        }

        public void endRelationship() {}

        public void property(int key) {
            sink += key;
        }

        public void columns(String[] names) {}

        public void beginRow() {}

        public void endRow() {}

        public void end(long nodes, long relationships, boolean truncated) {}

        public void error(String code, String message) {}

        public void finish() {}

        public void writeBoolean(boolean value) {
            sink += value ? 1 : 0;
        }

        public void writeByte(byte value) {
            sink += value;
        }

        public void writeShort(short value) {
            sink += value;
        }

        public void writeInt(int value) {
            sink += value;
        }

        public void writeLong(long value) {
            sink += value;
        }

        public void writeFloat(float value) {
            sink += Float.floatToRawIntBits(value);
        }

        public void writeDouble(double value) {
            sink += Double.doubleToRawLongBits(value);
        }

        public void writeChar(char value) {
            sink += value;
        }

        public void writeString(String value) {
            sink += value.length();
        }

        /** Longer stored strings, as UTF-8 bytes, where the writer interface passes them so (not decoded here). */
        public void writeUtf8(byte[] utf8, int offset, int length) {
            sink += length;
        }

        public void writeBytes(byte[] value) {
            sink += value.length;
        }

        public void writePoint(int srid, double[] coordinates) {
            sink += srid + coordinates.length;
        }

        public void writeDuration(long months, long days, long seconds, int nanos) {
            sink += months + days + seconds + nanos;
        }

        public void writeDate(LocalDate value) {
            sink += value.getDayOfMonth();
        }

        public void writeLocalTime(LocalTime value) {
            sink += value.getNano();
        }

        public void writeTime(OffsetTime value) {
            sink += value.getNano();
        }

        public void writeLocalDateTime(LocalDateTime value) {
            sink += value.getNano();
        }

        public void writeDateTime(ZonedDateTime value) {
            sink += value.getNano();
        }

        public void writeUuid(long mostSignificantBits, long leastSignificantBits) {
            sink += leastSignificantBits;
        }

        public void writeVector(VectorKind kind, Object values) {
            sink += kind.ordinal();
        }

        public void beginArray(int size, ArrayKind kind) {
            sink += size;
        }

        public void endArray() {}

        public void writeNull() {}

        public void beginList(int size) {}

        public void endList() {}

        public void beginMap(int size) {}

        public void mapKey(String key) {}

        public void endMap() {}

        public void writeNodeRef(long id) {}

        public void writeRelationshipRef(long id) {}

        public void writePath(long[] nodeIds, long[] relationshipIds) {}
    }
}
