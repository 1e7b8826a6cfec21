package io.junction.runtime;

import io.junction.internal.cut.StagedCut;
import io.junction.internal.metrics.PartitionMetrics;
import io.junction.join.CheckpointCut;

/**
 * The background writer of one partition's checkpoints (docs/DURABILITY.md "What runs where"): at a barrier
 * the partition thread takes the cut into {@link #cut()} and hands it over ({@link #submit}); this writer's
 * thread then captures, sums and writes (or links) the cut's chunks one at a time ({@link StagedCut#drain}: the
 * staging memory is one chunk and a bounded side pool, allocated here, whatever the cut's size), fsyncs,
 * commits the manifest last ({@link DurablePartition#checkpoint(long, long[], long, boolean, StagedCut)}), records the write in the
 * partition's metrics and only then reports the request ({@link CheckpointRequest#written} or
 * {@link CheckpointRequest#done} with the failure). The partition goes on meanwhile.
 *
 * <p>One writer thread per partition, started at the first background checkpoint: partitions write their
 * parts in parallel (the checkpoint completes with the slowest, not with the sum of all), and a partition
 * never waits behind another's write; the thread waits on a monitor between checkpoints.
 *
 * <p>One write in flight per partition. A barrier that finds the previous write still in flight waits for
 * it ({@link #await}: counted in {@code PartitionSnapshot.checkpointWaits}, its time part of the barrier's
 * pause), so that no checkpoint is skipped and the cut's sums are handed back before the next cut. The
 * clean close, a restore (take-over, drop) and the partition thread's end wait for it too before they
 * touch the state, the state directory or the {@link DurablePartition}.
 *
 * <p>What each thread touches (the single-writer rule: the writer touches only what the partition handed
 * over): while a write is in flight the writer owns the {@link StagedCut}, the {@link DurablePartition} (its
 * store and image) and the request's part; of the operator's state it touches only the cut's frozen cells of
 * the live mapping, under the copy-on-write protocol (captured chunk by chunk as it writes, a chunk a waiting
 * partition write asks for first; {@link StagedCut#abandon()} when the write fails: no cell stays frozen), and
 * the side buffers the partition handed over through those cells' states; it never touches the rest of the
 * state, its dirty-chunk tracking or the state directory. The partition thread touches none of those until {@link #await}
 * returns; the monitor orders every write of one before every read of the other. Then the partition takes
 * the outcome ({@link #takeOutcome}) and hands the sums back to the operator ({@code JoinOperator#staged}).
 *
 * <p>The request is reported on the writer thread, so the checkpoint's future completes there (its
 * callbacks run there): a callback that waits for another
 * checkpoint of the same engine would wait for ever, since the next write needs this thread.
 *
 * <p>Thread safety: {@link #submit}, {@link #await}, {@link #takeOutcome} and {@link #close} are called by
 * the partition thread only; {@link #run} is the writer thread.
 */
final class CheckpointWriter implements Runnable
{
    /** Outcome of the last write: none pending (taken, or no write since). */
    static final int NONE = 0;
    /** Outcome of the last write: committed. */
    static final int SUCCEEDED = 1;
    /** Outcome of the last write: failed (reported to its request). */
    static final int FAILED = 2;

    /**
     * Test seam: when set, called on the writer thread with the partition before each background write
     * begins (a test holds the write there); may throw, failing the write as a full disk does. Null outside tests.
     */
    static volatile WriteHook beforeWrite;
    /** Test seam: when set, called on the partition thread as it starts to wait for a write in flight. */
    static volatile WriteHook onWait;
    /**
     * Test seam: when 0 or more, the side buffers a writer made after it is set lets each cut use (else
     * {@value StagedCut#MAX_SIDE_PROP_NAME}), so that a test's cut outgrows its staging memory many times over.
     */
    static volatile int sideBuffers = -1;

    /** A test seam's callback. */
    @FunctionalInterface
    interface WriteHook
    {
        /**
         * @param partition the partition.
         * @throws Exception a failure the write reports.
         */
        void at(int partition) throws Exception;
    }

    private final int partition;
    private final DurablePartition durable;
    private final PartitionMetrics metrics;
    private final StagedCut cut = new StagedCut();
    /** The cut behind the opaque handle the operator's stage takes (the public interface never names StagedCut). */
    private final CheckpointCut handle = new Handle(cut);
    private final Object lock = new Object();
    /** Guarded by {@link #lock}: the request being written, null when idle. */
    private CheckpointRequest request;
    /** Guarded by {@link #lock}: the pause of the request being written, for its report. */
    private long pauseNanos;
    /** Guarded by {@link #lock}: the last write's outcome until the partition takes it. */
    private int outcome = NONE;
    /** Guarded by {@link #lock}. */
    private boolean stopping;
    /** The writer thread, started by the first {@link #submit}; partition thread only. */
    private Thread thread;

    CheckpointWriter(final int partition, final DurablePartition durable, final PartitionMetrics metrics)
    {
        this.partition = partition;
        this.durable = durable;
        this.metrics = metrics;
        final int side = sideBuffers;
        if (side >= 0)
        {
            cut.maxSideBuffers(side);
        }
    }

