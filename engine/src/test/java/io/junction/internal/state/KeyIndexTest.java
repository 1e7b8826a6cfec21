package io.junction.internal.state;

import io.junction.internal.row.KeyHash;
import io.junction.api.Side;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KeyIndexTest
{
    @Test
    void shouldFindNothingInEmptyIndex()
    {
        try (KeyIndex index = new KeyIndex(16))
        {
            assertEquals(0, index.find(KeyHash.mix(1)));
            assertEquals(0, index.size());
        }
    }

    @Test
    void shouldCreateEmptyBucketCarryingItsHash()
    {
        try (KeyIndex index = new KeyIndex(16))
        {
            final long hash = KeyHash.mix(7);
            final long bucket = index.findOrCreate(hash);
            assertTrue(bucket > 0);
            assertEquals(hash, BucketDescriptor.hash(bucket));
            assertTrue(BucketDescriptor.isEmpty(bucket));
            assertEquals(0, BucketDescriptor.head(bucket, Side.LEFT));
            assertEquals(0, BucketDescriptor.tail(bucket, Side.RIGHT));
            assertEquals(0, BucketDescriptor.count(bucket, Side.LEFT));
            assertEquals(1, index.size());
        }
    }

    @Test
    void shouldReturnSameBucketForSameHash()
    {
        try (KeyIndex index = new KeyIndex(16))
        {
            final long bucket = index.findOrCreate(KeyHash.mix(7));
            assertEquals(bucket, index.findOrCreate(KeyHash.mix(7)));
            assertEquals(bucket, index.find(KeyHash.mix(7)));
            assertEquals(1, index.size());
        }
    }

    @Test
    void shouldKeepDistinctBucketsForDistinctHashes()
    {
        try (KeyIndex index = new KeyIndex(1024))
        {
            final Set<Long> buckets = new HashSet<>();
            for (int i = 0; i < 500; i++)
            {
                assertTrue(buckets.add(index.findOrCreate(KeyHash.mix(i))));
            }
            for (int i = 0; i < 500; i++)
            {
                assertEquals(KeyHash.mix(i), BucketDescriptor.hash(index.find(KeyHash.mix(i))));
            }
            assertEquals(500, index.size());
        }
    }

    @Test
    void shouldAcceptZeroAndNegativeHashes()
    {
        try (KeyIndex index = new KeyIndex(16))
        {
            final long zero = index.findOrCreate(0);
            final long negative = index.findOrCreate(-1);
            assertNotEquals(zero, negative);
            assertEquals(zero, index.find(0));
            assertEquals(negative, index.find(-1));
        }
    }

    @Test
    void shouldRemoveBucket()
    {
        try (KeyIndex index = new KeyIndex(16))
        {
            final long bucket = index.findOrCreate(KeyHash.mix(3));
            index.findOrCreate(KeyHash.mix(4));
            index.remove(bucket);
            assertEquals(0, index.find(KeyHash.mix(3)));
            assertTrue(index.find(KeyHash.mix(4)) != 0);
            assertEquals(1, index.size());
        }
    }

    @Test
    void shouldReportFullAtMaxKeys()
    {
        try (KeyIndex index = new KeyIndex(16))
        {
            for (int i = 0; i < 16; i++)
            {
                assertTrue(index.findOrCreate(KeyHash.mix(i)) > 0, "key " + i);
            }
            assertEquals(KeyIndex.FULL, index.findOrCreate(KeyHash.mix(16)));
            assertEquals(0, index.find(KeyHash.mix(16)));
            assertEquals(16, index.size());
        }
    }

    @Test
    void shouldStillFindExistingKeyWhenFull()
    {
        try (KeyIndex index = new KeyIndex(4))
        {
            final long first = index.findOrCreate(KeyHash.mix(0));
            for (int i = 1; i < 4; i++)
            {
                index.findOrCreate(KeyHash.mix(i));
            }
            assertEquals(first, index.findOrCreate(KeyHash.mix(0)));
        }
    }

    @Test
    void shouldMakeRoomWhenKeyIsRemovedFromFullIndex()
    {
        try (KeyIndex index = new KeyIndex(4))
        {
            final long first = index.findOrCreate(KeyHash.mix(0));
            for (int i = 1; i < 4; i++)
            {
                index.findOrCreate(KeyHash.mix(i));
            }
            index.remove(first);
            assertTrue(index.findOrCreate(KeyHash.mix(99)) > 0);
            assertEquals(KeyIndex.FULL, index.findOrCreate(KeyHash.mix(100)));
        }
    }

    @Test
    void shouldSurviveChurnOfManyKeys()
    {
        try (KeyIndex index = new KeyIndex(64))
        {
            for (int i = 0; i < 20_000; i++)
            {
                final long bucket = index.findOrCreate(KeyHash.mix(i));
                assertTrue(bucket > 0, "key " + i);
                if (i >= 32)
                {
                    index.remove(index.find(KeyHash.mix(i - 32)));
                }
            }
            assertEquals(32, index.size());
        }
    }

    @Test
    void shouldRejectNonPositiveCapacity()
    {
        assertThrows(IllegalArgumentException.class, () -> new KeyIndex(0));
    }

    @Test
    void shouldFillToCapacityThenAnswerFullWithBothKinds()
    {
        for (final io.junction.join.IndexKind kind : io.junction.join.IndexKind.values())
        {
            for (final long capacity : new long[] {1, 100, 5000})
            {
                try (KeyIndex index = new KeyIndex(capacity, BucketDescriptor.LENGTH, kind))
                {
                    for (long i = 0; i < capacity; i++)
                    {
                        final long bucket = index.findOrCreate(KeyHash.mix(i));
                        assertTrue(bucket > 0, kind + " capacity " + capacity + " full at " + i);
                    }
                    assertEquals(KeyIndex.FULL, index.findOrCreate(KeyHash.mix(capacity)));
                    assertEquals(capacity, index.size());
                    assertTrue(index.offHeapBytes() <= index.maxOffHeapBytes() || kind == io.junction.join.IndexKind.CHRONICLE);
                    // A known key is still found; a freed key makes room for a new one.
                    assertNotEquals(KeyIndex.FULL, index.findOrCreate(KeyHash.mix(0)));
                    index.remove(index.find(KeyHash.mix(0)));
                    assertTrue(index.findOrCreate(KeyHash.mix(capacity)) > 0);
                }
            }
        }
    }
}
