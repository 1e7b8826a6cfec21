package io.junction.runtime;

import io.junction.testing.ForwardingOperator;

import io.junction.api.ChangeKind;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.join.FullPolicy;
import io.junction.join.JoinOperator;
import io.junction.join.JoinOperators;
import io.junction.join.StateConfig;
import io.junction.metrics.OperatorCounters;
import io.junction.metrics.PartitionSnapshot;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import io.junction.api.Row;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;

/**
 * Where the runtime's features meet: idle inputs with state back-pressure, idle transitions with a
 * dead partition, the owner check with idleness, pending generated watermarks with idle transitions.
 * Time is a clock the test controls; waits are latches, bounded only so that a hang fails.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FeatureSeamsTest
{
    private static final Schema SCHEMA = Schema.of("k", "v");
    private static final StateConfig SMALL_STATE = StateConfig.defaults().withMaxKeys(4096);
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
    private static final JoinSpec INTERVAL_LEFT = JoinSpec.builder(JoinKind.INTERVAL, JoinType.LEFT)
        .schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k").interval(IntervalBounds.inclusive(-5, 5)).build();

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
    private final RowWriter writer = new RowWriter();
    private final RowView row = new RowView();
    private final AtomicLong clock = new AtomicLong(1_000);

    private RowView row(final long k, final long v)
    {
        writer.wrap(buffer, 0, buffer.capacity(), 2).putLong(0, k).putLong(1, v);
        return row.wrap(buffer, 0, writer.finish());
    }

    private int tryPublish(final Publisher publisher, final Side side, final long k, final long ts, final long step)
    {
        final RowView r = row(k, 0);
        return publisher.tryPublish(side, ChangeKind.INSERT, r.buffer(), r.offset(), r.length(), ts, step, System.nanoTime());
    }

    private static long live(final JoinEngine engine)
    {
        long live = 0;
        for (final PartitionSnapshot p : engine.metrics())
        {
            live += p.liveLeft + p.liveRight;
        }
        return live;
    }

    /** Spins until the metrics show {@code expected} live rows, failing (not hanging) when they never do. */
    private static void awaitLive(final JoinEngine engine, final long expected)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (live(engine) != expected)
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("live rows stay " + live(engine) + ", expected " + expected);
            }
            Thread.onSpinWait();
        }
    }

    private static EngineConfig backPressureConfig()
    {
        return EngineConfig.defaults().withPartitions(1).withRingSize(64).withIdleTimeout(Duration.ofSeconds(1))
            .withState(SMALL_STATE.withMaxLiveRows(4).withFullPolicy(FullPolicy.BACK_PRESSURE));
    }

    /**
     * Left rows wait on a silent right input and fill the partition. Only the right input's idleness
     * can make room, and only a publisher broadcasts it: tryPublish answering STATE_FULL must still
     * notice that the other input has gone idle, or the caller retries forever.
     */
    @Test
    void tryPublishRefusedForAFullPartitionStillMarksTheSilentInputIdle()
    {
        try (JoinEngine engine = JoinEngine.builder(INTERVAL_LEFT).config(backPressureConfig()).clock(clock::get)
            .resultHandler((kind, left, right, ts, step) -> { })
            .start())
        {
            final Publisher publisher = engine.publisher();
            for (int k = 0; k < 4; k++)
            {
                assertEquals(Publisher.PUBLISHED, tryPublish(publisher, Side.LEFT, k, k, k));
            }
            assertEquals(Publisher.PUBLISHED, publisher.watermark(Side.LEFT, 1_000, 4));
            awaitLive(engine, 4);
            assertEquals(Publisher.STATE_FULL, tryPublish(publisher, Side.LEFT, 4, 500, 5));

            clock.addAndGet(2 * SECOND);
            // Still full at this call: it can only say so, and tell every partition the right input is idle.
            assertEquals(Publisher.STATE_FULL, tryPublish(publisher, Side.LEFT, 4, 500, 6));
            awaitLive(engine, 0);
            assertEquals(Publisher.PUBLISHED, tryPublish(publisher, Side.LEFT, 4, 500, 7));
        }
    }

    /** As above with publish(), which waits for room: it must not wait for an idle mark only it can send. */
    @Test
    void publishWaitingForAFullPartitionMarksTheSilentInputIdleInsteadOfWaitingForever() throws Exception
    {
        final ExecutorService producer = Executors.newSingleThreadExecutor();
        final JoinEngine engine = JoinEngine.builder(INTERVAL_LEFT).config(backPressureConfig()).clock(clock::get)
            .resultHandler((kind, left, right, ts, step) -> { })
            .start();
        try
        {
            final Publisher publisher = engine.publisher();
            producer.submit(() ->
            {
                for (int k = 0; k < 4; k++)
                {
                    assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(k, 0), k, k));
                }
                assertEquals(Publisher.PUBLISHED, publisher.watermark(Side.LEFT, 1_000, 4));
            }).get();
            awaitLive(engine, 4);
            clock.addAndGet(2 * SECOND);
            final Future<Integer> waiting =
                producer.submit(() -> publisher.publish(Side.LEFT, ChangeKind.INSERT, row(4, 0), 500, 5));
            try
            {
                assertEquals(Publisher.PUBLISHED, waiting.get(30, TimeUnit.SECONDS));
            }
            catch (final TimeoutException e)
            {
                fail("publish waits for room that only the idle mark of the silent right input can make");
            }
        }
        finally
        {
            engine.close();
            producer.shutdown();
            assertTrue(producer.awaitTermination(30, TimeUnit.SECONDS));
        }
    }

    /** Builds the first partition's operator from the factory given, the others as usual. */
    private static PartitionWorker.OperatorFactory firstPartition(
        final JoinSpec spec, final UnaryOperator<JoinOperator> wrap)
    {
        final AtomicInteger created = new AtomicInteger();
        return (results, deadLetters) ->
        {
            final JoinOperator operator = JoinOperators.create(spec, SMALL_STATE, results, deadLetters);
            return created.getAndIncrement() == 0 ? wrap.apply(operator) : operator;
        };
    }

    /**
     * A dead partition hears nothing more; the live ones must still hear idle transitions, and an
     * input coming back must still publish to them (publish never answers BACK_PRESSURED).
     */
    @Test
    void idleTransitionsStillReachTheLivePartitionsWhenOneIsDead() throws Exception
    {
        final CountDownLatch died = new CountDownLatch(1);
        final EngineConfig config = EngineConfig.defaults().withPartitions(2).withRingSize(64)
            .withState(SMALL_STATE).withIdleTimeout(Duration.ofSeconds(1));
        try (JoinEngine engine = JoinEngine.builder(INTERVAL_LEFT).config(config).clock(clock::get)
            .resultHandler((kind, left, right, ts, step) -> { })
            .errorHandler(t ->
            {
                if (t instanceof PartitionFailedException)
                {
                    died.countDown();
                }
            })
            .stateOperatorFactory(EngineOperators.ignoringState(firstPartition(INTERVAL_LEFT, BreakOnRowOperator::new)))
            .start())
        {
            final Publisher publisher = engine.publisher();
            long step = 0;
            // Keys spread over both partitions: the first that reaches partition 0 kills it.
            for (int k = 0; k < 32 && died.getCount() > 0; k++)
            {
                publisher.publish(Side.LEFT, ChangeKind.INSERT, row(k, 0), 0, step++);
                assertTrue(died.await(k == 31 ? 30 : 0, TimeUnit.SECONDS) || k < 31, "partition 0 never died");
            }
            assertTrue(died.await(30, TimeUnit.SECONDS));

            clock.addAndGet(2 * SECOND);
            assertEquals(2, publisher.checkIdle(step++), "both inputs are silent: both are marked idle, once");
            assertEquals(0, publisher.checkIdle(step++));

            int published = 0;
            for (int k = 1_000; k < 1_032; k++)
            {
                final int code = publisher.publish(Side.RIGHT, ChangeKind.INSERT, row(k, 0), 0, step++);
                assertNotEquals(Publisher.BACK_PRESSURED, code, "publish never answers BACK_PRESSURED");
                published += code == Publisher.PUBLISHED ? 1 : 0;
            }
            assertTrue(published > 0, "rows of the live partition are published");
        }
    }

    /**
     * A publisher used from the wrong thread is refused before it changes anything: an input's
     * idleness is shared by every publisher, so a refused watermark must not mark it active (the
     * owner's next event of that input must still tell every partition that it is back).
     */
    @Test
    void aWatermarkFromTheWrongThreadLeavesTheInputsIdleness() throws Exception
    {
        final Queue<String> events = new ConcurrentLinkedQueue<>();
        final EngineConfig config = EngineConfig.defaults().withPartitions(1).withRingSize(64)
            .withState(SMALL_STATE).withIdleTimeout(Duration.ofSeconds(1));
        final JoinEngine engine = JoinEngine.builder(INTERVAL_LEFT).config(config).clock(clock::get)
            .resultHandler((kind, left, right, ts, step) -> { })
            .stateOperatorFactory(EngineOperators.ignoringState(
                firstPartition(INTERVAL_LEFT, operator -> new RecordingOperator(operator, events))))
            .start();
        final Publisher publisher = engine.publisher();
        try (engine)
        {
            clock.addAndGet(2 * SECOND);
            assertEquals(2, publisher.checkIdle(0));
            final AtomicReference<Throwable> refused = new AtomicReference<>();
            final Thread intruder = new Thread(() ->
            {
                try
                {
                    publisher.watermark(Side.RIGHT, 5, 1);
                }
                catch (final Throwable t)
                {
                    refused.set(t);
                }
                try
                {
                    publisher.watermark(5, 2);
                }
                catch (final IllegalStateException e)
                {
                    // Expected as well; the first is asserted below.
                }
            });
            intruder.start();
            intruder.join();
            assertTrue(refused.get() instanceof IllegalStateException, String.valueOf(refused.get()));

            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.RIGHT, ChangeKind.INSERT, row(1, 0), 10, 3));
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(1, 0), 10, 4));
        }
        assertEquals(List.of("idle LEFT 0", "idle RIGHT 0",
            "watermark RIGHT " + Long.MIN_VALUE + " 3", "row RIGHT 3",
            "watermark LEFT " + Long.MIN_VALUE + " 4", "row LEFT 4"), new ArrayList<>(events));
    }

    /**
     * tryPublish never blocks, even when a generated watermark is pending for a ring that has just
     * room for one event and an input coming back needs that room too. The clock (read once the
     * pending watermark has found the ring full) lets the partition free exactly one slot.
     */
    @Test
    void tryPublishDoesNotBlockWhenAPendingWatermarkAndAnIdleTransitionShareTheLastSlot() throws Exception
    {
        final CountDownLatch firstEntered = new CountDownLatch(1);
        final CountDownLatch firstRelease = new CountDownLatch(1);
        final CountDownLatch secondEntered = new CountDownLatch(1);
        final CountDownLatch secondRelease = new CountDownLatch(1);
        final AtomicReference<Runnable> onClock = new AtomicReference<>();
        final EngineConfig config = EngineConfig.defaults().withPartitions(1).withRingSize(4)
            .withState(SMALL_STATE).withIdleTimeout(Duration.ofSeconds(1));
        final JoinEngine engine = JoinEngine.builder(INTERVAL_LEFT).config(config)
            .clock(clockWithHook(onClock))
            .resultHandler((kind, left, right, ts, step) -> { })
            .stateOperatorFactory(EngineOperators.ignoringState(firstPartition(INTERVAL_LEFT, operator ->
                new BlockingOperator(operator, firstEntered, firstRelease, secondEntered, secondRelease))))
            .start();
        final CountDownLatch returned = new CountDownLatch(1);
        final AtomicInteger blocked = new AtomicInteger();
        final Thread watchdog = new Thread(() ->
        {
            try
            {
                if (!returned.await(20, TimeUnit.SECONDS))
                {
                    blocked.set(1);
                }
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
            firstRelease.countDown();
            secondRelease.countDown();
        });
        try (engine)
        {
            final Publisher publisher = engine.publisher().generateWatermarks(0, 1, 1);
            clock.addAndGet(SECOND / 2);
            // Slot 1: the partition takes it alone and stops in it.
            assertEquals(Publisher.PUBLISHED, publisher.watermark(Side.RIGHT, 0, 0));
            assertTrue(firstEntered.await(30, TimeUnit.SECONDS));
            clock.addAndGet(SECOND / 2 + SECOND / 5);
            // Slot 2: the left input is idle (the right one is not); the partition stops again in it.
            assertEquals(1, publisher.checkIdle(1));
            // Slot 3: a watermark; slot 4: a right row, whose generated watermark finds the ring full.
            assertEquals(Publisher.PUBLISHED, publisher.watermark(Side.RIGHT, 0, 2));
            assertEquals(Publisher.PUBLISHED, tryPublish(publisher, Side.RIGHT, 1, 10, 3));

            // The left input comes back: the partition frees the first slot, only it, while this call runs.
            onClock.set(() ->
            {
                firstRelease.countDown();
                try
                {
                    assertTrue(secondEntered.await(30, TimeUnit.SECONDS));
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
            });
            watchdog.start();
            final int code = tryPublish(publisher, Side.LEFT, 2, 10, 4);
            returned.countDown();
            watchdog.join();
            assertEquals(0, blocked.get(), "tryPublish blocked until the partition made room");
            assertEquals(Publisher.BACK_PRESSURED, code);
        }
        finally
        {
            returned.countDown();
            firstRelease.countDown();
            secondRelease.countDown();
        }
    }

    /**
     * A dead partition answers PARTITION_FAILED, also when its last metrics say it is full: STATE_FULL
     * asks the caller to retry, and a dead partition never makes room.
     */
    @Test
    void tryPublishToADeadPartitionLeftFullAnswersPartitionFailed() throws Exception
    {
        final CountDownLatch died = new CountDownLatch(1);
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT).schemas(SCHEMA, SCHEMA)
            .leftKey("k").rightKey("k").build();
        final EngineConfig config = EngineConfig.defaults().withPartitions(1).withRingSize(64)
            .withState(SMALL_STATE.withMaxLiveRows(1).withFullPolicy(FullPolicy.BACK_PRESSURE));
        try (JoinEngine engine = JoinEngine.builder(spec).config(config)
            .resultHandler((kind, left, right, ts, step) -> { })
            .errorHandler(t ->
            {
                if (t instanceof PartitionFailedException)
                {
                    died.countDown();
                }
            })
            .stateOperatorFactory(EngineOperators.ignoringState(
                firstPartition(spec, operator -> new BreakOnRowOperator(operator, 2))))
            .start())
        {
            final Publisher publisher = engine.publisher();
            assertEquals(Publisher.PUBLISHED, tryPublish(publisher, Side.LEFT, 0, 0, 0));
            awaitLive(engine, 1);
            // A retraction is never held back; the partition dies on it, its metrics left at the limit.
            final RowView r = row(0, 0);
            assertEquals(Publisher.PUBLISHED, publisher.tryPublish(Side.LEFT, ChangeKind.DELETE, r.buffer(), r.offset(),
                r.length(), 0, 1, System.nanoTime()));
            assertTrue(died.await(30, TimeUnit.SECONDS));
            assertEquals(1, live(engine));
            assertEquals(Publisher.PARTITION_FAILED, tryPublish(publisher, Side.LEFT, 1, 0, 2));
            assertEquals(Publisher.PARTITION_FAILED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(1, 0), 0, 3));
        }
    }

    /** The typed path answers CLOSED on a closed engine, as the binary path does, before judging its arguments. */
    @Test
    void typedPublishToAClosedEngineAnswersClosedAndRefusesNothing()
    {
        final JoinEngine engine = JoinEngine.builder(INTERVAL_LEFT)
            .config(EngineConfig.defaults().withPartitions(1).withRingSize(64).withState(SMALL_STATE))
            .resultHandler((kind, left, right, ts, step) -> { })
            .start();
        final Publisher publisher = engine.publisher();
        engine.close();
        assertEquals(Publisher.CLOSED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(1, 0), 0, 0));
        assertEquals(Publisher.CLOSED, publisher.publish(Side.LEFT, ChangeKind.INSERT, (Row)null, 0, 1));
        assertEquals(Publisher.CLOSED, publisher.publish(Side.LEFT, ChangeKind.INSERT,
            Row.of("k", 1L, "v", "x".repeat(100_000)), 0, 2));
        assertEquals(Publisher.CLOSED, publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("k", 1L), 0, 3));
        assertEquals(0, engine.refusedRows(), "a closed engine refuses nothing: it is closed");
    }

    /**
     * An input is idle only once it has sent nothing for the whole timeout: its last event time is
     * written coarsely (not on every event), which must make it idle late, never early.
     */
    @Test
    void anInputIsNeverMarkedIdleBeforeItHasBeenSilentForTheTimeout()
    {
        try (JoinEngine engine = JoinEngine.builder(INTERVAL_LEFT)
            .config(EngineConfig.defaults().withPartitions(1).withRingSize(64).withState(SMALL_STATE)
                .withIdleTimeout(Duration.ofSeconds(1)))
            .clock(clock::get)
            .resultHandler((kind, left, right, ts, step) -> { })
            .start())
        {
            final Publisher publisher = engine.publisher();
            final long start = clock.get();
            clock.set(start + SECOND / 20);
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(1, 0), 0, 0));
            clock.set(start + SECOND + 1);
            // The right input has said nothing for longer than the timeout; the left one spoke 0.95 s ago.
            assertEquals(1, publisher.checkIdle(1), "only the right input is idle");
            clock.set(start + SECOND / 20 + SECOND + SECOND / 10);
            assertEquals(1, publisher.checkIdle(2), "now the left input is idle too");
        }
    }

    /**
     * A generated watermark that found its ring full is sent before the next event of that ring: a
     * row that finds room in the ring while the watermark is still pending (the partition made room
     * in between) must wait for it, not overtake it, or the row escapes the lateness it was generated with.
     */
    @Test
    void aRowNeverOvertakesAGeneratedWatermarkPendingForItsRing() throws Exception
    {
        final CountDownLatch firstEntered = new CountDownLatch(1);
        final CountDownLatch firstRelease = new CountDownLatch(1);
        final CountDownLatch secondEntered = new CountDownLatch(1);
        final CountDownLatch secondRelease = new CountDownLatch(1);
        final AtomicReference<Runnable> onClock = new AtomicReference<>();
        final Queue<String> events = new ConcurrentLinkedQueue<>();
        final EngineConfig config = EngineConfig.defaults().withPartitions(1).withRingSize(4)
            .withState(SMALL_STATE).withIdleTimeout(Duration.ofSeconds(1));
        final JoinEngine engine = JoinEngine.builder(INTERVAL_LEFT).config(config)
            .clock(clockWithHook(onClock))
            .resultHandler((kind, left, right, ts, step) -> { })
            .stateOperatorFactory(EngineOperators.ignoringState(firstPartition(INTERVAL_LEFT, operator -> new RecordingOperator(
                new BlockingOperator(operator, firstEntered, firstRelease, secondEntered, secondRelease, true), events))))
            .start();
        try (engine)
        {
            final Publisher publisher = engine.publisher().generateWatermarks(0, 1, 1);
            // Slot 1: the partition takes it alone and stops in it.
            assertEquals(Publisher.PUBLISHED, publisher.watermark(Side.RIGHT, 0, 0));
            assertTrue(firstEntered.await(30, TimeUnit.SECONDS));
            // Slots 2 and 3: a row (the partition stops again in it) and its watermark; slot 4: a row,
            // whose watermark finds the ring full and waits.
            assertEquals(Publisher.PUBLISHED, tryPublish(publisher, Side.RIGHT, 1, 10, 1));
            assertEquals(Publisher.PUBLISHED, tryPublish(publisher, Side.RIGHT, 2, 20, 2));
            // While the next call runs, the partition frees the first slot.
            onClock.set(() ->
            {
                firstRelease.countDown();
                try
                {
                    assertTrue(secondEntered.await(30, TimeUnit.SECONDS));
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
            });
            final int code = tryPublish(publisher, Side.RIGHT, 3, 5, 3);
            firstRelease.countDown();
            secondRelease.countDown();
            assertEquals(Publisher.BACK_PRESSURED, code, "the ring's pending watermark goes first");
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.RIGHT, ChangeKind.INSERT, row(3, 0), 5, 4));
        }
        finally
        {
            firstRelease.countDown();
            secondRelease.countDown();
        }
        assertEquals(List.of("watermark RIGHT 0 0", "row RIGHT 1", "watermark RIGHT 10 1", "row RIGHT 2",
            "watermark RIGHT 20 2", "row RIGHT 4"), new ArrayList<>(events));
    }

    /** An engine that fails to start frees its name, whatever failed: a clock that throws included. */
    @Test
    void anEngineWhoseClockFailsAtStartFreesItsName()
    {
        final EngineConfig config = EngineConfig.defaults().withPartitions(1).withRingSize(64).withState(SMALL_STATE)
            .withIdleTimeout(Duration.ofSeconds(1));
        assertThrows(IllegalStateException.class, () -> JoinEngine.builder(INTERVAL_LEFT).config(config)
            .name("seams-clock").clock(() ->
            {
                throw new IllegalStateException("no clock");
            })
            .resultHandler((kind, left, right, ts, step) -> { })
            .start());
        try (JoinEngine engine = JoinEngine.builder(INTERVAL_LEFT).config(config).name("seams-clock").clock(clock::get)
            .resultHandler((kind, left, right, ts, step) -> { })
            .start())
        {
            assertEquals("seams-clock", engine.name());
        }
    }

    /** Fails its partition thread (through its counters) once it has seen a row (or its n-th). */
    private static final class BreakOnRowOperator extends ForwardingOperator
    {
        private final int breakingRow;
        private int rows;

        BreakOnRowOperator(final JoinOperator delegate)
        {
            this(delegate, 1);
        }

        /** Fails on the {@code breakingRow}-th row instead (1 is the first). */
        BreakOnRowOperator(final JoinOperator delegate, final int breakingRow)
        {
            super(delegate);
            this.breakingRow = breakingRow;
        }

        @Override
        public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
        {
            rows++;
            super.onRow(side, kind, row, ts, step);
        }

        @Override
        public OperatorCounters counters()
        {
            if (rows >= breakingRow)
            {
                throw new AssertionError("counters broken");
            }
            return super.counters();
        }
    }

    /** Records what reaches the partition. */
    private static final class RecordingOperator extends ForwardingOperator
    {
        private final Queue<String> events;

        RecordingOperator(final JoinOperator delegate, final Queue<String> events)
        {
            super(delegate);
            this.events = events;
        }

        @Override
        public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
        {
            events.add("row " + side + " " + step);
            super.onRow(side, kind, row, ts, step);
        }

        @Override
        public void onWatermark(final Side side, final long watermark, final long step)
        {
            events.add("watermark " + side + " " + watermark + " " + step);
            super.onWatermark(side, watermark, step);
        }

        @Override
        public void onWatermark(final long watermark, final long step)
        {
            events.add("watermark " + watermark + " " + step);
            super.onWatermark(watermark, step);
        }

        @Override
        public void onIdle(final Side side, final long step)
        {
            events.add("idle " + side + " " + step);
            super.onIdle(side, step);
        }
    }

    /** Stops in its first one-sided watermark, then in its first idle mark (or row), until released. */
    private static final class BlockingOperator extends ForwardingOperator
    {
        private final CountDownLatch firstEntered;
        private final CountDownLatch firstRelease;
        private final CountDownLatch secondEntered;
        private final CountDownLatch secondRelease;
        private final boolean secondOnRow;

        BlockingOperator(final JoinOperator delegate, final CountDownLatch firstEntered, final CountDownLatch firstRelease,
            final CountDownLatch secondEntered, final CountDownLatch secondRelease)
        {
            this(delegate, firstEntered, firstRelease, secondEntered, secondRelease, false);
        }

        BlockingOperator(final JoinOperator delegate, final CountDownLatch firstEntered, final CountDownLatch firstRelease,
            final CountDownLatch secondEntered, final CountDownLatch secondRelease, final boolean secondOnRow)
        {
            super(delegate);
            this.firstEntered = firstEntered;
            this.firstRelease = firstRelease;
            this.secondEntered = secondEntered;
            this.secondRelease = secondRelease;
            this.secondOnRow = secondOnRow;
        }

        @Override
        public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
        {
            if (secondOnRow && secondEntered.getCount() > 0)
            {
                secondEntered.countDown();
                await(secondRelease);
            }
            super.onRow(side, kind, row, ts, step);
        }

        @Override
        public void onWatermark(final Side side, final long watermark, final long step)
        {
            if (firstEntered.getCount() > 0)
            {
                firstEntered.countDown();
                await(firstRelease);
            }
            super.onWatermark(side, watermark, step);
        }

        @Override
        public void onIdle(final Side side, final long step)
        {
            if (!secondOnRow && secondEntered.getCount() > 0)
            {
                secondEntered.countDown();
                await(secondRelease);
            }
            super.onIdle(side, step);
        }

        private static void await(final CountDownLatch latch)
        {
            try
            {
                latch.await();
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The test's clock, which first runs (once) the hook a test has set, to act at the moment it is read. */
    private LongSupplier clockWithHook(final AtomicReference<Runnable> onClock)
    {
        return () ->
        {
            final Runnable hook = onClock.getAndSet(null);
            if (hook != null)
            {
                hook.run();
            }
            return clock.get();
        };
    }
}
