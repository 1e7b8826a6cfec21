package io.junction.internal.time;

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
        assertEquals(Long.MIN_VALUE, tracker.input(WatermarkTracker.LEFT));
        assertEquals(Long.MIN_VALUE, tracker.input(WatermarkTracker.RIGHT));
    }

    @Test
    void shouldBeMinimumOfBothInputs()
    {
        final WatermarkTracker tracker = new WatermarkTracker();
        assertFalse(tracker.advance(WatermarkTracker.LEFT, 100), "right has no watermark yet");
        assertEquals(Long.MIN_VALUE, tracker.current());
        assertTrue(tracker.advance(WatermarkTracker.RIGHT, 50));
        assertEquals(50, tracker.current());
        assertTrue(tracker.advance(WatermarkTracker.RIGHT, 200));
        assertEquals(100, tracker.current());
        assertEquals(200, tracker.input(WatermarkTracker.RIGHT));
    }

    @Test
    void shouldNeverGoBackwards()
    {
        final WatermarkTracker tracker = new WatermarkTracker();
        tracker.advanceBoth(100);
        assertFalse(tracker.advance(WatermarkTracker.LEFT, 50));
        assertFalse(tracker.advanceBoth(10));
        assertEquals(100, tracker.current());
        assertEquals(100, tracker.input(WatermarkTracker.LEFT));
    }

    @Test
    void shouldReportNoMoveWhenOnlyFasterInputAdvances()
    {
        final WatermarkTracker tracker = new WatermarkTracker();
        tracker.advanceBoth(100);
        assertFalse(tracker.advance(WatermarkTracker.LEFT, 500));
        assertTrue(tracker.advance(WatermarkTracker.RIGHT, 101));
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
        tracker.advance(WatermarkTracker.LEFT, 100);
        assertTrue(tracker.markIdle(WatermarkTracker.RIGHT), "right never had a watermark: the join follows left");
        assertEquals(100, tracker.current());
        assertTrue(tracker.isIdle(WatermarkTracker.RIGHT));
        assertTrue(tracker.advance(WatermarkTracker.LEFT, 200));
        assertEquals(200, tracker.current());
        assertEquals(Long.MIN_VALUE, tracker.input(WatermarkTracker.RIGHT));
    }

    @Test
    void shouldTakeTheHigherInputWhenBothAreIdle()
    {
        final WatermarkTracker tracker = new WatermarkTracker();
        tracker.advance(WatermarkTracker.LEFT, 100);
        tracker.advance(WatermarkTracker.RIGHT, 50);
        assertFalse(tracker.markIdle(WatermarkTracker.LEFT), "already at the right input's 50");
        assertEquals(50, tracker.current(), "the active right input");
        assertTrue(tracker.markIdle(WatermarkTracker.RIGHT));
        assertEquals(100, tracker.current(), "both idle: the higher");
        assertFalse(tracker.markIdle(WatermarkTracker.LEFT));
    }

    @Test
    void shouldStayAtMinWhenBothIdleInputsNeverHadAWatermark()
    {
        final WatermarkTracker tracker = new WatermarkTracker();
        assertFalse(tracker.markIdle(WatermarkTracker.LEFT));
        assertFalse(tracker.markIdle(WatermarkTracker.RIGHT));
        assertEquals(Long.MIN_VALUE, tracker.current());
    }

    @Test
    void shouldNeverGoBackwardsWhenAnIdleInputReturnsBelow()
    {
        final WatermarkTracker tracker = new WatermarkTracker();
        tracker.advance(WatermarkTracker.LEFT, 100);
        tracker.markIdle(WatermarkTracker.RIGHT);
        tracker.markActive(WatermarkTracker.RIGHT);
        assertFalse(tracker.isIdle(WatermarkTracker.RIGHT));
        assertEquals(100, tracker.current(), "holds, never back to -inf");
        assertFalse(tracker.advance(WatermarkTracker.LEFT, 300), "the returning input holds it");
        assertFalse(tracker.advance(WatermarkTracker.RIGHT, 80), "a watermark below the join's changes nothing");
        assertTrue(tracker.advance(WatermarkTracker.RIGHT, 150));
        assertEquals(150, tracker.current());
    }

    @Test
    void shouldMakeAnIdleInputActiveWithAnyWatermark()
    {
        final WatermarkTracker tracker = new WatermarkTracker();
        tracker.advance(WatermarkTracker.LEFT, 100);
        tracker.markIdle(WatermarkTracker.RIGHT);
        assertFalse(tracker.advance(WatermarkTracker.RIGHT, Long.MIN_VALUE));
        assertFalse(tracker.isIdle(WatermarkTracker.RIGHT));
        assertFalse(tracker.advance(WatermarkTracker.LEFT, 200));
        assertEquals(100, tracker.current());
        tracker.markIdle(WatermarkTracker.RIGHT);
        tracker.markIdle(WatermarkTracker.LEFT);
        assertFalse(tracker.advanceBoth(Long.MIN_VALUE));
        assertFalse(tracker.isIdle(WatermarkTracker.LEFT));
        assertFalse(tracker.isIdle(WatermarkTracker.RIGHT));
    }
}
