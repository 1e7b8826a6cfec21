package io.junction.internal.state;

import io.junction.internal.memory.Refs;
import org.agrona.UnsafeApi;

/**
 * Layout of a stored row record in the {@link RowStore} arena, addressed by raw address. A record is
 * found through its key's row group ({@link RowGroup}), which holds the addresses of one key's and
 * side's records in arrival order; the record keeps its position in that group so that removal is
 * O(1). Records of kinds that expire rows (interval and window joins, regular joins with a state TTL)
 * carry timer links after the base header and are linked into the {@code TimerWheel}; the others
 * do without those 24 bytes ({@link #FLAG_TIMED}).
 * <pre>
 *   0        8        16     20       24       26       28     29     30    32        40        48        56
 *   +--------+--------+------+--------+--------+--------+------+------+-----+---------+---------+---------+-----+-----+
 *   |bucket  |ts      |count |groupIx |rowLen  |keyLen  |flags |side  |pad  |timerPrev|timerNext|deadline | key | row |
 *   |  i64   |  i64   | i32  |  i32   |  u16   |  u16   |  u8  |  u8  |     |  i64    |  i64    |  i64    |     |     |
 *   +--------+--------+------+--------+--------+--------+------+------+-----+---------+---------+---------+-----+-----+
 *   |&lt;------------------------ base header (32) -----------------------&gt;|&lt;--- timer links, timed only ---&gt;|
 *   count: matches of this row (regular join association count, interval join matched count).
 *   groupIx: the record's slot in its row group.
 *   flags: {@link #FLAG_IN_TIMER} while linked into a timer wheel, {@link #FLAG_TIMED} when the record
 *          has timer links (the key then starts at {@link #TIMED_HEADER_LENGTH}).
 * </pre>
 * The record's length is not stored: it is {@link #headerLength} + key + row, aligned by the arena.
 * Addresses are 0 for "none".
 */
public final class RowDescriptor
{
    /** Offset of the record's bucket (i64 address). */
    public static final int BUCKET_OFFSET = 0;
    /** Offset of the row's event time (i64). */
    public static final int TS_OFFSET = BUCKET_OFFSET + Long.BYTES;
    /** Offset of the row's match count (i32). */
    public static final int COUNT_OFFSET = TS_OFFSET + Long.BYTES;
    /** Offset of the record's slot in its row group (i32). */
    public static final int GROUP_INDEX_OFFSET = COUNT_OFFSET + Integer.BYTES;
    /** Offset of the row bytes' length (u16: a row is at most {@code RowFormat.MAX_ROW_LENGTH} bytes). */
    public static final int ROW_LENGTH_OFFSET = GROUP_INDEX_OFFSET + Integer.BYTES;
    /** Offset of the key bytes' length (u16). */
    public static final int KEY_LENGTH_OFFSET = ROW_LENGTH_OFFSET + Short.BYTES;
    /** Offset of the flags (u8). */
    public static final int FLAGS_OFFSET = KEY_LENGTH_OFFSET + Short.BYTES;
    /**
     * The left side's index, as the side byte stores it and the state's methods take it ({@code Side.LEFT.ordinal()}:
     * the state may not import {@code api.Side}, docs/ARCHITECTURE.md, "Layering"; the operators pass {@code side.ordinal()}).
     */
    public static final int LEFT = 0;
    /** The right side's index ({@code Side.RIGHT.ordinal()}). */
    public static final int RIGHT = 1;
    /** Offset of the side (u8: {@link #LEFT} 0, {@link #RIGHT} 1). */
    public static final int SIDE_OFFSET = FLAGS_OFFSET + Byte.BYTES;
    /** Bytes of the header of a record without timer links, padded to the arena's alignment. */
    public static final int BASE_HEADER_LENGTH = align(SIDE_OFFSET + Byte.BYTES);
    /** Offset of the previous record in the same timer-wheel slot (i64 address); timed records only. */
    public static final int TIMER_PREV_OFFSET = BASE_HEADER_LENGTH;
    /** Offset of the next record in the same timer-wheel slot (i64 address); timed records only. */
    public static final int TIMER_NEXT_OFFSET = TIMER_PREV_OFFSET + Long.BYTES;
    /** Offset of the record's timer deadline (i64); timed records only. */
    public static final int DEADLINE_OFFSET = TIMER_NEXT_OFFSET + Long.BYTES;
    /** Bytes of the header of a record with timer links; the key bytes, then the row bytes, follow it. */
    public static final int TIMED_HEADER_LENGTH = DEADLINE_OFFSET + Long.BYTES;
    /** The largest row a record holds, bounded by its u16 length. */
    public static final int MAX_ROW_LENGTH = 0xFFFF;

