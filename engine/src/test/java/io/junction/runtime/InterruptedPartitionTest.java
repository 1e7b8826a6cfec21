package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.join.StateConfig;
import io.junction.metrics.PartitionSnapshot;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Interrupts of a partition thread: a result handler that sets the interrupt flag, or
 * another thread's {@code Thread.interrupt()}, must neither close the files of durable state (every later
 * growth and checkpoint would fail) nor end a blocking wait (the partition would die). The worker clears
 * and counts each one (a handler error) and the partition goes on.
 */
@Timeout(120)
class InterruptedPartitionTest
{
    private static final JoinSpec SPEC = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER)
        .schemas(Schema.of("k", "v"), Schema.of("k", "v")).leftKey("k").rightKey("k").build();
    private static final int ROWS = 20_000;

    @TempDir
    Path temp;

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
    private final RowView view = new RowView();
    private final AtomicLong results = new AtomicLong();
    private final AtomicLong deadLetters = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();

    private RowView row(final long k)
    {
        return view.wrap(buffer, 0, new RowWriter().wrap(buffer, 0, buffer.capacity(), 2).putLong(0, k).putLong(1, k).finish());
    }

    private JoinEngine durable(final Path root, final boolean interrupting)
    {
        return JoinEngine.builder(SPEC)
            .config(EngineConfig.defaults().withPartitions(1).withRingSize(1024)
                .withState(StateConfig.defaults().withMaxKeys(1 << 16).withHashSeed(7)).withStateRoot(root))
            .resultHandler((kind, left, right, ts, step) ->
            {
                results.incrementAndGet();
                if (interrupting)
                {
                    // As a handler that caught an InterruptedException and restored the flag.
                    Thread.currentThread().interrupt();
                }
            })
            .deadLetterHandler((side, kind, row, ts, step, reason) -> deadLetters.incrementAndGet())
            .errorHandler(t -> errors.incrementAndGet())
            .start();
    }

    @Test
    void aHandlerThatSetsTheInterruptFlagDoesNotBreakDurableState() throws Exception
    {
        final Path root = temp.resolve("root");
        try (JoinEngine engine = durable(root, true))
        {
            final Publisher publisher = engine.publisher();
            for (int i = 0; i < ROWS; i++)
            {
                // Each pair sets the flag; the rows after it grow the state's files.
                assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(i), 0, 2L * i));
                assertEquals(Publisher.PUBLISHED, publisher.publish(Side.RIGHT, ChangeKind.INSERT, row(i), 0, 2L * i + 1));
            }
            engine.checkpoint(new long[] {2L * ROWS - 1}).get(60, TimeUnit.SECONDS);
            assertTrue(engine.close(new long[] {2L * ROWS - 1}), () -> "a clean close: " + engine.closeShortfall());
        }
        assertEquals(ROWS, results.get());
        assertEquals(0, deadLetters.get(), "no row was refused STATE_FULL");
        assertEquals(ROWS, errors.get(), "each interrupt was cleared and reported");
        try (JoinEngine engine = durable(root, false))
        {
            assertArrayEquals(new long[] {2L * ROWS - 1}, engine.restoredPositions(), "the clean close is reopened");
            assertEquals(Publisher.PUBLISHED, engine.publisher().publish(Side.RIGHT, ChangeKind.INSERT, row(5), 0, 2L * ROWS));
            awaitResults(ROWS + 1);
            assertTrue(engine.closeCompletely());
            // Published by the partition thread as it stopped.
            final PartitionSnapshot p = engine.metrics().get(0);
            assertEquals(2L * ROWS + 1, p.liveLeft + p.liveRight, "the state is all there");
        }
    }

    @Test
    void aBeforeCheckpointHookThatSetsTheInterruptFlagDoesNotFailTheCleanClose() throws Exception
    {
        final Path root = temp.resolve("root");
        final JoinEngine engine = JoinEngine.builder(SPEC)
            .config(EngineConfig.defaults().withPartitions(1).withRingSize(64)
                .withState(StateConfig.defaults().withMaxKeys(1 << 16).withHashSeed(7)).withStateRoot(root))
            .resultHandler((kind, left, right, ts, step) -> results.incrementAndGet())
            // As a sink's flush that caught an InterruptedException and restored the flag.
            .beforeCheckpoint(partition -> Thread.currentThread().interrupt())
            .errorHandler(t -> errors.incrementAndGet())
            .start();
        final Publisher publisher = engine.publisher();
        assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(1), 0, 0));
        assertEquals(Publisher.PUBLISHED, publisher.publish(Side.RIGHT, ChangeKind.INSERT, row(1), 0, 1));
        // The close's checkpoint writes its files through channels an interrupt would close.
        assertTrue(engine.close(new long[] {1}), () -> "a clean close: " + engine.closeShortfall());
        assertEquals(1, results.get());
        assertTrue(errors.get() >= 1, "the interrupt was cleared and reported");
        try (JoinEngine reopened = durable(root, false))
        {
            assertArrayEquals(new long[] {1}, reopened.restoredPositions(), "the clean close is reopened");
        }
    }

    @Test
    void anInterruptDoesNotKillAPartitionUnderTheBlockingWaitStrategy() throws Exception
    {
        final AtomicReference<Thread> partitionThread = new AtomicReference<>();
        final JoinEngine engine = JoinEngine.builder(SPEC)
            .config(EngineConfig.defaults().withPartitions(1).withRingSize(64).withWaitStrategy(WaitStrategyKind.BLOCKING)
                .withState(StateConfig.defaults().withMaxKeys(1024)))
            .resultHandler((kind, left, right, ts, step) ->
            {
                partitionThread.set(Thread.currentThread());
                results.incrementAndGet();
            })
            .errorHandler(t -> errors.incrementAndGet())
            .start();
        try
        {
            final Publisher publisher = engine.publisher();
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(1), 0, 0));
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.RIGHT, ChangeKind.INSERT, row(1), 0, 1));
            awaitResults(1);
            // The partition is idle now: blocked in its wait for the next event (or about to be).
            partitionThread.get().interrupt();
            for (int i = 0; i < 100; i++)
            {
                assertEquals(Publisher.PUBLISHED, publisher.publish(Side.RIGHT, ChangeKind.INSERT, row(1), 0, 2 + i));
            }
            awaitResults(101);
            assertFalse(engine.metrics().get(0).failed, "the partition is alive");
            assertTrue(errors.get() >= 1, "the interrupt was counted");
        }
        finally
        {
            assertTrue(engine.closeCompletely(), engine::closeShortfall);
        }
    }

    private void awaitResults(final long expected) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (results.get() < expected && System.nanoTime() - deadline < 0)
        {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // a bounded wait for a condition, not a sleep-and-hope
        }
        assertEquals(expected, results.get());
    }
}
