package org.subgraphexport.server;

import javax.ws.rs.core.Feature;
import javax.ws.rs.core.FeatureContext;
import javax.ws.rs.ext.Provider;

/**
 * Jersey holds back the first 8 KiB of every response to compute a Content-Length. For an export that means
 * the first bytes reach the client late and a client that leaves early goes unnoticed. Buffer 0 streams from
 * the first flush, chunked. Applies to this extension's mount only.
 */
@Provider
public final class StreamingSettings implements Feature {
    static final String CONTENT_LENGTH_BUFFER = "jersey.config.server.contentLength.buffer";

    @Override
    public boolean configure(FeatureContext context) {
        context.property(CONTENT_LENGTH_BUFFER, 0);
        return true;
    }
}