    /** Set while the record is linked into a timer wheel. */
    public static final int FLAG_IN_TIMER = 1;
    /** Set when the record has timer links. */
    public static final int FLAG_TIMED = 2;
    /**
     * Set while a regular outer join's row is inside its padded-row delay (SEMANTICS 4.5-4.7): it is not padded
     * while unmatched, nor retracted padded when it matches, until its timer clears the flag.
     */
    public static final int FLAG_PAD_PENDING = 4;
    /**
     * Set on the copy a regular outer join keeps of a row that expired by state TTL while inside its
     * padded-row delay and unmatched: out of reach of every probe and retraction, it waits only to be padded
     * when its delay ends (SEMANTICS 4.5-4.7).
     */
    public static final int FLAG_AWAITING_PAD = 8;

    private RowDescriptor()
    {
    }

    private static int align(final int length)
    {
        return (length + NativeArena.ALIGNMENT - 1) & -NativeArena.ALIGNMENT;
    }

    /**
     * @param timed whether the record has timer links.
     * @return the bytes before the key.
     */
    public static int headerLength(final boolean timed)
    {
        return timed ? TIMED_HEADER_LENGTH : BASE_HEADER_LENGTH;
    }

    /**
     * @param timed     whether the record has timer links.
     * @param keyLength bytes of the key.
     * @param rowLength bytes of the row.
     * @return the bytes the record asks of the arena.
     */
    public static int recordLength(final boolean timed, final int keyLength, final int rowLength)
    {
        return headerLength(timed) + keyLength + rowLength;
    }

    /** @return the record's bucket in a state whose base is 0 (in memory). */
    public static long bucket(final long record)
    {
        return bucket(0, record);
    }

    /**
     * @param base   the state's base address ({@link Refs}).
     * @param record the record.
     * @return the record's bucket.
     */
    public static long bucket(final long base, final long record)
    {
        return Refs.toAddress(base, UnsafeApi.getLong(record + BUCKET_OFFSET));
    }

    public static long ts(final long record)
    {
        return UnsafeApi.getLong(record + TS_OFFSET);
    }

    public static int count(final long record)
    {
        return UnsafeApi.getInt(record + COUNT_OFFSET);
    }

    /**
     * Sets a record's count (the operator's match count or flags), marking it written in a durable arena.
     *
     * @param base   the arena's base ({@link NativeArena#base()}: 0 in memory).
     * @param record the record.
     * @param count  the value.
     */
    public static void count(final long base, final long record, final int count)
    {
        NativeArena.written(base, record + COUNT_OFFSET);
        UnsafeApi.putInt(record + COUNT_OFFSET, count);
    }

    static int groupIndex(final long record)
    {
        return UnsafeApi.getInt(record + GROUP_INDEX_OFFSET);
    }

    static void groupIndex(final long base, final long record, final int index)
    {
        NativeArena.written(base, record + GROUP_INDEX_OFFSET);
        UnsafeApi.putInt(record + GROUP_INDEX_OFFSET, index);
    }

    public static int flags(final long record)
    {
        return UnsafeApi.getByte(record + FLAGS_OFFSET) & 0xFF;
    }

    /**
     * Sets a record's flags, marking them written in a durable arena.
     *
     * @param base   the arena's base ({@link NativeArena#base()}: 0 in memory).
     * @param record the record.
     * @param flags  the flags.
     */
    public static void flags(final long base, final long record, final int flags)
    {
        NativeArena.written(base, record + FLAGS_OFFSET);
        UnsafeApi.putByte(record + FLAGS_OFFSET, (byte)flags);
    }

    /**
     * @return a timed record's deadline field (the last one a timer wheel scheduled it at; {@link Long#MAX_VALUE}
     *         until one does), or {@link Long#MAX_VALUE} for an untimed record. Whether the record is still in a
     *         wheel is its kind's to say.
     */
    public static long deadline(final long record)
    {
        return (flags(record) & FLAG_TIMED) != 0 ? UnsafeApi.getLong(record + DEADLINE_OFFSET) : Long.MAX_VALUE;
    }

    /** @return {@link #LEFT} (0) or {@link #RIGHT} (1). */
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
        return UnsafeApi.getShort(record + ROW_LENGTH_OFFSET) & 0xFFFF;
    }

    /** @return the bytes the record took from the arena, as {@link #recordLength(boolean, int, int)}. */
    public static int recordLength(final long record)
    {
        return recordLength((flags(record) & FLAG_TIMED) != 0, keyLength(record), rowLength(record));
    }

    /** @return the address of the key bytes. */
    public static long keyAddress(final long record)
    {
        return record + headerLength((flags(record) & FLAG_TIMED) != 0);
    }

    /** @return the address of the row bytes. */
    public static long rowAddress(final long record)
    {
        return keyAddress(record) + keyLength(record);
    }
}
