package io.junction.state;

import net.openhft.chronicle.core.values.LongValue;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;
import net.openhft.chronicle.values.Values;

/**
 * The partition's join-key index: a Chronicle Map from the 64-bit hash of a join key to the address
 * of its bucket ({@link BucketDescriptor}) in an off-heap arena. Keys and values are fixed-size
 * {@link LongValue}s reused across calls and accessed through query contexts, so a lookup allocates
 * nothing; bucket updates then go straight to memory without touching the map again. Distinct keys
 * whose hashes collide share a bucket and are told apart by the key bytes kept in each row record.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public final class KeyIndex implements AutoCloseable
{
    /** Returned by {@link #findOrCreate} when the map is at its configured capacity. */
    public static final long FULL = -1;

    private final ChronicleMap<LongValue, LongValue> map;
    private final NativeArena buckets;
    private final LongValue key = Values.newHeapInstance(LongValue.class);
    private final LongValue value = Values.newHeapInstance(LongValue.class);
    private final long maxKeys;
    private final int bucketLength;
    private long size;

    /**
     * @param maxKeys the most live keys; Chronicle Map sizes its segments from it and cannot grow far
     *                beyond it (a bounded bloat factor), so set it with headroom.
     */
    public KeyIndex(final long maxKeys)
    {
        this(maxKeys, BucketDescriptor.LENGTH);
    }

    /**
     * @param maxKeys      as {@link #KeyIndex(long)}.
     * @param bucketLength bytes per bucket, at least {@link BucketDescriptor#LENGTH}: operators that keep
     *                     more per key (a window join's timer links) lay it out after the standard fields.
     */
    public KeyIndex(final long maxKeys, final int bucketLength)
    {
        if (bucketLength < BucketDescriptor.LENGTH)
        {
            throw new IllegalArgumentException("bucketLength must be >= " + BucketDescriptor.LENGTH + ": " + bucketLength);
        }
        this.bucketLength = bucketLength;
        if (maxKeys < 1)
        {
            throw new IllegalArgumentException("maxKeys must be >= 1: " + maxKeys);
        }
        this.maxKeys = maxKeys;
        this.map = ChronicleMap.of(LongValue.class, LongValue.class)
            .name("junction-key-index")
            .entries(maxKeys)
            .create();
        this.buckets = new NativeArena(Math.max(4096, (int)Math.min(1 << 20, maxKeys * bucketLength)));
    }

    /** @return the bucket of a key hash, or 0 when the key has no rows. */
    public long find(final long hash)
    {
        key.setValue(hash);
        final LongValue found = map.getUsing(key, value);
        return found == null ? 0 : found.getValue();
    }

    /** @return the bucket of a key hash, created empty when absent, or {@link #FULL}. */
    public long findOrCreate(final long hash)
    {
        key.setValue(hash);
        try (ExternalMapQueryContext<LongValue, LongValue, ?> context = map.queryContext(key))
        {
            context.updateLock().lock();
            final MapEntry<LongValue, LongValue> entry = context.entry();
            if (entry != null)
            {
                return entry.value().getUsing(value).getValue();
            }
            if (size >= maxKeys)
            {
                return FULL;
            }
            final long bucket = buckets.allocate(bucketLength);
            BucketDescriptor.init(bucket, hash);
            value.setValue(bucket);
            try
            {
                context.insert(context.absentEntry(), context.wrapValueAsData(value));
            }
            catch (final IllegalStateException segmentFull)
            {
                // Chronicle Map refuses an insert when a segment is full before maxKeys is reached
                // (keys hash unevenly): the caller treats it like a full index.
                buckets.free(bucket, bucketLength);
                return FULL;
            }
            size++;
            return bucket;
        }
    }

    /** Removes an empty bucket from the index and frees it. */
    public void remove(final long bucket)
    {
        key.setValue(BucketDescriptor.hash(bucket));
        try (ExternalMapQueryContext<LongValue, LongValue, ?> context = map.queryContext(key))
        {
            context.updateLock().lock();
            final MapEntry<LongValue, LongValue> entry = context.entry();
            if (entry != null)
            {
                context.remove(entry);
                size--;
            }
        }
        buckets.free(bucket, bucketLength);
    }

    /** @return live keys. */
    public long size()
    {
        return size;
    }

    /** @return off-heap bytes of the map and the bucket arena. */
    public long offHeapBytes()
    {
        return map.offHeapMemoryUsed() + buckets.reservedBytes();
    }

    @Override
    public void close()
    {
        map.close();
        buckets.close();
    }
}
