package io.junction.internal.state;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.LongUnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The unique-key index against a HashMap model. Records are stand-in addresses (the index never reads
 * them); the matcher answers from the test's own record-to-key map, as the operator answers from the
 * stored row's unique-key bytes.
 */
class UniqueKeyIndexTest
{
    /** Which key each record holds, and the key being looked up. */
    private final Map<Long, Long> keyOfRecord = new HashMap<>();
    private long lookedUp;
    private final UniqueKeyIndex.Matcher matcher = record -> keyOfRecord.get(record) == lookedUp;

    private long find(final UniqueKeyIndex index, final LongUnaryOperator hash, final long key)
    {
        lookedUp = key;
        return index.find(hash.applyAsLong(key), matcher);
    }

    private void put(final UniqueKeyIndex index, final LongUnaryOperator hash, final long key, final long record)
    {
        assertTrue(index.ensureRoom(), "room for key " + key);
        keyOfRecord.put(record, key);
        index.put(hash.applyAsLong(key), record);
    }

    @Test
    void shouldPutFindAndRemove()
    {
        final LongUnaryOperator hash = k -> k * 0x9E3779B97F4A7C15L;
        try (UniqueKeyIndex index = new UniqueKeyIndex(100))
        {
            put(index, hash, 7, 0x1000);
            put(index, hash, 8, 0x2000);
            assertEquals(2, index.size());
            assertEquals(0x1000, find(index, hash, 7));
            assertEquals(0x2000, find(index, hash, 8));
            assertEquals(0, find(index, hash, 9));

            assertFalse(index.remove(hash.applyAsLong(7), 0x2000), "a record is removed under its own hash only");
            assertFalse(index.remove(hash.applyAsLong(9), 0x3000), "an unknown record");
            assertEquals(2, index.size());

            assertTrue(index.remove(hash.applyAsLong(7), 0x1000));
            assertEquals(0, find(index, hash, 7));
            assertEquals(0x2000, find(index, hash, 8));
            assertEquals(1, index.size());
            assertFalse(index.remove(hash.applyAsLong(7), 0x1000), "already removed");
        }
    }

    @Test
    void shouldTellApartKeysWithOneHashByTheMatcher()
    {
        // Every key has the same hash: one probe run holds them all, and only the matcher tells them apart.
        final LongUnaryOperator hash = k -> 42;
        try (UniqueKeyIndex index = new UniqueKeyIndex(64, 64))
        {
            for (long k = 0; k < 40; k++)
            {
                put(index, hash, k, 0x100 + k);
            }
            for (long k = 0; k < 40; k++)
            {
                assertEquals(0x100 + k, find(index, hash, k));
            }
            assertEquals(0, find(index, hash, 40));
            // removals from the head, the middle and the tail of the run shift the rest back into reach
            for (final long k : new long[] {0, 20, 39, 1, 21})
            {
                assertTrue(index.remove(42, 0x100 + k));
            }
            for (long k = 0; k < 40; k++)
            {
                final boolean removed = k == 0 || k == 20 || k == 39 || k == 1 || k == 21;
                assertEquals(removed ? 0 : 0x100 + k, find(index, hash, k), "key " + k);
            }
            assertEquals(35, index.size());
        }
    }

    @Test
    void shouldAgreeWithAHashMapUnderRandomOpsWithCollisionsAndGrowth()
    {
        final Random random = new Random(20261130);
        // 37 distinct hashes for 500 keys: true collisions everywhere; the high bit varies the home slot's wrap.
        final LongUnaryOperator hash = k -> (k % 37) * 0x10000L + ((k & 1) == 0 ? Long.MIN_VALUE : 0);
        try (UniqueKeyIndex index = new UniqueKeyIndex(96, 2))
        {
            final Map<Long, Long> model = new HashMap<>();
            final List<Long> live = new ArrayList<>();
            long nextRecord = 0x10;
            long maxSlots = 0;
            for (int i = 0; i < 200_000; i++)
            {
                final long key = random.nextInt(500);
                if (random.nextInt(3) > 0 && !model.containsKey(key))
                {
                    if (model.size() < index.capacity())
                    {
                        final long record = nextRecord;
                        nextRecord += 0x10;
                        put(index, hash, key, record);
                        model.put(key, record);
                        live.add(key);
                    }
                    else
                    {
                        assertFalse(index.ensureRoom(), "at capacity");
                    }
                }
                else if (!live.isEmpty())
                {
                    final long victim = live.remove(random.nextInt(live.size()));
                    assertTrue(index.remove(hash.applyAsLong(victim), model.remove(victim)));
                }
                assertEquals(model.size(), index.size());
                maxSlots = Math.max(maxSlots, index.slots());
                final long probe = live.isEmpty() || random.nextBoolean() ? key : live.get(random.nextInt(live.size()));
                assertEquals(model.getOrDefault(probe, 0L).longValue(), find(index, hash, probe), "find " + probe + " at op " + i);
            }
            for (final Map.Entry<Long, Long> entry : model.entrySet())
            {
                assertEquals(entry.getValue().longValue(), find(index, hash, entry.getKey()));
            }
            assertEquals(256, maxSlots, "grew from 4 slots to twice the next power of two of 96 entries, no further");
        }
    }

    @Test
    void shouldKeepItsEntriesWhenItGrows()
    {
        final LongUnaryOperator hash = k -> k * 0x9E3779B97F4A7C15L;
        try (UniqueKeyIndex index = new UniqueKeyIndex(10_000, 1))
        {
            assertEquals(2, index.slots());
            for (long k = 1; k <= 5000; k++)
            {
                put(index, hash, k, k << 4);
            }
            assertEquals(16384, index.slots(), "load factor at most 1/2");
            assertEquals(16384L * 16, index.offHeapBytes());
            for (long k = 1; k <= 5000; k++)
            {
                assertEquals(k << 4, find(index, hash, k));
            }
        }
    }

    @Test
    void shouldRefuseMoreThanItsCapacity()
    {
        final LongUnaryOperator hash = k -> k;
        try (UniqueKeyIndex index = new UniqueKeyIndex(5, 1))
        {
            for (long k = 0; k < 5; k++)
            {
                put(index, hash, k, 0x100 + k);
            }
            assertFalse(index.ensureRoom(), "5 entries is the cap");
            assertThrows(IllegalStateException.class, () -> index.put(9, 0x900));
            assertEquals(16, index.slots());
            assertEquals(UniqueKeyIndex.maxOffHeapBytes(5), index.maxOffHeapBytes());
            assertEquals(16L * 16, index.maxOffHeapBytes());
            assertTrue(index.remove(2, 0x102));
            assertTrue(index.ensureRoom(), "room again once an entry left");
            put(index, hash, 9, 0x900);
            assertEquals(0x900, find(index, hash, 9));
        }
    }

    @Test
    void shouldRejectBadSizes()
    {
        assertThrows(IllegalArgumentException.class, () -> new UniqueKeyIndex(0));
        assertThrows(IllegalArgumentException.class, () -> new UniqueKeyIndex(UniqueKeyIndex.MAX_ENTRIES + 1));
        assertThrows(IllegalArgumentException.class, () -> new UniqueKeyIndex(10, 0));
        assertEquals(UniqueKeyIndex.maxOffHeapBytes(UniqueKeyIndex.MAX_ENTRIES),
            UniqueKeyIndex.maxOffHeapBytes(Long.MAX_VALUE), "the cap bounds the bytes");
    }
}
