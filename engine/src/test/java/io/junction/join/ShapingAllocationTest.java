package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.OutputMode;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import com.sun.management.ThreadMXBean;

/**
 * The padded-row delay and upsert output (SEMANTICS 4.5-4.7) allocate nothing per event once the state is at its
 * steady size: rows waiting out their delay, matched inside it, padded by the watermark, retracted
 * padded and pending, timers moved on to the TTL deadline and cancelled, and the fold of each step.
 */
class ShapingAllocationTest
{
    private static final int KEYS = 64;

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void noAllocationPerEventInTheSteadyState(final boolean upsert)
    {
        final JoinSpec.Builder builder = JoinSpec.builder(JoinKind.REGULAR, JoinType.FULL)
            .schemas(IntervalTestRows.SCHEMA, IntervalTestRows.SCHEMA).leftKey("k").rightKey("k").paddedDelay(20).stateTtl(10_000);
        if (upsert)
        {
            builder.leftUniqueKey("id").rightUniqueKey("id").output(OutputMode.UPSERT);
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
            lefts[k] = IntervalTestRows.row((long)k, "L" + k, 1L);
            rights[k] = IntervalTestRows.row((long)k, "R" + k, 2L);
        }
        final ThreadMXBean threads = (ThreadMXBean)ManagementFactory.getThreadMXBean();
        try (JoinOperator join = JoinOperators.create(spec, OperatorTestHarness.SMALL_STATE, results, deadLetters))
        {
            final long[] step = {0};
            drive(join, lefts, rights, step, 0, 100_000);
            long least = Long.MAX_VALUE;
            for (int window = 0; window < 3; window++)
            {
                final long before = threads.getCurrentThreadAllocatedBytes();
                assertNotEquals(-1, before, "thread allocation measurement is off");
                drive(join, lefts, rights, step, 100_000 + window * 50_000, 150_000 + window * 50_000);
                least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
            }
            assertTrue(least < 16 * 1024, (upsert ? "upsert" : "retract") + " allocated at least " + least +
                " bytes in each window of 50,000 ms of events");
            assertTrue(outputs[0] > 200_000, "outputs: " + outputs[0]);
        }
    }

    /**
     * Per ms {@code t}, key {@code t % KEYS}: in even rounds of the keys a left row arrives (pending); in odd
     * rounds a right row joins it (a padded one by then: the watermark, every 16 ms at t - 30, has passed
     * its delay), leaves, and the left row is retracted padded.
     */
    private static void drive(
        final JoinOperator join, final RowView[] lefts, final RowView[] rights, final long[] step, final int from, final int to)
    {
        for (int t = from; t < to; t++)
        {
            final int key = t % KEYS;
            if ((t / KEYS & 1) == 0)
            {
                join.onRow(Side.LEFT, ChangeKind.INSERT, lefts[key], t, step[0]++);
            }
            else
            {
                join.onRow(Side.RIGHT, ChangeKind.INSERT, rights[key], t, step[0]++);
                join.onRow(Side.RIGHT, ChangeKind.DELETE, rights[key], t, step[0]++);
                join.onRow(Side.LEFT, ChangeKind.DELETE, lefts[key], t, step[0]++);
            }
            if ((t & 15) == 15)
            {
                join.onWatermark(t - 30, step[0]++);
            }
        }
    }
}
