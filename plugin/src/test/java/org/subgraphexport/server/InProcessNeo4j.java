package org.subgraphexport.server;

import java.io.PrintStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.config.Configuration;
import org.neo4j.graphdb.config.Setting;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilder;
import org.neo4j.harness.Neo4jBuilders;

/**
 * The in-process Neo4j (neo4j-harness) of one test class, with the extension mounted at {@code /extension} and
 * Bolt off: started before the class's {@code @BeforeAll} methods (which fill the graph), closed after its
 * {@code @AfterAll} methods; one server per class, shared by its tests. {@link #with} adds a setting or overrides a
 * default.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final InProcessNeo4j neo4j = InProcessNeo4j.withExtension().with(ExportSettings.MAX_DEPTH, 1);
 * }</pre>
 *
 * The accessors are {@link Neo4j}'s own, so a test reads as if it held the server itself.
 */
public final class InProcessNeo4j implements BeforeAllCallback, AfterAllCallback {
    private final List<UnaryOperator<Neo4jBuilder>> settings = new ArrayList<>();
    private Neo4j neo4j;

    private InProcessNeo4j() {
        with(BoltConnector.enabled, false);
    }

    /** A server with the extension mounted at {@code /extension} and Bolt off. */
    public static InProcessNeo4j withExtension() {
        return new InProcessNeo4j();
    }

    /** Sets {@code setting} (the last value given for a setting wins). */
    public <T> InProcessNeo4j with(Setting<T> setting, T value) {
        settings.add(builder -> builder.withConfig(setting, value));
        return this;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        Neo4jBuilder builder = Neo4jBuilders.newInProcessBuilder();
        for (UnaryOperator<Neo4jBuilder> setting : settings) {
            builder = setting.apply(builder);
        }
        neo4j = builder.withUnmanagedExtension("/extension", TraverseResource.class).build();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (neo4j != null) {
            neo4j.close();
            neo4j = null;
        }
    }

    public URI httpURI() {
        return server().httpURI();
    }

    public GraphDatabaseService defaultDatabaseService() {
        return server().defaultDatabaseService();
    }

    public DatabaseManagementService databaseManagementService() {
        return server().databaseManagementService();
    }

    public Configuration config() {
        return server().config();
    }

    public void printLogs(PrintStream out) {
        server().printLogs(out);
    }

    private Neo4j server() {
        if (neo4j == null) {
            throw new IllegalStateException("no server: register InProcessNeo4j with @RegisterExtension on a static"
                    + " field, and use it from @BeforeAll on");
        }
        return neo4j;
    }
}
