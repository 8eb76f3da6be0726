package org.subgraphexport.server;

import java.io.IOException;
import java.util.logging.Filter;
import java.util.logging.Level;
import java.util.logging.LogRecord;

/**
 * The java.util.logging filter of the test JVMs (src/test/resources/logging.properties of plugin and benchmarks):
 * drops the records that tests provoke on purpose, so a passing run prints no stack traces. Two kinds only:
 * <ul>
 *   <li>Jersey's "An I/O error has occurred while writing a response message entity" whose cause is the client
 *       having gone (Jetty's EofException, "Broken pipe", "Connection reset"): ReliabilityTest closes clients in
 *       the middle of exports; the extension logs each one itself ("client ended early") and the test counts
 *       them. Any other Jersey error, and any other cause, still prints.</li>
 *   <li>The Bolt driver's "Unknown channel option 'SO_…' for channel … LocalChannel": the in-process Query API
 *       talks to Bolt over Netty's in-memory LocalChannel, which has no socket options.</li>
 * </ul>
 */
public final class ExpectedLogNoise implements Filter {
    @Override
    public boolean isLoggable(LogRecord record) {
        return !(clientWentAway(record) || localChannelOption(record));
    }

    private static boolean clientWentAway(LogRecord record) {
        if (record.getLoggerName() == null || !record.getLoggerName().startsWith("org.glassfish.jersey.")) return false;
        for (Throwable t = record.getThrown(), previous = null; t != null && t != previous; previous = t, t = t.getCause()) {
            if (t.getClass().getName().equals("org.eclipse.jetty.io.EofException")) return true;
            String message = t.getMessage();
            if (t instanceof IOException && message != null
                    && (message.contains("Broken pipe") || message.contains("Connection reset"))) {
                return true;
            }
        }
        return false;
    }

    private static boolean localChannelOption(LogRecord record) {
        String message = record.getMessage();
        return record.getLevel() == Level.WARNING && message != null
                && message.startsWith("Unknown channel option '") && message.endsWith("io.netty.channel.local.LocalChannel'");
    }
}
