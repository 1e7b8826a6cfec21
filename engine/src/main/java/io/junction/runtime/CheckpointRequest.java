package io.junction.runtime;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * One checkpoint or restore on its way through the rings: each partition it covers reports on its own
 * thread ({@link #done}); the last one completes the future, exceptionally when any partition failed.
 * The counter's decrement orders every partition's writes before the completion. Each partition counts
 * once: a partition whose thread died is failed by the engine ({@link #failPartition}), and whichever
 * of that and the partition's own report comes first is the one that counts.
 */
final class CheckpointRequest
{
    /**
     * What a request does at each partition's barrier: a checkpoint, or one of the four ways a partition's
     * state is replaced (each goes into the ring as a {@link RingSlot#RESTORE} slot).
     */
    enum Mode
    {
        /** Write a checkpoint of the partition's state at the request's positions. */
        CHECKPOINT,
        /** Restore the newest complete checkpoint; fail when there is none. */
        RESTORE,
        /** Restore the newest complete checkpoint; empty the partition when the store holds none at all. */
        TAKE_OVER,
        /** Restore the newest complete checkpoint whose positions equal {@link #positions}; fail when there is none. */
        TAKE_OVER_AT,
        /** Discard the partition's state and leave it empty. */
        DROP
    }

    final long id;
    final long[] positions;
    /** What the request does; every mode but {@link Mode#CHECKPOINT} replaces state ({@link #restores}). */
    final Mode mode;
    /** Checkpoints with a lower id may be deleted once this one is written: the newest confirmed at creation. */
    final long floor;
    final int[] partitions;
    /** A checkpoint of some partitions only ({@link JoinEngine#checkpointPartition}), not of the whole engine. */
    final boolean partitionOnly;
    final CompletableFuture<CompletedCheckpoint> future = new CompletableFuture<>();
    /** The id each partition wrote its checkpoint with (a shared store may raise the requested one). */
    private final long[] writtenIds;
    private final long[] pauseNanos;
    private final long[] bytesWritten;
    private final long[] bytesLinked;
    private final long[][] restoredPositions;
    private final long[] restoredIds;
    private final Throwable[] failures;
    private final AtomicInteger remaining;
    /** 1 once a partition (by index) has reported. */
    private final AtomicIntegerArray reported;
    private final Completion completion;

    /** Runs once every partition has reported, before the future completes. */
    interface Completion
    {
        void completed(CheckpointRequest request, boolean failed);
    }

    CheckpointRequest(final long id, final long[] positions, final Mode mode, final long floor,
        final int[] partitions, final boolean partitionOnly, final Completion completion)
    {
        this.mode = mode;
        this.partitionOnly = partitionOnly;
        this.id = id;
        this.positions = positions == null ? null : positions.clone();
        this.floor = floor;
        this.partitions = partitions;
        this.completion = completion;
        pauseNanos = new long[partitions.length];
        bytesWritten = new long[partitions.length];
        bytesLinked = new long[partitions.length];
        restoredPositions = new long[partitions.length][];
        restoredIds = new long[partitions.length];
        writtenIds = new long[partitions.length];
        Arrays.fill(writtenIds, id);
        failures = new Throwable[partitions.length];
        remaining = new AtomicInteger(partitions.length);
        reported = new AtomicIntegerArray(partitions.length);
    }

    /** @return whether the request replaces the partition's state (any mode but {@link Mode#CHECKPOINT}). */
    boolean restores()
    {
        return mode != Mode.CHECKPOINT;
    }

    /** @return whether the request goes to this partition. */
    boolean covers(final int partition)
    {
        for (final int p : partitions)
        {
            if (p == partition)
            {
                return true;
            }
        }
        return false;
    }

    /** Fails a partition that will never report (its thread died); nothing when it has reported already. */
    void failPartition(final int partition, final Throwable why)
    {
        if (restores())
        {
            restored(partition, -1, null, why);
        }
        else
        {
            done(partition, 0, 0, 0, why);
        }
    }


    private int index(final int partition)
    {
        for (int i = 0; i < partitions.length; i++)
        {
            if (partitions[i] == partition)
            {
                return i;
            }
        }
        throw new IllegalArgumentException("partition " + partition + " is not in " + Arrays.toString(partitions));
    }

    /** A partition's checkpoint is written with {@code writtenId}, which may be above the requested one. */
    void written(final int partition, final long writtenId, final long pause, final long written, final long linked)
    {
        writtenIds[index(partition)] = writtenId;
        done(partition, pause, written, linked, null);
    }

    /** A partition's checkpoint is written (failure null) or failed. */
    void done(final int partition, final long pause, final long written, final long linked, final Throwable failure)
    {
        final int i = index(partition);
        if (!reported.compareAndSet(i, 0, 1))
        {
            return;
        }
        pauseNanos[i] = pause;
        bytesWritten[i] = written;
        bytesLinked[i] = linked;
        failures[i] = failure;
        countDown();
    }

    /** A partition is restored from checkpoint {@code id} (failure null) or its restore failed. */
    void restored(final int partition, final long restoredId, final long[] restored, final Throwable failure)
    {
        final int i = index(partition);
        if (!reported.compareAndSet(i, 0, 1))
        {
            return;
        }
        restoredIds[i] = restoredId;
        restoredPositions[i] = restored;
        failures[i] = failure;
        countDown();
    }

    private void countDown()
    {
        if (remaining.decrementAndGet() != 0)
        {
            return;
        }
        Throwable first = null;
        final StringBuilder message = new StringBuilder();
        for (int i = 0; i < partitions.length; i++)
        {
            if (failures[i] != null)
            {
                first = first == null ? failures[i] : first;
                message.append(message.length() == 0 ? "" : "; ").append("partition ").append(partitions[i]).append(": ")
                    .append(failures[i].getMessage() != null ? failures[i].getMessage() : failures[i].toString());
            }
        }
        try
        {
            completion.completed(this, first != null);
        }
        catch (final Throwable t)
        {
            first = first == null ? t : first;
            message.append(message.length() == 0 ? "" : "; ").append(t);
        }
        if (first != null)
        {
            future.completeExceptionally(new CheckpointException((restores() ? "restore" : "checkpoint " + id) +
                " failed: " + message, first));
            return;
        }
        long written = 0;
        long linked = 0;
        for (int i = 0; i < partitions.length; i++)
        {
            written += bytesWritten[i];
            linked += bytesLinked[i];
        }
        future.complete(restores()
            ? new CompletedCheckpoint(restoredIds[0], restoredPositions[0], partitions, new long[partitions.length], 0, 0)
            : new CompletedCheckpoint(partitions.length == 1 ? writtenIds[0] : id, positions, partitions, pauseNanos, written,
                linked));
    }

    /** Fails the partitions that never reported (their thread stopped first); idempotent per partition. */
    void abandon(final String why)
    {
        if (!future.isDone())
        {
            future.completeExceptionally(new CheckpointException((restores() ? "restore" : "checkpoint " + id) +
                " did not complete: " + why, null));
        }
    }
}
