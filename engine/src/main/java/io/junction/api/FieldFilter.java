package io.junction.api;

/** One term of a pre-join filter: {@code field op literal}, reading one side's row only. Immutable. */
public final class FieldFilter
{
    private final String field;
    private final CompareOp op;
    private final Literal value;

    /**
     * @param field the field of the row the filter reads.
     * @param op    the comparison.
     * @param value the literal the field is compared with.
     * @throws IllegalArgumentException when any argument is null.
     */
    public FieldFilter(final String field, final CompareOp op, final Literal value)
    {
        if (field == null || op == null || value == null)
        {
            throw new IllegalArgumentException("filter needs field, op and value: " + field + " " + op + " " + value);
        }
        this.field = field;
        this.op = op;
        this.value = value;
    }

    /** @return the field the filter reads. */
    public String field()
    {
        return field;
    }

    /** @return the comparison. */
    public CompareOp op()
    {
        return op;
    }

    /** @return the literal the field is compared with. */
    public Literal value()
    {
        return value;
    }

    @Override
    public String toString()
    {
        return field + ' ' + op.symbol() + ' ' + value;
    }
}
