package org.subgraphexport.spark;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.DenseUnionVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.types.StructType;
import org.subgraphexport.client.PartitionFailedException;
import org.subgraphexport.wire.Wire;

/**
 * One export partition read in an executor, row by row, pinned to the planned state: its Arrow stream's rows of one
 * kind in the export's order, in the columns of the loaded schema. A stream cut off or failing (a broken connection,
 * no closing record, a 5xx answer, an error record with a {@code TransientError} code) is requested again and read
 * past the rows already handed to Spark: a stream of one state is the same every time, so no row is lost or given
 * twice, and nothing is held but the current batch. At most {@code attempts} requests, then the task fails with
 * {@link PartitionFailedException}. A commit (412 or the error record {@code Export.StateChanged}) fails the task.
 */
final class PartitionRows implements PartitionReader<InternalRow> {
    private final Settings settings;
    private final ExportScan.Part part;
    private final StructType schema;
    private final Map<List<String>, Integer> properties;
    private final BufferAllocator allocator = new RootAllocator();
    private final List<IOException> errors = new ArrayList<>();
    private ArrowStream stream;
    private DenseUnionVector union;
    private Group[] groups;
    private int row, rows;
    private long delivered, skip;
    private InternalRow current;
    private boolean done;

    PartitionRows(Settings settings, StructType schema, ExportScan.Part part) {
        this.settings = settings;
        this.part = part;
        this.schema = schema;
        this.properties = Layout.propertyColumns(schema);
    }

    @Override
    public boolean next() throws IOException {
        while (!done) {
            try {
                if (stream == null) open();
                while (row >= rows) {
                    if (!stream.next()) {
                        finish();
                        return false;
                    }
                    rows = stream.root.getRowCount();
                    row = 0;
                }
                int r = row++;
                Group g = groups[union.getTypeId(r)];
                if (g == null) continue;
                if (skip > 0) {
                    skip--;
                    continue;
                }
                current = g.row(union.getOffset(r));
                delivered++;
                return true;
            } catch (Requests.Refused e) {
                drop();
                if (Failures.STATE_CHANGED.equals(e.code())) {
                    throw Failures.stateChanged(part.state(), e.state.isEmpty() ? Failures.movedTo(e.getMessage())
                            : e.state, 0);
                }
                if (e.status() < 500) throw e;
                failed(e);
            } catch (ArrowStream.Failed e) {
                drop();
                if (Failures.STATE_CHANGED.equals(e.code)) {
                    throw Failures.stateChanged(part.state(), Failures.movedTo(e.getMessage()), 0);
                }
                if (!e.transientError()) throw e;
                failed(e);
            } catch (IOException e) {  // ArrowStream.Cut and the connection's own
                drop();
                failed(e);
            }
        }
        return false;
    }

    @Override
    public InternalRow get() {
        return current;
    }

    @Override
    public void close() {
        drop();
        allocator.close();
    }

    private void open() throws IOException {
        String extra = "partitions=" + part.partitions() + "&partition=" + part.index() + "&state="
                + Settings.encode(part.state());
        ArrowStream s = new ArrowStream(Requests.open(settings, settings.endpoint(extra, false)), allocator);
        stream = s;
        String partition = s.meta(Wire.Arrow.META_PARTITION), partitions = s.meta(Wire.Arrow.META_PARTITIONS);
        if (!partition.equals(Integer.toString(part.index())) || !partitions.equals(Integer.toString(part.partitions()))) {
            drop();
            throw new IllegalStateException("asked for partition " + part.index() + " of " + part.partitions()
                    + ", the server sent " + partition + " of " + partitions + ": it does not partition exports");
        }
        if (!s.meta(Layout.META_STATE).equals(part.state())) {
            String read = s.meta(Layout.META_STATE);
            drop();
            throw Failures.stateChanged(part.state(), read, 0);
        }
        union = s.element();
        List<Field> children = s.schema.getFields().get(0).getChildren();
        String kind = settings.nodes ? Wire.Arrow.NODE : Wire.Arrow.RELATIONSHIP;
        groups = new Group[children.size()];
        for (int c = 0; c < children.size(); c++) {
            if (kind.equals(children.get(c).getMetadata().get(Wire.Arrow.META_KIND))) {
                groups[c] = new Group((StructVector) union.getVectorByType((byte) c), s);
            }
        }
        row = rows = 0;
    }

