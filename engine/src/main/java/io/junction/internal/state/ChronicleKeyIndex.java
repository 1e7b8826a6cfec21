package io.junction.internal.state;

import io.junction.internal.cut.DirtyChunks;
import io.junction.internal.memory.Refs;
import net.openhft.chronicle.core.values.LongValue;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;
import net.openhft.chronicle.values.Values;
import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.util.Map;

/**
 * {@link KeyIndex.Kind#CHRONICLE}: a Chronicle Map from key hash to bucket address, with fixed-size
 * {@link LongValue} keys and values reused across calls and accessed through query contexts.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public final class ChronicleKeyIndex implements KeyIndex
{
    private final ChronicleMap<LongValue, LongValue> map;
    private final NativeArena buckets;
    /** The buckets' base: values are stored relative to it ({@link Refs}). */
    private final long base;
    /** Whether the map is persisted to a file and the buckets live in the partition's durable arena. */
    private final boolean durable;
    /** The map's file in durable mode, else null. */
    private final File file;
    private final LongValue key;
    private final LongValue value;
    private final long maxKeys;
    private final int bucketLength;
    private final long maxOffHeapBytes;
    private long size;
    private boolean closed;
    private long offHeapQueries;
    private long chronicleBytes;

    /**
     * @param maxKeys            the most live keys; Chronicle Map sizes its segments from it and cannot grow
     *                           far beyond it (a bounded bloat factor), so set it with headroom.
     * @param bucketLength       bytes per bucket, at least {@link BucketDescriptor#LENGTH}.
     * @param preallocateBuckets bytes of bucket arena to take and touch up front ({@link NativeArena}).
     */
    public ChronicleKeyIndex(final long maxKeys, final int bucketLength, final long preallocateBuckets)
    {
        KeyIndexes.checkArguments(maxKeys, bucketLength);
        this.maxKeys = maxKeys;
        this.bucketLength = bucketLength;
        this.key = Values.newHeapInstance(LongValue.class);
        this.value = Values.newHeapInstance(LongValue.class);
        this.map = ChronicleMap.of(LongValue.class, LongValue.class)
            .name("junction-key-index")
            .entries(maxKeys + maxKeys / 8 + 64)
            .create();
        try
        {
            this.buckets = KeyIndexes.bucketArena(maxKeys, bucketLength, preallocateBuckets);
        }
        catch (final RuntimeException | Error e)
        {
            map.close();
            throw e;
        }
        this.maxOffHeapBytes = map.offHeapMemoryUsed() + buckets.limit();
        this.base = 0;
        this.durable = false;
        this.file = null;
    }

    /**
     * A durable index: a Chronicle Map persisted to {@code file} (created, or reopened as it is), its
     * buckets in the partition's durable arena.
     *
     * @param maxKeys      as the in-memory constructor.
     * @param bucketLength bytes per bucket.
     * @param buckets      the durable arena the buckets live in, closed by its owner.
     * @param file         the map's file.
     * @param size         live keys in the map (0 when fresh).
     * @throws java.io.IOException when the map cannot be created or opened.
     */
    public ChronicleKeyIndex(final long maxKeys, final int bucketLength, final NativeArena buckets,
        final File file, final long size) throws IOException
    {
        KeyIndexes.checkArguments(maxKeys, bucketLength);
        this.maxKeys = maxKeys;
        this.bucketLength = bucketLength;
        this.key = Values.newHeapInstance(LongValue.class);
        this.value = Values.newHeapInstance(LongValue.class);
        this.map = ChronicleMap.of(LongValue.class, LongValue.class)
            .name("junction-key-index")
            .entries(maxKeys + maxKeys / 8 + 64)
            .createPersistedTo(file);
        this.buckets = buckets;
        this.base = buckets.base();
        this.durable = true;
        this.file = file;
        this.maxOffHeapBytes = map.offHeapMemoryUsed();
        this.size = size;
        if (size > 0)
        {
            checkReopened(file);
        }
    }

    /**
     * A reopened map is checked before any value is followed: every entry's bucket reference points at a
     * bucket of the arena that holds the entry's hash ({@link NativeArena#checkBucket}), and the entries
     * are as many as the live keys the image recorded. One pass over the map; the map is closed on failure.
     */
    private void checkReopened(final File file)
    {
        String wrong = null;
        long entries = 0;
        for (final Map.Entry<LongValue, LongValue> entry : map.entrySet())
        {
            entries++;
            wrong = buckets.checkBucket(entry.getValue().getValue(), bucketLength, entry.getKey().getValue());
            if (wrong != null)
            {
                break;
            }
        }
        if (wrong == null && entries != size)
        {
            wrong = entries + " entries, the image recorded " + size + " live keys";
        }
        if (wrong != null)
        {
            map.close();
            throw new IllegalStateException(file + ": " + wrong + " (damaged state)");
        }
    }

    /**
     * @param maxKeys the most live keys.
     * @return the map a durable index of that capacity creates (the bytes it maps are its own business).
     */
    static long entries(final long maxKeys)
    {
        return maxKeys + maxKeys / 8 + 64;
    }

    /** @return the map's file name ({@link MappedPart}); null in memory. */
    @Override
    public String fileName()
    {
        return file == null ? null : file.getName();
    }

    /** @return null: the map's writes are the library's, not tracked; a persist reads the file whole. */
    @Override
    public DirtyChunks dirtyChunks()
    {
        return null;
    }

    /** fsyncs the map's file, written through the library's own mapping. */
    @Override
    public void force() throws IOException
    {
        if (file != null)
        {
            try (FileChannel channel = FileChannel.open(file.toPath(), StandardOpenOption.WRITE))
            {
                channel.force(true);
            }
        }
    }

    /** @return the map file's bytes. */
    @Override
    public long fileLength() throws IOException
    {
        return Files.size(file.toPath());
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
        key.setValue(hash);
        final LongValue found = map.getUsing(key, value);
        return found == null ? 0 : base + found.getValue();
    }

    @Override
    public long findOrCreate(final long hash)
    {
        key.setValue(hash);
        try (ExternalMapQueryContext<LongValue, LongValue, ?> context = map.queryContext(key))
        {
            context.updateLock().lock();
            final MapEntry<LongValue, LongValue> entry = context.entry();
            if (entry != null)
            {
                return base + entry.value().getUsing(value).getValue();
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
            BucketDescriptor.init(base, bucket, hash);
            value.setValue(bucket - base);
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

    @Override
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

    @Override
    public Kind kind()
    {
        return Kind.CHRONICLE;
    }

    @Override
    public long size()
    {
        return size;
    }

    @Override
    public long liveBytes()
    {
        final long mapBytes = durable ? maxOffHeapBytes : maxOffHeapBytes - buckets.limit();
        return size * ((durable ? 0 : NativeArena.alignedSize(bucketLength)) + mapBytes / Math.max(1, maxKeys));
    }

    @Override
    public long offHeapBytes()
    {
        // Chronicle Map sums its segments and tiers to answer; the runtime asks at every batch end, so
        // ask the map once per 1024 calls: memory only grows in tiers anyway.
        if ((offHeapQueries++ & 1023) == 0)
        {
            chronicleBytes = map.offHeapMemoryUsed();
        }
        return chronicleBytes + (durable ? 0 : buckets.reservedBytes());
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        map.close();
        if (!durable)
        {
            buckets.close();
        }
    }
}
