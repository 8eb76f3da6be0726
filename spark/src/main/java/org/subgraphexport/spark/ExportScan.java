package org.subgraphexport.spark;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * One query's read of a loaded export: planned on the driver when Spark plans the query, one input partition per
 * export partition, all pinned to one state. Which state: the loaded one with {@code onStateChange=fail} (or a
 * {@code state} option); with {@code restart} the state the database is in now, if the export's columns in it are
 * those of the loaded schema (else the query fails: load again). So each query of a DataFrame reads the database as
 * it is when the query starts, never a mix.
 */
final class ExportScan implements ScanBuilder, Scan, Batch {
    /** An export partition to read: which of how many, at which state. */
    record Part(int index, int partitions, String state) implements InputPartition {}

    private final Settings settings;
    private final StructType schema;

    ExportScan(Settings settings, StructType schema) {
        this.settings = settings;
        this.schema = schema;
    }

    @Override
    public Scan build() {
        return this;
    }

    @Override
    public StructType readSchema() {
        return schema;
    }

    @Override
    public String description() {
        return Settings.NAME + "(" + settings.endpoint("", false) + ", " + (settings.nodes ? "nodes" : "relationships")
                + ", " + settings.partitions + " partitions)";
    }

    @Override
    public Batch toBatch() {
        return this;
    }

    @Override
    public InputPartition[] planInputPartitions() {
        String state = state();
        InputPartition[] parts = new InputPartition[settings.partitions];
        for (int i = 0; i < parts.length; i++) {
            parts[i] = new Part(i, settings.partitions, state);
        }
        return parts;
    }

    /** The state this query reads (see the class's text). */
    private String state() {
        String loaded = schema.apply(Layout.ELEMENT_ID).metadata().getString(Layout.META_STATE);
        if (!settings.restart || settings.pinned != null || Layout.currentState(settings).equals(loaded)) {
            return loaded;
        }
        Layout now = Layout.probe(settings);
        Map<List<String>, Integer> have = Layout.propertyColumns(schema);
        List<String> lacking = new ArrayList<>();
        for (Layout.Column c : now.columns) {
            Integer at = have.get(List.of(c.key(), c.type()));
            StructField f = at == null ? null : schema.fields()[at];
            DataType type = Layout.sparkType(c.field());
            if (f == null || !f.name().equals(c.name()) || !f.dataType().equals(type)) {
                lacking.add("'" + c.key() + "' of type " + c.type());
            }
        }
        if (!lacking.isEmpty()) {
            throw new IllegalStateException("the database moved on from state " + loaded + " to " + now.state
                    + " since load(), and the export now has columns the loaded schema lacks (" + lacking.get(0)
                    + "): load() it again");
        }
        return now.state;
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        return new Rows(settings, schema);
    }

    /** Makes each partition's reader in its executor. */
    private record Rows(Settings settings, StructType schema) implements PartitionReaderFactory {
        Rows {
            Objects.requireNonNull(settings);
        }

        @Override
        public PartitionReader<InternalRow> createReader(InputPartition partition) {
            return new PartitionRows(settings, schema, (Part) partition);
        }
    }
}
