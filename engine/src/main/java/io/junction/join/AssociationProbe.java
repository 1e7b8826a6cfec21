package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.state.RowGroup;

import static io.junction.join.JoinPredicate.UNMATCHABLE;

/**
 * A {@link RegularJoin}'s probe: joins a row with the matching stored rows of the other side and moves their
 * association counts (SEMANTICS 4), emitting the pairs and the padded or semi/anti lines the counts' crossing of
 * zero calls for.
 * <pre>
 * for each stored o of the other side O matching r (slot order of the key's group):
 *   semi/anti, r a right row: accumulate o.count++ (0 -&gt; 1: +l semi, -l anti); retract o.count-- (1 -&gt; 0: -l semi, +l anti)
 *   accumulate: if O is outer, o.count == 0 and o is not pending: -(o, null);  o.count++;  k(r, o)
 *   retract:    k(r, o);  o.count--;  if O is outer, o.count == 0 and o is not pending: +(o, null)
 * </pre>
 * A user condition that throws must not leave a row half applied (SEMANTICS 4.1): {@link #evaluate} runs the
 * row's pair conditions before the row has any effect, and keeps the results by slot for the probe that follows
 * in the same event, which does not ask again.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class AssociationProbe
{
    private final PartitionState state;
    private final JoinPredicate predicate;
    private final Emitter emit;
    private final boolean semiOrAnti;
    private final boolean semi;
    /** The spec has user pair conditions, which may throw: see {@link #evaluate}. */
    final boolean userConditions;
    /** Results of {@link #evaluate} by slot of the other side's group: the record and whether it matched. */
    private long[] checkedRecords = new long[16];
    private boolean[] checkedMatches = new boolean[16];
    /** Slots of {@link #checkedRecords} that are valid, 0 outside a row's processing. */
    private int checked;

    /** @param parts the join's parts. */
    AssociationProbe(final OperatorParts parts)
    {
        this.state = parts.state;
        this.predicate = parts.predicate;
        this.emit = parts.emit;
        this.semiOrAnti = parts.spec.type().isSemiOrAnti();
        this.semi = parts.spec.type() == JoinType.SEMI;
        this.userConditions = !parts.spec.pairConditions().isEmpty();
    }

    /**
     * Joins the row with the matching rows of the other side, updating their association counts.
     *
     * @param side       the row's side.
     * @param kind       its change kind.
     * @param row        the row.
     * @param ts         its event time.
     * @param step       its input sequence number.
     * @param keyLength  its join key's length (matchable).
     * @param bucket     the key's bucket.
     * @param accumulate whether the row accumulates (else it retracts).
     * @return how many rows of the other side the row matches.
     */
    int join(
        final Side side, final ChangeKind kind, final RowView row, final long ts, final long step,
        final int keyLength, final long bucket, final boolean accumulate)
    {
        final Side otherSide = side.other();
        final boolean otherOuter = emit.padsUnmatched(otherSide);
        final boolean updatesLeftRows = semiOrAnti && side == Side.RIGHT;
        final boolean retractions = otherOuter || emit.padsUnmatched(side);
        int matches = 0;
        final long rows = state.store.rows(bucket, otherSide.ordinal());
        final int slots = RowGroup.slots(rows);
        for (int i = 0; i < slots; i++)
        {
            if ((i & (RowGroup.TOUCH_GROUP - 1)) == 0 && slots > 1)
            {
                state.touch(rows, i, Math.min(slots, i + RowGroup.TOUCH_GROUP));
            }
            final long other = state.store.record(rows, i);
            if (other == 0 || !(i < checked && checkedRecords[i] == other ? checkedMatch(i, other)
                : predicate.matches(other, keyLength, side, row)))
            {
                continue;
            }
            matches++;
            if (semiOrAnti)
            {
                if (updatesLeftRows)
                {
                    leftRowCount(other, accumulate, step);
                }
                continue;
            }
            final long otherTs = RowDescriptor.ts(other);
            final long pairTs = Math.max(ts, otherTs);
            if (accumulate)
            {
                final int count = RowDescriptor.count(other);
                if (otherOuter && count == 0 && !RegularRowTimers.isPending(other))
                {
                    emit.padded(ChangeKind.DELETE, otherSide, predicate.otherRow, otherTs, step);
                }
                RowDescriptor.count(state.base, other, count + 1);
                emit.pair(retractions ? ChangeKind.INSERT : kind, side, row, predicate.otherRow, pairTs, step);
            }
            else
            {
                emit.pair(retractions ? ChangeKind.DELETE : kind, side, row, predicate.otherRow, pairTs, step);
                final int count = RowDescriptor.count(other) - 1;
                RowDescriptor.count(state.base, other, count);
                if (otherOuter && count == 0 && !RegularRowTimers.isPending(other))
                {
                    emit.padded(ChangeKind.INSERT, otherSide, predicate.otherRow, otherTs, step);
                }
            }
        }
        checked = 0;
        return matches;
    }

    /** A right row matched the stored left row {@code other} (semi/anti): its count moves, its line when it crosses zero. */
    private void leftRowCount(final long other, final boolean accumulate, final long step)
    {
        final int count = RowDescriptor.count(other);
        final long otherTs = RowDescriptor.ts(other);
        if (accumulate)
        {
            RowDescriptor.count(state.base, other, count + 1);
            if (count == 0)
            {
                emit.padded(semi ? ChangeKind.INSERT : ChangeKind.DELETE, Side.LEFT, predicate.otherRow, otherTs, step);
            }
        }
        else
        {
            RowDescriptor.count(state.base, other, count - 1);
            if (count == 1)
            {
                emit.padded(semi ? ChangeKind.DELETE : ChangeKind.INSERT, Side.LEFT, predicate.otherRow, otherTs, step);
            }
        }
    }

    /**
     * Evaluates the row's pairs with the other side's rows of {@code bucket} before the row has any effect.
     *
     * @param side      the row's side.
     * @param row       the row.
     * @param keyLength its join key's length, or {@link JoinPredicate#UNMATCHABLE}.
     * @param bucket    the key's bucket, or 0 when it has none.
     * @return false when a user condition threw for a pair of the row.
     */
    boolean evaluate(final Side side, final RowView row, final int keyLength, final long bucket)
    {
        checked = 0;
        if (!userConditions || keyLength == UNMATCHABLE || bucket == 0)
        {
            return true;
        }
        final long rows = state.store.rows(bucket, side.other().ordinal());
        final int slots = RowGroup.slots(rows);
        if (slots > checkedRecords.length)
        {
            checkedRecords = new long[Math.max(slots, 2 * checkedRecords.length)];
            checkedMatches = new boolean[checkedRecords.length];
        }
        for (int i = 0; i < slots; i++)
        {
            final long other = state.store.record(rows, i);
            checkedRecords[i] = other;
            final int match = other == 0 ? 0 : predicate.match(other, keyLength, side, row);
            if (match < 0)
            {
                return false;
            }
            checkedMatches[i] = match == 1;
        }
        checked = slots;
        return true;
    }

    /** @return the kept result of slot {@code i}, with the record wrapped as a match is. */
    private boolean checkedMatch(final int i, final long other)
    {
        if (checkedMatches[i])
        {
            predicate.wrapOther(other);
        }
        return checkedMatches[i];
    }

    /** Forgets the kept results (an event starts). */
    void reset()
    {
        checked = 0;
    }
}
