package io.junction.api;

/**
 * One term of a post-join condition: {@code left.field op right.field}, or with an offset
 * {@code left.field + offset op right.field} (for example {@code l.ts + 1000 < r.ts}). Immutable.
 */
public final class ConditionTerm
{
    private final String leftField;
    private final CompareOp op;
    private final String rightField;
    private final long leftOffset;

    /**
     * @param leftField  a field of the left row.
     * @param op         the comparison.
     * @param rightField a field of the right row.
     * @throws IllegalArgumentException when any argument is null, or op is {@link CompareOp#IN} (filters only).
     */
    public ConditionTerm(final String leftField, final CompareOp op, final String rightField)
    {
        this(leftField, 0, op, rightField);
    }

    /**
     * @param leftField  a field of the left row.
     * @param leftOffset added to the left field's value before the comparison (saturating for integers);
     *                   with an offset other than 0, a left value that is not a number makes the term false.
     * @param op         the comparison.
     * @param rightField a field of the right row.
     * @throws IllegalArgumentException when a field or op is null, or op is {@link CompareOp#IN}.
     */
    public ConditionTerm(final String leftField, final long leftOffset, final CompareOp op, final String rightField)
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
        this.leftOffset = leftOffset;
    }

    /** @return what is added to the left field's value before the comparison; 0 for none. */
    public long leftOffset()
    {
        return leftOffset;
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
        return "left." + leftField + (leftOffset == 0 ? "" : leftOffset > 0 ? " + " + leftOffset : " - " + -leftOffset) +
            ' ' + op.symbol() + " right." + rightField;
    }
}
