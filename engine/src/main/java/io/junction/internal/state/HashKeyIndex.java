package io.junction.internal.state;

import io.junction.join.IndexKind;

import org.agrona.UnsafeApi;

/**
 * {@link IndexKind#HASH}: an open-addressing table of {@code [hash, bucket]} slots in native memory
 * (linear probing, backward-shift deletion, load factor at most 1/2). A slot whose bucket is 0 is empty.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public final class HashKeyIndex implements KeyIndex
{
    private static final int HASH_OFFSET = HashSlots.HASH_OFFSET;
    /** A slot's value: the bucket's address. */
    private static final int BUCKET_OFFSET = HashSlots.VALUE_OFFSET;
    private static final int SLOT = HashSlots.SLOT;
    /** The most keys: the table has twice as many slots, and its index must fit the shift below. */
    private static final long MAX_KEYS = 1L << 30;

    private final long table;
    private final long mask;
    private final int shift;
    private final NativeArena buckets;
    private final long maxKeys;
    private final int bucketLength;
    private final long maxOffHeapBytes;
    private long size;
    private boolean closed;

    /**
     * @param maxKeys            the most live keys, at most 2^30.
     * @param bucketLength       bytes per bucket, at least {@link BucketDescriptor#LENGTH}.
     * @param preallocateBuckets bytes of bucket arena to take and touch up front ({@link NativeArena}).
     */
    public HashKeyIndex(final long maxKeys, final int bucketLength, final long preallocateBuckets)
    {
        KeyIndexes.checkArguments(maxKeys, bucketLength);
        if (maxKeys > MAX_KEYS)
        {
            throw new IllegalArgumentException("maxKeys must be <= 2^30 for the hash index: " + maxKeys);
        }
        this.maxKeys = maxKeys;
        this.bucketLength = bucketLength;
        final long slots = Long.highestOneBit(maxKeys * 2 - 1) << 1;
        // The bucket arena first: when it throws, no table has been taken yet.
        this.buckets = KeyIndexes.bucketArena(maxKeys, bucketLength, preallocateBuckets);
        try
        {
            this.table = UnsafeApi.allocateMemory(slots * SLOT);
        }
        catch (final RuntimeException | Error e)
        {
            buckets.close();
            throw e;
        }
        UnsafeApi.setMemory(table, slots * SLOT, (byte)0);
        this.mask = slots - 1;
        this.shift = 64 - Long.numberOfTrailingZeros(slots);
        this.maxOffHeapBytes = slots * SLOT + buckets.limit();
    }

    @Override
    public long maxOffHeapBytes()
    {
        return maxOffHeapBytes;
    }

    @Override
    public long capacity()
    {
        return maxKeys;
    }

    @Override
    public long find(final long hash)
    {
        for (long i = home(hash); ; i = (i + 1) & mask)
        {
            final long slot = table + i * SLOT;
            final long bucket = UnsafeApi.getLong(slot + BUCKET_OFFSET);
            if (bucket == 0)
            {
                return 0;
            }
            if (UnsafeApi.getLong(slot + HASH_OFFSET) == hash)
            {
                return bucket;
            }
        }
    }

    @Override
    public long prefetch(final long hash)
    {
        return UnsafeApi.getLong(table + home(hash) * SLOT + BUCKET_OFFSET);
    }

    @Override
    public long findOrCreate(final long hash)
    {
        long i = home(hash);
        while (true)
        {
            final long slot = table + i * SLOT;
            final long bucket = UnsafeApi.getLong(slot + BUCKET_OFFSET);
            if (bucket == 0)
            {
                if (size >= maxKeys)
                {
                    return FULL;
                }
                final long created = buckets.allocate(bucketLength);
                if (created == 0)
                {
                    return FULL;
                }
                BucketDescriptor.init(created, hash);
                UnsafeApi.putLong(slot + HASH_OFFSET, hash);
                UnsafeApi.putLong(slot + BUCKET_OFFSET, created);
                size++;
                return created;
            }
            if (UnsafeApi.getLong(slot + HASH_OFFSET) == hash)
            {
                return bucket;
            }
            i = (i + 1) & mask;
        }
    }

    @Override
    public void remove(final long bucket)
    {
        removeFromTable(BucketDescriptor.hash(bucket));
        buckets.free(bucket, bucketLength);
    }

    private long home(final long hash)
    {
        return HashSlots.home(hash, shift);
    }

    private void removeFromTable(final long hash)
    {
        long i = home(hash);
        while (true)
        {
            final long slot = table + i * SLOT;
            if (UnsafeApi.getLong(slot + BUCKET_OFFSET) == 0)
            {
                return;
            }
            if (UnsafeApi.getLong(slot + HASH_OFFSET) == hash)
            {
                break;
            }
            i = (i + 1) & mask;
        }
        HashSlots.delete(table, mask, shift, i);
        size--;
    }

    @Override
    public IndexKind kind()
    {
        return IndexKind.HASH;
    }

    @Override
    public long size()
    {
        return size;
    }

    @Override
    public long offHeapBytes()
    {
        return (mask + 1) * SLOT + buckets.reservedBytes();
    }

    @Override
    public long liveBytes()
    {
        // Two slots per key: the table holds at most one key per two slots.
        return size * (NativeArena.alignedSize(bucketLength) + 2L * SLOT);
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        UnsafeApi.freeMemory(table);
        buckets.close();
    }
}
