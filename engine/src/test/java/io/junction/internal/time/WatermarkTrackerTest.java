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
}
