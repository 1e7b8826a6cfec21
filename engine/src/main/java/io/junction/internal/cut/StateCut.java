package io.junction.internal.cut;

import io.junction.internal.memory.HeapPart;
import io.junction.internal.state.MappedPart;
import io.junction.internal.state.NativeArena;

/**
 * A durable partition state's side of a checkpoint's copy-on-write cut (docs/DURABILITY.md "What runs where",
 * "Copy-on-write cuts"): collects every tracked mapped file's dirty chunks (the arena's header written first, as
 * a persist does, and its dirty flag set before the freeze) and freezes just those chunks for the cut
 * ({@link DirtyChunks#freeze}: no buffer taken, nothing copied or allocated however many chunks changed; the
 * writer captures them chunk by chunk as it writes, {@link StagedCut#drain}), then has the heap image staged
 * ({@link HeapStage}) and hands the cut the marker's encoder. Nothing is forced, summed or written to the state
 * directory. When the background write ends, {@link #staged} installs its sums or marks its chunks again.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public final class StateCut
{
    /** Writes a cut's heap image, after the mapped files' chunks are frozen (the durable formats' part). */
    public interface HeapStage
    {
        /**
         * Partition thread, at the cut: stages the heap image into {@code cut} ({@link StagedCut#heapBuffer},
         * {@link StagedCut#heapWritten}), deferring to the writer what it can.
         *
         * @param part the operator's heap-held state.
         * @param cut  the cut.
         */
        void stage(HeapPart part, StagedCut cut);
    }

    /**
     * The mapped files, each persisting itself, in the fixed order a persist and a cut take them: the arena, the key
     * index, then each side's unique-key index once opened (null until then). The state's own array: it fills
     * the slots, then calls {@link #partsChanged}.
     */
    private final MappedPart[] parts;
    private final NativeArena arena;
    /** Encodes a staged cut's marker, made before the first cut so that no cut's pause spins its class. */
    private final StagedCut.Marker marker;
    /** {@link #trackedFiles()}' array, null until built and whenever {@link #parts} gains a part (partition thread). */
    private DirtyChunks[] trackedFiles;

    /**
     * @param parts  the state's mapped files (see {@link #parts}); the arena's first.
     * @param arena  the arena, whose header a cut writes and whose dirty flag it sets.
     * @param marker encodes each cut's marker.
     */
    public StateCut(final MappedPart[] parts, final NativeArena arena, final StagedCut.Marker marker)
    {
        this.parts = parts;
        this.arena = arena;
        this.marker = marker;
    }

    /** The state gained a mapped file (a unique-key index): the tracked files are gathered again. */
    public void partsChanged()
    {
        trackedFiles = null;
    }

    /**
     * Stages a cut: see the class doc. The state has checked that it is durable and open.
     *
     * @param part       the operator's heap-held state.
     * @param cut        an empty cut owned by the caller.
     * @param imageClean whether the files are a clean image (the arena's dirty flag is set before the freeze if not).
     * @param heap       stages the heap image.
     * @return false (nothing staged, every mark kept) when the state cannot be staged: a Chronicle Map index,
     *         whose writes are not tracked, or, for a file copied at the cut (stage A, {@link DirtyChunks#copiesAtCut}),
     *         dirty chunks beyond the cut's {@link StagedCut#maxStagedBytes()} or the direct memory left (counted,
     *         {@link StagedCut#synchronousFallbacks()}). A copy-on-write cut is never refused for its size.
     */
    public boolean stage(final HeapPart part, final StagedCut cut, final boolean imageClean, final HeapStage heap)
    {
        if (!tracked())
        {
            return false;
        }
        cut.reset();
        // Three stamps per cut, on the barrier path only: the pause metric's parts (docs/DURABILITY.md).
        final CutTimes times = cut.times();
        times.reset();
        final long collectStart = System.nanoTime();
        final DirtyChunks[] tracked = trackedFiles();
        try
        {
            final DirtyChunks arenaDirty = tracked[0];
            arenaDirty.collect();
            // The image's header: the bump pointer and free lists at the cut, the dirty flag clear, the map zeros.
            arena.writeHeader();
            arenaDirty.collectToo(0);
            // Only a stage-A file (copied at the cut) needs staging memory at the cut; a frozen one needs none.
            long copied = arenaDirty.copiesAtCut(cut) ? arenaDirty.collectedBytes() : 0;
            for (int i = 1; i < tracked.length; i++)
            {
                tracked[i].collect();
                copied += tracked[i].copiesAtCut(cut) ? tracked[i].collectedBytes() : 0;
            }
            if (copied > cut.maxStagedBytes())
            {
                // More than the stage-A pool may hold: given back, for a persist (and a copy) on this thread instead.
                for (final DirtyChunks dirty : tracked)
                {
                    dirty.uncollect();
                }
                cut.refused();
                return false;
            }
            final long freezeStart = System.nanoTime();
            times.collectNanos = freezeStart - collectStart;
            if (!imageClean)
            {
                // The live file changed since its last clean image: its flag is set before the cells freeze
                // (the image holds it clear: the cut zeroes it, as it zeroes the map).
                arena.markDirty();
            }
            for (int i = 0; i < tracked.length; i++)
            {
                try
                {
                    tracked[i].freeze(cut.addFile(), cut);
                }
                catch (final OutOfMemoryError e)
                {
                    // No direct memory for a stage-A file's buffers: every mark taken is given back (the chunks
                    // staged so far and those still collected), for a persist and a copy on this thread instead.
                    for (int j = 0; j < tracked.length; j++)
                    {
                        if (j <= i)
                        {
                            tracked[j].restage(cut.file(j));
                        }
                        tracked[j].uncollect();
                    }
                    cut.dropPool();
                    cut.refused();
                    return false;
                }
            }
            final long heapStart = System.nanoTime();
            times.freezeNanos = heapStart - freezeStart;
            heap.stage(part, cut);
            cut.marker(marker);
            times.heapImageNanos = System.nanoTime() - heapStart;
            return true;
        }
        catch (final RuntimeException | Error e)
        {
            // Marks may have been taken without their chunks staged: the next cut or persist takes every chunk.
            markAllTracked();
            throw e;
        }
    }

    /**
     * The background write of the last cut ({@link #stage}) ended: on success its chunks' sums become the
     * tracking's; on failure the chunks it staged are marked again (the checkpoint the next one links to does
     * not hold them), and every chunk when the write found one it could not link ({@link StagedCut#needsFullCut()}).
     *
     * @param cut       the cut, back from the writer.
     * @param succeeded whether its checkpoint was committed.
     */
    public void staged(final StagedCut cut, final boolean succeeded)
    {
        for (final DirtyChunks dirty : trackedFiles())
        {
            final CutFile file = cut.file(dirty.name());
            if (file == null)
            {
                continue;
            }
            if (succeeded)
            {
                dirty.install(file);
            }
            else
            {
                dirty.restage(file);
            }
        }
        if (!succeeded && cut.needsFullCut())
        {
            markAllTracked();
        }
    }

    /** @return whether every mapped file's writes are tracked, so that the state can stage a cut (a Chronicle Map index's are not). */
    public boolean tracked()
    {
        for (final MappedPart part : parts)
        {
            if (part != null && part.dirtyChunks() == null)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @return the tracked mapped files in the order {@link #stage} stages them: the parts' order; built
     *         once for each set of mapped parts (a cut and its install take no array).
     */
    private DirtyChunks[] trackedFiles()
    {
        if (trackedFiles != null)
        {
            return trackedFiles;
        }
        int n = 0;
        for (final MappedPart part : parts)
        {
            if (part != null && part.dirtyChunks() != null)
            {
                n++;
            }
        }
        final DirtyChunks[] tracked = new DirtyChunks[n];
        n = 0;
        for (final MappedPart part : parts)
        {
            if (part != null && part.dirtyChunks() != null)
            {
                tracked[n++] = part.dirtyChunks();
            }
        }
        trackedFiles = tracked;
        return tracked;
    }

    private void markAllTracked()
    {
        if (tracked())
        {
            for (final DirtyChunks dirty : trackedFiles())
            {
                dirty.markAll();
            }
        }
    }
}
