package io.junction.api;

/**
 * Receives join output. Rows are flyweights valid only during the call; {@code left} or
 * {@code right} is null for a null-padded side (and {@code right} is always null for semi and anti
 * joins).
 *
 * <p>Called on the partition thread that produced the result. One handler instance per partition
 * (see the runtime's configuration) needs no synchronisation; a shared handler must be thread safe.
 * An exception thrown here is caught, counted and reported to the engine's error handler; the
 * partition goes on.
 */
@FunctionalInterface
public interface ResultHandler
{
    /**
     * @param kind      the changelog kind of the output row.
     * @param left      the left row, or null when padded.
     * @param right     the right row, or null when padded.
     * @param timestamp event time of the result: max(left.ts, right.ts) for a pair, the row's own ts when padded.
     * @param step      the input sequence number (replay step) whose processing produced it.
     */
    void onResult(ChangeKind kind, RowView left, RowView right, long timestamp, long step);

    /**
     * A window join's result, carrying its window {@code [windowStart, windowEnd)}. The default
     * forwards to {@link #onResult} with the window's last instant as the timestamp.
     *
     * @param kind        the changelog kind of the output row (always {@link ChangeKind#INSERT}).
     * @param left        the left row, or null when padded.
     * @param right       the right row, or null when padded (always null for semi and anti joins).
     * @param windowStart the window's first instant, inclusive.
     * @param windowEnd   the window's end, exclusive.
     * @param step        the input sequence number (replay step) whose processing fired the window.
     */
    default void onWindowResult(
        final ChangeKind kind, final RowView left, final RowView right,
        final long windowStart, final long windowEnd, final long step)
    {
        onResult(kind, left, right, windowEnd - 1, step);
    }
}
