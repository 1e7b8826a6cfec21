package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.RowView;
import io.junction.api.Side;

/**
 * The {@link JoinRecordStateView} of a side without a declared unique key (Flink's
 * {@code InputSideHasNoUniqueKey}): a row is stored under its join key, and a retraction finds its stored copy
 * by join key and row bytes. Nothing to check, nothing to index.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class InputSideHasNoUniqueKey implements JoinRecordStateView
{
    private final RegularRowChanges changes;

    /** @param changes what a row changes. */
    InputSideHasNoUniqueKey(final RegularRowChanges changes)
    {
        this.changes = changes;
    }

    @Override
    public void accumulate(
        final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final int keyLength,
        final long hash)
    {
        changes.accumulate(side, kind, row, ts, step, keyLength, hash, 0);
    }

    @Override
    public void retract(
        final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final int keyLength,
        final long hash)
    {
        changes.retractEqual(side, kind, row, ts, step, keyLength, hash);
    }

    @Override
    public void forget(final long record)
    {
    }
}
