package org.subgraphexport.read;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.subgraphexport.wire.Wire;

/**
 * The bookkeeping of {@link SharedWalks}, step by step on one thread and without a database: which role a partition
 * gets, what the producer's buffer holds, which chunks are released when (every partition joined, every consumer
 * passed, the window, the setting used up), who is detached, and who is woken. Chunks of 4 records (48 bytes) keep the
 * arithmetic visible; a consumer's position, which its replay sets as it reads, is set by hand. SharedWalksTest runs
 * the same registry with real walks and threads.
 */
class SharedWalksRegistryTest {
    private static final int CHUNK = 4;
    private static final long CHUNK_BYTES = 16 + 8 * CHUNK;
    private static final long STALL = TimeUnit.SECONDS.toNanos(20);
    private static final UUID DATABASE = UUID.randomUUID();
    private static final WalkSpec SPEC = new WalkSpec(RelationshipFilter.parse("CHILDREN>"),
            RelationshipFilter.parse("PROPERTY>"), Integer.MAX_VALUE, Long.MAX_VALUE, false);

    private static SharedWalks.Key key(int partitions) {
        return new SharedWalks.Key(DATABASE, "state", "user", 7, SPEC, partitions);
    }

    private static SharedWalks.Producer producer(SharedWalks walks, int partitions, int index) {
        return assertInstanceOf(SharedWalks.Producer.class, walks.join(key(partitions), new Partition(partitions, index)));
    }

    private static SharedWalks.Consumer consumer(SharedWalks walks, int partitions, int index) {
        return assertInstanceOf(SharedWalks.Consumer.class, walks.join(key(partitions), new Partition(partitions, index)));
    }

    /** Nodes {@code from} to {@code to - 1}, as the producer's walk records them. */
    private static void nodes(SharedWalks.Producer producer, long from, long to) {
        for (long id = from; id < to; id++) producer.node(id);
    }

    private static long bytes(SharedWalks walks) {
        return walks.stats().bytes();
    }

