package io.junction.internal.state;

import io.junction.internal.cut.DirtyChunks;
import io.junction.internal.io.WorkerThreads;
import io.junction.internal.memory.Refs;
import org.agrona.UnsafeApi;
import java.io.IOException;
import java.nio.file.Files;

/**
 * {@link KeyIndex.Kind#HASH}: an open-addressing table of {@code [hash, bucket]} slots in native memory
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
    /** The buckets' base: slot values are stored relative to it ({@link Refs}). */
    private final long base;
    /** The table's file in durable mode, else null (the table is malloc'd and the bucket arena is this index's own). */
    private final MappedFile file;
    /** The durable table's dirty-chunk tracking, else null. */
    private final DirtyChunks dirty;
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
        this.base = 0;
        this.file = null;
        this.dirty = null;
    }

    /**
     * A durable index: its table is the mapped file (fresh: all zeros), its buckets come from the
     * partition's durable arena, and both stay where they are when the index is reopened.
     *
     * @param maxKeys      the most live keys, at most 2^30.
     * @param bucketLength bytes per bucket.
     * @param buckets      the durable arena the buckets live in, closed by its owner.
     * @param file         the table's file, {@link #tableBytes(long)} long; closed by this index.
     * @param size         live keys in the table (0 when fresh).
     */
    public HashKeyIndex(final long maxKeys, final int bucketLength, final NativeArena buckets, final MappedFile file,
        final long size)
    {
        KeyIndexes.checkArguments(maxKeys, bucketLength);
        if (maxKeys > MAX_KEYS)
        {
            throw new IllegalArgumentException("maxKeys must be <= 2^30 for the hash index: " + maxKeys);
        }
        final long slots = Long.highestOneBit(maxKeys * 2 - 1) << 1;
        if (file.length() != slots * SLOT)
        {
            throw new IllegalArgumentException(file.path() + " is " + file.length() + " bytes, a table of " + slots + " slots " + slots * SLOT);
        }
        this.maxKeys = maxKeys;
        this.bucketLength = bucketLength;
        this.buckets = buckets;
        this.base = buckets.base();
        this.file = file;
        this.dirty = new DirtyChunks(file);
        this.table = file.address();
        this.mask = slots - 1;
        this.shift = 64 - Long.numberOfTrailingZeros(slots);
        this.maxOffHeapBytes = slots * SLOT;
        this.size = size;
        if (size > 0)
        {
            checkReopened(slots);
        }
    }

    /** Slots below which a reopened table is checked on the opening thread alone (a small table). */
    private static final long CHECK_ALONE_SLOTS = 1L << 20;
    /** Most workers of a reopened table's check, whatever the core count. */
    private static final int CHECK_MAX_THREADS = 8;

    /**
     * A reopened table is checked before any slot is followed: every occupied slot's bucket reference
     * points at a bucket of the arena that holds the slot's hash ({@link NativeArena#checkBucket}), and
     * the occupied slots are as many as the live keys the image recorded. One pass over the table; a large
     * table is cut into one range of slots per core (at most {@value #CHECK_MAX_THREADS}), each checked by a
     * worker named after the opening thread ({@code <thread>-index-check-N}) and joined before this returns: the pass is bound by
     * faulting in the table's and the arena's pages and by the random reads of the buckets, which the cores
     * share out. The workers only read the mappings (nothing else touches them while the index is built);
     * the damage named is the lowest slot's, as a single pass names it.
     */
    private void checkReopened(final long slots)
    {
        final int threads = slots < CHECK_ALONE_SLOTS ? 1 :
            Math.max(1, Math.min(CHECK_MAX_THREADS, Runtime.getRuntime().availableProcessors()));
        final long[] occupied = new long[threads];
        final String[] wrong = new String[threads];
        final Thread[] workers = new Thread[threads - 1];
        for (int w = 1; w < threads; w++)
        {
            final int worker = w;
            workers[w - 1] = new Thread(() -> wrong[worker] = checkSlots(slots * worker / threads, slots * (worker + 1) / threads,
                occupied, worker), Thread.currentThread().getName() + "-index-check-" + w); // after the opening thread
            workers[w - 1].setDaemon(true);
            workers[w - 1].start();
        }
        wrong[0] = checkSlots(0, slots / threads, occupied, 0);
        WorkerThreads.joinAll(workers);
        long total = 0;
        for (int w = 0; w < threads; w++)
        {
            if (wrong[w] != null)
            {
                throw new IllegalStateException(wrong[w]);
            }
            total += occupied[w];
        }
        if (total != size)
        {
            throw new IllegalStateException(file.path() + " has " + total + " occupied slots, the image recorded " + size +
                " live keys (damaged state)");
        }
    }

    /**
     * Checks slots {@code [from, to)}; counts the occupied ones into {@code occupied[worker]}.
     *
     * @return what is wrong with the first damaged slot, or null.
     */
    private String checkSlots(final long from, final long to, final long[] occupied, final int worker)
    {
        long count = 0;
        for (long i = from; i < to; i++)
        {
            final long slot = table + i * SLOT;
            final long bucket = UnsafeApi.getLong(slot + BUCKET_OFFSET);
            if (bucket == 0)
            {
                continue;
            }
            count++;
            final String wrong = buckets.checkBucket(bucket, bucketLength, UnsafeApi.getLong(slot + HASH_OFFSET));
            if (wrong != null)
            {
                occupied[worker] = count;
                return file.path() + " slot " + i + ": " + wrong + " (damaged state)";
            }
        }
        occupied[worker] = count;
        return null;
    }

    /**
     * @param maxKeys the most live keys.
     * @return the bytes of the table of an index of that capacity.
     */
    public static long tableBytes(final long maxKeys)
    {
        return (Long.highestOneBit(maxKeys * 2 - 1) << 1) * SLOT;
    }

    /** @return the durable table's dirty-chunk tracking, or null in memory. */
    @Override
    public DirtyChunks dirtyChunks()
    {
        return dirty;
    }

    /** Forces a durable table to the device. */
    @Override
    public void force() throws IOException
    {
        if (file != null)
        {
            file.force();
        }
    }

    /** @return the durable table's file name ({@link MappedPart}); null in memory. */
    @Override
    public String fileName()
    {
        return file == null ? null : file.path().getFileName().toString();
    }

    /** @return the durable table file's bytes. */
    @Override
    public long fileLength() throws IOException
    {
        return Files.size(file.path());
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
                return base + bucket;
            }
        }
    }

    @Override
    public long prefetch(final long hash)
    {
        return Refs.toAddress(base, UnsafeApi.getLong(table + home(hash) * SLOT + BUCKET_OFFSET));
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
                BucketDescriptor.init(base, created, hash);
                if (dirty != null)
                {
                    dirty.mark(slot);
                }
                UnsafeApi.putLong(slot + HASH_OFFSET, hash);
                UnsafeApi.putLong(slot + BUCKET_OFFSET, created - base);
                size++;
                return created;
            }
            if (UnsafeApi.getLong(slot + HASH_OFFSET) == hash)
            {
                return base + bucket;
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
        HashSlots.delete(table, mask, shift, i, dirty);
        size--;
    }

    @Override
    public Kind kind()
    {
        return Kind.HASH;
    }

    @Override
    public long size()
    {
        return size;
    }

    @Override
    public long offHeapBytes()
    {
        // A durable index's buckets are in the partition's arena, counted with the rows.
        return (mask + 1) * SLOT + (file == null ? buckets.reservedBytes() : 0);
    }

    @Override
    public long liveBytes()
    {
        // Two slots per key: the table holds at most one key per two slots.
        return size * ((file == null ? NativeArena.alignedSize(bucketLength) : 0) + 2L * SLOT);
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (file != null)
        {
            dirty.close();
            file.close();
            return;
        }
        UnsafeApi.freeMemory(table);
        buckets.close();
    }
}
