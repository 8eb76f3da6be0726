package org.subgraphexport.encode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import org.subgraphexport.wire.GraphWriter;
import org.subgraphexport.wire.Header;
import org.subgraphexport.wire.TokenNames;
import org.subgraphexport.wire.Wire;

/**
 * An arrow export of 900 records and its partitions, dealt as the plugin deals them (record k in partition
 * {@code (k / 256) % partitions}), each partition in its own stream with its own writer: the golden files
 * {@code partitioned-<p>-of-<n>.arrow} that the Python package's offline tests join (python/tests/test_offline.py) and
 * compare with the single stream ({@code partitioned-0-of-1.arrow}). Each stream is one batch (an export that needs
 * more differs from its single stream as python/README.md, "Beyond one batch", says), but the streams differ:
 * <ul>
 *   <li>nodes 0 to 599: labels L0, L1 or both by {@code k % 3}; from 450 every fifth node has L2 alone, a group
 *       partitions 0 and 1 do not have;
 *   <li>{@code v}: a long below 256 and from 400, a string from 256 to 399: the single stream names the longs
 *       {@code v} and the strings {@code v:string}, partition 1 (records 256 to 511) the other way round;
 *   <li>{@code far}: node 300 only, a date-time in year 10000, beyond Arrow's timestamps: a column with no value,
 *       placed by the record whose {@code extra_properties} holds it;
 *   <li>{@code late}: a string on nodes from 520 (partition 2 only);
 *   <li>relationships 600 to 899 (r = k - 600: node r to node r + 1), types T0 and T1 by {@code r % 2}, {@code w}
 *       a double on every third.
 * </ul>
 */
final class PartitionedFixture {
    static final int RECORDS = 900, NODES = 600, BATCH = 1_000;
    static final String STATE = FixtureStream.STATE;

    private PartitionedFixture() {}

    static byte[] partition(int partition, int partitions) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GraphWriter w = ArrowGraphWriter.arrow(out, BATCH);
        w.header(new Header("neo4j", FixtureStream.NODE_PREFIX + 0, FixtureStream.NODE_PREFIX,
                FixtureStream.REL_PREFIX, STATE, partition, partitions), TOKENS);
        long nodes = 0, relationships = 0;
        for (int k = 0; k < RECORDS; k++) {
            if ((k / Wire.PARTITION_BLOCK) % partitions != partition) {
                continue;
            }
            if (k < NODES) {
                node(w, k);
                nodes++;
            } else {
                int r = k - NODES;
                w.beginRelationship(r, r % 2, r, r + 1);
                if (r % 3 == 0) {
                    w.property(W);
                    w.writeDouble(r / 4.0);
                }
                w.endRelationship();
                relationships++;
            }
        }
        w.end(nodes, relationships, false, STATE);
        w.finish();
        return out.toByteArray();
    }

    private static final int V = 0, FAR = 1, LATE = 2, W = 3;

    private static void node(GraphWriter w, int k) throws IOException {
        if (k >= 450 && k % 5 == 0) {
            w.beginNode(k, new int[] {2}, 1);
        } else {
            int[][] sets = {{0}, {1}, {0, 1}};
            int[] labels = sets[k % 3];
            w.beginNode(k, labels, labels.length);
        }
        w.property(V);
        if (k >= 256 && k < 400) {
            w.writeString("s" + k);
        } else {
            w.writeLong(k * 10L);
        }
        if (k == 300) {
            w.property(FAR);
            w.writeDateTime(ZonedDateTime.of(10000, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC));
        }
        if (k >= 520) {
            w.property(LATE);
            w.writeString("late" + k);
        }
        w.endNode();
    }

    private static final TokenNames TOKENS = FixtureStream.tokens(new String[] {"L0", "L1", "L2"},
            new String[] {"T0", "T1"}, new String[] {"v", "far", "late", "w"});
}