    /** @return the cut: the partition thread's to stage into while no write is in flight (after {@link #await}). */
    StagedCut cut()
    {
        return cut;
    }

    /** @return the cut behind the public opaque handle (what {@code JoinOperator.stage} takes). */
    CheckpointCut handle()
    {
        return handle;
    }

    /**
     * Hands the staged cut over and returns at once; the writer reports the request when the checkpoint is
     * committed or failed. Only when no write is in flight ({@link #await} first).
     *
     * @param checkpoint the request.
     * @param pause      the partition's pause for it, reported with it.
     */
    void submit(final CheckpointRequest checkpoint, final long pause)
    {
        synchronized (lock)
        {
            if (request != null)
            {
                throw new IllegalStateException("partition " + partition + " has a checkpoint write in flight");
            }
            request = checkpoint;
            pauseNanos = pause;
            lock.notifyAll();
        }
        if (thread == null)
        {
            // Named after the partition thread that starts it (submit runs there), so the engine's thread-name
            // prefix or the builder's ThreadFactory names it too, and two engines in one JVM get distinct writers.
            thread = new Thread(this, Thread.currentThread().getName() + "-checkpoint-writer");
            thread.setDaemon(true);
            thread.start();
        }
    }

    /**
     * Waits until no write is in flight. Not interruptible (the partition thread is not): an interrupt while
     * waiting is kept and the wait goes on; the flag is set again on return, for the caller to clear and count.
     *
     * @return whether a write was in flight (the caller waited).
     */
    boolean await()
    {
        boolean interrupted = false;
        boolean waited = false;
        synchronized (lock)
        {
            while (request != null)
            {
                if (!waited)
                {
                    waited = true;
                    final WriteHook hook = onWait;
                    if (hook != null)
                    {
                        try
                        {
                            hook.at(partition);
                        }
                        catch (final Exception e)
                        {
                            // A test seam only: nothing to report.
                        }
                    }
                }
                try
                {
                    lock.wait();
                }
                catch (final InterruptedException e)
                {
                    interrupted = true;
                }
            }
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
        return waited;
    }

    /**
     * After {@link #await}: the outcome of the last write, once ({@link #NONE} afterwards).
     *
     * @return {@link #NONE}, {@link #SUCCEEDED} or {@link #FAILED}.
     */
    int takeOutcome()
    {
        synchronized (lock)
        {
            final int taken = outcome;
            outcome = NONE;
            return taken;
        }
    }

    /** Waits for the write in flight, then ends the writer thread; idempotent. */
    void close()
    {
        await();
        synchronized (lock)
        {
            stopping = true;
            lock.notifyAll();
        }
        // The thread ends by itself (it is idle and told to stop); nothing waits on it.
    }

    @Override
    public void run()
    {
        while (true)
        {
            final CheckpointRequest writing;
            final long pause;
            synchronized (lock)
            {
                while (request == null && !stopping)
                {
                    try
                    {
                        lock.wait();
                    }
                    catch (final InterruptedException e)
                    {
                        // Nobody interrupts this thread on purpose; an interrupt would break the channels: ignored.
                    }
                }
                if (request == null)
                {
                    return;
                }
                writing = request;
                pause = pauseNanos;
            }
            final boolean succeeded = write(writing, pause);
            synchronized (lock)
            {
                outcome = succeeded ? SUCCEEDED : FAILED;
                request = null;
                lock.notifyAll();
            }
        }
    }

    /** Writes one checkpoint from the cut and reports it; never throws. */
    private boolean write(final CheckpointRequest writing, final long pause)
    {
        final long start = System.nanoTime();
        Throwable failure = null;
        long writtenId = writing.id;
        // An interrupt would close the checkpoint's channels mid-write.
        Thread.interrupted();
        try
        {
            final WriteHook hook = beforeWrite;
            if (hook != null)
            {
                hook.at(partition);
            }
            // The frozen cells are captured chunk by chunk as the image writes them (StagedCut.drain).
            writtenId = durable.checkpoint(writing.id, writing.positions, writing.floor, writing.partitionOnly, cut);
        }
        catch (final Throwable t)
        {
            failure = t;
            // No cell stays frozen: what was not captured becomes dirty (the partition restages the rest).
            cut.abandon();
        }
        final long written = failure == null ? durable.image.bytesWritten() : 0;
        final long linked = failure == null ? durable.image.bytesLinked() : 0;
        try
        {
            metrics.recordCheckpointWrite(System.nanoTime() - start, written, linked, failure == null);
            if (failure == null)
            {
                writing.written(partition, writtenId, pause, written, linked);
            }
            else
            {
                writing.done(partition, pause, written, linked, failure);
            }
        }
        catch (final Throwable t)
        {
            // A completion that throws (the coordinator's confirmation) has completed the future with it already.
            writing.done(partition, pause, written, linked, t);
        }
        return failure == null;
    }

    /** The runtime's opaque handle of the cut. */
    private static final class Handle implements CheckpointCut, StagedCut.Source
    {
        private final StagedCut cut;

        Handle(final StagedCut cut)
        {
            this.cut = cut;
        }

        @Override
        public StagedCut stagedCut()
        {
            return cut;
        }
    }
}
