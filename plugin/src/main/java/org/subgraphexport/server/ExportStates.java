package org.subgraphexport.server;

import java.util.Map;
import java.util.regex.Pattern;
import javax.ws.rs.core.Response;
import org.neo4j.configuration.Config;
import org.neo4j.graphdb.GraphDatabaseService;
import org.subgraphexport.config.ExportSettings;
import org.subgraphexport.read.ChangeJournal;
import org.subgraphexport.read.ExportState;
import org.subgraphexport.read.Partition;

/**
 * The request parameters that make an export one of many streams: {@code partitions} and {@code partition} (which
 * share of the export, docs/wire-format.md §1.3) and {@code state} (the store state it must read). All checked
 * before the first byte: a bad value is a 400 naming the parameter, a state the database is no longer in a 412
 * {@value ExportState#CHANGED}.
 */
final class ExportStates {
    /** The response header naming the store state the database was in when the request was checked. */
    static final String HEADER = "Subgraph-Export-State";
    /** {@code <database uuid>:<last committed transaction>}, as {@code StoreState.version} writes it. */
    private static final Pattern TOKEN = Pattern.compile("([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}):(\\d{1,19})");

    private ExportStates() {}

    /** The partition the request asks for: both parameters or neither (the whole export). */
    static Partition partition(RequestParameters params, Config config) {
        boolean count = params.has("partitions");
        boolean index = params.has("partition");
        if (count != index) {
            throw ApiError.badParameter((count ? "partition" : "partitions") + " is missing: partitions=N and partition=i"
                    + " (0 <= i < N) come together");
        }
        if (!count) {
            return Partition.WHOLE;
        }
        int max = config.get(ExportSettings.MAX_PARTITIONS);
        long n = params.nonNegative("partitions", 1, Long.MAX_VALUE);
        if (n < 1) {
            throw ApiError.badParameter("partitions must be at least 1, got " + n);
        }
        if (n > max) {
            throw ApiError.badParameter("partitions " + n + " exceeds the server's maximum " + max + " ("
                    + ExportSettings.MAX_PARTITIONS.name() + ")");
        }
        long i = params.nonNegative("partition", 0, Long.MAX_VALUE);
        if (i >= n) {
            throw ApiError.badParameter("partition must be less than partitions (" + n + "), got " + i);
        }
        return new Partition((int) n, (int) i);
    }

    /**
     * The earlier state a delta request ({@code since=}) is relative to, checked against the journal, or null for a
     * whole export. 400 if it is not a state token, or names a state this database has not reached; 410 {@value ChangeJournal#UNAVAILABLE} if the journal cannot answer it exactly (a state of another
     * database or from before a restart, or older than the journal remembers).
     */
    static String since(RequestParameters params, GraphDatabaseService db, String current,
            ChangeJournal journal) {
        String since = params.get("since");
        if (since == null) {
            return null;
        }
        var token = TOKEN.matcher(since);
        if (!token.matches()) {
            throw ApiError.badParameter("since must be the Subgraph-Export-State of an earlier export (<database id>:"
                    + "<transaction>), got '" + RequestParameters.abbreviate(since) + "'");
        }
        String database = current.substring(0, current.indexOf(':'));
        long tx;
        try {
            tx = Long.parseLong(token.group(2));
        } catch (NumberFormatException e) {
            throw ApiError.badParameter("since names transaction " + token.group(2) + ", beyond any transaction id");
        }
        if (!token.group(1).equals(database) || !journal.database().equals(database)) {
            throw unavailable(current, "state " + since + " is not a state of the database '" + db.databaseName()
                    + "' as it is now (" + database + "): another database, or one dropped and created again");
        }
        long now = Long.parseLong(current.substring(current.indexOf(':') + 1));
        if (tx > now) {
            throw ApiError.badParameter("since names transaction " + tx + ", but the database '" + db.databaseName()
                    + "' has committed only up to " + now + " (" + current + ")");
        }
        if (tx < now && tx < journal.horizon()) {
            throw unavailable(current, "the server remembers the changes after state " + database + ":"
                    + journal.horizon() + " only (it restarted since " + since + ", or its change journal, "
                    + ExportSettings.DELTA_JOURNAL_SIZE.name() + ", overflowed): read the whole export again");
        }
        return since;
    }

    private static ApiError unavailable(String current, String message) {
        return new ApiError(Response.Status.GONE, ChangeJournal.UNAVAILABLE, message, Map.of(HEADER, current));
    }

    /**
     * The state the request pins with {@code state=}, or null. 400 if it is not a state token or names another
     * database; 412 {@value ExportState#CHANGED} if the database ({@code current}, its state now) has moved on.
     */
    static String pinned(RequestParameters params, GraphDatabaseService db, String current) {
        String state = params.get("state");
        if (state == null) {
            return null;
        }
        var token = TOKEN.matcher(state);
        if (!token.matches()) {
            throw ApiError.badParameter("state must be a Subgraph-Export-State token of this server (<database id>:"
                    + "<transaction>), got '" + RequestParameters.abbreviate(state) + "'");
        }
        String database = current.substring(0, current.indexOf(':'));
        if (!token.group(1).equals(database)) {
            throw ApiError.badParameter("state " + state + " is a state of another database, not of '"
                    + db.databaseName() + "' (" + database + ")");
        }
        if (!state.equals(current)) {
            throw new ApiError(Response.Status.PRECONDITION_FAILED, ExportState.CHANGED, "the database '"
                    + db.databaseName() + "' is no longer in state " + state + " but in " + current
                    + ": a transaction committed since; read the export again", Map.of(HEADER, current));
        }
        return state;
    }
}
