package io.junction.runtime;

import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.ExceptionHandler;
import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.join.JoinOperator;
import io.junction.internal.metrics.LatencyRecorder;
import io.junction.internal.metrics.PartitionMetrics;
import io.junction.internal.state.CutTimes;
import io.junction.metrics.CheckpointPausePart;
import org.agrona.ErrorHandler;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import io.junction.api.ExpiryHandler;
import io.junction.api.ExpiryReason;
import io.junction.internal.durable.CheckpointStore;
import java.util.Arrays;

/**
 * The consumer of one partition ring: the single writer of that partition's operator and state.
 * Each event is handed to the operator; at the end of each batch the operator's counters are
 * published to {@link PartitionMetrics}. Nothing thrown by the operator, the result or dead-letter
 * handler, or the error handler itself stops the partition: it is counted and reported to the error
 * handler (a failing error handler to the log), and the next event is processed. Should anything
 * escape even so (a bug outside those guards), the partition thread ends and the worker reports it:
 * {@link #isFailed()} turns true, the error handler gets a {@link PartitionFailedException} and the
 * log an error.
 *
 * <p>Not thread safe: runs on its partition thread only, except the volatile flags the engine reads.
 */
final class PartitionWorker implements EventHandler<RingSlot>, ResultHandler, DeadLetterHandler, ExceptionHandler<RingSlot>, ErrorHandler,
    ExpiryHandler
{
    private static final System.Logger LOGGER = System.getLogger("io.junction.runtime");

    /** Events of a batch read ahead at once: enough misses in flight to fill the core's line-fill buffers. */
    static final int PREFETCH_AHEAD = 8;

    private final int partition;
    private final IntConsumer onThreadStart;
    private final ErrorHandler fallback;
    /** Replaced by a restore ({@link RingSlot#RESTORE}); otherwise the same for the partition's life. */
    private JoinOperator operator;
    private final OperatorFactory operatorFactory;
    /** Null in memory mode. */
    private final DurablePartition durable;
    /** Writes the checkpoints' staged cuts in the background; null in memory mode. */
    private final CheckpointWriter writer;
    private static final int PART_WATERMARK_WORK = CheckpointPausePart.WATERMARK_WORK.ordinal();
    private static final int PART_WAIT = CheckpointPausePart.WAIT.ordinal();
    private static final int PART_INSTALL = CheckpointPausePart.INSTALL.ordinal();
    private static final int PART_FLUSH = CheckpointPausePart.FLUSH.ordinal();
    private static final int PART_COLLECT = CheckpointPausePart.COLLECT.ordinal();
    private static final int PART_FREEZE = CheckpointPausePart.FREEZE.ordinal();
    private static final int PART_HEAP_IMAGE = CheckpointPausePart.HEAP_IMAGE.ordinal();
    private static final int PART_OTHER = CheckpointPausePart.OTHER.ordinal();
    /** The last checkpoint's pause in parts, ns, by {@link CheckpointPausePart} ordinal (reused: no allocation). */
    private final long[] pauseParts = new long[CheckpointPausePart.values().length];
    /**
     * System property {@code junction.checkpoint.synchronous}: when {@code true}, every checkpoint is
     * persisted and copied on the partition thread, with no background writer (to compare the two).
     */
    static final boolean SYNCHRONOUS_CHECKPOINTS = Boolean.getBoolean("junction.checkpoint.synchronous");
    /** Called on the partition thread at a checkpoint barrier, before the state is persisted; may be null. */
    private final IntConsumer beforeCheckpoint;
    /** Set by a clean close: the checkpoint to take of the state once the operator has closed (persisted) it. */
    private volatile CheckpointRequest closeRequest;
    /** Told the partition's number when its thread dies (the engine fails what waits on it); may be null. */
    private volatile IntConsumer onFailure;
    private final ResultHandler results;
    private final DeadLetterHandler deadLetters;
    private final ErrorHandler errorHandler;
    private final PartitionMetrics metrics;
    private final LatencyRecorder latency;
    private final boolean recordLatency;
    private final RowView row = new RowView();
    private final CountDownLatch started = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private long ingestNanos;
    /** The current event's step: a result of another step is watermark work an earlier watermark left pending. */
    private long ingestStep;
    /**
     * The steps and ingest times of the last {@link #WATERMARK_INGESTS} watermarks, a ring written at each
     * watermark (with latency recorded only): a row a watermark closes in a later slice is timed from that
     * watermark's arrival, not from the event it happens to be done before, so bounded slices cannot hide the
     * wait of what they defer. Partition thread only.
     */
    private final long[] watermarkSteps = new long[WATERMARK_INGESTS];
    private final long[] watermarkIngests = new long[WATERMARK_INGESTS];
    private int watermarkIngestNext;
    /** The ring, for reading ahead; null until set, and when look-ahead is off. */
    private RingBuffer<RingSlot> ring;
    /** The ring whose cursor says whether an event waits behind pending watermark work; null: not sliced. */
    private RingBuffer<RingSlot> sliceRing;
    /** Rows or timers per slice of watermark work ({@code EngineConfig#watermarkSlice}). */
    private int watermarkSlice = Integer.MAX_VALUE;
    /** Watermarks whose arrival a deferred slice's results are timed from: twice the driver's queue of pending ones. */
    private static final int WATERMARK_INGESTS = 32;
    /** Last sequence of the batch being processed, known from its first event. */
    private long batchEnd = -1;
    private boolean batchStarting;
    private long batchSize;
    /** Sequences up to this one have had their key's memory read ahead. */
    private long prefetchedTo = -1;
    private long events;
    /**
     * Events, results and dead letters handled so far, published by release stores for the engine's close,
     * which waits while it grows ({@link #progress()}). Written by the partition thread only.
     */
    private final AtomicLong progress = new AtomicLong();
    private long progressCount;
    /** Nanos between hot-key reports, or 0 when the operator keeps none. */
    private final long hotKeysIntervalNanos;
    private long hotKeysPublishedAt = System.nanoTime();
    /** Set by the end of input: the batch that holds it publishes a report whatever the interval. */
    private boolean hotKeysDue;
    private long handlerErrors;
    /** Interrupts found set on the partition thread and cleared ({@link #clearInterrupt()}). */
    private long interruptsCleared;
    private volatile Thread thread;
    private volatile boolean stopRequested;
    private volatile boolean failed;
    private volatile Throwable fatal;

    PartitionWorker(
        final int partition, final OperatorFactory operatorFactory, final ResultHandler results,
        final DeadLetterHandler deadLetters, final ErrorHandler errorHandler, final ErrorHandler fallback,
        final IntConsumer onThreadStart,
        final PartitionMetrics metrics, final LatencyRecorder latency, final boolean recordLatency,
        final long hotKeysIntervalNanos)
    {
        this(partition, operatorFactory, results, deadLetters, errorHandler, fallback, onThreadStart, metrics, latency,
            recordLatency, hotKeysIntervalNanos, null, null);
    }

    PartitionWorker(
        final int partition, final OperatorFactory operatorFactory, final ResultHandler results,
        final DeadLetterHandler deadLetters, final ErrorHandler errorHandler, final ErrorHandler fallback,
        final IntConsumer onThreadStart,
        final PartitionMetrics metrics, final LatencyRecorder latency, final boolean recordLatency,
        final long hotKeysIntervalNanos, final DurablePartition durable, final IntConsumer beforeCheckpoint)
    {
        this.durable = durable;
        this.writer = durable == null ? null : new CheckpointWriter(partition, durable, metrics);
        this.beforeCheckpoint = beforeCheckpoint;
        this.operatorFactory = operatorFactory;
        this.hotKeysIntervalNanos = hotKeysIntervalNanos;
        this.partition = partition;
        this.fallback = fallback;
        this.onThreadStart = onThreadStart;
        this.results = results;
        this.deadLetters = deadLetters;
        this.errorHandler = errorHandler;
        this.metrics = metrics;
        this.latency = latency;
        this.recordLatency = recordLatency;
        Arrays.fill(watermarkSteps, Long.MIN_VALUE);
        this.operator = operatorFactory.create(this, this, this);
    }

    /**
     * Creates the operator with the worker as its handlers, so every result, dead letter and user predicate's
     * exception passes the guard.
     */
    @FunctionalInterface
    interface OperatorFactory
    {
        JoinOperator create(ResultHandler guardedResults, DeadLetterHandler guardedDeadLetters);

        /**
         * As the two-argument create, with the guarded error handler handed in: the engine's own factory passes it
         * to the operator; by default a factory ignores it (the worker is the result handler too).
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
    }

    @Override
    public void onEvent(final RingSlot slot, final long sequence, final boolean endOfBatch)
    {
        events++;
        progressed();
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
        ingestNanos = slot.ingestNanos;
        ingestStep = slot.step;
        if (recordLatency && (slot.type == RingSlot.WATERMARK || slot.type == RingSlot.INPUT_WATERMARK))
        {
            watermarkSteps[watermarkIngestNext] = slot.step;
            watermarkIngests[watermarkIngestNext] = slot.ingestNanos;
            watermarkIngestNext = (watermarkIngestNext + 1) & (WATERMARK_INGESTS - 1);
        }
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
                    checkpoint(slot.request, barrier);
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
            reportError(t);
        }
        // User filters and conditions ran inside the operator: no interrupt they set outlives the event.
        clearInterrupt();
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
            reportError(t);
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
                clearInterrupt();
            }
        }
        catch (final Throwable t)
        {
            reportError(t);
        }
        clearInterrupt();
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
     * @param request the checkpoint.
     * @param barrier {@code System.nanoTime} when the barrier reached the partition.
     */
    private void checkpoint(final CheckpointRequest request, final long barrier)
    {
        final long start = System.nanoTime();
        Arrays.fill(pauseParts, 0);
        pauseParts[PART_WATERMARK_WORK] = start - barrier;
        final boolean waited = awaitWrite();
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
     * @return whether a write was in flight.
     */
    private boolean awaitWrite()
    {
        if (writer == null)
        {
            return false;
        }
        final long waitStart = System.nanoTime();
        final boolean waited = writer.await();
        clearInterrupt();
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
                reportError(t);
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
     * Replaces the partition's state with its newest complete checkpoint's while the other partitions go
     * on: verifies the checkpoint first (a damaged one is passed over for the one before), discards the
     * operator (without persisting the state about to be replaced), copies the checkpoint into the state
     * directory and opens a new operator on it. A take-over of a partition whose store holds no checkpoint,
     * and a drop, empty the state directory instead. When that
     * fails after the old state is gone, the partition has no state: it fails (see {@link #isFailed()}).
     */
    private void restore(final CheckpointRequest request)
    {
        // The store and the state directory are the writer's until its write in flight is done.
        awaitWrite();
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
            return;
        }
        try
        {
            final JoinOperator old = operator;
            operator = null;
            old.discard();
            if (checkpoint == null)
            {
                durable.clearState();
            }
            else
            {
                durable.restore(checkpoint);
            }
            operator = operatorFactory.create(this, this, this);
            if (sliceRing != null)
            {
                operator.sliceWatermarkWork(watermarkSlice);
            }
        }
        catch (final Throwable t)
        {
            request.restored(partition, -1, null, t);
            throw new IllegalStateException("partition " + partition + " lost its state: its " + (checkpoint == null
                ? "emptying failed" : "restore from " + checkpoint.directory + " failed"), t);
        }
        // Before the restore is reported: whoever waits for it reads the restored state's gauges, not the old ones.
        publishCounters();
        if (checkpoint == null)
        {
            request.restored(partition, -1, null, null);
            return;
        }
        request.restored(partition, checkpoint.id, checkpoint.positions(), null);
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

    /** The close checkpoint: the operator has closed and persisted, so the state directory is the image. */
    private void closeCheckpoint(final CheckpointRequest request)
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

    /** Publishes the operator's counters and gauges to the partition's metrics (a batch's end, a start, a restore). */
    private void publishCounters()
    {
        metrics.publish(operator.counters(), events, handlerErrors);
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
            clearInterrupt();
        }
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
                reportError(t);
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
            reportError(t);
        }
        prefetchedTo = to;
    }

    /**
     * @return when the event that caused a result of {@code step} arrived: the current event's, or that of a recent
     *         watermark of this step whose work a slice is doing now (the current event's when none is known).
     */
    private long ingestOf(final long step)
    {
        if (step != ingestStep)
        {
            for (int i = 0; i < WATERMARK_INGESTS; i++)
            {
                if (watermarkSteps[i] == step)
                {
                    return watermarkIngests[i];
                }
            }
        }
        return ingestNanos;
    }

    @Override
    public void onResult(
        final ChangeKind kind, final RowView left, final RowView right, final long timestamp, final long step)
    {
        if (recordLatency)
        {
            latency.record(System.nanoTime() - ingestOf(step));
        }
        try
        {
            progressed();
            results.onResult(kind, left, right, timestamp, step);
            clearInterrupt();
        }
        catch (final Throwable t)
        {
            reportError(t);
        }
    }

    /** Visible expiry (docs/SEMANTICS.md 4.7): forwarded when the partition's result handler is also an ExpiryHandler. */
    @Override
    public void onExpired(
        final Side side, final RowView row, final long timestamp, final ExpiryReason reason,
        final long step)
    {
        if (results instanceof ExpiryHandler)
        {
            try
            {
                ((ExpiryHandler)results).onExpired(side, row, timestamp, reason, step);
            }
            catch (final Throwable t)
            {
                reportError(t);
            }
        }
    }

    @Override
    public void onMultiResult(final ChangeKind kind, final RowView[] rows, final long timestamp, final long step)
    {
        if (recordLatency)
        {
            latency.record(System.nanoTime() - ingestOf(step));
        }
        try
        {
            results.onMultiResult(kind, rows, timestamp, step);
        }
        catch (final Throwable t)
        {
            reportError(t);
        }
    }

    @Override
    public void onMultiDeadLetter(
        final int input, final ChangeKind kind, final RowView row, final long ts, final long step,
        final DeadLetterReason reason)
    {
        metrics.countDeadLetter(reason);
        try
        {
            deadLetters.onMultiDeadLetter(input, kind, row, ts, step, reason);
        }
        catch (final Throwable t)
        {
            reportError(t);
        }
    }

    @Override
    public void onWindowResult(
        final ChangeKind kind, final RowView left, final RowView right,
        final long windowStart, final long windowEnd, final long step)
    {
        if (recordLatency)
        {
            latency.record(System.nanoTime() - ingestOf(step));
        }
        try
        {
            progressed();
            results.onWindowResult(kind, left, right, windowStart, windowEnd, step);
            clearInterrupt();
        }
        catch (final Throwable t)
        {
            reportError(t);
        }
    }

    @Override
    public void onCoGroupResult(
        final RowView left, final RowView right, final RowView computed,
        final long windowStart, final long windowEnd, final long step)
    {
        if (recordLatency)
        {
            latency.record(System.nanoTime() - ingestOf(step));
        }
        try
        {
            progressed();
            results.onCoGroupResult(left, right, computed, windowStart, windowEnd, step);
            clearInterrupt();
        }
        catch (final Throwable t)
        {
            reportError(t);
        }
    }

    @Override
    public void onDeadLetter(
        final Side side, final ChangeKind kind, final RowView row, final long ts, final long step,
        final DeadLetterReason reason)
    {
        metrics.countDeadLetter(reason);
        try
        {
            progressed();
            deadLetters.onDeadLetter(side, kind, row, ts, step, reason);
            clearInterrupt();
        }
        catch (final Throwable t)
        {
            reportError(t);
        }
    }

    /**
     * Reports a failure of user code the operator guards itself (a throwing RowFilter or PairCondition),
     * as a handler's: counted and handed to the error handler; the partition goes on.
     */
    @Override
    public void onError(final Throwable t)
    {
        reportError(t);
    }

    /**
     * Counts a failure and reports it to the error handler; a failure of the error handler itself is
     * counted too and goes to the log, so the error path can never end the partition.
     */
    private void reportError(final Throwable t)
    {
        handlerErrors++;
        try
        {
            errorHandler.onError(t);
            if (Thread.interrupted())
            {
                // Cleared, counted, not reported again (an error handler that interrupts would report for ever).
                interruptsCleared++;
            }
        }
        catch (final Throwable e)
        {
            handlerErrors++;
            try
            {
                // Not e.addSuppressed(t): a handler that throws one shared instance would grow it forever.
                fallback.onError(e);
            }
            catch (final Throwable ignored)
            {
                // Nothing is left to report to; the count above still shows it.
            }
        }
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
                clearInterrupt();
            }
        }
        catch (final Throwable t)
        {
            // A hint such as CPU pinning that fails must not stop the partition.
            reportError(t);
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
        try
        {
            if (!stopRequested || fatal != null)
            {
                failed = true;
                final PartitionFailedException failure = new PartitionFailedException(
                    partition, Thread.currentThread().getName(), fatal);
                LOGGER.log(System.Logger.Level.ERROR, failure.getMessage(), fatal);
                reportError(failure);
                final IntConsumer callback = onFailure;
                if (callback != null)
                {
                    // The checkpoints and restores queued behind the event that ended the thread never run.
                    callback.accept(partition);
                }
            }
            // The close's persist needs the sums of the write in flight; the engine's recovery, its store.
            awaitWrite();
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
                reportError(t);
            }
            operator.close();
            if (closing != null && durable != null && operator.durable() && !failed)
            {
                closeCheckpoint(closing);
            }
        }
        catch (final Throwable t)
        {
            reportError(t);
        }
        finally
        {
            if (writer != null)
            {
                writer.close();
            }
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
        reportError(ex);
    }

    @Override
    public void handleOnShutdownException(final Throwable ex)
    {
        reportError(ex);
    }

    /**
     * The partition thread is not interruptible: an interrupt (a user callback that sets the flag, or
     * another thread's {@code Thread.interrupt()}) would close the channels its file I/O runs on, or end
     * a blocking wait with an exception. So the flag is cleared after every user callback and every event,
     * and each one found is counted and reported to the error handler (a handler error); the partition goes on.
     */
    private void clearInterrupt()
    {
        if (Thread.interrupted())
        {
            interruptsCleared++;
            reportError(new IllegalStateException("partition " + partition + ": its thread's interrupt flag was set " +
                "(by a handler, a filter or condition, or another thread) and has been cleared: partition threads " +
                "are not interruptible (an interrupt would close the files of durable state)"));
        }
    }

    /** The wait for the next event ended by an interrupt (a blocking wait strategy): cleared by the wait, counted. */
    void interruptedWhileWaiting()
    {
        interruptsCleared++;
        reportError(new IllegalStateException("partition " + partition + ": its thread was interrupted while waiting " +
            "for events; the interrupt is ignored: partition threads are not interruptible"));
    }

    /** @return interrupts of the partition thread found and cleared (each also a handler error). Thread: the partition's, or after it stopped. */
    long interruptsCleared()
    {
        return interruptsCleared;
    }

    /** Counts one step of progress (an event, a result, a dead letter): a release store, no fence. */
    private void progressed()
    {
        progress.lazySet(++progressCount);
    }

    /**
     * Thread: any (the engine's close reads it while the partition drains).
     *
     * @return a count that grows with every event, result and dead letter the partition handles.
     */
    long progress()
    {
        return progress.get();
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
