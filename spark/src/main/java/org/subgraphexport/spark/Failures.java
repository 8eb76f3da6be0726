package org.subgraphexport.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How this source's failures reach Spark: as exceptions whose message says what happened in the Python package's
 * words (a job fails with it; PySpark shows the message), the server's code first.
 */
final class Failures {
    static final String STATE_CHANGED = "Export.StateChanged";
    private static final Pattern MOVED_TO = Pattern.compile("(?:but in|to) ([0-9a-f-]{36}:\\d+)");

    private Failures() {}

    /** The failure for a state change: the Python package's {@code StateChangedError} message. */
    static IllegalStateException stateChanged(String expected, String actual, int restarts) {
        String again = restarts == 0 ? "" : " (after " + restarts + " restart" + (restarts == 1 ? "" : "s") + ")";
        return new IllegalStateException(STATE_CHANGED + ": the database moved on from state " + expected + " to "
                + (actual.isEmpty() ? "another" : actual) + " while the partitions were read" + again
                + "; read the export again");
    }

    /** The state a StateChanged message names as the database's new one (the server's wording), or "". */
    static String movedTo(String message) {
        Matcher m = MOVED_TO.matcher(message == null ? "" : message);
        return m.find() ? m.group(1) : "";
    }

    static RuntimeException unchecked(IOException e) {
        return new UncheckedIOException(e.getMessage(), e);
    }
}
