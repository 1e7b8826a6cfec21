package io.junction.api;

/** One term of a post-join condition: {@code left.field op right.field}. Immutable. */
public final class ConditionTerm
{
    private final String leftField;
    private final CompareOp op;
    private final String rightField;

    /**
     * @param leftField  a field of the left row.
     * @param op         the comparison.
     * @param rightField a field of the right row.
     * @throws IllegalArgumentException when any argument is null, or op is {@link CompareOp#IN} (filters only).
     */
    public ConditionTerm(final String leftField, final CompareOp op, final String rightField)
    {
        if (leftField == null || op == null || rightField == null)
        {
            throw new IllegalArgumentException("condition needs left, op and right: " + leftField + " " + op + " " + rightField);
        }
        if (op == CompareOp.IN)
        {
            throw new IllegalArgumentException("condition: in is for filters over a literal list, not for conditions");
        }
        this.leftField = leftField;
        this.op = op;
        this.rightField = rightField;
    }

    /** @return the field of the left row. */
    public String leftField()
    {
        return leftField;
    }

    /** @return the comparison. */
    public CompareOp op()
    {
        return op;
    }

    /** @return the field of the right row. */
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
