package io.junction.internal.state;

import io.junction.internal.memory.Refs;
import org.agrona.UnsafeApi;

/**
 * The moves of rows between the slots of a {@link RowStore}'s group arrays ({@link RowGroup}): the compaction
 * every group gets when most of its slots are empty, and the time order an ASOF join keeps its right groups in
 * ({@link #placeInTimeOrder}, {@link #moveToTimeOrderEdge}, {@link #leadsTimeOrder}, {@link #nextInTimeOrder}).
 * The store holds one in a final field and delegates to it; its appends, removals and probes stay in the store.
 * The slots it reads or moves are counted ({@link #timeOrderSteps()}), so that tests bound what keeping groups
 * in time order costs by a count, not a timing.
 *
 * <p>Not thread safe: owned by the partition thread, as its store is.
 */
final class RowGroupMoves
{
    /** Rows of a greater ts that {@link #placeInTimeOrder} moves on without looking for a cheaper way. */
    static final int SHORT_MOVE = 8;

    private final NativeArena arena;
    /** The arena's base: stored references are relative to it ({@link Refs}). */
    private final long base;
    /**
     * Slots of groups read or moved by {@link #placeInTimeOrder} and {@link #moveToTimeOrderEdge} (their binary
     * searches and shifts) and by the compactions of any group so far: what keeping groups in time order costs,
     * which tests bound by a count, not a timing.
     */
    private long timeOrderSteps;

    /**
     * @param arena the store's arena: larger and smaller arrays come from it, and emptied ones go back to it.
     * @param base  the arena's base ({@link NativeArena#base()}).
     */
    RowGroupMoves(final NativeArena arena, final long base)
    {
        this.arena = arena;
        this.base = base;
    }

    /**
     * Moves the row {@link RowStore#append} has just stored (the last slot of its group) to its place in a
     * time-ordered group: after every row of a ts at or below its own, before every row of a greater ts. A
     * group kept this way is sorted by ts and, among equal ts, by arrival, and holds its emptied slots only
     * as a leading run (remove its rows through {@link #moveToTimeOrderEdge} first), so that a probe
     * binary-searches it with an empty slot reading as older than every row.
     * <pre>
     * in order (not below the last row)  nothing moves
     * out of order                       its place p by binary search; the rows between p and the nearer end
     *                                    of the rows shift one slot: the greater ts on into its slot, or the
     *                                    lesser ts back into the emptied slot before the first row
     * nearer the front, no emptied slot  the rows first move on by up to as many slots as they are (in place
     *                                    where the array has that room, else into one of twice its capacity)
     * </pre>
     * So a row costs O(log n) slots read and, amortised, O(1) moved when it is in order, a few behind (input
     * out of order within a bound) or older than every row (rows in decreasing time order), and the rows to
     * the nearer end of the group's rows otherwise. ASOF joins keep their right rows so.
     *
     * @param record a record of the store, the newest of its group, which is time-ordered but for it.
     */
    void placeInTimeOrder(final long record)
    {
        final long bucket = RowDescriptor.bucket(base, record);
        final int side = RowDescriptor.side(record);
        final long rows = BucketDescriptor.rows(base, bucket, side);
        if (!RowGroup.isArray(rows))
        {
            return;
        }
        long array = rows ^ RowGroup.ARRAY_TAG;
        final long ts = RowDescriptor.ts(record);
        int last = RowDescriptor.groupIndex(record);
        if (last == 0)
        {
            return;
        }
        timeOrderSteps++;
        final long newest = RowGroup.slot(base, array, last - 1);
        // An empty slot: the leading run, older than every row.
        if (newest == 0 || RowDescriptor.ts(newest) <= ts)
        {
            return;
        }
        int place = firstAbove(array, last, ts);
        if (last - place > SHORT_MOVE)
        {
            int first = firstRow(array, place);
            if (place - first < last - place)
            {
                if (first == 0)
                {
                    // No emptied slot before the first row to move the lesser ts into: make some, for the next rows too.
                    final int gap = openFront(bucket, side, array, last);
                    if (gap > 0)
                    {
                        array = BucketDescriptor.rows(base, bucket, side) ^ RowGroup.ARRAY_TAG;
                        first = gap;
                        place += gap;
                        last += gap;
                    }
                }
                if (first > 0)
                {
                    // The lesser ts move back one slot, into the emptied one before the first row.
                    timeOrderSteps += place - first + 1;
                    for (int i = first; i < place; i++)
                    {
                        final long moved = RowGroup.slot(base, array, i);
                        RowGroup.slot(base, array, i - 1, moved);
                        RowDescriptor.groupIndex(base, moved, i - 1);
                    }
                    RowGroup.slot(base, array, place - 1, record);
                    RowDescriptor.groupIndex(base, record, place - 1);
                    // The record's own slot was the last one in use: the group ends before it again.
                    RowGroup.slot(base, array, last, 0);
                    RowGroup.used(base, array, last);
                    return;
                }
            }
        }
        // The greater ts move on one slot, the last of them into the record's.
        for (int slot = last; slot > place; slot--)
        {
            timeOrderSteps++;
            final long before = RowGroup.slot(base, array, slot - 1);
            RowGroup.slot(base, array, slot, before);
            RowDescriptor.groupIndex(base, before, slot);
        }
        RowGroup.slot(base, array, place, record);
        RowDescriptor.groupIndex(base, record, place);
    }

