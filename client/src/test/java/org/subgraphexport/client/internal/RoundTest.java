package org.subgraphexport.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.subgraphexport.client.ExportEnd;
import org.subgraphexport.client.ExportHeader;
import org.subgraphexport.client.ExportLeft;
import org.subgraphexport.client.ExportRecord;
import org.subgraphexport.client.StateChangedException;
import org.subgraphexport.wire.Format;

/**
 * One reading of an export's partitions ({@link Round}): the state partition 0's answer fixes and the others wait
 * for, the headers and end records, the merged reader's bounded queues, and the first failure, which closes the open
 * bodies, runs the cancellation once and fails every later call. Waits are checked from a second thread.
 */
class RoundTest {
    private static final long WAIT_SECONDS = 10;

    private static ExportHeader header(String state, int partition) {
        return new ExportHeader(1, "neo4j", "4:abc:0", state, partition, 3);
    }

    /** Runs {@code call} on a thread of its own. */
    private static <T> CompletableFuture<T> async(IoCall<T> call) {
        CompletableFuture<T> done = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                done.complete(call.call());
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        }, "round-test");
        thread.setDaemon(true);
        thread.start();
        return done;
    }

    private interface IoCall<T> {
        T call() throws Exception;
    }

    private static <T> T get(CompletableFuture<T> future) throws Exception {
        return future.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    /** {@code future} is still waiting after a while (a wait that ends early fails this; one that should not, never). */
    private static void assertWaiting(CompletableFuture<?> future, String what) throws InterruptedException {
        Thread.sleep(200);
        assertFalse(future.isDone(), what + " should still wait");
    }

    private static final class Body extends ByteArrayInputStream {
        final AtomicInteger closed = new AtomicInteger();
        final boolean failsToClose;

        Body(boolean failsToClose) {
            super(new byte[0]);
            this.failsToClose = failsToClose;
        }

        @Override
        public void close() throws IOException {
            closed.incrementAndGet();
            if (failsToClose) throw new IOException("the connection is gone already");
        }
    }

    @Test
    void aGivenStateIsEveryPartitionsAtOnce() throws IOException {
        Round round = new Round(3, "db:5", () -> {});
        assertEquals(3, round.partitions());
        assertEquals("db:5", round.stateFor(0));
        assertEquals("db:5", round.stateFor(2));
        assertEquals("db:5", round.state());
        assertNull(round.format(), "nobody answered yet");
    }

    @Test
    void withoutAStatePartitionZerosAnswerFixesItAndTheOthersWaitForIt() throws Exception {
        Round round = new Round(3, null, () -> {});
        assertNull(round.stateFor(0), "partition 0 asks without a state");
        assertNull(round.state());
        CompletableFuture<String> second = async(() -> round.stateFor(2));
        assertWaiting(second, "partition 2");
        round.answered(0, header("db:7", 0), Format.KRYO);
        assertEquals("db:7", get(second));
        assertEquals("db:7", round.state());
        assertEquals(Format.KRYO, round.format());
        round.answered(1, header("db:8", 1), Format.KRYO);
        assertEquals("db:7", round.state(), "only the first answer fixes the state");
    }

    @Test
    void eachPartitionIsAnsweredOnceAndTheFirstHeaderIsKept() throws Exception {
        Round round = new Round(3, "db:5", () -> {});
        CompletableFuture<Throwable> all = async(round::awaitAnswered);
        ExportHeader first = header("db:5", 1);
        round.answered(1, first, Format.JSON);
        round.answered(1, header("db:5", 1), Format.JSON); // a re-fetch after a retry
        round.answered(0, header("db:5", 0), Format.JSON);
        assertWaiting(all, "awaitAnswered with partition 2 not answered");
        assertSame(first, round.header(1));
        assertNull(round.header(2));
        round.answered(2, header("db:5", 2), Format.JSON);
        assertNull(get(all), "every partition answered, nothing failed");
        assertEquals(Format.JSON, round.format());
    }

    @Test
    void theEndSumsThePartitionsCountsOnceEveryOneFinished() throws Exception {
        Round round = new Round(3, "db:5", () -> {});
        CompletableFuture<Throwable> all = async(round::awaitFinished);
        round.opened(0, new Body(false));
        round.finished(0, new ExportEnd(1, 10, false, 100, "db:5"));
        round.finished(1, new ExportEnd(2, 20, true, 200, "db:5"));
        assertWaiting(all, "awaitFinished with partition 2 reading");
        round.finished(2, new ExportEnd(3, 30, false, 300, "db:5"));
        assertNull(get(all));
        assertEquals(new ExportEnd(6, 60, true, 600, "db:5"), round.end(), "truncated if any partition says so");

        Round none = new Round(2, "db:6", () -> {});
        none.finished(0, new ExportEnd(0, 0, false, 0, "db:6"));
        none.finished(1, new ExportEnd(4, 5, false, 0, "db:6"));
        assertEquals(new ExportEnd(4, 5, false, 0, "db:6"), none.end());
    }

    @Test
    void theFirstFailureClosesTheOpenBodiesRunsTheCancellationOnceAndFailsEveryLaterCall() throws Exception {
        AtomicInteger cancelled = new AtomicInteger();
        Round round = new Round(3, "db:5", cancelled::incrementAndGet);
        Body failing = new Body(true);
        Body open = new Body(false);
        Body finished = new Body(false);
        round.opened(0, failing);
        round.opened(1, open);
        round.opened(2, finished);
        round.finished(2, new ExportEnd(1, 1, false));
        CompletableFuture<Throwable> answered = async(round::awaitAnswered);
        CompletableFuture<List<ExportRecord>> taking = async(() -> round.take(1));
        assertWaiting(taking, "take with an empty queue");

        IOException first = new IOException("partition 1's connection reset");
        round.fail(first);
        round.fail(new IOException("the cancellation's own failure"));
        assertSame(first, round.failure());
        assertEquals(1, cancelled.get(), "the cancellation runs once");
        assertEquals(1, failing.closed.get(), "a body that fails to close is closed all the same");
        assertEquals(1, open.closed.get(), "the open bodies are closed, so blocked reads end");
        assertEquals(0, finished.closed.get(), "a partition read to its end has no body left to close");
        assertSame(first, get(answered), "a wait ends with the failure");
        assertSame(first, round.awaitFinished());
        ExecutionFailure taken = new ExecutionFailure(taking);
        assertSame(first, taken.cause(), "take throws the failure itself");

        Round.Cancelled cancelledCall = assertThrows(Round.Cancelled.class, round::check);
        assertEquals("the partitions' read is cancelled: " + first, cancelledCall.getMessage());
        assertThrows(Round.Cancelled.class, () -> round.stateFor(1));
        assertThrows(Round.Cancelled.class, () -> round.put(0, List.of()));
        Body late = new Body(false);
        assertThrows(Round.Cancelled.class, () -> round.opened(1, late));
        assertEquals(1, late.closed.get(), "a body opened after the failure is closed at once");
        assertSame(first, assertThrows(IOException.class, () -> round.take(0)));
    }

    /** The failure of a future, unwrapped. */
    private record ExecutionFailure(CompletableFuture<?> future) {
        Throwable cause() throws InterruptedException {
            try {
                future.get(WAIT_SECONDS, TimeUnit.SECONDS);
                throw new AssertionError("did not fail");
            } catch (java.util.concurrent.ExecutionException e) {
                return e.getCause();
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError("still waiting", e);
            }
        }
    }

    @Test
    void aFailureWhileWaitingForTheStateEndsTheWait() throws Exception {
        Round round = new Round(2, null, () -> {});
        CompletableFuture<String> waiting = async(() -> round.stateFor(1));
        assertWaiting(waiting, "partition 1");
        round.fail(new IllegalStateException("partition 0 failed"));
        assertInstanceOf(Round.Cancelled.class, new ExecutionFailure(waiting).cause());
        assertThrows(IllegalStateException.class, () -> round.take(0), "an unchecked failure is thrown as it was");
    }

    @Test
    void aStateChangeFailsTheRound() {
        AtomicInteger cancelled = new AtomicInteger();
        Round round = new Round(2, "db:5", cancelled::incrementAndGet);
        StateChangedException changed = round.changed("db:5", "db:9");
        assertEquals("db:5", changed.oldState());
        assertEquals("db:9", changed.newState());
        assertSame(changed, round.failure());
        assertEquals(1, cancelled.get());
    }

    @Test
    void eachPartitionQueuesAtMostTwoBlocksAndTheEndFollowsTheLast() throws Exception {
        Round round = new Round(2, "db:5", () -> {});
        List<ExportRecord> a = List.of(new ExportLeft("a", true));
        List<ExportRecord> b = List.of(new ExportLeft("b", true));
        List<ExportRecord> c = List.of(new ExportLeft("c", true));
        round.put(0, a);
        round.put(0, b);
        CompletableFuture<Boolean> third = async(() -> {
            round.put(0, c);
            return true;
        });
        assertWaiting(third, "a third block");
        assertSame(a, round.take(0));
        assertTrue(get(third));
        assertSame(b, round.take(0));
        assertSame(c, round.take(0));
        CompletableFuture<List<ExportRecord>> next = async(() -> round.take(0));
        assertWaiting(next, "take before the partition's end");
        round.finished(0, new ExportEnd(3, 0, false));
        assertNull(get(next), "read to its end and every block taken");
        assertNull(round.take(0));
    }

    @Test
    void rethrowGivesIOExceptionsAndThrowsTheUnchecked() {
        IOException io = new IOException("io");
        assertSame(io, Round.rethrow(io));
        IllegalStateException unchecked = new IllegalStateException("unchecked");
        assertSame(unchecked, assertThrows(IllegalStateException.class, () -> Round.rethrow(unchecked)));
        AssertionError error = new AssertionError("error");
        assertSame(error, assertThrows(AssertionError.class, () -> Round.rethrow(error)));
        Exception checked = new Exception("checked");
        IOException wrapped = Round.rethrow(checked);
        assertSame(checked, wrapped.getCause());
    }

    @Test
    void anInterruptedWaitEndsWithInterruptedIOExceptionAndKeepsTheInterrupt() throws Exception {
        Round round = new Round(2, null, () -> {});
        AtomicReference<Thread> thread = new AtomicReference<>();
        CompletableFuture<Boolean> interrupted = async(() -> {
            thread.set(Thread.currentThread());
            try {
                round.awaitAnswered();
                return false;
            } catch (InterruptedIOException e) {
                return Thread.currentThread().isInterrupted();
            }
        });
        assertWaiting(interrupted, "awaitAnswered");
        thread.get().interrupt();
        assertTrue(get(interrupted), "InterruptedIOException, with the thread's interrupt set again");
    }
}
