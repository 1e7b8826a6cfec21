package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.WindowSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Drives one {@link WindowJoin} event by event, as a replay would: each call is one input line and
 * gets the next step (0, 1, 2...). Records every output with its window and every dead letter,
 * decoded to row labels ({@link IntervalTestRows#idOf}; rows are {@link IntervalTestRows}'s
 * {@code k, id, v}).
 */
final class WindowTestHarness extends OperatorTestHarness
{
    static final StateConfig SMALL_STATE = StateConfig.defaults().withMaxKeys(4096);

    /** Marks an output that came through {@link #onResult} without a window. */
    static final long NO_WINDOW = Long.MIN_VALUE;

    /** One output row. {@code left} / {@code right} are row labels, null when padded; the window is {@code [start, end)}. */
    record Out(long step, ChangeKind kind, String left, String right, long start, long end)
    {
        /** @return {@code "+I L R [start,end)"}, {@code null} for a padded side: what tests compare within a step. */
        String text()
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

    final WindowJoin join;
    final List<Out> out = new ArrayList<>();

    WindowTestHarness(final JoinSpec spec)
    {
        this(spec, SMALL_STATE);
    }

    WindowTestHarness(final JoinSpec spec, final StateConfig config)
    {
        super(spec, config);
        this.join = (WindowJoin) operator();
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

    /** @return the outputs of one step as sorted {@link Out#text()} lines (order within a step is free). */
    List<String> at(final long step)
    {
        return out.stream().filter(o -> o.step() == step).map(Out::text).sorted().collect(Collectors.toList());
    }

    /** @return every output as {@code "step: +I L R [start,end)"}, sorted by step then text. */
    List<String> all()
    {
        return out.stream()
            .sorted((a, b) -> a.step() != b.step() ? Long.compare(a.step(), b.step()) : a.text().compareTo(b.text()))
            .map(Out::toString)
            .collect(Collectors.toList());
    }

}
