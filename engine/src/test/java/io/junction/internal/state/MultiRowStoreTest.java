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
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;

/**
 * The multi-way join's row store, {@link MultiRowStore} (groups in arrival order, inline for one row, arrays
 * grown and shrunk, the oldest equal copy found first, every byte given back; a bucket's live rows read from
 * its groups, which are all it holds besides its hash and link). Its buckets live in the partition state's key index (MultiJoinIndexTest, MultiJoinStateTest).
 */
class MultiRowStoreTest
{
    private static final Schema SCHEMA = Schema.of("k", "v");

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
            assertEquals(40, store.rows(bucket), "the bucket's rows, from its groups");
            assertEquals(0, store.rowsExcept(bucket, 1), "none of input 0 or 2");
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

    @Test
    void aBucketIsItsHashALinkAndOneGroupPerInputAndCountsItsRowsFromTheGroups()
    {
        try (MultiRowStore store = new MultiRowStore(4, 1 << 16, Long.MAX_VALUE))
        {
            final long bucket = store.createBucket(0x1234_5678_9ABCL, false);
            assertEquals(48, MultiBucketDescriptor.length(4), "16 + 8n bytes: no live row counts");
            assertEquals(0x1234_5678_9ABCL, UnsafeApi.getLong(bucket));
            assertEquals(0, UnsafeApi.getLong(bucket + 8), "no link, a key's bucket");
            final RowView row = Rows.row(SCHEMA, "k", 1L, "v", 2L);
            final long first = record(store, row, 0);
            assertTrue(store.reserve(bucket, 0));
            store.append(bucket, 0, first);
            final List<Long> third = new ArrayList<>();
            for (int i = 0; i < 3; i++)
            {
                assertTrue(store.reserve(bucket, 2));
                final long record = record(store, row, 2);
                store.append(bucket, 2, record);
                third.add(record);
            }
            final long last = record(store, row, 3);
            assertTrue(store.reserve(bucket, 3));
            store.append(bucket, 3, last);
            // The groups at 16 + 8i, in memory as addresses: a record inline, an array tagged, 0 for none.
            assertEquals(first, UnsafeApi.getLong(bucket + 16));
            assertEquals(0, UnsafeApi.getLong(bucket + 24));
            assertEquals(MultiBucketDescriptor.ARRAY_TAG, UnsafeApi.getLong(bucket + 32) & MultiBucketDescriptor.ARRAY_TAG);
            assertEquals(last, UnsafeApi.getLong(bucket + 40));
            assertEquals(5, store.rows(bucket));
            assertEquals(2, store.rowsExcept(bucket, 2));
            assertEquals(4, store.rowsExcept(bucket, 0));
            assertEquals(5, store.rowsExcept(bucket, 1));
            assertFalse(store.isEmpty(bucket));
            store.unlink(bucket, 0, first);
            store.unlink(bucket, 3, last);
            assertFalse(store.isEmpty(bucket), "input 2's rows are still there");
            for (final long record : third)
            {
                store.unlink(bucket, 2, record);
            }
            assertTrue(store.isEmpty(bucket));
            assertEquals(0, store.rows(bucket));
        }
    }

    @Test
    void aBucketTheKeyIndexCreatedOverReusedMemoryStartsEmptyPastTheStandardLength()
    {
        final int length = MultiBucketDescriptor.length(6);
        final long bucket = UnsafeApi.allocateMemory(length);
        try (MultiRowStore store = new MultiRowStore(6, 1 << 16, Long.MAX_VALUE))
        {
            // What a freed bucket leaves: the key index clears only a standard bucket's length.
            UnsafeApi.setMemory(bucket, length, (byte)0x5A);
            BucketDescriptor.init(0, bucket, 99);
            assertFalse(store.isEmpty(bucket), "groups 2 to 5 still hold the old bytes");
            store.initBucket(bucket, false);
            assertTrue(store.isEmpty(bucket));
            assertEquals(0, store.rows(bucket));
            assertEquals(99, UnsafeApi.getLong(bucket));
            assertFalse(MultiBucketDescriptor.unmatchable(bucket));
        }
        finally
        {
            UnsafeApi.freeMemory(bucket);
        }
    }
}
