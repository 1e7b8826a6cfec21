package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.WindowSpec;

/**
 * Drives one window join ({@link TimeWindowJoin} or {@link SessionWindowJoin} on its {@link OperatorDriver}) event by event, as a replay would: each call is one input line and
 * gets the next step (0, 1, 2...). Records every output with its window and every dead letter,
 * decoded to row labels ({@link IntervalTestRows#idOf}; rows are {@link IntervalTestRows}'s
 * {@code k, id, v}).
 */
final class WindowTestHarness extends OperatorTestHarness<WindowTestHarness.Out>
{
    /** Marks an output that came through {@link #onResult} without a window. */
    static final long NO_WINDOW = Long.MIN_VALUE;

    /** One output row. {@code left} / {@code right} are row labels, null when padded; the window is {@code [start, end)}. */
    record Out(long step, ChangeKind kind, String left, String right, long start, long end) implements Recorded
    {
        /** @return {@code "+I L R [start,end)"}, {@code null} for a padded side: what tests compare within a step. */
        @Override
        public String text()
        {
            return kind.shortString() + ' ' + left + ' ' + right + (start == NO_WINDOW && end == NO_WINDOW ?
                " <no window>" : " [" + start + ',' + end + ')');
        }

        @Override
        public String toString()
        {
            return step + ": " + text();
        }
    }

    /** The window algorithm's own measures, for the cost tests. */
    final Measures join;

    /** What a window algorithm counts besides the operator's counters. */
    static final class Measures
    {
        private final JoinAlgorithm algorithm;

        Measures(final JoinOperator operator)
        {
            this.algorithm = ((OperatorDriver)operator).algorithm();
        }

        /** @return session windows: the rows whose merged session needed the key's rows gathered and sorted; else 0. */
        long sessionGathers()
        {
            return algorithm instanceof SessionWindowJoin ? ((SessionWindowJoin)algorithm).gathers() : 0;
        }

        /** @return the pairs of a left and a right row that firing windows looked at. */
        long pairChecks()
        {
            return ((WindowAlgorithm)algorithm).buckets().pairChecks();
        }
    }

    WindowTestHarness(final JoinSpec spec)
    {
        this(spec, SMALL_STATE);
    }

    WindowTestHarness(final JoinSpec spec, final StateConfig config)
    {
        super(spec, config);
        this.join = new Measures(operator());
    }

    /** @return a spec builder over {@link IntervalTestRows#SCHEMA} joining on {@code k} over {@code window}. */
    static JoinSpec.Builder spec(final JoinType type, final WindowSpec window)
    {
        return JoinSpec.builder(JoinKind.WINDOW, type)
            .schemas(IntervalTestRows.SCHEMA, IntervalTestRows.SCHEMA)
            .leftKey("k").rightKey("k")
            .window(window);
    }

    static WindowTestHarness tumbling(final JoinType type, final long size, final long offset)
    {
        return new WindowTestHarness(spec(type, WindowSpec.tumbling(size, offset)).build());
    }

    static WindowTestHarness sliding(final JoinType type, final long size, final long slide)
    {
        return new WindowTestHarness(spec(type, WindowSpec.sliding(size, slide, 0)).build());
    }

    static WindowTestHarness session(final JoinType type, final long gap)
    {
        return new WindowTestHarness(spec(type, WindowSpec.session(gap)).build());
    }

    @Override
    public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long timestamp, final long step)
    {
        // A window join must report its window: an output without one shows up as "<no window>".
        out.add(new Out(step, kind, IntervalTestRows.idOf(left), IntervalTestRows.idOf(right), NO_WINDOW, NO_WINDOW));
    }

    @Override
    public void onWindowResult(
        final ChangeKind kind, final RowView left, final RowView right, final long windowStart, final long windowEnd,
        final long step)
    {
        out.add(new Out(step, kind, IntervalTestRows.idOf(left), IntervalTestRows.idOf(right), windowStart, windowEnd));
    }

}
