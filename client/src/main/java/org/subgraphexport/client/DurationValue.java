package org.subgraphexport.client;

/**
 * A Neo4j duration: months, days, seconds and nanoseconds are independent components (a month is not a fixed
 * number of days, a day not a fixed number of seconds), so they are kept apart, exactly as stored.
 */
public record DurationValue(long months, long days, long seconds, int nanos) {}
