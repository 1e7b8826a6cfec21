package io.junction.api;

/** One term of a pre-join filter: {@code field op literal}, reading one side's row only. Immutable. */
public final class FieldFilter
{
    private final String field;
    private final CompareOp op;
    private final Literal value;

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

    public String field()
    {
        return field;
    }

    public CompareOp op()
    {
        return op;
    }

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
