package io.junction.api;

/**
 * A user pre-join filter over one side's row, ANDed with the declarative filter terms of that side
 * ({@link JoinSpec.Builder#leftFilter(RowFilter)}): a row for which it returns false never matches,
 * as a row that fails a {@link FieldFilter}.
 *
 * <p>Contract: called on the partition thread, once per row after the declarative terms hold; it must
 * not allocate on the hot path, must not block, must not retain the view (the view and its buffer are
 * reused for the next row) and must give the same answer for the same row (an update's retraction has
 * to meet the same fate as its insert). A filter that throws dead-letters the row with
 * {@link DeadLetterReason#PREDICATE_FAILED} before the row has any effect.
 */
@FunctionalInterface
public interface RowFilter
{
    /**
     * @param row the row, valid only during the call.
     * @return true when the row may join.
     */
    boolean test(RowView row);
}
