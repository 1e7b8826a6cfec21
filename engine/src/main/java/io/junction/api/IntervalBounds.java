package io.junction.api;

/**
 * The relative time bounds of an interval join: a pair matches when
 * {@code right.ts ∈ [left.ts + lower, left.ts + upper]}, each bound inclusive unless its flag says
 * otherwise (SEMANTICS 5). Immutable; validated on construction: an interval that can hold no
 * timestamp is rejected.
 */
public final class IntervalBounds
{
    private final long lower;
    private final long upper;
    private final boolean lowerInclusive;
    private final boolean upperInclusive;

    /**
     * Bounds of {@code right.ts - left.ts}.
     *
     * @param lower          the lower bound of {@code right.ts - left.ts}, ms.
     * @param upper          the upper bound, ms.
     * @param lowerInclusive whether {@code lower} itself is in the interval.
     * @param upperInclusive whether {@code upper} itself is in the interval.
     * @throws IllegalArgumentException when no difference satisfies both bounds.
     */
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

    /**
     * @param lower the lower bound of {@code right.ts - left.ts}, ms, inclusive.
     * @param upper the upper bound, ms, inclusive.
     * @return an interval with both bounds inclusive.
     */
    public static IntervalBounds inclusive(final long lower, final long upper)
    {
        return new IntervalBounds(lower, upper, true, true);
    }

    /** @return the lower bound as given. */
    public long lower()
    {
        return lower;
    }

    /** @return the upper bound as given. */
    public long upper()
    {
        return upper;
    }

    /** @return whether the lower bound is in the interval. */
    public boolean lowerInclusive()
    {
        return lowerInclusive;
    }

    /** @return whether the upper bound is in the interval. */
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
