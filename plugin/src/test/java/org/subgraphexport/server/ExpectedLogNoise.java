package org.subgraphexport.server;

import java.io.IOException;
import java.util.logging.Filter;
import java.util.logging.LogRecord;

/**
 * The java.util.logging filter of the plugin's test JVMs (logging.properties beside {@link TestLogging}, which reads
 * it): drops Jersey's "An I/O error has occurred while writing a response message entity" when its cause is the
 * client having gone (Jetty's EofException, "Broken pipe", "Connection reset"), so a passing run prints no stack
 * traces.
 * ReliabilityTest closes clients in the middle of exports on purpose; the extension logs each one itself
 * ("client ended early") and the test counts them. Any other Jersey error, and any other cause, still prints.
 */
public final class ExpectedLogNoise implements Filter {
    @Override
    public boolean isLoggable(LogRecord record) {
        return !clientWentAway(record);
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
}
