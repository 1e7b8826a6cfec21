package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.Expansion;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.MultiJoinSpec;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.metrics.ExpansionCounters;
import io.junction.internal.row.RowExpander;

/**
 * The publisher's row expansion (docs/SEMANTICS.md, "Row expansion"): before a join, each input row of an
 * expanding side is replaced by the rows its expansion makes, each routed by its own key with the input
 * row's kind, time and step; for the standalone kind the input row is only checked here (its partition
 * expands it, so that its ON clause sees the row's whole expansion). A row that is a bad input is refused
 * before anything of it is claimed. Owned by the publisher's thread; allocation-free per row.
 * <p>
 * Only the first made row of a {@code tryPublish} may be refused for back-pressure (then nothing was
 * published); the rest wait for room, so that an input row is never half published. A refusal after the
 * first made row (a failed partition, a closed engine, a full state) leaves the rows before it published.
 */
final class ExpandingPublish implements RowExpander.Sink
{
    /** By input: a binary kind's side ordinal, or a multi-way join's input; null where the input is not expanded. */
    private final RowExpander[] expanders;
    /** The standalone kind checks its rows here: true when {@code expanders[0]} only checks. */
    private final boolean checkOnly;
    private final boolean multi;
    private final Router router;
    /** The engine's counts, summed over its publishers. */
    private final ExpansionCounters counters;

    private int input;
    private Side side;
    private ChangeKind kind;
    private long ts;
    private long step;
    private long ingestNanos;
    private boolean wait;
    private int target;
    private int code;
    private int made;

    private ExpandingPublish(final RowExpander[] expanders, final boolean checkOnly, final boolean multi, final Router router,
        final ExpansionCounters counters)
    {
        this.counters = counters;
        this.expanders = expanders;
        this.checkOnly = checkOnly;
        this.multi = multi;
        this.router = router;
    }

    /** @return the expansion of a spec, or null when it expands nothing. */
    static ExpandingPublish of(final JoinSpec spec, final int slotCapacity, final Router router, final ExpansionCounters counters)
    {
        if (spec.kind() == JoinKind.EXPAND)
        {
            return new ExpandingPublish(new RowExpander[] {
                new RowExpander(spec.expand(), spec.leftSchema(), slotCapacity, false, true), null}, true, false, router, counters);
        }
        final MultiJoinSpec multi = spec.multi();
        final int inputs = multi == null ? 2 : multi.inputs();
        final RowExpander[] expanders = new RowExpander[inputs];
        boolean any = false;
        for (int i = 0; i < inputs; i++)
        {
            final Expansion e = multi == null ? spec.expansion(Side.of(i)) : multi.expansion(i);
            if (e != null)
            {
                expanders[i] = new RowExpander(e, multi == null ? spec.schema(Side.of(i)) : multi.schema(i), slotCapacity,
                    e.outer(), false);
                any = true;
            }
        }
        return any ? new ExpandingPublish(expanders, false, multi != null, router, counters) : null;
    }

    /** @return whether rows of this input (a side's ordinal) are expanded (or, standalone, checked) here. */
    boolean expands(final int input)
    {
        return checkOnly || (input >= 0 && input < expanders.length && expanders[input] != null);
    }

    /**
     * Expands and routes one checked input row.
     *
     * @param refusal where the reason of a refused row is written.
     * @return {@link Publisher#PUBLISHED}, {@link Publisher#EXPANSION_FAILED}, {@link Publisher#ROW_TOO_LARGE},
     *         or the router's refusal.
     */
    int publish(
        final Side side, final ChangeKind kind, final RowView row, final long ts, final long step,
        final long ingestNanos, final boolean wait, final int target, final StringBuilder refusal)
    {
        if (checkOnly && side != Side.LEFT)
        {
            refusal.setLength(0);
            refusal.append("an expand join has one input: its rows are left rows");
            return Publisher.EXPANSION_FAILED;
        }
        final RowExpander expander = expanders[side.ordinal()];
        this.input = side.ordinal();
        this.side = side;
        this.kind = kind;
        this.ts = ts;
        this.step = step;
        this.ingestNanos = ingestNanos;
        this.wait = wait;
        this.target = target;
        this.code = Publisher.PUBLISHED;
        this.made = 0;
        return expand(expander, row, refusal);
    }

    /**
     * Expands and routes one checked row of a multi-way join's input.
     *
     * @param refusal where the reason of a refused row is written.
     * @return as {@link #publish}.
     */
    int publishInput(
        final int input, final ChangeKind kind, final RowView row, final long ts, final long step,
        final long ingestNanos, final int target, final StringBuilder refusal)
    {
        this.input = input;
        this.side = null;
        this.kind = kind;
        this.ts = ts;
        this.step = step;
        this.ingestNanos = ingestNanos;
        this.wait = true;
        this.target = target;
        this.code = Publisher.PUBLISHED;
        this.made = 0;
        return expand(expanders[input], row, refusal);
    }

    private int expand(final RowExpander expander, final RowView row, final StringBuilder refusal)
    {
        final int rows = expander.expand(row, this);
        if (rows == RowExpander.BAD_INPUT || rows == RowExpander.TOO_LARGE)
        {
            counters.refused();
            refusal.setLength(0);
            refusal.append(expander.failure());
            return rows == RowExpander.BAD_INPUT ? Publisher.EXPANSION_FAILED : Publisher.ROW_TOO_LARGE;
        }
        if (rows == RowExpander.STOPPED)
        {
            return code;
        }
        counters.expanded(rows);
        if (checkOnly)
        {
            return router.publish(side, kind, row, row.buffer(), row.offset(), row.length(), ts, step, ingestNanos, wait, target);
        }
        return Publisher.PUBLISHED;
    }

    @Override
    public boolean onRow(final RowView row, final int ordinal)
    {
        if (checkOnly)
        {
            return true;
        }
        // Only the first made row may be refused for back-pressure: nothing of the input row is out yet.
        final int result = multi
            ? router.publishInput(input, kind, row, row.buffer(), row.offset(), row.length(), ts, step, ingestNanos, target)
            : router.publish(side, kind, row, row.buffer(), row.offset(), row.length(), ts, step, ingestNanos, wait || made > 0, target);
        made++;
        if (result != Publisher.PUBLISHED)
        {
            code = result;
            return false;
        }
        return true;
    }
}
