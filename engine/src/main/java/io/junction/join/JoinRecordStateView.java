package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.RowView;
import io.junction.api.Side;

/**
 * How one side of a {@link RegularJoin} keeps its rows by its declared unique key, as Flink's
 * {@code JoinRecordStateViews}: one final class per shape, chosen once per side, so that a row costs one call
 * here and no switch on the shape.
 * <pre>
 * InputSideHasNoUniqueKey    no unique key: rows found by join key and row bytes
 * JoinKeyContainsUniqueKey   the join key holds it: at most one live row per join key, found in its bucket
 * InputSideHasUniqueKey      a unique key beyond the join key: rows found through the side's UniqueKeyIndex
 * </pre>
 * A view checks the side's unique-key promise before the row has any effect (a row that breaks it is
 * dead-lettered {@code UNIQUE_KEY_VIOLATION}, docs/SEMANTICS.md 4.4), finds what a retraction retracts, and
 * hands the row to {@link RegularRowChanges}; it keeps its own index in step with the stored rows.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
interface JoinRecordStateView
{
    /**
     * An accumulated row of the view's side, its join key in the predicate's key buffer.
     *
     * @param side      the view's side.
     * @param kind      the row's change kind (an accumulate).
     * @param row       the row.
     * @param ts        its event time.
     * @param step      its input sequence number.
     * @param keyLength the join key's length, or {@link JoinPredicate#UNMATCHABLE}.
     * @param hash      the join key's hash (0 when unmatchable).
     */
    void accumulate(Side side, ChangeKind kind, RowView row, long ts, long step, int keyLength, long hash);

    /**
     * A retracted row of the view's side: its stored copy is found and retracted, or the row is dead-lettered.
     *
     * @param side      the view's side.
     * @param kind      the row's change kind (a retract).
     * @param row       the row.
     * @param ts        its event time.
     * @param step      its input sequence number.
     * @param keyLength the join key's length, or {@link JoinPredicate#UNMATCHABLE}.
     * @param hash      the join key's hash (0 when unmatchable).
     */
    void retract(Side side, ChangeKind kind, RowView row, long ts, long step, int keyLength, long hash);

    /**
     * A stored record of the view's side is about to leave the state by expiry or eviction.
     *
     * @param record the record.
     */
    void forget(long record);
}
