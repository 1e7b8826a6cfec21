package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.CollectingResultHandler;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Row;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.join.StateConfig;
import io.junction.metrics.PartitionSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bounded watermark work through the runtime (docs/SEMANTICS.md 3): the partition thread does what a watermark
 * closes a slice before each following event and the rest while its ring is empty. The same random interval
 * logs, with watermarks that close hundreds of rows at once, give per step the same lines with slices of 1 row
 * as with whole watermarks, with 1 and with 4 partitions; and a checkpoint barrier right behind such a watermark
 * lets the sink flush only once every row it closed has been emitted.
 */
class WatermarkSliceEngineTest
{
    private static final Schema SCHEMA = Schema.of("k", "id", "v");

    private static JoinSpec spec(final JoinType type)
    {
        return JoinSpec.builder(JoinKind.INTERVAL, type).schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k")
            .interval(IntervalBounds.inclusive(-5, 10)).allowedLateness(3).build();
    }

    @ParameterizedTest
    @EnumSource(value = JoinType.class, names = {"INNER", "LEFT", "FULL", "ANTI"})
    void slicesOfOneRowGiveTheSameLinesPerStepWithOneAndFourPartitions(final JoinType type)
    {
        for (long seed = 1; seed <= 2; seed++)
        {
            final int slice = seed == 1 ? 1 : 7;
            final Map<Long, List<String>> whole = run(spec(type), seed, 1, Integer.MAX_VALUE);
            final Map<Long, List<String>> one = run(spec(type), seed, 1, 1);
            final Map<Long, List<String>> four = run(spec(type), seed, 4, slice);
            assertEquals(whole, one, type + " seed " + seed + ", 1 partition");
            assertEquals(whole, four, type + " seed " + seed + ", 4 partitions, slices of " + slice);
            final long lines = whole.values().stream().mapToLong(List::size).sum();
            assertTrue(lines > 100, "output lines: " + lines);
        }
    }

