package io.junction.testing;

import io.junction.api.ChangeKind;
import io.junction.api.JoinSpec;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.join.JoinOperator;
import io.junction.join.JoinOperators;
import io.junction.join.StateConfig;
import io.junction.metrics.OperatorCounters;

import java.util.List;

/**
 * Drives one join operator event by event on the calling thread, numbering events as steps 0, 1, ...
 * and returning the outputs each event produced.
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
        this.spec = spec;
        this.results = new CollectingResultHandler(spec.leftSchema(), spec.rightSchema());
        this.deadLetters = new CollectingDeadLetterHandler(spec.leftSchema(), spec.rightSchema());
        this.operator = JoinOperators.create(spec, config, results, deadLetters);
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
}
