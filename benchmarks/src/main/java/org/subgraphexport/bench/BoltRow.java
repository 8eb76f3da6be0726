package org.subgraphexport.bench;

import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Config;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Record;
import org.neo4j.driver.Result;
import org.neo4j.driver.Session;
import org.neo4j.driver.SessionConfig;
import org.neo4j.driver.Value;
import org.neo4j.driver.types.Node;
import org.neo4j.driver.types.Relationship;
import org.neo4j.driver.types.TypeSystem;

/**
 * Bolt with the official Java driver: the peers' query (one row per Object, its CHILDREN relationships and its
 * attached data as COLLECT subqueries), records streamed and counted as they arrive. The driver has decoded every
 * node and relationship (ids, labels, properties) into its values by the time a record is handed out. One driver
 * (connection pool) per address, created outside the timing, like an application would.
 */
final class BoltRow implements Row {
    /** The driver on the classpath, e.g. "neo4j-java-driver 6.2.1" (scripts/bench --neo4j uses the line's own). */
    static final String DRIVER = "neo4j-java-driver "
            + String.valueOf(Driver.class.getPackage().getImplementationVersion()).split("-")[0];

    private final String database;
    private final String rootElementId;
    private final String cypher;
    private final int fetchSize;
    private final Map<URI, Driver> drivers = new ConcurrentHashMap<>();

    BoltRow(String database, String rootElementId, String cypher, int fetchSize) {
        this.database = database;
        this.rootElementId = rootElementId;
        this.cypher = cypher;
        this.fetchSize = fetchSize;
    }

    @Override
    public String name() {
        return "bolt driver";
    }

    @Override
    public String description() {
        return "Bolt, " + DRIVER + ", session.run, fetch size " + (fetchSize < 0 ? "all" : fetchSize);
    }

    @Override
    public Kind kind() {
        return Kind.ALTERNATIVE;
    }

    @Override
    public Outcome run(Endpoints endpoints, boolean keepIds) {
        Driver driver = drivers.computeIfAbsent(endpoints.bolt(), uri -> {
            Driver d = GraphDatabase.driver(uri, AuthTokens.none(), Config.builder().withoutEncryption().build());
            d.verifyConnectivity();
            return d;
        });
        SessionConfig session = SessionConfig.builder().withDatabase(database).withFetchSize(fetchSize).build();
        Tally tally = new Tally(keepIds);
        long start = System.nanoTime();
        try (Session s = driver.session(session)) {
            Result result = s.run(cypher, Map.of("root", rootElementId));
            while (result.hasNext()) {
                Record record = result.next();
                for (Value value : record.values()) {
                    visit(value, tally);
                }
            }
        }
        return new Outcome(-1, tally.nodes(), tally.relationships(), System.nanoTime() - start, tally);
    }

    private static final TypeSystem TYPES = TypeSystem.getDefault();

    private static void visit(Value value, Tally tally) {
        if (value.hasType(TYPES.NODE())) {
            Node n = value.asNode();
            tally.node(n.elementId());
        } else if (value.hasType(TYPES.RELATIONSHIP())) {
            Relationship r = value.asRelationship();
            tally.relationship(r.elementId());
        } else if (value.hasType(TYPES.LIST()) || value.hasType(TYPES.MAP())) {
            for (Value v : value.values()) visit(v, tally);
        }
    }

    void close() {
        drivers.values().forEach(Driver::close);
        drivers.clear();
    }
}
