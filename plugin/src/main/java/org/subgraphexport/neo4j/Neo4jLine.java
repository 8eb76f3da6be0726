package org.subgraphexport.neo4j;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import org.neo4j.internal.kernel.api.security.AccessMode;
import org.neo4j.kernel.api.TransactionTimeout;
import org.neo4j.kernel.impl.api.security.RestrictedAccessMode;
import org.neo4j.kernel.internal.Version;

/**
 * Everything the plugin uses that differs between the Neo4j lines it supports (5.26 LTS, every calendar release
 * 2025.01 to 2026.08), in one place. The rest of the plugin is compiled against the newest line and uses only
 * classes and members every supported line has with the same descriptor; {@code LinkageIT} and
 * {@code scripts/neo4j-lines} prove that against each line's jars. What differs is resolved here once, when this
 * class is first used, by looking the member up, not by parsing version numbers, so a release nobody has seen
 * yet works if it kept either shape:
 *
 * <table>
 *   <caption>Members that differ (checked in every release's neo4j-kernel-api jar on Maven Central)</caption>
 *   <tr><th>what</th><th>where the line has it</th></tr>
 *   <tr><td>the read-only access mode</td><td>{@code AccessMode.Static.READ}: 5.26.x, 2025.01-2025.03;
 *       {@code StaticAccessMode.READ}: 2025.04 and later</td></tr>
 *   <tr><td>a transaction's timeout</td><td>{@code TransactionTimeout.timeout()}, a Duration: 5.26.0-5.26.9,
 *       2025.01-2025.07; {@code timeoutNanos()}: 5.26.10 and later, 2025.08 and later</td></tr>
 *   <tr><td>the HTTP server</td><td>Jetty 10: 5.26.0, 5.26.1 (not supported: the export admission aborts stalled
 *       responses through Jetty 12's ee8 classes); Jetty 12: 5.26.2 and later, every calendar release</td></tr>
 * </table>
 *
 * <p>A release that changed a member in a third way makes {@link #check()} name it, and every export answers
 * 501 {@code Export.UnsupportedNeo4j} with that text instead of failing in the middle of a stream. To support it,
 * add the new shape here (one file) and the release to the lines {@code LinkageIT} checks.
 */
public final class Neo4jLine {
    private static final MethodHandles.Lookup LOOKUP = MethodHandles.publicLookup();
    private static final String VERSION = Version.getNeo4jVersion();
    private static final MethodHandle READ_ONLY;
    private static final MethodHandle TIMEOUT_NANOS;
    private static final String PROBLEM;
    /** What the export admission's stall and departure handling uses: Jetty 12's ee8 request, from 5.26.2 on. */
    private static final String JETTY_12_REQUEST = "org.eclipse.jetty.ee8.nested.Request";

    static {
        MethodHandle readOnly = null;
        MethodHandle timeoutNanos = null;
        String problem = null;
        try {
            readOnly = readOnly();
            timeoutNanos = timeoutNanos();
        } catch (ReflectiveOperationException | LinkageError e) {
            problem = "Neo4j " + VERSION + " is not supported by this plugin (" + e
                    + "); supported: 5.26.2 and later 5.26 patches, and 2025.01 to 2026.08, see the README's "
                    + "support matrix";
        }
        if (problem == null && !present(JETTY_12_REQUEST)) {
            problem = "Neo4j " + VERSION + " serves HTTP with Jetty 10 (5.26.0 and 5.26.1); this plugin needs the "
                    + "Jetty 12 of 5.26.2 and later: upgrade to the newest 5.26 patch";
        }
        READ_ONLY = readOnly;
        TIMEOUT_NANOS = timeoutNanos;
        PROBLEM = problem;
    }

    private Neo4jLine() {}

    private static boolean present(String className) {
        try {
            Class.forName(className, false, Neo4jLine.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** {@code new RestrictedAccessMode(mode, READ)} with READ from whichever class the line keeps it in. */
    private static MethodHandle readOnly() throws ReflectiveOperationException {
        Class<?> staticMode;
        try {
            staticMode = Class.forName("org.neo4j.internal.kernel.api.security.StaticAccessMode");
        } catch (ClassNotFoundException olderThan2025_04) {
            staticMode = Class.forName("org.neo4j.internal.kernel.api.security.AccessMode$Static");
        }
        Object read = staticMode.getField("READ").get(null);
        MethodHandle constructor = LOOKUP.findConstructor(
                RestrictedAccessMode.class, MethodType.methodType(void.class, AccessMode.class, staticMode));
        return MethodHandles.insertArguments(constructor, 1, read)
                .asType(MethodType.methodType(AccessMode.class, AccessMode.class));
    }

    /** {@code timeout.timeoutNanos()}, or {@code timeout.timeout().toNanos()} where the line has only that. */
    private static MethodHandle timeoutNanos() throws ReflectiveOperationException {
        try {
            return LOOKUP.findVirtual(TransactionTimeout.class, "timeoutNanos", MethodType.methodType(long.class));
        } catch (NoSuchMethodException line2025) {
            return MethodHandles.filterReturnValue(
                    LOOKUP.findVirtual(TransactionTimeout.class, "timeout", MethodType.methodType(Duration.class)),
                    LOOKUP.findVirtual(Duration.class, "toNanos", MethodType.methodType(long.class)));
        }
    }

    /**
     * Throws {@link UnsupportedOperationException} naming the member this server lacks if any of the ones above
     * could not be found; the resources call it before they start a response.
     */
    public static void check() {
        if (PROBLEM != null) {
            throw new UnsupportedOperationException(PROBLEM);
        }
    }

    /** The caller's access mode restricted to reads: what the Cypher endpoint runs a user's query with. */
    public static AccessMode readOnly(AccessMode mode) {
        check();
        try {
            return (AccessMode) READ_ONLY.invokeExact(mode);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** The transaction's timeout in nanoseconds; 0 for none. */
    public static long timeoutNanos(TransactionTimeout timeout) {
        check();
        try {
            return (long) TIMEOUT_NANOS.invokeExact(timeout);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * What a transaction event listener that needs the keys of removed properties but no old values asks Neo4j to
     * collect: {@code EnumSet.of(TransactionData.DataSelection.removedPropertKeys)}, for its
     * {@code transactionDataSelection()}. Looked up by name: 5.26's listener API has neither the enum nor the method
     * (it collects everything; the method, never called there, is then an ordinary method of the listener).
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static Set<?> removedPropertyKeysOnly() {
        try {
            Class<? extends Enum> selection = (Class<? extends Enum>)
                    Class.forName("org.neo4j.graphdb.event.TransactionData$DataSelection");
            return EnumSet.of(Enum.valueOf(selection, "removedPropertKeys"));
        } catch (ClassNotFoundException e) {
            throw new UnsupportedOperationException("Neo4j " + VERSION + " has no TransactionData.DataSelection", e);
        }
    }
}
