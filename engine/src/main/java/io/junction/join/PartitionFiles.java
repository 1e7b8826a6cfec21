package io.junction.join;

import io.junction.api.JoinSpec;
import io.junction.api.Side;
import io.junction.internal.durable.ChunkSums;
import io.junction.internal.durable.HeapImage;
import io.junction.internal.durable.StateFiles;
import io.junction.internal.memory.HeapPart;
import io.junction.internal.cut.DirtyChunks;
import io.junction.internal.state.KeyIndex;
import io.junction.internal.state.MappedPart;
import io.junction.internal.state.NativeArena;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.cut.StagedCut;
import io.junction.internal.cut.StateCut;
import io.junction.internal.state.Chunks;
import io.junction.internal.state.UniqueKeyIndex;
import io.junction.internal.time.TimerWheel;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The durable mode of a {@link PartitionState}: its state directory ({@link DurableState}: validation, heap.dat,
 * the marker), the mapped files in it ({@link StateFiles}), the heap image ({@link HeapImage}) and the cut of
 * them ({@link StateCut}), and whether the files are a clean image. The state keeps the live rows and their
 * limits and hands its persists, cuts and reopen here.
 *
 * <p>Here in {@code join}, not in {@code internal.durable}, because the directory's validation takes the
 * {@link StateConfig} and refuses with the public {@link DurableStateException}.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class PartitionFiles
{
    /** Where the arena, the key index and the left side's unique-key index are in {@link #mappedParts}. */
    private static final int ARENA_PART = 0;
    private static final int INDEX_PART = 1;
    private static final int UNIQUE_PART = 2;

    /** The directory. */
    final DurableState durable;
    /** The arena, the key index and the row store in it. */
    final StateFiles files;
    /** Holds rows that can never match, in the arena. */
    final long unmatchableBucket;
    /** The state's timer wheel, its references relative to the arena's address. */
    final TimerWheel wheel;
    /**
     * The mapped files, each persisting itself ({@link MappedPart}), in the fixed order a persist
     * and a cut take them: the arena, the key index, then each side's unique-key index once opened (null until
     * then).
     */
    private final MappedPart[] mappedParts = new MappedPart[UNIQUE_PART + 2];
    /** Writes and reads heap.dat (the state part, the wheel, the operator's part). */
    private final HeapImage heapImage;
    /** Stages a checkpoint's cut of {@link #mappedParts} and the heap image. */
    private final StateCut stateCut;
    /** The state's array of each side's unique-key index (null without one). */
    private final UniqueKeyIndex[] uniqueKeys;
    /** Sizes of the unique-key indexes of a reopened state, until they are opened. */
    private final long[] uniqueSizes = new long[2];
    /** True while the files are a clean image: the next change must first mark it dirty ({@link #beginMutation}). */
    private boolean imageClean;
    /** A chunk of scratch for summing dirty chunks, taken at the first persist. */
    private ByteBuffer sumScratch;
    /** Bytes of the mapped files the last {@link #persist} read and checksummed (its dirty chunks). */
    long lastPersistBytesSummed;

    private PartitionFiles(final Durable opened, final StateConfig config, final UniqueKeyIndex[] uniqueKeys)
    {
        this.durable = opened.directory;
        this.files = opened.files;
        this.unmatchableBucket = opened.unmatchableBucket;
        this.uniqueKeys = uniqueKeys;
        final long base = files.store().base();
        this.wheel = new TimerWheel(config.tickShift(), config.wheelSlots(),
            RowDescriptor.TIMER_PREV_OFFSET, RowDescriptor.TIMER_NEXT_OFFSET, RowDescriptor.DEADLINE_OFFSET, base,
            NativeArena::written);
        this.heapImage = new HeapImage(files.store(), files.index(), unmatchableBucket - base, uniqueKeys, wheel);
        mappedParts[ARENA_PART] = files.store().arena();
        mappedParts[INDEX_PART] = files.index();
        // The marker's encoder is made here, so that no cut's pause spins its class.
        this.stateCut = new StateCut(mappedParts, files.store().arena(), durable::marker);
        for (final MappedPart part : mappedParts)
        {
            seed(part);
        }
    }

    /**
     * Validates the state directory, then creates or maps its files (as {@link PartitionState}'s constructor).
     *
     * @param uniqueKeys the state's array of each side's unique-key index, filled by {@link #openUniqueKeys}.
     * @return the files; on failure nothing stays taken.
     */
    static PartitionFiles open(
        final StateConfig config, final JoinSpec spec, final String operator, final int bucketLength,
        final int timedSides, final long otherOffHeapBytes, final UniqueKeyIndex[] uniqueKeys)
    {
        final Durable opened = openDurable(config, spec, operator, bucketLength, timedSides, otherOffHeapBytes);
        final PartitionFiles state;
        try
        {
            state = new PartitionFiles(opened, config, uniqueKeys);
        }
        catch (final RuntimeException | Error e)
        {
            release(opened);
            throw e;
        }
        final ByteBuffer heap = state.durable.heap();
        if (heap != null)
        {
            state.uniqueSizes[0] = opened.uniqueLeft;
            state.uniqueSizes[1] = opened.uniqueRight;
            try
            {
                state.heapImage.loadWheel(heap);
            }
            catch (final RuntimeException | Error e)
            {
                release(opened);
                throw e;
            }
            state.imageClean = true;
        }
        return state;
    }

    /** What {@link #openDurable} opens, for the constructor's final fields. */
    private static final class Durable
    {
        DurableState directory;
        StateFiles files;
        long unmatchableBucket;
        long uniqueLeft;
        long uniqueRight;
    }

    /** Validates the directory, then creates or maps its files; on failure releases what it took. */
    private static Durable openDurable(
        final StateConfig config, final JoinSpec spec, final String operator, final int bucketLength,
        final int timedSides, final long otherOffHeapBytes)
    {
        final long keys = PartitionState.indexCapacity(config);
        final KeyIndex.Kind kind = PartitionState.indexKind(config);
        final long tableBytes = KeyIndex.tableBytes(kind, keys);
        // The buckets live in the arena with the rows: its limit is what the in-memory row and bucket arenas share.
        final long arenaLimit = config.maxStateBytes() - tableBytes - otherOffHeapBytes;
        if (arenaLimit < config.chunkSize())
        {
            throw PartitionState.noRoom(config, keys, tableBytes, otherOffHeapBytes);
        }
        final long layout = DurableState.hash(StateFiles.layout(DurableState.FORMAT_VERSION, operator, bucketLength,
            timedSides, String.valueOf(config.indexKind()), keys, config.chunkSize(), config.tickShift(), config.wheelSlots(),
            arenaLimit, config.maxLiveRows()));
        final DurableState directory = DurableState.open(config.stateDirectory(), spec.fingerprint(), layout, config);
        final Durable opened = new Durable();
        opened.directory = directory;
        final ByteBuffer heap = directory.heap();
        long liveLeft = 0;
        long liveRight = 0;
        long indexSize = 0;
        long unmatchableOffset = 0;
        if (heap != null)
        {
            final long[] statePart = new long[HeapImage.STATE_PART_COUNT];
            if (!HeapImage.readStatePart(heap, statePart))
            {
                directory.release();
                throw new DurableStateException(directory.file(DurableState.HEAP) + " does not start with the state's part");
            }
            liveLeft = statePart[0];
            liveRight = statePart[1];
            indexSize = statePart[2];
            unmatchableOffset = statePart[3];
            opened.uniqueLeft = statePart[4];
            opened.uniqueRight = statePart[5];
        }
        final boolean reopen = directory.reopened;
        try
        {
            opened.files = StateFiles.open(directory.directory, reopen, kind, keys, bucketLength, config.chunkSize(),
                arenaLimit, timedSides, indexSize, liveLeft, liveRight);
            opened.unmatchableBucket = opened.files.unmatchableBucket(reopen, unmatchableOffset, bucketLength);
            if (opened.unmatchableBucket == 0)
            {
                throw new DurableStateException(directory.file(DurableState.HEAP) + " gives the bucket of unmatchable rows " +
                    "at " + unmatchableOffset + ", outside the arena's carved memory (damaged state)");
            }
            return opened;
        }
        catch (final IOException e)
        {
            release(opened);
            // The message names the file (MappedFile's do): a full disk at start is a state error, not an unexpected one.
            throw new DurableStateException("cannot open durable state in " + directory.directory + ": " + e.getMessage(), e);
        }
        catch (final RuntimeException | Error e)
        {
            release(opened);
            throw e;
        }
    }

    private static void release(final Durable opened)
    {
        if (opened.files != null)
        {
            opened.files.close();
        }
        opened.directory.release();
    }

    /**
     * Starts a mapped file's dirty-chunk tracking from the sums its reopen verified; a fresh file is all
     * zeros already, and a reopened one without sums (a marker of version 1) is summed whole at the next persist.
     */
    private void seed(final MappedPart part)
    {
        final DirtyChunks dirty = part == null ? null : part.dirtyChunks();
        if (!durable.reopened || dirty == null)
        {
            return;
        }
        final ChunkSums.FileSums sums = durable.verifiedSums(part.fileName());
        if (sums == null)
        {
            dirty.markAll();
            return;
        }
        dirty.seed(sums.zeros(), sums.crc32cs(), sums.crc32s());
    }

    /** As {@link PartitionState#restore}: reads the operator's part of a reopened heap.dat, after making what each cut reuses. */
    void restore(final HeapPart part)
    {
        heapImage.prepareCuts(part);
        if (durable.heap() == null)
        {
            return;
        }
        final ByteBuffer heap = durable.heap();
        if (!heapImage.loadOperatorPart(heap, part))
        {
            throw new DurableStateException(durable.file(DurableState.HEAP) + " does not end where the operator's part ends");
        }
        durable.heapRead();
    }

    /** As {@link PartitionState#uniqueKeyIndex}, in a file of the state directory (reopened at its saved size). */
    UniqueKeyIndex openUniqueKeys(final Side side, final long capacity)
    {
        final int i = side.ordinal();
        final Path path = durable.file(side == Side.LEFT ? DurableState.UNIQUE_LEFT : DurableState.UNIQUE_RIGHT);
        try
        {
            uniqueKeys[i] = StateFiles.openUniqueKeys(path, durable.reopened, capacity, files.store().base(), uniqueSizes[i]);
            seed(uniqueKeys[i]);
            if (durable.reopened && uniqueSizes[i] > 0)
            {
                // Before any slot is followed: a damaged reference must not be read (docs/DURABILITY.md).
                final String wrong = uniqueKeys[i].checkReopened(files.store().arena());
                if (wrong != null)
                {
                    uniqueKeys[i].close();
                    uniqueKeys[i] = null;
                    throw new DurableStateException(path + ": " + wrong + " (damaged state)");
                }
            }
            mappedParts[UNIQUE_PART + i] = uniqueKeys[i];
            stateCut.partsChanged();
            return uniqueKeys[i];
        }
        catch (final IOException e)
        {
            throw new DurableStateException("cannot open " + path + ": " + e.getMessage(), e);
        }
    }

    /** As {@link PartitionState#beginMutation}. */
    void beginMutation()
    {
        if (imageClean)
        {
            invalidate();
        }
    }

    private void invalidate()
    {
        files.store().arena().markDirty();
        try
        {
            // After every persist, not only after a reopen: the dirty flag is a store into mapped memory that
            // a power loss may never write back, while the state's pages are; a removed marker stays removed.
            durable.removeMarker();
        }
        catch (final IOException e)
        {
            // Still clean: the next event tries again before it changes anything.
            throw new UncheckedIOException("cannot remove " + durable.file(DurableState.MARKER), e);
        }
        imageClean = false;
    }

    /** As {@link PartitionState#persist}, once the state has checked that it is open. */
    void persist(final HeapPart part) throws IOException
    {
        durable.removeMarker();
        if (sumScratch == null)
        {
            sumScratch = ByteBuffer.allocateDirect(Chunks.CHUNK_BYTES);
        }
        final Map<String, ChunkSums.FileSums> tracked = new LinkedHashMap<>();
        final Map<String, Long> files = new LinkedHashMap<>();
        lastPersistBytesSummed = 0;
        for (final MappedPart mapped : mappedParts)
        {
            if (mapped == null)
            {
                continue;
            }
            // The arena's collect writes its header between taking its marks and adding the header's chunk.
            mapped.collect();
            mapped.force();
            final DirtyChunks dirty = mapped.dirtyChunks();
            if (dirty != null)
            {
                sum(dirty, mapped.fileName(), tracked);
            }
            files.put(mapped.fileName(), mapped.fileLength());
        }
        durable.writeImage(heapImage.save(part), files, tracked);
        imageClean = true;
    }

    /** As {@link PartitionState#stage}, once the state has checked that it is open. */
    boolean stage(final HeapPart part, final StagedCut cut)
    {
        return stateCut.stage(part, cut, imageClean, heapImage);
    }

    /** As {@link PartitionState#staged}, once the state has checked that it is open. */
    void staged(final StagedCut cut, final boolean succeeded)
    {
        stateCut.staged(cut, succeeded);
    }

    /** Sums a tracked file's collected chunks and adds its sums to {@code tracked}. */
    private void sum(final DirtyChunks dirty, final String name, final Map<String, ChunkSums.FileSums> tracked)
    {
        dirty.sum(sumScratch);
        lastPersistBytesSummed += dirty.bytesSummed();
        tracked.put(name, new ChunkSums.FileSums(dirty.summedLength(), dirty.zeros(), dirty.crc32c(), dirty.crc32()));
    }

    /** Unmaps the arena's file and releases the directory, after the state closed its indexes and store. */
    void close()
    {
        files.arenaFile().close();
        durable.release();
    }
}
