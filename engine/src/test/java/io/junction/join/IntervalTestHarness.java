package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowView;

/**
 * Drives one interval join ({@link IntervalJoin} on its {@link OperatorDriver}) event by event, as a replay would: each call is one input line and
 * gets the next step (0, 1, 2...). Records every output and dead letter, decoded to row labels
 * ({@link IntervalTestRows#idOf}).
 */
final class IntervalTestHarness extends OperatorTestHarness<IntervalTestHarness.Out>
{
    /** One output row. {@code left} / {@code right} are row labels, null when padded. */
    record Out(long step, ChangeKind kind, String left, String right, long ts) implements Recorded
    {
        /** @return {@code "+I L R"} with {@code null} for a padded side: what tests compare within a step. */
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

    final JoinOperator join;

    IntervalTestHarness(final JoinSpec spec)
    {
        this(spec, SMALL_STATE);
    }

    IntervalTestHarness(final JoinSpec spec, final StateConfig config)
    {
        super(spec, config);
        this.join = operator();
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

}
