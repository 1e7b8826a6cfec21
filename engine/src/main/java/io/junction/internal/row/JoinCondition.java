package io.junction.internal.row;

import io.junction.api.CompareOp;
import io.junction.api.ConditionTerm;
import io.junction.api.PairCondition;
import io.junction.api.RowView;
import io.junction.api.Schema;

import java.util.List;

/**
 * A compiled post-join condition: the conjunction of its terms over both rows, then the user's
 * {@link PairCondition}s. Allocation-free. Immutable.
 */
public final class JoinCondition
{
    private final int[] leftFields;
    private final CompareOp[] ops;
    private final int[] rightFields;
    /** Added to the left value; 0 for a plain comparison. */
    private final long[] leftOffsets;
    private final PairCondition[] user;

    public JoinCondition(final List<ConditionTerm> terms, final Schema left, final Schema right)
    {
        this(terms, List.of(), left, right);
    }

    /**
     * @param terms the declarative terms, ANDed.
     * @param user  the user conditions, ANDed after the terms.
     * @param left  the left schema.
     * @param right the right schema.
     */
    public JoinCondition(final List<ConditionTerm> terms, final List<PairCondition> user, final Schema left, final Schema right)
    {
        this.user = user.toArray(new PairCondition[0]);
        final int n = terms.size();
        leftFields = new int[n];
        ops = new CompareOp[n];
        rightFields = new int[n];
        leftOffsets = new long[n];
        for (int i = 0; i < n; i++)
        {
            final ConditionTerm term = terms.get(i);
            leftFields[i] = Fields.resolve(left, term.leftField(), "condition.left");
            ops[i] = term.op();
            rightFields[i] = Fields.resolve(right, term.rightField(), "condition.right");
            leftOffsets[i] = term.leftOffset();
        }
    }

    /** @return true when the condition has no terms. */
    public boolean acceptsAll()
    {
        return leftFields.length == 0 && user.length == 0;
    }

    /** @return true when the condition has a user condition, which may throw. */
    public boolean hasUserCondition()
    {
        return user.length != 0;
    }

    /**
     * @return true when every term holds for the pair.
     * @throws RuntimeException whatever a user condition throws; the declarative terms never throw.
     */
    public boolean test(final RowView left, final RowView right)
    {
        for (int i = 0; i < leftFields.length; i++)
        {
            final int cmp = leftOffsets[i] == 0 ? FieldCompare.compare(left, leftFields[i], right, rightFields[i])
                : FieldCompare.compare(left, leftFields[i], leftOffsets[i], right, rightFields[i]);
            if (!ops[i].test(cmp))
            {
                return false;
            }
        }
        for (final PairCondition condition : user)
        {
            if (!condition.test(left, right))
            {
                return false;
            }
        }
        return true;
    }
}
