package io.junction.internal.time;

import io.junction.internal.memory.Refs;

import java.nio.ByteBuffer;

/**
 * A timer wheel's own fields as a checkpoint's cut copies them ({@link TimerWheel#copyTo}: four array copies and
 * three fields, no loop per slot), encoded into the heap image ({@link TimerWheelImage}) later by the checkpoint's
 * writer ({@link #save}) while the partition goes on with the wheel itself.
 *
 * <p>Why: the cut runs once a second, so its code stays in the interpreter for the first minutes of a run, where a
 * {@code ByteBuffer} store costs about a microsecond. Encoding a wheel of a few dozen slots in use took 0.25-2.3 ms
 * of each W1 pause there; four array copies of the default wheel (68 KiB) take microseconds, compiled or not.
 *
 * <p>Thread use: written by the partition thread at a cut ({@link TimerWheel#copyTo}); read by the writer thread
 * ({@link #save}) only between that cut and its hand-back, before the partition thread copies into it again. The
 * cut's hand-over to the writer orders the two.
 */
public final class TimerWheelCopy
{
    final long[] heads;
    final long[] tails;
    final boolean[] unsorted;
    final long[] touched;
    final long base;
    boolean started;
    long currentTick;
    long pending;

    TimerWheelCopy(final int slotCount, final long base)
    {
        this.heads = new long[slotCount];
        this.tails = new long[slotCount];
        this.unsorted = new boolean[slotCount];
        this.touched = new long[(slotCount + Long.SIZE - 1) >>> 6];
        this.base = base;
    }

    /** Writer thread: writes the copied wheel's image at {@code out}'s position, as {@link TimerWheel#save} would have at the cut. */
    public void save(final ByteBuffer out)
    {
        write(out, base, started, currentTick, pending, heads, tails, unsorted, touched);
    }

    /**
     * Writes a wheel's image at {@code out}'s position (and moves the position past it): version 3, the slots whose
     * bit is set in {@code touched} and that are in use, in increasing order; or version 2 (dense) where that is the
     * shorter image (more than 17 of every 21 slots in use). Links are written relative to {@code base}.
     */
    static void write(
        final ByteBuffer out, final long base, final boolean started, final long currentTick, final long pending,
        final long[] heads, final long[] tails, final boolean[] unsorted, final long[] touched)
    {
        final int at = out.position();
        final int n = heads.length;
        out.putInt(at + TimerWheelImage.VERSION_OFFSET, TimerWheelImage.VERSION);
        out.put(at + TimerWheelImage.STARTED_OFFSET, (byte)(started ? 1 : 0));
        out.putLong(at + TimerWheelImage.CURRENT_TICK_OFFSET, currentTick);
        out.putLong(at + TimerWheelImage.PENDING_OFFSET, pending);
        out.putInt(at + TimerWheelImage.SLOT_COUNT_OFFSET, n);
        int used = 0;
        for (int word = 0; word < touched.length; word++)
        {
            long bits = touched[word];
            while (bits != 0)
            {
                final long bit = bits & -bits;
                bits ^= bit;
                final int i = (word << 6) + Long.numberOfTrailingZeros(bit);
                if (heads[i] == 0 && tails[i] == 0 && !unsorted[i])
                {
                    // A bit a hostile or damaged image's load set for an empty slot: nothing to list.
                    continue;
                }
                final int slotAt = at + TimerWheelImage.usedSlotOffset(used);
                out.putInt(slotAt + TimerWheelImage.SLOT_INDEX_OFFSET, i);
                out.putLong(slotAt + TimerWheelImage.SLOT_HEAD_OFFSET, Refs.toStored(base, heads[i]));
                out.putLong(slotAt + TimerWheelImage.SLOT_TAIL_OFFSET, Refs.toStored(base, tails[i]));
                out.put(slotAt + TimerWheelImage.SLOT_UNSORTED_OFFSET, (byte)(unsorted[i] ? 1 : 0));
                used++;
            }
        }
        if (TimerWheelImage.length(used) > TimerWheelImage.denseLength(n))
        {
            // Nearly every slot in use: the dense version 2 is the shorter image (and still read).
            writeDense(out, at, base, heads, tails, unsorted);
            return;
        }
        out.putInt(at + TimerWheelImage.USED_SLOTS_OFFSET, used);
        out.position(at + TimerWheelImage.length(used));
    }

    /** Writes the version 2 (dense) image of every slot at {@code at}, over the version 3 one begun there. */
    private static void writeDense(
        final ByteBuffer out, final int at, final long base, final long[] heads, final long[] tails, final boolean[] unsorted)
    {
        final int n = heads.length;
        out.putInt(at + TimerWheelImage.VERSION_OFFSET, TimerWheelImage.VERSION_DENSE);
        final int tailsAt = at + TimerWheelImage.denseTailsOffset(n);
        final int unsortedAt = at + TimerWheelImage.denseUnsortedOffset(n);
        for (int i = 0; i < n; i++)
        {
            out.putLong(at + TimerWheelImage.DENSE_HEADS_OFFSET + i * Long.BYTES, Refs.toStored(base, heads[i]));
            out.putLong(tailsAt + i * Long.BYTES, Refs.toStored(base, tails[i]));
            out.put(unsortedAt + i, (byte)(unsorted[i] ? 1 : 0));
        }
        out.position(at + TimerWheelImage.denseLength(n));
    }
}
