package io.junction.internal.cut;

/**
 * How long the partition thread spent in each part of its last checkpoint cut ({@code PartitionState.stage}),
 * docs/DURABILITY.md "What a checkpoint costs, measured": three {@code System.nanoTime} stamps per cut, on the
 * barrier path only, never per event. The runtime reads them into its pause metric
 * ({@code PartitionSnapshot.lastCheckpointPauseNanos(CheckpointPausePart)}) right after the cut.
 * <pre>
 *   stage():  |-- collect --|-- freeze --|-- heap image --|
 *              dirty maps     the dirty   the heap-held state's image
 *              read, the      chunks'     (timer wheels, counters,
 *              arena header   cells       watermarks) and the marker's
 *              written        frozen      encoder
 * </pre>
 *
 * <p>Not thread safe: owned by the partition thread (it belongs to the {@link StagedCut} it times, read by the
 * partition thread only).
 */
public final class CutTimes
{
    /** Nanoseconds collecting the tracked files' dirty chunks (the arena's header written among them). */
    public long collectNanos;
    /** Nanoseconds freezing the collected chunks' cells for the writer. */
    public long freezeNanos;
    /** Nanoseconds writing the heap-held state's image (and setting the marker's encoder). */
    public long heapImageNanos;

    /** Zeroes every part: a cut that stops early leaves the later parts 0. */
    public void reset()
    {
        collectNanos = 0;
        freezeNanos = 0;
        heapImageNanos = 0;
    }
}
