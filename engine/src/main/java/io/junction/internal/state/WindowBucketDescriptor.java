package io.junction.internal.state;

import org.agrona.UnsafeApi;

/**
 * Layout of a window join's key bucket: the standard bucket ({@link BucketDescriptor}) with the bucket's own
 * timer links (the window join's bucket wheel fires a bucket, not a row), its flags, and a window.
 * <pre>
 *   0                  32          40          48          56          64            72          80
 *   +------------------+-----------+-----------+-----------+-----------+-------------+-----------+
 *   | standard bucket  | timerPrev | timerNext | deadline  |  flags    | windowStart | windowEnd |
 *   | BucketDescriptor |   i64     |   i64     |   i64     |   i64     |    i64      |   i64     |
 *   +------------------+-----------+-----------+-----------+-----------+-------------+-----------+
 *   flags: {@link #SCHEDULED} while linked into the bucket wheel; session windows also
 *          {@link #SUMMARY}, {@link #SINGLE}, {@link #MIXED}.
 *   window: tumbling and sliding, the bucket's window as reported, [windowStart, windowEnd);
 *           sessions with {@link #SUMMARY}, the key's latest unfired session, [windowStart, its greatest ts].
 * </pre>
 * The key of a tumbling or sliding bucket is the join key followed by {@link #WINDOW_SUFFIX} bytes naming its
 * window (start, end), so that distinct windows of one key are distinct buckets; a session bucket's key is the
 * join key alone. The layout is durable: it is the window kinds' bucket in their state files.
 *
 * <p>Not thread safe: the buckets belong to the partition thread that owns their store.
 */
public final class WindowBucketDescriptor
{
    /** Offset of the previous bucket in the bucket wheel's slot (i64). */
    public static final int TIMER_PREV_OFFSET = BucketDescriptor.LENGTH;
    /** Offset of the next bucket in the bucket wheel's slot (i64). */
    public static final int TIMER_NEXT_OFFSET = TIMER_PREV_OFFSET + Long.BYTES;
    /** Offset of the bucket's timer deadline (i64). */
    public static final int DEADLINE_OFFSET = TIMER_NEXT_OFFSET + Long.BYTES;
    /** Offset of the bucket's flags (i64). */
    public static final int FLAGS_OFFSET = DEADLINE_OFFSET + Long.BYTES;
    /** Offset of the bucket's window start (i64). */
    public static final int WINDOW_START_OFFSET = FLAGS_OFFSET + Long.BYTES;
    /** Offset of the bucket's window end, or a session summary's greatest ts (i64). */
    public static final int WINDOW_END_OFFSET = WINDOW_START_OFFSET + Long.BYTES;
    /** Bytes of a window bucket. */
    public static final int LENGTH = WINDOW_END_OFFSET + Long.BYTES;

    /** Key bytes after a tumbling or sliding bucket's join key that name its window: start, then end (i64 each). */
    public static final int WINDOW_SUFFIX = 2 * Long.BYTES;
    /** Offset in a tumbling or sliding bucket's key suffix of the window start (i64, little-endian). */
    public static final int SUFFIX_START_OFFSET = 0;
    /** Offset in a tumbling or sliding bucket's key suffix of the window end (i64, little-endian). */
    public static final int SUFFIX_END_OFFSET = SUFFIX_START_OFFSET + Long.BYTES;

    /** Flag: the bucket is linked into the bucket wheel. */
    public static final long SCHEDULED = 1;
    /** Session flag: the window fields hold the key's latest unfired session, {@code [start, max ts]}. */
    public static final long SUMMARY = 2;
    /** Session flag with {@link #SUMMARY}: the key has that one unfired session only. */
    public static final long SINGLE = 4;
    /** Session flag: the bucket holds rows of more than one key (equal hashes): no summary. */
    public static final long MIXED = 8;

    private WindowBucketDescriptor()
    {
    }

    /** @return the bucket's flags. */
    public static long flags(final long bucket)
    {
        return UnsafeApi.getLong(bucket + FLAGS_OFFSET);
    }

    /**
     * Sets the bucket's flags and marks their chunk written ({@link NativeArena#written}).
     *
     * @param base   the arena's base ({@code PartitionState.base}; 0 in memory).
     * @param bucket the bucket.
     * @param flags  its flags.
     */
    public static void flags(final long base, final long bucket, final long flags)
    {
        NativeArena.written(base, bucket + FLAGS_OFFSET);
        UnsafeApi.putLong(bucket + FLAGS_OFFSET, flags);
    }

    /** @return the bucket's window start. */
    public static long windowStart(final long bucket)
    {
        return UnsafeApi.getLong(bucket + WINDOW_START_OFFSET);
    }

    /** @return the bucket's window end (sessions: the summary's greatest ts). */
    public static long windowEnd(final long bucket)
    {
        return UnsafeApi.getLong(bucket + WINDOW_END_OFFSET);
    }

    /**
     * Sets the bucket's window (sessions: the summary's start and greatest ts) and marks its chunk written.
     *
     * @param base   the arena's base ({@code PartitionState.base}; 0 in memory).
     * @param bucket the bucket.
     * @param start  the window's start.
     * @param end    the window's end.
     */
    public static void window(final long base, final long bucket, final long start, final long end)
    {
        NativeArena.written(base, bucket + WINDOW_START_OFFSET, 2 * Long.BYTES);
        UnsafeApi.putLong(bucket + WINDOW_START_OFFSET, start);
        UnsafeApi.putLong(bucket + WINDOW_END_OFFSET, end);
    }

    /** @return the bucket's timer deadline (valid while {@link #SCHEDULED}). */
    public static long deadline(final long bucket)
    {
        return UnsafeApi.getLong(bucket + DEADLINE_OFFSET);
    }

    /** @return the live rows of the bucket, both sides. */
    public static int rows(final long bucket)
    {
        return UnsafeApi.getInt(bucket + BucketDescriptor.LEFT_COUNT_OFFSET) + UnsafeApi.getInt(bucket + BucketDescriptor.RIGHT_COUNT_OFFSET);
    }
}
