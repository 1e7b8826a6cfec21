package io.junction.internal.state;

import io.junction.internal.memory.Refs;
import org.agrona.UnsafeApi;

/**
 * Layout of a key bucket: for one key hash, each side's row group ({@link RowGroup}) and live row
 * count, so that one index lookup per event both probes the other side and appends to its own.
 * <pre>
 *   0          8           16          24          28          32
 *   +----------+-----------+-----------+-----------+-----------+
 *   | keyHash  | leftRows  | rightRows | leftCount | rightCount|
 *   |   i64    |  group    |  group    |   i32     |   i32     |
 *   +----------+-----------+-----------+-----------+-----------+
 * </pre>
 * A group reference is 0 (no rows), a record's address (one row, held inline: no array and no
 * extra cache miss for the common key with one row per side), or an array's address with its low
 * bit set ({@link RowGroup}).
 */
public final class BucketDescriptor
{
    /** Offset of the key hash (i64). */
    public static final int HASH_OFFSET = 0;
    /** Offset of the left side's row group reference (i64). */
    public static final int LEFT_ROWS_OFFSET = HASH_OFFSET + Long.BYTES;
    /** Offset of the right side's row group reference (i64). */
    public static final int RIGHT_ROWS_OFFSET = LEFT_ROWS_OFFSET + Long.BYTES;
    /** Offset of the left side's live row count (i32). */
    public static final int LEFT_COUNT_OFFSET = RIGHT_ROWS_OFFSET + Long.BYTES;
    /** Offset of the right side's live row count (i32), right after the left one: {@link #isEmpty} reads both as one i64. */
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

    /** @return the side's row group reference in a state whose base is 0 (in memory), as {@link #rows(long, long, int)}. */
    public static long rows(final long bucket, final int side)
    {
        return rows(0, bucket, side);
    }

    /**
     * @param base   the state's base address ({@link Refs}).
     * @param bucket the bucket.
     * @param side   the side.
     * @return the side's row group reference, for {@link RowGroup#slots} and {@link RowGroup#record}.
     */
    public static long rows(final long base, final long bucket, final int side)
    {
        return Refs.toAddress(base, UnsafeApi.getLong(bucket + (side == RowDescriptor.LEFT ? LEFT_ROWS_OFFSET : RIGHT_ROWS_OFFSET)));
    }

    public static int count(final long bucket, final int side)
    {
        return UnsafeApi.getInt(bucket + (side == RowDescriptor.LEFT ? LEFT_COUNT_OFFSET : RIGHT_COUNT_OFFSET));
    }

    /**
     * Initialises a bucket: no rows on either side (and marks it written in a durable arena).
     *
     * @param base   the arena's base ({@link NativeArena#base()}: 0 in memory).
     * @param bucket the bucket.
     * @param hash   its key hash.
     */
    public static void init(final long base, final long bucket, final long hash)
    {
        NativeArena.written(base, bucket, LENGTH);
        UnsafeApi.putLong(bucket + HASH_OFFSET, hash);
        UnsafeApi.setMemory(bucket + LEFT_ROWS_OFFSET, LENGTH - LEFT_ROWS_OFFSET, (byte)0);
    }

    static void rows(final long base, final long bucket, final int side, final long rows)
    {
        final long field = bucket + (side == RowDescriptor.LEFT ? LEFT_ROWS_OFFSET : RIGHT_ROWS_OFFSET);
        NativeArena.written(base, field);
        UnsafeApi.putLong(field, Refs.toStored(base, rows));
    }

    static void count(final long base, final long bucket, final int side, final int count)
    {
        final long field = bucket + (side == RowDescriptor.LEFT ? LEFT_COUNT_OFFSET : RIGHT_COUNT_OFFSET);
        NativeArena.written(base, field);
        UnsafeApi.putInt(field, count);
    }

    /** @return true when neither side holds a record. */
    public static boolean isEmpty(final long bucket)
    {
        return UnsafeApi.getLong(bucket + LEFT_COUNT_OFFSET) == 0;
    }
}
