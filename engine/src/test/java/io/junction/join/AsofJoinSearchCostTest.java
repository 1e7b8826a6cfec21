package io.junction.join;

import io.junction.api.AsofSpec;
import io.junction.api.JoinKind;
import io.junction.api.JoinType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.junction.api.ChangeKind;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cost of the ASOF join's candidate search (SEMANTICS 11, the ASOF work: "the best candidate is found in O(log n)
 * or better"): one key holds 10,000 right rows, stored out of order within a bound, and each probe of a left
 * row reads at most {@code 2 log2(n) + 4} slots of the key's right group ({@link AsofJoin#probes()}), where a
 * scan would read all 10,000; the match is the brute-force one. Then the watermark frees the older half
 * (its emptied slots lead the group) and the probes stay as cheap and as right. A count, not a timing.
 *
 * <p>And the time-ordered groups at length: long logs of a few keys, one hot (groups of hundreds of rows
 * that rows join out of order and leave from either end), checked against a brute-force {@code merge_asof}
 * of the whole log, the eager changelog applied as well as the final output.
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
            final AsofJoin join = (AsofJoin)((OperatorDriver)h.harness().operator()).algorithm();
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
            final long before = join.probes();
            h.out.clear();
            h.left(ts, "a", "l" + n);
            final long read = join.probes() - before;
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

    static Stream<Arguments> longLogs()
    {
        final List<Arguments> all = new ArrayList<>();
        for (final AsofSpec.Direction direction : AsofSpec.Direction.values())
        {
            for (final AsofSpec.Emit emit : AsofSpec.Emit.values())
            {
                for (long seed = 1; seed <= 3; seed++)
                {
                    all.add(Arguments.of(direction, emit, seed));
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} {1} seed {2}")
    @MethodSource("longLogs")
    void longOutOfOrderLogsEqualABatchMergeAsof(final AsofSpec.Direction direction, final AsofSpec.Emit emit, final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed * 31 + direction.ordinal() * 7 + emit.ordinal());
        final long tolerance = seed == 1 ? AsofSpec.UNBOUNDED : random.nextLong(5, 60);
        final AsofSpec asof = AsofSpec.of(direction).withEmit(emit);
        final String[] keys = {"a", "a", "a", "a", "b", "c"};
        // Rows: {side (0 left), key index, ts}; none late: a row is at most 20 behind the cursor, a watermark 25.
        final List<long[]> rows = new ArrayList<>();
        try (VersionedTestHarness h = new VersionedTestHarness(VersionedTestHarness.spec(JoinKind.ASOF, JoinType.LEFT)
            .asof(tolerance == AsofSpec.UNBOUNDED ? asof : asof.withTolerance(tolerance)).build(),
            OperatorTestHarness.SMALL_STATE.withMaxLiveRows(1 << 16)))
        {
            long cursor = 0;
            for (int i = 0; i < 3_000; i++)
            {
                cursor += random.nextLong(0, 3);
                if (random.nextInt(50) == 0)
                {
                    h.watermark(cursor - 25);
                    continue;
                }
                final int side = random.nextInt(3) == 0 ? 0 : 1;
                final int key = random.nextInt(keys.length);
                final long ts = cursor - random.nextLong(0, 21);
                final int id = rows.size();
                rows.add(new long[] {side, key, ts});
                if (side == 0)
                {
                    h.left(ts, keys[key], "l" + id);
                }
                else
                {
                    h.right(ts, keys[key], "r" + id);
                }
            }
            h.end();
            assertEquals(List.of(), h.dead, "no row is late");
            final TreeMap<String, Integer> applied = new TreeMap<>();
            for (final VersionedTestHarness.Out o : h.out)
            {
                final boolean retract = o.kind() == ChangeKind.UPDATE_BEFORE || o.kind() == ChangeKind.DELETE;
                applied.merge(o.left() + " " + o.right(), retract ? -1 : 1, Integer::sum);
                assertTrue(emit == AsofSpec.Emit.EAGER || o.kind() == ChangeKind.INSERT, "final mode is append-only: " + o);
            }
            applied.values().removeIf(c -> c == 0);
            assertEquals(mergeAsof(rows, direction, tolerance, keys), applied);
            assertEquals(0, h.counters().liveLeft(), "every left row is final at the end of input");
            // Without a tolerance the newest right row of a key has no bound to leave state by: one per key stays.
            assertTrue(h.counters().liveRight() <= (tolerance == AsofSpec.UNBOUNDED ? 3 : 0), "right rows left: " + h.counters().liveRight());
        }
    }

    /** Batch merge_asof of the whole log: each left row's best right row of its key (equal ts: the later arrival). */
    private static TreeMap<String, Integer> mergeAsof(final List<long[]> rows, final AsofSpec.Direction direction,
        final long tolerance, final String[] keys)
    {
        final TreeMap<String, Integer> expected = new TreeMap<>();
        for (int l = 0; l < rows.size(); l++)
        {
            final long[] left = rows.get(l);
            if (left[0] != 0)
            {
                continue;
            }
            int best = -1;
            for (int r = 0; r < rows.size(); r++)
            {
                final long[] right = rows.get(r);
                if (right[0] != 1 || !keys[(int)right[1]].equals(keys[(int)left[1]]))
                {
                    continue;
                }
                final long d = right[2] - left[2];
                final boolean inRange = direction == AsofSpec.Direction.BACKWARD ? d <= 0 && (tolerance < 0 || -d <= tolerance)
                    : direction == AsofSpec.Direction.FORWARD ? d >= 0 && (tolerance < 0 || d <= tolerance)
                    : tolerance < 0 || Math.abs(d) <= tolerance;
                if (!inRange)
                {
                    continue;
                }
                if (best < 0)
                {
                    best = r;
                    continue;
                }
                final long bestTs = rows.get(best)[2];
                final boolean better;
                switch (direction)
                {
                    case BACKWARD:
                        better = right[2] >= bestTs;
                        break;
                    case FORWARD:
                        better = right[2] <= bestTs;
                        break;
                    default:
                        final long dr = Math.abs(d);
                        final long db = Math.abs(bestTs - left[2]);
                        better = dr < db || dr == db && right[2] <= bestTs;
                }
                if (better)
                {
                    best = r;
                }
            }
            expected.merge("l" + l + " " + (best < 0 ? "null" : "r" + best), 1, Integer::sum);
        }
        return expected;
    }
}