    /**
     * @return the first of slots {@code [0, to)} of a time-ordered group whose row's ts is above {@code ts}
     *         ({@code to} when none is), an empty slot reading as older than every row: a binary search.
     */
    private int firstAbove(final long array, final int to, final long ts)
    {
        int low = 0;
        int high = to;
        while (low < high)
        {
            final int mid = (low + high) >>> 1;
            timeOrderSteps++;
            final long r = RowGroup.slot(base, array, mid);
            if (r == 0 || RowDescriptor.ts(r) <= ts)
            {
                low = mid + 1;
            }
            else
            {
                high = mid;
            }
        }
        return low;
    }

    /**
     * @return the first slot of a time-ordered group that holds a row, looked for in {@code [0, to]} where slot
     *         {@code to} holds one: the emptied slots are a leading run, so a binary search finds it.
     */
    private int firstRow(final long array, final int to)
    {
        int low = 0;
        int high = to;
        while (low < high)
        {
            final int mid = (low + high) >>> 1;
            timeOrderSteps++;
            if (RowGroup.slot(base, array, mid) == 0)
            {
                low = mid + 1;
            }
            else
            {
                high = mid;
            }
        }
        return low;
    }

    /**
     * Moves the rows of a time-ordered group that has no emptied slot before its first row ({@code [0, last)},
     * the record just appended in slot {@code last} after them) on by a gap of up to as many slots as they are,
     * its first slots emptied, so that rows older than every one can be placed before them without shifting
     * them all: in place where the array has room for the gap and as much after it (at least a quarter of the
     * rows), else in an array of twice the capacity. Each opening costs O(rows) and is followed by at least a
     * quarter as many placements in front before the next one (the back's room is not used by them), so it is
     * O(1) amortised per row.
     *
     * @return the gap, 0 (nothing moved) when the array is at its largest or the arena has no memory for it.
     */
    private int openFront(final long bucket, final int side, final long array, final int last)
    {
        final int capacity = RowGroup.capacity(array);
        int gap = Math.min(last, (capacity - last - 1) / 2);
        long target = array;
        if (gap < Math.max(1, last / 4))
        {
            if (capacity >= RowStore.MAX_CAPACITY)
            {
                return 0;
            }
            target = arena.allocate(RowGroup.arrayLength(capacity * 2));
            if (target == 0)
            {
                return 0;
            }
            NativeArena.written(base, target + RowGroup.CAPACITY_OFFSET);
            UnsafeApi.putInt(target + RowGroup.CAPACITY_OFFSET, capacity * 2);
            gap = Math.min(last, (capacity * 2 - last - 1) / 2);
        }
        timeOrderSteps += last + 1 + gap;
        // From the last slot down: in place, a slot is only ever written after it was read.
        for (int i = last; i >= 0; i--)
        {
            final long moved = RowGroup.slot(base, array, i);
            RowGroup.slot(base, target, i + gap, moved);
            RowDescriptor.groupIndex(base, moved, i + gap);
        }
        for (int i = 0; i < gap; i++)
        {
            RowGroup.slot(base, target, i, 0);
        }
        RowGroup.used(base, target, last + 1 + gap);
        if (target != array)
        {
            arena.free(array, RowGroup.arrayLength(capacity));
            BucketDescriptor.rows(base, bucket, side, target | RowGroup.ARRAY_TAG);
        }
        return gap;
    }

    /**
     * Moves a row of a time-ordered group ({@link #placeInTimeOrder}) to the nearer end of the group's
     * rows, shifting the rows between it and that end one slot towards its old place, so that its
     * {@link RowStore#remove} that must follow leaves the group's emptied slots a leading run: the newest
     * row's slot is reused, the oldest one's joins the run. The cost is the rows to the nearer end, at
     * most half the group: nothing for the oldest or the newest row, which are what an ASOF join
     * frees (rows the watermark passed, the predecessor of a new row).
     *
     * @param record a record of the store in a time-ordered group.
     */
    void moveToTimeOrderEdge(final long record)
    {
        final long bucket = RowDescriptor.bucket(base, record);
        final int side = RowDescriptor.side(record);
        final long rows = BucketDescriptor.rows(base, bucket, side);
        if (!RowGroup.isArray(rows))
        {
            return;
        }
        final long array = rows ^ RowGroup.ARRAY_TAG;
        final int used = RowGroup.used(array);
        final int slot = RowDescriptor.groupIndex(record);
        // The first row: the emptied slots are a leading run, so it is the first non-empty one.
        final int first = firstRow(array, slot);
        timeOrderSteps += Math.min(used - 1 - slot, slot - first);
        if (used - 1 - slot < slot - first)
        {
            for (int i = slot; i < used - 1; i++)
            {
                final long moved = RowGroup.slot(base, array, i + 1);
                RowGroup.slot(base, array, i, moved);
                RowDescriptor.groupIndex(base, moved, i);
            }
            RowGroup.slot(base, array, used - 1, record);
            RowDescriptor.groupIndex(base, record, used - 1);
        }
        else
        {
            for (int i = slot; i > first; i--)
            {
                final long moved = RowGroup.slot(base, array, i - 1);
                RowGroup.slot(base, array, i, moved);
                RowDescriptor.groupIndex(base, moved, i);
            }
            RowGroup.slot(base, array, first, record);
            RowDescriptor.groupIndex(base, record, first);
        }
    }

