package io.junction.internal.row;

import io.junction.api.CompareOp;
import io.junction.api.ConditionTerm;
import io.junction.api.JoinSpec;
import io.junction.api.RowView;
import io.junction.api.Schema;

import java.util.List;

/** A compiled post-join condition: the conjunction of its terms over both rows. Allocation-free. Immutable. */
public final class JoinCondition
{
    private final int[] leftFields;
    private final CompareOp[] ops;
    private final int[] rightFields;

    public JoinCondition(final List<ConditionTerm> terms, final Schema left, final Schema right)
    {
        final int n = terms.size();
        leftFields = new int[n];
        ops = new CompareOp[n];
        rightFields = new int[n];
        for (int i = 0; i < n; i++)
        {
            final ConditionTerm term = terms.get(i);
            leftFields[i] = Fields.resolve(left, term.leftField(), "condition.left");
            ops[i] = term.op();
            rightFields[i] = Fields.resolve(right, term.rightField(), "condition.right");
        }
    }

    /** @return true when the condition has no terms. */
    public boolean acceptsAll()
    {
        return leftFields.length == 0;
    }

    /** @return true when every term holds for the pair. */
    public boolean test(final RowView left, final RowView right)
    {
        for (int i = 0; i < leftFields.length; i++)
        {
            if (!ops[i].test(FieldCompare.compare(left, leftFields[i], right, rightFields[i])))
            {
                return false;
            }
        }
        return true;
    }
}
