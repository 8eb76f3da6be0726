package org.subgraphexport.server;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.eclipse.jetty.io.EofException;
import org.junit.jupiter.api.Test;

/** The test JVMs' log filter drops the disconnects tests provoke, and nothing else. */
class ExpectedLogNoiseTest {
    private static final String JERSEY = "org.glassfish.jersey.server.ServerRuntime$Responder";
    private static final ExpectedLogNoise FILTER = new ExpectedLogNoise();

    private static LogRecord record(Level level, String logger, String message, Throwable thrown) {
        LogRecord r = new LogRecord(level, message);
        r.setLoggerName(logger);
        r.setThrown(thrown);
        return r;
    }

    private static Throwable wrapped(Throwable cause) {
        return new RuntimeException("org.glassfish.jersey.server.internal.process.MappableException", cause);
    }

    @Test
    void dropsJerseysReportOfAClientThatLeft() {
        String m = "An I/O error has occurred while writing a response message entity to the container output stream.";
        assertFalse(FILTER.isLoggable(record(Level.SEVERE, JERSEY, m, wrapped(new EofException(new IOException("Broken pipe"))))));
        assertFalse(FILTER.isLoggable(record(Level.SEVERE, JERSEY, m, wrapped(new IOException("Connection reset by peer")))));
    }

    @Test
    void keepsEveryOtherError() {
        String m = "An I/O error has occurred while writing a response message entity to the container output stream.";
        assertTrue(FILTER.isLoggable(record(Level.SEVERE, JERSEY, m, wrapped(new IOException("No space left on device")))));
        assertTrue(FILTER.isLoggable(record(Level.SEVERE, JERSEY, m, wrapped(new IllegalStateException("a bug")))));
        assertTrue(FILTER.isLoggable(record(Level.SEVERE, JERSEY, "no exception", null)));
        // A disconnect seen by anything but Jersey (the extension's own code, say) is not the container's report.
        assertTrue(FILTER.isLoggable(record(Level.SEVERE, "org.subgraphexport.server.ExportOutput", m, new EofException())));
    }
}
