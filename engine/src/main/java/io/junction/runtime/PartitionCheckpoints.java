package io.junction.runtime;

import io.junction.internal.durable.CheckpointStore;
import io.junction.internal.metrics.PartitionMetrics;
import io.junction.internal.cut.CutTimes;
import io.junction.join.JoinOperator;
import io.junction.metrics.CheckpointPausePart;

import java.io.IOException;
import java.util.Arrays;
import java.util.function.IntConsumer;

/**
 * One partition's part in the checkpoints and restores: the barrier (stage the cut and hand it to the partition's
 * {@link CheckpointWriter}, or persist and copy it here when the operator cannot stage), the wait for the write in
 * flight, the choice and copy of the checkpoint a restore replaces the state with, and the clean close's checkpoint.
 * Each checkpoint's pause is timed in parts ({@link CheckpointPausePart}) into a reused array.
 *
 * <p>Thread: the partition's only; its {@link PartitionWorker} calls in between events, handing in the operator it
 * holds (a restore's new operator is the worker's to create: this class never keeps one). The state directory and the
 * checkpoint store are the background writer's while a write is in flight, so every use of them here waits for it
 * first ({@link #awaitWrite}). In memory mode there is no durable partition and no writer: a barrier fails its
 * request, a restore too.
 */
final class PartitionCheckpoints
{
    /**
     * System property {@code junction.checkpoint.synchronous}: when {@code true}, every checkpoint is
     * persisted and copied on the partition thread, with no background writer (to measure what the
     * background writer takes off the pause).
     */
    static final boolean SYNCHRONOUS_CHECKPOINTS = Boolean.getBoolean("junction.checkpoint.synchronous");

    private static final int PART_WATERMARK_WORK = CheckpointPausePart.WATERMARK_WORK.ordinal();
    private static final int PART_WAIT = CheckpointPausePart.WAIT.ordinal();
    private static final int PART_INSTALL = CheckpointPausePart.INSTALL.ordinal();
    private static final int PART_FLUSH = CheckpointPausePart.FLUSH.ordinal();
    private static final int PART_COLLECT = CheckpointPausePart.COLLECT.ordinal();
    private static final int PART_FREEZE = CheckpointPausePart.FREEZE.ordinal();
    private static final int PART_HEAP_IMAGE = CheckpointPausePart.HEAP_IMAGE.ordinal();
    private static final int PART_OTHER = CheckpointPausePart.OTHER.ordinal();

    private final int partition;
    /** Null in memory mode. */
    private final DurablePartition durable;
    /** Writes the checkpoints' staged cuts in the background; null in memory mode. */
    private final CheckpointWriter writer;
    /** Called on the partition thread at a checkpoint barrier, before the state is persisted; may be null. */
    private final IntConsumer beforeCheckpoint;
    private final PartitionMetrics metrics;
    private final GuardedHandlers guards;
    /** The last checkpoint's pause in parts, ns, by {@link CheckpointPausePart} ordinal (reused: no allocation). */
    private final long[] pauseParts = new long[CheckpointPausePart.values().length];
    /** The checkpoint the restore under way copies in ({@link #chooseRestore}); null: it empties the state. */
    private CheckpointStore.Checkpoint restoring;

    PartitionCheckpoints(
        final int partition, final DurablePartition durable, final IntConsumer beforeCheckpoint,
        final PartitionMetrics metrics, final GuardedHandlers guards)
    {
        this.partition = partition;
        this.durable = durable;
        this.writer = durable == null ? null : new CheckpointWriter(partition, durable, metrics);
        this.beforeCheckpoint = beforeCheckpoint;
        this.metrics = metrics;
        this.guards = guards;
    }

    /** @return whether the partition has a durable state (a state directory and a checkpoint store). */
    boolean isDurable()
    {
        return durable != null;
    }

