package io.junction.internal.state;

import org.agrona.UnsafeApi;

/**
 * Layout of a multi-way join's key bucket ({@link MultiRowStore}): for one key (or, for rows that can never
 * match, one content hash), one row group reference per input, so that a change of any input finds the
 * rows of every input of its key in one bucket. The key hash is kept by the table that maps it to the
 * bucket ({@link MultiKeyTable}), not in the bucket.
 * <pre>
 *   0          8          16                 8 (n - 1)   8 n
 *   +----------+----------+------ ... ------+-----------+
 *   | group 0  | group 1  |                 | group n-1 |
 *   |   i64    |   i64    |                 |   i64     |
 *   +----------+----------+------ ... ------+-----------+
 * </pre>
 * A group reference is 0 (no rows), a record's address (one row, held inline: no array for the common input
 * with one row of a key), or an array's address with its low bit set ({@link #ARRAY_TAG}):
 * <pre>
 *   0          4          8           16
 *   +----------+----------+-----------+-----------+-----
 *   | capacity |  size    | record 0  | record 1  | ...
 *   |   i32    |  i32     |   i64     |   i64     |
 *   +----------+----------+-----------+-----------+-----
 * </pre>
 * An array is dense and in arrival order: a removal shifts the later records down, so that the oldest copy
 * of a row is always the first one found (a retraction takes it). A group of one row goes back inline.
 *
 * <p>Not thread safe: the buckets belong to the partition thread that owns their store.
 */
public final class MultiBucketDescriptor
{
    /** Bytes of one input's group reference (i64). */
    public static final int GROUP_LENGTH = Long.BYTES;
    /** Set in a group reference that points to an array rather than to a single record. */
    public static final long ARRAY_TAG = 1;
    /** Offset of an array's capacity in slots (i32). */
    public static final int CAPACITY_OFFSET = 0;
    /** Offset of an array's live records (i32). */
    public static final int SIZE_OFFSET = CAPACITY_OFFSET + Integer.BYTES;
    /** Offset of an array's first slot. */
    public static final int SLOTS_OFFSET = SIZE_OFFSET + Integer.BYTES;
    /** Bytes of an array's slot: a record address. */
    public static final int SLOT_LENGTH = Long.BYTES;

    private MultiBucketDescriptor()
    {
    }

    /**
     * @param inputs the join's inputs.
     * @return the bytes of a bucket.
     */
    public static int length(final int inputs)
    {
        return inputs * GROUP_LENGTH;
    }

    /**
     * @param input an input.
     * @return the offset of its group reference.
     */
    public static int groupOffset(final int input)
    {
        return input * GROUP_LENGTH;
    }

    /**
     * @param bucket a bucket.
     * @param input  an input.
     * @return the input's group reference.
     */
    public static long group(final long bucket, final int input)
    {
        return UnsafeApi.getLong(bucket + groupOffset(input));
    }

    static void group(final long bucket, final int input, final long group)
    {
        UnsafeApi.putLong(bucket + groupOffset(input), group);
    }

    /**
     * @param group a group reference.
     * @return its records.
     */
    public static int size(final long group)
    {
        if ((group & ARRAY_TAG) == 0)
        {
            return group == 0 ? 0 : 1;
        }
        return UnsafeApi.getInt((group ^ ARRAY_TAG) + SIZE_OFFSET);
    }

    /**
     * @param group a group reference.
     * @param i     a record's position, below {@link #size(long)}.
     * @return the record.
     */
    public static long record(final long group, final int i)
    {
        if ((group & ARRAY_TAG) == 0)
        {
            return group;
        }
        return UnsafeApi.getLong(slotAddress(group ^ ARRAY_TAG, i));
    }

    /**
     * @param capacity slots.
     * @return the bytes of an array of that many slots.
     */
    public static int arrayLength(final int capacity)
    {
        return SLOTS_OFFSET + capacity * SLOT_LENGTH;
    }

    static long slotAddress(final long array, final int slot)
    {
        return array + SLOTS_OFFSET + (long)slot * SLOT_LENGTH;
    }

    static int capacity(final long array)
    {
        return UnsafeApi.getInt(array + CAPACITY_OFFSET);
    }

    static int arraySize(final long array)
    {
        return UnsafeApi.getInt(array + SIZE_OFFSET);
    }

    static void arraySize(final long array, final int size)
    {
        UnsafeApi.putInt(array + SIZE_OFFSET, size);
    }
}
