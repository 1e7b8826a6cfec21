package io.junction.api;

/** Comparison operators of filters and conditions (SEMANTICS 1). */
public enum CompareOp
{
    /** {@code ==}: equal. */
    EQ("=="),
    /** {@code !=}: not equal (also true for values of different types, false when either is null). */
    NE("!="),
    /** {@code <}: less than. */
    LT("<"),
    /** {@code <=}: less than or equal. */
    LE("<="),
    /** {@code >}: greater than. */
    GT(">"),
    /** {@code >=}: greater than or equal. */
    GE(">="),
    /**
     * {@code in}: equal to one of a literal list (pre-join filters only, {@link FieldFilter#in}); as
     * SQL's {@code IN}, a null field or a null entry never matches. Applied to one comparison it is
     * {@link #EQ}.
     */
    IN("in");

    /**
     * The outcome of a comparison with a null or absent value, for {@link #test(int)}: every operator is false
     * (SEMANTICS 1).
     */
    public static final int INCOMPARABLE = Integer.MIN_VALUE;
    /**
     * The outcome of a comparison of non-null values of different types, for {@link #test(int)}: they are unequal
     * and unordered, so only {@code !=} holds (SEMANTICS 1).
     */
    public static final int DIFFERENT_TYPES = Integer.MAX_VALUE;

    private final String symbol;

    CompareOp(final String symbol)
    {
        this.symbol = symbol;
    }

    /** @return the operator as written in a join spec. */
    public String symbol()
    {
        return symbol;
    }

    /**
     * Applies this operator to the outcome of a comparison.
     *
     * @param cmp negative, zero or positive; {@link #INCOMPARABLE} when one side is null
     *            (false for every operator) and {@link #DIFFERENT_TYPES} when the two values
     *            have different types (only {@code !=} holds).
     * @return whether the predicate holds.
     */
    public boolean test(final int cmp)
    {
        if (cmp == INCOMPARABLE)
        {
            return false;
        }
        if (cmp == DIFFERENT_TYPES)
        {
            return this == NE;
        }
        switch (this)
        {
            case EQ:
            case IN:
                return cmp == 0;
            case NE:
                return cmp != 0;
            case LT:
                return cmp < 0;
            case LE:
                return cmp <= 0;
            case GT:
                return cmp > 0;
            default:
                return cmp >= 0;
        }
    }

    /**
     * @param symbol one of {@code == != < <= > >= in}.
     * @return the operator for the symbol, or null when it is none of them.
     */
    public static CompareOp fromSymbol(final String symbol)
    {
        for (final CompareOp op : values())
        {
            if (op.symbol.equals(symbol))
            {
                return op;
            }
        }
        return null;
    }
}
