package io.junction.internal.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.testing.Rows;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The multi-way join's state parts: {@link MultiKeyTable} (growing, equal hashes in one probe run, removal
 * keeping every other bucket reachable) and {@link MultiRowStore} (groups in arrival order, inline for one
 * row, arrays grown and shrunk, the oldest equal copy found first, every byte given back).
 */
class MultiRowStoreTest
{
    private static final Schema SCHEMA = Schema.of("k", "v");

    /** @return the slot holding the bucket under the hash, or -1, probing as a caller does. */
    private static long slotOf(final MultiKeyTable table, final long hash, final long bucket)
    {
        for (long s = table.home(hash); ; s = table.next(s))
        {
            final long b = table.bucketAt(s);
            if (b == 0)
            {
                return -1;
            }
            if (b == bucket)
            {
                assertEquals(hash, table.hashAt(s));
                return s;
            }
        }
    }

    @Test
    void theTableGrowsKeepsEqualHashesApartAndRemovesWithoutLosingOthers()
    {
        try (MultiKeyTable table = new MultiKeyTable())
        {
            final int count = 5_000;
            final long[] hashes = new long[count];
            final long[] buckets = new long[count];
            final Random random = new Random(23);
            for (int i = 0; i < count; i++)
            {
                // Many equal hashes (i % 97) and some spread ones.
                hashes[i] = random.nextBoolean() ? i % 97 : random.nextLong();
                buckets[i] = 8L * (i + 1);
                assertTrue(table.insert(hashes[i], buckets[i]));
            }
            assertEquals(count, table.size());
            assertTrue(table.slots() >= 2L * count, "load factor at most 1/2: " + table.slots());
            assertEquals(count * 32L, table.liveBytes());
            for (int i = 0; i < count; i++)
            {
                assertTrue(slotOf(table, hashes[i], buckets[i]) >= 0, "bucket " + i);
            }
            for (int i = 0; i < count; i += 2)
            {
                assertTrue(table.remove(hashes[i], buckets[i]));
            }
            assertFalse(table.remove(hashes[0], buckets[0]));
            for (int i = 0; i < count; i++)
            {
                assertEquals(i % 2 == 1, slotOf(table, hashes[i], buckets[i]) >= 0, "bucket " + i);
            }
            long occupied = 0;
            for (long s = 0; s < table.slots(); s++)
            {
                occupied += table.bucketAt(s) != 0 ? 1 : 0;
            }
            assertEquals(count / 2, occupied);
            assertEquals(count / 2, table.size());
        }
    }

    private static long record(final MultiRowStore store, final RowView row, final int input)
    {
        final long record = store.allocateRecord(row.length());
        assertTrue(record != 0);
        store.writeRecord(record, row.buffer(), row.offset(), row.length(), 7, input, 0);
        return record;
    }

    private static List<Long> group(final long bucket, final int input)
    {
        final long group = MultiBucketDescriptor.group(bucket, input);
        final List<Long> records = new ArrayList<>();
        for (int k = 0; k < MultiBucketDescriptor.size(group); k++)
        {
            records.add(MultiBucketDescriptor.record(group, k));
        }
        return records;
    }

    @Test
    void groupsKeepArrivalOrderAndGiveEveryByteBack()
    {
        try (MultiRowStore store = new MultiRowStore(3, 1 << 16, Long.MAX_VALUE))
        {
            final long bucket = store.createBucket();
            assertTrue(store.isEmpty(bucket));
            assertEquals(0, store.anyRecord(bucket));
            final List<Long> expected = new ArrayList<>();
            final RowView same = Rows.row(SCHEMA, "k", 1L, "v", 5L);
            for (int i = 0; i < 40; i++)
            {
                final RowView row = i % 3 == 0 ? same : Rows.row(SCHEMA, "k", 1L, "v", (long)i);
                assertTrue(store.reserve(bucket, 1));
                final long record = record(store, row, 1);
                store.append(bucket, 1, record);
                expected.add(record);
                assertEquals(expected, group(bucket, 1));
            }
            assertTrue((MultiBucketDescriptor.group(bucket, 1) & MultiBucketDescriptor.ARRAY_TAG) != 0);
            assertEquals(expected.get(0), store.anyRecord(bucket));
            assertEquals(0, MultiBucketDescriptor.group(bucket, 0));
            assertEquals(0, MultiBucketDescriptor.group(bucket, 2));
            assertEquals(7, MultiRowDescriptor.ts(expected.get(5)));
            assertEquals(1, MultiRowDescriptor.input(expected.get(5)));
            assertEquals(-1, MultiRowDescriptor.queueIndex(expected.get(5)));
            // The oldest equal copy first, then the next once it is gone.
            assertEquals(expected.get(0), store.findEqual(bucket, 1, same.buffer(), same.offset(), same.length()));
            store.unlink(bucket, 1, expected.get(0));
            store.freeRecord(expected.remove(0));
            assertEquals(expected.get(2), store.findEqual(bucket, 1, same.buffer(), same.offset(), same.length()));
            assertEquals(0, store.findEqual(bucket, 0, same.buffer(), same.offset(), same.length()));
            final Random random = new Random(5);
            while (expected.size() > 1)
            {
                final long record = expected.remove(random.nextInt(expected.size()));
                store.unlink(bucket, 1, record);
                store.freeRecord(record);
                assertEquals(expected, group(bucket, 1));
            }
            assertEquals(expected.get(0), MultiBucketDescriptor.group(bucket, 1), "one row: held inline again");
            final long bucketAndRecord = NativeArena.alignedSize(MultiBucketDescriptor.length(3)) +
                NativeArena.alignedSize(MultiRowDescriptor.recordLength(MultiRowDescriptor.rowLength(expected.get(0))));
            assertEquals(bucketAndRecord, store.usedBytes(), "every array freed");
            store.unlink(bucket, 1, expected.get(0));
            store.freeRecord(expected.remove(0));
            assertTrue(store.isEmpty(bucket));
            store.freeBucket(bucket);
            assertEquals(0, store.usedBytes());
        }
    }

    @Test
    void aFullArenaRefusesAGrowthAndLeavesTheGroupAsItWas()
    {
        try (MultiRowStore store = new MultiRowStore(2, 4096, 4096))
        {
            final long bucket = store.createBucket();
            final RowView row = Rows.row(SCHEMA, "k", 1L, "v", 2L);
            final List<Long> stored = new ArrayList<>();
            while (true)
            {
                final long record = store.allocateRecord(row.length());
                if (record == 0)
                {
                    break;
                }
                if (!store.reserve(bucket, 0))
                {
                    store.freeRecord(record, row.length());
                    break;
                }
                store.writeRecord(record, row.buffer(), row.offset(), row.length(), 1, 0, 0);
                store.append(bucket, 0, record);
                stored.add(record);
            }
            assertTrue(stored.size() > 10, "stored " + stored.size());
            assertEquals(stored, group(bucket, 0));
            assertTrue(store.usedBytes() <= 4096);
        }
    }
}
