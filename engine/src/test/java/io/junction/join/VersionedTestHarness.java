package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.Side;

/**
 * Drives one temporal or lookup join event by event, as a replay would (steps 0, 1, 2...), over
 * {@link IntervalTestRows}'s schema ({@code k, id, v}) joined on {@code k}: outputs and dead letters are
 * recorded by row label.
 */
final class VersionedTestHarness extends OperatorTestHarness<VersionedTestHarness.Out>
{
    /** One output row. {@code left} / {@code right} are row labels, null when padded. */
    record Out(long step, ChangeKind kind, String left, String right, long ts) implements Recorded
    {
        /** @return {@code "+I L R"} with {@code null} for a padded side. */
        @Override
        public String text()
        {
            return kind.shortString() + ' ' + left + ' ' + right;
        }

        @Override
        public String toString()
        {
            return "step " + step + ": " + text() + " ts=" + ts;
        }
    }

    VersionedTestHarness(final JoinSpec spec)
    {
        this(spec, SMALL_STATE);
    }

    VersionedTestHarness(final JoinSpec spec, final StateConfig config)
    {
        super(spec, config);
    }

    /** @return a spec builder over {@link IntervalTestRows#SCHEMA} joining on {@code k}. */
    static JoinSpec.Builder spec(final JoinKind kind, final JoinType type)
    {
        return JoinSpec.builder(kind, type).schemas(IntervalTestRows.SCHEMA, IntervalTestRows.SCHEMA).leftKey("k").rightKey("k");
    }

    static VersionedTestHarness of(final JoinKind kind, final JoinType type)
    {
        return new VersionedTestHarness(spec(kind, type).build());
    }

    /** Feeds a right row with a change kind ({@code "+I"}, {@code "+U"}, {@code "-U"}, {@code "-D"}); @return its step. */
    long right(final String op, final long ts, final Object k, final String id, final Object v)
    {
        return row(Side.RIGHT, ChangeKind.fromShortString(op), ts, k, id, v);
    }

    @Override
    public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long timestamp, final long step)
    {
        out.add(new Out(step, kind, IntervalTestRows.idOf(left), IntervalTestRows.idOf(right), timestamp));
    }
}
