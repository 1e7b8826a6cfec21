package io.junction.join;

import io.junction.api.AsofSpec;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.internal.row.KeyHash;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cost of keeping an ASOF join's right rows in time order (docs/SEMANTICS.md section 11.5), counted in
 * slots of the key's group read or moved ({@link AsofJoin#timeOrderSteps()}), not timed: one key holds n right
 * rows, for n of 10,000 and 20,000.
 * <ul>
 * <li>Freeing them all (the end of input, or one watermark past them all) is linear in n, although the right
 *     rows' wheel hands them over in the order of its slots, not of their time (their deadlines span many turns
 *     of the wheel): at most {@link #PER_ROW} slots per row, and twice the rows cost about twice as much.</li>
 * <li>Rows arriving in decreasing time order each go before all the others: O(log n) slots per row (the binary
 *     search of the place, a constant amortised for the move), and the matches are the brute-force ones.</li>
 * </ul>
 */
class AsofJoinRightRowCostTest
{
    private static final int ROWS = 10_000;
    /** Slots read or moved per freed row, at most (the check of its place, its removal, the amortised compactions). */
    private static final int PER_ROW = 8;
    /** Ts between consecutive right rows: n rows span n / 64 turns of the wheel below ({@code 2^4 ms * 64 slots}). */
    private static final long SPACING = 16;

    static Stream<Arguments> joins()
    {
        final List<Arguments> all = new ArrayList<>();
        for (final AsofSpec.Direction direction : AsofSpec.Direction.values())
        {
            for (final long tolerance : new long[] {AsofSpec.UNBOUNDED, 50 * SPACING})
            {
                for (final boolean end : new boolean[] {true, false})
                {
                    all.add(Arguments.of(direction, tolerance, end));
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} tolerance {1} end of input {2}")
    @MethodSource("joins")
    void freeingTheRightRowsOfOneKeyIsLinear(final AsofSpec.Direction direction, final long tolerance, final boolean end)
    {
        final long one = freeAll(direction, tolerance, end, ROWS);
        final long two = freeAll(direction, tolerance, end, 2 * ROWS);
        assertTrue(one <= (long)PER_ROW * ROWS, ROWS + " rows freed with " + one + " slots read or moved");
        assertTrue(two <= (long)PER_ROW * 2 * ROWS, 2 * ROWS + " rows freed with " + two + " slots read or moved");
        assertTrue(two * 10 <= one * 25, "twice the rows cost " + two + " slots against " + one + ": not linear");
    }

    /** @return the slots read or moved to free {@code n} right rows of one key stored in time order. */
    private static long freeAll(final AsofSpec.Direction direction, final long tolerance, final boolean end, final int n)
    {
        try (VersionedTestHarness h = new VersionedTestHarness(spec(direction, tolerance, AsofSpec.Emit.FINAL), config(n)))
        {
            final AsofJoin join = (AsofJoin)((OperatorDriver)h.harness().operator()).algorithm();
            for (int i = 0; i < n; i++)
            {
                h.right(SPACING * i, "a", "r" + i);
            }
            final long before = join.timeOrderSteps();
            if (end)
            {
                h.end();
            }
            else
            {
                h.watermark(SPACING * n * 4);
            }
            final long steps = join.timeOrderSteps() - before;
            // Without a tolerance backward and nearest keep the newest row: nothing newer dominates it.
            final long kept = tolerance == AsofSpec.UNBOUNDED && direction != AsofSpec.Direction.FORWARD ? 1 : 0;
            assertEquals(kept, h.counters().liveRight(), direction + ": right rows left");
            assertEquals(n - kept, h.counters().expiredRows(), direction + ": right rows freed");
            return steps;
        }
    }

    static Stream<Arguments> directionsAndTolerances()
    {
        final List<Arguments> all = new ArrayList<>();
        for (final AsofSpec.Direction direction : AsofSpec.Direction.values())
        {
            all.add(Arguments.of(direction, AsofSpec.UNBOUNDED));
            all.add(Arguments.of(direction, 50 * SPACING));
        }
        return all.stream();
    }

    /**
     * Two keys whose hashes collide share a bucket: the rows of one that a watermark frees are handed over behind
     * the newest row of the other, which stays; they leave from where they are, the group stays in time order, and
     * the rows that stay are still each key's match.
     */
    @ParameterizedTest(name = "{0} end of input {1}")
    @MethodSource("directionsAndEnds")
    void dueRowsBehindARowOfACollidingKeyLeaveFromWhereTheyAre(final AsofSpec.Direction direction, final boolean end)
    {
        final byte[][] keys = RegularJoinTest.collidingStrings();
        assertTrue(keys != null, "no colliding keys were constructed for the fixed seed");
        final StateConfig config = config(1_000).withHashSeed(KeyHash.DEFAULT_SEED);
        try (VersionedTestHarness h = new VersionedTestHarness(spec(direction, AsofSpec.UNBOUNDED, AsofSpec.Emit.EAGER), config))
        {
            // b0 at ts 1 among a0 .. a199 at ts 0, 2, 4 ...: the newest of its key, so nothing frees it before the end.
            h.right(1, keys[1], "b0");
            for (int i = 0; i < 200; i++)
            {
                h.right(2L * i, keys[0], "a" + i);
            }
            if (end)
            {
                h.end();
                final long kept = direction == AsofSpec.Direction.FORWARD ? 0 : 2;
                assertEquals(kept, h.counters().liveRight(), "the newest row of each key stays: " + direction);
                assertEquals(201 - kept, h.counters().expiredRows());
                return;
            }
            h.watermark(1_000);
            h.out.clear();
            final long kept = direction == AsofSpec.Direction.FORWARD ? 0 : 2;
            assertEquals(kept, h.counters().liveRight(), "the newest row of each key stays: " + direction);
            if (direction != AsofSpec.Direction.FORWARD)
            {
                h.left(1_000, keys[0], "la");
                h.left(1_000, keys[1], "lb");
                assertEquals(List.of("+I la a199", "+I lb b0"), List.of(h.out.get(0).text(), h.out.get(1).text()));
            }
        }
    }

    static Stream<Arguments> directionsAndEnds()
    {
        final List<Arguments> all = new ArrayList<>();
        for (final AsofSpec.Direction direction : AsofSpec.Direction.values())
        {
            all.add(Arguments.of(direction, true));
            all.add(Arguments.of(direction, false));
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} tolerance {1}")
    @MethodSource("directionsAndTolerances")
    void rightRowsInDecreasingTimeOrderCostLogarithmicallyManySlotsEach(final AsofSpec.Direction direction, final long tolerance)
    {
        final long one = insertDecreasing(direction, tolerance, ROWS);
        final long two = insertDecreasing(direction, tolerance, 2 * ROWS);
        final long bound = (long)ROWS * (log2(2 * ROWS) + 16);
        assertTrue(one <= bound, ROWS + " rows placed with " + one + " slots read or moved, more than " + bound);
        assertTrue(two <= 2 * bound, 2 * ROWS + " rows placed with " + two + " slots read or moved, more than " + 2 * bound);
        assertTrue(two * 10 <= one * 25, "twice the rows cost " + two + " slots against " + one + ": not n log n");
    }

    /**
     * Stores {@code n} right rows of one key, newest first, then probes left rows (eager, so each is answered at
     * once) against the brute-force match.
     *
     * @return the slots read or moved to place the right rows.
     */
    private static long insertDecreasing(final AsofSpec.Direction direction, final long tolerance, final int n)
    {
        try (VersionedTestHarness h = new VersionedTestHarness(spec(direction, tolerance, AsofSpec.Emit.EAGER), config(n)))
        {
            final AsofJoin join = (AsofJoin)((OperatorDriver)h.harness().operator()).algorithm();
            final long before = join.timeOrderSteps();
            for (int i = n - 1; i >= 0; i--)
            {
                h.right(SPACING * i, "a", "r" + i);
            }
            final long steps = join.timeOrderSteps() - before;
            assertEquals(n, h.counters().liveRight(), "no right row is freed without a watermark");
            for (int p = 0; p < 200; p++)
            {
                final long ts = (long)p * (SPACING * n / 200) + p % 3 * 5;
                h.out.clear();
                h.left(ts, "a", "l" + p);
                final long expected = expected(direction, tolerance, ts, n);
                if (expected < 0)
                {
                    assertEquals("+I l" + p + " null", h.out.get(0).text(), direction + " at ts " + ts);
                }
                else
                {
                    assertEquals("+I l" + p + " r" + expected, h.out.get(0).text(), direction + " at ts " + ts);
                }
            }
            return steps;
        }
    }

    /** @return the index of the match of a left row at {@code ts} among right rows at {@code SPACING * i}, i below n; -1 for none. */
    private static long expected(final AsofSpec.Direction direction, final long tolerance, final long ts, final int n)
    {
        final long below = Math.min(ts / SPACING, n - 1);
        final long above = Math.min((ts + SPACING - 1) / SPACING, n - 1);
        final long dBelow = ts - SPACING * below;
        final long dAbove = SPACING * above - ts;
        final boolean belowIn = tolerance == AsofSpec.UNBOUNDED || dBelow <= tolerance;
        final boolean aboveIn = dAbove >= 0 && (tolerance == AsofSpec.UNBOUNDED || dAbove <= tolerance);
        switch (direction)
        {
            case BACKWARD:
                return belowIn ? below : -1;
            case FORWARD:
                return aboveIn ? above : -1;
            default:
                if (!aboveIn)
                {
                    return belowIn ? below : -1;
                }
                // A tie on the distance goes to the earlier ts.
                return belowIn && dBelow <= dAbove ? below : above;
        }
    }

    private static int log2(final int n)
    {
        return 32 - Integer.numberOfLeadingZeros(n - 1);
    }

    private static JoinSpec spec(final AsofSpec.Direction direction, final long tolerance, final AsofSpec.Emit emit)
    {
        final AsofSpec asof = AsofSpec.of(direction).withEmit(emit);
        return VersionedTestHarness.spec(JoinKind.ASOF, JoinType.LEFT)
            .asof(tolerance == AsofSpec.UNBOUNDED ? asof : asof.withTolerance(tolerance)).build();
    }

    /** A small wheel (64 slots of 16 ms), so that the rows' deadlines span many of its turns. */
    private static StateConfig config(final int n)
    {
        return OperatorTestHarness.SMALL_STATE.withWheel(4, 64).withMaxLiveRows(4L * n);
    }
}
