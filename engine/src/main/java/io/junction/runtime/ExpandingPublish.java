package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.RowView;
import io.junction.api.Side;
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
    private final RowExpander left;
    private final RowExpander right;
    /** The standalone kind checks its rows here: true when {@link #left} only checks. */
    private final boolean checkOnly;
    private final Router router;

    private Side side;
    private ChangeKind kind;
    private long ts;
    private long step;
    private long ingestNanos;
    private boolean wait;
    private int target;
    private int code;
    private int made;
    private long produced;
    private long emptied;
    private long failed;

    private ExpandingPublish(final RowExpander left, final RowExpander right, final boolean checkOnly, final Router router)
    {
        this.left = left;
        this.right = right;
        this.checkOnly = checkOnly;
        this.router = router;
    }

    /** @return the expansion of a spec, or null when it expands nothing. */
    static ExpandingPublish of(final JoinSpec spec, final int slotCapacity, final Router router)
    {
        if (spec.kind() == JoinKind.EXPAND)
        {
            return new ExpandingPublish(
                new RowExpander(spec.expand(), spec.leftSchema(), slotCapacity, false, true), null, true, router);
        }
        final RowExpander left = expander(spec, Side.LEFT, slotCapacity);
        final RowExpander right = expander(spec, Side.RIGHT, slotCapacity);
        return left == null && right == null ? null : new ExpandingPublish(left, right, false, router);
    }

    private static RowExpander expander(final JoinSpec spec, final Side side, final int slotCapacity)
    {
        return spec.expansion(side) == null ? null
            : new RowExpander(spec.expansion(side), spec.schema(side), slotCapacity, spec.expansion(side).outer(), false);
    }

    /** @return whether rows of this side are expanded (or, standalone, checked) here. */
    boolean expands(final Side side)
    {
        return checkOnly || (side == Side.LEFT ? left : right) != null;
    }

    /** @return the rows made from published input rows so far (the standalone kind: counted by its partitions). */
    long producedRows()
    {
        return produced;
    }

    /** @return the input rows that made no row. */
    long emptyInputs()
    {
        return emptied;
    }

    /** @return the input rows refused because their expansion failed. */
    long failedInputs()
    {
        return failed;
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
            failed++;
            refusal.setLength(0);
            refusal.append("an expand join has one input: its rows are left rows");
            return Publisher.EXPANSION_FAILED;
        }
        final RowExpander expander = side == Side.LEFT ? left : right;
        this.side = side;
        this.kind = kind;
        this.ts = ts;
        this.step = step;
        this.ingestNanos = ingestNanos;
        this.wait = wait;
        this.target = target;
        this.code = Publisher.PUBLISHED;
        this.made = 0;
        final int rows = expander.expand(row, this);
        if (rows == RowExpander.BAD_INPUT || rows == RowExpander.TOO_LARGE)
        {
            failed++;
            refusal.setLength(0);
            refusal.append(expander.failure());
            return rows == RowExpander.BAD_INPUT ? Publisher.EXPANSION_FAILED : Publisher.ROW_TOO_LARGE;
        }
        if (rows == RowExpander.STOPPED)
        {
            return code;
        }
        if (checkOnly)
        {
            return router.publish(side, kind, row, row.buffer(), row.offset(), row.length(), ts, step, ingestNanos, wait, target);
        }
        if (rows == 0)
        {
            emptied++;
        }
        produced += rows;
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
        final int result = router.publish(side, kind, row, row.buffer(), row.offset(), row.length(), ts, step, ingestNanos,
            wait || made > 0, target);
        made++;
        if (result != Publisher.PUBLISHED)
        {
            code = result;
            return false;
        }
        return true;
    }
}
