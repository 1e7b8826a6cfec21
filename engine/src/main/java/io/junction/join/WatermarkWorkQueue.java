package io.junction.join;

import io.junction.internal.metrics.JoinCounters;

/**
 * The watermarks whose work (expiry, outer padding, window firing: {@link JoinAlgorithm#expireSlice}) is still
 * pending, oldest first, for the {@link OperatorDriver} (the latency work's bounded watermark work; the driver's
 * class comment draws the protocol). Whole by default: each watermark's work is done when it is added. Once
 * the runtime asks for slices ({@link #sliceBy}), an added watermark gets one slice of {@code budget} rows or
 * timers and the rest waits: one more slice before each event, and slices while the ring is empty; a
 * watermark beyond {@link #CAPACITY} pending finishes the oldest first. Each slice's outputs keep the step of
 * the watermark that caused them.
 *
 * <p>Every slice is timed ({@code System.nanoTime} once per slice, never per row) into the counters'
 * {@code watermarkSlices} and {@code maxWatermarkSliceNanos}.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class WatermarkWorkQueue
{
    /** Watermarks whose work is pending at most (a power of two). */
    static final int CAPACITY = 16;

    private final JoinAlgorithm algorithm;
    private final JoinCounters counters;
    private final long[] watermarks = new long[CAPACITY];
    private final long[] steps = new long[CAPACITY];
    private int head;
    /** Watermarks whose work is pending: the hot path's one field test. */
    private int size;
    /** Rows or timers per slice; {@link Integer#MAX_VALUE}: whole. */
    private int budget = Integer.MAX_VALUE;
    /** Whether pending work may outlive the event that caused it ({@link #sliceBy}). */
    private boolean deferred;

    /**
     * @param algorithm the kind whose work this is.
     * @param counters  the operator's counters, which count and time the slices.
     */
    WatermarkWorkQueue(final JoinAlgorithm algorithm, final JoinCounters counters)
    {
        this.algorithm = algorithm;
        this.counters = counters;
    }

    /**
     * From now on an added watermark's work is done in slices of {@code budget}.
     *
     * @param budget rows or timers per slice, &gt; 0.
     */
    void sliceBy(final int budget)
    {
        this.budget = budget;
        this.deferred = true;
    }

    /**
     * The join's watermark moved to {@code watermark} at {@code step}: its work joins the queue, and is done
     * whole, or its first slice now.
     */
    void add(final long watermark, final long step)
    {
        if (size == CAPACITY)
        {
            finishHead();
        }
        final int tail = (head + size) & (CAPACITY - 1);
        watermarks[tail] = watermark;
        steps[tail] = step;
        size++;
        if (deferred)
        {
            slice();
        }
        else
        {
            finish();
        }
    }

    /** @return whether no watermark's work is pending. */
    boolean isEmpty()
    {
        return size == 0;
    }

    /** One slice of the oldest pending work, when there is some (before an event: the hot path's one test). */
    void sliceIfPending()
    {
        if (size != 0)
        {
            slice();
        }
    }

    /** One timed slice of the head's work; the head leaves the queue when its work is done. Only when not empty. */
    void slice()
    {
        final long start = System.nanoTime();
        if (algorithm.expireSlice(watermarks[head], steps[head], budget))
        {
            pop();
        }
        took(System.nanoTime() - start);
    }

    /**
     * Finishes every pending watermark's work, oldest first (a barrier, the end of input, a close, or an algorithm
     * that must see it done first).
     *
     * @return whether any was pending.
     */
    boolean finish()
    {
        if (size == 0)
        {
            return false;
        }
        while (size != 0)
        {
            finishHead();
        }
        return true;
    }

    /** Forgets the pending work: the state it would change is being discarded. */
    void clear()
    {
        size = 0;
    }

    /** The head's work, whole (timed as one slice). */
    private void finishHead()
    {
        final long start = System.nanoTime();
        while (!algorithm.expireSlice(watermarks[head], steps[head], Integer.MAX_VALUE))
        {
            // An algorithm's whole slice is all of it; loops only for one that bounds even that.
        }
        pop();
        took(System.nanoTime() - start);
    }

    private void pop()
    {
        head = (head + 1) & (CAPACITY - 1);
        size--;
    }

    private void took(final long nanos)
    {
        counters.watermarkSlices++;
        if (nanos > counters.maxWatermarkSliceNanos)
        {
            counters.maxWatermarkSliceNanos = nanos;
        }
    }
}
