package io.junction.testing;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinSpec;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.join.JoinOperator;
import io.junction.join.JoinOperators;
import io.junction.join.StateConfig;
import io.junction.metrics.OperatorCounters;

import java.util.List;

/**
 * The one operator test harness: drives one join operator (any kind, made by {@link JoinOperators#create})
 * event by event on the calling thread, as a replay would, numbering events as steps 0, 1, ... and
 * returning the outputs each event produced; every output and dead letter is also collected, decoded.
 *
 * <p>It lives in {@code io.junction.testing} with the collectors it uses, because it needs nothing
 * package-private (it makes the operator through the public {@link JoinOperators}) and the engine's
 * tests of every package (api, join, runtime) can then use it. Tests that want the
 * outputs in another shape (the interval and window tests record row labels and windows, see
 * {@code io.junction.join.OperatorTestHarness}) pass their own handlers as listeners: each output and
 * dead letter reaches the listener too, with the operator's original flyweights and window.
 */
public final class JoinHarness implements AutoCloseable
{
    private final JoinSpec spec;
    private final CollectingResultHandler results;
    private final CollectingDeadLetterHandler deadLetters;
    private final JoinOperator operator;
    private long step;

    public JoinHarness(final JoinSpec spec, final StateConfig config)
    {
        this(spec, config, null, null);
    }

    /**
     * @param resultListener     also gets every output (window outputs through {@link ResultHandler#onWindowResult}), or null.
     * @param deadLetterListener also gets every dead letter, or null.
     */
    public JoinHarness(
        final JoinSpec spec, final StateConfig config, final ResultHandler resultListener, final DeadLetterHandler deadLetterListener)
    {
        this.spec = spec;
        this.results = new CollectingResultHandler(spec.leftSchema(), spec.rightSchema());
        this.deadLetters = new CollectingDeadLetterHandler(spec.leftSchema(), spec.rightSchema());
        this.operator = JoinOperators.create(
            spec, config,
            resultListener == null ? results : new TeeResults(results, resultListener),
            deadLetterListener == null ? deadLetters : new TeeDeadLetters(deadLetters, deadLetterListener));
    }

    /** Feeds a left row ({@code op} as {@code "+I"}, {@code "-D"}, ...) at ts 0. */
    public List<Output> left(final String op, final Object... nameValues)
    {
        return row(Side.LEFT, op, 0, nameValues);
    }

    /** Feeds a right row at ts 0. */
    public List<Output> right(final String op, final Object... nameValues)
    {
        return row(Side.RIGHT, op, 0, nameValues);
    }

    /** Feeds a left row with its event time. */
    public List<Output> leftAt(final long ts, final String op, final Object... nameValues)
    {
        return row(Side.LEFT, op, ts, nameValues);
    }

    /** Feeds a right row with its event time. */
    public List<Output> rightAt(final long ts, final String op, final Object... nameValues)
    {
        return row(Side.RIGHT, op, ts, nameValues);
    }

    /** Feeds a row of one side. */
    public List<Output> row(final Side side, final String op, final long ts, final Object... nameValues)
    {
        final ChangeKind kind = ChangeKind.fromShortString(op);
        if (kind == null)
        {
            throw new IllegalArgumentException("unknown op " + op);
        }
        return row(side, kind, Rows.row(spec.schema(side), nameValues), ts);
    }

    /** Feeds a prepared row. */
    public List<Output> row(final Side side, final ChangeKind kind, final RowView row, final long ts)
    {
        final int from = results.size();
        operator.onRow(side, kind, row, ts, step++);
        return results.since(from);
    }

    /** Advances both inputs' watermarks. */
    public List<Output> watermark(final long watermark)
    {
        final int from = results.size();
        operator.onWatermark(watermark, step++);
        return results.since(from);
    }

    /** Advances one input's watermark. */
    public List<Output> watermark(final Side side, final long watermark)
    {
        final int from = results.size();
        operator.onWatermark(side, watermark, step++);
        return results.since(from);
    }

    /** Marks one input idle. */
    public List<Output> idle(final Side side)
    {
        final int from = results.size();
        operator.onIdle(side, step++);
        return results.since(from);
    }

    /** Signals the end of input. */
    public List<Output> endOfInput()
    {
        final int from = results.size();
        operator.onEndOfInput(step++);
        return results.since(from);
    }

    public JoinOperator operator()
    {
        return operator;
    }

    public JoinSpec spec()
    {
        return spec;
    }

    public CollectingResultHandler results()
    {
        return results;
    }

    public CollectingDeadLetterHandler deadLetters()
    {
        return deadLetters;
    }

    public OperatorCounters counters()
    {
        return operator.counters();
    }

    /** @return the step the next event will get. */
    public long nextStep()
    {
        return step;
    }

    @Override
    public void close()
    {
        operator.close();
    }

    /** Collects an output, then hands it to the listener; a window output reaches the listener with its window. */
    private record TeeResults(CollectingResultHandler collector, ResultHandler listener) implements ResultHandler
    {
        @Override
        public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long timestamp, final long step)
        {
            collector.onResult(kind, left, right, timestamp, step);
            listener.onResult(kind, left, right, timestamp, step);
        }

        @Override
        public void onWindowResult(
            final ChangeKind kind, final RowView left, final RowView right, final long windowStart, final long windowEnd,
            final long step)
        {
            collector.onWindowResult(kind, left, right, windowStart, windowEnd, step);
            listener.onWindowResult(kind, left, right, windowStart, windowEnd, step);
        }

        @Override
        public void onCoGroupResult(
            final RowView left, final RowView right, final RowView row, final long windowStart, final long windowEnd,
            final long step)
        {
            collector.onCoGroupResult(left, right, row, windowStart, windowEnd, step);
            listener.onCoGroupResult(left, right, row, windowStart, windowEnd, step);
        }
    }

    private record TeeDeadLetters(CollectingDeadLetterHandler collector, DeadLetterHandler listener) implements DeadLetterHandler
    {
        @Override
        public void onDeadLetter(
            final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final DeadLetterReason reason)
        {
            collector.onDeadLetter(side, kind, row, ts, step, reason);
            listener.onDeadLetter(side, kind, row, ts, step, reason);
        }
    }
}
