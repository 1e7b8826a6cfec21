package io.junction.runtime;

import io.junction.metrics.PartitionSnapshot;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterReason;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.join.StateConfig;
import io.junction.internal.metrics.PartitionMetrics;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The runtime, with real rings and partition threads: routing, draining, back-pressure, errors. */
class JoinEngineTest
{
    private static final Schema SCHEMA = Schema.of("k", "v");
    private static final StateConfig SMALL_STATE = StateConfig.defaults().withMaxKeys(4096);

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
    private final RowWriter writer = new RowWriter();
    private final RowView row = new RowView();

    private RowView row(final long k, final long v)
    {
        writer.wrap(buffer, 0, buffer.capacity(), 2).putLong(0, k).putLong(1, v);
        return row.wrap(buffer, 0, writer.finish());
    }

    private static JoinSpec spec(final JoinKind kind, final JoinType type)
    {
        final JoinSpec.Builder builder = JoinSpec.builder(kind, type).schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k");
        if (kind == JoinKind.INTERVAL)
        {
            builder.interval(IntervalBounds.inclusive(-5, 5));
        }
        return builder.build();
    }

    private static EngineConfig config(final int partitions)
    {
        return EngineConfig.defaults().withPartitions(partitions).withRingSize(1024).withState(SMALL_STATE);
    }

    /** Runs a random changelog and returns "step sign left right" lines sorted, as a multiset per step. */
    private List<String> run(final JoinSpec spec, final int partitions, final long seed)
    {
        final ConcurrentLinkedQueue<String> out = new ConcurrentLinkedQueue<>();
        try (JoinEngine engine = JoinEngine.builder(spec).config(config(partitions))
            .resultHandler((kind, left, right, ts, step) -> out.add(step + " " + (kind.isAccumulate() ? '+' : '-') +
                " " + (left == null ? "null" : left.toString()) + " " + (right == null ? "null" : right.toString())))
            .start())
        {
            final Publisher publisher = engine.publisher();
            final Random random = new Random(seed);
            final List<long[]> liveLeft = new ArrayList<>();
            final List<long[]> liveRight = new ArrayList<>();
            long step = 0;
            for (int i = 0; i < 2000; i++, step++)
            {
                final Side side = random.nextBoolean() ? Side.LEFT : Side.RIGHT;
                final List<long[]> live = side == Side.LEFT ? liveLeft : liveRight;
                final boolean retract = spec.kind() == JoinKind.REGULAR && !live.isEmpty() && random.nextInt(4) == 0;
                final long[] kv = retract ? live.remove(random.nextInt(live.size())) :
                    new long[] {random.nextInt(20), random.nextInt(3)};
                if (!retract && spec.kind() == JoinKind.REGULAR)
                {
                    live.add(kv);
                }
                assertEquals(Publisher.PUBLISHED, publisher.publish(side, retract ? ChangeKind.DELETE : ChangeKind.INSERT,
                    row(kv[0], kv[1]), i / 4, step));
                if (i % 100 == 99)
                {
                    publisher.watermark(i / 4 - 10, ++step);
                }
            }
            publisher.endOfInput(step);
        }
        final List<String> lines = new ArrayList<>(out);
        Collections.sort(lines);
        return lines;
    }

    @Test
    void shouldGiveTheSameResultsWithOneAndFourPartitions()
    {
        for (final JoinType type : JoinType.values())
        {
            final JoinSpec regular = spec(JoinKind.REGULAR, type);
            final List<String> one = run(regular, 1, 42);
            assertTrue(one.size() > 20, "the scenario should produce output for " + type + ": " + one.size());
            assertEquals(one, run(regular, 4, 42), "regular " + type);

            final JoinSpec interval = spec(JoinKind.INTERVAL, type);
            assertEquals(run(interval, 1, 7), run(interval, 4, 7), "interval " + type);
        }
    }

    @Test
    void shouldDrainEverythingPublishedOnClose()
    {
        final AtomicInteger results = new AtomicInteger();
        final JoinEngine engine = JoinEngine.builder(spec(JoinKind.REGULAR, JoinType.LEFT)).config(config(2))
            .resultHandler((kind, left, right, ts, step) -> results.incrementAndGet())
            .start();
        final Publisher publisher = engine.publisher();
        for (int i = 0; i < 10_000; i++)
        {
            publisher.publish(Side.LEFT, ChangeKind.INSERT, row(i % 1000, i), 0, i);
        }
        engine.close();
        assertEquals(10_000, results.get(), "every padded left row is emitted before close returns");
        long rowsIn = 0;
        for (final PartitionSnapshot snapshot : engine.metrics())
        {
            rowsIn += snapshot.rowsIn;
        }
        assertEquals(10_000, rowsIn);
    }

