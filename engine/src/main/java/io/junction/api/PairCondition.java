package io.junction.api;

/**
 * A user post-join condition over a left and a right row with equal keys, ANDed with the declarative
 * condition terms ({@link JoinSpec.Builder#condition(PairCondition)}); interval bounds and windows
 * stay separate and are checked first.
 *
 * <p>Contract: called on the partition thread for each candidate pair after the declarative terms
 * hold; it must not allocate on the hot path, must not block, must not retain the views (both are
 * reused) and must give the same answer for the same pair. In a regular join a condition that throws
 * for any pair of a row dead-letters that row whole ({@code PREDICATE_FAILED}, before it has any effect,
 * insert or retraction alike), so a condition that throws only sometimes cannot leave match counts
 * wrong; in the other joins it counts as false for that pair. The exception goes to the engine's error
 * handler, counted as a handler error, as a result handler's failure does (docs/SEMANTICS.md 2.3).
 */
@FunctionalInterface
public interface PairCondition
{
    /**
     * @param left  the left row, valid only during the call.
     * @param right the right row, valid only during the call.
     * @return true when the pair joins.
     */
    boolean test(RowView left, RowView right);
}
