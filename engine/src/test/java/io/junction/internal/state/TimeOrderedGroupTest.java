package io.junction.internal.state;

import io.junction.api.RowView;
import io.junction.api.RowWriter;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Time-ordered groups ({@link RowStore#placeInTimeOrder}, {@link RowStore#moveToTimeOrderEdge}), as the ASOF join
 * keeps its right rows: under random appends out of order within a bound and removals of the oldest, the newest
 * and any row, through the group's growth, compaction and shrinking, the live slots stay sorted by ts and, within
 * a ts, by arrival; the emptied slots only ever lead the group; every record knows its slot.
 */
class TimeOrderedGroupTest
{
    private final UnsafeBuffer key = new UnsafeBuffer(ByteBuffer.allocateDirect(16));
    private final UnsafeBuffer rowBuffer = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
    private final RowView row = new RowView();

    /** A stored row of the model: its record, ts and arrival. */
    private record Stored(long record, long ts, long arrival)
    {
    }

    private RowView row(final long value)
    {
        final int length = new RowWriter().wrap(rowBuffer, 0, rowBuffer.capacity(), 1).putLong(0, value).finish();
        return row.wrap(rowBuffer, 0, length);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void aTimeOrderedGroupStaysSortedWithItsHolesLeading(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final long bucket = UnsafeApi.allocateMemory(BucketDescriptor.LENGTH);
        try (RowStore store = new RowStore(1 << 16, 0, Long.MAX_VALUE, true))
        {
            BucketDescriptor.init(0, bucket, 7);
            final List<Stored> model = new ArrayList<>();
            long cursor = 0;
            for (long op = 0; op < 4_000; op++)
            {
                // Phases of growth and of shrinking, so that the array grows, compacts and shrinks back inline.
                final boolean growing = (op / 500) % 2 == 0;
                if (model.isEmpty() || random.nextInt(100) < (growing ? 70 : 30))
                {
                    cursor += random.nextLong(0, 3);
                    final long ts = cursor - random.nextLong(0, 12);
                    assertTrue(store.reserveSlot(bucket, RowDescriptor.RIGHT));
                    final long record = store.append(bucket, RowDescriptor.RIGHT, key, 0, 8, row(op).buffer(), 0, row.length(), ts);
                    store.placeInTimeOrder(record);
                    model.add(new Stored(record, ts, op));
                }
                else
                {
                    model.sort(Comparator.comparingLong(Stored::ts).thenComparingLong(Stored::arrival));
                    final int dice = random.nextInt(4);
                    final int index = dice == 0 ? 0 : dice == 1 ? model.size() - 1 : random.nextInt(model.size());
                    final Stored removed = model.remove(index);
                    store.moveToTimeOrderEdge(removed.record());
                    store.remove(removed.record());
                }
                check(bucket, model, "op " + op + " seed " + seed);
            }
            for (final Stored s : model)
            {
                store.moveToTimeOrderEdge(s.record());
                store.remove(s.record());
            }
            assertEquals(0, BucketDescriptor.rows(bucket, RowDescriptor.RIGHT));
        }
        finally
        {
            UnsafeApi.freeMemory(bucket);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void rowsInDecreasingTimeOrderAndRemovalsFromTheFrontKeepTheGroupSorted(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final long bucket = UnsafeApi.allocateMemory(BucketDescriptor.LENGTH);
        try (RowStore store = new RowStore(1 << 16, 0, Long.MAX_VALUE, true))
        {
            BucketDescriptor.init(0, bucket, 7);
            final List<Stored> model = new ArrayList<>();
            long high = 0;
            long low = 0;
            for (long op = 0; op < 6_000; op++)
            {
                // Phases: rows older than every one (decreasing time), rows in order within a bound, then removals.
                final int phase = (int)((op / 400) % 3);
                if (model.isEmpty() || random.nextInt(100) < (phase == 2 ? 25 : 75))
                {
                    final long ts;
                    if (phase == 0 || phase == 2 && random.nextBoolean())
                    {
                        low -= random.nextLong(0, 3);
                        ts = low;
                    }
                    else
                    {
                        high += random.nextLong(0, 3);
                        ts = high - random.nextLong(0, 12);
                    }
                    assertTrue(store.reserveSlot(bucket, RowDescriptor.RIGHT));
                    final long record = store.append(bucket, RowDescriptor.RIGHT, key, 0, 8, row(op).buffer(), 0, row.length(), ts);
                    store.placeInTimeOrder(record);
                    model.add(new Stored(record, ts, op));
                }
                else
                {
                    model.sort(Comparator.comparingLong(Stored::ts).thenComparingLong(Stored::arrival));
                    final int dice = random.nextInt(4);
                    final int index = dice <= 1 ? 0 : dice == 2 ? model.size() - 1 : random.nextInt(model.size());
                    final Stored removed = model.remove(index);
                    assertEquals(index == 0, store.leadsTimeOrder(removed.record()), "op " + op + ": leads the group");
                    final long next = index < model.size() ? model.get(index).record() : 0;
                    assertEquals(next, store.nextInTimeOrder(removed.record()), "op " + op + ": the row after it");
                    if (index != 0)
                    {
                        store.moveToTimeOrderEdge(removed.record());
                    }
                    store.remove(removed.record());
                }
                check(bucket, model, "op " + op + " seed " + seed);
            }
            for (final Stored s : model)
            {
                store.moveToTimeOrderEdge(s.record());
                store.remove(s.record());
            }
            assertEquals(0, BucketDescriptor.rows(bucket, RowDescriptor.RIGHT));
        }
        finally
        {
            UnsafeApi.freeMemory(bucket);
        }
    }

    /** n rows, each older than every stored one: O(log n) slots read a row and O(1) moved, amortised; not O(n). */
    @ParameterizedTest
    @ValueSource(ints = {10_000, 20_000})
    void rowsInDecreasingTimeOrderArePlacedInLogarithmicallyManySteps(final int n)
    {
        final long bucket = UnsafeApi.allocateMemory(BucketDescriptor.LENGTH);
        try (RowStore store = new RowStore(1 << 20, 0, Long.MAX_VALUE, true))
        {
            BucketDescriptor.init(0, bucket, 7);
            final long before = store.timeOrderSteps();
            for (int i = n; i > 0; i--)
            {
                assertTrue(store.reserveSlot(bucket, RowDescriptor.RIGHT));
                store.placeInTimeOrder(store.append(bucket, RowDescriptor.RIGHT, key, 0, 8, row(i).buffer(), 0, row.length(), i));
            }
            final long steps = store.timeOrderSteps() - before;
            final long bound = (long)n * (2 * (32 - Integer.numberOfLeadingZeros(n)) + 8);
            assertTrue(steps <= bound, n + " rows placed in " + steps + " steps, more than " + bound);
            final long rows = BucketDescriptor.rows(bucket, RowDescriptor.RIGHT);
            long previous = Long.MIN_VALUE;
            int live = 0;
            for (int i = 0; i < RowGroup.slots(rows); i++)
            {
                final long record = RowGroup.record(rows, i);
                if (record != 0)
                {
                    assertTrue(RowDescriptor.ts(record) > previous, "sorted at slot " + i);
                    previous = RowDescriptor.ts(record);
                    live++;
                }
            }
            assertEquals(n, live);
        }
        finally
        {
            UnsafeApi.freeMemory(bucket);
        }
    }

    private static void check(final long bucket, final List<Stored> model, final String where)
    {
        model.sort(Comparator.comparingLong(Stored::ts).thenComparingLong(Stored::arrival));
        final long rows = BucketDescriptor.rows(bucket, RowDescriptor.RIGHT);
        final List<Long> live = new ArrayList<>();
        boolean seenRow = false;
        for (int i = 0; i < RowGroup.slots(rows); i++)
        {
            final long record = RowGroup.record(rows, i);
            if (record == 0)
            {
                assertTrue(!seenRow, where + ": an emptied slot " + i + " after a row");
                continue;
            }
            seenRow = true;
            assertEquals(i, RowDescriptor.groupIndex(record), where + ": the record in slot " + i + " knows its slot");
            live.add(record);
        }
        final List<Long> expected = new ArrayList<>();
        for (final Stored s : model)
        {
            expected.add(s.record());
        }
        assertEquals(expected, live, where + ": rows in (ts, arrival) order");
        assertEquals(model.size(), BucketDescriptor.count(bucket, RowDescriptor.RIGHT));
    }
}
