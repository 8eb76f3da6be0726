/** The plugin's neo4j.conf settings (internal; registered through META-INF/services). Not JAX-RS. */
package org.subgraphexport.config;
