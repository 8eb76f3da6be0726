/**
 * What differs between the Neo4j lines the plugin supports (5.26 LTS and the calendar releases from 2025.01), in
 * one class: {@link org.subgraphexport.neo4j.Neo4jLine}. Everything else in the plugin links against every
 * supported line unchanged, which {@code LinkageIT} checks against each line's jars.
 */
package org.subgraphexport.neo4j;
