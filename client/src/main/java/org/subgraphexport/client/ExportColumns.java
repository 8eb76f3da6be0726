package org.subgraphexport.client;

import java.util.List;

/**
 * The second record of a rows stream (Cypher {@code mode=rows}), right after the header: the column names. Every
 * {@link ExportRow} that follows has one value per column, in this order. Graph streams have no columns record.
 *
 * @param names column names in order
 */
public record ExportColumns(List<String> names) implements ExportRecord {
    public ExportColumns {
        names = List.copyOf(names);
    }
}
