package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.CoGroupBuiltin;
import io.junction.api.CoGroupFunction;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.api.WindowSpec;
import io.junction.testing.Rows;

/**
 * Drives one window coGroup operator event by event, as {@link WindowTestHarness} drives a window join:
 * records every output with its window by row label ({@link IntervalTestRows}'s {@code k, id, v}), and a
 * computed row in its canonical text ({@link Rows#format(Schema, RowView)}).
 */
final class CoGroupTestHarness extends OperatorTestHarness<CoGroupTestHarness.Out>
{
    /** One output: row labels (null for none), the computed row's text (null for none) and the window {@code [start, end)}. */
    record Out(long step, String left, String right, String row, long start, long end) implements Recorded
    {
        /** @return {@code "L R [start,end)"} or {@code "L R {row} [start,end)"}. */
        @Override
        public String text()
        {
            return left + " " + right + (row == null ? "" : " " + row) + " [" + start + ',' + end + ')';
        }

        @Override
        public String toString()
        {
            return step + ": " + text();
        }
    }

    private final Schema output;

    CoGroupTestHarness(final JoinSpec spec)
    {
        this(spec, SMALL_STATE);
    }

    CoGroupTestHarness(final JoinSpec spec, final StateConfig config)
    {
        super(spec, config);
        this.output = spec.coGroupSchema();
    }

    /** @return a window coGroup over {@link IntervalTestRows#SCHEMA} on {@code k}, not yet given its function. */
    static JoinSpec.Builder spec(final JoinType type, final WindowSpec window)
    {
        return JoinSpec.builder(JoinKind.WINDOW, type)
            .schemas(IntervalTestRows.SCHEMA, IntervalTestRows.SCHEMA)
            .leftKey("k").rightKey("k")
            .window(window);
    }

    static CoGroupTestHarness of(final JoinType type, final WindowSpec window, final CoGroupBuiltin builtin)
    {
        return new CoGroupTestHarness(spec(type, window).coGroup(builtin).build());
    }

    static CoGroupTestHarness of(final JoinType type, final WindowSpec window, final CoGroupFunction function, final Schema output)
    {
        return new CoGroupTestHarness(spec(type, window).coGroup(function, output).build());
    }

    @Override
    public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long timestamp, final long step)
    {
        throw new AssertionError("a coGroup output without a window: " + IntervalTestRows.idOf(left) + " " + IntervalTestRows.idOf(right));
    }

    @Override
    public void onWindowResult(
        final ChangeKind kind, final RowView left, final RowView right, final long windowStart, final long windowEnd,
        final long step)
    {
        if (kind != ChangeKind.INSERT)
        {
            throw new AssertionError("a coGroup output that is not +I: " + kind);
        }
        out.add(new Out(step, IntervalTestRows.idOf(left), IntervalTestRows.idOf(right), null, windowStart, windowEnd));
    }

    @Override
    public void onCoGroupResult(
        final RowView left, final RowView right, final RowView row, final long windowStart, final long windowEnd, final long step)
    {
        out.add(new Out(step, IntervalTestRows.idOf(left), IntervalTestRows.idOf(right), Rows.format(output, row),
            windowStart, windowEnd));
    }
}
