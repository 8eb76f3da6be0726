package org.subgraphexport.bench;

import java.util.logging.Filter;
import java.util.logging.Level;
import java.util.logging.LogRecord;

/**
 * The java.util.logging filter of the benchmarks' test JVM (src/test/resources/logging.properties): drops Netty's
 * "Unknown channel option 'SO_…' for channel … of type 'class io.netty.channel.local.LocalChannel'" warnings, logged
 * through the Bolt driver when the Query API inside the server talks to Bolt over Netty's in-memory LocalChannel
 * (it has no socket options to set). Every other record passes.
 */
public final class LocalChannelOptionWarnings implements Filter {
    @Override
    public boolean isLoggable(LogRecord record) {
        String message = record.getMessage();
        return !(record.getLevel() == Level.WARNING && message != null && message.startsWith("Unknown channel option '")
                && message.endsWith("'class io.netty.channel.local.LocalChannel'"));
    }
}
