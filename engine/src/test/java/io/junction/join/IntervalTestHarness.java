package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowView;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Drives one {@link IntervalJoin} event by event, as a replay would: each call is one input line and
 * gets the next step (0, 1, 2...). Records every output and dead letter, decoded to row labels
 * ({@link IntervalTestRows#idOf}).
 */
final class IntervalTestHarness extends OperatorTestHarness
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

    final IntervalJoin join;
    final List<Out> out = new ArrayList<>();

    IntervalTestHarness(final JoinSpec spec)
    {
        this(spec, SMALL_STATE);
    }

    IntervalTestHarness(final JoinSpec spec, final StateConfig config)
    {
        super(spec, config);
        this.join = (IntervalJoin) operator();
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

}
