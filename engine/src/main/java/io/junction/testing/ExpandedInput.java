package io.junction.testing;

import io.junction.api.ChangeKind;
import io.junction.api.Expansion;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.row.RowExpander;
import io.junction.join.JoinOperator;

/**
 * One input's row expansion in the {@link JoinTestDriver} (docs/SEMANTICS.md 12), as the engine's publisher does
 * it: before a join, each made row reaches the operator as a row of that input with the input row's kind, time
 * and step; for the standalone kind the input row is only checked here and the operator expands it. A row
 * whose expansion fails reaches nothing.
 */
final class ExpandedInput implements RowExpander.Sink
{
    private final RowExpander expander;
    private final JoinOperator operator;
    private final int input;
    private final boolean multi;
    private final boolean checkOnly;
    private ChangeKind kind;
    private long ts;
    private long step;

    private ExpandedInput(final RowExpander expander, final JoinOperator operator, final int input, final boolean multi,
        final boolean checkOnly)
    {
        this.expander = expander;
        this.operator = operator;
        this.input = input;
        this.multi = multi;
        this.checkOnly = checkOnly;
    }

    /**
     * @param spec         the join.
     * @param input        the input (a side's ordinal for a two-input join).
     * @param slotCapacity the largest row a made row may be.
     * @param operator     the operator the made rows go to.
     * @return the input's expansion, or null when the spec expands none of its rows.
     */
    static ExpandedInput of(final JoinSpec spec, final int input, final int slotCapacity, final JoinOperator operator)
    {
        if (spec.kind() == JoinKind.EXPAND)
        {
            return input != 0 ? null
                : new ExpandedInput(new RowExpander(spec.expand(), spec.leftSchema(), slotCapacity, false, true), operator, 0, false, true);
        }
        final boolean multi = spec.kind() == JoinKind.MULTI;
        final Expansion expansion = multi ? spec.multi().expansion(input) : spec.expansion(Side.of(input));
        if (expansion == null)
        {
            return null;
        }
        return new ExpandedInput(new RowExpander(expansion, multi ? spec.multi().schema(input) : spec.schema(Side.of(input)),
            slotCapacity, expansion.outer(), false), operator, input, multi, false);
    }

    /**
     * Expands one checked row into the operator (the standalone kind: checks it, then hands it over whole).
     *
     * @return the rows it made, or {@link RowExpander#BAD_INPUT} / {@link RowExpander#TOO_LARGE} ({@link #failure()}
     *         says why) when nothing of it reached the operator.
     */
    int feed(final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        this.kind = kind;
        this.ts = ts;
        this.step = step;
        final int made = expander.expand(row, this);
        if (made >= 0 && checkOnly)
        {
            operator.onRow(Side.LEFT, kind, row, ts, step);
        }
        return made;
    }

    /** @return why the last row's expansion failed. */
    CharSequence failure()
    {
        return expander.failure();
    }

    @Override
    public boolean onRow(final RowView row, final int ordinal)
    {
        if (checkOnly)
        {
            return true;
        }
        if (multi)
        {
            operator.onInputRow(input, kind, row, ts, step);
        }
        else
        {
            operator.onRow(Side.of(input), kind, row, ts, step);
        }
        return true;
    }
}
