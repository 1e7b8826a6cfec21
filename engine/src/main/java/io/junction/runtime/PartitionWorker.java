package io.junction.runtime;

import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.ExceptionHandler;
import com.lmax.disruptor.RingBuffer;
import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.metrics.LatencyRecorder;
import io.junction.internal.metrics.PartitionMetrics;
import io.junction.join.JoinOperator;
import org.agrona.ErrorHandler;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * The consumer of one partition ring: the single writer of that partition's operator and state.
 * Each event is handed to the operator; at the end of each batch the operator's counters are
 * published to {@link PartitionMetrics}. Nothing thrown by the operator, the result or dead-letter
 * handler, or the error handler itself stops the partition: it is counted and reported to the error
 * handler (a failing error handler to the log), and the next event is processed; the operator's handlers
 * and that guard are the partition's {@link GuardedHandlers}. Should anything
 * escape even so (a bug outside those guards), the partition thread ends and the worker reports it:
 * {@link #isFailed()} turns true, the error handler gets a {@link PartitionFailedException} and the
 * log an error.
 *
 * <p>Not thread safe: runs on its partition thread only, except the volatile flags the engine reads. The
 * worker alone holds (and a restore alone replaces) the operator; what it owns it hands to the parts it calls
 * on the same thread, never to another.
 */
final class PartitionWorker implements EventHandler<RingSlot>, ExceptionHandler<RingSlot>
{
    private static final System.Logger LOGGER = System.getLogger("io.junction.runtime");

    /** Events of a batch read ahead at once: enough misses in flight to fill the core's line-fill buffers. */
    static final int PREFETCH_AHEAD = 8;

    private final int partition;
    private final IntConsumer onThreadStart;
    /** Replaced by a restore ({@link RingSlot#RESTORE}); otherwise the same for the partition's life. */
    private JoinOperator operator;
    private final OperatorFactory operatorFactory;
    /** Set by a clean close: the checkpoint to take of the state once the operator has closed (persisted) it. */
    private volatile CheckpointRequest closeRequest;
    /** Told the partition's number when its thread dies (the engine fails what waits on it); may be null. */
    private volatile IntConsumer onFailure;
    private final PartitionMetrics metrics;
    /** The operator's handlers: every result, dead letter and failure of user code passes their guard. */
    private final GuardedHandlers guards;
    /** The barriers, restores and the close checkpoint of this partition. */
    private final PartitionCheckpoints checkpoints;
    private final RowView row = new RowView();
    private final CountDownLatch started = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);
    /** The ring, for reading ahead; null until set, and when look-ahead is off. */
    private RingBuffer<RingSlot> ring;
    /** The ring whose cursor says whether an event waits behind pending watermark work; null: not sliced. */
    private RingBuffer<RingSlot> sliceRing;
    /** Rows or timers per slice of watermark work ({@code EngineConfig#watermarkSlice}). */
    private int watermarkSlice = Integer.MAX_VALUE;
    /** Last sequence of the batch being processed, known from its first event. */
    private long batchEnd = -1;
    private boolean batchStarting;
    private long batchSize;
    /** Sequences up to this one have had their key's memory read ahead. */
    private long prefetchedTo = -1;
    private long events;
    /** Nanos between hot-key reports, or 0 when the operator keeps none. */
    private final long hotKeysIntervalNanos;
    private long hotKeysPublishedAt = System.nanoTime();
    /** Set by the end of input: the batch that holds it publishes a report whatever the interval. */
    private boolean hotKeysDue;
    /** Reads of the state other threads ask for (JoinEngine.inspection()), served between two events. */
    private final PartitionControl control = new PartitionControl();
    private volatile Thread thread;
    private volatile boolean stopRequested;
    private volatile boolean failed;
    private volatile Throwable fatal;

    PartitionWorker(
        final int partition, final OperatorFactory operatorFactory, final ResultHandler results,
        final DeadLetterHandler deadLetters, final ErrorHandler errorHandler, final ErrorHandler fallback,
        final IntConsumer onThreadStart,
        final PartitionMetrics metrics, final LatencyRecorder latency, final boolean recordLatency,
        final long hotKeysIntervalNanos, final DurablePartition durable, final IntConsumer beforeCheckpoint)
    {
        this.operatorFactory = operatorFactory;
        this.hotKeysIntervalNanos = hotKeysIntervalNanos;
        this.partition = partition;
        this.onThreadStart = onThreadStart;
        this.metrics = metrics;
        this.guards = new GuardedHandlers(partition, results, deadLetters, errorHandler, fallback, metrics, latency,
            recordLatency);
        this.checkpoints = new PartitionCheckpoints(partition, durable, beforeCheckpoint, metrics, guards);
        this.operator = operatorFactory.create(guards, guards, guards);
    }

    /**
     * Creates the operator with the partition's {@link GuardedHandlers} as its handlers, so every result, dead
     * letter and user predicate's exception passes the guard.
     */
    @FunctionalInterface
    interface OperatorFactory
    {
        JoinOperator create(ResultHandler guardedResults, DeadLetterHandler guardedDeadLetters);

        /**
         * As the two-argument create, with the guarded error handler handed in: the engine's own factory passes it
         * to the operator; by default a factory ignores it (the guarded result handler is the error handler too).
         */
        default JoinOperator create(
            final ResultHandler guardedResults, final DeadLetterHandler guardedDeadLetters, final ErrorHandler guardedErrors)
        {
            return create(guardedResults, guardedDeadLetters);
        }
    }

    /**
     * Reads ahead for up to {@link #PREFETCH_AHEAD} events of each batch (software pipelining): the rows
     * already waiting in the ring have their keys' index slots and buckets read in one tight loop,
     * whose cache misses overlap, instead of one miss after another as each row is processed.
     */
    void readAhead(final RingBuffer<RingSlot> ring)
    {
        this.ring = ring;
    }

    /**
     * Bounded watermark work (docs/SEMANTICS.md 3): the operator leaves what a watermark closes beyond
     * {@code budget} rows pending ({@link JoinOperator#sliceWatermarkWork}), does a slice before each following
     * event, and at the end of each batch this thread does slices for as long as {@code ring} holds no newer
     * event (its cursor, read once a slice: no sleeping, no waiting). A checkpoint barrier and a restore finish
     * the pending work first, the end of input and the close do in the operator.
     *
     * @param ring   the partition's ring.
     * @param budget rows or timers per slice, at least 1.
     */
    void sliceWatermarkWork(final RingBuffer<RingSlot> ring, final int budget)
    {
        operator.sliceWatermarkWork(budget);
        this.watermarkSlice = budget;
        this.sliceRing = ring;
    }

    @Override
    public void onBatchStart(final long batchSize, final long queueDepth)
    {
        this.batchSize = batchSize;
        batchStarting = true;
        serveControl();
    }

    /**
     * Runs the reads other threads asked of this partition's state ({@link #control}): at each batch's start, and
     * from the wait while the ring is empty. On the partition thread only, between two events.
     */
    void serveControl()
    {
        if (control.pending())
        {
            try
            {
                control.serve(operator);
            }
            catch (final Throwable t)
            {
                guards.reportError(t);
            }
        }
    }

    /** @return this partition's control mailbox, for the engine's reads of its state. */
    PartitionControl control()
    {
        return control;
    }

    @Override
    public void onEvent(final RingSlot slot, final long sequence, final boolean endOfBatch)
    {
        events++;
        guards.progressed();
        if (ring != null)
        {
            if (batchStarting)
            {
                batchStarting = false;
                batchEnd = sequence + batchSize - 1;
            }
            if (sequence >= prefetchedTo && sequence < batchEnd)
            {
                readAhead(sequence + 1, Math.min(batchEnd, sequence + PREFETCH_AHEAD));
            }
        }
        guards.arrived(slot);
        try
        {
            switch (slot.type)
            {
                case RingSlot.ROW:
                    row.wrap(slot.row, 0, slot.rowLength);
                    // The key was hashed once, by the publisher that routed the row: the operator's index takes that hash.
                    operator.onRow(Side.of(slot.side), ChangeKind.fromOrdinal(slot.kind),
                        row, slot.timestamp, slot.step, slot.keyHash);
                    break;
                case RingSlot.INPUT_ROW:
                    row.wrap(slot.row, 0, slot.rowLength);
                    operator.onInputRow(slot.side, ChangeKind.fromOrdinal(slot.kind), row, slot.timestamp, slot.step, slot.keyHash);
                    break;
                case RingSlot.INPUT_WATERMARK:
                    operator.onInputWatermark(slot.side, slot.timestamp, slot.step);
                    break;
                case RingSlot.INPUT_IDLE:
                    operator.onInputIdle(slot.side, slot.step);
                    break;
                case RingSlot.WATERMARK:
                    if (slot.side == RingSlot.BOTH_SIDES)
                    {
                        operator.onWatermark(slot.timestamp, slot.step);
                    }
                    else
                    {
                        operator.onWatermark(Side.of(slot.side), slot.timestamp, slot.step);
                    }
                    break;
                case RingSlot.IDLE:
                    operator.onIdle(Side.of(slot.side), slot.step);
                    break;
                case RingSlot.END_OF_INPUT:
                    operator.onEndOfInput(slot.step);
                    hotKeysDue = true;
                    break;
                case RingSlot.CHECKPOINT:
                {
                    // The cut holds the whole effect of every event before it, and the sink flushes after that.
                    // The pause runs from here (the barrier reached the partition) to the next event.
                    final long barrier = System.nanoTime();
                    finishWatermarkWork();
                    checkpoints.checkpoint(operator, slot.request, barrier);
                    slot.request = null;
                    break;
                }
                case RingSlot.RESTORE:
                    finishWatermarkWork();
                    restore(slot.request);
                    slot.request = null;
                    break;
                default:
                    // SKIP: a slot its publisher could not fill; it counted the row as refused.
                    break;
            }
        }
        catch (final Throwable t)
        {
            if (operator == null)
            {
                // A restore lost the state: nothing can be processed any more; end the thread as a failed partition.
                fatal = t;
                throw t instanceof RuntimeException ? (RuntimeException)t : new IllegalStateException(t);
            }
            guards.reportError(t);
        }
        // User filters and conditions ran inside the operator: no interrupt they set outlives the event.
        guards.clearInterrupt();
        if (endOfBatch)
        {
            if (sliceRing != null && operator.watermarkWorkPending())
            {
                runWatermarkSlices(sequence);
            }
            publishCounters();
            if (hotKeysIntervalNanos > 0)
            {
                publishHotKeysWhenDue();
            }
        }
    }

    /**
     * Finishes the watermark work pending before a barrier or a restore; whatever it throws is reported, and the
     * barrier or restore goes on (its request is answered whatever happened).
     */
    private void finishWatermarkWork()
    {
        try
        {
            operator.finishWatermarkWork();
        }
        catch (final Throwable t)
        {
            guards.reportError(t);
        }
    }

    /**
     * The ring is empty behind {@code sequence}: slices of pending watermark work until it is done or an event is
     * published (claimed, with several publishers), which the ring then hands over before the next slice.
     */
    private void runWatermarkSlices(final long sequence)
    {
        try
        {
            while (operator.runWatermarkSlice() && sliceRing.getCursor() == sequence)
            {
                guards.clearInterrupt();
            }
        }
        catch (final Throwable t)
        {
            guards.reportError(t);
        }
        guards.clearInterrupt();
    }

    /**
     * Replaces the partition's state with its newest complete checkpoint's while the other partitions go
     * on: verifies the checkpoint first (a damaged one is passed over for the one before), discards the
     * operator (without persisting the state about to be replaced), copies the checkpoint into the state
     * directory and opens a new operator on it. A take-over of a partition whose store holds no checkpoint,
     * and a drop, empty the state directory instead ({@link PartitionCheckpoints#chooseRestore}). When that
     * fails after the old state is gone, the partition has no state: it fails (see {@link #isFailed()}).
     */
    private void restore(final CheckpointRequest request)
    {
        if (!checkpoints.chooseRestore(operator, request))
        {
            return;
        }
        try
        {
            final JoinOperator old = operator;
            operator = null;
            old.discard();
            checkpoints.replaceState();
            operator = operatorFactory.create(guards, guards, guards);
            if (sliceRing != null)
            {
                operator.sliceWatermarkWork(watermarkSlice);
            }
        }
        catch (final Throwable t)
        {
            throw checkpoints.stateLost(request, t);
        }
        // Before the restore is reported: whoever waits for it reads the restored state's gauges, not the old ones.
        publishCounters();
        checkpoints.restored(request);
    }

    /** @return whether the partition's operator keeps its state in files. */
    boolean isDurable()
    {
        return operator != null && operator.durable();
    }

    /**
     * A clean close: once the operator has closed (persisted) its state, the partition thread copies it into
     * this checkpoint (every partition the same one), which the engine confirms before it writes the
     * clean-close records; a partition that cannot fails its part, and no record is written.
     */
    void closeAt(final CheckpointRequest request)
    {
        closeRequest = request;
    }

    /** Set before the thread starts: called on the partition thread when it dies. */
    void onFailure(final IntConsumer callback)
    {
        onFailure = callback;
    }

    /** Publishes the operator's counters and gauges to the partition's metrics (a batch's end, a start, a restore). */
    private void publishCounters()
    {
        metrics.publish(operator.counters(), events, guards.handlerErrors());
    }

    /** The hot-key report allocates: it is taken at most once an interval (and at the end of input), never per event. */
    private void publishHotKeysWhenDue()
    {
        final long now = System.nanoTime();
        if (hotKeysDue || now - hotKeysPublishedAt >= hotKeysIntervalNanos)
        {
            hotKeysDue = false;
            hotKeysPublishedAt = now;
            try
            {
                metrics.publishHotKeys(operator.hotKeys());
            }
            catch (final Throwable t)
            {
                guards.reportError(t);
            }
        }
    }

    private void readAhead(final long from, final long to)
    {
        try
        {
            for (long s = from; s <= to; s++)
            {
                final RingSlot ahead = ring.get(s);
                if (ahead.type == RingSlot.ROW || ahead.type == RingSlot.INPUT_ROW)
                {
                    operator.prefetch(ahead.keyHash);
                }
            }
        }
        catch (final Throwable t)
        {
            guards.reportError(t);
        }
        prefetchedTo = to;
    }

    @Override
    public void onStart()
    {
        thread = Thread.currentThread();
        try
        {
            // Before the start returns: a reopened or restored state's gauges (live rows, state bytes) are right
            // from the first snapshot, not only after the first batch.
            publishCounters();
            if (onThreadStart != null)
            {
                onThreadStart.accept(partition);
                guards.clearInterrupt();
            }
        }
        catch (final Throwable t)
        {
            // A hint such as CPU pinning that fails must not stop the partition.
            guards.reportError(t);
        }
        finally
        {
            started.countDown();
        }
    }

    /**
     * Waits until the partition thread runs. A Disruptor halted before its processor thread has
     * started exits without processing what was published (its shutdown only waits for running
     * processors), so the engine does not hand out publishers before every partition runs.
     *
     * @return whether it started within the timeout.
     */
    boolean awaitStarted(final long timeoutNanos) throws InterruptedException
    {
        return started.await(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void onShutdown()
    {
        final CheckpointRequest closing = closeRequest;
        control.failAll("partition " + partition + " stopped before it answered");
        try
        {
            if (!stopRequested || fatal != null)
            {
                failed = true;
                final PartitionFailedException failure = new PartitionFailedException(
                    partition, Thread.currentThread().getName(), fatal);
                LOGGER.log(System.Logger.Level.ERROR, failure.getMessage(), fatal);
                guards.reportError(failure);
                final IntConsumer callback = onFailure;
                if (callback != null)
                {
                    // The checkpoints and restores queued behind the event that ended the thread never run.
                    callback.accept(partition);
                }
            }
            // The close's persist needs the sums of the write in flight; the engine's recovery, its store.
            checkpoints.awaitWrite(operator);
            if (operator == null)
            {
                return;
            }
            try
            {
                publishCounters();
                if (hotKeysIntervalNanos > 0)
                {
                    metrics.publishHotKeys(operator.hotKeys());
                }
            }
            catch (final Throwable t)
            {
                guards.reportError(t);
            }
            operator.close();
            if (closing != null && checkpoints.isDurable() && operator.durable() && !failed)
            {
                checkpoints.closeCheckpoint(closing);
            }
        }
        catch (final Throwable t)
        {
            guards.reportError(t);
        }
        finally
        {
            checkpoints.closeWriter();
            if (closing != null)
            {
                // Whatever kept the close checkpoint from being written fails it (nothing when it reported).
                closing.failPartition(partition, new IllegalStateException("partition " + partition +
                    (failed ? "'s thread died" : " could not persist its state") + " before the clean close's checkpoint"));
            }
            stopped.countDown();
        }
    }

    /**
     * Something escaped {@link #onEvent}'s guards: remember it and let the partition thread end, to be
     * reported as a failed partition by {@link #onShutdown()}.
     */
    @Override
    public void handleEventException(final Throwable ex, final long sequence, final RingSlot event)
    {
        fatal = ex;
        if (ex instanceof RuntimeException)
        {
            throw (RuntimeException)ex;
        }
        if (ex instanceof Error)
        {
            throw (Error)ex;
        }
        throw new IllegalStateException(ex);
    }

    @Override
    public void handleOnStartException(final Throwable ex)
    {
        guards.reportError(ex);
    }

    @Override
    public void handleOnShutdownException(final Throwable ex)
    {
        guards.reportError(ex);
    }

    /**
     * Thread: any (the engine's close reads it while the partition drains).
     *
     * @return a count that grows with every event, result and dead letter the partition handles.
     */
    long progress()
    {
        return guards.progress();
    }

    /** The wait for the next event ended by an interrupt (a blocking wait strategy): cleared by the wait, counted. */
    void interruptedWhileWaiting()
    {
        guards.interruptedWhileWaiting();
    }

    /** Called by the engine before it halts the ring: the end of the thread that follows is no failure. */
    void requestStop()
    {
        stopRequested = true;
    }

    /** @return whether the partition thread died (not stopped by the engine). */
    boolean isFailed()
    {
        return failed;
    }

    /** @return whether this is the partition's thread. */
    boolean isPartitionThread(final Thread candidate)
    {
        return candidate == thread;
    }

    /** Frees the operator of a partition whose thread never started. */
    void closeUnstarted()
    {
        if (operator != null)
        {
            operator.close();
        }
        stopped.countDown();
    }

    /**
     * Waits until the partition thread has closed its operator.
     *
     * @return whether it did within the timeout.
     */
    boolean awaitStopped(final long timeoutNanos) throws InterruptedException
    {
        return stopped.await(timeoutNanos, TimeUnit.NANOSECONDS);
    }
}
