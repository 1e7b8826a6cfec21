package io.junction.api;

/** One term of a post-join condition: {@code left.field op right.field}. Immutable. */
public final class ConditionTerm
{
    private final String leftField;
    private final CompareOp op;
    private final String rightField;

    public ConditionTerm(final String leftField, final CompareOp op, final String rightField)
    {
        if (leftField == null || op == null || rightField == null)
        {
            throw new IllegalArgumentException("condition needs left, op and right: " + leftField + " " + op + " " + rightField);
        }
        this.leftField = leftField;
        this.op = op;
        this.rightField = rightField;
    }

    public String leftField()
    {
        return leftField;
    }

    public CompareOp op()
    {
        return op;
    }

    public String rightField()
    {
        return rightField;
    }

    @Override
    public String toString()
    {
        return "left." + leftField + ' ' + op.symbol() + " right." + rightField;
    }
}
