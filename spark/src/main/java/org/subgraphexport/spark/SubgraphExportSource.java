package org.subgraphexport.spark;

import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * {@code spark.read.format("subgraph_export")}: the subgraph under a root node, one Spark partition per export
 * partition, read in the executors from the server's Arrow stream (docs/wire-format.md sections 1.3 and 7). The
 * options, the schema and every value are those of the Python data source ({@code subgraph_export.spark}, which
 * documents them and which this replaces when its jar is on the session's class path); the types of every Neo4j
 * value in Spark are in python/README.md, "Spark and Dask".
 *
 * <p>{@code load()} checks the options and reads the schema: the first message of the whole export and of each
 * partition, pinned to one state (the state the schema's {@code element_id} metadata names). Each query then reads
 * every partition pinned to one state ({@link ExportScan}).
 */
public final class SubgraphExportSource implements TableProvider, DataSourceRegister {
    @Override
    public String shortName() {
        return Settings.NAME;
    }

    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        Settings settings = new Settings(options.asCaseSensitiveMap());
        return Layout.probe(settings).sparkSchema(settings.nodes);
    }

    @Override
    public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
        return new ExportTable(new Settings(properties), schema);
    }

    private record ExportTable(Settings settings, StructType schema) implements SupportsRead {
        @Override
        public String name() {
            return Settings.NAME + ":" + settings.endpoint("", false);
        }

        @Override
        public Set<TableCapability> capabilities() {
            return Set.of(TableCapability.BATCH_READ);
        }

        @Override
        public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
            return new ExportScan(settings, schema);
        }
    }
}
