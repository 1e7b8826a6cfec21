package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.IntervalBounds;
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

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Idle inputs in the running engine, with a processing-time clock the test advances: a silent input
 * stops holding back the join's watermark after the idle timeout, and is active again with its next
 * event. No sleeps: results are awaited with a latch, state is read after close() drains.
 */
class IdleInputEngineTest
{
    private static final Schema SCHEMA = Schema.of("k", "v");
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final int ROWS = 100;

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
    private final RowWriter writer = new RowWriter();
    private final RowView row = new RowView();
    private final AtomicLong clock = new AtomicLong(1_000);
    private final ConcurrentLinkedQueue<String> out = new ConcurrentLinkedQueue<>();
    private volatile CountDownLatch expected = new CountDownLatch(0);

    private RowView row(final long k, final long v)
    {
        writer.wrap(buffer, 0, buffer.capacity(), 2).putLong(0, k).putLong(1, v);
        return row.wrap(buffer, 0, writer.finish());
    }

    /** An interval left join, [-5, 5], over two partitions so that idleness reaches every ring. */
    private JoinEngine start(final Duration idleTimeout)
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.INTERVAL, JoinType.LEFT).schemas(SCHEMA, SCHEMA)
            .leftKey("k").rightKey("k").interval(IntervalBounds.inclusive(-5, 5)).build();
        final EngineConfig config = EngineConfig.defaults().withPartitions(2).withRingSize(1024)
            .withState(StateConfig.defaults().withMaxKeys(4096)).withIdleTimeout(idleTimeout);
        return JoinEngine.builder(spec).config(config).clock(clock::get)
            .resultHandler((kind, left, right, ts, step) ->
            {
                out.add(step + " " + (left == null ? "null" : left.toString()) + " " + (right == null ? "null" : right.toString()));
                expected.countDown();
            })
            .start();
    }

    /** Left rows with keys 0..ROWS-1 at ts 0..ROWS-1, then a left watermark past all of them; the right input says nothing. */
    private void publishLeftOnly(final Publisher publisher)
    {
        for (int i = 0; i < ROWS; i++)
        {
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(i, i), i, i));
        }
        assertEquals(Publisher.PUBLISHED, publisher.watermark(Side.LEFT, 1000, ROWS));
    }

    private static long live(final List<PartitionSnapshot> metrics)
    {
        long live = 0;
        for (final PartitionSnapshot p : metrics)
        {
            live += p.liveLeft + p.liveRight;
        }
        return live;
    }

    private void await(final CountDownLatch latch) throws InterruptedException
    {
        assertTrue(latch.await(30, TimeUnit.SECONDS), "expected results did not arrive: " + out);
    }

    private long paddedAt(final long step)
    {
        return out.stream().filter(line -> line.startsWith(step + " ") && line.endsWith(" null")).count();
    }

    @Test
    void withoutAnIdleTimeoutASilentRightInputPinsEveryLeftRow()
    {
        final JoinEngine engine = start(Duration.ZERO);
        try (engine)
        {
            final Publisher publisher = engine.publisher();
            publishLeftOnly(publisher);
            clock.addAndGet(TimeUnit.HOURS.toNanos(1));
            assertEquals(Publisher.PUBLISHED, publisher.watermark(Side.LEFT, 2000, ROWS + 1));
            assertEquals(0, publisher.checkIdle(ROWS + 2), "the idle timeout is off");
        }
        assertEquals(List.of(), List.copyOf(out));
        assertEquals(ROWS, live(engine.metrics()));
    }

    @Test
    void aRightInputSilentPastTheTimeoutLetsTheLeftWatermarkPadAndDrainTheLeftRows() throws InterruptedException
    {
        final JoinEngine engine = start(Duration.ofSeconds(1));
        try (engine)
        {
            final Publisher publisher = engine.publisher();
            publishLeftOnly(publisher);
            // Within the timeout the right input still holds the join back.
            clock.addAndGet(TIMEOUT_NANOS);
            assertEquals(Publisher.PUBLISHED, publisher.watermark(Side.LEFT, 1001, ROWS + 1));

            expected = new CountDownLatch(ROWS);
            clock.addAndGet(1);
            final long step = ROWS + 2;
            assertEquals(Publisher.PUBLISHED, publisher.watermark(Side.LEFT, 1002, step));
            await(expected);
            assertEquals(ROWS, paddedAt(step), "every left row padded by the watermark after the idle mark: " + out);
            assertEquals(ROWS, out.size());
        }
        assertEquals(0, live(engine.metrics()));
    }

    @Test
    void checkIdleClosesWhatAQuietEngineHolds() throws InterruptedException
    {
        final JoinEngine engine = start(Duration.ofSeconds(1));
        try (engine)
        {
            final Publisher publisher = engine.publisher();
            publishLeftOnly(publisher);
            assertEquals(0, publisher.checkIdle(ROWS + 1), "nothing is idle yet");

            expected = new CountDownLatch(ROWS);
            clock.addAndGet(2 * TIMEOUT_NANOS);
            final long step = ROWS + 2;
            // Both inputs are silent: both idle, the join's watermark is the higher of the two (left's 1000).
            assertEquals(2, publisher.checkIdle(step));
            await(expected);
            assertEquals(ROWS, paddedAt(step), out.toString());
            assertEquals(0, publisher.checkIdle(step + 1), "marked once per idle period");
        }
        assertEquals(0, live(engine.metrics()));
    }

    @Test
    void theNextEventOfAnIdleInputMakesItActiveInEveryPartition() throws InterruptedException
    {
        final JoinEngine engine = start(Duration.ofSeconds(1));
        try (engine)
        {
            final Publisher publisher = engine.publisher();
            publishLeftOnly(publisher);
            expected = new CountDownLatch(ROWS);
            clock.addAndGet(2 * TIMEOUT_NANOS);
            publisher.watermark(Side.LEFT, 1000, ROWS + 1);
            await(expected);

            // The right input comes back with one row; its key is on one partition, but every partition
            // must hold the join's watermark for it again, however far the left watermark runs.
            long step = ROWS + 2;
            for (int k = 0; k < 20; k++)
            {
                publisher.publish(Side.LEFT, ChangeKind.INSERT, row(k, 0), 3000, step++);
            }
            publisher.publish(Side.RIGHT, ChangeKind.INSERT, row(500, 0), 2002, step++);
            publisher.watermark(Side.LEFT, 5000, step++);
            assertEquals(0, publisher.checkIdle(step++), "both inputs sent events within the timeout");

            // Both go quiet: both idle, the join's watermark jumps to left's 5000 and closes all of it.
            expected = new CountDownLatch(20);
            clock.addAndGet(2 * TIMEOUT_NANOS);
            final long quiet = step;
            assertEquals(2, publisher.checkIdle(quiet));
            await(expected);
            assertEquals(20, paddedAt(quiet), "the left rows at 3000 waited for the returning right input: " + out);
            assertEquals(ROWS + 20, out.size());
        }
        assertEquals(0, live(engine.metrics()));
    }

    @Test
    void aReturningInputThatMeetsAFullRingIsBackPressuredAndTellsEveryPartitionOnItsRetry() throws InterruptedException
    {
        final CountDownLatch handlerEntered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicLong wmStepOutputs = new AtomicLong();
        final long wmStep = 1_000_000;
        final JoinSpec spec = JoinSpec.builder(JoinKind.INTERVAL, JoinType.LEFT).schemas(SCHEMA, SCHEMA)
            .leftKey("k").rightKey("k").interval(IntervalBounds.inclusive(-5, 5)).build();
        final EngineConfig config = EngineConfig.defaults().withPartitions(2).withRingSize(4)
            .withState(StateConfig.defaults().withMaxKeys(4096)).withIdleTimeout(Duration.ofSeconds(1));
        final JoinEngine engine = JoinEngine.builder(spec).config(config).clock(clock::get)
            .resultHandler((kind, left, right, ts, step) ->
            {
                if (step == wmStep)
                {
                    wmStepOutputs.incrementAndGet();
                }
                if (handlerEntered.getCount() > 0)
                {
                    handlerEntered.countDown();
                    try
                    {
                        release.await();
                    }
                    catch (final InterruptedException e)
                    {
                        Thread.currentThread().interrupt();
                    }
                }
            })
            .start();
        long published = 0;
        try (engine)
        {
            final Publisher publisher = engine.publisher();
            long step = 0;
            for (int k = 0; k < 20; k++)
            {
                publisher.publish(Side.LEFT, ChangeKind.INSERT, row(k, 0), 0, step++);
            }
            // Rows that the watermark at 100 does not close, on both partitions.
            for (int k = 100; k < 140; k++)
            {
                publisher.publish(Side.LEFT, ChangeKind.INSERT, row(k, 0), 150, step++);
                published++;
            }
            clock.addAndGet(2 * TIMEOUT_NANOS);
            publisher.watermark(Side.LEFT, 100, step++);
            assertTrue(handlerEntered.await(30, TimeUnit.SECONDS), "the right input idle, a padded row should reach the handler");

            // One partition is stuck in its handler: fill its ring (the other drains).
            for (int k = 200; k < 1200; k++)
            {
                if (publisher.tryPublish(Side.LEFT, ChangeKind.INSERT, buffer, 0, row(k, 0).length(), 150, step++, 0) ==
                    Publisher.PUBLISHED)
                {
                    published++;
                }
            }
            assertEquals(Publisher.BACK_PRESSURED,
                publisher.tryPublish(Side.RIGHT, ChangeKind.INSERT, buffer, 0, row(99_999, 0).length(), 200, step++, 0),
                "the right input is back, but not every ring has room to hear it");
            release.countDown();

            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.RIGHT, ChangeKind.INSERT, row(99_999, 0), 200, step));
            // Right is active again in every partition, its watermark still -inf: nothing more closes.
            assertEquals(Publisher.PUBLISHED, publisher.watermark(Side.LEFT, 10_000, wmStep));
        }
        assertEquals(0, wmStepOutputs.get(), "no partition may still think the right input idle");
        assertEquals(published + 1, live(engine.metrics()));
    }

    @Test
    void theIdleTimeoutIsOffByDefaultAndReadFromItsProperty()
    {
        assertEquals(Duration.ZERO, EngineConfig.defaults().idleTimeout());
        assertEquals(Duration.ofSeconds(5), EngineConfig.defaults().withIdleTimeout(Duration.ofSeconds(5)).withPartitions(1).idleTimeout());
        final String before = System.getProperty(EngineConfig.IDLE_TIMEOUT_PROP_NAME);
        System.setProperty(EngineConfig.IDLE_TIMEOUT_PROP_NAME, "250");
        try
        {
            assertEquals(Duration.ofMillis(250), EngineConfig.fromSystemProperties().idleTimeout());
            System.setProperty(EngineConfig.IDLE_TIMEOUT_PROP_NAME, "-1");
            assertThrows(IllegalArgumentException.class, EngineConfig::fromSystemProperties);
        }
        finally
        {
            if (before == null)
            {
                System.clearProperty(EngineConfig.IDLE_TIMEOUT_PROP_NAME);
            }
            else
            {
                System.setProperty(EngineConfig.IDLE_TIMEOUT_PROP_NAME, before);
            }
        }
        assertThrows(IllegalArgumentException.class, () -> EngineConfig.defaults().withIdleTimeout(null));
    }
}
