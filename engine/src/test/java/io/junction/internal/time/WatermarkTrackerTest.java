package io.junction.internal.time;

import io.junction.api.Side;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WatermarkTrackerTest
{
    @Test
    void shouldStartAtLongMin()
    {
        final WatermarkTracker tracker = new WatermarkTracker();
        assertEquals(Long.MIN_VALUE, tracker.current());
        assertEquals(Long.MIN_VALUE, tracker.input(Side.LEFT));
        assertEquals(Long.MIN_VALUE, tracker.input(Side.RIGHT));
    }

    @Test
    void shouldBeMinimumOfBothInputs()
    {
        final WatermarkTracker tracker = new WatermarkTracker();
        assertFalse(tracker.advance(Side.LEFT, 100), "right has no watermark yet");
        assertEquals(Long.MIN_VALUE, tracker.current());
        assertTrue(tracker.advance(Side.RIGHT, 50));
        assertEquals(50, tracker.current());
        assertTrue(tracker.advance(Side.RIGHT, 200));
        assertEquals(100, tracker.current());
        assertEquals(200, tracker.input(Side.RIGHT));
    }

    @Test
    void shouldNeverGoBackwards()
    {
        final WatermarkTracker tracker = new WatermarkTracker();
        tracker.advanceBoth(100);
        assertFalse(tracker.advance(Side.LEFT, 50));
        assertFalse(tracker.advanceBoth(10));
        assertEquals(100, tracker.current());
        assertEquals(100, tracker.input(Side.LEFT));
    }

    @Test
    void shouldReportNoMoveWhenOnlyFasterInputAdvances()
    {
        final WatermarkTracker tracker = new WatermarkTracker();
        tracker.advanceBoth(100);
        assertFalse(tracker.advance(Side.LEFT, 500));
        assertTrue(tracker.advance(Side.RIGHT, 101));
        assertEquals(101, tracker.current());
    }

    @Test
    void shouldAdvanceBothInputs()
    {
        final WatermarkTracker tracker = new WatermarkTracker();
        assertTrue(tracker.advanceBoth(Long.MAX_VALUE));
        assertEquals(Long.MAX_VALUE, tracker.current());
        assertFalse(tracker.advanceBoth(Long.MAX_VALUE));
    }

    @Test
    void shouldAcceptNegativeWatermarks()
    {
        final WatermarkTracker tracker = new WatermarkTracker();
        assertTrue(tracker.advanceBoth(-5));
        assertEquals(-5, tracker.current());
    }

    @Test
    void shouldFollowTheActiveInputWhileTheOtherIsIdle()
    {
        final WatermarkTracker tracker = new WatermarkTracker();
        tracker.advance(Side.LEFT, 100);
        assertTrue(tracker.markIdle(Side.RIGHT), "right never had a watermark: the join follows left");
        assertEquals(100, tracker.current());
        assertTrue(tracker.isIdle(Side.RIGHT));
        assertTrue(tracker.advance(Side.LEFT, 200));
        assertEquals(200, tracker.current());
        assertEquals(Long.MIN_VALUE, tracker.input(Side.RIGHT));
    }

    @Test
    void shouldTakeTheHigherInputWhenBothAreIdle()
    {
        final WatermarkTracker tracker = new WatermarkTracker();
        tracker.advance(Side.LEFT, 100);
        tracker.advance(Side.RIGHT, 50);
        assertFalse(tracker.markIdle(Side.LEFT), "already at the right input's 50");
        assertEquals(50, tracker.current(), "the active right input");
        assertTrue(tracker.markIdle(Side.RIGHT));
        assertEquals(100, tracker.current(), "both idle: the higher");
        assertFalse(tracker.markIdle(Side.LEFT));
    }

    @Test
    void shouldStayAtMinWhenBothIdleInputsNeverHadAWatermark()
    {
        final WatermarkTracker tracker = new WatermarkTracker();
        assertFalse(tracker.markIdle(Side.LEFT));
        assertFalse(tracker.markIdle(Side.RIGHT));
        assertEquals(Long.MIN_VALUE, tracker.current());
    }

    @Test
    void shouldNeverGoBackwardsWhenAnIdleInputReturnsBelow()
    {
        final WatermarkTracker tracker = new WatermarkTracker();
        tracker.advance(Side.LEFT, 100);
        tracker.markIdle(Side.RIGHT);
        tracker.markActive(Side.RIGHT);
        assertFalse(tracker.isIdle(Side.RIGHT));
        assertEquals(100, tracker.current(), "holds, never back to -inf");
        assertFalse(tracker.advance(Side.LEFT, 300), "the returning input holds it");
        assertFalse(tracker.advance(Side.RIGHT, 80), "a watermark below the join's changes nothing");
        assertTrue(tracker.advance(Side.RIGHT, 150));
        assertEquals(150, tracker.current());
    }

    @Test
    void shouldMakeAnIdleInputActiveWithAnyWatermark()
    {
        final WatermarkTracker tracker = new WatermarkTracker();
        tracker.advance(Side.LEFT, 100);
        tracker.markIdle(Side.RIGHT);
        assertFalse(tracker.advance(Side.RIGHT, Long.MIN_VALUE));
        assertFalse(tracker.isIdle(Side.RIGHT));
        assertFalse(tracker.advance(Side.LEFT, 200));
        assertEquals(100, tracker.current());
        tracker.markIdle(Side.RIGHT);
        tracker.markIdle(Side.LEFT);
        assertFalse(tracker.advanceBoth(Long.MIN_VALUE));
        assertFalse(tracker.isIdle(Side.LEFT));
        assertFalse(tracker.isIdle(Side.RIGHT));
    }
}
