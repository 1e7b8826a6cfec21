package io.junction.join;

import io.junction.api.DeadLetterReason;
import io.junction.api.JoinType;
import io.junction.api.Side;
import io.junction.api.WindowSpec;
import io.junction.metrics.OperatorCounters;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Idle inputs, driven event by event: an input marked idle stops holding back the join's watermark,
 * so what waits on it closes; its next row or watermark makes it active again, and the join's
 * watermark never goes back.
 */
class IdleInputTest
{
    private static void assertLive(final OperatorTestHarness<?> h, final long left, final long right)
    {
        final OperatorCounters c = h.counters();
        assertEquals(left, c.liveLeft(), "liveLeft");
        assertEquals(right, c.liveRight(), "liveRight");
    }

    /** Left rows, then a left watermark past their interval, the right input silent throughout. */
    private static void feedLeftOnly(final IntervalTestHarness h)
    {
        h.left(100, 1, "L1");
        h.left(110, 2, "L2");
        h.left(120, 3, "L3");
        h.watermark(Side.LEFT, 1000);
    }

    @Test
    void withoutIdlenessASilentRightInputHoldsEveryLeftRow()
    {
        try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.LEFT, -10, 30))
        {
            feedLeftOnly(h);
            h.watermark(Side.LEFT, 5000);
            assertEquals(List.of(), h.all());
            assertLive(h, 3, 0);
            assertEquals(Long.MIN_VALUE, h.counters().watermark());
        }
    }

    @Test
    void idleRightInputLetsTheLeftWatermarkPadAndDrainLeftRows()
    {
        try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.LEFT, -10, 30))
        {
            feedLeftOnly(h);
            final long idle = h.idle(Side.RIGHT);
            assertEquals(List.of("+I L1 null", "+I L2 null", "+I L3 null"), h.at(idle));
            assertLive(h, 0, 0);
            assertEquals(1000, h.counters().watermark());
            assertEquals(3, h.counters().expiredRows());
        }
    }

    @Test
    void idleLeftInputOfAnInnerJoinExpiresTheRightRowsWithoutOutput()
    {
        try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.INNER, -10, 30))
        {
            h.right(100, 1, "R1");
            h.watermark(Side.RIGHT, 500);
            assertLive(h, 0, 1);
            h.idle(Side.LEFT);
            assertLive(h, 0, 0);
            assertEquals(List.of(), h.all());
        }
    }

    @Test
    void whileIdleTheActiveInputAloneAdvancesTheJoinWatermark()
    {
        try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.LEFT, -10, 30))
        {
            h.watermark(Side.LEFT, 100);
            h.idle(Side.RIGHT);
            assertEquals(100, h.counters().watermark());
            h.left(200, 1, "L1");
            final long wm = h.watermark(Side.LEFT, 300);
            assertEquals(List.of("+I L1 null"), h.at(wm));
            assertEquals(300, h.counters().watermark());
            assertLive(h, 0, 0);
        }
    }

    @Test
    void aRowOfTheIdleInputMakesItActiveAgainAndTheJoinWatermarkHolds()
    {
        try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.LEFT, -10, 30))
        {
            h.watermark(Side.LEFT, 1000);
            h.idle(Side.RIGHT);
            assertEquals(1000, h.counters().watermark());

            // Back with a row at or above the join's watermark: joined as usual, and the right input
            // (watermark still -inf) holds the join's watermark at 1000, never lower.
            h.left(1010, 1, "L1");
            final long back = h.right(1020, 1, "R1");
            assertEquals(List.of("+I L1 R1"), h.at(back));
            h.left(1500, 2, "L2");
            h.watermark(Side.LEFT, 5000);
            assertEquals(1000, h.counters().watermark());
            assertLive(h, 2, 1);

            // Below the join's watermark a row of the returning input is late as usual.
            h.right(900, 1, "R0");
            assertEquals(1, h.dead.size());
            assertEquals(DeadLetterReason.LATE, h.dead.get(0).reason());

            // It catches up: the join's watermark is the minimum again.
            h.watermark(Side.RIGHT, 2000);
            assertEquals(2000, h.counters().watermark());
            assertLive(h, 0, 0);
            assertEquals(List.of("+I L2 null"), h.at(h.out.get(h.out.size() - 1).step()));
        }
    }

    @Test
    void aWatermarkOfTheIdleInputMakesItActiveAgain()
    {
        try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.LEFT, -10, 30))
        {
            h.watermark(Side.LEFT, 1000);
            h.idle(Side.RIGHT);
            h.watermark(Side.RIGHT, 1200);
            h.left(1300, 1, "L1");
            h.watermark(Side.LEFT, 5000);
            assertEquals(1200, h.counters().watermark());
            assertLive(h, 1, 0);
        }
    }

    @Test
    void bothInputsIdleTakeTheHigherWatermarkSoABurstStillCloses()
    {
        try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.LEFT, -10, 30))
        {
            h.watermark(Side.LEFT, 700);
            h.watermark(Side.RIGHT, 500);
            h.left(600, 1, "L1");
            h.idle(Side.LEFT);
            assertEquals(500, h.counters().watermark(), "the right input is active: 500");
            assertLive(h, 1, 0);
            final long idle = h.idle(Side.RIGHT);
            assertEquals(700, h.counters().watermark(), "both idle: the higher");
            assertEquals(List.of("+I L1 null"), h.at(idle));
            assertLive(h, 0, 0);
        }
    }

    @Test
    void idleRightInputClosesTheLeftWindowsOfAWindowLeftJoin()
    {
        try (WindowTestHarness h = new WindowTestHarness(
            WindowTestHarness.spec(JoinType.LEFT, WindowSpec.tumbling(10, 0)).build()))
        {
            h.left(3, 1, "L1");
            h.left(15, 2, "L2");
            h.watermark(Side.LEFT, 100);
            assertEquals(List.of(), h.all());
            final long idle = h.idle(Side.RIGHT);
            assertEquals(List.of("+I L1 null [0,10)", "+I L2 null [10,20)"), h.at(idle));
            assertLive(h, 0, 0);
        }
    }
}
