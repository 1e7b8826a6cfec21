package io.junction.join;

/**
 * Event-time arithmetic that clamps at the ends of the long range instead of wrapping: deadlines,
 * lateness bounds and window ends are computed from user timestamps and bounds that may be anywhere
 * in it (SEMANTICS 5, 2.3).
 */
final class TimeMath
{
    private TimeMath()
    {
    }

    /** @return {@code a + b}, clamped to the long range instead of wrapping. */
    static long saturatedAdd(final long a, final long b)
    {
        final long r = a + b;
        if (((a ^ r) & (b ^ r)) < 0)
        {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return r;
    }

    /** @return {@code a - b}, clamped to the long range instead of wrapping. */
    static long saturatedSubtract(final long a, final long b)
    {
        final long r = a - b;
        if (((a ^ b) & (a ^ r)) < 0)
        {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return r;
    }
}
