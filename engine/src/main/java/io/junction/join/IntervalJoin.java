package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.JoinSpec;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;

/** The interval join (SPEC 2.2). Work in progress. */
public final class IntervalJoin extends AbstractJoin
{
    public IntervalJoin(
        final JoinSpec spec, final StateConfig config, final ResultHandler results, final DeadLetterHandler deadLetters)
    {
        super(spec, config, results, deadLetters);
    }

    @Override
    public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        throw new UnsupportedOperationException("interval join: work in progress");
    }

    @Override
    void onJoinWatermark(final long watermark, final long step)
    {
    }

    @Override
    public void onEndOfInput(final long step)
    {
    }
}
