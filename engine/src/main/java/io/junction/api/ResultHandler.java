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

    /**
     * A coGroup's result with a computed row ({@link CoGroupCollector#emitRow}), carrying its window
     * {@code [windowStart, windowEnd)}. The coGroup's results of input rows alone come through
     * {@link #onWindowResult}. A handler for a coGroup that computes rows must override this: the default
     * throws {@link UnsupportedOperationException} (which the runtime counts and reports as any handler
     * failure), so that computed rows are never dropped silently.
     *
     * @param left        the left row emitted with it, or null.
     * @param right       the right row emitted with it, or null.
     * @param row         the computed row, in the spec's coGroup output schema ({@link JoinSpec#coGroupSchema()}).
     * @param windowStart the window's first instant, inclusive.
     * @param windowEnd   the window's end, exclusive.
     * @param step        the input sequence number (replay step) whose processing fired the window.
     */
    default void onCoGroupResult(
        final RowView left, final RowView right, final RowView row,
        final long windowStart, final long windowEnd, final long step)
    {
        throw new UnsupportedOperationException(
            "this ResultHandler takes no coGroup rows: override ResultHandler.onCoGroupResult (" + getClass().getName() + ")");
    }

    /**
     * A multi-way join's result ({@link JoinKind#MULTI}, SEMANTICS 10): one row per input, in the spec's input
     * order, null for a padded input. The array and its rows are the operator's, valid only during the call.
     * The default forwards a two-input join's result to {@link #onResult} (input 0 as left, input 1 as right)
     * and throws {@link UnsupportedOperationException} for more inputs (counted and reported by the runtime
     * as any handler failure), so that results are never dropped silently: a handler of a join of three or
     * more inputs must override it.
     * @param kind      {@link ChangeKind#INSERT} or {@link ChangeKind#DELETE}.
     * @param rows      one row per input, null for a padded one.
     * @param timestamp the greatest event time of the rows.
     * @param step      the input sequence number (replay step) whose processing produced it.
     */
    default void onMultiResult(final ChangeKind kind, final RowView[] rows, final long timestamp, final long step)
    {
        if (rows.length == 2)
        {
            onResult(kind, rows[0], rows[1], timestamp, step);
            return;
        }
        throw new UnsupportedOperationException(
            "this ResultHandler takes no multi-way results: override ResultHandler.onMultiResult (" + getClass().getName() + ")");
    }
}
