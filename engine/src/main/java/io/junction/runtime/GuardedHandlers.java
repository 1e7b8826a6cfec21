package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.ExpiryHandler;
import io.junction.api.ExpiryReason;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.metrics.LatencyRecorder;
import io.junction.internal.metrics.PartitionMetrics;
import org.agrona.ErrorHandler;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The handlers one partition's operator is created with: every result, expiry and dead letter goes through a guard
 * here to the user's handlers, and every failure of user code (a handler that throws, a filter or condition the
 * operator guards itself, an interrupt a callback left set) is counted as a handler error and reported to the error
 * handler, a failing error handler to the fallback (the log), so nothing user code does ends the partition. With
 * latency recorded, each result is timed from the arrival of the event that caused it, a deferred watermark slice's
 * from its watermark's ({@link #ingestOf}). Each event, result and dead letter counts as progress, which the engine's
 * close watches.
 *
 * <p>Thread: the partition's only. Its {@link PartitionWorker} tells it of each event ({@link #arrived}), the operator
 * calls the handler methods, the worker and its {@link PartitionCheckpoints} report through {@link #reportError} and
 * {@link #clearInterrupt}. The exception is {@link #progress()}, a release store any thread may read. No method
 * allocates on the event path (a report of a cleared interrupt does: it is an error).
 */
final class GuardedHandlers implements ResultHandler, DeadLetterHandler, ExpiryHandler, ErrorHandler
{
    /** Watermarks whose arrival a deferred slice's results are timed from: twice the driver's queue of pending ones. */
    private static final int WATERMARK_INGESTS = 32;

    private final int partition;
    private final ResultHandler results;
    private final DeadLetterHandler deadLetters;
    private final ErrorHandler errorHandler;
    private final ErrorHandler fallback;
    private final PartitionMetrics metrics;
    private final LatencyRecorder latency;
    private final boolean recordLatency;
    /** Whether the current event is watermark work: a watermark, an input's idleness or the end of input. */
    private boolean watermarkEvent;
    private long ingestNanos;
    /** The current event's step: a result of another step is watermark work an earlier watermark left pending. */
    private long ingestStep;
    /**
     * The steps and ingest times of the last {@link #WATERMARK_INGESTS} watermarks, a ring written at each
     * watermark (with latency recorded only): a row a watermark closes in a later slice is timed from that
     * watermark's arrival, not from the event it happens to be done before, so bounded slices cannot hide the
     * wait of what they defer.
     */
    private final long[] watermarkSteps = new long[WATERMARK_INGESTS];
    private final long[] watermarkIngests = new long[WATERMARK_INGESTS];
    private int watermarkIngestNext;
    /**
     * Events, results and dead letters handled so far, published by release stores for the engine's close,
     * which waits while it grows ({@link #progress()}). Written by the partition thread only.
     */
    private final AtomicLong progress = new AtomicLong();
    private long progressCount;
    private long handlerErrors;

    GuardedHandlers(
        final int partition, final ResultHandler results, final DeadLetterHandler deadLetters,
        final ErrorHandler errorHandler, final ErrorHandler fallback, final PartitionMetrics metrics,
        final LatencyRecorder latency, final boolean recordLatency)
    {
        this.partition = partition;
        this.results = results;
        this.deadLetters = deadLetters;
        this.errorHandler = errorHandler;
        this.fallback = fallback;
        this.metrics = metrics;
        this.latency = latency;
        this.recordLatency = recordLatency;
        Arrays.fill(watermarkSteps, Long.MIN_VALUE);
    }

    /** An event reached the partition: the results it causes are timed from its arrival. */
    void arrived(final RingSlot slot)
    {
        ingestNanos = slot.ingestNanos;
        ingestStep = slot.step;
        watermarkEvent = slot.type == RingSlot.WATERMARK || slot.type == RingSlot.INPUT_WATERMARK ||
            slot.type == RingSlot.IDLE || slot.type == RingSlot.INPUT_IDLE || slot.type == RingSlot.END_OF_INPUT;
        if (recordLatency && (slot.type == RingSlot.WATERMARK || slot.type == RingSlot.INPUT_WATERMARK))
        {
            watermarkSteps[watermarkIngestNext] = slot.step;
            watermarkIngests[watermarkIngestNext] = slot.ingestNanos;
            watermarkIngestNext = (watermarkIngestNext + 1) & (WATERMARK_INGESTS - 1);
        }
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

    /**
     * Records a result's latency; one that watermark work emitted (the current event's, or a slice of an earlier
     * watermark's, whose step is not the event's) is also recorded apart, so a report can tell the tail it makes
     * from that of results emitted at their own row.
     */
    private void recordLatency(final long step)
    {
        final long nanos = System.nanoTime() - ingestOf(step);
        latency.record(nanos);
        if (watermarkEvent || step != ingestStep)
        {
            latency.recordWatermarkWork(nanos);
        }
    }

    @Override
    public void onResult(
        final ChangeKind kind, final RowView left, final RowView right, final long timestamp, final long step)
    {
        if (recordLatency)
        {
            recordLatency(step);
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
            recordLatency(step);
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
            recordLatency(step);
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
            recordLatency(step);
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
    void reportError(final Throwable t)
    {
        handlerErrors++;
        try
        {
            errorHandler.onError(t);
            // Cleared, not reported again (an error handler that interrupts would report for ever).
            Thread.interrupted();
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

    /**
     * The partition thread is not interruptible: an interrupt (a user callback that sets the flag, or
     * another thread's {@code Thread.interrupt()}) would close the channels its file I/O runs on, or end
     * a blocking wait with an exception. So the flag is cleared after every user callback and every event,
     * and each one found is reported to the error handler and counted as a handler error; the partition goes on.
     */
    void clearInterrupt()
    {
        if (Thread.interrupted())
        {
            reportError(new IllegalStateException("partition " + partition + ": its thread's interrupt flag was set " +
                "(by a handler, a filter or condition, or another thread) and has been cleared: partition threads " +
                "are not interruptible (an interrupt would close the files of durable state)"));
        }
    }

    /** The wait for the next event ended by an interrupt (a blocking wait strategy): cleared by the wait, reported. */
    void interruptedWhileWaiting()
    {
        reportError(new IllegalStateException("partition " + partition + ": its thread was interrupted while waiting " +
            "for events; the interrupt is ignored: partition threads are not interruptible"));
    }

    /** @return failures of user code and of the error path counted so far. Thread: the partition's. */
    long handlerErrors()
    {
        return handlerErrors;
    }

    /** Counts one step of progress (an event, a result, a dead letter): a release store, no fence. */
    void progressed()
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
}
