package org.subgraphexport.bench.floor;

import javax.ws.rs.core.Feature;
import javax.ws.rs.core.FeatureContext;
import javax.ws.rs.ext.Provider;

/**
 * The same Jersey setting the export mount uses ({@code org.subgraphexport.server.StreamingSettings}): no 8 KiB
 * Content-Length buffer, so the floor goes out chunked from the first write, exactly like an export.
 */
@Provider
public final class FloorStreaming implements Feature {
    @Override
    public boolean configure(FeatureContext context) {
        context.property("jersey.config.server.contentLength.buffer", 0);
        return true;
    }
}
