package io.junction.internal.state;

import io.junction.internal.memory.Refs;
import org.agrona.UnsafeApi;

/**
 * The rows of one key and side, as a bucket refers to them ({@link BucketDescriptor#rows}): the
 * record addresses in arrival order, so that a probe reads them from one array instead of chasing
 * one pointer per row, and the loads of the records themselves do not wait on each other.
 * <p>
 * A reference is 0 (no rows), a record's address (a single row, held inline in the bucket), or the
 * address of an array with its low bit set ({@link #ARRAY_TAG}: records are 8-byte aligned, so the
 * bit is free):
 * <pre>
 *   0          4          8
 *   +----------+----------+-----------+-----------+-----
 *   | capacity |  used    | record 0  | record 1  | ...
 *   |   i32    |  i32     |   i64     |   i64     |
 *   +----------+----------+-----------+-----------+-----
 * </pre>
 * A removed row leaves a 0 in its slot, so that the others keep their slots and their order; the
 * {@link RowStore} compacts the array when most slots are empty and grows it geometrically.
 * Iterate with {@code for (i = 0; i < slots(rows); i++) { r = record(rows, i); if (r != 0) ... }}.
 */
public final class RowGroup
{
    /** Set in a reference that points to an array rather than to a single record. */
    public static final long ARRAY_TAG = 1;
    /** Offset of the array's capacity in slots (i32). */
    public static final int CAPACITY_OFFSET = 0;
    /** Offset of the slots in use, live or emptied (i32). */
    public static final int USED_OFFSET = CAPACITY_OFFSET + Integer.BYTES;
    /** Offset of the first slot. */
    public static final int SLOTS_OFFSET = USED_OFFSET + Integer.BYTES;
    /** Bytes of a slot: a record address, 0 once the record is removed. */
    public static final int SLOT_LENGTH = Long.BYTES;
    /**
     * Records a probe {@link #touch}es at once: about as many misses as a core keeps in flight (its
     * line-fill buffers), a power of two.
     */
    public static final int TOUCH_GROUP = 8;

    private RowGroup()
    {
    }

    /**
     * @param rows a row group reference.
     * @return the slots to visit, some of which may be empty (0).
     */
    public static int slots(final long rows)
    {
        if ((rows & ARRAY_TAG) == 0)
        {
            return rows == 0 ? 0 : 1;
        }
        return UnsafeApi.getInt((rows ^ ARRAY_TAG) + USED_OFFSET);
    }

    /**
     * @param rows a row group reference.
     * @param slot a slot below {@link #slots(long)}.
     * @return the record in the slot, or 0 when its row was removed.
     */
    public static long record(final long rows, final int slot)
    {
        return record(0, rows, slot);
    }

    /**
     * @param base the state's base address ({@link Refs}).
     * @param rows a row group reference.
     * @param slot a slot below {@link #slots(long)}.
     * @return the record in the slot, or 0 when its row was removed.
     */
    public static long record(final long base, final long rows, final int slot)
    {
        if ((rows & ARRAY_TAG) == 0)
        {
            return rows;
        }
        return Refs.toAddress(base, UnsafeApi.getLong(slotAddress(rows ^ ARRAY_TAG, slot)));
    }

    /**
     * Reads the headers of the records in slots {@code [from, to)} one after the other, in a loop too
     * short to wait on any of them, so that their cache misses overlap (group prefetching): a probe
     * calls it once per {@link #TOUCH_GROUP} slots and then finds those records in cache, instead of
     * stalling on each one's miss in turn. Java has no prefetch instruction; plain loads whose values
     * the caller keeps do the same job.
     *
     * @param rows a row group reference.
     * @param from the first slot.
     * @param to   the slot after the last, at most {@link #slots(long)}.
     * @return a value of the memory read, for the caller to keep so that the loads are not optimised away.
     */
    public static long touch(final long rows, final int from, final int to)
    {
        return touch(0, rows, from, to);
    }

    /**
     * As {@link #touch(long, int, int)} in a state of base {@code base} ({@link Refs}).
     *
     * @param base the state's base address.
     * @param rows a row group reference.
     * @param from the first slot.
     * @param to   the slot after the last.
     * @return a value of the memory read.
     */
    public static long touch(final long base, final long rows, final int from, final int to)
    {
        if ((rows & ARRAY_TAG) == 0)
        {
            return 0;
        }
        final long array = rows ^ ARRAY_TAG;
        long seen = 0;
        for (int i = from; i < to; i++)
        {
            final long record = Refs.toAddress(base, UnsafeApi.getLong(slotAddress(array, i)));
            if (record != 0)
            {
                seen ^= UnsafeApi.getLong(record + RowDescriptor.COUNT_OFFSET);
            }
        }
        return seen;
    }

    static boolean isArray(final long rows)
    {
        return (rows & ARRAY_TAG) != 0;
    }

    static long slot(final long base, final long array, final int slot)
    {
        return Refs.toAddress(base, UnsafeApi.getLong(slotAddress(array, slot)));
    }

    static void slot(final long base, final long array, final int slot, final long record)
    {
        NativeArena.written(base, slotAddress(array, slot));
        UnsafeApi.putLong(slotAddress(array, slot), Refs.toStored(base, record));
    }

    static long slotAddress(final long array, final int slot)
    {
        return array + SLOTS_OFFSET + (long)slot * SLOT_LENGTH;
    }

    static int capacity(final long array)
    {
        return UnsafeApi.getInt(array + CAPACITY_OFFSET);
    }

    static int used(final long array)
    {
        return UnsafeApi.getInt(array + USED_OFFSET);
    }

    static void used(final long base, final long array, final int used)
    {
        NativeArena.written(base, array + USED_OFFSET);
        UnsafeApi.putInt(array + USED_OFFSET, used);
    }

    /** @return the bytes of an array of {@code capacity} slots. */
    static int arrayLength(final int capacity)
    {
        return SLOTS_OFFSET + capacity * SLOT_LENGTH;
    }
}
