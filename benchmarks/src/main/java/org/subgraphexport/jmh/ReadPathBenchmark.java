package org.subgraphexport.jmh;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.neo4j.graphdb.Transaction;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.subgraphexport.bench.DiscardingWriter;

/**
 * The read paths on an embedded database holding the demo graph (page cache 1 GiB, larger than the store; the
 * trial's setup reads the whole subgraph once per path, so it is warm): the traversal framework, a hand-written
 * walk on the core API, the kernel cursor API (the project's {@code SubgraphWalker}), and Cypher (the end-to-end
 * peers' query), each reading the same subgraph, every property of every node and relationship, into a counting
 * sink. One operation is one whole subgraph in its own read transaction. Secondary results: {@code nodes} and
 * {@code relationships} per second.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
// Forks inherit the host JVM's flags: scripts/jmh starts it with Neo4j's (NEO4J_JVM_FLAGS of scripts/java-env.sh).
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g"})
@State(Scope.Benchmark)
public class ReadPathBenchmark {
    /** Objects in the demo graph (about 6 nodes and 6 relationships per Object). */
    @Param({"1000", "10000"})
    public int objects;

    private DemoData data;
    private String root;
    private long lastNodes = -1;
    private long lastRelationships = -1;

    @AuxCounters(AuxCounters.Type.OPERATIONS)
    @State(Scope.Thread)
    public static class Counts {
        public long nodes;
        public long relationships;

        @Setup(Level.Iteration)
        public void reset() {
            nodes = 0;
            relationships = 0;
        }
    }

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        Blackhole bh = new Blackhole(
                "Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.");
        data = DemoData.open(objects);
        root = data.graph.rootElementId();
        // Sanity, and page-cache warm-up: every path reads exactly the generator's nodes and relationships.
        check("kernel", kernel(new Counts(), bh));
        check("coreApi", coreApi(new Counts(), bh));
        check("traversalFramework", traversalFramework(new Counts(), bh));
        check("cypher", cypher(new Counts(), bh));
        System.out.printf("%n%,d Objects: %,d nodes, %,d relationships%n", objects, data.graph.nodes(),
                data.graph.relationships());
    }

    private void check(String path, long nodes) {
        if (nodes != data.graph.nodes() || lastRelationships != data.graph.relationships()) {
            throw new IllegalStateException(path + " read " + nodes + " nodes and " + lastRelationships
                    + " relationships, expected " + data.graph.nodes() + " and " + data.graph.relationships());
        }
    }

    @Benchmark
    public long kernel(Counts c, Blackhole bh) throws IOException {
        DiscardingWriter out = new DiscardingWriter();
        try (Transaction tx = data.db.beginTx()) {
            Walks.kernel(tx, data.rootId, out);
        }
        bh.consume(out.sink);
        return done(c, out.nodes, out.relationships);
    }

    @Benchmark
    public long coreApi(Counts c, Blackhole bh) {
        Sink sink = new Sink(bh);
        try (Transaction tx = data.db.beginTx()) {
            Walks.coreApi(tx, root, sink);
        }
        return done(c, sink.nodes, sink.relationships);
    }

    @Benchmark
    public long traversalFramework(Counts c, Blackhole bh) {
        Sink sink = new Sink(bh);
        try (Transaction tx = data.db.beginTx()) {
            Walks.traversalFramework(tx, root, sink);
        }
        return done(c, sink.nodes, sink.relationships);
    }

    @Benchmark
    public long cypher(Counts c, Blackhole bh) {
        Sink sink = new Sink(bh);
        try (Transaction tx = data.db.beginTx()) {
            Walks.cypher(tx, root, sink);
        }
        return done(c, sink.nodes, sink.relationships);
    }

    private long done(Counts c, long nodes, long relationships) {
        c.nodes += nodes;
        c.relationships += relationships;
        lastNodes = nodes;
        lastRelationships = relationships;
        return nodes;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        try {
            check("the last operation", lastNodes);
        } finally {
            data.close();
        }
    }
}
