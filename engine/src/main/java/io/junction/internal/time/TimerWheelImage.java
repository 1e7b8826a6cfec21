package io.junction.internal.time;

/**
 * Layout of the image {@link TimerWheel#save} writes into a heap image (durable mode, heap.dat) and
 * {@link TimerWheel#load} reads back: the wheel's own fields, not its entries (those live, linked, in the arena).
 * Offsets are from the image's first byte, in the heap image's byte order (big-endian); {@code n} is the
 * wheel's slot count, {@code k} the slots in use (a head, a tail or the unsorted flag set), {@code k <= n}.
 *
 * <p>Version 3, sparse (written since the latency work's pause work: an empty default wheel of 4,096 slots took 68 KiB in
 * version 2, now 29 bytes; a checkpoint's cut copies the wheel's arrays, {@link TimerWheelCopy}, and its writer
 * encodes the image off the partition thread):
 * <pre>
 *   0         4        5          13         21       25       29           29 + 21       29 + 21k
 *   +---------+--------+----------+----------+--------+--------+------------+---  ...  ---+
 *   |version  |started |current   |pending   |slots n |used k  |used slot 0 |   ...       |
 *   |  i32    |  u8    |tick i64  |  i64     |  i32   |  i32   |  (21)      |             |
 *   +---------+--------+----------+----------+--------+--------+------------+---  ...  ---+
 *
 *   a used slot:  0        4          12         20        21
 *                 +--------+----------+----------+---------+
 *                 |slot    |head      |tail      |unsorted |
 *                 |  i32   |  i64     |  i64     |  u8     |
 *                 +--------+----------+----------+---------+
 *   version:  {@link #VERSION}.
 *   started:  1 once the wheel has been advanced (current tick is meaningful), else 0.
 *   used slots: in increasing slot order, each slot at most once; every slot not listed is empty (no head, no
 *     tail, sorted). head, tail: the slot's first and last entry as stored references ({@code Refs}).
 *     unsorted: 1 where the slot's list is not in deadline order (an insertion gave up sorting), else 0.
 * </pre>
 * Version 2 (dense: every slot's head, then every slot's tail, then every slot's unsorted flag) is still read,
 * so that state and checkpoints written before version 3 reopen, and still written where it is the shorter image
 * (more than 17 of every 21 slots in use: {@code length(k) > denseLength(n)}):
 * <pre>
 *   0         4        5          13         21       25            25 + 8n       25 + 16n      25 + 17n
 *   +---------+--------+----------+----------+--------+-------------+-------------+--------------+
 *   |version 2|started |current   |pending   |slots n |heads        |tails        |unsorted      |
 *   |  i32    |  u8    |tick i64  |  i64     |  i32   | i64 x n     | i64 x n     | u8 x n       |
 *   +---------+--------+----------+----------+--------+-------------+-------------+--------------+
 * </pre>
 * Version 1 (no version field, no tails, no unsorted flags) and any other version are refused, as is a version 3
 * image whose used slots are out of range, out of order or more than the wheel's.
 */
public final class TimerWheelImage
{
    /** The image format's version this build writes. */
    public static final int VERSION = 3;
    /** The dense version this build still reads. */
    public static final int VERSION_DENSE = 2;

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
    /** Version 3: offset of the used slots' count (i32). */
    public static final int USED_SLOTS_OFFSET = SLOT_COUNT_OFFSET + Integer.BYTES;
    /** Version 3: offset of the first used slot. */
    public static final int USED_OFFSET = USED_SLOTS_OFFSET + Integer.BYTES;

    /** Version 3, within a used slot: offset of the slot's index (i32). */
    public static final int SLOT_INDEX_OFFSET = 0;
    /** Version 3, within a used slot: offset of the slot's head (i64 stored reference). */
    public static final int SLOT_HEAD_OFFSET = SLOT_INDEX_OFFSET + Integer.BYTES;
    /** Version 3, within a used slot: offset of the slot's tail (i64 stored reference). */
    public static final int SLOT_TAIL_OFFSET = SLOT_HEAD_OFFSET + Long.BYTES;
    /** Version 3, within a used slot: offset of the slot's unsorted flag (u8). */
    public static final int SLOT_UNSORTED_OFFSET = SLOT_TAIL_OFFSET + Long.BYTES;
    /** Version 3: bytes of one used slot. */
    public static final int SLOT_LENGTH = SLOT_UNSORTED_OFFSET + Byte.BYTES;

    /** Version 2: offset of the slot heads (i64 each). */
    public static final int DENSE_HEADS_OFFSET = SLOT_COUNT_OFFSET + Integer.BYTES;

    private TimerWheelImage()
    {
    }

    /**
     * @param used the image's used slots.
     * @return version 3: offset of used slot {@code i} (the image's length when {@code i} is the used count).
     */
    public static int usedSlotOffset(final int used)
    {
        return USED_OFFSET + used * SLOT_LENGTH;
    }

    /**
     * @param used the slots in use.
     * @return bytes of a version 3 image with {@code used} slots in use.
     */
    public static int length(final int used)
    {
        return usedSlotOffset(used);
    }

    /**
     * @param slots the wheel's slot count.
     * @return the most bytes a version 3 image of such a wheel takes (every slot in use).
     */
    public static int maxLength(final int slots)
    {
        return length(slots);
    }

    /**
     * @param slots the wheel's slot count.
     * @return version 2: offset of the slot tails (i64 each).
     */
    public static int denseTailsOffset(final int slots)
    {
        return DENSE_HEADS_OFFSET + slots * Long.BYTES;
    }

    /**
     * @param slots the wheel's slot count.
     * @return version 2: offset of the slots' unsorted flags (u8 each).
     */
    public static int denseUnsortedOffset(final int slots)
    {
        return denseTailsOffset(slots) + slots * Long.BYTES;
    }

    /**
     * @param slots the wheel's slot count.
     * @return version 2: bytes of the image.
     */
    public static int denseLength(final int slots)
    {
        return denseUnsortedOffset(slots) + slots * Byte.BYTES;
    }
}
