package io.junction.internal.time;

import io.junction.internal.memory.HeapPart;
import io.junction.internal.memory.Refs;
import io.junction.internal.memory.WriteMarks;
import org.agrona.UnsafeApi;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A hashed timing wheel of event-time deadlines, driven by the watermark, never by the wall clock.
 * Entries are off-heap records that carry their own links and deadline at offsets given to the
 * constructor (intrusive, so scheduling and cancelling allocate nothing and need no side table).
 * A slot covers {@code 2^tickShift} ms; entries whose deadline lies beyond one turn of the wheel
 * stay in their slot until their turn comes.
 *
 * <p>Semantics: {@link #advance} expires every entry whose deadline is strictly below the watermark, i.e. the
 * entries that the watermark has closed: slot by slot in tick order, within a slot in deadline order (entries of
 * equal deadline in the order they were scheduled) while the slot is sorted. An entry must be scheduled with a
 * deadline at or above the last watermark advanced to (an entry that is already closed is the caller's to handle
 * at once).
 *
 * <p>Each slot is a doubly linked list kept in deadline order: {@link #schedule} links an entry after the last
 * one whose deadline is not above its own, looking back from the slot's tail at most {@link #SORT_STEPS}
 * entries (rows arrive in nearly increasing event time, so the tail is the place almost always). An advance then
 * stops in a slot at its first entry not due, so the not-due entries of the current slot (and those of later
 * turns, at its end) are not walked again at every watermark. When the look-back gives up, the entry goes to the
 * tail and the slot is marked unsorted: until it is empty again, an advance walks all of it and skips what is not
 * due, as an unordered wheel does.
 * <pre>
 * slot s:  head -&gt; e1 -&gt; e2 -&gt; ... -&gt; tail     deadline(e1) &lt;= deadline(e2) &lt;= ...   (unless unsorted[s])
 * advance: for each tick from current to the watermark's: expire from the head while deadline &lt;= limit
 * </pre>
 *
 * <p>The links in the entries are stored relative to a base address ({@link Refs}: 0 in memory, a
 * durable state's mapping otherwise), and {@link #save}/{@link #load} carry the wheel's own fields
 * (slot heads and tails, unsorted flags, current tick, pending count) across a close and reopen of durable
 * state, as {@link TimerWheelImage} draws them.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public final class TimerWheel implements HeapPart
{
    /** The most entries {@link #schedule} looks back past from a slot's tail before it gives up sorting the slot. */
    public static final int SORT_STEPS = 16;

    /** Called for each expired entry, after the entry is unlinked from the wheel. */
    @FunctionalInterface
    public interface ExpiryHandler
    {
        void onExpiry(long entry);
    }

    private final int tickShift;
    private final int mask;
    /** Each slot's first entry (address), 0 when empty. */
    private final long[] heads;
    /** Each slot's last entry (address), 0 when empty. */
    private final long[] tails;
    /** Whether a slot's list is out of deadline order (a schedule gave up sorting it); cleared when it empties. */
    private final boolean[] unsorted;
    /**
     * A bit per slot, set by each {@link #schedule} into it (one OR, no branch) and by a {@link #load}, cleared
     * where the slot's last entry leaves it (an expiry or a cancel that empties it: once per slot emptied, not per
     * entry): the bit is set exactly for the slots in use, so that a checkpoint's cut walks those alone. A wheel
     * whose event time runs through every slot between two cuts (W1 at 350k events/s) has a few dozen in use at
     * a cut; when the bits were cleared by the cut itself, it walked all 4,096 there, in the interpreter
     * (a loop that runs once a second is not compiled within the first minutes): 0.3-2.3 ms of its pause.
     */
    private final long[] touched;
    private final int prevOffset;
    private final int nextOffset;
    private final int deadlineOffset;
    private final long base;
    /** The durable state's write barrier, handed in by the state (NONE in memory). */
    private final WriteMarks marks;
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
    /** Entries whose deadline an expiry walk has read, in all (tests: what a walk costs). */
    private long examined;

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
        this(tickShift, slotCount, prevOffset, nextOffset, deadlineOffset, 0, WriteMarks.NONE);
    }

    /**
     * @param tickShift      log2 of the ms one slot covers, in [0, 40].
     * @param slotCount      slots in the wheel, a power of two.
     * @param prevOffset     offset in an entry of its 8-byte back link.
     * @param nextOffset     offset in an entry of its 8-byte forward link.
     * @param deadlineOffset offset in an entry of its 8-byte deadline.
     * @param base           the address links are stored relative to ({@link Refs}): the durable state's, or 0.
     * @param marks          the durable state's write barrier, called before each store into its memory when
     *                       {@code base} is not 0 ({@link WriteMarks#NONE} in memory).
     */
    public TimerWheel(
        final int tickShift, final int slotCount, final int prevOffset, final int nextOffset, final int deadlineOffset,
        final long base, final WriteMarks marks)
    {
        if (marks == null || (base != 0 && marks == WriteMarks.NONE))
        {
            throw new IllegalArgumentException("a wheel over durable memory (base " + base + ") needs its write barrier");
        }
        this.base = base;
        this.marks = marks;
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
        this.heads = new long[slotCount];
        this.tails = new long[slotCount];
        this.unsorted = new boolean[slotCount];
        this.touched = new long[(slotCount + Long.SIZE - 1) >>> 6];
        this.prevOffset = prevOffset;
        this.nextOffset = nextOffset;
        this.deadlineOffset = deadlineOffset;
    }

    /**
     * Links an entry with its deadline (ms of event time): after the last entry of its slot whose deadline is not
     * above it, found within {@link #SORT_STEPS} of the slot's tail, else at the tail of a slot then unsorted.
     */
    public void schedule(final long entry, final long deadline)
    {
        written(entry + deadlineOffset);
        UnsafeApi.putLong(entry + deadlineOffset, deadline);
        final int slot = (int)(deadline >> tickShift) & mask;
        touched[slot >>> 6] |= 1L << slot;
        final long tail = tails[slot];
        long after = tail;
        if (after != 0 && !unsorted[slot])
        {
            int steps = 0;
            while (after != 0 && UnsafeApi.getLong(after + deadlineOffset) > deadline)
            {
                if (++steps > SORT_STEPS)
                {
                    unsorted[slot] = true;
                    after = tail;
                    break;
                }
                after = Refs.toAddress(base, UnsafeApi.getLong(after + prevOffset));
            }
        }
        final long next = after == 0 ? heads[slot] : (after == tail ? 0 : Refs.toAddress(base, UnsafeApi.getLong(after + nextOffset)));
        written(entry + prevOffset);
        written(entry + nextOffset);
        UnsafeApi.putLong(entry + prevOffset, Refs.toStored(base, after));
        UnsafeApi.putLong(entry + nextOffset, Refs.toStored(base, next));
        if (after == 0)
        {
            heads[slot] = entry;
        }
        else
        {
            written(after + nextOffset);
            UnsafeApi.putLong(after + nextOffset, Refs.toStored(base, entry));
        }
        if (next == 0)
        {
            tails[slot] = entry;
        }
        else
        {
            written(next + prevOffset);
            UnsafeApi.putLong(next + prevOffset, Refs.toStored(base, entry));
        }
        pending++;
    }

    /** Unlinks a scheduled entry before its deadline. */
    public void cancel(final long entry)
    {
        final long prevStored = UnsafeApi.getLong(entry + prevOffset);
        final long nextStored = UnsafeApi.getLong(entry + nextOffset);
        final int slot = (int)(UnsafeApi.getLong(entry + deadlineOffset) >> tickShift) & mask;
        if (prevStored == 0)
        {
            heads[slot] = Refs.toAddress(base, nextStored);
        }
        else
        {
            written(Refs.toAddress(base, prevStored) + nextOffset);
            UnsafeApi.putLong(Refs.toAddress(base, prevStored) + nextOffset, nextStored);
        }
        if (nextStored == 0)
        {
            tails[slot] = Refs.toAddress(base, prevStored);
            if (prevStored == 0)
            {
                unsorted[slot] = false;
                touched[slot >>> 6] &= ~(1L << slot);
            }
        }
        else
        {
            written(Refs.toAddress(base, nextStored) + prevOffset);
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
            if (!started || ticks >= heads.length || ticks < 0)
            {
                for (int slot = 0; slot < heads.length && pending != 0; slot++)
                {
                    expired += expireSlot(slot, limit, handler, Integer.MAX_VALUE);
                }
            }
            else
            {
                for (long tick = currentTick; tick <= targetTick && pending != 0; tick++)
                {
                    expired += expireSlot((int)tick & mask, limit, handler, Integer.MAX_VALUE);
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
            if (pending != 0 && (!started || ticks >= heads.length || ticks < 0))
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
            while (scanSlot < heads.length && pending != 0)
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
        for (int slot = 0; slot < heads.length && pending != 0; slot++)
        {
            expired += expireSlot(slot, Long.MAX_VALUE, handler, Integer.MAX_VALUE);
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
        for (int slot = 0; slot < heads.length; slot++)
        {
            for (long entry = heads[slot]; entry != 0; entry = Refs.toAddress(base, UnsafeApi.getLong(entry + nextOffset)))
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
            for (int i = 0; i < heads.length; i++)
            {
                final long tick = currentTick + i;
                for (long entry = heads[(int)tick & mask]; entry != 0; entry = Refs.toAddress(base, UnsafeApi.getLong(entry + nextOffset)))
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
        for (int slot = 0; slot < heads.length; slot++)
        {
            for (long entry = heads[slot]; entry != 0; entry = Refs.toAddress(base, UnsafeApi.getLong(entry + nextOffset)))
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

    /** @return the most bytes {@link #save} writes ({@link TimerWheelImage#maxLength}: every slot in use). */
    @Override
    public int savedLength()
    {
        return TimerWheelImage.maxLength(heads.length);
    }

    /**
     * Writes the wheel's own fields at {@code out}'s position, as {@link TimerWheelImage} draws them: version 3, the
     * slots in use only, so that an empty or sparse wheel costs a few bytes, not 17 a slot; or, when nearly every
     * slot is in use and the sparse image would be the longer, version 2 (dense). The slots in use are found through
     * {@link #touched}, not by a walk of every slot. Partition thread (a persist, a close); a checkpoint's cut
     * copies the wheel instead ({@link #copyTo}) and its writer encodes the copy.
     */
    @Override
    public void save(final ByteBuffer out)
    {
        TimerWheelCopy.write(out, base, started, currentTick, pending, heads, tails, unsorted, touched);
    }

    /** @return a copy of this wheel's geometry for {@link #copyTo} (allocated once, before the cuts that reuse it). */
    public TimerWheelCopy newCopy()
    {
        return new TimerWheelCopy(heads.length, base);
    }

    /**
     * Partition thread, at a checkpoint's cut: copies the wheel's own fields into {@code copy} (array copies, no
     * loop per slot), for the writer to encode ({@link TimerWheelCopy#save}) into the same image {@link #save}
     * would write now.
     *
     * @param copy a copy made by this wheel's {@link #newCopy}, not being read by a writer.
     */
    public void copyTo(final TimerWheelCopy copy)
    {
        if (copy.heads.length != heads.length || copy.base != base)
        {
            throw new IllegalArgumentException("a copy of another wheel: " + copy.heads.length + " slots over base " + copy.base);
        }
        System.arraycopy(heads, 0, copy.heads, 0, heads.length);
        System.arraycopy(tails, 0, copy.tails, 0, tails.length);
        System.arraycopy(unsorted, 0, copy.unsorted, 0, unsorted.length);
        System.arraycopy(touched, 0, copy.touched, 0, touched.length);
        copy.started = started;
        copy.currentTick = currentTick;
        copy.pending = pending;
    }

    /**
     * Reads what {@link #save} wrote, onto this wheel of the same geometry, from {@code in}'s position: a version 3
     * (sparse) image, or a version 2 (dense) one that an earlier build wrote.
     *
     * @throws IllegalStateException when the image is of another version ({@link TimerWheelImage}), the saved
     *                               wheel has another slot count, or a version 3 image's used slots are more
     *                               than the wheel's, out of range or out of order.
     */
    @Override
    public void load(final ByteBuffer in)
    {
        final int at = in.position();
        final int version = in.getInt(at + TimerWheelImage.VERSION_OFFSET);
        if (version != TimerWheelImage.VERSION && version != TimerWheelImage.VERSION_DENSE)
        {
            throw new IllegalStateException("saved wheel image has version " + version + ", this build reads " +
                TimerWheelImage.VERSION_DENSE + " and " + TimerWheelImage.VERSION);
        }
        final int count = in.getInt(at + TimerWheelImage.SLOT_COUNT_OFFSET);
        if (count != heads.length)
        {
            throw new IllegalStateException("saved wheel has " + count + " slots, this one " + heads.length);
        }
        if (version == TimerWheelImage.VERSION_DENSE)
        {
            loadDense(in, at, count);
            return;
        }
        final int used = in.getInt(at + TimerWheelImage.USED_SLOTS_OFFSET);
        if (used < 0 || used > count)
        {
            throw new IllegalStateException("saved wheel image has " + used + " slots in use of " + count);
        }
        // Checked whole before anything changes: a refused image leaves the wheel as it was.
        int previous = -1;
        for (int u = 0; u < used; u++)
        {
            final int slot = in.getInt(at + TimerWheelImage.usedSlotOffset(u) + TimerWheelImage.SLOT_INDEX_OFFSET);
            if (slot <= previous || slot >= count)
            {
                throw new IllegalStateException("saved wheel image lists slot " + slot + " after slot " + previous +
                    " (slots are listed once each, in increasing order, below " + count + ")");
            }
            previous = slot;
        }
        started = in.get(at + TimerWheelImage.STARTED_OFFSET) != 0;
        currentTick = in.getLong(at + TimerWheelImage.CURRENT_TICK_OFFSET);
        pending = in.getLong(at + TimerWheelImage.PENDING_OFFSET);
        Arrays.fill(heads, 0);
        Arrays.fill(tails, 0);
        Arrays.fill(unsorted, false);
        Arrays.fill(touched, 0);
        for (int u = 0; u < used; u++)
        {
            final int slotAt = at + TimerWheelImage.usedSlotOffset(u);
            final int slot = in.getInt(slotAt + TimerWheelImage.SLOT_INDEX_OFFSET);
            heads[slot] = Refs.toAddress(base, in.getLong(slotAt + TimerWheelImage.SLOT_HEAD_OFFSET));
            tails[slot] = Refs.toAddress(base, in.getLong(slotAt + TimerWheelImage.SLOT_TAIL_OFFSET));
            unsorted[slot] = in.get(slotAt + TimerWheelImage.SLOT_UNSORTED_OFFSET) != 0;
            touched[slot >>> 6] |= 1L << slot;
        }
        in.position(at + TimerWheelImage.length(used));
    }

    /** Reads a version 2 (dense) image of {@code count} slots at {@code at}. */
    private void loadDense(final ByteBuffer in, final int at, final int count)
    {
        started = in.get(at + TimerWheelImage.STARTED_OFFSET) != 0;
        currentTick = in.getLong(at + TimerWheelImage.CURRENT_TICK_OFFSET);
        pending = in.getLong(at + TimerWheelImage.PENDING_OFFSET);
        final int tailsAt = at + TimerWheelImage.denseTailsOffset(count);
        final int unsortedAt = at + TimerWheelImage.denseUnsortedOffset(count);
        for (int i = 0; i < count; i++)
        {
            heads[i] = Refs.toAddress(base, in.getLong(at + TimerWheelImage.DENSE_HEADS_OFFSET + i * Long.BYTES));
            tails[i] = Refs.toAddress(base, in.getLong(tailsAt + i * Long.BYTES));
            unsorted[i] = in.get(unsortedAt + i) != 0;
            if (heads[i] != 0 || tails[i] != 0 || unsorted[i])
            {
                touched[i >>> 6] |= 1L << i;
            }
            else
            {
                touched[i >>> 6] &= ~(1L << i);
            }
        }
        in.position(at + TimerWheelImage.denseLength(count));
    }

    /** @return entries whose deadline the expiry walks have read so far (tests). */
    long examined()
    {
        return examined;
    }

    /** @return the slots whose in-use bit is set, the slots a cut's {@link #save} walks (tests). */
    int slotsMarkedInUse()
    {
        int marked = 0;
        for (final long word : touched)
        {
            marked += Long.bitCount(word);
        }
        return marked;
    }

    /** @return whether a slot's list is in deadline order (tests). */
    boolean sorted(final int slot)
    {
        return !unsorted[slot];
    }

    /** @return an entry's deadline, counted as examined. */
    private long examine(final long entry)
    {
        examined++;
        return UnsafeApi.getLong(entry + deadlineOffset);
    }

    /** @return entries scheduled and not yet expired or cancelled. */
    public long pending()
    {
        return pending;
    }

    /**
     * Expires the entries of a slot whose deadline is at or below {@code limit}: from its head up to the first
     * entry above the limit when the slot is sorted (every later one is above it too), else the whole slot.
     *
     * @return the entries it expired, all of them; -1 when it stopped at one more than {@code max} (expiring
     *         {@code max} first).
     */
    private int expireSlot(final int slot, final long limit, final ExpiryHandler handler, final int max)
    {
        int expired = 0;
        if (!unsorted[slot])
        {
            long entry = heads[slot];
            while (entry != 0 && examine(entry) <= limit)
            {
                if (expired == max)
                {
                    return -1;
                }
                // The head leaves: its successor (read first, its line then fetched by the write) becomes the head.
                final long nextStored = UnsafeApi.getLong(entry + nextOffset);
                final long next = Refs.toAddress(base, nextStored);
                heads[slot] = next;
                if (next == 0)
                {
                    tails[slot] = 0;
                    touched[slot >>> 6] &= ~(1L << slot);
                }
                else
                {
                    written(next + prevOffset);
                    UnsafeApi.putLong(next + prevOffset, 0);
                }
                pending--;
                expired++;
                handler.onExpiry(entry);
                // The handler may have scheduled into this slot (never below the limit): the head is read again.
                entry = heads[slot];
            }
            return expired;
        }
        long entry = heads[slot];
        while (entry != 0)
        {
            final long next = Refs.toAddress(base, UnsafeApi.getLong(entry + nextOffset));
            if (examine(entry) <= limit)
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

    /** Announces a store into the entry memory before it is made: the durable state's barrier, nothing in memory. */
    private void written(final long address)
    {
        if (base != 0)
        {
            marks.written(base, address);
        }
    }
}