    @Test
    void shouldReportBackPressureWhenTheRingIsFullAndResumeAfterwards() throws Exception
    {
        final CountDownLatch handlerEntered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger results = new AtomicInteger();
        final EngineConfig config = EngineConfig.defaults().withPartitions(1).withRingSize(4).withState(SMALL_STATE);
        final JoinEngine engine = JoinEngine.builder(spec(JoinKind.REGULAR, JoinType.LEFT)).config(config)
            .resultHandler((kind, left, right, ts, step) ->
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
                results.incrementAndGet();
            })
            .start();
        final Publisher publisher = engine.publisher();
        assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(0, 0), 0, 0));
        assertTrue(handlerEntered.await(10, TimeUnit.SECONDS), "the partition thread should reach the handler");
        int published = 1;
        int result;
        while ((result = publisher.tryPublish(Side.LEFT, ChangeKind.INSERT, buffer, 0, row(published, 0).length(), 0,
            published, System.nanoTime())) == Publisher.PUBLISHED)
        {
            published++;
            assertTrue(published <= 5, "a ring of 4 slots with one in the handler cannot take more than 5");
        }
        assertEquals(Publisher.BACK_PRESSURED, result);
        release.countDown();
        engine.close();
        assertEquals(published, results.get(), "nothing published before the back-pressure is lost");
    }

    @Test
    void shouldRefuseRowsLargerThanASlot()
    {
        final EngineConfig config = config(1).withSlotCapacity(64);
        try (JoinEngine engine = JoinEngine.builder(spec(JoinKind.REGULAR, JoinType.INNER)).config(config)
            .resultHandler((kind, left, right, ts, step) -> { })
            .start())
        {
            writer.wrap(buffer, 0, buffer.capacity(), 2).putLong(0, 1).putString(1, "x".repeat(100));
            final int length = writer.finish();
            assertEquals(Publisher.ROW_TOO_LARGE,
                engine.publisher().publish(Side.LEFT, ChangeKind.INSERT, buffer, 0, length, 0, 0, System.nanoTime()));
            assertEquals(1, engine.refusedRows(), "a refused row is counted");
        }
    }

    @Test
    void shouldRefuseMalformedRows()
    {
        try (JoinEngine engine = JoinEngine.builder(spec(JoinKind.REGULAR, JoinType.INNER)).config(config(1))
            .resultHandler((kind, left, right, ts, step) -> { })
            .start())
        {
            buffer.putShort(0, (short)100);
            assertEquals(Publisher.MALFORMED_ROW,
                engine.publisher().publish(Side.LEFT, ChangeKind.INSERT, buffer, 0, 10, 0, 0, System.nanoTime()));
            assertEquals(1, engine.refusedRows(), "a refused row is counted");
        }
    }

    @Test
    void shouldKeepThePartitionRunningWhenTheHandlerThrows()
    {
        final List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
        final AtomicInteger calls = new AtomicInteger();
        final JoinEngine engine = JoinEngine.builder(spec(JoinKind.REGULAR, JoinType.LEFT)).config(config(1))
            .resultHandler((kind, left, right, ts, step) ->
            {
                if (calls.incrementAndGet() % 2 == 1)
                {
                    throw new IllegalStateException("handler failure " + step);
                }
            })
            .errorHandler(errors::add)
            .start();
        final Publisher publisher = engine.publisher();
        for (int i = 0; i < 100; i++)
        {
            publisher.publish(Side.LEFT, ChangeKind.INSERT, row(i, 0), 0, i);
        }
        engine.close();
        assertEquals(100, calls.get(), "every result reached the handler");
        assertEquals(50, errors.size(), "every failure was reported");
        assertEquals(50, engine.metrics().get(0).handlerErrors);
        assertEquals(100, engine.metrics().get(0).rowsIn);
    }

    @Test
    void shouldDeadLetterRetractionsOfRowsNotInState()
    {
        final List<DeadLetterReason> reasons = Collections.synchronizedList(new ArrayList<>());
        final JoinEngine engine = JoinEngine.builder(spec(JoinKind.REGULAR, JoinType.INNER)).config(config(2))
            .resultHandler((kind, left, right, ts, step) -> { })
            .deadLetterHandler((side, kind, r, ts, step, reason) -> reasons.add(reason))
            .start();
        engine.publisher().publish(Side.RIGHT, ChangeKind.DELETE, row(3, 3), 0, 0);
        engine.close();
        assertEquals(List.of(DeadLetterReason.RETRACTION_NOT_IN_STATE), reasons);
        long bad = 0;
        for (final PartitionSnapshot snapshot : engine.metrics())
        {
            bad += snapshot.badInputs;
        }
        assertEquals(1, bad);
    }

    @Test
    void shouldGenerateWatermarksFromTimestampsWhenAsked()
    {
        final List<String> out = Collections.synchronizedList(new ArrayList<>());
        final JoinEngine engine = JoinEngine.builder(spec(JoinKind.INTERVAL, JoinType.LEFT)).config(config(1))
            .resultHandler((kind, left, right, ts, step) -> out.add(step + ":" + (right == null ? "padded" : "pair")))
            .start();
        final Publisher publisher = engine.publisher().generateWatermarks(0, 1, 1);
        publisher.publish(Side.LEFT, ChangeKind.INSERT, row(1, 0), 0, 0);
        publisher.publish(Side.RIGHT, ChangeKind.INSERT, row(2, 0), 100, 1);
        publisher.publish(Side.LEFT, ChangeKind.INSERT, row(3, 0), 100, 2);
        engine.close();
        // The left row at ts 0 closes once both inputs passed 0 + 5: at the left watermark of step 2.
        assertEquals(List.of("2:padded"), out);
    }
}
