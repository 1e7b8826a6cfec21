package io.junction.join;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.Side;

import java.util.SplittableRandom;

/**
 * The random steps the slice differential tests ({@link IntervalSliceDifferentialTest},
 * {@link TemporalSliceDifferentialTest}) drive into two operators of one spec, one doing each watermark's work
 * whole and one in slices: a watermark (both sides, one side, or an idle side), and after every event a few slices
 * or a finish of the sliced one's pending work, as the runtime does between batches.
 */
final class SliceSteps
{
    private SliceSteps()
    {
    }

    /**
     * Moves both operators' watermarks alike: for both sides (1/2), one side (1/3) or an idle side (1/6), mostly a
     * little behind {@code now}, sometimes well ahead of it.
     *
     * @return the new {@code now}.
     */
    static long watermark(
        final SplittableRandom random, final long now, final OperatorTestHarness<?> whole, final OperatorTestHarness<?> sliced)
    {
        final long watermark = now - random.nextLong(0, 40) + (random.nextInt(10) == 0 ? random.nextLong(20, 80) : 0);
        final int which = random.nextInt(6);
        if (which < 3)
        {
            whole.watermark(watermark);
            sliced.watermark(watermark);
        }
        else if (which < 5)
        {
            final Side side = which == 3 ? Side.LEFT : Side.RIGHT;
            whole.watermark(side, watermark);
            sliced.watermark(side, watermark);
        }
        else
        {
            final Side side = random.nextBoolean() ? Side.LEFT : Side.RIGHT;
            whole.idle(side);
            sliced.idle(side);
        }
        return Math.max(now, watermark);
    }

    /**
     * After an event: the whole operator has nothing pending; the sliced one may run a few slices (1/5) or finish
     * its pending work (1/10).
     *
     * @return 1 when the sliced operator had work pending after the event, else 0.
     */
    static int afterEvent(final SplittableRandom random, final OperatorTestHarness<?> whole, final OperatorTestHarness<?> sliced)
    {
        assertTrue(!whole.operator().watermarkWorkPending(), "an operator not sliced leaves nothing pending");
        final int pending = sliced.operator().watermarkWorkPending() ? 1 : 0;
        final int extra = random.nextInt(10);
        if (extra < 2)
        {
            for (int s = 0; s < 1 + random.nextInt(3) && sliced.operator().runWatermarkSlice(); s++)
            {
                // a few slices, as a runtime between two batches
            }
        }
        else if (extra == 2)
        {
            sliced.operator().finishWatermarkWork();
            assertTrue(!sliced.operator().watermarkWorkPending());
        }
        return pending;
    }
}
