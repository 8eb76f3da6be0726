package org.subgraphexport.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.logging.LogManager;

/**
 * java.util.logging's configuration for the plugin's test JVMs, named by {@code java.util.logging.config.class}
 * (surefire in plugin/ and lts/): LogManager instantiates it at start-up, and it reads {@code logging.properties} beside it
 * from the class path, which is this module's test resources here and the plugin's test jar in lts/. A class rather
 * than {@code java.util.logging.config.file}, which takes a file path and would make lts/ read plugin's folders.
 */
public final class TestLogging {
    public TestLogging() {
        try (InputStream config = TestLogging.class.getResourceAsStream("logging.properties")) {
            if (config == null) throw new IllegalStateException("org/subgraphexport/server/logging.properties is not on the class path");
            LogManager.getLogManager().readConfiguration(config);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
