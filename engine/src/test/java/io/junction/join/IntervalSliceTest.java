package io.junction.join;

import io.junction.api.DeadLetterReason;
import io.junction.api.JoinType;
import io.junction.api.Side;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import io.junction.api.JoinKind;
import java.io.IOException;
import org.junit.jupiter.api.Assertions;

/**
 * Bounded watermark work on the interval join, case by case (docs/SEMANTICS.md 3): a watermark that closes more
 * rows than a slice leaves the rest pending, each following event does one more slice, every padded row keeps the
 * step of the watermark that closed it (two pending watermarks keep theirs), and the end of input, a persist, a
 * finish and a full key index finish the pending work first. {@link IntervalSliceDifferentialTest} compares random
 * logs with the unsliced operator.
 */
class IntervalSliceTest
{
    /** Left join, interval [0, 0], no lateness: a left row of ts t is closed by a watermark above t. */
    private static IntervalTestHarness leftJoin(final StateConfig config)
    {
        return new IntervalTestHarness(IntervalTestHarness.spec(JoinType.LEFT, 0, 0).build(), config);
    }

    @Test
    void aWatermarkClosesOneSliceAtOnceAndTheRestBeforeTheFollowingEvents()
    {
        try (IntervalTestHarness h = leftJoin(OperatorTestHarness.SMALL_STATE))
        {
            h.join.sliceWatermarkWork(2);
            for (int i = 0; i < 7; i++)
            {
                h.left(0, (long)i, "L" + i);
            }
            final long w = h.watermark(1);
            assertEquals(2, h.at(w).size(), "one slice of 2 at the watermark itself");
            assertTrue(h.join.watermarkWorkPending());
            h.right(100, 99L, "R0");
            assertEquals(4, h.at(w).size(), "one more slice before the next row, still at the watermark's step");
            assertTrue(h.join.runWatermarkSlice(), "a slice on request; 1 row left");
            assertEquals(6, h.at(w).size());
            assertFalse(h.join.runWatermarkSlice(), "the last slice leaves nothing pending");
            assertEquals(7, h.at(w).size());
            assertFalse(h.join.watermarkWorkPending());
            assertFalse(h.join.runWatermarkSlice(), "nothing to do");
            assertEquals(4, h.counters().watermarkSlices(), "2 + 2 + 2 + 1 rows");
            assertTrue(h.counters().maxWatermarkSliceNanos() > 0);
            assertEquals(7, h.counters().expiredRows());
            assertEquals(1, h.counters().liveRight());
        }
    }

    @Test
    void twoPendingWatermarksKeepTheirOwnSteps()
    {
        try (IntervalTestHarness h = leftJoin(OperatorTestHarness.SMALL_STATE))
        {
            h.join.sliceWatermarkWork(1);
            for (int i = 0; i < 4; i++)
            {
                h.left(0, (long)i, "A" + i);
                h.left(10, (long)i, "B" + i);
            }
            final long first = h.watermark(1);
            final long second = h.watermark(11);
            assertEquals(2, h.at(first).size(), "one slice at each watermark event, both of the first's work");
            assertEquals(0, h.at(second).size());
            h.join.finishWatermarkWork();
            assertEquals(List.of("+I A0 null", "+I A1 null", "+I A2 null", "+I A3 null"), h.at(first));
            assertEquals(List.of("+I B0 null", "+I B1 null", "+I B2 null", "+I B3 null"), h.at(second));
        }
    }

    @Test
    void aWatermarkThatFindsTheQueueFullFinishesTheOldestFirst()
    {
        try (IntervalTestHarness h = leftJoin(OperatorTestHarness.SMALL_STATE))
        {
            h.join.sliceWatermarkWork(1);
            final int watermarks = OperatorDriver.QUEUE + 3;
            for (int i = 0; i < watermarks; i++)
            {
                for (int k = 0; k < 3; k++)
                {
                    h.left(i * 10, (long)k, "L" + i + "_" + k);
                }
            }
            final long[] steps = new long[watermarks];
            for (int i = 0; i < watermarks; i++)
            {
                steps[i] = h.watermark(i * 10 + 1);
            }
            h.end();
            for (int i = 0; i < watermarks; i++)
            {
                assertEquals(List.of("+I L" + i + "_0 null", "+I L" + i + "_1 null", "+I L" + i + "_2 null"), h.at(steps[i]),
                    "watermark " + i);
            }
        }
    }

    @Test
    void theEndOfInputFinishesPendingWorkAtTheWatermarksStep()
    {
        try (IntervalTestHarness h = leftJoin(OperatorTestHarness.SMALL_STATE))
        {
            h.join.sliceWatermarkWork(1);
            for (int i = 0; i < 5; i++)
            {
                h.left(0, (long)i, "L" + i);
            }
            h.left(50, 9L, "Z");
            final long w = h.watermark(1);
            assertTrue(h.join.watermarkWorkPending());
            final long end = h.end();
            assertFalse(h.join.watermarkWorkPending());
            assertEquals(5, h.at(w).size(), "closed by the watermark: at its step, not the end's");
            assertEquals(List.of("+I Z null"), h.at(end));
        }
    }

