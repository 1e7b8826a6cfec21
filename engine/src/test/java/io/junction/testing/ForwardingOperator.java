package io.junction.testing;

import io.junction.api.ChangeKind;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.join.JoinOperator;
import io.junction.metrics.OperatorCounters;

/**
 * A join operator that forwards every call to another: runtime tests subclass it to break, record or
 * block one call of a real operator.
 */
public class ForwardingOperator implements JoinOperator
{
    /** The operator every call goes to unless a subclass overrides it. */
    protected final JoinOperator delegate;

    public ForwardingOperator(final JoinOperator delegate)
    {
        this.delegate = delegate;
    }

    @Override
    public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        delegate.onRow(side, kind, row, ts, step);
    }

    @Override
    public void prefetch(final long keyHash)
    {
        delegate.prefetch(keyHash);
    }

    @Override
    public void onWatermark(final Side side, final long watermark, final long step)
    {
        delegate.onWatermark(side, watermark, step);
    }

    @Override
    public void onWatermark(final long watermark, final long step)
    {
        delegate.onWatermark(watermark, step);
    }

    @Override
    public void onIdle(final Side side, final long step)
    {
        delegate.onIdle(side, step);
    }

    @Override
    public void onEndOfInput(final long step)
    {
        delegate.onEndOfInput(step);
    }

    @Override
    public OperatorCounters counters()
    {
        return delegate.counters();
    }

    @Override
    public void close()
    {
        delegate.close();
    }
}
