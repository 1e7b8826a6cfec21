package io.junction.join;

import io.junction.api.AsofSpec;
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
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import com.sun.management.ThreadMXBean;

/**
 * The ASOF join allocates nothing per event once its state is at its steady size, in every direction and
 * both emission modes: right rows out of order, left rows waiting and re-evaluated (eager corrections,
 * forward and nearest deadlines moving), rows final at the watermark, right rows freed, a condition
 * evaluated, output handed to a handler.
 */
class AsofJoinAllocationTest
{
    private static final int KEYS = 64;

    @ParameterizedTest(name = "{0} {1} condition {2}")
    @CsvSource({
        "BACKWARD, FINAL, true", "BACKWARD, EAGER, false",
        "FORWARD, FINAL, false", "FORWARD, EAGER, true",
        "NEAREST, FINAL, true", "NEAREST, EAGER, false",
    })
    void noAllocationPerEventInTheSteadyState(final AsofSpec.Direction direction, final AsofSpec.Emit emit, final boolean condition)
    {
        final JoinSpec.Builder builder = VersionedTestHarness.spec(JoinKind.ASOF, JoinType.LEFT)
            .asof(AsofSpec.of(direction).withTolerance(100).withEmit(emit)).allowedLateness(5);
        if (condition)
        {
            builder.condition("v", CompareOp.LE, "v");
        }
        final JoinSpec spec = builder.build();
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
            drive(join, lefts, rights, step, 0, 150_000);
            // A per-event allocation shows in every window; the JIT's own transitions may show in one,
            // so the quietest window is asserted.
            long least = Long.MAX_VALUE;
            for (int window = 0; window < 3; window++)
            {
                final long before = threads.getCurrentThreadAllocatedBytes();
                assertNotEquals(-1, before, "thread allocation measurement is off");
                drive(join, lefts, rights, step, 150_000 + window * 60_000, 210_000 + window * 60_000);
                least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
            }
            // A byte per event would be 120 KB a window; what is left is the measurement's own noise.
            assertTrue(least < 16 * 1024, direction + " " + emit + " allocated at least " + least +
                " bytes in each window of 120,000 events");
            assertTrue(outputs[0] > 300_000, "left rows emitted: " + outputs[0]);
            assertTrue(join.counters().liveRight() < 40 * KEYS, "right rows are freed: " + join.counters().liveRight());
        }
    }

    /** Per ms {@code t}: a right row of key {@code t % KEYS} up to 40 ms late, a left row, a watermark every 16 ms. */
    private static void drive(
        final JoinOperator join, final RowView[] lefts, final RowView[] rights, final long[] step, final int from, final int to)
    {
        for (int t = from; t < to; t++)
        {
            final int key = t % KEYS;
            join.onRow(Side.RIGHT, ChangeKind.INSERT, rights[key], t - (t * 7L % 41), step[0]++);
            join.onRow(Side.LEFT, ChangeKind.INSERT, lefts[(key + 1) % KEYS], t, step[0]++);
            if ((t & 15) == 15)
            {
                join.onWatermark(t - 60, step[0]++);
            }
        }
    }
}
