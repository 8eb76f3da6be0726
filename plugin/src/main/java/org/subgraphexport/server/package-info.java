/**
 * The HTTP layer (internal): JAX-RS resources and providers only. This is the package mounted with
 * {@code server.unmanaged_extension_classes=org.subgraphexport.server=/extension}; Jersey scans it
 * recursively, so nothing else lives here. Resources validate every parameter before the first byte and hand
 * an {@link javax.ws.rs.core.StreamingOutput} to the container.
 */
package org.subgraphexport.server;