    /**
     * @param record a record of the store in a time-ordered group ({@link #placeInTimeOrder}).
     * @return true when it is the group's first row (its emptied slots lead it), so that its {@link RowStore#remove}
     *         keeps them a leading run without a {@link #moveToTimeOrderEdge}: O(1).
     */
    boolean leadsTimeOrder(final long record)
    {
        final long rows = BucketDescriptor.rows(base, RowDescriptor.bucket(base, record), RowDescriptor.side(record));
        if (!RowGroup.isArray(rows))
        {
            return true;
        }
        timeOrderSteps++;
        final int slot = RowDescriptor.groupIndex(record);
        return slot == 0 || RowGroup.slot(base, rows ^ RowGroup.ARRAY_TAG, slot - 1) == 0;
    }

    /**
     * @param record a record of the store in a time-ordered group.
     * @return the row after it in the group (the next by ts, or by arrival within a ts), or 0 when it is the last.
     */
    long nextInTimeOrder(final long record)
    {
        final long rows = BucketDescriptor.rows(base, RowDescriptor.bucket(base, record), RowDescriptor.side(record));
        if (!RowGroup.isArray(rows))
        {
            return 0;
        }
        timeOrderSteps++;
        final long array = rows ^ RowGroup.ARRAY_TAG;
        final int slot = RowDescriptor.groupIndex(record) + 1;
        return slot < RowGroup.used(array) ? RowGroup.slot(base, array, slot) : 0;
    }

    /**
     * Compacts a group whose slots are mostly empty (each compaction follows at least 3/4 of its slots'
     * removals, so its cost is amortised over them): a single row goes back inline in the bucket; a
     * large array moves to a smaller one when the arena has memory for it, else compacts in place.
     */
    void shrink(final long bucket, final int side, final long array, final int used, final int live)
    {
        final int capacity = RowGroup.capacity(array);
        if (live == 1)
        {
            for (int i = 0; i < used; i++)
            {
                final long record = RowGroup.slot(base, array, i);
                if (record != 0)
                {
                    RowDescriptor.groupIndex(base, record, 0);
                    BucketDescriptor.rows(base, bucket, side, record);
                    arena.free(array, RowGroup.arrayLength(capacity));
                    return;
                }
            }
        }
        final int smaller = Math.max(RowStore.FIRST_CAPACITY, Integer.highestOneBit(live) << 2);
        if (smaller < capacity)
        {
            final long target = arena.allocate(RowGroup.arrayLength(smaller));
            if (target != 0)
            {
                NativeArena.written(base, target + RowGroup.CAPACITY_OFFSET);
                UnsafeApi.putInt(target + RowGroup.CAPACITY_OFFSET, smaller);
                compact(array, used, target);
                arena.free(array, RowGroup.arrayLength(capacity));
                BucketDescriptor.rows(base, bucket, side, target | RowGroup.ARRAY_TAG);
                return;
            }
        }
        compact(array, used, array);
    }

    /**
     * Copies the live slots of {@code from}, in order, to the front of {@code to} (which may be
     * {@code from}: a slot is only ever written at or before the one being read), and renumbers the
     * records that moved.
     */
    void compact(final long from, final int used, final long to)
    {
        int live = 0;
        timeOrderSteps += used;
        for (int i = 0; i < used; i++)
        {
            final long stored = UnsafeApi.getLong(RowGroup.slotAddress(from, i));
            if (stored == 0)
            {
                continue;
            }
            if (live != i || from != to)
            {
                // Both arrays are of the store: the stored reference moves as it is.
                NativeArena.written(base, RowGroup.slotAddress(to, live));
                UnsafeApi.putLong(RowGroup.slotAddress(to, live), stored);
            }
            if (live != i)
            {
                RowDescriptor.groupIndex(base, Refs.toAddress(base, stored), live);
            }
            live++;
        }
        RowGroup.used(base, to, live);
    }

    /** @return slots of groups read or moved by the time-order moves and by compactions so far (tests). */
    long timeOrderSteps()
    {
        return timeOrderSteps;
    }
}
