package io.junction.api;

/**
 * The relative time bounds of an interval join: a pair matches when
 * {@code right.ts ∈ [left.ts + lower, left.ts + upper]}, each bound inclusive unless its flag says
 * otherwise (SPEC 2.2). Immutable; validated on construction: an interval that can hold no
 * timestamp is rejected.
 */
public final class IntervalBounds
{
    private final long lower;
    private final long upper;
    private final boolean lowerInclusive;
    private final boolean upperInclusive;

    public IntervalBounds(final long lower, final long upper, final boolean lowerInclusive, final boolean upperInclusive)
    {
        this.lower = lower;
        this.upper = upper;
        this.lowerInclusive = lowerInclusive;
        this.upperInclusive = upperInclusive;
        if (!lowerInclusive && lower == Long.MAX_VALUE || !upperInclusive && upper == Long.MIN_VALUE ||
            inclusiveLower() > inclusiveUpper())
        {
            throw new IllegalArgumentException("interval is empty: lower=" + lower + (lowerInclusive ? " (inclusive)" : " (exclusive)") +
                " must not exceed upper=" + upper + (upperInclusive ? " (inclusive)" : " (exclusive)"));
        }
    }

    /** @return an interval with both bounds inclusive. */
    public static IntervalBounds inclusive(final long lower, final long upper)
    {
        return new IntervalBounds(lower, upper, true, true);
    }

    public long lower()
    {
        return lower;
    }

    public long upper()
    {
        return upper;
    }

    public boolean lowerInclusive()
    {
        return lowerInclusive;
    }

    public boolean upperInclusive()
    {
        return upperInclusive;
    }

    /** @return the lower bound made inclusive: an exclusive lower counts as {@code lower + 1}. */
    public long inclusiveLower()
    {
        return lowerInclusive ? lower : lower + 1;
    }

    /** @return the upper bound made inclusive: an exclusive upper counts as {@code upper - 1}. */
    public long inclusiveUpper()
    {
        return upperInclusive ? upper : upper - 1;
    }

    @Override
    public String toString()
    {
        return (lowerInclusive ? "[" : "(") + lower + ", " + upper + (upperInclusive ? "]" : ")");
    }
}