    private void finish() {
        String ended = stream.end.getOrDefault(Layout.META_STATE, "");
        drop();
        done = true;
        if (!ended.equals(part.state())) {
            throw Failures.stateChanged(part.state(), ended, 0);
        }
    }

    private void drop() {
        if (stream != null) {
            stream.close();
            stream = null;
        }
    }

    private void failed(IOException e) throws PartitionFailedException {
        errors.add(e);
        if (errors.size() >= settings.attempts) {
            PartitionFailedException failed = new PartitionFailedException(part.index(), part.partitions(),
                    errors.size(), e);
            errors.subList(0, errors.size() - 1).forEach(e::addSuppressed);
            done = true;
            throw failed;
        }
        skip = delivered;
        double seconds = Math.min(2.0, 0.1 * Math.pow(2, errors.size() - 1)) * ThreadLocalRandom.current().nextDouble(1.0, 1.25);
        try {
            Thread.sleep((long) (seconds * 1000));
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new PartitionFailedException(part.index(), part.partitions(), errors.size(), e);
        }
    }

    /** One group of the kind read: where each of its columns goes in the Spark row. */
    private final class Group {
        private final Values.Getter id;
        private final Values.Getter labelsOrType;
        private final Values.Getter source, target;
        private final Values.Getter extra;
        private final int[] at;
        private final Values.Getter[] columns;
        private final Values.ElementIds nodeIds, ownIds;

        Group(StructVector group, ArrowStream s) {
            nodeIds = new Values.ElementIds(s.meta(Wire.Arrow.META_NODE_ID_PREFIX));
            ownIds = settings.nodes ? nodeIds : new Values.ElementIds(s.meta(Wire.Arrow.META_REL_ID_PREFIX));
            Values.Getter id = null, labelsOrType = null, source = null, target = null, extra = null;
            List<Integer> at = new ArrayList<>();
            List<Values.Getter> columns = new ArrayList<>();
            for (FieldVector v : group.getChildrenFromFields()) {
                Field f = v.getField();
                Map<String, String> m = f.getMetadata();
                if (m != null && m.containsKey(Wire.Arrow.META_KEY)) {
                    List<String> key = List.of(m.get(Wire.Arrow.META_KEY), m.get(Wire.Arrow.META_TYPE));
                    Integer position = properties.get(key);
                    if (position == null) {
                        throw new IllegalStateException("partition " + part.index() + " has a column for key '"
                                + key.get(0) + "' of type " + key.get(1) + " that the export's schema (found when it"
                                + " was loaded) lacks: read it again");
                    }
                    at.add(position);
                    columns.add(Values.of(v, s));
                    continue;
                }
                switch (f.getName()) {
                    case Wire.Arrow.ID -> id = Values.of(v, s);
                    case Wire.Arrow.LABELS, Wire.Arrow.TYPE -> labelsOrType = Values.of(v, s);
                    case Wire.Arrow.SOURCE -> source = Values.of(v, s);
                    case Wire.Arrow.TARGET -> target = Values.of(v, s);
                    case Wire.Arrow.EXTRA -> extra = Values.of(v, s);
                    default -> throw new IllegalStateException("a group of the export has a column '" + f.getName()
                            + "' that is neither a fixed column nor a property's: a newer server?");
                }
            }
            this.id = id;
            this.labelsOrType = labelsOrType == null ? i -> settings.nodes ? new GenericArrayData(new Object[0]) : null
                    : labelsOrType;
            this.source = source;
            this.target = target;
            this.extra = extra;
            this.at = at.stream().mapToInt(Integer::intValue).toArray();
            this.columns = columns.toArray(new Values.Getter[0]);
        }

        InternalRow row(int i) {
            Object[] values = new Object[schema.size()];
            long own = (Long) id.get(i);
            values[0] = ownIds.of(own);
            values[1] = own;
            values[2] = labelsOrType.get(i);
            if (!settings.nodes) {
                long from = (Long) source.get(i), to = (Long) target.get(i);
                values[3] = from;
                values[4] = to;
                values[5] = nodeIds.of(from);
                values[6] = nodeIds.of(to);
            }
            for (int k = 0; k < columns.length; k++) {
                values[at[k]] = columns[k].get(i);
            }
            values[values.length - 1] = extra == null ? null : extra.get(i);
            return new GenericInternalRow(values);
        }
    }
}
