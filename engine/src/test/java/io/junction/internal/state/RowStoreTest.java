package io.junction.internal.state;

import io.junction.api.RowView;
import io.junction.api.RowWriter;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Key-grouped rows: a group's records, in arrival order, against a list model under random appends and removals. */
class RowStoreTest
{
    private final UnsafeBuffer key = new UnsafeBuffer(ByteBuffer.allocateDirect(16));
    private final UnsafeBuffer rowBuffer = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
    private final RowView row = new RowView();

    private RowView row(final long value)
    {
        final int length = new RowWriter().wrap(rowBuffer, 0, rowBuffer.capacity(), 1).putLong(0, value).finish();
        return row.wrap(rowBuffer, 0, length);
    }

    /** @return a view of a record's row. */
    private static RowView stored(final long record)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(0, 0);
        return new RowView().wrap(buffer, 0, RowStore.wrapRow(record, buffer));
    }

    private static List<Long> groupOf(final long bucket, final int side)
    {
        final List<Long> records = new ArrayList<>();
        final long rows = BucketDescriptor.rows(bucket, side);
        for (int i = 0; i < RowGroup.slots(rows); i++)
        {
            final long record = RowGroup.record(rows, i);
            if (record != 0)
            {
                records.add(record);
            }
        }
        return records;
    }

    @ParameterizedTest
    @ValueSource(ints = {RowStore.TIMED_NONE, RowStore.TIMED_LEFT, RowStore.TIMED_RIGHT, RowStore.TIMED_BOTH})
    void groupsKeepArrivalOrderUnderRandomAppendsAndRemovals(final int timedSides)
    {
        final Random random = new Random(42);
        final int buckets = 5;
        final long bucketMemory = UnsafeApi.allocateMemory((long)buckets * BucketDescriptor.LENGTH);
        try (RowStore store = new RowStore(1 << 16, 0, Long.MAX_VALUE, timedSides))
        {
            final List<List<Long>> model = new ArrayList<>();
            for (int b = 0; b < buckets * 2; b++)
            {
                model.add(new ArrayList<>());
            }
            for (int b = 0; b < buckets; b++)
            {
                BucketDescriptor.init(0, bucketMemory + (long)b * BucketDescriptor.LENGTH, b);
            }
            long value = 0;
            for (int op = 0; op < 200_000; op++)
            {
                final int b = random.nextInt(buckets);
                final int side = random.nextBoolean() ? RowDescriptor.LEFT : RowDescriptor.RIGHT;
                final long bucket = bucketMemory + (long)b * BucketDescriptor.LENGTH;
                final List<Long> expected = model.get(b * 2 + side);
                // Phases of growth and of decay, so that groups grow, compact, shrink and go back inline.
                final boolean growing = (op / 20_000) % 2 == 0;
                if (expected.isEmpty() || random.nextInt(100) < (growing ? 60 : 35))
                {
                    key.putLong(0, b);
                    final long record = store.append(bucket, side, key, 0, 8, row(value).buffer(), 0, row.length(), value);
                    assertNotEquals(0, record);
                    value++;
                    expected.add(record);
                }
                else
                {
                    // Mostly the oldest (expiry order), sometimes any (retraction).
                    final int at = random.nextInt(4) == 0 ? random.nextInt(expected.size()) : 0;
                    store.remove(expected.remove(at));
                }
                assertEquals(expected, groupOf(bucket, side));
                assertEquals(expected.size(), BucketDescriptor.count(bucket, side));
                final long rows = BucketDescriptor.rows(bucket, side);
                if (expected.size() <= 1)
                {
                    // One row is held inline, unless its array is waiting to be compacted away.
                    assertTrue(expected.isEmpty() ? rows == 0 : RowGroup.slots(rows) >= 1);
                }
            }
            long live = 0;
            for (int b = 0; b < buckets * 2; b++)
            {
                final List<Long> expected = model.get(b);
                for (final long record : expected)
                {
                    assertEquals(b % 2, RowDescriptor.side(record));
                    assertEquals(bucketMemory + (long)(b / 2) * BucketDescriptor.LENGTH, RowDescriptor.bucket(record));
                    // Timer links by side; the key and row behind the side's header, as stored (memory reused
                    // across sides of other record lengths included).
                    final boolean timed = (timedSides & (b % 2 == 0 ? RowStore.TIMED_LEFT : RowStore.TIMED_RIGHT)) != 0;
                    assertEquals(timed, (RowDescriptor.flags(record) & RowDescriptor.FLAG_TIMED) != 0);
                    assertEquals(record + RowDescriptor.headerLength(timed), RowDescriptor.keyAddress(record));
                    assertEquals(b / 2, UnsafeApi.getLong(RowDescriptor.keyAddress(record)));
                    assertEquals(RowDescriptor.ts(record), stored(record).getLong(0));
                }
                live += expected.size();
            }
            assertEquals(live, store.liveRows());
            for (final List<Long> expected : model)
            {
                while (!expected.isEmpty())
                {
                    store.remove(expected.remove(expected.size() - 1));
                }
            }
            assertEquals(0, store.liveRows());
            // Every record and every group array went back to the arena.
            assertEquals(0, store.usedBytes());
            for (int b = 0; b < buckets; b++)
            {
                assertTrue(BucketDescriptor.isEmpty(bucketMemory + (long)b * BucketDescriptor.LENGTH));
            }
        }
        finally
        {
            UnsafeApi.freeMemory(bucketMemory);
        }
    }

    @Test
    void aSingleRowIsHeldInlineAndASecondMovesBothIntoAnArray()
    {
        final long bucket = UnsafeApi.allocateMemory(BucketDescriptor.LENGTH);
        try (RowStore store = new RowStore(1 << 16, 0, Long.MAX_VALUE, false))
        {
            BucketDescriptor.init(0, bucket, 7);
            final long first = store.append(bucket, RowDescriptor.LEFT, key, 0, 8, row(1).buffer(), 0, row.length(), 1);
            assertEquals(first, BucketDescriptor.rows(bucket, RowDescriptor.LEFT));
            final long second = store.append(bucket, RowDescriptor.LEFT, key, 0, 8, row(2).buffer(), 0, row.length(), 2);
            final long rows = BucketDescriptor.rows(bucket, RowDescriptor.LEFT);
            assertTrue(RowGroup.isArray(rows));
            assertEquals(List.of(first, second), groupOf(bucket, RowDescriptor.LEFT));
            store.remove(first);
            assertEquals(List.of(second), groupOf(bucket, RowDescriptor.LEFT));
            store.remove(second);
            assertEquals(0, BucketDescriptor.rows(bucket, RowDescriptor.LEFT));
            assertEquals(0, store.usedBytes());
        }
        finally
        {
            UnsafeApi.freeMemory(bucket);
        }
    }

    @Test
    void recordsWithoutTimerLinksAre24BytesShorter()
    {
        try (RowStore untimed = new RowStore(1 << 16, 0, Long.MAX_VALUE, false);
            RowStore timed = new RowStore(1 << 16, 0, Long.MAX_VALUE, true))
        {
            final long a = untimed.allocate(RowDescriptor.LEFT, 8, 40);
            final long b = timed.allocate(RowDescriptor.LEFT, 8, 40);
            assertEquals(RowDescriptor.recordLength(false, 8, 40), (int)untimed.usedBytes());
            assertEquals(RowDescriptor.recordLength(true, 8, 40), (int)timed.usedBytes());
            assertEquals(24, timed.usedBytes() - untimed.usedBytes());
            untimed.release(a, RowDescriptor.LEFT, 8, 40);
            timed.release(b, RowDescriptor.LEFT, 8, 40);
        }
    }

    @Test
    void timerLinksArePerSide()
    {
        final long bucket = UnsafeApi.allocateMemory(BucketDescriptor.LENGTH);
        // A regular left join with paddedDelay times only its left rows: right records do without links.
        try (RowStore store = new RowStore(1 << 16, 0, Long.MAX_VALUE, RowStore.TIMED_LEFT))
        {
            BucketDescriptor.init(0, bucket, 3);
            assertTrue(store.timed(RowDescriptor.LEFT));
            assertFalse(store.timed(RowDescriptor.RIGHT));
            assertEquals(RowStore.TIMED_LEFT, store.timedSides());
            key.putLong(0, 3);
            final long left = store.append(bucket, RowDescriptor.LEFT, key, 0, 8, row(10).buffer(), 0, row.length(), 10);
            final long leftBytes = store.usedBytes();
            final long right = store.append(bucket, RowDescriptor.RIGHT, key, 0, 8, row(20).buffer(), 0, row.length(), 20);
            final int rightBytes = NativeArena.alignedSize(RowDescriptor.recordLength(false, 8, row(0).length()));
            assertEquals(NativeArena.alignedSize(RowDescriptor.recordLength(true, 8, row(0).length())), (int)leftBytes);
            assertEquals(rightBytes, (int)(store.usedBytes() - leftBytes));
            assertEquals(24, leftBytes - rightBytes);
            assertEquals(RowDescriptor.FLAG_TIMED, RowDescriptor.flags(left));
            assertEquals(0, RowDescriptor.flags(right));
            assertEquals(Long.MAX_VALUE, UnsafeApi.getLong(left + RowDescriptor.DEADLINE_OFFSET));
            assertEquals(left + RowDescriptor.TIMED_HEADER_LENGTH, RowDescriptor.keyAddress(left));
            assertEquals(right + RowDescriptor.BASE_HEADER_LENGTH, RowDescriptor.keyAddress(right));
            assertEquals(3, UnsafeApi.getLong(RowDescriptor.keyAddress(right)));
            assertEquals(20, stored(right).getLong(0));
            // allocate and release size a record by its side.
            final long spare = store.allocate(RowDescriptor.RIGHT, 8, 40);
            assertEquals(RowDescriptor.recordLength(false, 8, 40), (int)(store.usedBytes() - leftBytes - rightBytes));
            store.release(spare, RowDescriptor.RIGHT, 8, 40);
            store.remove(left);
            store.remove(right);
            assertEquals(0, store.usedBytes());
        }
        finally
        {
            UnsafeApi.freeMemory(bucket);
        }
    }

    @Test
    void aGroupThatCannotGrowRefusesTheSlotAndStaysAsItWas()
    {
        final long bucket = UnsafeApi.allocateMemory(BucketDescriptor.LENGTH);
        // One chunk, and a limit of that one chunk, sized so that a record still fits when the group's array
        // must grow but the larger array does not, so the loop ends on reserveSlot's refusal, not allocate's 0.
        // A record is 56 bytes (32 header + 8 key + 13 row, aligned to 8); the group's arrays take
        // 8 + 8 * capacity bytes and double from 4 slots (40, 72, 136, 264, 520, then 1032 bytes), and none is
        // reused, as each freed array is of a size class nothing else asks for. When the 65th row arrives the
        // chunk holds 64 records and arrays of 40..520 bytes: 64 * 56 + 1032 = 4616; the 65th record takes it to
        // 4672 (it fits) and the array of 128 slots would need 4672 + 1032 = 5704 (it does not).
        // Any size in [4672, 5703] works; 5440 also does if records were 64 bytes ([5192, 6223]).
        // (With the 4096-byte chunk of before, allocate ran out first, at the 55th record.)
        final int chunk = 5440;
        try (RowStore store = new RowStore(chunk, 0, chunk, false))
        {
            BucketDescriptor.init(0, bucket, 1);
            final List<Long> stored = new ArrayList<>();
            boolean refused = false;
            long record;
            while ((record = store.allocate(RowDescriptor.RIGHT, 8, row(0).length())) != 0)
            {
                if (!store.reserveSlot(bucket, RowDescriptor.RIGHT))
                {
                    refused = true;
                    store.release(record, RowDescriptor.RIGHT, 8, row(0).length());
                    break;
                }
                stored.add(store.append(record, bucket, RowDescriptor.RIGHT, key, 0, 8, row(stored.size()).buffer(), 0, row.length(), stored.size()));
            }
            assertTrue(refused, "the loop ended because a record did not fit, not because the group could not grow");
            // The refusal left the group exactly as it was.
            assertEquals(stored, groupOf(bucket, RowDescriptor.RIGHT));
            assertEquals(stored.size(), BucketDescriptor.count(bucket, RowDescriptor.RIGHT));
            assertFalse(stored.isEmpty());
            for (final long r : stored)
            {
                store.remove(r);
            }
            assertEquals(0, store.usedBytes());
        }
        finally
        {
            UnsafeApi.freeMemory(bucket);
        }
    }

    @Test
    void aHotKeysLargeGroupArrayGoesBackToTheOsWhenItsRowsLeave()
    {
        final long bucket = UnsafeApi.allocateMemory(BucketDescriptor.LENGTH);
        try (RowStore store = new RowStore(1 << 20, 0, Long.MAX_VALUE, false))
        {
            BucketDescriptor.init(0, bucket, 3);
            final List<Long> stored = new ArrayList<>();
            // 40,000 rows: the group's array (320 KiB) is larger than any pooled block.
            for (int i = 0; i < 40_000; i++)
            {
                stored.add(store.append(bucket, RowDescriptor.LEFT, key, 0, 8, row(i).buffer(), 0, row.length(), i));
            }
            assertEquals(stored, groupOf(bucket, RowDescriptor.LEFT));
            final long reservedAtPeak = store.reservedBytes();
            for (final long record : stored)
            {
                store.remove(record);
            }
            assertEquals(0, store.usedBytes());
            assertTrue(store.reservedBytes() < reservedAtPeak - NativeArena.MAX_POOLED_SIZE,
                "the large arrays went back to the OS: " + store.reservedBytes() + " of " + reservedAtPeak);
        }
        finally
        {
            UnsafeApi.freeMemory(bucket);
        }
    }
}
