package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.metrics.OperatorCounters;

import java.util.ArrayList;
import java.util.List;

/**
 * What the operator test harnesses share: feeding rows of {@link IntervalTestRows}'s schema
 * ({@code k, id, v}), watermarks and the end of input one step at a time (0, 1, 2...), as a replay
 * would, and recording dead letters by row label. Subclasses create the operator with themselves as
 * its handlers and record outputs in their own shape.
 */
abstract class OperatorTestHarness implements AutoCloseable, DeadLetterHandler
{
    /** One dead letter. */
    record Dead(long step, Side side, ChangeKind kind, String id, long ts, DeadLetterReason reason)
    {
    }

    final List<Dead> dead = new ArrayList<>();
    private long step;

    /** @return the operator under test. */
    abstract JoinOperator operator();

    @Override
    public void onDeadLetter(
        final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final DeadLetterReason reason)
    {
        dead.add(new Dead(step, side, kind, IntervalTestRows.idOf(row), ts, reason));
    }

    long left(final long ts, final Object k, final String id)
    {
        return row(Side.LEFT, ChangeKind.INSERT, ts, k, id, IntervalTestRows.ABSENT);
    }

    long left(final long ts, final Object k, final String id, final Object v)
    {
        return row(Side.LEFT, ChangeKind.INSERT, ts, k, id, v);
    }

    long right(final long ts, final Object k, final String id)
    {
        return row(Side.RIGHT, ChangeKind.INSERT, ts, k, id, IntervalTestRows.ABSENT);
    }

    long right(final long ts, final Object k, final String id, final Object v)
    {
        return row(Side.RIGHT, ChangeKind.INSERT, ts, k, id, v);
    }

    /** Feeds one row; @return its step. */
    long row(final Side side, final ChangeKind kind, final long ts, final Object k, final String id, final Object v)
    {
        final long s = step++;
        operator().onRow(side, kind, IntervalTestRows.row(k, id, v), ts, s);
        return s;
    }

    /** A watermark on both inputs; @return its step. */
    long watermark(final long watermark)
    {
        final long s = step++;
        operator().onWatermark(watermark, s);
        return s;
    }

    /** A watermark on one input; @return its step. */
    long watermark(final Side side, final long watermark)
    {
        final long s = step++;
        operator().onWatermark(side, watermark, s);
        return s;
    }

    /** Marks one input idle; @return its step. */
    long idle(final Side side)
    {
        final long s = step++;
        operator().onIdle(side, s);
        return s;
    }

    /** The end of input; @return its step (the number of lines before it). */
    long end()
    {
        final long s = step++;
        operator().onEndOfInput(s);
        return s;
    }

    OperatorCounters counters()
    {
        return operator().counters();
    }

    @Override
    public void close()
    {
        operator().close();
    }
}
