package io.junction.internal.state;

import org.agrona.UnsafeApi;

/**
 * Layout of a multi-way join's stored row record ({@link MultiRowStore}), addressed by raw address. A record
 * holds one input row's bytes, its event time, its input and its place in the state TTL queue; its key is not
 * stored (it is the row's key fields, extracted again where needed), nor its bucket (found again by key).
 * <pre>
 *   0        8        10       11       12         16
 *   +--------+--------+--------+--------+----------+-------------+
 *   |ts      |rowLen  |input   |flags   |queueIx   | row bytes   |
 *   |  i64   |  u16   |  u8    |  u8    |   i32    | rowLen      |
 *   +--------+--------+--------+--------+----------+-------------+
 *   |&lt;------------- header (16) -----------------&gt;|
 *   flags: {@link #FLAG_UNMATCHABLE} for a row that can never match (kept by content, not by key).
 *   queueIx: the record's slot in the operator's state TTL queue, -1 while not queued.
 * </pre>
 * The record's length is not stored: it is {@link #HEADER_LENGTH} + rowLen, aligned by the arena.
 *
 * <p>Not thread safe: the records belong to the partition thread that owns their store.
 */
public final class MultiRowDescriptor
{
    /** Offset of the row's event time (i64). */
    public static final int TS_OFFSET = 0;
    /** Offset of the row bytes' length (u16). */
    public static final int ROW_LENGTH_OFFSET = TS_OFFSET + Long.BYTES;
    /** Offset of the row's input (u8: a multi-way join has at most 16). */
    public static final int INPUT_OFFSET = ROW_LENGTH_OFFSET + Short.BYTES;
    /** Offset of the flags (u8). */
    public static final int FLAGS_OFFSET = INPUT_OFFSET + Byte.BYTES;
    /** Offset of the record's slot in the state TTL queue (i32, -1 while not queued). */
    public static final int QUEUE_INDEX_OFFSET = FLAGS_OFFSET + Byte.BYTES;
    /** Bytes of the header; the row bytes follow it. */
    public static final int HEADER_LENGTH = QUEUE_INDEX_OFFSET + Integer.BYTES;
    /** The largest row a record holds, bounded by its u16 length. */
    public static final int MAX_ROW_LENGTH = 0xFFFF;
    /** Set on a row that can never match (a null key field, or failing its input's filter). */
    public static final int FLAG_UNMATCHABLE = 1;

    private MultiRowDescriptor()
    {
    }

    /**
     * @param rowLength bytes of the row.
     * @return the bytes the record asks of the arena.
     */
    public static int recordLength(final int rowLength)
    {
        return HEADER_LENGTH + rowLength;
    }

    /**
     * Writes a record's header.
     *
     * @param record    the record.
     * @param ts        the row's event time.
     * @param rowLength bytes of the row.
     * @param input     the row's input.
     * @param flags     the flags.
     */
    public static void init(final long base, final long record, final long ts, final int rowLength, final int input, final int flags)
    {
        NativeArena.written(base, record, HEADER_LENGTH);
        UnsafeApi.putLong(record + TS_OFFSET, ts);
        UnsafeApi.putShort(record + ROW_LENGTH_OFFSET, (short)rowLength);
        UnsafeApi.putByte(record + INPUT_OFFSET, (byte)input);
        UnsafeApi.putByte(record + FLAGS_OFFSET, (byte)flags);
        UnsafeApi.putInt(record + QUEUE_INDEX_OFFSET, -1);
    }

    /**
     * @param record a record.
     * @return the row's event time.
     */
    public static long ts(final long record)
    {
        return UnsafeApi.getLong(record + TS_OFFSET);
    }

    /**
     * @param record a record.
     * @return the row bytes' length.
     */
    public static int rowLength(final long record)
    {
        return UnsafeApi.getShort(record + ROW_LENGTH_OFFSET) & 0xFFFF;
    }

    /**
     * @param record a record.
     * @return the row's input.
     */
    public static int input(final long record)
    {
        return UnsafeApi.getByte(record + INPUT_OFFSET) & 0xFF;
    }

    /**
     * @param record a record.
     * @return the flags.
     */
    public static int flags(final long record)
    {
        return UnsafeApi.getByte(record + FLAGS_OFFSET) & 0xFF;
    }

    /**
     * @param record a record.
     * @return its slot in the state TTL queue, -1 while not queued.
     */
    public static int queueIndex(final long record)
    {
        return UnsafeApi.getInt(record + QUEUE_INDEX_OFFSET);
    }

    /**
     * @param record a record.
     * @param index  its slot in the state TTL queue, -1 for none.
     */
    public static void queueIndex(final long base, final long record, final int index)
    {
        NativeArena.written(base, record + QUEUE_INDEX_OFFSET);
        UnsafeApi.putInt(record + QUEUE_INDEX_OFFSET, index);
    }

    /**
     * @param record a record.
     * @return the address of the row bytes.
     */
    public static long rowAddress(final long record)
    {
        return record + HEADER_LENGTH;
    }

    /**
     * @param record a record.
     * @return the bytes the record took from the arena, as {@link #recordLength(int)}.
     */
    public static int recordLength(final long record)
    {
        return recordLength(rowLength(record));
    }
}
