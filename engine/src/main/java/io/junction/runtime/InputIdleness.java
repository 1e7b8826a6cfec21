package io.junction.runtime;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

/**
 * Which inputs of an engine are idle, in processing time: each input's last event time, written by
 * publishers, and whether an idle mark has been broadcast for its current idle period. Publishers
 * decide the transitions (an input silent for longer than the timeout becomes idle; its next event
 * makes it active) and broadcast them through the rings, so every partition sees them in order with
 * the rows.
 *
 * <p>Thread safe: with multi-producer rings several publishers share it; a compare-and-set on the
 * flag makes each transition broadcast once.
 */
final class InputIdleness
{
    // Each value on its own cache line: publishers of one input write its time, all of them read both.
    private static final int STRIDE = 8;
    /**
     * Per input, a time no earlier than its last event: written {@link #granularityNanos} ahead of the
     * event that writes it, so that it stays valid for the events that follow without a write each,
     * and an input is idle late by at most that much, never early.
     */
    private static final int LAST_EVENT = 0;
    private static final int IDLE = 2 * STRIDE;

    private final AtomicLongArray state = new AtomicLongArray(4 * STRIDE);
    private final LongSupplier clock;
    private final long timeoutNanos;
    /** How far ahead of an event its last event time is written: a shared line is not written per event. */
    private final long granularityNanos;

    InputIdleness(final LongSupplier clock, final long timeoutNanos)
    {
        this.clock = clock;
        this.timeoutNanos = timeoutNanos;
        this.granularityNanos = timeoutNanos >> 4;
        final long now = clock.getAsLong();
        state.set(LAST_EVENT, now);
        state.set(LAST_EVENT + STRIDE, now);
    }

    /** @return the clock's time in nanoseconds. */
    long now()
    {
        return clock.getAsLong();
    }

    /**
     * Records an event of an input ({@code side} 0 left, 1 right).
     *
     * @return true when the input was marked idle: the caller tells every partition it is active again.
     */
    boolean onEvent(final int side, final long now)
    {
        final int last = LAST_EVENT + side * STRIDE;
        if (now - state.getOpaque(last) > 0)
        {
            state.setOpaque(last, now + granularityNanos);
        }
        final int idle = IDLE + side * STRIDE;
        return state.getOpaque(idle) != 0 && state.compareAndSet(idle, 1, 0);
    }

    /**
     * @return true when the input has just become idle (silent for longer than the timeout and not
     *         yet marked): the caller tells every partition.
     */
    boolean becameIdle(final int side, final long now)
    {
        final int idle = IDLE + side * STRIDE;
        return state.getOpaque(idle) == 0 && now - state.getOpaque(LAST_EVENT + side * STRIDE) > timeoutNanos &&
            state.compareAndSet(idle, 0, 1);
    }

    /** Undoes a transition that could not be broadcast (no room in a ring), so that a later call retries it. */
    void retry(final int side, final boolean idle)
    {
        state.set(IDLE + side * STRIDE, idle ? 0 : 1);
    }
}