    @Test
    void theTemporalJoinInSlicesOfOneRowGivesTheSameLinesPerStepWithOneAndFourPartitions()
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.TEMPORAL, JoinType.LEFT).schemas(SCHEMA, SCHEMA)
            .leftKey("k").rightKey("k").build();
        final Map<Long, List<String>> whole = run(spec, 5, 1, Integer.MAX_VALUE);
        assertEquals(whole, run(spec, 5, 1, 1), "1 partition");
        assertEquals(whole, run(spec, 5, 4, 1), "4 partitions");
        final long lines = whole.values().stream().mapToLong(List::size).sum();
        assertTrue(lines > 1000, "output lines: " + lines);
    }

    /** @return the output per step, each step's lines sorted (the order within a step is free). */
    @SuppressWarnings("try") // closed early on purpose, to read what it left, inside its try block
    private static Map<Long, List<String>> run(final JoinSpec spec, final long seed, final int partitions, final int slice)
    {
        final boolean temporal = spec.kind() == JoinKind.TEMPORAL;
        final CollectingResultHandler results = new CollectingResultHandler(spec);
        final SplittableRandom random = new SplittableRandom(seed);
        final EngineConfig config = EngineConfig.defaults().withPartitions(partitions).withWatermarkSlice(slice)
            .withState(StateConfig.defaults().withMaxKeys(4096));
        long slices;
        try (JoinEngine engine = JoinEngine.builder(spec).config(config).resultHandlers(p -> results).start())
        {
            final Publisher p = engine.publisher();
            long now = 0;
            long step = 0;
            for (int i = 0; i < 3000; i++)
            {
                now += random.nextInt(2);
                final int dice = random.nextInt(100);
                if (dice < 96)
                {
                    final Side side = random.nextInt(3) == 0 ? Side.RIGHT : Side.LEFT;
                    final long ts = now - random.nextInt(20);
                    final ChangeKind op = temporal && side == Side.RIGHT && random.nextInt(4) != 0 ? ChangeKind.UPDATE_AFTER :
                        ChangeKind.INSERT;
                    p.publish(side, op, Row.of("k", (long)random.nextInt(50), "id", (side == Side.LEFT ? "L" : "R") + i,
                        "v", 0), ts, step++);
                }
                else if (dice < 99)
                {
                    p.watermark(now - random.nextInt(30), step++);
                }
                else
                {
                    // A jump: closes hundreds of rows at once.
                    now += 200;
                    p.watermark(now - 20, step++);
                }
            }
            p.endOfInput(step);
            engine.close();
            slices = 0;
            for (final PartitionSnapshot s : engine.metrics())
            {
                slices += s.watermarkSlices;
            }
        }
        assertTrue(slices > 0, "slices counted");
        final Map<Long, List<String>> byStep = new TreeMap<>();
        for (final CollectingResultHandler.Result r : results.results())
        {
            byStep.computeIfAbsent(r.step(), s -> new ArrayList<>())
                .add(r.kind().shortString() + ' ' + (r.left() == null ? null : r.left().get("id")) + ' ' +
                    (r.right() == null ? null : r.right().get("id")));
        }
        byStep.values().forEach(lines -> lines.sort(null));
        return byStep;
    }

    @Test
    void aCheckpointBarrierBehindAWatermarkFlushesTheSinkOnlyOnceItsWorkIsDone(@TempDir final Path root) throws Exception
    {
        final JoinSpec spec = spec(JoinType.LEFT);
        final AtomicLong emitted = new AtomicLong();
        final AtomicLong seenAtFlush = new AtomicLong(-1);
        final CountDownLatch barrierPublished = new CountDownLatch(1);
        final EngineConfig config = EngineConfig.defaults().withPartitions(1).withWatermarkSlice(1)
            .withState(StateConfig.defaults().withMaxKeys(1024)).withStateRoot(root);
        final int rows = 2000;
        try (JoinEngine engine = JoinEngine.builder(spec).config(config)
            .resultHandler((kind, left, right, ts, step) ->
            {
                if (emitted.incrementAndGet() == 1)
                {
                    // The watermark's first slice holds the partition thread until the barrier is in the ring behind
                    // it, so the rest of its work is pending when the barrier comes (bounded: a hang fails below).
                    try
                    {
                        barrierPublished.await(30, TimeUnit.SECONDS);
                    }
                    catch (final InterruptedException e)
                    {
                        Thread.currentThread().interrupt();
                    }
                }
            })
            .beforeCheckpoint(partition -> seenAtFlush.set(emitted.get()))
            .start())
        {
            final Publisher p = engine.publisher();
            for (int i = 0; i < rows; i++)
            {
                p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("k", (long)(i % 97), "id", "L" + i, "v", 0), 0, i);
            }
            p.watermark(1000, rows);
            final CompletableFuture<CompletedCheckpoint> checkpoint = engine.checkpoint(new long[] {rows});
            barrierPublished.countDown();
            assertTrue(checkpoint.get(30, TimeUnit.SECONDS).id() >= 0);
            assertEquals(rows, seenAtFlush.get(), "every row the watermark closed is emitted before the sink flushes");
        }
    }

    @Test
    void theRingEmptyingFinishesPendingWorkWithoutAnotherEvent() throws Exception
    {
        final JoinSpec spec = spec(JoinType.LEFT);
        final AtomicLong emitted = new AtomicLong();
        final EngineConfig config = EngineConfig.defaults().withPartitions(1).withWatermarkSlice(1)
            .withState(StateConfig.defaults().withMaxKeys(1024));
        final int rows = 1000;
        try (JoinEngine engine = JoinEngine.builder(spec).config(config)
            .resultHandler((kind, left, right, ts, step) -> emitted.incrementAndGet()).start())
        {
            final Publisher p = engine.publisher();
            for (int i = 0; i < rows; i++)
            {
                p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("k", (long)(i % 97), "id", "L" + i, "v", 0), 0, i);
            }
            p.watermark(1000, rows);
            // No event follows: the partition thread must finish the work on its own. Bounded wait, no sleep-and-hope:
            // a failure here is a hang caught by the deadline, not a timing assertion.
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (emitted.get() < rows && System.nanoTime() < deadline)
            {
                Thread.onSpinWait();
            }
            assertEquals(rows, emitted.get(), "padded without another event to drive the slices");
            long slices = 0;
            final long waitMetrics = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (slices < rows && System.nanoTime() < waitMetrics)
            {
                slices = engine.metrics().get(0).watermarkSlices;
                Thread.onSpinWait();
            }
            assertTrue(slices >= rows, "one row per slice: " + slices);
        }
    }
}
