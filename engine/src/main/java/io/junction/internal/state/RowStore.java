package io.junction.internal.state;

import io.junction.internal.memory.Refs;
import io.junction.internal.row.BufferCompare;
import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Stored rows of one partition: records ({@link RowDescriptor}) in an off-heap {@link NativeArena},
 * grouped per key and side: the bucket ({@link BucketDescriptor}) refers to a {@link RowGroup}, an
 * array of the rows' record addresses in arrival order (or the one record itself while the side
 * holds a single row). A probe therefore reads one array and loads the records it names without one
 * load waiting on the last, instead of chasing a chain; removal is O(1) through the slot index each
 * record keeps; a record's memory is reused by the next record of its size class.
 *
 * <p>Timer links are per side: the records of a side whose rows may be timed ({@link #TIMED_LEFT},
 * {@link #TIMED_RIGHT}: a side with a state TTL, the padded side of a padded-row delay, every side of the
 * kinds that expire rows) carry them ({@link RowDescriptor#FLAG_TIMED}); the other side's are 24 bytes
 * shorter (SEMANTICS 4.5-4.7: a regular left join with {@code paddedDelay} times only its left rows).
 *
 * <p>The moves of rows between a group's slots (compaction, and the time order ASOF joins keep:
 * {@link #placeInTimeOrder}) are a {@link RowGroupMoves} this store holds; the appends, removals and probes
 * are its own.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public final class RowStore implements AutoCloseable
{
    /** Slots of a group's first array, when a side's second row arrives. */
    static final int FIRST_CAPACITY = 4;
    /** The most slots of one group: its array stays below 2 GiB. */
    static final int MAX_CAPACITY = 1 << 27;
    /** No record has timer links ({@link #timedSides()}). */
    public static final int TIMED_NONE = 0;
    /** Bit of a store's timed sides ({@link #timedSides()}): left records have timer links. */
    public static final int TIMED_LEFT = 1;
    /** Bit of a store's timed sides: right records have timer links. */
    public static final int TIMED_RIGHT = 2;
    /** Both sides' records have timer links. */
    public static final int TIMED_BOTH = TIMED_LEFT | TIMED_RIGHT;

    private final NativeArena arena;
    /** The arena's base: stored references are relative to it ({@link Refs}). */
    private final long base;
    /** {@link #TIMED_LEFT} and {@link #TIMED_RIGHT}: whose records have timer links. */
    private final int timedSides;
    /** Bytes before the key of a left and of a right record ({@link RowDescriptor#headerLength}). */
    private final int leftHeaderLength;
    private final int rightHeaderLength;
    private final UnsafeBuffer keyBuffer = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer rowBuffer = new UnsafeBuffer(0, 0);
    private long liveLeft;
    private long liveRight;
    /** The compactions and time-order moves of this store's groups. */
    private final RowGroupMoves moves;

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
        this(chunkSize, preallocate, Long.MAX_VALUE, true);
    }

    /**
     * @param chunkSize   bytes per arena chunk.
     * @param preallocate bytes of arena to take and touch up front ({@link NativeArena}).
     * @param limit       the most bytes the arena takes from the OS.
     * @param timed       whether records of both sides carry timer links, for kinds that expire rows.
     */
    public RowStore(final int chunkSize, final long preallocate, final long limit, final boolean timed)
    {
        this(new NativeArena(chunkSize, preallocate, limit), timed ? TIMED_BOTH : TIMED_NONE);
    }

    /**
     * @param chunkSize   bytes per arena chunk.
     * @param preallocate bytes of arena to take and touch up front ({@link NativeArena}).
     * @param limit       the most bytes the arena takes from the OS.
     * @param timedSides  {@link #TIMED_LEFT} and {@link #TIMED_RIGHT}: the sides whose records carry timer links.
     */
    public RowStore(final int chunkSize, final long preallocate, final long limit, final int timedSides)
    {
        this(new NativeArena(chunkSize, preallocate, limit), timedSides);
    }

    /**
     * A store over an arena of its owner's (a durable arena in a mapped file), which {@link #close()} closes.
     *
     * @param arena      the arena.
     * @param timedSides {@link #TIMED_LEFT} and {@link #TIMED_RIGHT}: the sides whose records carry timer links.
     */
    public RowStore(final NativeArena arena, final int timedSides)
    {
        if ((timedSides & ~TIMED_BOTH) != 0)
        {
            throw new IllegalArgumentException("timed sides are TIMED_LEFT and TIMED_RIGHT bits, not: " + timedSides);
        }
        this.arena = arena;
        this.base = arena.base();
        this.timedSides = timedSides;
        this.leftHeaderLength = RowDescriptor.headerLength((timedSides & TIMED_LEFT) != 0);
        this.rightHeaderLength = RowDescriptor.headerLength((timedSides & TIMED_RIGHT) != 0);
        this.moves = new RowGroupMoves(arena, base);
    }

    /** @return the address stored references are relative to ({@link Refs}): 0 in memory. */
    public long base()
    {
        return base;
    }

    /** @return the arena (for a durable owner that persists its header). */
    public NativeArena arena()
    {
        return arena;
    }

    /**
     * @param bucket a bucket.
     * @param side   a side.
     * @return the side's row group reference ({@link BucketDescriptor#rows(long, long, int)} in this store).
     */
    public long rows(final long bucket, final int side)
    {
        return BucketDescriptor.rows(base, bucket, side);
    }

    /**
     * @param rows a row group reference of this store.
     * @param slot a slot below {@link RowGroup#slots(long)}.
     * @return the record in the slot, or 0.
     */
    public long record(final long rows, final int slot)
    {
        return RowGroup.record(base, rows, slot);
    }

    /**
     * @param record a record of this store.
     * @return its bucket.
     */
    public long bucketOf(final long record)
    {
        return RowDescriptor.bucket(base, record);
    }

    /** Restores the live row counts of a reopened durable store. */
    public void liveRows(final long left, final long right)
    {
        liveLeft = left;
        liveRight = right;
    }

    /** @return {@link #TIMED_LEFT} and {@link #TIMED_RIGHT}: the sides whose records carry timer links. */
    public int timedSides()
    {
        return timedSides;
    }

    /**
     * @param side a side.
     * @return whether its records carry timer links.
     */
    public boolean timed(final int side)
    {
        return (timedSides & (side == RowDescriptor.LEFT ? TIMED_LEFT : TIMED_RIGHT)) != 0;
    }

    /** @return the bytes before the key of a record of {@code side}. */
    private int headerLength(final int side)
    {
        return side == RowDescriptor.LEFT ? leftHeaderLength : rightHeaderLength;
    }

    /**
     * Stores a row at the end of its bucket's group for {@code side}.
     *
     * @return the record's address, or 0 (nothing stored) when the arena has no memory for it.
     */
    public long append(
        final long bucket, final int side, final DirectBuffer key, final int keyOffset, final int keyLength,
        final DirectBuffer row, final int rowOffset, final int rowLength, final long ts)
    {
        final long record = allocate(side, keyLength, rowLength);
        if (record == 0)
        {
            return 0;
        }
        final long stored = append(record, bucket, side, key, keyOffset, keyLength, row, rowOffset, rowLength, ts);
        if (stored == 0)
        {
            release(record, side, keyLength, rowLength);
        }
        return stored;
    }

    /**
     * Takes the memory of a record without storing anything, so that a row's every allocation can
     * succeed before any of its effects (output, links) happen.
     *
     * @param side      the side the record will be appended to: its timer links are the side's.
     * @param keyLength bytes of the key.
     * @param rowLength bytes of the row.
     * @return the record, for {@link #append(long, long, int, DirectBuffer, int, int, DirectBuffer, int, int, long)} (to
     *         {@code side}) or {@link #release}, or 0 when the arena has no memory for it.
     */
    public long allocate(final int side, final int keyLength, final int rowLength)
    {
        return arena.allocate(headerLength(side) + keyLength + rowLength);
    }

    /** Returns a record from {@link #allocate} (with the same side and lengths) that was never appended. */
    public void release(final long record, final int side, final int keyLength, final int rowLength)
    {
        arena.free(record, headerLength(side) + keyLength + rowLength);
    }

    /**
     * Makes room for one more row in the bucket's group for {@code side}, growing or compacting its
     * array, so that the next {@link #append} to it cannot fail: call it before a row has any effect.
     * Idempotent while no row is appended.
     *
     * @return false, with the group as it was, when the arena has no memory for a larger array.
     */
    public boolean reserveSlot(final long bucket, final int side)
    {
        final long rows = BucketDescriptor.rows(base, bucket, side);
        if (rows == 0)
        {
            return true;
        }
        if (!RowGroup.isArray(rows))
        {
            final long array = arena.allocate(RowGroup.arrayLength(FIRST_CAPACITY));
            if (array == 0)
            {
                return false;
            }
            NativeArena.written(base, array + RowGroup.CAPACITY_OFFSET);
            UnsafeApi.putInt(array + RowGroup.CAPACITY_OFFSET, FIRST_CAPACITY);
            RowGroup.used(base, array, 1);
            RowGroup.slot(base, array, 0, rows);
            BucketDescriptor.rows(base, bucket, side, array | RowGroup.ARRAY_TAG);
            return true;
        }
        final long array = rows ^ RowGroup.ARRAY_TAG;
        final int capacity = RowGroup.capacity(array);
        final int used = RowGroup.used(array);
        if (used < capacity)
        {
            return true;
        }
        if (BucketDescriptor.count(bucket, side) <= capacity / 2)
        {
            moves.compact(array, used, array);
            return true;
        }
        if (capacity >= MAX_CAPACITY)
        {
            return false;
        }
        final long grown = arena.allocate(RowGroup.arrayLength(capacity * 2));
        if (grown == 0)
        {
            return false;
        }
        NativeArena.written(base, grown + RowGroup.CAPACITY_OFFSET);
        UnsafeApi.putInt(grown + RowGroup.CAPACITY_OFFSET, capacity * 2);
        moves.compact(array, used, grown);
        arena.free(array, RowGroup.arrayLength(capacity));
        BucketDescriptor.rows(base, bucket, side, grown | RowGroup.ARRAY_TAG);
        return true;
    }

    /**
     * Stores a row into a record from {@link #allocate} (with the same side, key and row lengths) at the
     * end of its bucket's group for {@code side}.
     *
     * @return the record's address, or 0 (the record left unlinked, for {@link #release}) when the group
     *         has no slot and the arena no memory for one: never after {@link #reserveSlot} said true.
     */
    public long append(
        final long record, final long bucket, final int side, final DirectBuffer key, final int keyOffset,
        final int keyLength, final DirectBuffer row, final int rowOffset, final int rowLength, final long ts)
    {
        if (!reserveSlot(bucket, side))
        {
            return 0;
        }
        final boolean timed = timed(side);
        final int headerLength = headerLength(side);
        NativeArena.written(base, record, headerLength + keyLength + rowLength);
        UnsafeApi.putLong(record + RowDescriptor.BUCKET_OFFSET, Refs.toStored(base, bucket));
        UnsafeApi.putLong(record + RowDescriptor.TS_OFFSET, ts);
        UnsafeApi.putInt(record + RowDescriptor.COUNT_OFFSET, 0);
        UnsafeApi.putShort(record + RowDescriptor.ROW_LENGTH_OFFSET, (short)rowLength);
        UnsafeApi.putShort(record + RowDescriptor.KEY_LENGTH_OFFSET, (short)keyLength);
        UnsafeApi.putByte(record + RowDescriptor.FLAGS_OFFSET, (byte)(timed ? RowDescriptor.FLAG_TIMED : 0));
        UnsafeApi.putByte(record + RowDescriptor.SIDE_OFFSET, (byte)side);
        if (timed)
        {
            UnsafeApi.putLong(record + RowDescriptor.TIMER_PREV_OFFSET, 0);
            UnsafeApi.putLong(record + RowDescriptor.TIMER_NEXT_OFFSET, 0);
            UnsafeApi.putLong(record + RowDescriptor.DEADLINE_OFFSET, Long.MAX_VALUE);
        }
        keyBuffer.wrap(record + headerLength, keyLength);
        keyBuffer.putBytes(0, key, keyOffset, keyLength);
        rowBuffer.wrap(record + headerLength + keyLength, rowLength);
        rowBuffer.putBytes(0, row, rowOffset, rowLength);

        final long rows = BucketDescriptor.rows(base, bucket, side);
        if (rows == 0)
        {
            RowDescriptor.groupIndex(base, record, 0);
            BucketDescriptor.rows(base, bucket, side, record);
        }
        else
        {
            final long array = rows ^ RowGroup.ARRAY_TAG;
            final int slot = RowGroup.used(array);
            RowGroup.slot(base, array, slot, record);
            RowGroup.used(base, array, slot + 1);
            RowDescriptor.groupIndex(base, record, slot);
        }
        BucketDescriptor.count(base, bucket, side, BucketDescriptor.count(bucket, side) + 1);
        if (side == RowDescriptor.LEFT)
        {
            liveLeft++;
        }
        else
        {
            liveRight++;
        }
        return record;
    }

    /** Removes a record from its group and frees it. The caller unlinks it from any timer first. */
    public void remove(final long record)
    {
        final long bucket = RowDescriptor.bucket(base, record);
        final int side = RowDescriptor.side(record);
        final int live = BucketDescriptor.count(bucket, side) - 1;
        BucketDescriptor.count(base, bucket, side, live);
        final long rows = BucketDescriptor.rows(base, bucket, side);
        if (!RowGroup.isArray(rows))
        {
            BucketDescriptor.rows(base, bucket, side, 0);
        }
        else
        {
            final long array = rows ^ RowGroup.ARRAY_TAG;
            final int slot = RowDescriptor.groupIndex(record);
            NativeArena.written(base, RowGroup.slotAddress(array, slot));
            UnsafeApi.putLong(RowGroup.slotAddress(array, slot), 0);
            int used = RowGroup.used(array);
            if (slot == used - 1)
            {
                // The newest row leaves (a retraction right after its insert): the slot is reused at once.
                used--;
                RowGroup.used(base, array, used);
            }
            if (live == 0)
            {
                arena.free(array, RowGroup.arrayLength(RowGroup.capacity(array)));
                BucketDescriptor.rows(base, bucket, side, 0);
            }
            else if (live * 4 < used)
            {
                moves.shrink(bucket, side, array, used, live);
            }
        }
        if (side == RowDescriptor.LEFT)
        {
            liveLeft--;
        }
        else
        {
            liveRight--;
        }
        arena.free(record, RowDescriptor.recordLength(record));
    }

    /**
     * @param record a stored record.
     * @return its slot in its group's array (0 for a row held inline).
     */
    public static int slotOf(final long record)
    {
        return RowDescriptor.groupIndex(record);
    }

    /**
     * Moves the row {@link #append} has just stored (the last slot of its group) to its place in a
     * time-ordered group: after every row of a ts at or below its own, before every row of a greater ts
     * ({@link RowGroupMoves#placeInTimeOrder}: sorted by ts and, among equal ts, by arrival, its emptied
     * slots only a leading run; O(log n) slots read per row, and amortised O(1) moved for a row in order, a
     * few behind or older than every row). ASOF joins keep their right rows so.
     *
     * @param record a record of this store, the newest of its group, which is time-ordered but for it.
     */
    public void placeInTimeOrder(final long record)
    {
        moves.placeInTimeOrder(record);
    }

    /**
     * Moves a row of a time-ordered group ({@link #placeInTimeOrder}) to the nearer end of the group's
     * rows, so that its {@link #remove} that must follow leaves the group's emptied slots a leading run
     * ({@link RowGroupMoves#moveToTimeOrderEdge}).
     *
     * @param record a record of this store in a time-ordered group.
     */
    public void moveToTimeOrderEdge(final long record)
    {
        moves.moveToTimeOrderEdge(record);
    }

    /**
     * @param record a record of this store in a time-ordered group ({@link #placeInTimeOrder}).
     * @return true when it is the group's first row (its emptied slots lead it), so that its {@link #remove}
     *         keeps them a leading run without a {@link #moveToTimeOrderEdge}: O(1).
     */
    public boolean leadsTimeOrder(final long record)
    {
        return moves.leadsTimeOrder(record);
    }

    /**
     * @param record a record of this store in a time-ordered group.
     * @return the row after it in the group (the next by ts, or by arrival within a ts), or 0 when it is the last.
     */
    public long nextInTimeOrder(final long record)
    {
        return moves.nextInTimeOrder(record);
    }

    /**
     * Reads a bucket's row-group references and, for a side holding one row inline, that record's header,
     * so that the cache misses of a coming probe start now (W1: a click finds its impression this way).
     * Changes nothing.
     *
     * @param bucket a bucket.
     * @return a value of the memory read, for the caller to keep so that the reads are not optimised away.
     */
    public static long touchBucket(final long bucket)
    {
        return touchBucket(0, bucket);
    }

    /**
     * As {@link #touchBucket(long)} in a state of base {@code base} ({@link Refs}).
     *
     * @param base   the state's base address.
     * @param bucket a bucket.
     * @return a value of the memory read.
     */
    public static long touchBucket(final long base, final long bucket)
    {
        final long left = BucketDescriptor.rows(base, bucket, RowDescriptor.LEFT);
        final long right = BucketDescriptor.rows(base, bucket, RowDescriptor.RIGHT);
        long seen = left ^ right;
        if (left != 0 && !RowGroup.isArray(left))
        {
            seen ^= RowDescriptor.ts(left);
        }
        if (right != 0 && !RowGroup.isArray(right))
        {
            seen ^= RowDescriptor.ts(right);
        }
        return seen;
    }

    /**
     * @return the first record of {@code side} in the bucket with the given key bytes (a bucket may hold
     *         several keys when their hashes collide), or 0.
     */
    public long findKey(final long bucket, final int side, final DirectBuffer key, final int keyOffset, final int keyLength)
    {
        final long rows = BucketDescriptor.rows(base, bucket, side);
        final int slots = RowGroup.slots(rows);
        for (int i = 0; i < slots; i++)
        {
            final long record = RowGroup.record(base, rows, i);
            if (record != 0 && keyEquals(record, key, keyOffset, keyLength))
            {
                return record;
            }
        }
        return 0;
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
        return NativeBytes.equal(RowDescriptor.keyAddress(a), RowDescriptor.keyAddress(b), length);
    }

    /** @return true when the record's row bytes equal {@code [offset, offset + length)} of {@code row}. */
    public boolean rowEquals(final long record, final DirectBuffer row, final int offset, final int length)
    {
        if (RowDescriptor.rowLength(record) != length)
        {
            return false;
        }
        rowBuffer.wrap(RowDescriptor.rowAddress(record), length);
        return BufferCompare.equals(rowBuffer, 0, row, offset, length);
    }

    /**
     * @return the first record of {@code side} in the bucket with equal key and row bytes, or 0.
     */
    public long findEqual(
        final long bucket, final int side, final DirectBuffer key, final int keyOffset, final int keyLength,
        final DirectBuffer row, final int rowOffset, final int rowLength)
    {
        final long rows = BucketDescriptor.rows(base, bucket, side);
        final int slots = RowGroup.slots(rows);
        for (int i = 0; i < slots; i++)
        {
            final long record = RowGroup.record(base, rows, i);
            if (record != 0 && keyEquals(record, key, keyOffset, keyLength) && rowEquals(record, row, rowOffset, rowLength))
            {
                return record;
            }
        }
        return 0;
    }

    /**
     * Points {@code buffer} at a record's row bytes, for a row view over {@code [0, length)} of it (the operators'
     * {@code StoredRows.wrap}): use one buffer per view that must stay valid at the same time.
     *
     * @return the row's length.
     */
    public static int wrapRow(final long record, final UnsafeBuffer buffer)
    {
        final int length = RowDescriptor.rowLength(record);
        buffer.wrap(RowDescriptor.rowAddress(record), length);
        return length;
    }

    /** @return slots of groups read or moved by the time-order moves and by compactions so far (tests). */
    public long timeOrderSteps()
    {
        return moves.timeOrderSteps();
    }

    /** @return live rows of one side. */
    public long liveRows(final int side)
    {
        return side == RowDescriptor.LEFT ? liveLeft : liveRight;
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
