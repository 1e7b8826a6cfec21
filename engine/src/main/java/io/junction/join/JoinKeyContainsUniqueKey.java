package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterReason;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.row.KeyExtractor;

import static io.junction.join.JoinPredicate.UNMATCHABLE;

/**
 * The {@link JoinRecordStateView} of a side whose join key holds every field of its unique key (Flink's
 * {@code JoinKeyContainsUniqueKey}): a join key has at most one live row of the side, so the key's bucket alone
 * answers the duplicate check, and no index is kept.
 * <pre>
 * accumulate, key unmatchable: a null unique-key field -&gt; UNIQUE_KEY_VIOLATION; else stored as any row
 * accumulate, key matchable:   a live row of the side under the key -&gt; UNIQUE_KEY_VIOLATION;
 *                              else stored, the bucket found here handed on
 * retract:                     a null unique-key field of an unmatchable key -&gt; UNIQUE_KEY_VIOLATION;
 *                              else its copy found by join key and row bytes
 * </pre>
 * A matchable row's unique key is part of its non-null join key: only an unmatchable one can hold a null.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class JoinKeyContainsUniqueKey implements JoinRecordStateView
{
    private final RegularRowChanges changes;
    private final PartitionState state;
    private final JoinPredicate predicate;
    private final Emitter emit;
    /** The side's unique-key fields. */
    private final KeyExtractor fields;

    /**
     * @param parts   the join's parts.
     * @param side    the view's side.
     * @param changes what a row changes.
     */
    JoinKeyContainsUniqueKey(final OperatorParts parts, final Side side, final RegularRowChanges changes)
    {
        this.changes = changes;
        this.state = parts.state;
        this.predicate = parts.predicate;
        this.emit = parts.emit;
        this.fields = parts.compiled.uniqueKey(side);
    }

    @Override
    public void accumulate(
        final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final int keyLength,
        final long hash)
    {
        if (keyLength == UNMATCHABLE)
        {
            if (!nullUniqueKey(side, kind, row, ts, step))
            {
                changes.accumulate(side, kind, row, ts, step, keyLength, hash, 0);
            }
            return;
        }
        final long live = state.index.find(hash);
        if (live != 0 && state.store.findKey(live, side.ordinal(), predicate.key, 0, keyLength) != 0)
        {
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.UNIQUE_KEY_VIOLATION);
            return;
        }
        changes.accumulate(side, kind, row, ts, step, keyLength, hash, live);
    }

    @Override
    public void retract(
        final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final int keyLength,
        final long hash)
    {
        if (keyLength != UNMATCHABLE || !nullUniqueKey(side, kind, row, ts, step))
        {
            changes.retractEqual(side, kind, row, ts, step, keyLength, hash);
        }
    }

    /** @return true, with the row dead-lettered, when a unique-key field of the row is null. */
    private boolean nullUniqueKey(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        for (int i = 0; i < fields.arity(); i++)
        {
            if (row.isNull(fields.field(i)))
            {
                emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.UNIQUE_KEY_VIOLATION);
                return true;
            }
        }
        return false;
    }

    @Override
    public void forget(final long record)
    {
    }
}
