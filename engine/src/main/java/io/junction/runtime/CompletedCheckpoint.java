package io.junction.runtime;

import java.util.Arrays;

/**
 * A checkpoint every partition it covers has made durable ({@link JoinEngine#checkpoint(long[])},
 * {@link JoinEngine#checkpointPartition(int, long[])}), or the checkpoint a partition was restored from
 * ({@link JoinEngine#restorePartition(int)}). Immutable.
 */
public final class CompletedCheckpoint
{
    private final long id;
    private final long[] positions;
    private final int[] partitions;
    private final long[] pauseNanos;
    private final long bytesWritten;
    private final long bytesLinked;

    CompletedCheckpoint(final long id, final long[] positions, final int[] partitions, final long[] pauseNanos,
        final long bytesWritten, final long bytesLinked)
    {
        this.id = id;
        this.positions = positions == null ? null : positions.clone();
        this.partitions = partitions.clone();
        this.pauseNanos = pauseNanos.clone();
        this.bytesWritten = bytesWritten;
        this.bytesLinked = bytesLinked;
    }

    /**
     * @return the checkpoint's id, increasing over the life of a state root (with a shared checkpoint
     *         root: over the life of the partition's store); -1 after a take-over that found no checkpoint
     *         or a drop.
     */
    public long id()
    {
        return id;
    }

    /**
     * @return the input positions the checkpoint resumes from (a copy); null after a
     *         {@link JoinEngine#takeOverPartition take-over} that found no checkpoint, or a
     *         {@link JoinEngine#dropPartition drop} (the partition is empty: resume from the input's own
     *         committed position).
     */
    public long[] positions()
    {
        return positions == null ? null : positions.clone();
    }

    /** @return the partitions it covers, ascending (a copy). */
    public int[] partitions()
    {
        return partitions.clone();
    }

    /**
     * @return for each partition of {@link #partitions()}, in that order, how long its thread paused for
     *         the checkpoint (persist, copy, fsync), ns; 0 for a restore.
     */
    public long[] pauseNanos()
    {
        return pauseNanos.clone();
    }

    /** @return bytes of state written into the checkpoint (chunks that changed since the previous one). */
    public long bytesWritten()
    {
        return bytesWritten;
    }

    /** @return bytes of state hard-linked from the previous checkpoint (chunks that did not change). */
    public long bytesLinked()
    {
        return bytesLinked;
    }

    @Override
    public String toString()
    {
        return "checkpoint " + id + " of partitions " + Arrays.toString(partitions) + " at positions " +
            Arrays.toString(positions) + " (" + bytesWritten + " bytes written, " + bytesLinked + " linked)";
    }
}
