package io.junction.runtime;

import com.lmax.disruptor.EventHandler;
import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.join.JoinOperator;
import io.junction.internal.metrics.LatencyRecorder;
import io.junction.internal.metrics.PartitionMetrics;
import org.agrona.ErrorHandler;

import java.util.concurrent.CountDownLatch;

/**
 * The consumer of one partition ring: the single writer of that partition's operator and state.
 * Each event is handed to the operator; at the end of each batch the operator's counters are
 * published to {@link PartitionMetrics}. Nothing thrown by the operator or the result handler stops
 * the partition: it is counted and reported to the error handler, and the next event is processed.
 *
 * <p>Not thread safe: runs on its partition thread only.
 */
final class PartitionWorker implements EventHandler<RingSlot>, ResultHandler, DeadLetterHandler
{
    private final JoinOperator operator;
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
    private long events;
    private long handlerErrors;

    PartitionWorker(
        final OperatorFactory operatorFactory, final ResultHandler results, final DeadLetterHandler deadLetters,
        final ErrorHandler errorHandler,
        final PartitionMetrics metrics, final LatencyRecorder latency, final boolean recordLatency)
    {
        this.results = results;
        this.deadLetters = deadLetters;
        this.errorHandler = errorHandler;
        this.metrics = metrics;
        this.latency = latency;
        this.recordLatency = recordLatency;
        this.operator = operatorFactory.create(this, this);
    }

    /** Creates the operator with the worker as its handlers, so every result and dead letter passes the guard. */
    @FunctionalInterface
    interface OperatorFactory
    {
        JoinOperator create(ResultHandler guardedResults, DeadLetterHandler guardedDeadLetters);
    }

    @Override
    public void onEvent(final RingSlot slot, final long sequence, final boolean endOfBatch)
    {
        events++;
        ingestNanos = slot.ingestNanos;
        try
        {
            switch (slot.type)
            {
                case RingSlot.ROW:
                    row.wrap(slot.row, 0, slot.rowLength);
                    operator.onRow(slot.side == 0 ? Side.LEFT : Side.RIGHT, ChangeKind.fromOrdinal(slot.kind),
                        row, slot.timestamp, slot.step);
                    break;
                case RingSlot.WATERMARK:
                    if (slot.side == RingSlot.BOTH_SIDES)
                    {
                        operator.onWatermark(slot.timestamp, slot.step);
                    }
                    else
                    {
                        operator.onWatermark(slot.side == 0 ? Side.LEFT : Side.RIGHT, slot.timestamp, slot.step);
                    }
                    break;
                case RingSlot.IDLE:
                    operator.onIdle(slot.side == 0 ? Side.LEFT : Side.RIGHT, slot.step);
                    break;
                default:
                    operator.onEndOfInput(slot.step);
            }
        }
        catch (final Throwable t)
        {
            handlerErrors++;
            errorHandler.onError(t);
        }
        if (endOfBatch)
        {
            metrics.publish(operator.counters(), events, handlerErrors);
        }
    }

    @Override
    public void onResult(
        final ChangeKind kind, final RowView left, final RowView right, final long timestamp, final long step)
    {
        if (recordLatency)
        {
            latency.record(System.nanoTime() - ingestNanos);
        }
        try
        {
            results.onResult(kind, left, right, timestamp, step);
        }
        catch (final Throwable t)
        {
            handlerErrors++;
            errorHandler.onError(t);
        }
    }

    @Override
    public void onWindowResult(
        final ChangeKind kind, final RowView left, final RowView right,
        final long windowStart, final long windowEnd, final long step)
    {
        if (recordLatency)
        {
            latency.record(System.nanoTime() - ingestNanos);
        }
        try
        {
            results.onWindowResult(kind, left, right, windowStart, windowEnd, step);
        }
        catch (final Throwable t)
        {
            handlerErrors++;
            errorHandler.onError(t);
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
            deadLetters.onDeadLetter(side, kind, row, ts, step, reason);
        }
        catch (final Throwable t)
        {
            handlerErrors++;
            errorHandler.onError(t);
        }
    }

    @Override
    public void onStart()
    {
        started.countDown();
    }

    /**
     * Waits until the partition thread runs. A Disruptor halted before its processor thread has
     * started exits without processing what was published (its shutdown only waits for running
     * processors), so the engine does not hand out publishers before every partition runs.
     */
    void awaitStarted() throws InterruptedException
    {
        started.await();
    }

    @Override
    public void onShutdown()
    {
        try
        {
            metrics.publish(operator.counters(), events, handlerErrors);
            operator.close();
        }
        finally
        {
            stopped.countDown();
        }
    }

    /** Frees the operator of a partition whose thread never started. */
    void closeUnstarted()
    {
        operator.close();
        stopped.countDown();
    }

    /** Waits until the partition thread has closed its operator. */
    void awaitStopped() throws InterruptedException
    {
        stopped.await();
    }
}
