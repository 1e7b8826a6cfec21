package io.junction.join;

import io.junction.metrics.OperatorCounters;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.api.WindowSpec;

/**
 * The event-time window join (SPEC 2.3), as Flink's {@code DataStream#join} over event-time windows
 * and Flink SQL's window join (which adds the outer, semi and anti types).
 *
 * <p>Assignment: tumbling windows {@code [start, start + size)} with start on multiples of size plus
 * offset; sliding windows of {@code size} starting on multiples of slide plus offset that contain the
 * row; session windows per key, where a row opens {@code [ts, ts + gap)} and sessions of both sides
 * that overlap or touch merge. Emission: a window fires once, when the watermark reaches
 * {@code end - 1}; it then emits, per key, the pairs of that key's left and right rows satisfying
 * the condition (inner), the rows without a match null-padded (outer types), or the left rows with a
 * match (semi) / without one (anti), all carrying {@code [start, end)}. State: a window's rows are
 * dropped when it fires. A row whose every window has fired is late; a session row is late when its
 * merged session is already due. A fired session is final: later rows start new sessions.
 *
 * <p>Extreme timestamps: window assignment is exact over the whole long range. A window that starts
 * below {@code Long.MIN_VALUE} is reported from {@code Long.MIN_VALUE}, and an end beyond
 * {@code Long.MAX_VALUE} saturates to it (the window then fires when the watermark reaches
 * {@code Long.MAX_VALUE - 1}, or at the end of input); no window has both, since a size is at most
 * {@code Long.MAX_VALUE}. A row is in at most {@link WindowSpec#MAX_WINDOWS_PER_ROW} windows, and it
 * is stored in all of them or, when the key index is full, in none (one STATE_FULL dead letter).
 *
 * <p>Window coGroup (SPEC 6.4): when the spec has a {@link io.junction.api.CoGroupFunction}
 * ({@link io.junction.api.JoinSpec.Builder#coGroup}), the same windows, state, firing and lateness hand
 * each fired window's rows of one key, both sides in arrival order, to the function instead of joining
 * pairs; the join type says which groups are called.
 *
 * <p>Runs as one of two operators, chosen by the window kind: tumbling and sliding windows store rows
 * per (key, window) bucket; session windows store them per key and cluster them by ts when the
 * bucket's timer fires (the layouts are described on those operators).
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public final class WindowJoin implements JoinOperator
{
    /** A {@link TimeWindowJoin} or a {@link SessionWindowJoin}, for the life of this operator. */
    private final AbstractWindowJoin operator;

    /**
     * Creates the operator and allocates its off-heap state.
     *
     * @param spec        a window join.
     * @param config      the sizing of the off-heap state.
     * @param results     receives the output.
     * @param deadLetters receives the rows that cannot be processed.
     * @throws IllegalArgumentException when the spec is of another join kind.
     */
    public WindowJoin(
        final JoinSpec spec, final StateConfig config, final ResultHandler results, final DeadLetterHandler deadLetters)
    {
        JoinOperators.requireKind(spec, JoinKind.WINDOW);
        this.operator = spec.window().kind() == WindowSpec.Kind.SESSION ?
            new SessionWindowJoin(spec, config, results, deadLetters) :
            new TimeWindowJoin(spec, config, results, deadLetters);
    }

    @Override
    public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        operator.onRow(side, kind, row, ts, step);
    }

    /** @return session windows: the rows whose merged session needed the key's rows gathered and sorted; else 0. */
    long sessionGathers()
    {
        return operator instanceof SessionWindowJoin ? ((SessionWindowJoin)operator).gathers() : 0;
    }

    /** @return the pairs of a left and a right row that firing windows looked at (counted, for the cost tests). */
    long pairChecks()
    {
        return operator.pairChecks;
    }

    @Override
    public void onWatermark(final Side side, final long watermark, final long step)
    {
        operator.onWatermark(side, watermark, step);
    }

    @Override
    public void onWatermark(final long watermark, final long step)
    {
        operator.onWatermark(watermark, step);
    }

    @Override
    public void onIdle(final Side side, final long step)
    {
        operator.onIdle(side, step);
    }

    @Override
    public void onEndOfInput(final long step)
    {
        operator.onEndOfInput(step);
    }

    @Override
    public OperatorCounters counters()
    {
        return operator.counters();
    }

    @Override
    public boolean durable()
    {
        return operator.durable();
    }

    @Override
    public void persist() throws java.io.IOException
    {
        operator.persist();
    }

    @Override
    public void close()
    {
        operator.close();
    }

    @Override
    public void discard()
    {
        operator.discard();
    }
}