    @Test
    void theProductionWindowIsAQuarterOfTheSettingInChunksOfEightThousandRecords() {
        long chunk = 16 + 8L * SharedWalks.CHUNK_RECORDS;
        assertEquals(65_552, chunk);
        assertEquals(255, new SharedWalks(64L << 20).windowChunks(), "16 MiB / 65,552 bytes");
        assertEquals(4095, new SharedWalks(1L << 30).windowChunks(), "256 MiB / 65,552 bytes");
        assertEquals(3, new SharedWalks(4 * 3 * chunk).windowChunks(), "exactly 3 chunks");
        assertEquals(2, new SharedWalks(4 * 3 * chunk - 1).windowChunks(), "just under 3 chunks");
        assertEquals(2, new SharedWalks(0).windowChunks(), "at least 2");
        assertEquals(Integer.MAX_VALUE, new SharedWalks(Long.MAX_VALUE).windowChunks(), "at most an int's worth");
        assertEquals(2, new SharedWalks(1L << 20, 1, 2, STALL).windowChunks(), "the smallest chunks and window");
        assertEquals("chunks of >= 1 record, window >= 2",
                assertThrows(IllegalArgumentException.class, () -> new SharedWalks(1L << 20, 0, 2, STALL)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> new SharedWalks(1L << 20, 1, 1, STALL));
    }

    @Test
    void theFirstPartitionProducesTheNextConsumeAndOthersAreSeparateExports() {
        SharedWalks walks = new SharedWalks(1L << 20, CHUNK, 100, STALL);
        SharedWalks.Producer producer = producer(walks, 3, 1);
        assertEquals(CHUNK_BYTES, bytes(walks), "the producer's first chunk");
        SharedWalks.Consumer consumer = consumer(walks, 3, 0);
        assertSame(producer.entry, consumer.entry);
        assertInstanceOf(SharedWalks.Producer.class, walks.join(key(2), new Partition(2, 0)), "2 partitions: another export");
        assertInstanceOf(SharedWalks.Producer.class, walks.join(
                new SharedWalks.Key(DATABASE, "other state", "user", 7, SPEC, 3), new Partition(3, 2)), "another state");
        assertEquals(new SharedWalks.Stats(3, 1, 0, 0, 0, 0, 0, 3, 3 * CHUNK_BYTES, 3 * CHUNK_BYTES), walks.stats());
    }

    /** The buffer holds the sequence: a node as {@code id << 1}, a relationship as {@code id << 1 | 1}. */
    @Test
    void theProducerRecordsTheSequenceInChunks() {
        SharedWalks walks = new SharedWalks(1L << 20, CHUNK, 100, STALL);
        SharedWalks.Producer producer = producer(walks, 2, 0);
        SharedWalks.Consumer consumer = consumer(walks, 2, 1);
        producer.node(5);
        producer.relationship(5);
        producer.node(0);
        producer.relationship(1L << 40);
        producer.node(9);
        assertEquals(5, producer.entry.published.get());
        assertArrayEquals(new long[] {10, 11, 0, (1L << 41) | 1}, walks.chunk(consumer, 0));
        assertArrayEquals(new long[] {18, 0, 0, 0}, walks.chunk(consumer, 1));
        assertEquals(2 * CHUNK_BYTES, bytes(walks));
    }

    /**
     * Until every partition has joined, chunks are kept (within the window) for those still to come; once all have,
     * a chunk goes as soon as every consumer has passed it, whoever asks next: a consumer for its next chunk, the
     * producer for a new one, a consumer leaving.
     */
    @Test
    void chunksEveryConsumerPassedAreReleasedOnceEveryPartitionHasJoined() {
        SharedWalks walks = new SharedWalks(1L << 20, CHUNK, 100, STALL);
        SharedWalks.Producer producer = producer(walks, 3, 0);
        SharedWalks.Consumer first = consumer(walks, 3, 1);
        first.position = 10;
        nodes(producer, 0, 13);
        assertEquals(4 * CHUNK_BYTES, bytes(walks), "partition 2 has not joined: all 4 chunks kept");

        SharedWalks.Consumer second = consumer(walks, 3, 2);
        assertArrayEquals(new long[] {0, 2, 4, 6}, walks.chunk(second, 0));
        assertEquals(4 * CHUNK_BYTES, bytes(walks), "the second consumer is at 0");

        second.position = 8;
        assertArrayEquals(new long[] {16, 18, 20, 22}, walks.chunk(second, 2));
        assertEquals(2 * CHUNK_BYTES, bytes(walks), "both passed record 8: chunks 0 and 1 released by the consumer");
        assertNull(walks.chunk(first, 1), "a released chunk is not handed out");

        second.position = 12;
        nodes(producer, 13, 17);
        assertEquals(3 * CHUNK_BYTES, bytes(walks), "the first consumer (at 10) still needs chunk 2; chunk 4 taken");

        walks.consumerLeft(first);
        assertEquals(2 * CHUNK_BYTES, bytes(walks), "the first left: chunk 2 released (the second is at 12)");

        nodes(producer, 17, 20);
        second.position = 20;
        nodes(producer, 20, 21);
        assertEquals(2 * CHUNK_BYTES, bytes(walks),
                "the producer released chunk 3; chunk 4, full and passed, is kept while the walk runs; chunk 5 taken");

        walks.end(producer.entry, false);
        second.position = 21;
        walks.consumerLeft(second);
        assertEquals(0, bytes(walks), "the walk ended and its last consumer left: nothing kept");
        assertEquals(1, walks.stats().entries(), "the producer has not left yet");
        walks.producerLeft(producer.entry);
        assertEquals(new SharedWalks.Stats(1, 2, 0, 0, 0, 0, 0, 0, 0, 4 * CHUNK_BYTES), walks.stats());
    }

    /**
     * A window of 3 chunks: the producer's fourth chunk forces the oldest out and detaches the consumers that have not
     * passed it; a consumer exactly at its end has passed it. Once chunk 0 is gone, a partition comes too late.
     */
    @Test
    void theWindowDetachesTheConsumersThatHaveNotPassedTheOldestChunk() {
        SharedWalks walks = new SharedWalks(1L << 20, CHUNK, 3, STALL);
        SharedWalks.Producer producer = producer(walks, 3, 0);
        SharedWalks.Consumer consumer = consumer(walks, 3, 1); // partition 2 never joins: nothing is released early
        consumer.position = 4;
        nodes(producer, 0, 13);
        assertEquals(0, walks.stats().detached(), "at 4, the consumer passed chunk 0");
        assertFalse(consumer.detached);
        assertEquals(3 * CHUNK_BYTES, bytes(walks), "chunk 0 forced out, chunk 3 taken");

        nodes(producer, 13, 17);
        assertEquals(1, walks.stats().detached(), "at 4, the consumer has not passed chunk 1");
        assertTrue(consumer.detached);
        assertNull(walks.chunk(consumer, 2), "a detached consumer gets no more chunks");
        assertEquals(3 * CHUNK_BYTES, bytes(walks));

        nodes(producer, 17, 21);
        assertEquals(1, walks.stats().detached(), "detached once, and no longer attached");
        assertNull(walks.join(key(3), new Partition(3, 2)), "partition 2 comes after chunk 0 was released: alone");

        drainPermit();
        walks.end(producer.entry, false);
        assertNotWoken("a detached consumer at the end");
        walks.consumerLeft(consumer);
        walks.producerLeft(producer.entry);
        assertEquals(new SharedWalks.Stats(1, 1, 1, 0, 1, 0, 0, 0, 0, 3 * CHUNK_BYTES), walks.stats());
    }

    /**
     * Room for exactly 3 chunks in all: the third fits; when the fourth does not, the producer gives up the chunks it
     * kept for a partition still to come, and when that is not enough either it stops recording and leaves the
     * registry. Its consumer's chunks stay counted until the producer and the consumer have both left.
     */
    @Test
    void whenTheSettingIsUsedUpTheProducerGivesUpKeptChunksThenStops() {
        SharedWalks walks = new SharedWalks(3 * CHUNK_BYTES, CHUNK, 100, STALL);
        SharedWalks.Producer producer = producer(walks, 3, 0);
        SharedWalks.Consumer consumer = consumer(walks, 3, 1);
        consumer.position = 8;
        nodes(producer, 0, 12);
        assertEquals(3 * CHUNK_BYTES, bytes(walks), "3 chunks fit exactly");

        nodes(producer, 12, 13);
        assertEquals(2 * CHUNK_BYTES, bytes(walks), "chunks 0 and 1, which the consumer passed, given up for chunk 3");
        assertEquals(0, walks.stats().stopped());
        assertEquals(13, producer.entry.published.get());

        nodes(producer, 13, 20);
        assertEquals(3 * CHUNK_BYTES, bytes(walks));
        nodes(producer, 20, 26);
        assertEquals(1, walks.stats().stopped(), "chunk 2 is still needed: no room for chunk 5");
        assertEquals(20, producer.entry.published.get(), "nothing recorded after the stop");
        assertEquals(0, walks.stats().entries(), "a stopped export leaves the registry");
        assertNull(walks.join(key(3), new Partition(3, 2)), "no room for a new export's first chunk: alone");

        walks.consumerLeft(consumer);
        assertEquals(3 * CHUNK_BYTES, bytes(walks), "the producer is still there");
        walks.producerLeft(producer.entry);
        assertEquals(new SharedWalks.Stats(1, 1, 1, 0, 0, 1, 0, 0, 0, 3 * CHUNK_BYTES), walks.stats());
    }

    /**
     * A consumer that waits asks to be woken at a number of records; the producer wakes the consumers' threads at the
     * first block boundary at or past it (and forgets the request), at the walk's end, and when it stops; never a
     * consumer that left or was detached. The consumer here is this thread: a wake-up is the permit that lets its next
     * park return at once.
     */
    @Test
    void theProducerWakesWaitingConsumersAtTheBlockTheyAskedForAtTheEndAndWhenItStops() {
        SharedWalks walks = new SharedWalks(1L << 20, CHUNK, 1 << 20, STALL);
        SharedWalks.Producer producer = producer(walks, 2, 0);
        SharedWalks.Consumer consumer = consumer(walks, 2, 1);
        assertEquals(Long.MAX_VALUE, consumer.entry.wakeAt.get(), "nobody waits");
        consumer.entry.wakeAt.set(Wire.PARTITION_BLOCK);
        nodes(producer, 0, Wire.PARTITION_BLOCK - 1);
        assertEquals(Wire.PARTITION_BLOCK, consumer.entry.wakeAt.get(), "not there yet");
        drainPermit();
        nodes(producer, Wire.PARTITION_BLOCK - 1, Wire.PARTITION_BLOCK);
        assertEquals(Long.MAX_VALUE, consumer.entry.wakeAt.get(), "the request was met");
        assertWoken("at the block boundary asked for");

        consumer.entry.wakeAt.set(300);
        nodes(producer, Wire.PARTITION_BLOCK, 2 * Wire.PARTITION_BLOCK - 1);
        assertEquals(300, consumer.entry.wakeAt.get(), "past 300, but not at a block boundary");
        nodes(producer, 2 * Wire.PARTITION_BLOCK - 1, 2 * Wire.PARTITION_BLOCK);
        assertEquals(Long.MAX_VALUE, consumer.entry.wakeAt.get(), "at 512");
        assertWoken("at the first block boundary past the one asked for");

        drainPermit();
        walks.end(producer.entry, true);
        assertWoken("at the end");
        assertTrue(producer.entry.truncated);
        walks.consumerLeft(consumer);
        walks.producerLeft(producer.entry);

        SharedWalks.Producer failing = producer(walks, 2, 0);
        SharedWalks.Consumer waiting = consumer(walks, 2, 1);
        drainPermit();
        walks.producerLeft(failing.entry); // its walk failed: no end
        assertWoken("when the producer stopped");
        walks.consumerLeft(waiting);

        SharedWalks.Producer alone = producer(walks, 2, 0);
        walks.consumerLeft(consumer(walks, 2, 1));
        drainPermit();
        walks.end(alone.entry, false);
        assertNotWoken("a consumer that left, at the end");
        walks.producerLeft(alone.entry);
        assertEquals(new SharedWalks.Stats(3, 3, 0, 0, 0, 1, 0, 0, 0, 2 * CHUNK_BYTES * 64), walks.stats());
    }

    /** No permit: a park of 300 ms takes them (the thread is not woken by what came before). */
    private static void assertNotWoken(String when) {
        long start = System.nanoTime();
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(300));
        long waited = System.nanoTime() - start;
        assertTrue(waited >= TimeUnit.MILLISECONDS.toNanos(250), () -> "woken " + when + " after " + waited / 1_000_000 + " ms");
    }

    private static void drainPermit() {
        LockSupport.parkNanos(1);
    }

    /** The permit is there: a park of 10 s returns at once (without it, the park would take the 10 s). */
    private static void assertWoken(String when) {
        long start = System.nanoTime();
        LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(10));
        long waited = System.nanoTime() - start;
        assertTrue(waited < TimeUnit.SECONDS.toNanos(5), () -> "not woken " + when + ": parked " + waited / 1_000_000 + " ms");
    }
}
