package io.junction.internal.state;

import io.junction.internal.row.BufferCompare;
import io.junction.api.RowView;
import io.junction.api.Side;
import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Stored rows of one partition: records ({@link RowDescriptor}) in an off-heap {@link NativeArena},
 * chained per key and side from their bucket ({@link BucketDescriptor}). Appends go to the chain's
 * tail so that a key's rows are visited in arrival order; removal is O(1) through the back link, and
 * the record's memory is reused by the next record of its size class.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public final class RowStore implements AutoCloseable
{
    private final NativeArena arena;
    private final UnsafeBuffer keyBuffer = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer rowBuffer = new UnsafeBuffer(0, 0);
    private long liveLeft;
    private long liveRight;

    public RowStore()
    {
        this(NativeArena.DEFAULT_CHUNK_SIZE);
    }

    /** @param chunkSize bytes per arena chunk. */
    public RowStore(final int chunkSize)
    {
        this(chunkSize, 0);
    }

    /**
     * @param chunkSize   bytes per arena chunk.
     * @param preallocate bytes of arena to take and touch up front ({@link NativeArena}).
     */
    public RowStore(final int chunkSize, final long preallocate)
    {
        this(chunkSize, preallocate, Long.MAX_VALUE);
    }

    /**
     * @param chunkSize   bytes per arena chunk.
     * @param preallocate bytes of arena to take and touch up front ({@link NativeArena}).
     * @param limit       the most bytes the arena takes from the OS.
     */
    public RowStore(final int chunkSize, final long preallocate, final long limit)
    {
        this.arena = new NativeArena(chunkSize, preallocate, limit);
    }

    /**
     * Stores a row at the tail of its bucket's chain for {@code side}.
     *
     * @return the record's address, or 0 (nothing stored) when the arena has no memory for it.
     */
    public long append(
        final long bucket, final Side side, final DirectBuffer key, final int keyOffset, final int keyLength,
        final RowView row, final long ts)
    {
        final long record = allocate(keyLength, row.length());
        if (record == 0)
        {
            return 0;
        }
        return append(record, bucket, side, key, keyOffset, keyLength, row, ts);
    }

    /**
     * Takes the memory of a record without storing anything, so that a row's every allocation can
     * succeed before any of its effects (output, links) happen.
     *
     * @return the record, for {@link #append(long, long, Side, DirectBuffer, int, int, RowView, long)} or
     *         {@link #release}, or 0 when the arena has no memory for it.
     */
    public long allocate(final int keyLength, final int rowLength)
    {
        return arena.allocate(RowDescriptor.HEADER_LENGTH + keyLength + rowLength);
    }

    /** Returns a record from {@link #allocate} that was never appended. */
    public void release(final long record, final int keyLength, final int rowLength)
    {
        arena.free(record, RowDescriptor.HEADER_LENGTH + keyLength + rowLength);
    }

    /**
     * Stores a row into a record from {@link #allocate} (with the same key and row lengths) at the
     * tail of its bucket's chain for {@code side}.
     *
     * @return the record's address.
     */
    public long append(
        final long record, final long bucket, final Side side, final DirectBuffer key, final int keyOffset,
        final int keyLength, final RowView row, final long ts)
    {
        final int rowLength = row.length();
        final int recordLength = NativeArena.alignedSize(RowDescriptor.HEADER_LENGTH + keyLength + rowLength);
        final long tail = BucketDescriptor.tail(bucket, side);
        UnsafeApi.putLong(record + RowDescriptor.KEY_PREV_OFFSET, tail);
        UnsafeApi.putLong(record + RowDescriptor.KEY_NEXT_OFFSET, 0);
        UnsafeApi.putLong(record + RowDescriptor.BUCKET_OFFSET, bucket);
        UnsafeApi.putLong(record + RowDescriptor.TS_OFFSET, ts);
        UnsafeApi.putLong(record + RowDescriptor.TIMER_PREV_OFFSET, 0);
        UnsafeApi.putLong(record + RowDescriptor.TIMER_NEXT_OFFSET, 0);
        UnsafeApi.putLong(record + RowDescriptor.DEADLINE_OFFSET, Long.MAX_VALUE);
        UnsafeApi.putInt(record + RowDescriptor.COUNT_OFFSET, 0);
        UnsafeApi.putByte(record + RowDescriptor.FLAGS_OFFSET, (byte)0);
        UnsafeApi.putByte(record + RowDescriptor.SIDE_OFFSET, (byte)side.ordinal());
        UnsafeApi.putShort(record + RowDescriptor.KEY_LENGTH_OFFSET, (short)keyLength);
        UnsafeApi.putInt(record + RowDescriptor.ROW_LENGTH_OFFSET, rowLength);
        UnsafeApi.putInt(record + RowDescriptor.RECORD_LENGTH_OFFSET, recordLength);
        keyBuffer.wrap(record + RowDescriptor.HEADER_LENGTH, keyLength);
        keyBuffer.putBytes(0, key, keyOffset, keyLength);
        rowBuffer.wrap(record + RowDescriptor.HEADER_LENGTH + keyLength, rowLength);
        rowBuffer.putBytes(0, row.buffer(), row.offset(), rowLength);

        if (tail == 0)
        {
            BucketDescriptor.head(bucket, side, record);
        }
        else
        {
            UnsafeApi.putLong(tail + RowDescriptor.KEY_NEXT_OFFSET, record);
        }
        BucketDescriptor.tail(bucket, side, record);
        BucketDescriptor.count(bucket, side, BucketDescriptor.count(bucket, side) + 1);
        if (side == Side.LEFT)
        {
            liveLeft++;
        }
        else
        {
            liveRight++;
        }
        return record;
    }

    /** Unlinks a record from its key chain and frees it. The caller unlinks it from any timer first. */
    public void remove(final long record)
    {
        final long bucket = RowDescriptor.bucket(record);
        final Side side = RowDescriptor.side(record) == 0 ? Side.LEFT : Side.RIGHT;
        final long prev = UnsafeApi.getLong(record + RowDescriptor.KEY_PREV_OFFSET);
        final long next = UnsafeApi.getLong(record + RowDescriptor.KEY_NEXT_OFFSET);
        if (prev == 0)
        {
            BucketDescriptor.head(bucket, side, next);
        }
        else
        {
            UnsafeApi.putLong(prev + RowDescriptor.KEY_NEXT_OFFSET, next);
        }
        if (next == 0)
        {
            BucketDescriptor.tail(bucket, side, prev);
        }
        else
        {
            UnsafeApi.putLong(next + RowDescriptor.KEY_PREV_OFFSET, prev);
        }
        BucketDescriptor.count(bucket, side, BucketDescriptor.count(bucket, side) - 1);
        if (side == Side.LEFT)
        {
            liveLeft--;
        }
        else
        {
            liveRight--;
        }
        arena.free(record, RowDescriptor.recordLength(record));
    }

    /** @return true when the record's key bytes equal the given ones. */
    public boolean keyEquals(final long record, final DirectBuffer key, final int offset, final int length)
    {
        if (RowDescriptor.keyLength(record) != length)
        {
            return false;
        }
        keyBuffer.wrap(RowDescriptor.keyAddress(record), length);
        return BufferCompare.equals(keyBuffer, 0, key, offset, length);
    }

    /** @return true when two records have equal key bytes. */
    public static boolean keyEquals(final long a, final long b)
    {
        final int length = RowDescriptor.keyLength(a);
        if (RowDescriptor.keyLength(b) != length)
        {
            return false;
        }
        final long x = RowDescriptor.keyAddress(a);
        final long y = RowDescriptor.keyAddress(b);
        int i = 0;
        for (; i + 8 <= length; i += 8)
        {
            if (UnsafeApi.getLong(x + i) != UnsafeApi.getLong(y + i))
            {
                return false;
            }
        }
        for (; i < length; i++)
        {
            if (UnsafeApi.getByte(x + i) != UnsafeApi.getByte(y + i))
            {
                return false;
            }
        }
        return true;
    }

    /** @return true when the record's row bytes equal the row's. */
    public boolean rowEquals(final long record, final RowView row)
    {
        final int length = RowDescriptor.rowLength(record);
        if (length != row.length())
        {
            return false;
        }
        rowBuffer.wrap(RowDescriptor.rowAddress(record), length);
        return BufferCompare.equals(rowBuffer, 0, row.buffer(), row.offset(), length);
    }

    /**
     * @return the first record of {@code side} in the bucket with equal key and row bytes, or 0.
     */
    public long findEqual(
        final long bucket, final Side side, final DirectBuffer key, final int keyOffset, final int keyLength,
        final RowView row)
    {
        for (long record = BucketDescriptor.head(bucket, side); record != 0; record = RowDescriptor.keyNext(record))
        {
            if (keyEquals(record, key, keyOffset, keyLength) && rowEquals(record, row))
            {
                return record;
            }
        }
        return 0;
    }

    /**
     * Points {@code view} at a record's row through {@code buffer}, which the view then references:
     * use one buffer per view that must stay valid at the same time.
     */
    public static RowView wrap(final long record, final UnsafeBuffer buffer, final RowView view)
    {
        final int length = RowDescriptor.rowLength(record);
        buffer.wrap(RowDescriptor.rowAddress(record), length);
        return view.wrap(buffer, 0, length);
    }

    /** @return live rows of one side. */
    public long liveRows(final Side side)
    {
        return side == Side.LEFT ? liveLeft : liveRight;
    }

    /** @return live rows of both sides. */
    public long liveRows()
    {
        return liveLeft + liveRight;
    }

    /** @return off-heap bytes reserved for records. */
    public long reservedBytes()
    {
        return arena.reservedBytes();
    }

    /** @return off-heap bytes in live records. */
    public long usedBytes()
    {
        return arena.usedBytes();
    }

    @Override
    public void close()
    {
        arena.close();
    }
}
