package io.junction.metrics;

/**
 * The parts of a partition thread's pause for a checkpoint (docs/DURABILITY.md "What a checkpoint costs,
 * measured"; the pause runs from the barrier reaching the partition to the partition taking its next event):
 * {@link PartitionSnapshot#lastCheckpointPauseNanos(CheckpointPausePart)} says how long the last checkpoint's
 * pause spent in each. The parts are timed with a {@code System.nanoTime} stamp between each on the barrier
 * path only (never per event); they add up to {@link PartitionSnapshot#lastCheckpointPauseNanos}.
 */
public enum CheckpointPausePart
{
    /** Finishing the watermark work left pending in slices (docs/SEMANTICS.md 3), so that resume by step stays exact. */
    WATERMARK_WORK,
    /** Waiting for the previous checkpoint's background write still in flight ({@link PartitionSnapshot#checkpointWaits}). */
    WAIT,
    /** Taking the previous checkpoint's outcome back: its chunks' sums installed, or its chunks marked again. */
    INSTALL,
    /** The {@code beforeCheckpoint} hook: the sink's flush. */
    FLUSH,
    /** Collecting the mapped files' dirty chunks (the arena's header written). */
    COLLECT,
    /** Freezing the dirty chunks' cells copy-on-write for the background writer. */
    FREEZE,
    /** Writing the heap-held state's image (timer wheels, counters, watermarks). */
    HEAP_IMAGE,
    /**
     * The rest: the hand-off to the background writer and the metrics; for a synchronous checkpoint (a Chronicle
     * Map index, {@code junction.checkpoint.synchronous}) the whole persist, copy and fsync.
     */
    OTHER
}
