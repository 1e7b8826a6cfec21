package io.junction.join;

import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Side;
import io.junction.metrics.OperatorCounters;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;

/**
 * Bounded watermark work (docs/SEMANTICS.md 3) on the temporal join, as {@code IntervalSliceDifferentialTest} on
 * the interval join: waiting left rows fire and superseded versions leave in slices, while left rows and right
 * changes (above, at and below the watermark: those at or below finish the pending work first) arrive in between.
 * The interval join's description, for the rest: the same random logs through an operator
 * that does each watermark whole and one that slices it ({@link JoinOperator#sliceWatermarkWork}, a budget of 1
 * row or a random one), with a random number of extra slices between events (none, some, all: what a runtime
 * does while its ring is empty), must give the same lines at the same steps, the same dead letters and the same
 * counts. The logs have many rows per key and watermarks that close many rows at once (and jump over whole turns
 * of a small wheel), so that work is pending while rows arrive; some have a live-row limit that the rows a
 * watermark closed, not yet expired, would break if the operator did not finish them first.
 */
class TemporalSliceDifferentialTest
{
    private static final int SCENARIOS = 400;

    @ParameterizedTest
    @EnumSource(value = JoinType.class, names = {"INNER", "LEFT"})
    void slicedWorkGivesTheSameLinesAtTheSameSteps(final JoinType type)
    {
        long pendingSeen = 0;
        for (int i = 0; i < SCENARIOS; i++)
        {
            pendingSeen += run(type, 0x5EED_0000L + type.ordinal() * 1000L + i);
        }
        assertTrue(pendingSeen > SCENARIOS, "watermark work was pending after " + pendingSeen + " events only: " +
            "the scenarios do not exercise slicing");
    }

    /** @return events after which the sliced operator still had work pending. */
    private static long run(final JoinType type, final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final JoinSpec spec = VersionedTestHarness.spec(JoinKind.TEMPORAL, type).build();
        StateConfig config = OperatorTestHarness.SMALL_STATE;
        if (random.nextBoolean())
        {
            // 1 ms slots, 16 of them: watermarks jump over whole turns, entries wait several turns.
            config = config.withWheel(0, 16);
        }
        if (random.nextInt(4) == 0)
        {
            config = config.withMaxLiveRows(random.nextInt(5, 40));
        }
        final int budget = random.nextBoolean() ? 1 : random.nextInt(2, 8);
        long pending = 0;
        try (VersionedTestHarness whole = new VersionedTestHarness(spec, config);
             VersionedTestHarness sliced = new VersionedTestHarness(spec, config))
        {
            sliced.operator().sliceWatermarkWork(budget);
            final int length = random.nextInt(20, 300);
            final int keys = random.nextInt(1, 6);
            long now = random.nextLong(-100, 100);
            for (int i = 0; i < length; i++)
            {
                now += random.nextLong(0, 4);
                final int dice = random.nextInt(100);
                if (dice < 75)
                {
                    final Side side = random.nextInt(3) == 0 ? Side.RIGHT : Side.LEFT;
                    final long ts = now - random.nextLong(-20, 30);
                    final Object key = random.nextInt(30) == 0 ? null : (long)random.nextInt(keys);
                    final String id = (side == Side.LEFT ? "L" : "R") + i;
                    final Object v = (long)random.nextInt(3);
                    final int op = random.nextInt(10);
                    final ChangeKind kind = side == Side.LEFT || op < 4 ? ChangeKind.INSERT :
                        op < 8 ? ChangeKind.UPDATE_AFTER : op < 9 ? ChangeKind.DELETE :
                        ChangeKind.UPDATE_BEFORE;
                    whole.row(side, kind, ts, key, id, v);
                    sliced.row(side, kind, ts, key, id, v);
                }
                else
                {
                    now = SliceSteps.watermark(random, now, whole, sliced);
                }
                pending += SliceSteps.afterEvent(random, whole, sliced);
            }
            whole.end();
            sliced.end();
            assertTrue(!sliced.operator().watermarkWorkPending(), "the end of input finishes pending work");
            final String where = type + " seed " + seed + " budget " + budget + " " + config;
            assertEquals(whole.all(), sliced.all(), "lines by step, " + where);
            assertEquals(deadLetters(whole), deadLetters(sliced), "dead letters, " + where);
            final OperatorCounters a = whole.counters();
            final OperatorCounters b = sliced.counters();
            assertEquals(a.rowsOut(), b.rowsOut(), where);
            assertEquals(a.expiredRows(), b.expiredRows(), where);
            assertEquals(a.lateRows(), b.lateRows(), where);
            assertEquals(a.badInputs(), b.badInputs(), where);
            assertEquals(a.liveLeft() + a.liveRight(), b.liveLeft() + b.liveRight(), where);
            assertTrue(b.watermarkSlices() >= a.watermarkSlices(), where);
        }
        return pending;
    }

    private static List<String> deadLetters(final VersionedTestHarness h)
    {
        final List<String> out = new ArrayList<>();
        for (final OperatorTestHarness.Dead d : h.dead)
        {
            out.add(d.step() + " " + d.id() + " " + d.reason());
        }
        return out;
    }
}