    @Test
    void persistFinishesPendingWorkSoTheImageHoldsEveryEventWhole(@TempDir final Path dir)
    {
        final StateConfig durable = OperatorTestHarness.SMALL_STATE.withStateDirectory(dir);
        final long w;
        try (IntervalTestHarness h = leftJoin(durable))
        {
            h.join.sliceWatermarkWork(1);
            for (int i = 0; i < 5; i++)
            {
                h.left(0, (long)i, "L" + i);
            }
            h.left(50, 9L, "Z");
            w = h.watermark(1);
            assertTrue(h.join.watermarkWorkPending());
            try
            {
                h.join.persist();
            }
            catch (final IOException e)
            {
                throw new AssertionError(e);
            }
            assertFalse(h.join.watermarkWorkPending());
            assertEquals(5, h.at(w).size());
            assertEquals(1, h.counters().liveLeft(), "the image holds only Z");
        }
        // Reopened: only Z is left, padded at the end of input.
        try (IntervalTestHarness h = leftJoin(durable))
        {
            assertEquals(1, h.counters().liveLeft());
            assertEquals(1, h.counters().pendingTimers());
            h.end();
            assertEquals(List.of("+I Z null"), h.at(0));
        }
    }

    @Test
    void closeFinishesPendingWork()
    {
        final IntervalTestHarness h = leftJoin(OperatorTestHarness.SMALL_STATE);
        h.join.sliceWatermarkWork(1);
        for (int i = 0; i < 5; i++)
        {
            h.left(0, (long)i, "L" + i);
        }
        final long w = h.watermark(1);
        h.close();
        assertEquals(5, h.at(w).size(), "what the watermark closed is emitted at its step before the state is freed");
    }

    @Test
    void aKeyIndexFullOfRowsAlreadyClosedFinishesThemInsteadOfRefusing()
    {
        final int keys = 16;
        final StateConfig config = OperatorTestHarness.SMALL_STATE.withMaxKeys(keys);
        final List<String> whole = run(config, Integer.MAX_VALUE);
        final List<String> sliced = run(config, 1);
        assertEquals(whole, sliced);
        assertFalse(whole.contains(DeadLetterReason.STATE_FULL.name()), whole.toString());
    }

    /** Fills the index with two rows per key, closes them all, then brings as many new keys: @return the dead letters. */
    private static List<String> run(final StateConfig config, final int budget)
    {
        try (IntervalTestHarness h = leftJoin(config))
        {
            h.join.sliceWatermarkWork(budget);
            final int keys = (int)config.maxKeys();
            for (int k = 0; k < keys; k++)
            {
                h.left(0, (long)k, "A" + k);
                h.left(0, (long)k, "B" + k);
            }
            final long probe = h.left(0, (long)keys, "over");
            assertEquals(List.of(DeadLetterReason.STATE_FULL), reasons(h), "the index holds " + keys + " keys, no more");
            h.dead.clear();
            h.watermark(1);
            for (int k = 0; k < keys; k++)
            {
                h.left(5, (long)(100 + k), "N" + k);
            }
            final List<String> out = new ArrayList<>();
            for (final OperatorTestHarness.Dead d : h.dead)
            {
                out.add(d.id() + " " + d.reason());
            }
            assertEquals(keys, h.counters().liveLeft(), "every new key stored");
            assertTrue(probe >= 0);
            return out;
        }
    }

    private static List<DeadLetterReason> reasons(final IntervalTestHarness h)
    {
        final List<DeadLetterReason> out = new ArrayList<>();
        for (final OperatorTestHarness.Dead d : h.dead)
        {
            out.add(d.reason());
        }
        return out;
    }

    @Test
    void aBudgetBelowOneIsRefused()
    {
        try (IntervalTestHarness h = leftJoin(OperatorTestHarness.SMALL_STATE))
        {
            Assertions.assertThrows(IllegalArgumentException.class, () -> h.join.sliceWatermarkWork(0));
        }
    }

    @Test
    void theTemporalJoinFiresWaitingRowsInSlicesAndTheUnslicedKindsDoEachWatermarkWhole()
    {
        try (VersionedTestHarness h = new VersionedTestHarness(
            VersionedTestHarness.spec(JoinKind.TEMPORAL, JoinType.LEFT).build()))
        {
            h.operator().sliceWatermarkWork(1);
            h.left(10, 1L, "L1");
            h.left(10, 2L, "L2");
            h.left(10, 3L, "L3");
            final long w = h.watermark(100);
            assertTrue(h.operator().watermarkWorkPending());
            assertEquals(1, h.at(w).size());
            h.operator().finishWatermarkWork();
            assertEquals(List.of("+I L1 null", "+I L2 null", "+I L3 null"), h.at(w));
        }
        try (VersionedTestHarness h = new VersionedTestHarness(
            VersionedTestHarness.spec(JoinKind.LOOKUP, JoinType.LEFT).build()))
        {
            h.operator().sliceWatermarkWork(1);
            h.watermark(100);
            assertFalse(h.operator().watermarkWorkPending());
            assertEquals(1, h.operator().counters().watermarkSlices(), "a kind not sliced: its watermark is one slice");
        }
    }
}
