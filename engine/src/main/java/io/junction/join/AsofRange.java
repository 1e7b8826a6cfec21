package io.junction.join;

import io.junction.api.AsofSpec;

import static io.junction.join.TimeMath.saturatedAdd;

/**
 * The ASOF join's time rules (docs/SEMANTICS.md section 11), pure arithmetic over the spec's
 * direction and tolerance {@code T}: which right row ts are candidates of a left row, which of two wins, and
 * F, the greatest ts a right row could have and still become a left row's match.
 * <pre>
 *   inRange(l, r)   backward  l - T &lt;= r &lt;= l    forward  l &lt;= r &lt;= l + T    nearest  |r - l| &lt;= T
 *   beats(l, r, b)  r (the later arrival) is the better match than b: backward r &gt;= b, forward r &lt;= b,
 *                   nearest the lesser |r - l|, a tie to the earlier ts, an equal ts to r
 *   F(l)            backward l; forward best, else l + T; nearest l + |l - best|, else l + T
 *                   (no tolerance and no candidate: +infinity)
 * </pre>
 * Distances are unsigned, so they are exact over the whole long range; sums saturate.
 *
 * <p>Immutable; used by the partition thread that owns its {@link AsofJoin}.
 */
final class AsofRange
{
    /** The spec's direction. */
    final AsofSpec.Direction direction;
    /** Whether the spec has a tolerance. */
    final boolean bounded;
    /** The tolerance {@code T}, {@link Long#MAX_VALUE} without one. */
    final long tolerance;

    /** @param asof the join's ASOF clause. */
    AsofRange(final AsofSpec asof)
    {
        this.direction = asof.direction();
        this.bounded = asof.hasTolerance();
        this.tolerance = asof.hasTolerance() ? asof.tolerance() : Long.MAX_VALUE;
    }

    /** @return true when a right row at {@code rts} is within the direction and tolerance of a left row at {@code lts}. */
    boolean inRange(final long lts, final long rts)
    {
        switch (direction)
        {
            case BACKWARD:
                return rts <= lts && (!bounded || Long.compareUnsigned(lts - rts, tolerance) <= 0);
            case FORWARD:
                return rts >= lts && (!bounded || Long.compareUnsigned(rts - lts, tolerance) <= 0);
            default:
                return !bounded || Long.compareUnsigned(distance(lts, rts), tolerance) <= 0;
        }
    }

    /**
     * @return true when a candidate at {@code rts} that arrived after the one at {@code bestTs} is the
     *         better match of a left row at {@code lts} (an equal ts goes to the later arrival).
     */
    boolean beats(final long lts, final long rts, final long bestTs)
    {
        switch (direction)
        {
            case BACKWARD:
                return rts >= bestTs;
            case FORWARD:
                return rts <= bestTs;
            default:
                final int c = Long.compareUnsigned(distance(lts, rts), distance(lts, bestTs));
                return c < 0 || c == 0 && rts <= bestTs;
        }
    }

    /**
     * @return true when, for a left row at {@code lts}, the candidate after it at {@code afterTs} is nearer than
     *         the one before it at {@code beforeTs} (nearest direction; a tie on the distance goes to the earlier ts).
     */
    static boolean afterIsNearer(final long lts, final long afterTs, final long beforeTs)
    {
        return Long.compareUnsigned(distance(lts, afterTs), distance(lts, beforeTs)) < 0;
    }

    /** @return {@code |a - b|} as an unsigned long (exact over the whole long range). */
    static long distance(final long a, final long b)
    {
        return a >= b ? a - b : b - a;
    }

    /** @return F of a left row at {@code lts} without a candidate; {@link Long#MAX_VALUE} for "until the end of input". */
    long finalTsWithout(final long lts)
    {
        if (direction == AsofSpec.Direction.BACKWARD)
        {
            return lts;
        }
        return bounded ? saturatedAdd(lts, tolerance) : Long.MAX_VALUE;
    }

    /** @return F of a left row at {@code lts} whose best candidate so far is at {@code bestTs}. */
    long finalTsWith(final long lts, final long bestTs)
    {
        switch (direction)
        {
            case BACKWARD:
                return lts;
            case FORWARD:
                return bestTs;
            default:
                if (bestTs >= lts)
                {
                    return bestTs;
                }
                final long d = lts - bestTs;
                return d < 0 ? Long.MAX_VALUE : saturatedAdd(lts, d);
        }
    }
}
