package io.junction.internal.state;

import io.junction.api.Side;
import org.agrona.UnsafeApi;

/**
 * Layout of a key bucket: the head, tail and length of each side's record chain for one key hash,
 * so that one index lookup per event both probes the other side and appends to its own.
 * <pre>
 *   0          8           16          24           32           40          44          48
 *   +----------+-----------+-----------+------------+------------+-----------+-----------+
 *   | keyHash  | leftHead  | leftTail  | rightHead  | rightTail  | leftCount | rightCount|
 *   |   i64    |   i64     |   i64     |   i64      |   i64      |   i32     |   i32     |
 *   +----------+-----------+-----------+------------+------------+-----------+-----------+
 * </pre>
 */
public final class BucketDescriptor
{
    /** Offset of the key hash (i64). */
    public static final int HASH_OFFSET = 0;
    /** Offset of the left side's first record (i64 address). */
    public static final int LEFT_HEAD_OFFSET = HASH_OFFSET + Long.BYTES;
    /** Offset of the left side's last record (i64 address). */
    public static final int LEFT_TAIL_OFFSET = LEFT_HEAD_OFFSET + Long.BYTES;
    /** Offset of the right side's first record (i64 address). */
    public static final int RIGHT_HEAD_OFFSET = LEFT_TAIL_OFFSET + Long.BYTES;
    /** Offset of the right side's last record (i64 address). */
    public static final int RIGHT_TAIL_OFFSET = RIGHT_HEAD_OFFSET + Long.BYTES;
    /** Offset of the left side's record count (i32). */
    public static final int LEFT_COUNT_OFFSET = RIGHT_TAIL_OFFSET + Long.BYTES;
    /** Offset of the right side's record count (i32), right after the left one: {@link #isEmpty} reads both as one i64. */
    public static final int RIGHT_COUNT_OFFSET = LEFT_COUNT_OFFSET + Integer.BYTES;
    /** Bytes of a standard bucket; operators may lay out more after it. */
    public static final int LENGTH = RIGHT_COUNT_OFFSET + Integer.BYTES;

    private BucketDescriptor()
    {
    }

    public static long hash(final long bucket)
    {
        return UnsafeApi.getLong(bucket + HASH_OFFSET);
    }

    public static long head(final long bucket, final Side side)
    {
        return UnsafeApi.getLong(bucket + (side == Side.LEFT ? LEFT_HEAD_OFFSET : RIGHT_HEAD_OFFSET));
    }

    public static long tail(final long bucket, final Side side)
    {
        return UnsafeApi.getLong(bucket + (side == Side.LEFT ? LEFT_TAIL_OFFSET : RIGHT_TAIL_OFFSET));
    }

    public static int count(final long bucket, final Side side)
    {
        return UnsafeApi.getInt(bucket + (side == Side.LEFT ? LEFT_COUNT_OFFSET : RIGHT_COUNT_OFFSET));
    }

    /** Initialises a bucket: no rows on either side. */
    public static void init(final long bucket, final long hash)
    {
        UnsafeApi.putLong(bucket + HASH_OFFSET, hash);
        UnsafeApi.setMemory(bucket + LEFT_HEAD_OFFSET, LENGTH - LEFT_HEAD_OFFSET, (byte)0);
    }

    static void head(final long bucket, final Side side, final long record)
    {
        UnsafeApi.putLong(bucket + (side == Side.LEFT ? LEFT_HEAD_OFFSET : RIGHT_HEAD_OFFSET), record);
    }

    static void tail(final long bucket, final Side side, final long record)
    {
        UnsafeApi.putLong(bucket + (side == Side.LEFT ? LEFT_TAIL_OFFSET : RIGHT_TAIL_OFFSET), record);
    }

    static void count(final long bucket, final Side side, final int count)
    {
        UnsafeApi.putInt(bucket + (side == Side.LEFT ? LEFT_COUNT_OFFSET : RIGHT_COUNT_OFFSET), count);
    }

    /** @return true when neither side holds a record. */
    public static boolean isEmpty(final long bucket)
    {
        return UnsafeApi.getLong(bucket + LEFT_COUNT_OFFSET) == 0;
    }
}
