package io.junction.internal.time;

/**
 * Layout of the image {@link TimerWheel#save} writes into a heap image (durable mode, heap.dat) and
 * {@link TimerWheel#load} reads back: the wheel's own fields, not its entries (those live, linked, in the arena).
 * Offsets are from the image's first byte, in the heap image's byte order (big-endian); {@code n} is the
 * wheel's slot count.
 * <pre>
 *   0         4        5          13         21       25            25 + 8n       25 + 16n
 *   +---------+--------+----------+----------+--------+-------------+-------------+--------------+
 *   |version  |started |current   |pending   |slots n |heads        |tails        |unsorted      |
 *   |  i32    |  u8    |tick i64  |  i64     |  i32   | i64 x n     | i64 x n     | u8 x n       |
 *   +---------+--------+----------+----------+--------+-------------+-------------+--------------+
 *   version:  {@link #VERSION}; an image of another version is refused.
 *   started:  1 once the wheel has been advanced (current tick is meaningful), else 0.
 *   heads, tails: each slot's first and last entry as stored references ({@code Refs}), 0 for an empty slot.
 *   unsorted: 1 where the slot's list is not in deadline order (an insertion gave up sorting), else 0.
 * </pre>
 * Version 1 (no version field, no tails, no unsorted flags) is not read: the partition state's layout hash
 * carries {@link #VERSION}, so such a state is refused as of another layout before its heap image is read.
 */
public final class TimerWheelImage
{
    /** The image format's version. */
    public static final int VERSION = 2;

    /** Offset of the version (i32). */
    public static final int VERSION_OFFSET = 0;
    /** Offset of the started flag (u8). */
    public static final int STARTED_OFFSET = VERSION_OFFSET + Integer.BYTES;
    /** Offset of the current tick (i64). */
    public static final int CURRENT_TICK_OFFSET = STARTED_OFFSET + Byte.BYTES;
    /** Offset of the pending count (i64). */
    public static final int PENDING_OFFSET = CURRENT_TICK_OFFSET + Long.BYTES;
    /** Offset of the slot count (i32). */
    public static final int SLOT_COUNT_OFFSET = PENDING_OFFSET + Long.BYTES;
    /** Offset of the slot heads (i64 each). */
    public static final int HEADS_OFFSET = SLOT_COUNT_OFFSET + Integer.BYTES;

    private TimerWheelImage()
    {
    }

    /**
     * @param slots the wheel's slot count.
     * @return offset of the slot tails (i64 each).
     */
    public static int tailsOffset(final int slots)
    {
        return HEADS_OFFSET + slots * Long.BYTES;
    }

    /**
     * @param slots the wheel's slot count.
     * @return offset of the slots' unsorted flags (u8 each).
     */
    public static int unsortedOffset(final int slots)
    {
        return tailsOffset(slots) + slots * Long.BYTES;
    }

    /**
     * @param slots the wheel's slot count.
     * @return bytes of the image.
     */
    public static int length(final int slots)
    {
        return unsortedOffset(slots) + slots * Byte.BYTES;
    }
}
