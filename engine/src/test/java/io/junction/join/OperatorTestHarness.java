package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinSpec;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.metrics.OperatorCounters;
import io.junction.testing.JoinHarness;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The interval and window tests' view of the one operator harness, {@link JoinHarness}: it drives the
 * events (one step each, 0, 1, 2..., as a replay would) and this layer only adds what those tests
 * share: rows of {@link IntervalTestRows}'s schema ({@code k, id, v}) fed by label, calls that return
 * the event's step, outputs and dead letters recorded by row label, and reading the outputs by step.
 * Subclasses record outputs in their own shape {@code O} (the window join's carry their window): they
 * are the harness's result listener.
 *
 * @param <O> one recorded output.
 */
abstract class OperatorTestHarness<O extends OperatorTestHarness.Recorded> implements AutoCloseable, DeadLetterHandler, ResultHandler
{
    static final StateConfig SMALL_STATE = StateConfig.defaults().withMaxKeys(4096);

    /** One recorded output as the tests compare it. */
    interface Recorded
    {
        long step();

        /** @return the output as text, what tests compare within a step, e.g. {@code "+I L1 R1"}. */
        String text();
    }

    /** One dead letter. */
    record Dead(long step, Side side, ChangeKind kind, String id, long ts, DeadLetterReason reason)
    {
    }

    final List<Dead> dead = new ArrayList<>();
    final List<O> out = new ArrayList<>();
    private final JoinHarness harness;

    OperatorTestHarness(final JoinSpec spec, final StateConfig config)
    {
        // Nothing reaches the handlers while the operator is made, so the subclass's fields are ready in time.
        this.harness = new JoinHarness(spec, config, this, this);
    }

    /** @return the operator under test. */
    final JoinOperator operator()
    {
        return harness.operator();
    }

    /** @return the harness driving it, with every output and dead letter decoded. */
    final JoinHarness harness()
    {
        return harness;
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
        final long s = harness.nextStep();
        harness.row(side, kind, IntervalTestRows.row(k, id, v), ts);
        return s;
    }

    /** A watermark on both inputs; @return its step. */
    long watermark(final long watermark)
    {
        final long s = harness.nextStep();
        harness.watermark(watermark);
        return s;
    }

    /** A watermark on one input; @return its step. */
    long watermark(final Side side, final long watermark)
    {
        final long s = harness.nextStep();
        harness.watermark(side, watermark);
        return s;
    }

    /** Marks one input idle; @return its step. */
    long idle(final Side side)
    {
        final long s = harness.nextStep();
        harness.idle(side);
        return s;
    }

    /** The end of input; @return its step (the number of lines before it). */
    long end()
    {
        final long s = harness.nextStep();
        harness.endOfInput();
        return s;
    }

    /** @return the outputs of one step as sorted {@link Recorded#text()} lines (order within a step is free). */
    final List<String> at(final long step)
    {
        return out.stream().filter(o -> o.step() == step).map(Recorded::text).sorted().collect(Collectors.toList());
    }

    /** @return every output as {@code "step: text"}, sorted by step then text. */
    final List<String> all()
    {
        return out.stream()
            .sorted((a, b) -> a.step() != b.step() ? Long.compare(a.step(), b.step()) : a.text().compareTo(b.text()))
            .map(o -> o.step() + ": " + o.text())
            .collect(Collectors.toList());
    }

    OperatorCounters counters()
    {
        return harness.counters();
    }

    @Override
    public void close()
    {
        harness.close();
    }
}
