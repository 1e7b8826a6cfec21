package io.junction.internal.time;

import org.agrona.UnsafeApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import java.util.HashMap;
import java.util.Map;

class TimerWheelTest
{
    static final int PREV = 0;
    static final int NEXT = 8;
    static final int DEADLINE = 16;

    private final List<Long> allocated = new ArrayList<>();
    private final Set<Long> expired = new HashSet<>();
    private final TimerWheel.ExpiryHandler collect = expired::add;

    long entry()
    {
        final long address = UnsafeApi.allocateMemory(24);
        UnsafeApi.setMemory(address, 24, (byte)0);
        allocated.add(address);
        return address;
    }

    @AfterEach
    void free()
    {
        for (final long address : allocated)
        {
            UnsafeApi.freeMemory(address);
        }
    }

    static TimerWheel wheel(final int tickShift, final int slots)
    {
        return new TimerWheel(tickShift, slots, PREV, NEXT, DEADLINE);
    }

    @Test
    void shouldExpireOnlyEntriesStrictlyBelowWatermark()
    {
        final TimerWheel wheel = wheel(4, 16);
        final long e = entry();
        wheel.schedule(e, 100);
        assertEquals(0, wheel.advance(100, collect), "deadline == watermark is not closed");
        assertEquals(Set.of(), expired);
        assertEquals(1, wheel.advance(101, collect));
        assertEquals(Set.of(e), expired);
        assertEquals(0, wheel.pending());
    }

    @Test
    void shouldExpireEverythingBelowWatermarkAtFirstAdvance()
    {
        final TimerWheel wheel = wheel(2, 8);
        final long a = entry();
        final long b = entry();
        final long c = entry();
        wheel.schedule(a, -50);
        wheel.schedule(b, 7);
        wheel.schedule(c, 1_000_000);
        assertEquals(2, wheel.advance(8, collect));
        assertEquals(Set.of(a, b), expired);
        assertEquals(1, wheel.pending());
    }

    @Test
    void shouldNotExpireCancelledEntry()
    {
        final TimerWheel wheel = wheel(0, 8);
        final long a = entry();
        final long b = entry();
        final long c = entry();
        wheel.schedule(a, 5);
        wheel.schedule(b, 5);
        wheel.schedule(c, 5);
        wheel.cancel(b);
        assertEquals(2, wheel.pending());
        wheel.advance(6, collect);
        assertEquals(Set.of(a, c), expired);
    }

    @Test
    void shouldCancelHeadMiddleAndTailOfSlot()
    {
        final TimerWheel wheel = wheel(0, 4);
        final long[] e = new long[5];
        for (int i = 0; i < e.length; i++)
        {
            e[i] = entry();
            wheel.schedule(e[i], 1 + 4L * i);
        }
        wheel.cancel(e[4]);
        wheel.cancel(e[2]);
        wheel.cancel(e[0]);
        assertEquals(2, wheel.pending());
        wheel.advance(100, collect);
        assertEquals(Set.of(e[1], e[3]), expired);
    }

    @Test
    void shouldKeepFarFutureEntryInItsSlotUntilItsTurn()
    {
        final TimerWheel wheel = wheel(0, 8);
        final long near = entry();
        final long far = entry();
        wheel.schedule(near, 3);
        wheel.schedule(far, 3 + 8 * 5);
        wheel.advance(0, collect);
        for (long wm = 1; wm <= 43; wm++)
        {
            wheel.advance(wm, collect);
            assertEquals(wm > 3 ? Set.of(near) : Set.of(), expired, "watermark " + wm);
        }
        wheel.advance(44, collect);
        assertEquals(Set.of(near, far), expired);
    }

    @Test
    void shouldExpireEntriesWhenWatermarkJumpsMoreThanOneTurn()
    {
        final TimerWheel wheel = wheel(1, 8);
        final long a = entry();
        final long b = entry();
        final long c = entry();
        wheel.advance(0, collect);
        wheel.schedule(a, 5);
        wheel.schedule(b, 500);
        wheel.schedule(c, 5000);
        assertEquals(2, wheel.advance(1000, collect));
        assertEquals(Set.of(a, b), expired);
    }

    @Test
    void shouldExpireEachEntryExactlyWhenWatermarkPassesItUnderRandomSchedule()
    {
        final Random random = new Random(7);
        final TimerWheel wheel = wheel(3, 16);
        final List<long[]> entries = new ArrayList<>();
        long watermark = 0;
        wheel.advance(watermark, collect);
        for (int round = 0; round < 2000; round++)
        {
            for (int i = random.nextInt(4); i > 0; i--)
            {
                final long e = entry();
                final long deadline = watermark + random.nextInt(random.nextBoolean() ? 50 : 2000);
                wheel.schedule(e, deadline);
                entries.add(new long[] {e, deadline});
            }
            watermark += random.nextInt(random.nextInt(10) == 0 ? 500 : 20);
            wheel.advance(watermark, collect);
            for (final long[] e : entries)
            {
                if (expired.contains(e[0]) != (e[1] < watermark))
                {
                    throw new AssertionError("deadline " + e[1] + " at watermark " + watermark + " expired=" + expired.contains(e[0]));
                }
            }
        }
        assertEquals(entries.size() - expired.size(), wheel.pending());
    }

    @Test
    void shouldIgnoreWatermarkGoingBackwards()
    {
        final TimerWheel wheel = wheel(0, 8);
        final long e = entry();
        wheel.advance(100, collect);
        wheel.schedule(e, 100);
        assertEquals(0, wheel.advance(50, collect));
        assertEquals(1, wheel.advance(101, collect));
    }

