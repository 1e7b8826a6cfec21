package io.junction.internal.state;

import io.junction.join.IndexKind;

import net.openhft.chronicle.core.values.LongValue;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;
import net.openhft.chronicle.values.Values;
import org.agrona.UnsafeApi;

import java.util.Locale;

/**
 * The partition's join-key index: from the 64-bit hash of a join key to the address of its bucket
 * ({@link BucketDescriptor}) in an off-heap arena. Bucket updates go straight to memory without
 * touching the index again. Distinct keys whose hashes collide share a bucket and are told apart by
 * the key bytes kept in each row record. Two implementations, both off-heap and allocation-free:
 * <ul>
 *   <li>{@link IndexKind#CHRONICLE} (the default): a Chronicle Map with fixed-size {@link LongValue} keys
 *       and values reused across calls and accessed through query contexts. It can live in a
 *       memory-mapped file and is the engine's reference index; an operation costs ~400-900 ns.</li>
 *   <li>{@link IndexKind#HASH}: an open-addressing table of {@code [hash, bucket]} slots in native memory
 *       (linear probing, backward-shift deletion, load factor at most 1/2), for when the key index is
 *       the bottleneck: one operation costs a cache miss or two.</li>
 * </ul>
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public final class KeyIndex implements AutoCloseable
{
    /** Returned by {@link #findOrCreate} when the index is at its configured capacity. */
    public static final long FULL = -1;

    /** Which index implementation to use. */

    private static final int SLOT = 16;

    private final IndexKind kind;
    private final long table;
    private final long mask;
    private final int shift;

    private final ChronicleMap<LongValue, LongValue> map;
    private final NativeArena buckets;
    private final LongValue key;
    private final LongValue value;
    private final long maxKeys;
    private final int bucketLength;
    private long size;
    private boolean closed;
    private long offHeapQueries;
    private long chronicleBytes;
    private final long maxOffHeapBytes;

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
        this(maxKeys, bucketLength, IndexKind.CHRONICLE);
    }

    /**
     * @param maxKeys      as {@link #KeyIndex(long)}.
     * @param bucketLength as {@link #KeyIndex(long, int)}.
     * @param kind         the implementation.
     */
    public KeyIndex(final long maxKeys, final int bucketLength, final IndexKind kind)
    {
        this(maxKeys, bucketLength, kind, 0);
    }

    /**
     * @param maxKeys            as {@link #KeyIndex(long)}.
     * @param bucketLength       as {@link #KeyIndex(long, int)}.
     * @param kind               the implementation.
     * @param preallocateBuckets bytes of bucket arena to take and touch up front ({@link NativeArena}).
     */
    public KeyIndex(final long maxKeys, final int bucketLength, final IndexKind kind, final long preallocateBuckets)
    {
        this.kind = kind;
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
        if (kind == IndexKind.CHRONICLE)
        {
            this.key = Values.newHeapInstance(LongValue.class);
            this.value = Values.newHeapInstance(LongValue.class);
            this.map = ChronicleMap.of(LongValue.class, LongValue.class)
                .name("junction-key-index")
                .entries(maxKeys + maxKeys / 8 + 64)
                .create();
            this.table = 0;
            this.mask = 0;
            this.shift = 0;
        }
        else
        {
            if (maxKeys > 1L << 30)
            {
                throw new IllegalArgumentException("maxKeys must be <= 2^30 for the hash index: " + maxKeys);
            }
            final long slots = Long.highestOneBit(maxKeys * 2 - 1) << 1;
            this.key = null;
            this.value = null;
            this.map = null;
            this.table = UnsafeApi.allocateMemory(slots * SLOT);
            UnsafeApi.setMemory(table, slots * SLOT, (byte)0);
            this.mask = slots - 1;
            this.shift = 64 - Long.numberOfTrailingZeros(slots);
        }
        // Buckets are all one size, so the arena never needs more than the chunks that hold maxKeys of
        // them (plus the tail wasted at each chunk's end): its limit bounds the index's memory.
        final int bucketChunk = Math.max(4096, (int)Math.min(1 << 20, maxKeys * bucketLength));
        final long bucketsPerChunk = bucketChunk / NativeArena.alignedSize(bucketLength);
        final long bucketLimit = ((maxKeys + bucketsPerChunk - 1) / bucketsPerChunk) * bucketChunk;
        this.buckets = new NativeArena(bucketChunk, Math.min(preallocateBuckets, maxKeys * bucketLength), bucketLimit);
        this.maxOffHeapBytes = (kind == IndexKind.CHRONICLE ? map.offHeapMemoryUsed() : (mask + 1) * SLOT) + bucketLimit;
    }

    /** @return the most off-heap bytes this index takes at its capacity (Chronicle Map: as created). */
    public long maxOffHeapBytes()
    {
        return maxOffHeapBytes;
    }

    /** @return the most live keys. */
    public long capacity()
    {
        return maxKeys;
    }

    /** @return the bucket of a key hash, or 0 when the key has no rows. */
    public long find(final long hash)
    {
        if (kind == IndexKind.HASH)
        {
            for (long i = home(hash); ; i = (i + 1) & mask)
            {
                final long slot = table + i * SLOT;
                final long bucket = UnsafeApi.getLong(slot + 8);
                if (bucket == 0)
                {
                    return 0;
                }
                if (UnsafeApi.getLong(slot) == hash)
                {
                    return bucket;
                }
            }
        }
        key.setValue(hash);
        final LongValue found = map.getUsing(key, value);
        return found == null ? 0 : found.getValue();
    }

    /** @return the bucket of a key hash, created empty when absent, or {@link #FULL}. */
    public long findOrCreate(final long hash)
    {
        if (kind == IndexKind.HASH)
        {
            long i = home(hash);
            while (true)
            {
                final long slot = table + i * SLOT;
                final long bucket = UnsafeApi.getLong(slot + 8);
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
                    UnsafeApi.putLong(slot, hash);
                    UnsafeApi.putLong(slot + 8, created);
                    size++;
                    return created;
                }
                if (UnsafeApi.getLong(slot) == hash)
                {
                    return bucket;
                }
                i = (i + 1) & mask;
            }
        }
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
            if (bucket == 0)
            {
                return FULL;
            }
            BucketDescriptor.init(bucket, hash);
            value.setValue(bucket);
            try
            {
                context.insert(context.absentEntry(), context.wrapValueAsData(value));
            }
            catch (final RuntimeException | OutOfMemoryError segmentFull)
            {
                // Chronicle Map refuses an insert when a segment is full before maxKeys is reached
                // (keys hash unevenly), or when it cannot map another tier: the caller treats it like
                // a full index, never as an error on the partition thread.
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
        if (kind == IndexKind.HASH)
        {
            removeFromTable(BucketDescriptor.hash(bucket));
            buckets.free(bucket, bucketLength);
            return;
        }
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

    private long home(final long hash)
    {
        // Fibonacci hashing: the table's index comes from the high bits of a multiplicative mix, so
        // it is independent of the bits that chose the partition.
        return (hash * 0x9E3779B97F4A7C15L) >>> shift;
    }

    private void removeFromTable(final long hash)
    {
        long i = home(hash);
        while (true)
        {
            final long slot = table + i * SLOT;
            if (UnsafeApi.getLong(slot + 8) == 0)
            {
                return;
            }
            if (UnsafeApi.getLong(slot) == hash)
            {
                break;
            }
            i = (i + 1) & mask;
        }
        // Backward-shift deletion: move later entries of the probe run into the hole, so that lookups
        // never need tombstones.
        long hole = i;
        long j = (i + 1) & mask;
        while (true)
        {
            final long slot = table + j * SLOT;
            final long bucket = UnsafeApi.getLong(slot + 8);
            if (bucket == 0)
            {
                break;
            }
            final long entryHome = home(UnsafeApi.getLong(slot));
            if (((j - entryHome) & mask) >= ((j - hole) & mask))
            {
                final long holeSlot = table + hole * SLOT;
                UnsafeApi.putLong(holeSlot, UnsafeApi.getLong(slot));
                UnsafeApi.putLong(holeSlot + 8, bucket);
                hole = j;
            }
            j = (j + 1) & mask;
        }
        final long holeSlot = table + hole * SLOT;
        UnsafeApi.putLong(holeSlot, 0);
        UnsafeApi.putLong(holeSlot + 8, 0);
        size--;
    }

    /** @return which implementation this index uses. */
    public IndexKind kind()
    {
        return kind;
    }

    /** @return live keys. */
    public long size()
    {
        return size;
    }

    /** @return off-heap bytes of the map and the bucket arena. */
    public long offHeapBytes()
    {
        if (kind == IndexKind.CHRONICLE)
        {
            // Chronicle Map sums its segments and tiers to answer; the runtime asks at every batch
            // end, so ask the map once per 1024 calls: memory only grows in tiers anyway.
            if ((offHeapQueries++ & 1023) == 0)
            {
                chronicleBytes = map.offHeapMemoryUsed();
            }
            return chronicleBytes + buckets.reservedBytes();
        }
        return (mask + 1) * SLOT + buckets.reservedBytes();
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (kind == IndexKind.CHRONICLE)
        {
            map.close();
        }
        else
        {
            UnsafeApi.freeMemory(table);
        }
        buckets.close();
    }
}
