package io.junction.internal.state;

import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A multi-way join's stored rows: records ({@link MultiRowDescriptor}) and buckets of one row group per input
 * ({@link MultiBucketDescriptor}) in one off-heap {@link NativeArena}. A group is kept in arrival order,
 * dense, so that a walk over it reads one array and a retraction finds the oldest equal copy first; a group of
 * one row holds it inline. Every operation that takes memory comes before the row has any effect
 * ({@link #allocateRecord}, {@link #createBucket}, {@link #reserve}), so that a full arena is a refused row,
 * never a half-stored one.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public final class MultiRowStore implements AutoCloseable
{
    /** Slots of a group's first array, when an input's second row of a key arrives. */
    static final int FIRST_CAPACITY = 4;
    /** The most slots of one group: its array stays below 2 GiB. */
    static final int MAX_CAPACITY = 1 << 27;

    private final NativeArena arena;
    private final int inputs;
    private final int bucketLength;
    private final UnsafeBuffer rowBuffer = new UnsafeBuffer(0, 0);

    /**
     * @param inputs    the join's inputs, 2 to 16.
     * @param chunkSize bytes per arena chunk.
     * @param limit     the most bytes the arena takes from the OS.
     */
    public MultiRowStore(final int inputs, final int chunkSize, final long limit)
    {
        if (inputs < 1 || inputs > 255)
        {
            throw new IllegalArgumentException("inputs must be 1 to 255: " + inputs);
        }
        this.inputs = inputs;
        this.bucketLength = MultiBucketDescriptor.length(inputs);
        this.arena = new NativeArena(chunkSize, 0, limit);
    }

    /**
     * @param rowLength bytes of the row, at most {@link MultiRowDescriptor#MAX_ROW_LENGTH}.
     * @return a record's memory, not yet written, or 0 when the arena has none.
     */
    public long allocateRecord(final int rowLength)
    {
        return arena.allocate(MultiRowDescriptor.recordLength(rowLength));
    }

    /**
     * Writes a record from {@link #allocateRecord}: its header and a copy of the row.
     *
     * @param record the record.
     * @param buffer the row's bytes.
     * @param offset where the row starts in {@code buffer}.
     * @param length the row's length, the one the record was allocated for.
     * @param ts     the row's event time.
     * @param input  the row's input.
     * @param flags  the record's flags.
     */
    public void writeRecord(
        final long record, final DirectBuffer buffer, final int offset, final int length, final long ts, final int input,
        final int flags)
    {
        MultiRowDescriptor.init(record, ts, length, input, flags);
        rowBuffer.wrap(MultiRowDescriptor.rowAddress(record), length);
        rowBuffer.putBytes(0, buffer, offset, length);
    }

    /**
     * @param record a record of this store, in no group.
     */
    public void freeRecord(final long record)
    {
        arena.free(record, MultiRowDescriptor.recordLength(record));
    }

    /**
     * Frees a record from {@link #allocateRecord} that was never written.
     *
     * @param record    the record.
     * @param rowLength the row length it was allocated for.
     */
    public void freeRecord(final long record, final int rowLength)
    {
        arena.free(record, MultiRowDescriptor.recordLength(rowLength));
    }

    /** @return a bucket with no rows, or 0 when the arena has no memory for it. */
    public long createBucket()
    {
        final long bucket = arena.allocate(bucketLength);
        if (bucket != 0)
        {
            UnsafeApi.setMemory(bucket, bucketLength, (byte)0);
        }
        return bucket;
    }

    /** @param bucket an empty bucket of this store. */
    public void freeBucket(final long bucket)
    {
        arena.free(bucket, bucketLength);
    }

    /**
     * @param bucket a bucket.
     * @return whether no input has a row in it.
     */
    public boolean isEmpty(final long bucket)
    {
        for (int i = 0; i < inputs; i++)
        {
            if (MultiBucketDescriptor.group(bucket, i) != 0)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @param bucket a bucket.
     * @return a record of it (the first of its first input with rows), or 0 when it is empty.
     */
    public long anyRecord(final long bucket)
    {
        for (int i = 0; i < inputs; i++)
        {
            final long group = MultiBucketDescriptor.group(bucket, i);
            if (group != 0)
            {
                return MultiBucketDescriptor.record(group, 0);
            }
        }
        return 0;
    }

    /**
     * Makes room for one more row in an input's group, growing its array, so that the next {@link #append} to
     * it cannot fail: call it before a row has any effect. Idempotent while nothing is appended.
     *
     * @param bucket the bucket.
     * @param input  the input.
     * @return false, with the group as it was, when the arena has no memory for a larger array.
     */
    public boolean reserve(final long bucket, final int input)
    {
        final long group = MultiBucketDescriptor.group(bucket, input);
        if (group == 0)
        {
            return true;
        }
        if ((group & MultiBucketDescriptor.ARRAY_TAG) == 0)
        {
            final long array = arena.allocate(MultiBucketDescriptor.arrayLength(FIRST_CAPACITY));
            if (array == 0)
            {
                return false;
            }
            UnsafeApi.putInt(array + MultiBucketDescriptor.CAPACITY_OFFSET, FIRST_CAPACITY);
            MultiBucketDescriptor.arraySize(array, 1);
            UnsafeApi.putLong(MultiBucketDescriptor.slotAddress(array, 0), group);
            MultiBucketDescriptor.group(bucket, input, array | MultiBucketDescriptor.ARRAY_TAG);
            return true;
        }
        final long array = group ^ MultiBucketDescriptor.ARRAY_TAG;
        final int capacity = MultiBucketDescriptor.capacity(array);
        final int size = MultiBucketDescriptor.arraySize(array);
        if (size < capacity)
        {
            return true;
        }
        if (capacity >= MAX_CAPACITY)
        {
            return false;
        }
        final long grown = arena.allocate(MultiBucketDescriptor.arrayLength(capacity * 2));
        if (grown == 0)
        {
            return false;
        }
        moveArray(bucket, input, array, size, grown, capacity * 2);
        return true;
    }

    private void moveArray(final long bucket, final int input, final long from, final int size, final long to, final int capacity)
    {
        UnsafeApi.putInt(to + MultiBucketDescriptor.CAPACITY_OFFSET, capacity);
        MultiBucketDescriptor.arraySize(to, size);
        UnsafeApi.copyMemory(MultiBucketDescriptor.slotAddress(from, 0), MultiBucketDescriptor.slotAddress(to, 0),
            (long)size * MultiBucketDescriptor.SLOT_LENGTH);
        arena.free(from, MultiBucketDescriptor.arrayLength(MultiBucketDescriptor.capacity(from)));
        MultiBucketDescriptor.group(bucket, input, to | MultiBucketDescriptor.ARRAY_TAG);
    }

    /**
     * Appends a written record at the end of an input's group, after {@link #reserve} said true.
     *
     * @param bucket the bucket.
     * @param input  the record's input.
     * @param record the record.
     */
    public void append(final long bucket, final int input, final long record)
    {
        final long group = MultiBucketDescriptor.group(bucket, input);
        if (group == 0)
        {
            MultiBucketDescriptor.group(bucket, input, record);
            return;
        }
        final long array = group ^ MultiBucketDescriptor.ARRAY_TAG;
        final int size = MultiBucketDescriptor.arraySize(array);
        UnsafeApi.putLong(MultiBucketDescriptor.slotAddress(array, size), record);
        MultiBucketDescriptor.arraySize(array, size + 1);
    }

    /**
     * Removes a record from an input's group (the caller frees it), the later records moving down one slot so
     * that the group stays in arrival order; a group left with one row holds it inline again, and an array
     * three quarters empty moves to one half its size when the arena has memory for it.
     *
     * @param bucket the bucket.
     * @param input  the record's input.
     * @param record a record of the group.
     */
    public void unlink(final long bucket, final int input, final long record)
    {
        final long group = MultiBucketDescriptor.group(bucket, input);
        if ((group & MultiBucketDescriptor.ARRAY_TAG) == 0)
        {
            if (group == record)
            {
                MultiBucketDescriptor.group(bucket, input, 0);
            }
            return;
        }
        final long array = group ^ MultiBucketDescriptor.ARRAY_TAG;
        final int size = MultiBucketDescriptor.arraySize(array);
        int at = -1;
        for (int k = 0; k < size; k++)
        {
            if (UnsafeApi.getLong(MultiBucketDescriptor.slotAddress(array, k)) == record)
            {
                at = k;
                break;
            }
        }
        if (at < 0)
        {
            return;
        }
        final int left = size - 1;
        for (int k = at; k < left; k++)
        {
            final long later = UnsafeApi.getLong(MultiBucketDescriptor.slotAddress(array, k + 1));
            UnsafeApi.putLong(MultiBucketDescriptor.slotAddress(array, k), later);
        }
        MultiBucketDescriptor.arraySize(array, left);
        final int capacity = MultiBucketDescriptor.capacity(array);
        if (left == 1)
        {
            MultiBucketDescriptor.group(bucket, input, UnsafeApi.getLong(MultiBucketDescriptor.slotAddress(array, 0)));
            arena.free(array, MultiBucketDescriptor.arrayLength(capacity));
        }
        else if (capacity > FIRST_CAPACITY && left * 4 <= capacity)
        {
            final long smaller = arena.allocate(MultiBucketDescriptor.arrayLength(capacity / 2));
            if (smaller != 0)
            {
                moveArray(bucket, input, array, left, smaller, capacity / 2);
            }
        }
    }

    /**
     * @param bucket a bucket.
     * @param input  an input.
     * @param buffer a row's bytes.
     * @param offset where the row starts in {@code buffer}.
     * @param length the row's length.
     * @return the oldest record of the input's group whose row bytes equal the row's, or 0.
     */
    public long findEqual(final long bucket, final int input, final DirectBuffer buffer, final int offset, final int length)
    {
        final long group = MultiBucketDescriptor.group(bucket, input);
        final int size = MultiBucketDescriptor.size(group);
        for (int k = 0; k < size; k++)
        {
            final long record = MultiBucketDescriptor.record(group, k);
            if (MultiRowDescriptor.rowLength(record) == length && rowEquals(record, buffer, offset, length))
            {
                return record;
            }
        }
        return 0;
    }

    /**
     * @param record a record.
     * @param buffer bytes.
     * @param offset where they start.
     * @param length how many, equal to the record's row length.
     * @return whether the record's row bytes are those.
     */
    public static boolean rowEquals(final long record, final DirectBuffer buffer, final int offset, final int length)
    {
        final long address = MultiRowDescriptor.rowAddress(record);
        int i = 0;
        for (; i + Long.BYTES <= length; i += Long.BYTES)
        {
            if (UnsafeApi.getLong(address + i) != buffer.getLong(offset + i))
            {
                return false;
            }
        }
        for (; i < length; i++)
        {
            if (UnsafeApi.getByte(address + i) != buffer.getByte(offset + i))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @param a a record.
     * @param b a record.
     * @return whether their row bytes are equal.
     */
    public static boolean sameRow(final long a, final long b)
    {
        final int length = MultiRowDescriptor.rowLength(a);
        if (MultiRowDescriptor.rowLength(b) != length)
        {
            return false;
        }
        final long x = MultiRowDescriptor.rowAddress(a);
        final long y = MultiRowDescriptor.rowAddress(b);
        int i = 0;
        for (; i + Long.BYTES <= length; i += Long.BYTES)
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

    /**
     * Points {@code buffer} at a record's row bytes (a flyweight over them: the layers above wrap a row view on it).
     *
     * @param record the record.
     * @param buffer the buffer to wrap the row bytes in.
     * @return the row's length.
     */
    public static int wrapRow(final long record, final UnsafeBuffer buffer)
    {
        final int length = MultiRowDescriptor.rowLength(record);
        buffer.wrap(MultiRowDescriptor.rowAddress(record), length);
        return length;
    }

    /** @return off-heap bytes the arena has taken from the OS. */
    public long reservedBytes()
    {
        return arena.reservedBytes();
    }

    /** @return off-heap bytes in live records, buckets and group arrays. */
    public long usedBytes()
    {
        return arena.usedBytes();
    }

    /** Frees every chunk. Idempotent. */
    @Override
    public void close()
    {
        arena.close();
    }
}
