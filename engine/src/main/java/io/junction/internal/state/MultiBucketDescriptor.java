package io.junction.internal.state;

import io.junction.internal.memory.Refs;
import org.agrona.UnsafeApi;

/**
 * Layout of a multi-way join's key bucket ({@link MultiRowStore}): the key hash where a standard key bucket
 * ({@link BucketDescriptor}) keeps it (the partition's key index writes it at creation, reads it to remove the
 * bucket, and its durable reopen checks it), a link to the next bucket under the same hash, and one row group
 * reference per input, so that a change of any input finds the rows of every input of its key in one bucket.
 * No live row counts: a group's size is its own (0 or 1 inline, an array's size), so a bucket is empty when
 * every group reference is 0, and a key's live rows are the sum of its groups' sizes.
 * <pre>
 *   0          8          16         24         32                    16 + 8 (n - 1)
 *   +----------+----------+----------+----------+----------+-- ... --+-----------+
 *   | keyHash  |  link    | group 0  | group 1  | group 2  |         | group n-1 |
 *   |   i64    |   i64    |   i64    |   i64    |   i64    |         |   i64     |
 *   +----------+----------+----------+----------+----------+-- ... --+-----------+
 *   |&lt;-- as BucketDescriptor --&gt;|  (its hash, left group and right group slots)
 *   keyHash:  BucketDescriptor's hash slot: the key (or content) hash the bucket is kept under.
 *   link:     the next bucket under the same key hash (a colliding key's, or the rows that can never match
 *             under that content hash), as a stored reference ({@link Refs}), with {@link #UNMATCHABLE} in its
 *             low bit when this bucket holds rows that can never match; it sits in BucketDescriptor's left
 *             group slot, which a reopen checks to be 0 or a reference into the arena.
 *   group i:  input i's group; group 0 sits in BucketDescriptor's right group slot (a reopen checks it as that
 *             slot; a prefetch of the bucket reads input 0's single row).
 * </pre>
 * A bucket is {@code 16 + 8n} bytes for n inputs (48 for 4), at least {@link BucketDescriptor#LENGTH}: the
 * version before this one kept BucketDescriptor's two live row counts after group 0 ({@code 24 + 8n} bytes);
 * its durable state is refused by its layout name ({@code MultiJoin.LAYOUT}).
 * The bucket the key index holds for a hash is the first of its chain; a colliding key's bucket comes from
 * the arena and is linked after it. A group reference is 0 (no rows), a record (one row, held inline: no
 * array for the common input with one row of a key), or an array with its low bit set ({@link #ARRAY_TAG}),
 * all stored references:
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
    /** Offset of the key hash (i64, BucketDescriptor's hash slot). */
    public static final int HASH_OFFSET = BucketDescriptor.HASH_OFFSET;
    /** Offset of the link to the next bucket under the same hash (i64, in BucketDescriptor's left group slot). */
    public static final int LINK_OFFSET = HASH_OFFSET + Long.BYTES;
    /** Offset of input 0's group reference (i64, in BucketDescriptor's right group slot); inputs 1 to n-1 follow it. */
    public static final int GROUPS_OFFSET = LINK_OFFSET + Long.BYTES;
    /** Bytes of one input's group reference (i64). */
    public static final int GROUP_LENGTH = Long.BYTES;
    /** Set in a group reference that points to an array rather than to a single record. */
    public static final long ARRAY_TAG = 1;
    /** Set in a bucket's link when the bucket holds rows that can never match (kept by content hash). */
    public static final long UNMATCHABLE = 1;
    /** Offset of an array's capacity in slots (i32). */
    public static final int CAPACITY_OFFSET = 0;
    /** Offset of an array's live records (i32). */
    public static final int SIZE_OFFSET = CAPACITY_OFFSET + Integer.BYTES;
    /** Offset of an array's first slot. */
    public static final int SLOTS_OFFSET = SIZE_OFFSET + Integer.BYTES;
    /** Bytes of an array's slot: a record reference. */
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
        return Math.max(BucketDescriptor.LENGTH, GROUPS_OFFSET + inputs * GROUP_LENGTH);
    }

    /**
     * @param input an input.
     * @return the offset of its group reference.
     */
    public static int groupOffset(final int input)
    {
        return GROUPS_OFFSET + input * GROUP_LENGTH;
    }

    /**
     * @param bucket a bucket of a store whose base is 0 (in memory).
     * @param input  an input.
     * @return the input's group reference.
     */
    public static long group(final long bucket, final int input)
    {
        return group(0, bucket, input);
    }

    /**
     * @param base   the store's base address ({@link Refs}).
     * @param bucket a bucket.
     * @param input  an input.
     * @return the input's group reference as an address (its {@link #ARRAY_TAG} kept), 0 for none.
     */
    public static long group(final long base, final long bucket, final int input)
    {
        return Refs.toAddress(base, UnsafeApi.getLong(bucket + groupOffset(input)));
    }

    static void group(final long base, final long bucket, final int input, final long group)
    {
        NativeArena.written(base, bucket + groupOffset(input));
        UnsafeApi.putLong(bucket + groupOffset(input), Refs.toStored(base, group));
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
     * @param group a group reference of a store whose base is 0 (in memory).
     * @param i     a record's position, below {@link #size(long)}.
     * @return the record.
     */
    public static long record(final long group, final int i)
    {
        return record(0, group, i);
    }

    /**
     * @param base  the store's base address.
     * @param group a group reference, as {@link #group(long, long, int)} returns it.
     * @param i     a record's position, below {@link #size(long)}.
     * @return the record's address.
     */
    public static long record(final long base, final long group, final int i)
    {
        if ((group & ARRAY_TAG) == 0)
        {
            return group;
        }
        return Refs.toAddress(base, UnsafeApi.getLong(slotAddress(group ^ ARRAY_TAG, i)));
    }

    /**
     * @param base   the store's base address.
     * @param bucket a bucket.
     * @return the next bucket under the same hash, 0 for none.
     */
    public static long next(final long base, final long bucket)
    {
        return Refs.toAddress(base, UnsafeApi.getLong(bucket + LINK_OFFSET) & ~UNMATCHABLE);
    }

    /**
     * @param bucket a bucket.
     * @return whether it holds rows that can never match (by content hash) rather than a key's rows.
     */
    public static boolean unmatchable(final long bucket)
    {
        return (UnsafeApi.getLong(bucket + LINK_OFFSET) & UNMATCHABLE) != 0;
    }

    static void link(final long base, final long bucket, final long next, final boolean unmatchable)
    {
        NativeArena.written(base, bucket + LINK_OFFSET);
        UnsafeApi.putLong(bucket + LINK_OFFSET, Refs.toStored(base, next) | (unmatchable ? UNMATCHABLE : 0));
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

    static void arraySize(final long base, final long array, final int size)
    {
        NativeArena.written(base, array + SIZE_OFFSET);
        UnsafeApi.putInt(array + SIZE_OFFSET, size);
    }
}
