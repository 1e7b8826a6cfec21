package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.CompareOp;
import io.junction.api.DeadLetterHandler;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import com.sun.management.ThreadMXBean;

/**
 * The temporal and lookup joins allocate nothing per event once their state is at its steady size:
 * version updates out of order, left rows waiting for the watermark and joining, versions freed,
 * a condition evaluated, output handed to a handler.
 */
class VersionedJoinAllocationTest
{
    private static final int KEYS = 64;

    @ParameterizedTest
    @EnumSource(value = JoinKind.class, names = {"TEMPORAL", "LOOKUP"})
    void noAllocationPerEventInTheSteadyState(final JoinKind kind)
    {
        final JoinSpec spec = VersionedTestHarness.spec(kind, JoinType.LEFT).condition("v", CompareOp.LE, "v").build();
        final long[] outputs = new long[1];
        final ResultHandler results = (k, left, right, ts, step) -> outputs[0]++;
        final DeadLetterHandler deadLetters = (side, k, row, ts, step, reason) ->
        {
            throw new AssertionError("dead letter " + reason + " at step " + step);
        };
        final RowView[] lefts = new RowView[KEYS];
        final RowView[] rights = new RowView[KEYS];
        for (int k = 0; k < KEYS; k++)
        {
            lefts[k] = IntervalTestRows.row((long)k, "L", 1L);
            rights[k] = IntervalTestRows.row((long)k, "R", 2L);
        }
        final ThreadMXBean threads = (ThreadMXBean)ManagementFactory.getThreadMXBean();
        try (JoinOperator join = JoinOperators.create(spec, OperatorTestHarness.SMALL_STATE, results, deadLetters))
        {
            final long[] step = {0};
            // Warm-up: the state reaches its steady size and the code its compiled form.
            drive(join, lefts, rights, step, 0, 400_000);
            // A per-event allocation shows in every window; the JIT's own transitions (code still running in a
            // tier without escape analysis for a while) may show in one, so the quietest window is asserted.
            long least = Long.MAX_VALUE;
            for (int window = 0; window < 5; window++)
            {
                final long before = threads.getCurrentThreadAllocatedBytes();
                assertNotEquals(-1, before, "thread allocation measurement is off");
                drive(join, lefts, rights, step, 400_000 + window * 100_000, 500_000 + window * 100_000);
                least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
            }
            // A byte per event would be 300 KB a window; what is left is the measurement's own noise.
            assertTrue(least < 16 * 1024, kind + " allocated at least " + least + " bytes in each window of 300,000 events");
            // Lookup emits every left row at once; temporal all but those above the last watermark.
            assertTrue(outputs[0] > 899_900 && outputs[0] <= 900_000, "left rows emitted: " + outputs[0]);
        }
    }

    /** Per ms {@code t}: a version of key {@code t % KEYS} up to 40 ms late, a left row, a watermark every 16 ms. */
    private static void drive(
        final JoinOperator join, final RowView[] lefts, final RowView[] rights, final long[] step, final int from, final int to)
    {
        for (int t = from; t < to; t++)
        {
            final int key = t % KEYS;
            join.onRow(Side.RIGHT, (t & 1) == 0 ? ChangeKind.INSERT : ChangeKind.UPDATE_AFTER, rights[key], t - (t * 7L % 41), step[0]++);
            join.onRow(Side.LEFT, ChangeKind.INSERT, lefts[key], t, step[0]++);
            if ((t & 15) == 15)
            {
                join.onWatermark(t - 60, step[0]++);
            }
        }
    }
}
