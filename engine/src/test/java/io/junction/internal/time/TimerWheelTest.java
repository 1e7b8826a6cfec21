package io.junction.internal.time;

import io.junction.internal.memory.WriteMarks;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
    void aWheelOverDurableMemoryAnnouncesEveryStoreBeforeMakingItAndIsRefusedWithoutItsBarrier()
    {
        final int words = 16;
        final long block = UnsafeApi.allocateMemory(words * 8L);
        UnsafeApi.setMemory(block, words * 8L, (byte)0);
        allocated.add(block);
        assertThrows(IllegalArgumentException.class, () -> new TimerWheel(4, 16, PREV, NEXT, DEADLINE, block, WriteMarks.NONE));
        assertThrows(IllegalArgumentException.class, () -> new TimerWheel(4, 16, PREV, NEXT, DEADLINE, block, null));
        // the value each address held when it was first announced: a store before its mark would show here
        final Map<Long, Long> atFirstMark = new HashMap<>();
        final TimerWheel wheel = new TimerWheel(4, 16, PREV, NEXT, DEADLINE, block, (base, address) ->
        {
            assertEquals(block, base);
            atFirstMark.putIfAbsent(address, UnsafeApi.getLong(address));
        });
        // entries after the first word: a stored reference 0 means none
        final long a = block + 24;
        final long b = block + 48;
        final long c = block + 72;
        final long d = block + 96;
        wheel.schedule(a, 100);
        wheel.schedule(b, 100);
        wheel.schedule(c, 90);
        wheel.schedule(d, 100);
        wheel.cancel(b);
        wheel.advance(101, collect);
        assertEquals(Set.of(a, c, d), expired);
        int changed = 0;
        for (long address = block; address < block + words * 8L; address += 8)
        {
            if (UnsafeApi.getLong(address) != 0)
            {
                changed++;
                assertTrue(atFirstMark.containsKey(address), "a store at +" + (address - block) + " was not announced");
                assertEquals(0L, atFirstMark.get(address), "the store at +" + (address - block) + " came before its mark");
            }
        }
        assertTrue(changed >= 4, "the entries' deadlines and links were stored: " + changed);
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

    /** Entries of one slot fire in deadline order, equal deadlines in the order they were scheduled; slots in tick order. */
    @Test
    void expiresASlotInDeadlineOrderTiesInScheduleOrder()
    {
        final TimerWheel wheel = wheel(4, 16);
        final long[] deadlines = {5, 3, 9, 3, 0, 15, 7, 3, 20, 17};
        final long[] entries = new long[deadlines.length];
        for (int i = 0; i < deadlines.length; i++)
        {
            entries[i] = entry();
            wheel.schedule(entries[i], deadlines[i]);
        }
        assertTrue(wheel.sorted(0) && wheel.sorted(1));
        final List<Long> order = new ArrayList<>();
        assertEquals(deadlines.length, wheel.advance(100, order::add));
        assertEquals(List.of(entries[4], entries[1], entries[3], entries[7], entries[0], entries[6], entries[2], entries[5],
            entries[9], entries[8]), order);
    }

    /**
     * A watermark inside a slot expires its due head entries and stops at the first one not due: the slot's not-due
     * entries (and those of later turns, at its end) are read once per advance, not walked again.
     */
    @Test
    void anAdvanceStopsAtTheSlotsFirstEntryNotDue()
    {
        final TimerWheel wheel = wheel(10, 16);
        final List<Long> entries = new ArrayList<>();
        for (int ts = 0; ts < 1024; ts++)
        {
            final long e = entry();
            entries.add(e);
            wheel.schedule(e, ts);
        }
        final long later = entry();
        wheel.schedule(later, 16 * 1024 + 5);
        final List<Long> order = new ArrayList<>();
        wheel.advance(0, order::add);
        long examinedBefore = wheel.examined();
        for (int w = 100; w <= 1000; w += 100)
        {
            final int before = order.size();
            wheel.advance(w, order::add);
            assertEquals(w, order.size(), "every entry below " + w);
            assertEquals(w - before + 1, wheel.examined() - examinedBefore, "the due ones and the first not due");
            examinedBefore = wheel.examined();
        }
        assertEquals(entries.subList(0, 1000), order);
        wheel.advance(16 * 1024, order::add);
        assertEquals(entries, order);
        assertEquals(1, wheel.pending());
        assertEquals(1, wheel.advance(16 * 1024 + 6, order::add));
        assertEquals(later, order.get(order.size() - 1));
    }

    /**
     * A slot whose entries come in far out of order stops being sorted (the look-back from its tail gives up): its
     * advance then walks the whole slot and still expires exactly the due entries; empty again, it is sorted again.
     */
    @Test
    void aSlotOutOfOrderIsWalkedWholeAndSortedAgainOnceEmpty()
    {
        final TimerWheel wheel = wheel(10, 4);
        final int count = TimerWheel.SORT_STEPS * 3;
        for (int i = 0; i < count; i++)
        {
            wheel.schedule(entry(), 1000 - i);
        }
        assertFalse(wheel.sorted(0), "descending deadlines beyond the look-back");
        assertEquals(0, wheel.advance(1000 - count + 1, collect));
        final long before = wheel.examined();
        assertEquals(10, wheel.advance(1000 - count + 11, collect));
        assertEquals(count, wheel.examined() - before, "the whole slot is walked");
        for (final long e : expired)
        {
            assertTrue(UnsafeApi.getLong(e + DEADLINE) < 1000 - count + 11);
        }
        assertEquals(count - 10, wheel.advance(1001, collect));
        assertTrue(wheel.sorted(0), "empty, the slot is sorted again");
        final long a = entry();
        final long b = entry();
        wheel.schedule(b, 1500);
        wheel.schedule(a, 1400);
        assertTrue(wheel.sorted(0) || wheel.sorted(1));
        final List<Long> order = new ArrayList<>();
        wheel.advance(2000, order::add);
        assertEquals(List.of(a, b), order);
    }

    /** Cancelling the head, a middle entry and the tail keeps a sorted slot's order and its tail right. */
    @Test
    void cancelKeepsTheSlotsOrderAndTail()
    {
        final TimerWheel wheel = wheel(6, 2);
        final long[] e = new long[6];
        for (int i = 0; i < e.length; i++)
        {
            e[i] = entry();
            wheel.schedule(e[i], i * 10);
        }
        wheel.cancel(e[0]);
        wheel.cancel(e[3]);
        wheel.cancel(e[5]);
        final long f = entry();
        wheel.schedule(f, 45);
        final long g = entry();
        wheel.schedule(g, 15);
        final List<Long> order = new ArrayList<>();
        wheel.advance(64, order::add);
        assertEquals(List.of(e[1], g, e[2], e[4], f), order);
        assertEquals(0, wheel.pending());
    }

    /**
     * Bounded advances across turns: entries of the same slot one, two and three turns ahead fire a budget of one at
     * a time in deadline order, each only once its turn has come.
     */
    @Test
    void boundedAdvancesAcrossTurnsFireInOrderOnlyInTheirTurn()
    {
        final TimerWheel wheel = wheel(2, 4);
        final long turn = 16;
        final List<Long> all = new ArrayList<>();
        for (int t = 0; t < 4; t++)
        {
            for (int k = 0; k < 3; k++)
            {
                final long e = entry();
                all.add(e);
                wheel.schedule(e, t * turn + 1 + k);
            }
        }
        final List<Long> order = new ArrayList<>();
        for (int t = 0; t < 4; t++)
        {
            int calls = 0;
            while (!wheel.advance(t * turn + 5, order::add, 1))
            {
                calls++;
                assertTrue(calls <= 3, "one entry per call");
            }
            assertEquals(all.subList(0, 3 * (t + 1)), order, "turn " + t);
            assertEquals(3 * (3 - t), wheel.pending());
        }
    }

    /** save then load, at a buffer position past other data, carries heads, tails, order and unsorted flags. */
    @Test
    void saveAndLoadCarryTheSlotsTheirOrderAndFlags()
    {
        final TimerWheel wheel = wheel(4, 8);
        final List<Long> inOrder = new ArrayList<>();
        for (int i = 0; i < 20; i++)
        {
            final long e = entry();
            inOrder.add(e);
            wheel.schedule(e, 100 + i);
        }
        for (int k = TimerWheel.SORT_STEPS + 3; k >= 0; k--)
        {
            // Slot 4, each a turn (128 ms) before the one scheduled before it: past the look-back, slot 4 is unsorted.
            wheel.schedule(entry(), 64 + 128L * k);
        }
        assertFalse(wheel.sorted(4));
        wheel.advance(64, collect);
        final ByteBuffer out = ByteBuffer.allocate(7 + wheel.savedLength() + 3);
        out.put(new byte[7]);
        wheel.save(out);
        // Version 3: only slots 4 (the unsorted one), 6 and 7 are in use, so only they are written.
        assertEquals(3, out.getInt(7 + TimerWheelImage.USED_SLOTS_OFFSET));
        assertEquals(7 + TimerWheelImage.length(3), out.position());
        assertEquals(TimerWheelImage.VERSION, out.getInt(7 + TimerWheelImage.VERSION_OFFSET));
        assertEquals(8, out.getInt(7 + TimerWheelImage.SLOT_COUNT_OFFSET));
        final TimerWheel copy = wheel(4, 8);
        final ByteBuffer in = ByteBuffer.wrap(out.array());
        in.position(7);
        copy.load(in);
        assertEquals(7 + TimerWheelImage.length(3), in.position());
        assertEquals(wheel.pending(), copy.pending());
        for (int slot = 0; slot < 8; slot++)
        {
            assertEquals(wheel.sorted(slot), copy.sorted(slot));
        }
        final List<Long> order = new ArrayList<>();
        copy.advance(80, collect);
        final long later = entry();
        copy.schedule(later, 119);
        copy.advance(190, order::add);
        assertFalse(copy.sorted(4));
        final List<Long> expected = new ArrayList<>(inOrder);
        expected.add(later);
        assertEquals(expected, order);
        for (final int version : new int[] {1, 4})
        {
            final ByteBuffer bad = ByteBuffer.wrap(out.array().clone());
            bad.putInt(7 + TimerWheelImage.VERSION_OFFSET, version);
            bad.position(7);
            assertThrows(IllegalStateException.class, () -> wheel(4, 8).load(bad), "version " + version);
        }
    }

    /**
     * A slot emptied since the last image (expired, cancelled) is left out of the next, and one scheduled into again
     * is back in it; a loaded wheel's image lists what it loaded: the walk of the touched slots finds exactly the
     * slots in use, in increasing order, as the walk of every slot did.
     */
    @Test
    void anImageListsExactlyTheSlotsInUseAfterTheyEmptyAndFillAgain()
    {
        final TimerWheel wheel = wheel(0, 4096);
        final long early = entry();
        final long cancelled = entry();
        final long late = entry();
        wheel.schedule(early, 10);
        wheel.schedule(cancelled, 70);
        wheel.schedule(late, 4000);
        assertEquals(List.of(10, 70, 4000), usedSlots(wheel));
        wheel.advance(11, collect);
        wheel.cancel(cancelled);
        assertEquals(List.of(4000), usedSlots(wheel), "the expired slot and the cancelled one are out");
        wheel.schedule(entry(), 70 + 4096);
        wheel.schedule(entry(), 130);
        assertEquals(List.of(70, 130, 4000), usedSlots(wheel), "in increasing slot order, not schedule order");
        final ByteBuffer out = ByteBuffer.allocate(wheel.savedLength());
        wheel.save(out);
        final TimerWheel copy = wheel(0, 4096);
        copy.load(ByteBuffer.wrap(out.array()));
        assertEquals(List.of(70, 130, 4000), usedSlots(copy), "a loaded wheel's slots are in its image");
        assertEquals(3, copy.advance(Long.MAX_VALUE - 1, collect));
        assertEquals(List.of(), usedSlots(copy));
    }

    /**
     * A wheel whose event time runs through every slot between two images (W1 at 350k events/s) keeps the in-use
     * bit of the slots still in use only, with no image taken to clear the others: each expiry (whole or bounded)
     * and each cancel that empties a slot clears its bit, so that the next cut walks a few slots, not 4,096.
     */
    @Test
    void aSlotLosesItsInUseBitWhenItsLastEntryLeavesWithNoImageTaken()
    {
        final TimerWheel wheel = wheel(0, 4096);
        for (long deadline = 0; deadline < 4096; deadline++)
        {
            wheel.schedule(entry(), deadline);
            wheel.schedule(entry(), deadline);
        }
        assertEquals(4096, wheel.slotsMarkedInUse());
        assertEquals(2 * 3000, wheel.advance(3000, collect));
        assertEquals(1096, wheel.slotsMarkedInUse(), "an expired slot's bit is cleared by the expiry");
        assertFalse(wheel.advance(4000, collect, 7), "a bounded advance stopped by its budget");
        assertEquals(1096 - 3, wheel.slotsMarkedInUse(), "three slots emptied, the fourth holds one entry still");
        assertTrue(wheel.advance(4000, collect, 1_000_000));
        assertEquals(96, wheel.slotsMarkedInUse());
        final long kept = entry();
        final long cancelled = entry();
        wheel.schedule(kept, 4096 + 20);
        wheel.schedule(cancelled, 4096 + 10);
        assertEquals(98, wheel.slotsMarkedInUse(), "slots 20 and 10, of the next turn");
        wheel.cancel(cancelled);
        assertEquals(97, wheel.slotsMarkedInUse(), "the cancel emptied slot 10");
        assertEquals(97, usedSlots(wheel).size(), "the image lists the slots in use, the bits say which");
    }

    /**
     * A cut's copy of the wheel ({@link TimerWheel#copyTo}) encodes to the bytes {@link TimerWheel#save} writes at the
     * cut, sparse and dense, and keeps them while the wheel goes on (schedules, expiries) before the writer encodes it.
     */
    @Test
    void aCopyEncodesTheImageOfTheWheelAtTheCopyWhateverTheWheelDoesAfter()
    {
        final TimerWheel wheel = wheel(0, 64);
        wheel.schedule(entry(), 3);
        wheel.schedule(entry(), 40);
        wheel.advance(2, collect);
        final TimerWheelCopy copy = wheel.newCopy();
        wheel.copyTo(copy);
        final byte[] atCut = image(wheel::save, wheel.savedLength());
        wheel.advance(10, collect);
        wheel.schedule(entry(), 50);
        assertArrayEquals(atCut, image(copy::save, wheel.savedLength()), "the sparse image of the wheel at the copy");
        for (long deadline = 64; deadline < 128; deadline++)
        {
            wheel.schedule(entry(), deadline);
        }
        wheel.copyTo(copy);
        final byte[] dense = image(wheel::save, wheel.savedLength());
        assertEquals(TimerWheelImage.VERSION_DENSE, ByteBuffer.wrap(dense).getInt(TimerWheelImage.VERSION_OFFSET));
        wheel.advance(100, collect);
        assertArrayEquals(dense, image(copy::save, wheel.savedLength()), "the dense image of the wheel at the copy");
        assertThrows(IllegalArgumentException.class, () -> wheel.copyTo(wheel(0, 128).newCopy()), "another wheel's copy");
    }

    /** @return the bytes {@code save} writes into a buffer of {@code room}. */
    private static byte[] image(final Consumer<ByteBuffer> save, final int room)
    {
        final ByteBuffer out = ByteBuffer.allocate(room);
        save.accept(out);
        return Arrays.copyOf(out.array(), out.position());
    }

    /** @return the slots the wheel's version 3 image lists. */
    private static List<Integer> usedSlots(final TimerWheel wheel)
    {
        final ByteBuffer out = ByteBuffer.allocate(wheel.savedLength());
        wheel.save(out);
        assertEquals(TimerWheelImage.VERSION, out.getInt(TimerWheelImage.VERSION_OFFSET));
        final List<Integer> slots = new ArrayList<>();
        for (int u = 0; u < out.getInt(TimerWheelImage.USED_SLOTS_OFFSET); u++)
        {
            slots.add(out.getInt(TimerWheelImage.usedSlotOffset(u) + TimerWheelImage.SLOT_INDEX_OFFSET));
        }
        return slots;
    }

    /**
     * The sparse image (version 3) of an empty wheel is its fixed fields alone, whatever its slot count, and
     * {@link TimerWheel#savedLength()} is the most it may take; a loaded empty image empties a wheel that held entries.
     */
    @Test
    void anEmptyWheelsImageIsItsFixedFieldsAlone()
    {
        final TimerWheel empty = wheel(4, 4096);
        assertEquals(TimerWheelImage.maxLength(4096), empty.savedLength());
        final ByteBuffer out = ByteBuffer.allocate(empty.savedLength());
        empty.save(out);
        assertEquals(TimerWheelImage.length(0), out.position());
        assertEquals(29, out.position());
        final TimerWheel full = wheel(4, 4096);
        full.schedule(entry(), 100);
        full.advance(50, collect);
        final ByteBuffer in = ByteBuffer.wrap(out.array());
        full.load(in);
        assertEquals(0, full.pending());
        assertEquals(0, full.advance(1_000_000L, collect), "no slot kept an entry");
    }

    /**
     * A version 2 image (dense: every slot's head, tail and flag), as an earlier build wrote it, is still read: the
     * wheel loaded from it expires the same entries in the same order as the one loaded from version 3.
     */
    @Test
    void aDenseVersionTwoImageIsStillRead()
    {
        final Random random = new Random(18);
        for (int round = 0; round < 50; round++)
        {
            final int slots = 1 << random.nextInt(1, 7);
            final TimerWheel wheel = wheel(2, slots);
            for (int i = 0; i < random.nextInt(40); i++)
            {
                wheel.schedule(entry(), 10 + random.nextInt(4 * slots * 4));
            }
            wheel.advance(10, collect);
            final ByteBuffer sparse = ByteBuffer.allocate(wheel.savedLength());
            wheel.save(sparse);
            // A small wheel with nearly every slot in use writes the dense image itself.
            final ByteBuffer dense = sparse.getInt(TimerWheelImage.VERSION_OFFSET) == TimerWheelImage.VERSION_DENSE ? sparse
                : dense(sparse, slots);
            final TimerWheel fromSparse = wheel(2, slots);
            final TimerWheel fromDense = wheel(2, slots);
            fromSparse.load(ByteBuffer.wrap(sparse.array()));
            final ByteBuffer denseIn = ByteBuffer.wrap(dense.array());
            fromDense.load(denseIn);
            assertEquals(TimerWheelImage.denseLength(slots), denseIn.position());
            assertEquals(fromSparse.pending(), fromDense.pending());
            final List<Long> a = new ArrayList<>();
            final List<Long> b = new ArrayList<>();
            fromSparse.advance(1_000_000L, a::add);
            fromDense.advance(1_000_000L, b::add);
            assertEquals(a, b, "round " + round);
        }
    }

    /**
     * A version 3 image whose used slots are more than the wheel's, out of range, repeated or out of order is
     * refused before anything changes: the wheel keeps its entries.
     */
    @Test
    void aSparseImageWithBadSlotsIsRefusedAndChangesNothing()
    {
        final TimerWheel wheel = wheel(4, 8);
        wheel.schedule(entry(), 20);
        wheel.schedule(entry(), 40);
        final ByteBuffer image = ByteBuffer.allocate(wheel.savedLength());
        wheel.save(image);
        assertEquals(2, image.getInt(TimerWheelImage.USED_SLOTS_OFFSET));
        final int second = TimerWheelImage.usedSlotOffset(1) + TimerWheelImage.SLOT_INDEX_OFFSET;
        final ByteBuffer tooMany = ByteBuffer.wrap(image.array().clone()).putInt(TimerWheelImage.USED_SLOTS_OFFSET, 9);
        final ByteBuffer negative = ByteBuffer.wrap(image.array().clone()).putInt(TimerWheelImage.USED_SLOTS_OFFSET, -1);
        final ByteBuffer outOfRange = ByteBuffer.wrap(image.array().clone()).putInt(second, 8);
        final ByteBuffer repeated = ByteBuffer.wrap(image.array().clone()).putInt(second, image.getInt(TimerWheelImage.USED_OFFSET));
        final ByteBuffer outOfOrder = ByteBuffer.wrap(image.array().clone()).putInt(TimerWheelImage.USED_OFFSET + TimerWheelImage.SLOT_INDEX_OFFSET, 7);
        for (final ByteBuffer bad : new ByteBuffer[] {tooMany, negative, outOfRange, repeated, outOfOrder})
        {
            final TimerWheel target = wheel(4, 8);
            target.schedule(entry(), 30);
            bad.position(0);
            assertThrows(IllegalStateException.class, () -> target.load(bad));
            assertEquals(1, target.pending(), "unchanged");
            assertEquals(1, target.advance(1_000_000L, collect));
        }
    }

    /**
     * A wheel with nearly every slot in use writes the dense version 2 (the shorter image), and one with most slots in
     * use but few enough the sparse one; both load back to a wheel that expires the same entries in the same order.
     */
    @Test
    void aNearlyFullWheelWritesTheShorterDenseImage()
    {
        for (final int used : new int[] {64, 50, 52, 53})
        {
            final TimerWheel wheel = wheel(0, 64);
            for (int slot = 0; slot < used; slot++)
            {
                wheel.schedule(entry(), 10 + slot);
            }
            final ByteBuffer out = ByteBuffer.allocate(wheel.savedLength());
            wheel.save(out);
            final boolean dense = TimerWheelImage.length(used) > TimerWheelImage.denseLength(64);
            assertEquals(dense ? TimerWheelImage.VERSION_DENSE : TimerWheelImage.VERSION, out.getInt(TimerWheelImage.VERSION_OFFSET));
            assertEquals(dense ? TimerWheelImage.denseLength(64) : TimerWheelImage.length(used), out.position());
            final TimerWheel copy = wheel(0, 64);
            copy.load(ByteBuffer.wrap(out.array()));
            final List<Long> a = new ArrayList<>();
            final List<Long> b = new ArrayList<>();
            wheel.advance(1000, a::add);
            copy.advance(1000, b::add);
            assertEquals(used, a.size());
            assertEquals(a, b, used + " slots in use");
        }
    }

    /** The version 2 (dense) image of the wheel whose version 3 image {@code sparse} is, as an earlier build wrote it. */
    private static ByteBuffer dense(final ByteBuffer sparse, final int slots)
    {
        final ByteBuffer dense = ByteBuffer.allocate(TimerWheelImage.denseLength(slots));
        dense.putInt(TimerWheelImage.VERSION_OFFSET, TimerWheelImage.VERSION_DENSE);
        dense.put(TimerWheelImage.STARTED_OFFSET, sparse.get(TimerWheelImage.STARTED_OFFSET));
        dense.putLong(TimerWheelImage.CURRENT_TICK_OFFSET, sparse.getLong(TimerWheelImage.CURRENT_TICK_OFFSET));
        dense.putLong(TimerWheelImage.PENDING_OFFSET, sparse.getLong(TimerWheelImage.PENDING_OFFSET));
        dense.putInt(TimerWheelImage.SLOT_COUNT_OFFSET, slots);
        final int used = sparse.getInt(TimerWheelImage.USED_SLOTS_OFFSET);
        for (int u = 0; u < used; u++)
        {
            final int at = TimerWheelImage.usedSlotOffset(u);
            final int slot = sparse.getInt(at + TimerWheelImage.SLOT_INDEX_OFFSET);
            dense.putLong(TimerWheelImage.DENSE_HEADS_OFFSET + slot * Long.BYTES, sparse.getLong(at + TimerWheelImage.SLOT_HEAD_OFFSET));
            dense.putLong(TimerWheelImage.denseTailsOffset(slots) + slot * Long.BYTES, sparse.getLong(at + TimerWheelImage.SLOT_TAIL_OFFSET));
            dense.put(TimerWheelImage.denseUnsortedOffset(slots) + slot, sparse.get(at + TimerWheelImage.SLOT_UNSORTED_OFFSET));
        }
        return dense;
    }

    /**
     * Against a brute-force model (a list of pending entries): random schedules (mostly in increasing deadline, as
     * rows come, some far out of order, some turns ahead), cancels, unbounded and bounded advances and a save and
     * load in between. Each advance expires exactly the entries below the watermark; with deadlines scheduled in
     * order and within a turn, in deadline order, ties in schedule order.
     */
    @Test
    void matchesABruteForceModelUnderRandomScheduleCancelAndAdvance()
    {
        final Random random = new Random(24);
        for (int round = 0; round < 300; round++)
        {
            final int tickShift = random.nextInt(4);
            final int slots = 1 << random.nextInt(1, 6);
            final boolean ordered = random.nextBoolean();
            TimerWheel wheel = wheel(tickShift, slots);
            final List<long[]> model = new ArrayList<>();
            long watermark = 0;
            long previousWatermark = 0;
            long lastDeadline = 0;
            long sequence = 0;
            for (int step = 0; step < 60; step++)
            {
                for (int n = random.nextInt(8); n > 0; n--)
                {
                    final long deadline;
                    if (ordered)
                    {
                        deadline = Math.max(watermark, lastDeadline + random.nextInt(3));
                    }
                    else
                    {
                        deadline = watermark + (random.nextInt(8) == 0 ? random.nextInt(2000) : random.nextInt(40));
                    }
                    lastDeadline = deadline;
                    final long e = entry();
                    wheel.schedule(e, deadline);
                    model.add(new long[] {e, deadline, sequence++});
                }
                if (!model.isEmpty() && random.nextInt(4) == 0)
                {
                    final long[] victim = model.remove(random.nextInt(model.size()));
                    wheel.cancel(victim[0]);
                }
                if (random.nextInt(10) == 0)
                {
                    final ByteBuffer image = ByteBuffer.allocate(wheel.savedLength());
                    wheel.save(image);
                    image.flip();
                    wheel = wheel(tickShift, slots);
                    wheel.load(image);
                }
                previousWatermark = watermark;
                watermark += random.nextInt(12) == 0 ? random.nextInt(300) : random.nextInt(6);
                final List<Long> fired = new ArrayList<>();
                if (random.nextBoolean())
                {
                    wheel.advance(watermark, fired::add);
                }
                else
                {
                    final int budget = 1 + random.nextInt(3);
                    while (!wheel.advance(watermark, fired::add, budget))
                    {
                        assertTrue(fired.size() <= model.size());
                    }
                }
                final List<long[]> due = new ArrayList<>();
                for (int i = model.size() - 1; i >= 0; i--)
                {
                    if (model.get(i)[1] < watermark)
                    {
                        due.add(model.remove(i));
                    }
                }
                final Set<Long> dueEntries = new HashSet<>();
                for (final long[] d : due)
                {
                    dueEntries.add(d[0]);
                }
                assertEquals(dueEntries, new HashSet<>(fired), "round " + round + " step " + step);
                assertEquals(due.size(), fired.size());
                assertEquals(model.size(), wheel.pending());
                if (ordered && ((watermark - 1) >> tickShift) - ((previousWatermark - 1) >> tickShift) < slots)
                {
                    due.sort((x, y) -> x[1] != y[1] ? Long.compare(x[1], y[1]) : Long.compare(x[2], y[2]));
                    final List<Long> expected = new ArrayList<>();
                    for (final long[] d : due)
                    {
                        expected.add(d[0]);
                    }
                    assertEquals(expected, fired, "deadline order, round " + round + " step " + step);
                }
            }
            assertEquals(model.size(), wheel.expireAll(collect));
        }
    }
}
