package io.junction.internal.state;

import io.junction.internal.memory.Refs;
import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A multi-way join's stored rows: records ({@link MultiRowDescriptor}) and buckets of one row group per input
 * ({@link MultiBucketDescriptor}) in an off-heap {@link NativeArena}: the partition state's own (the operator's
 * store shares the arena of the partition's {@code RowStore}, and in durable mode its mapped file), or one of
 * its own. Every reference it writes into the arena (a group's record or array, an array's slots, a bucket's
 * link) is stored relative to {@link #base()} ({@link Refs}), so that a mapped arena reopens at another address
 * unchanged. A group is kept in arrival order, dense, so that a walk over it reads one array and a retraction
 * finds the oldest equal copy first; a group of one row holds it inline. A bucket keeps no live row counts:
 * its groups' sizes are its counts ({@link #isEmpty}, {@link #rows}). Every operation that takes memory
 * comes before the row has any effect ({@link #allocateRecord}, {@link #createBucket}, {@link #reserve}), so
 * that a full arena is a refused row, never a half-stored one.
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
    /** Whether {@link #close()} frees the arena: only one this store made. */
    private final boolean ownsArena;
    private final long base;
    private final int inputs;
    private final int bucketLength;
    private final UnsafeBuffer rowBuffer = new UnsafeBuffer(0, 0);

    /**
     * A store in an arena of its own, in memory.
     *
     * @param inputs    the join's inputs, 2 to 16.
     * @param chunkSize bytes per arena chunk.
     * @param limit     the most bytes the arena takes from the OS.
     */
    public MultiRowStore(final int inputs, final int chunkSize, final long limit)
    {
        this(inputs, new NativeArena(chunkSize, 0, limit), 0, true);
    }

    /**
     * A store in an arena it shares (the partition state's): closed by its owner, not by this store.
     *
     * @param inputs the join's inputs, 2 to 16.
     * @param arena  the arena.
     * @param base   the arena's base address ({@link NativeArena#base()} for a mapped one, else 0).
     */
    public MultiRowStore(final int inputs, final NativeArena arena, final long base)
    {
        this(inputs, arena, base, false);
    }

    private MultiRowStore(final int inputs, final NativeArena arena, final long base, final boolean ownsArena)
    {
        if (inputs < 1 || inputs > 255)
        {
            if (ownsArena)
            {
                arena.close();
            }
            throw new IllegalArgumentException("inputs must be 1 to 255: " + inputs);
        }
        this.inputs = inputs;
        this.bucketLength = MultiBucketDescriptor.length(inputs);
        this.arena = arena;
        this.base = base;
        this.ownsArena = ownsArena;
    }

    /** @return the address stored references are relative to (0 in memory). */
    public long base()
    {
        return base;
    }

    /** @return the arena the records, arrays and linked buckets live in. */
    public NativeArena arena()
    {
        return arena;
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
        MultiRowDescriptor.init(base, record, ts, length, input, flags);
        NativeArena.written(base, MultiRowDescriptor.rowAddress(record), Math.max(1, length));
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

    /** @return a bucket with no rows and key hash 0, or 0 when the arena has no memory for it. */
    public long createBucket()
    {
        return createBucket(0, false);
    }

    /**
     * A bucket from the arena (a colliding key's, linked after the key index's bucket of its hash).
     *
     * @param hash        the key (or content) hash.
     * @param unmatchable whether it holds rows that can never match.
     * @return a bucket with no rows and no link, or 0 when the arena has no memory for it.
     */
    public long createBucket(final long hash, final boolean unmatchable)
    {
        final long bucket = arena.allocate(bucketLength);
        if (bucket != 0)
        {
            NativeArena.written(base, bucket, bucketLength);
            UnsafeApi.setMemory(bucket, bucketLength, (byte)0);
            UnsafeApi.putLong(bucket + MultiBucketDescriptor.HASH_OFFSET, hash);
            MultiBucketDescriptor.link(base, bucket, 0, unmatchable);
        }
        return bucket;
    }

    /**
     * Initialises a bucket the key index has just created ({@link BucketDescriptor#init} wrote its hash and
     * cleared only a standard bucket's length): no link, no groups.
     *
     * @param bucket      the bucket, {@link MultiBucketDescriptor#length} bytes.
     * @param unmatchable whether it holds rows that can never match.
     */
    public void initBucket(final long bucket, final boolean unmatchable)
    {
        NativeArena.written(base, bucket, bucketLength);
        MultiBucketDescriptor.link(base, bucket, 0, unmatchable);
        UnsafeApi.setMemory(bucket + MultiBucketDescriptor.GROUPS_OFFSET, bucketLength - MultiBucketDescriptor.GROUPS_OFFSET, (byte)0);
    }

    /**
     * @param bucket a bucket.
     * @return the next bucket under its hash, 0 for none.
     */
    public long next(final long bucket)
    {
        return MultiBucketDescriptor.next(base, bucket);
    }

    /**
     * Sets a bucket's link, keeping its kind.
     *
     * @param bucket a bucket.
     * @param next   the next bucket under its hash, 0 for none.
     */
    public void next(final long bucket, final long next)
    {
        MultiBucketDescriptor.link(base, bucket, next, MultiBucketDescriptor.unmatchable(bucket));
    }

    /**
     * Moves a bucket's content (its link and groups; references are relative, so they move as they
     * are) into another bucket of the same hash, whose content is dropped; the caller frees {@code from}.
     *
     * @param into an empty bucket.
     * @param from the bucket whose content moves.
     */
    public void moveInto(final long into, final long from)
    {
        NativeArena.written(base, into, bucketLength);
        UnsafeApi.copyMemory(from + MultiBucketDescriptor.LINK_OFFSET, into + MultiBucketDescriptor.LINK_OFFSET,
            bucketLength - MultiBucketDescriptor.LINK_OFFSET);
    }

    /** @param bucket an empty bucket of this store's arena (not one of the key index). */
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
            if (UnsafeApi.getLong(bucket + MultiBucketDescriptor.groupOffset(i)) != 0)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @param bucket a bucket.
     * @return its live rows, of every input: the sum of its groups' sizes.
     */
    public long rows(final long bucket)
    {
        return rowsExcept(bucket, -1);
    }

    /**
     * @param bucket a bucket.
     * @param input  an input whose rows are not counted (-1: none).
     * @return the live rows of the bucket's other inputs.
     */
    public long rowsExcept(final long bucket, final int input)
    {
        long rows = 0;
        for (int i = 0; i < inputs; i++)
        {
            if (i != input)
            {
                rows += MultiBucketDescriptor.size(group(bucket, i));
            }
        }
        return rows;
    }

    /**
     * @param bucket a bucket.
     * @param input  an input.
     * @return the input's group reference as an address, for {@link #record(long, int)}.
     */
    public long group(final long bucket, final int input)
    {
        return MultiBucketDescriptor.group(base, bucket, input);
    }

    /**
     * @param group a group reference from {@link #group(long, int)}.
     * @param i     a record's position, below {@link MultiBucketDescriptor#size(long)}.
     * @return the record's address.
     */
    public long record(final long group, final int i)
    {
        return MultiBucketDescriptor.record(base, group, i);
    }

    /**
     * @param bucket a bucket.
     * @return a record of it (the first of its first input with rows), or 0 when it is empty.
     */
    public long anyRecord(final long bucket)
    {
        for (int i = 0; i < inputs; i++)
        {
            final long group = group(bucket, i);
            if (group != 0)
            {
                return record(group, 0);
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
        final long group = group(bucket, input);
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
            NativeArena.written(base, array + MultiBucketDescriptor.CAPACITY_OFFSET);
            UnsafeApi.putInt(array + MultiBucketDescriptor.CAPACITY_OFFSET, FIRST_CAPACITY);
            MultiBucketDescriptor.arraySize(base, array, 1);
            putSlot(array, 0, group);
            MultiBucketDescriptor.group(base, bucket, input, array | MultiBucketDescriptor.ARRAY_TAG);
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

    private long slot(final long array, final int slot)
    {
        return Refs.toAddress(base, UnsafeApi.getLong(MultiBucketDescriptor.slotAddress(array, slot)));
    }

    private void putSlot(final long array, final int slot, final long record)
    {
        NativeArena.written(base, MultiBucketDescriptor.slotAddress(array, slot));
        UnsafeApi.putLong(MultiBucketDescriptor.slotAddress(array, slot), Refs.toStored(base, record));
    }

    private void moveArray(final long bucket, final int input, final long from, final int size, final long to, final int capacity)
    {
        NativeArena.written(base, to + MultiBucketDescriptor.CAPACITY_OFFSET);
        UnsafeApi.putInt(to + MultiBucketDescriptor.CAPACITY_OFFSET, capacity);
        MultiBucketDescriptor.arraySize(base, to, size);
        // The slots hold relative references: they move as they are.
        if (size > 0)
        {
            NativeArena.written(base, MultiBucketDescriptor.slotAddress(to, 0), (long)size * MultiBucketDescriptor.SLOT_LENGTH);
        }
        UnsafeApi.copyMemory(MultiBucketDescriptor.slotAddress(from, 0), MultiBucketDescriptor.slotAddress(to, 0),
            (long)size * MultiBucketDescriptor.SLOT_LENGTH);
        arena.free(from, MultiBucketDescriptor.arrayLength(MultiBucketDescriptor.capacity(from)));
        MultiBucketDescriptor.group(base, bucket, input, to | MultiBucketDescriptor.ARRAY_TAG);
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
        final long group = group(bucket, input);
        if (group == 0)
        {
            MultiBucketDescriptor.group(base, bucket, input, record);
            return;
        }
        final long array = group ^ MultiBucketDescriptor.ARRAY_TAG;
        final int size = MultiBucketDescriptor.arraySize(array);
        putSlot(array, size, record);
        MultiBucketDescriptor.arraySize(base, array, size + 1);
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
        final long group = group(bucket, input);
        if ((group & MultiBucketDescriptor.ARRAY_TAG) == 0)
        {
            if (group == record)
            {
                MultiBucketDescriptor.group(base, bucket, input, 0);
            }
            return;
        }
        final long array = group ^ MultiBucketDescriptor.ARRAY_TAG;
        final int size = MultiBucketDescriptor.arraySize(array);
        int at = -1;
        for (int k = 0; k < size; k++)
        {
            if (slot(array, k) == record)
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
            NativeArena.written(base, MultiBucketDescriptor.slotAddress(array, k));
            UnsafeApi.putLong(MultiBucketDescriptor.slotAddress(array, k), later);
        }
        MultiBucketDescriptor.arraySize(base, array, left);
        final int capacity = MultiBucketDescriptor.capacity(array);
        if (left == 1)
        {
            MultiBucketDescriptor.group(base, bucket, input, slot(array, 0));
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
        final long group = group(bucket, input);
        final int size = MultiBucketDescriptor.size(group);
        for (int k = 0; k < size; k++)
        {
            final long record = record(group, k);
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
        return NativeBytes.equal(MultiRowDescriptor.rowAddress(record), buffer, offset, length);
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
        return NativeBytes.equal(MultiRowDescriptor.rowAddress(a), MultiRowDescriptor.rowAddress(b), length);
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

    /** Frees every chunk of an arena of its own (a shared one is its owner's to close). Idempotent. */
    @Override
    public void close()
    {
        if (ownsArena)
        {
            arena.close();
        }
    }
}
