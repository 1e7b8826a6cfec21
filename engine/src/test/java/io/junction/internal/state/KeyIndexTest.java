package io.junction.internal.state;

import io.junction.internal.row.KeyHash;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KeyIndexTest
{
    @ParameterizedTest
    @EnumSource(KeyIndex.Kind.class)
    void shouldFindNothingInEmptyIndex(final KeyIndex.Kind kind)
    {
        try (KeyIndex index = KeyIndex.create(kind, 16))
        {
            assertEquals(0, index.find(KeyHash.mix(1)));
            assertEquals(0, index.size());
        }
    }

    @ParameterizedTest
    @EnumSource(KeyIndex.Kind.class)
    void shouldCreateEmptyBucketCarryingItsHash(final KeyIndex.Kind kind)
    {
        try (KeyIndex index = KeyIndex.create(kind, 16))
        {
            final long hash = KeyHash.mix(7);
            final long bucket = index.findOrCreate(hash);
            assertTrue(bucket > 0);
            assertEquals(hash, BucketDescriptor.hash(bucket));
            assertTrue(BucketDescriptor.isEmpty(bucket));
            assertEquals(0, BucketDescriptor.rows(bucket, RowDescriptor.LEFT));
            assertEquals(0, BucketDescriptor.rows(bucket, RowDescriptor.RIGHT));
            assertEquals(0, BucketDescriptor.count(bucket, RowDescriptor.LEFT));
            assertEquals(1, index.size());
        }
    }

    @ParameterizedTest
    @EnumSource(KeyIndex.Kind.class)
    void shouldReturnSameBucketForSameHash(final KeyIndex.Kind kind)
    {
        try (KeyIndex index = KeyIndex.create(kind, 16))
        {
            final long bucket = index.findOrCreate(KeyHash.mix(7));
            assertEquals(bucket, index.findOrCreate(KeyHash.mix(7)));
            assertEquals(bucket, index.find(KeyHash.mix(7)));
            assertEquals(1, index.size());
        }
    }

    @ParameterizedTest
    @EnumSource(KeyIndex.Kind.class)
    void shouldKeepDistinctBucketsForDistinctHashes(final KeyIndex.Kind kind)
    {
        try (KeyIndex index = KeyIndex.create(kind, 1024))
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

    @ParameterizedTest
    @EnumSource(KeyIndex.Kind.class)
    void shouldAcceptZeroAndNegativeHashes(final KeyIndex.Kind kind)
    {
        try (KeyIndex index = KeyIndex.create(kind, 16))
        {
            final long zero = index.findOrCreate(0);
            final long negative = index.findOrCreate(-1);
            assertNotEquals(zero, negative);
            assertEquals(zero, index.find(0));
            assertEquals(negative, index.find(-1));
        }
    }

    @ParameterizedTest
    @EnumSource(KeyIndex.Kind.class)
    void shouldRemoveBucket(final KeyIndex.Kind kind)
    {
        try (KeyIndex index = KeyIndex.create(kind, 16))
        {
            final long bucket = index.findOrCreate(KeyHash.mix(3));
            index.findOrCreate(KeyHash.mix(4));
            index.remove(bucket);
            assertEquals(0, index.find(KeyHash.mix(3)));
            assertTrue(index.find(KeyHash.mix(4)) != 0);
            assertEquals(1, index.size());
        }
    }

    @ParameterizedTest
    @EnumSource(KeyIndex.Kind.class)
    void shouldReportFullAtMaxKeys(final KeyIndex.Kind kind)
    {
        try (KeyIndex index = KeyIndex.create(kind, 16))
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

    @ParameterizedTest
    @EnumSource(KeyIndex.Kind.class)
    void shouldStillFindExistingKeyWhenFull(final KeyIndex.Kind kind)
    {
        try (KeyIndex index = KeyIndex.create(kind, 4))
        {
            final long first = index.findOrCreate(KeyHash.mix(0));
            for (int i = 1; i < 4; i++)
            {
                index.findOrCreate(KeyHash.mix(i));
            }
            assertEquals(first, index.findOrCreate(KeyHash.mix(0)));
        }
    }

    @ParameterizedTest
    @EnumSource(KeyIndex.Kind.class)
    void shouldMakeRoomWhenKeyIsRemovedFromFullIndex(final KeyIndex.Kind kind)
    {
        try (KeyIndex index = KeyIndex.create(kind, 4))
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

    @ParameterizedTest
    @EnumSource(KeyIndex.Kind.class)
    void shouldSurviveChurnOfManyKeys(final KeyIndex.Kind kind)
    {
        try (KeyIndex index = KeyIndex.create(kind, 64))
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

    @ParameterizedTest
    @EnumSource(KeyIndex.Kind.class)
    void shouldRejectNonPositiveCapacity(final KeyIndex.Kind kind)
    {
        assertThrows(IllegalArgumentException.class, () -> KeyIndex.create(kind, 0));
    }

    @ParameterizedTest
    @EnumSource(KeyIndex.Kind.class)
    void shouldFillToCapacityThenAnswerFull(final KeyIndex.Kind kind)
    {
        for (final long capacity : new long[] {1, 100, 5000})
        {
            try (KeyIndex index = KeyIndex.create(kind, capacity))
            {
                assertEquals(kind, index.kind());
                assertEquals(capacity, index.capacity());
                for (long i = 0; i < capacity; i++)
                {
                    final long bucket = index.findOrCreate(KeyHash.mix(i));
                    assertTrue(bucket > 0, kind + " capacity " + capacity + " full at " + i);
                }
                assertEquals(KeyIndex.FULL, index.findOrCreate(KeyHash.mix(capacity)));
                assertEquals(capacity, index.size());
                assertTrue(index.offHeapBytes() <= index.maxOffHeapBytes() || kind == KeyIndex.Kind.CHRONICLE);
                // A known key is still found; a freed key makes room for a new one.
                assertNotEquals(KeyIndex.FULL, index.findOrCreate(KeyHash.mix(0)));
                index.remove(index.find(KeyHash.mix(0)));
                assertTrue(index.findOrCreate(KeyHash.mix(capacity)) > 0);
            }
        }
    }
}
