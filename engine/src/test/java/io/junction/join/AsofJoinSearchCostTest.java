package io.junction.join;

import io.junction.api.AsofSpec;
import io.junction.api.JoinKind;
import io.junction.api.JoinType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cost of the ASOF join's candidate search (SPEC 2.5, issue 22: "the best candidate is found in O(log n)
 * or better"): one key holds 10,000 right rows, stored out of order within a bound, and each probe of a left
 * row reads at most {@code 2 log2(n) + 4} slots of the key's right group ({@link AsofJoin#probes}), where a
 * scan would read all 10,000; the match is the brute-force one. Then the watermark frees the older half
 * (its emptied slots lead the group) and the probes stay as cheap and as right. A count, not a timing.
 */
class AsofJoinSearchCostTest
{
    private static final int ROWS = 10_000;

    @ParameterizedTest
    @EnumSource(AsofSpec.Direction.class)
    void aProbeReadsLogarithmicallyManySlots(final AsofSpec.Direction direction)
    {
        final StateConfig config = OperatorTestHarness.SMALL_STATE.withMaxLiveRows(4 * ROWS);
        try (VersionedTestHarness h = new VersionedTestHarness(VersionedTestHarness.spec(JoinKind.ASOF, JoinType.LEFT)
            .asof(AsofSpec.of(direction).withEmit(AsofSpec.Emit.EAGER)).build(), config))
        {
            final AsofJoin join = (AsofJoin)h.harness().operator();
            // Right rows at even ts 0 .. 2 (ROWS - 1), each block of 16 arriving in a random order.
            final SplittableRandom random = new SplittableRandom(22);
            final List<Integer> order = new ArrayList<>();
            for (int block = 0; block < ROWS; block += 16)
            {
                final List<Integer> rows = new ArrayList<>();
                for (int i = block; i < Math.min(ROWS, block + 16); i++)
                {
                    rows.add(i);
                }
                while (!rows.isEmpty())
                {
                    order.add(rows.remove(random.nextInt(rows.size())));
                }
            }
            for (final int i : order)
            {
                h.right(2L * i, "a", "r" + i);
            }
            assertEquals(ROWS, h.counters().liveRight(), "no right row is freed without a watermark");
            probe(h, join, direction, random, 0, ROWS);

            // The watermark passes the older half: the rows it frees leave a leading run of empty slots.
            h.watermark(ROWS);
            final long live = h.counters().liveRight();
            assertTrue(live < ROWS * 3 / 4 && live > ROWS / 4, "the older half is freed: " + live + " right rows live");
            probe(h, join, direction, random, ROWS / 2 + 1, ROWS);
        }
    }

    /** Probes 300 left rows at random ts from {@code 2 * from}: each reads O(log n) slots and finds the brute-force match. */
    private static void probe(final VersionedTestHarness h, final AsofJoin join, final AsofSpec.Direction direction,
        final SplittableRandom random, final int from, final int to)
    {
        final int bound = 2 * (32 - Integer.numberOfLeadingZeros(ROWS)) + 4;
        for (int n = 0; n < 300; n++)
        {
            final long ts = 2L * from + random.nextLong(2L * (to - from) - 1);
            final long before = join.probes;
            h.out.clear();
            h.left(ts, "a", "l" + n);
            final long read = join.probes - before;
            assertTrue(read <= bound, direction + " probe at ts " + ts + " read " + read + " slots, more than " + bound);
            assertEquals(1, h.out.size(), h.out.toString());
            assertEquals("r" + expected(direction, ts, to), h.out.get(0).right(), direction + " match at ts " + ts);
        }
    }

    /** @return the index of the match of a left row at {@code ts} among right rows at ts {@code 2i}, i below {@code rows}. */
    private static long expected(final AsofSpec.Direction direction, final long ts, final int rows)
    {
        final long below = Math.min(ts / 2, rows - 1);
        final long above = Math.min((ts + 1) / 2, rows - 1);
        switch (direction)
        {
            case BACKWARD:
                return below;
            case FORWARD:
                return above;
            default:
                // A tie on the distance goes to the earlier ts.
                return ts - 2 * below <= 2 * above - ts ? below : above;
        }
    }
}