    /**
     * A checkpoint barrier: every event before it has been applied, none after it (the pending watermark work
     * finished, from {@code barrier} on). Waits for the previous checkpoint's background write when it is still
     * in flight (counted, its time part of the pause), lets the sink flush, then has the operator take the cut
     * ({@link JoinOperator#stage}: the dirty chunks frozen) and hands it to the partition's
     * {@link CheckpointWriter}, which writes, fsyncs, commits and reports the checkpoint while this thread goes
     * back to its ring (docs/DURABILITY.md "What runs where"). An operator that cannot stage (a Chronicle Map
     * index) persists and is copied here instead, synchronously. Whatever fails, fails this partition's part of
     * the checkpoint (and so the checkpoint) and is reported to the request, not to the error handler: the
     * partition goes on with its state in memory untouched.
     *
     * <p>The pause, from {@code barrier} to the return, is timed in parts ({@link CheckpointPausePart}):
     * a {@code System.nanoTime} stamp between each, here and in the cut ({@link CutTimes}), never per event.
     *
     * @param operator the partition's operator.
     * @param request  the checkpoint.
     * @param barrier  {@code System.nanoTime} when the barrier reached the partition.
     */
    void checkpoint(final JoinOperator operator, final CheckpointRequest request, final long barrier)
    {
        final long start = System.nanoTime();
        Arrays.fill(pauseParts, 0);
        pauseParts[PART_WATERMARK_WORK] = start - barrier;
        final boolean waited = awaitWrite(operator);
        Throwable failure = null;
        long writtenId = request.id;
        try
        {
            if (durable == null || !operator.durable())
            {
                throw new IllegalStateException("partition " + partition + "'s operator keeps its state in memory");
            }
            if (beforeCheckpoint != null)
            {
                final long flushStart = System.nanoTime();
                flushBeforeCheckpoint();
                pauseParts[PART_FLUSH] = System.nanoTime() - flushStart;
            }
            if (!SYNCHRONOUS_CHECKPOINTS && operator.stage(writer.handle()))
            {
                final CutTimes times = writer.cut().times();
                pauseParts[PART_COLLECT] = times.collectNanos;
                pauseParts[PART_FREEZE] = times.freezeNanos;
                pauseParts[PART_HEAP_IMAGE] = times.heapImageNanos;
                final long pause = System.nanoTime() - barrier;
                recordPause(pause, waited, writer.cut().bytesStaged());
                writer.submit(request, pause);
                return;
            }
            operator.persist();
            writtenId = durable.checkpoint(request.id, request.positions, request.floor, request.partitionOnly);
        }
        catch (final Throwable t)
        {
            failure = t;
        }
        final long pause = System.nanoTime() - barrier;
        final long written = failure == null && durable != null ? durable.image.bytesWritten() : 0;
        final long linked = failure == null && durable != null ? durable.image.bytesLinked() : 0;
        recordPause(pause, waited, 0);
        metrics.recordCheckpointWrite(pause, written, linked, failure == null);
        if (failure == null)
        {
            request.written(partition, writtenId, pause, written, linked);
        }
        else
        {
            request.done(partition, pause, written, linked, failure);
        }
    }

    /** Records the pause with its parts; what no stamp timed (the hand-off, a synchronous write) is {@code OTHER}. */
    private void recordPause(final long pause, final boolean waited, final long staged)
    {
        long timed = 0;
        for (int i = 0; i < PART_OTHER; i++)
        {
            timed += pauseParts[i];
        }
        pauseParts[PART_OTHER] = Math.max(0, pause - timed);
        metrics.recordCheckpointPause(pause, waited, staged, pauseParts);
        recordCutCounts();
    }

    /** The cut's running counts (side waits, refused cuts) into the metrics; nothing without a writer. */
    private void recordCutCounts()
    {
        if (writer != null)
        {
            metrics.recordCutCounts(writer.cut().sideWaits(), writer.cut().synchronousFallbacks());
        }
    }

    /**
     * Waits for the background checkpoint write in flight, if any, and hands its outcome to the operator
     * (the sums of the chunks it wrote, or its chunks marked again when it failed); nothing in memory mode.
     * Times the wait and the hand-back into the pause's parts.
     *
     * @param operator the partition's operator; null when a failed restore lost it (the outcome is dropped).
     * @return whether a write was in flight.
     */
    boolean awaitWrite(final JoinOperator operator)
    {
        if (writer == null)
        {
            return false;
        }
        final long waitStart = System.nanoTime();
        final boolean waited = writer.await();
        guards.clearInterrupt();
        final long installStart = System.nanoTime();
        pauseParts[PART_WAIT] = installStart - waitStart;
        final int outcome = writer.takeOutcome();
        if (outcome != CheckpointWriter.NONE && operator != null)
        {
            try
            {
                operator.staged(writer.handle(), outcome == CheckpointWriter.SUCCEEDED);
            }
            catch (final Throwable t)
            {
                guards.reportError(t);
            }
        }
        pauseParts[PART_INSTALL] = System.nanoTime() - installStart;
        if (outcome != CheckpointWriter.NONE)
        {
            // The side waits of the write just ended happened after its pause was recorded.
            recordCutCounts();
        }
        return waited;
    }

