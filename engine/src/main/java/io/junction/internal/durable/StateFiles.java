package io.junction.internal.durable;

import io.junction.api.RowFormat;
import io.junction.internal.state.BucketDescriptor;
import io.junction.internal.state.KeyIndex;
import io.junction.internal.state.MappedFile;
import io.junction.internal.state.NativeArena;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.state.RowStore;
import io.junction.internal.state.UniqueKeyIndex;
import io.junction.internal.time.TimerWheelImage;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The mapped files of a durable partition state, in its state directory: the arena of records, row groups and
 * buckets ({@link #ARENA}), the key index ({@link #INDEX}, or {@link #CHRONICLE_INDEX} for a Chronicle Map) and each
 * side's unique-key index ({@link #UNIQUE_LEFT}, {@link #UNIQUE_RIGHT}); and the layout string the directory's
 * marker holds the files to, so that a state written with other sizes is refused before a file is mapped.
 * Opens or creates them from plain sizes; the directory's validation, heap.dat and the marker are the caller's
 * ({@code join.DurableState}), and so is the refusal of damaged state (this reports it, the caller throws).
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public final class StateFiles implements AutoCloseable
{
    /** The arena file: records, row groups and buckets. */
    public static final String ARENA = "arena.dat";
    /** The hash index's slot table. */
    public static final String INDEX = "index.dat";
    /** The Chronicle Map index's file. */
    public static final String CHRONICLE_INDEX = "index.cmap";
    /** The left side's unique-key index. */
    public static final String UNIQUE_LEFT = "unique-left.dat";
    /** The right side's unique-key index. */
    public static final String UNIQUE_RIGHT = "unique-right.dat";

    private final MappedFile arenaFile;
    private final KeyIndex index;
    private final RowStore store;

    private StateFiles(final MappedFile arenaFile, final KeyIndex index, final RowStore store)
    {
        this.arenaFile = arenaFile;
        this.index = index;
        this.store = store;
    }

    /**
     * The layout a durable state's marker holds its files to: every size that shapes a byte of them.
     *
     * @param formatVersion the state directory's format version.
     * @param operator      the operator's layout name.
     * @param bucketLength  bytes of a bucket.
     * @param timedSides    the sides whose records carry timer links ({@link RowStore#TIMED_BOTH} and the others).
     * @param indexKind     the configured index kind, by its configuration name.
     * @param keys          the key index's capacity.
     * @param chunkSize     the arena's chunk size.
     * @param tickShift     the timer wheel's tick.
     * @param wheelSlots    the timer wheel's slots.
     * @param arenaLimit    the arena's byte limit.
     * @param maxLiveRows   the live-row limit.
     * @return the layout, for the directory to hash.
     */
    public static String layout(
        final int formatVersion, final String operator, final int bucketLength, final int timedSides, final String indexKind,
        final long keys, final int chunkSize, final int tickShift, final int wheelSlots, final long arenaLimit,
        final long maxLiveRows)
    {
        return "partition-state/" + formatVersion + '|' + operator + '|' +
            bucketLength + '|' + timedLayout(timedSides) + '|' + indexKind + '|' + keys + '|' + chunkSize + '|' +
            tickShift + '|' + wheelSlots + '|' + arenaLimit + '|' + maxLiveRows + '|' +
            RowDescriptor.TIMED_HEADER_LENGTH + '|' + NativeArena.VERSION + "|wheel" + TimerWheelImage.VERSION +
            "|rows" + RowFormat.VERSION;
    }

    /**
     * The timed sides' part of the durable layout: records of a side without timer links are 24 bytes
     * shorter, so a state written with other timed sides is refused. Both and neither keep the words of the
     * layout before timer links were per side ({@code true}, {@code false}): those records are unchanged.
     *
     * @param timedSides the sides whose records carry timer links.
     * @return its words in the layout.
     */
    public static String timedLayout(final int timedSides)
    {
        switch (timedSides)
        {
            case RowStore.TIMED_BOTH:
                return "true";
            case RowStore.TIMED_NONE:
                return "false";
            case RowStore.TIMED_LEFT:
                return "timed-left";
            default:
                return "timed-right";
        }
    }

    /**
     * Creates the arena and the key index in {@code directory}, or maps them as a reopened state left them.
     *
     * @param directory    the state directory.
     * @param reopen       whether the files hold a reopened state.
     * @param kind         the key index's implementation.
     * @param keys         the key index's capacity.
     * @param bucketLength bytes of a bucket.
     * @param chunkSize    the arena's chunk size.
     * @param arenaLimit   the arena's byte limit (beyond its header).
     * @param timedSides   the sides whose records carry timer links.
     * @param indexSize    the key index's live keys when reopened.
     * @param liveLeft     the left side's live rows when reopened.
     * @param liveRight    the right side's live rows when reopened.
     * @return the files, released together by {@link #close()}; on failure nothing stays mapped.
     * @throws IOException when a file cannot be created or mapped.
     */
    public static StateFiles open(
        final Path directory, final boolean reopen, final KeyIndex.Kind kind, final long keys, final int bucketLength,
        final int chunkSize, final long arenaLimit, final int timedSides, final long indexSize, final long liveLeft,
        final long liveRight) throws IOException
    {
        MappedFile arenaFile = null;
        KeyIndex index = null;
        try
        {
            final Path arenaPath = directory.resolve(ARENA);
            arenaFile = reopen ? MappedFile.open(arenaPath, NativeArena.HEADER_LENGTH + arenaLimit)
                : MappedFile.create(arenaPath, NativeArena.HEADER_LENGTH + arenaLimit, NativeArena.HEADER_LENGTH);
            final NativeArena arena = new NativeArena(arenaFile, chunkSize, arenaLimit, reopen);
            index = KeyIndex.open(kind, keys, bucketLength, arena,
                directory.resolve(kind == KeyIndex.Kind.CHRONICLE ? CHRONICLE_INDEX : INDEX), reopen, indexSize);
            final RowStore store = new RowStore(arena, timedSides);
            store.liveRows(liveLeft, liveRight);
            return new StateFiles(arenaFile, index, store);
        }
        catch (final IOException | RuntimeException | Error e)
        {
            if (index != null)
            {
                index.close();
            }
            if (arenaFile != null)
            {
                arenaFile.close();
            }
            throw e;
        }
    }

    /** @return the arena's file. */
    public MappedFile arenaFile()
    {
        return arenaFile;
    }

    /** @return the key index, its buckets in the arena. */
    public KeyIndex index()
    {
        return index;
    }

    /** @return the row store over the arena. */
    public RowStore store()
    {
        return store;
    }

    /**
     * The bucket of rows that can never match: a reopened state's, at its saved offset, or a fresh one carved
     * from the arena.
     *
     * @param reopen       whether the state is reopened.
     * @param offset       a reopened state's bucket, as an offset from the arena's base.
     * @param bucketLength bytes of a bucket.
     * @return the bucket's address, or 0 when a reopened state's offset is outside the arena's carved memory
     *         (damaged state, for the caller to refuse).
     * @throws IllegalStateException when a fresh arena has no room for it.
     */
    public long unmatchableBucket(final boolean reopen, final long offset, final int bucketLength)
    {
        final NativeArena arena = store.arena();
        if (reopen)
        {
            return arena.holds(offset, bucketLength) ? arena.base() + offset : 0;
        }
        final long bucket = arena.allocate(bucketLength);
        if (bucket == 0)
        {
            throw new IllegalStateException("no room in " + arenaFile.path() + " for the first bucket");
        }
        BucketDescriptor.init(arena.base(), bucket, 0);
        return bucket;
    }

    /**
     * Creates a side's unique-key index file, or maps it at a reopened state's saved size.
     *
     * @param file     the index's file ({@link #UNIQUE_LEFT} or {@link #UNIQUE_RIGHT} in the directory).
     * @param reopen   whether the state is reopened.
     * @param capacity the most entries.
     * @param base     the arena's address, which the index's references are relative to.
     * @param size     the entries when reopened.
     * @return the index, closing its file when closed.
     * @throws IOException when the file cannot be created or mapped.
     */
    public static UniqueKeyIndex openUniqueKeys(
        final Path file, final boolean reopen, final long capacity, final long base, final long size) throws IOException
    {
        final MappedFile mapped = reopen ? MappedFile.open(file, UniqueKeyIndex.maxOffHeapBytes(capacity))
            : MappedFile.create(file, UniqueKeyIndex.maxOffHeapBytes(capacity), 0);
        try
        {
            return new UniqueKeyIndex(capacity, base, mapped, size);
        }
        catch (final RuntimeException | Error e)
        {
            mapped.close();
            throw e;
        }
    }

    /** Closes the key index, then unmaps the arena's file (the row store's arena lives in it). */
    @Override
    public void close()
    {
        index.close();
        arenaFile.close();
    }
}