    @Test
    void shouldExpireAllWhateverTheirDeadlines()
    {
        final TimerWheel wheel = wheel(2, 8);
        final long a = entry();
        final long b = entry();
        final long c = entry();
        wheel.schedule(a, Long.MIN_VALUE);
        wheel.schedule(b, 12345);
        wheel.schedule(c, Long.MAX_VALUE);
        assertEquals(3, wheel.expireAll(collect));
        assertEquals(Set.of(a, b, c), expired);
        assertEquals(0, wheel.pending());
    }

    @Test
    void shouldNeverExpireLongMaxDeadlineByWatermark()
    {
        final TimerWheel wheel = wheel(10, 4096);
        final long e = entry();
        wheel.schedule(e, Long.MAX_VALUE);
        assertEquals(0, wheel.advance(0, collect));
        assertEquals(0, wheel.advance(Long.MAX_VALUE - 1, collect));
        assertEquals(0, wheel.advance(Long.MAX_VALUE, collect), "MAX is not strictly below MAX");
        assertEquals(1, wheel.pending());
        assertEquals(1, wheel.expireAll(collect));
    }

    @Test
    void shouldTreatMinWatermarkAsNothingClosed()
    {
        final TimerWheel wheel = wheel(0, 8);
        final long e = entry();
        wheel.schedule(e, Long.MIN_VALUE);
        assertEquals(0, wheel.advance(Long.MIN_VALUE, collect));
        assertEquals(1, wheel.advance(Long.MIN_VALUE + 1, collect));
    }

    @Test
    void shouldAdvanceAcrossTheWholeLongRangeWithUnitTicks()
    {
        // tickShift 0 is a legal configuration; a watermark jump wider than 2^63 ticks must still terminate
        // (on failure the advance keeps spinning in a daemon thread: its entry is deliberately never freed)
        final TimerWheel wheel = wheel(0, 8);
        final long e = UnsafeApi.allocateMemory(24);
        wheel.advance(Long.MIN_VALUE + 2, collect);
        wheel.schedule(e, Long.MAX_VALUE);
        assertTimeoutPreemptively(Duration.ofSeconds(2), () -> wheel.advance(Long.MAX_VALUE - 1, collect));
        assertEquals(1, wheel.pending());
    }

    @Test
    void shouldExpireNegativeDeadlines()
    {
        final TimerWheel wheel = wheel(4, 16);
        final long e = entry();
        wheel.advance(-1000, collect);
        wheel.schedule(e, -500);
        assertEquals(0, wheel.advance(-500, collect));
        assertEquals(1, wheel.advance(-499, collect));
    }

    @Test
    void shouldRejectBadGeometry()
    {
        assertThrows(IllegalArgumentException.class, () -> wheel(-1, 8));
        assertThrows(IllegalArgumentException.class, () -> wheel(41, 8));
        assertThrows(IllegalArgumentException.class, () -> wheel(0, 6));
        assertThrows(IllegalArgumentException.class, () -> wheel(0, 0));
    }

    /**
     * The bounded advance against the unbounded one: the same random schedules and watermarks (small wheels, jumps
     * over whole turns, entries several turns ahead, deadlines next to the ends of the long range), a random budget;
     * the bounded wheel is driven until done, with entries scheduled at or above the watermark in between, and must
     * expire, in each watermark's calls, exactly the entries the unbounded one expires for it, never more than the
     * budget per call.
     */
    @Test
    void aBoundedAdvanceExpiresWhatTheUnboundedOneDoesABudgetAtATime()
    {
        final Random random = new Random(18);
        for (int round = 0; round < 300; round++)
        {
            final int tickShift = random.nextInt(3);
            final int slots = 1 << random.nextInt(1, 5);
            final TimerWheel whole = wheel(tickShift, slots);
            final TimerWheel bounded = wheel(tickShift, slots);
            final Map<Long, Long> twin = new HashMap<>();
            final Set<Long> wholeExpired = new HashSet<>();
            final Set<Long> boundedExpired = new HashSet<>();
            final long base = random.nextInt(10) == 0 ? Long.MAX_VALUE - 20_000 : random.nextInt(10) == 0 ? Long.MIN_VALUE + 1 : 0;
            long watermark = base;
            for (int step = 0; step < 40; step++)
            {
                for (int n = random.nextInt(6); n > 0; n--)
                {
                    final long deadline = watermark + random.nextInt(60);
                    final long a = entry();
                    final long b = entry();
                    twin.put(b, a);
                    whole.schedule(a, deadline);
                    bounded.schedule(b, deadline);
                }
                watermark += random.nextInt(10) == 0 ? random.nextInt(200) : random.nextInt(8);
                whole.advance(watermark, wholeExpired::add);
                final int budget = 1 + random.nextInt(4);
                final long target = watermark;
                while (true)
                {
                    final int before = boundedExpired.size();
                    final boolean done = bounded.advance(target, boundedExpired::add, budget);
                    assertTrue(boundedExpired.size() - before <= budget, "at most the budget per call");
                    if (done)
                    {
                        break;
                    }
                    if (random.nextBoolean())
                    {
                        // A row admitted in between: at or above the watermark, as schedule requires.
                        final long deadline = target + random.nextInt(40);
                        final long a = entry();
                        final long b = entry();
                        twin.put(b, a);
                        whole.schedule(a, deadline);
                        bounded.schedule(b, deadline);
                    }
                }
                final Set<Long> mapped = new HashSet<>();
                for (final long b : boundedExpired)
                {
                    mapped.add(twin.get(b));
                }
                assertEquals(wholeExpired, mapped, "round " + round + " step " + step);
                assertEquals(whole.pending(), bounded.pending());
            }
            assertEquals(whole.expireAll(wholeExpired::add), bounded.expireAll(boundedExpired::add));
        }
    }
}
