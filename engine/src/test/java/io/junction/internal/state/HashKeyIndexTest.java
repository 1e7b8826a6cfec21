package io.junction.internal.state;


import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/** The off-heap open-addressing key index against a HashMap model, with heavy probe-run churn. */
class HashKeyIndexTest
{
    @Test
    void shouldAgreeWithAHashMapUnderRandomInsertsAndRemovals()
    {
        final Random random = new Random(20261130);
        try (KeyIndex index = KeyIndex.create(KeyIndex.Kind.HASH, 64))
        {
            final Map<Long, Long> model = new HashMap<>();
            final List<Long> live = new ArrayList<>();
            for (int i = 0; i < 200_000; i++)
            {
                // Few distinct hashes in a 128-slot table: long probe runs, many wrap-arounds, many shifts.
                final long hash = random.nextInt(400) * 0x10000L + (random.nextBoolean() ? Long.MIN_VALUE : 0);
                if (random.nextInt(3) > 0 && model.size() < 64)
                {
                    final long bucket = index.findOrCreate(hash);
                    assertNotEquals(KeyIndex.FULL, bucket);
                    final Long known = model.putIfAbsent(hash, bucket);
                    if (known != null)
                    {
                        assertEquals(known.longValue(), bucket, "an existing key keeps its bucket");
                    }
                    else
                    {
                        live.add(hash);
                        assertEquals(hash, BucketDescriptor.hash(bucket));
                    }
                }
                else if (!live.isEmpty())
                {
                    final long victim = live.remove(random.nextInt(live.size()));
                    index.remove(model.remove(victim));
                }
                assertEquals(model.size(), index.size());
                final long probe = live.isEmpty() ? hash : live.get(random.nextInt(live.size()));
                assertEquals(model.getOrDefault(probe, 0L).longValue(), index.find(probe), "find " + probe + " at op " + i);
            }
            for (final Map.Entry<Long, Long> entry : model.entrySet())
            {
                assertEquals(entry.getValue().longValue(), index.find(entry.getKey()));
            }
        }
    }

    @Test
    void shouldReportFullAtMaxKeys()
    {
        try (KeyIndex index = KeyIndex.create(KeyIndex.Kind.HASH, 3))
        {
            for (long h = 1; h <= 3; h++)
            {
                assertNotEquals(KeyIndex.FULL, index.findOrCreate(h));
            }
            assertEquals(KeyIndex.FULL, index.findOrCreate(4));
            assertNotEquals(KeyIndex.FULL, index.findOrCreate(2), "an existing key is still found when full");
            index.remove(index.find(1));
            assertNotEquals(KeyIndex.FULL, index.findOrCreate(4), "room again after a removal");
        }
    }

    @Test
    void shouldTreatHashZeroAsAnOrdinaryKey()
    {
        try (KeyIndex index = KeyIndex.create(KeyIndex.Kind.HASH, 8))
        {
            assertEquals(0, index.find(0));
            final long bucket = index.findOrCreate(0);
            assertEquals(bucket, index.find(0));
            index.remove(bucket);
            assertEquals(0, index.find(0));
            assertEquals(0, index.size());
        }
    }
}