    /**
     * The first part of a restore, before anything is replaced: waits for the write in flight, then verifies the
     * checkpoint to copy in (a damaged one is passed over for the one before). A take-over of a partition whose
     * store holds no checkpoint, and a drop, choose none: the state directory is emptied instead. When there is
     * nothing to restore from, the request is answered with the failure here and the state stays as it is.
     *
     * @param operator the partition's operator, which gets the outcome of the write in flight.
     * @return whether the restore goes on ({@link #replaceState}); false: the request has been answered.
     */
    boolean chooseRestore(final JoinOperator operator, final CheckpointRequest request)
    {
        // The store and the state directory are the writer's until its write in flight is done.
        awaitWrite(operator);
        final CheckpointStore.Checkpoint checkpoint;
        try
        {
            if (durable == null)
            {
                throw new IllegalStateException("partition " + partition + " keeps its state in memory");
            }
            if (request.mode == CheckpointRequest.Mode.DROP ||
                (request.mode == CheckpointRequest.Mode.TAKE_OVER && !durable.hasCheckpoints()))
            {
                // Nothing to restore: the partition starts over empty (a take-over of a partition nobody
                // checkpointed yet, or a drop that frees the state of a partition handed away).
                checkpoint = null;
            }
            else if (request.mode == CheckpointRequest.Mode.TAKE_OVER_AT)
            {
                checkpoint = durable.at(request.positions);
                if (checkpoint == null)
                {
                    throw new CheckpointException("partition " + partition + " has no intact checkpoint at positions " +
                        Arrays.toString(request.positions) + " in " + durable.checkpointsDirectory +
                        " (those positions were committed, so their checkpoint should be there)", null);
                }
            }
            else
            {
                checkpoint = durable.newest();
                if (checkpoint == null)
                {
                    throw new IllegalStateException("partition " + partition + " has no checkpoint in " +
                        durable.checkpointsDirectory);
                }
            }
        }
        catch (final Throwable t)
        {
            request.restored(partition, -1, null, t);
            return false;
        }
        restoring = checkpoint;
        return true;
    }

    /** With the old operator discarded: copies the chosen checkpoint into the state directory, or empties it. */
    void replaceState() throws IOException
    {
        if (restoring == null)
        {
            durable.clearState();
        }
        else
        {
            durable.restore(restoring);
        }
    }

    /**
     * A restore failed after the old state was discarded: the request is answered with the failure.
     *
     * @return the failure that ends the partition thread (the partition has no state any more).
     */
    IllegalStateException stateLost(final CheckpointRequest request, final Throwable t)
    {
        final CheckpointStore.Checkpoint checkpoint = restoring;
        restoring = null;
        request.restored(partition, -1, null, t);
        return new IllegalStateException("partition " + partition + " lost its state: its " + (checkpoint == null
            ? "emptying failed" : "restore from " + checkpoint.directory + " failed"), t);
    }

    /** The new operator runs on the restored state: reports the checkpoint restored (none for an emptied state). */
    void restored(final CheckpointRequest request)
    {
        final CheckpointStore.Checkpoint checkpoint = restoring;
        restoring = null;
        if (checkpoint == null)
        {
            request.restored(partition, -1, null, null);
            return;
        }
        request.restored(partition, checkpoint.id, checkpoint.positions(), null);
    }

    /** The close checkpoint: the operator has closed and persisted, so the state directory is the image. */
    void closeCheckpoint(final CheckpointRequest request)
    {
        final long start = System.nanoTime();
        Throwable failure = null;
        try
        {
            flushBeforeCheckpoint();
            durable.checkpoint(request.id, request.positions, request.floor, false);
        }
        catch (final Throwable t)
        {
            failure = t;
        }
        request.done(partition, System.nanoTime() - start, failure == null ? durable.image.bytesWritten() : 0,
            failure == null ? durable.image.bytesLinked() : 0, failure);
    }

    /** Ends the background writer's thread, if any (the partition thread is ending). */
    void closeWriter()
    {
        if (writer != null)
        {
            writer.close();
        }
    }

    /**
     * Runs the {@code beforeCheckpoint} hook (the sink's flush), if any, for a checkpoint barrier and for the
     * clean close's checkpoint alike: the checkpoint that follows writes its files through channels an interrupt
     * flag left set would close ({@code ClosedByInterruptException}), so the flag is cleared and reported after
     * the hook, whether it returned or threw.
     */
    private void flushBeforeCheckpoint()
    {
        if (beforeCheckpoint == null)
        {
            return;
        }
        try
        {
            beforeCheckpoint.accept(partition);
        }
        finally
        {
            guards.clearInterrupt();
        }
    }
}
