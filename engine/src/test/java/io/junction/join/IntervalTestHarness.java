package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.metrics.JoinCounters;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Drives one {@link IntervalJoin} event by event, as a replay would: each call is one input line and
 * gets the next step (0, 1, 2...). Records every output and dead letter, decoded to row labels
 * ({@link IntervalTestRows#idOf}).
 */
final class IntervalTestHarness implements AutoCloseable, ResultHandler, DeadLetterHandler
{
    static final StateConfig SMALL_STATE = StateConfig.defaults().withMaxKeys(4096);

    /** One output row. {@code left} / {@code right} are row labels, null when padded. */
    record Out(long step, ChangeKind kind, String left, String right, long ts)
    {
        /** @return {@code "+I L R"} with {@code null} for a padded side: what tests compare within a step. */
        String text()
        {
            return kind.shortString() + ' ' + left + ' ' + right;
        }

        @Override
        public String toString()
        {
            return "step " + step + ": " + text() + " ts=" + ts;
        }
    }

    /** One dead letter. */
    record Dead(long step, Side side, ChangeKind kind, String id, long ts, DeadLetterReason reason)
    {
    }

    final IntervalJoin join;
    final List<Out> out = new ArrayList<>();
    final List<Dead> dead = new ArrayList<>();
    private long step;

    IntervalTestHarness(final JoinSpec spec)
    {
        this(spec, SMALL_STATE);
    }

    IntervalTestHarness(final JoinSpec spec, final StateConfig config)
    {
        this.join = new IntervalJoin(spec, config, this, this);
    }

    /** @return a spec builder over {@link IntervalTestRows#SCHEMA} joining on {@code k}, interval {@code [lower, upper]}. */
    static JoinSpec.Builder spec(final JoinType type, final long lower, final long upper)
    {
        return spec(type, IntervalBounds.inclusive(lower, upper));
    }

    static JoinSpec.Builder spec(final JoinType type, final IntervalBounds bounds)
    {
        return JoinSpec.builder(JoinKind.INTERVAL, type)
            .schemas(IntervalTestRows.SCHEMA, IntervalTestRows.SCHEMA)
            .leftKey("k").rightKey("k")
            .interval(bounds);
    }

    static IntervalTestHarness of(final JoinType type, final long lower, final long upper)
    {
        return new IntervalTestHarness(spec(type, lower, upper).build());
    }

    @Override
    public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long timestamp, final long step)
    {
        out.add(new Out(step, kind, IntervalTestRows.idOf(left), IntervalTestRows.idOf(right), timestamp));
    }

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
        join.onRow(side, kind, IntervalTestRows.row(k, id, v), ts, s);
        return s;
    }

    /** A watermark on both inputs; @return its step. */
    long watermark(final long watermark)
    {
        final long s = step++;
        join.onWatermark(watermark, s);
        return s;
    }

    /** A watermark on one input; @return its step. */
    long watermark(final Side side, final long watermark)
    {
        final long s = step++;
        join.onWatermark(side, watermark, s);
        return s;
    }

    /** The end of input; @return its step (the number of lines before it). */
    long end()
    {
        final long s = step++;
        join.onEndOfInput(s);
        return s;
    }

    JoinCounters counters()
    {
        return join.counters();
    }

    /** @return the outputs of one step as sorted {@link Out#text()} lines (order within a step is free). */
    List<String> at(final long step)
    {
        return out.stream().filter(o -> o.step() == step).map(Out::text).sorted().collect(Collectors.toList());
    }

    /** @return every output as {@code "step: +I L R"}, sorted by step then text. */
    List<String> all()
    {
        return out.stream()
            .sorted((a, b) -> a.step() != b.step() ? Long.compare(a.step(), b.step()) : a.text().compareTo(b.text()))
            .map(o -> o.step() + ": " + o.text())
            .collect(Collectors.toList());
    }

    @Override
    public void close()
    {
        join.close();
    }
}
