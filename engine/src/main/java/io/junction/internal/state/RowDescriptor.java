package io.junction.internal.state;

import org.agrona.UnsafeApi;

/**
 * Layout of a stored row record in the {@link RowStore} arena, addressed by raw address. Records of
 * one key and side form a doubly linked chain from their bucket ({@link BucketDescriptor}); records
 * with a deadline are also linked into the {@code TimerWheel} through the timer fields.
 * <pre>
 *   0        8        16       24       32         40         48         56      60     61    62       64       68
 *   +--------+--------+--------+--------+----------+----------+----------+-------+------+-----+--------+--------+--------+-----+-----+
 *   |keyPrev |keyNext |bucket  |ts      |timerPrev |timerNext |deadline  |count  |flags |side |keyLen  |rowLen  |recLen  | key | row |
 *   |  i64   |  i64   |  i64   |  i64   |  i64     |  i64     |  i64     |  i32  |  u8  | u8  |  u16   |  i32   |  i32   |     |     |
 *   +--------+--------+--------+--------+----------+----------+----------+-------+------+-----+--------+--------+--------+-----+-----+
 *   count: matches of this row (regular join association count, interval join matched count).
 *   flags: {@link #FLAG_IN_TIMER} while linked into a timer wheel.
 * </pre>
 * Addresses are 0 for "none".
 */
public final class RowDescriptor
{
    /** Offset of the previous record of the same key and side (i64 address). */
    public static final int KEY_PREV_OFFSET = 0;
    /** Offset of the next record of the same key and side (i64 address). */
    public static final int KEY_NEXT_OFFSET = KEY_PREV_OFFSET + Long.BYTES;
    /** Offset of the record's bucket (i64 address). */
    public static final int BUCKET_OFFSET = KEY_NEXT_OFFSET + Long.BYTES;
    /** Offset of the row's event time (i64). */
    public static final int TS_OFFSET = BUCKET_OFFSET + Long.BYTES;
    /** Offset of the previous record in the same timer-wheel slot (i64 address). */
    public static final int TIMER_PREV_OFFSET = TS_OFFSET + Long.BYTES;
    /** Offset of the next record in the same timer-wheel slot (i64 address). */
    public static final int TIMER_NEXT_OFFSET = TIMER_PREV_OFFSET + Long.BYTES;
    /** Offset of the record's timer deadline (i64). */
    public static final int DEADLINE_OFFSET = TIMER_NEXT_OFFSET + Long.BYTES;
    /** Offset of the row's match count (i32). */
    public static final int COUNT_OFFSET = DEADLINE_OFFSET + Long.BYTES;
    /** Offset of the flags (u8). */
    public static final int FLAGS_OFFSET = COUNT_OFFSET + Integer.BYTES;
    /** Offset of the side (u8: 0 left, 1 right). */
    public static final int SIDE_OFFSET = FLAGS_OFFSET + Byte.BYTES;
    /** Offset of the key bytes' length (u16). */
    public static final int KEY_LENGTH_OFFSET = SIDE_OFFSET + Byte.BYTES;
    /** Offset of the row bytes' length (i32). */
    public static final int ROW_LENGTH_OFFSET = KEY_LENGTH_OFFSET + Short.BYTES;
    /** Offset of the whole record's length (i32). */
    public static final int RECORD_LENGTH_OFFSET = ROW_LENGTH_OFFSET + Integer.BYTES;
    /** Bytes of the header; the key bytes, then the row bytes, follow it. */
    public static final int HEADER_LENGTH = RECORD_LENGTH_OFFSET + Integer.BYTES;

    /** Set while the record is linked into a timer wheel. */
    public static final int FLAG_IN_TIMER = 1;

    private RowDescriptor()
    {
    }

    public static long keyNext(final long record)
    {
        return UnsafeApi.getLong(record + KEY_NEXT_OFFSET);
    }

    public static long bucket(final long record)
    {
        return UnsafeApi.getLong(record + BUCKET_OFFSET);
    }

    public static long ts(final long record)
    {
        return UnsafeApi.getLong(record + TS_OFFSET);
    }

    public static int count(final long record)
    {
        return UnsafeApi.getInt(record + COUNT_OFFSET);
    }

    public static void count(final long record, final int count)
    {
        UnsafeApi.putInt(record + COUNT_OFFSET, count);
    }

    public static int flags(final long record)
    {
        return UnsafeApi.getByte(record + FLAGS_OFFSET) & 0xFF;
    }

    public static void flags(final long record, final int flags)
    {
        UnsafeApi.putByte(record + FLAGS_OFFSET, (byte)flags);
    }

    /** @return 0 for left, 1 for right. */
    public static int side(final long record)
    {
        return UnsafeApi.getByte(record + SIDE_OFFSET);
    }

    public static int keyLength(final long record)
    {
        return UnsafeApi.getShort(record + KEY_LENGTH_OFFSET) & 0xFFFF;
    }

    public static int rowLength(final long record)
    {
        return UnsafeApi.getInt(record + ROW_LENGTH_OFFSET);
    }

    public static int recordLength(final long record)
    {
        return UnsafeApi.getInt(record + RECORD_LENGTH_OFFSET);
    }

    /** @return the address of the key bytes. */
    public static long keyAddress(final long record)
    {
        return record + HEADER_LENGTH;
    }

    /** @return the address of the row bytes. */
    public static long rowAddress(final long record)
    {
        return record + HEADER_LENGTH + keyLength(record);
    }
}
