package io.junction.internal.time;

import io.junction.internal.state.NativeArena;
import io.junction.internal.state.Refs;
import org.agrona.UnsafeApi;

import java.nio.ByteBuffer;

/**
 * A hashed timing wheel of event-time deadlines, driven by the watermark, never by the wall clock.
 * Entries are off-heap records that carry their own links and deadline at offsets given to the
 * constructor (intrusive, so scheduling and cancelling allocate nothing and need no side table).
 * A slot covers {@code 2^tickShift} ms; entries whose deadline lies beyond one turn of the wheel
 * stay in their slot and are skipped until their turn comes.
 *
 * <p>Semantics: {@link #advance} expires, in no particular order, every entry whose deadline is
 * strictly below the watermark, i.e. the entries that the watermark has closed. An entry must be
 * scheduled with a deadline at or above the last watermark advanced to (an entry that is already
 * closed is the caller's to handle at once).
 *
 * <p>The links in the entries are stored relative to a base address ({@link Refs}: 0 in memory, a
 * durable state's mapping otherwise), and {@link #save}/{@link #load} carry the wheel's own fields
 * (slot heads, current tick, pending count) across a close and reopen of durable state.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public final class TimerWheel
{
    /** Called for each expired entry, after the entry is unlinked from the wheel. */
    @FunctionalInterface
    public interface ExpiryHandler
    {
        void onExpiry(long entry);
    }

    private final int tickShift;
    private final int mask;
    private final long[] slots;
    private final int prevOffset;
    private final int nextOffset;
    private final int deadlineOffset;
    private final long base;
    private boolean started;
    private long currentTick;
    private long pending;
    /**
     * A bounded {@link #advance(long, ExpiryHandler, int)} that walks every slot (a first advance, or a jump of a
     * turn or more): the next slot to walk, or -1 when none is under way.
     */
    private int scanSlot = -1;
    /** The limit (watermark - 1) the walk of every slot under way expires below. */
    private long scanLimit;

    /**
     * @param tickShift      log2 of the ms one slot covers, in [0, 40].
     * @param slotCount      slots in the wheel, a power of two.
     * @param prevOffset     offset in an entry of its 8-byte back link.
     * @param nextOffset     offset in an entry of its 8-byte forward link.
     * @param deadlineOffset offset in an entry of its 8-byte deadline.
     */
    public TimerWheel(
        final int tickShift, final int slotCount, final int prevOffset, final int nextOffset, final int deadlineOffset)
    {
        this(tickShift, slotCount, prevOffset, nextOffset, deadlineOffset, 0);
    }

    /**
     * @param tickShift      log2 of the ms one slot covers, in [0, 40].
     * @param slotCount      slots in the wheel, a power of two.
     * @param prevOffset     offset in an entry of its 8-byte back link.
     * @param nextOffset     offset in an entry of its 8-byte forward link.
     * @param deadlineOffset offset in an entry of its 8-byte deadline.
     * @param base           the address links are stored relative to ({@link Refs}).
     */
    public TimerWheel(
        final int tickShift, final int slotCount, final int prevOffset, final int nextOffset, final int deadlineOffset,
        final long base)
    {
        this.base = base;
        if (tickShift < 0 || tickShift > 40)
        {
            throw new IllegalArgumentException("tickShift must be in [0, 40]: " + tickShift);
        }
        if (slotCount < 1 || Integer.bitCount(slotCount) != 1)
        {
            throw new IllegalArgumentException("slotCount must be a power of two: " + slotCount);
        }
        this.tickShift = tickShift;
        this.mask = slotCount - 1;
        this.slots = new long[slotCount];
        this.prevOffset = prevOffset;
        this.nextOffset = nextOffset;
        this.deadlineOffset = deadlineOffset;
    }

    /** Links an entry with its deadline (ms of event time). */
    public void schedule(final long entry, final long deadline)
    {
        NativeArena.written(base, entry + deadlineOffset);
        UnsafeApi.putLong(entry + deadlineOffset, deadline);
        final int slot = (int)(deadline >> tickShift) & mask;
        final long head = slots[slot];
        NativeArena.written(base, entry + prevOffset);
        NativeArena.written(base, entry + nextOffset);
        UnsafeApi.putLong(entry + prevOffset, 0);
        UnsafeApi.putLong(entry + nextOffset, Refs.toStored(base, head));
        if (head != 0)
        {
            NativeArena.written(base, head + prevOffset);
            UnsafeApi.putLong(head + prevOffset, Refs.toStored(base, entry));
        }
        slots[slot] = entry;
        pending++;
    }

    /** Unlinks a scheduled entry before its deadline. */
    public void cancel(final long entry)
    {
        final long prevStored = UnsafeApi.getLong(entry + prevOffset);
        final long nextStored = UnsafeApi.getLong(entry + nextOffset);
        if (prevStored == 0)
        {
            slots[(int)(UnsafeApi.getLong(entry + deadlineOffset) >> tickShift) & mask] = Refs.toAddress(base, nextStored);
        }
        else
        {
            NativeArena.written(base, Refs.toAddress(base, prevStored) + nextOffset);
            UnsafeApi.putLong(Refs.toAddress(base, prevStored) + nextOffset, nextStored);
        }
        if (nextStored != 0)
        {
            NativeArena.written(base, Refs.toAddress(base, nextStored) + prevOffset);
            UnsafeApi.putLong(Refs.toAddress(base, nextStored) + prevOffset, prevStored);
        }
        pending--;
    }

    /**
     * Expires every entry whose deadline is below {@code watermark}.
     *
     * @return entries expired.
     */
    public long advance(final long watermark, final ExpiryHandler handler)
    {
        if (watermark == Long.MIN_VALUE)
        {
            return 0;
        }
        final long limit = watermark - 1;
        final long targetTick = limit >> tickShift;
        if (scanSlot >= 0)
        {
            // A bounded walk of every slot was under way: this advance walks every slot itself.
            scanSlot = -1;
            started = false;
        }
        if (started && targetTick < currentTick)
        {
            return 0;
        }
        long expired = 0;
        if (pending != 0)
        {
            final long ticks = targetTick - currentTick;
            // A negative difference is an overflow (ticks of 1 ms across the whole long range): scan all.
            if (!started || ticks >= slots.length || ticks < 0)
            {
                for (int slot = 0; slot < slots.length && pending != 0; slot++)
                {
                    expired += expireSlot(slot, limit, handler);
                }
            }
            else
            {
                for (long tick = currentTick; tick <= targetTick && pending != 0; tick++)
                {
                    expired += expireSlot((int)tick & mask, limit, handler);
                }
            }
        }
        started = true;
        currentTick = targetTick;
        return expired;
    }

    /**
     * As {@link #advance(long, ExpiryHandler)}, bounded: expires at most {@code budget} of the entries whose
     * deadline is below {@code watermark} and says whether any is left. Called again with the same or a higher
     * watermark it goes on where it stopped (a slot it stopped in is walked again from its head; an entry
     * scheduled in between, at or above the watermark as {@link #schedule} requires, is not expired early), so a
     * watermark's expiry can be spread over several calls with other work between them. An unbounded
     * {@link #advance(long, ExpiryHandler)}, {@link #expireAll} or {@link #save} in the middle finishes or keeps
     * the walk consistent: save is only called once a bounded advance has returned true.
     *
     * @param watermark the watermark, not below the last one given.
     * @param handler   called for each expired entry.
     * @param budget    the most entries to expire in this call, at least 1.
     * @return true when every entry below {@code watermark} has expired; false when the budget ran out first.
     */
    public boolean advance(final long watermark, final ExpiryHandler handler, final int budget)
    {
        if (watermark == Long.MIN_VALUE)
        {
            return true;
        }
        final long limit = watermark - 1;
        final long targetTick = limit >> tickShift;
        if (scanSlot < 0)
        {
            if (started && targetTick < currentTick)
            {
                return true;
            }
            final long ticks = targetTick - currentTick;
            if (pending != 0 && (!started || ticks >= slots.length || ticks < 0))
            {
                scanSlot = 0;
                scanLimit = limit;
            }
        }
        else if (limit != scanLimit)
        {
            // The target moved during a walk of every slot: the slots walked already are walked again up to it.
            scanSlot = 0;
            scanLimit = limit;
        }
        int left = budget;
        if (scanSlot >= 0)
        {
            while (scanSlot < slots.length && pending != 0)
            {
                final int expired = expireSlot(scanSlot, limit, handler, left);
                if (expired < 0)
                {
                    return false;
                }
                left -= expired;
                scanSlot++;
            }
            scanSlot = -1;
        }
        else
        {
            for (long tick = currentTick; tick <= targetTick && pending != 0; tick++)
            {
                final int expired = expireSlot((int)tick & mask, limit, handler, left);
                if (expired < 0)
                {
                    // Resumed at this tick: its slot is walked again, the ones before it are done up to the limit.
                    started = true;
                    currentTick = tick;
                    return false;
                }
                left -= expired;
            }
        }
        started = true;
        currentTick = targetTick;
        return true;
    }

    /**
     * Expires every entry whatever its deadline: the end of input.
     *
     * @return entries expired.
     */
    public long expireAll(final ExpiryHandler handler)
    {
        scanSlot = -1;
        long expired = 0;
        for (int slot = 0; slot < slots.length && pending != 0; slot++)
        {
            expired += expireSlot(slot, Long.MAX_VALUE, handler);
        }
        return expired;
    }

    /**
     * Hands every pending entry to {@code visitor} without unlinking it; the visitor must neither
     * schedule nor cancel entries of this wheel.
     *
     * @return entries visited.
     */
    public long visitAll(final ExpiryHandler visitor)
    {
        long visited = 0;
        for (int slot = 0; slot < slots.length; slot++)
        {
            for (long entry = slots[slot]; entry != 0; entry = Refs.toAddress(base, UnsafeApi.getLong(entry + nextOffset)))
            {
                visitor.onExpiry(entry);
                visited++;
            }
        }
        return visited;
    }

    /**
     * @return a pending entry with the earliest deadline (to within one slot once the wheel has been
     *         advanced: the first entry of this turn in the first slot that has one), or 0 when none is
     *         pending. Walks at most one turn of slots, or every entry before the first advance.
     */
    public long earliest()
    {
        if (pending == 0)
        {
            return 0;
        }
        if (started)
        {
            for (int i = 0; i < slots.length; i++)
            {
                final long tick = currentTick + i;
                for (long entry = slots[(int)tick & mask]; entry != 0; entry = Refs.toAddress(base, UnsafeApi.getLong(entry + nextOffset)))
                {
                    if (UnsafeApi.getLong(entry + deadlineOffset) >> tickShift == tick)
                    {
                        return entry;
                    }
                }
            }
        }
        long best = 0;
        long bestDeadline = Long.MAX_VALUE;
        for (int slot = 0; slot < slots.length; slot++)
        {
            for (long entry = slots[slot]; entry != 0; entry = Refs.toAddress(base, UnsafeApi.getLong(entry + nextOffset)))
            {
                final long deadline = UnsafeApi.getLong(entry + deadlineOffset);
                if (best == 0 || deadline < bestDeadline)
                {
                    best = entry;
                    bestDeadline = deadline;
                }
            }
        }
        return best;
    }

    /** @return bytes {@link #save} writes. */
    public int savedLength()
    {
        return 1 + 8 + 8 + 4 + slots.length * 8;
    }

    /** Writes the wheel's own fields, its slot heads as stored references. */
    public void save(final ByteBuffer out)
    {
        out.put((byte)(started ? 1 : 0));
        out.putLong(currentTick);
        out.putLong(pending);
        out.putInt(slots.length);
        for (final long head : slots)
        {
            out.putLong(Refs.toStored(base, head));
        }
    }

    /**
     * Reads what {@link #save} wrote, onto this wheel of the same geometry.
     *
     * @throws IllegalStateException when the saved wheel has another slot count.
     */
    public void load(final ByteBuffer in)
    {
        started = in.get() != 0;
        currentTick = in.getLong();
        pending = in.getLong();
        final int count = in.getInt();
        if (count != slots.length)
        {
            throw new IllegalStateException("saved wheel has " + count + " slots, this one " + slots.length);
        }
        for (int i = 0; i < count; i++)
        {
            slots[i] = Refs.toAddress(base, in.getLong());
        }
    }

    /** @return entries scheduled and not yet expired or cancelled. */
    public long pending()
    {
        return pending;
    }

    private long expireSlot(final int slot, final long limit, final ExpiryHandler handler)
    {
        long expired = 0;
        long entry = slots[slot];
        while (entry != 0)
        {
            final long next = Refs.toAddress(base, UnsafeApi.getLong(entry + nextOffset));
            if (UnsafeApi.getLong(entry + deadlineOffset) <= limit)
            {
                cancel(entry);
                expired++;
                handler.onExpiry(entry);
            }
            entry = next;
        }
        return expired;
    }

    /**
     * @return the entries of the slot at or below {@code limit} that it expired, all of them; -1 when it stopped
     *         at one more than {@code max} (expiring {@code max} first).
     */
    private int expireSlot(final int slot, final long limit, final ExpiryHandler handler, final int max)
    {
        int expired = 0;
        long entry = slots[slot];
        while (entry != 0)
        {
            final long next = Refs.toAddress(base, UnsafeApi.getLong(entry + nextOffset));
            if (UnsafeApi.getLong(entry + deadlineOffset) <= limit)
            {
                if (expired == max)
                {
                    return -1;
                }
                cancel(entry);
                expired++;
                handler.onExpiry(entry);
            }
            entry = next;
        }
        return expired;
    }
}
