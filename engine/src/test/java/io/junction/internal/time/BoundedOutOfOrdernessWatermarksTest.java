package io.junction.internal.time;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class BoundedOutOfOrdernessWatermarksTest
{
    @Test
    void shouldTrailTheHighestTimestampByTheDelay()
    {
        final BoundedOutOfOrdernessWatermarks generator = new BoundedOutOfOrdernessWatermarks(100, 1, 1);
        assertEquals(900, generator.onEvent(1000));
        assertEquals(BoundedOutOfOrdernessWatermarks.NONE, generator.onEvent(950), "out-of-order rows do not move it");
        assertEquals(1100, generator.onEvent(1200));
    }

    @Test
    void shouldEmitEveryKEventsOrEveryTMillis()
    {
        final BoundedOutOfOrdernessWatermarks generator = new BoundedOutOfOrdernessWatermarks(0, 3, 1000);
        assertEquals(0, generator.onEvent(0), "the first watermark is emitted at once");
        assertEquals(BoundedOutOfOrdernessWatermarks.NONE, generator.onEvent(1));
        assertEquals(BoundedOutOfOrdernessWatermarks.NONE, generator.onEvent(2));
        assertEquals(3, generator.onEvent(3), "third event since the last emission");
        assertEquals(2000, generator.onEvent(2000), "event time moved by at least 1000 ms");
    }

    @Test
    void shouldNotUnderflowNearLongMinValue()
    {
        final BoundedOutOfOrdernessWatermarks generator = new BoundedOutOfOrdernessWatermarks(10, 1, 1);
        assertEquals(BoundedOutOfOrdernessWatermarks.NONE, generator.onEvent(Long.MIN_VALUE + 5));
        assertEquals(Long.MIN_VALUE + 10, generator.onEvent(Long.MIN_VALUE + 20));
    }

    @Test
    void shouldRejectNegativeDelay()
    {
        assertThrows(IllegalArgumentException.class, () -> new BoundedOutOfOrdernessWatermarks(-1, 1, 1));
    }
}
