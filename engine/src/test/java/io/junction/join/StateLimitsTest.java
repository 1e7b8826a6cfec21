package io.junction.join;

import io.junction.api.DeadLetterReason;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Schema;
import io.junction.api.WindowSpec;
import io.junction.testing.DeadLetter;
import io.junction.testing.JoinHarness;
import io.junction.testing.Output;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import io.junction.api.DeadLetterHandler;

/**
 * Every operator at its state limits (live rows, state bytes, key index capacity), with both key
 * indexes: a row that does not fit is dead-lettered whole with STATE_FULL and counted, emits nothing,
 * leaves no trace in state, and the partition goes on; EXPIRE_OLDEST makes room in regular joins
 * with a TTL.
 */
class StateLimitsTest
{
    private static final Schema SCHEMA = Schema.of("k", "v", "pad");
    private static final StateConfig BASE = StateConfig.defaults().withMaxKeys(64).withChunkSize(4096);

    private static JoinSpec.Builder spec(final JoinKind kind, final JoinType type)
    {
        return JoinSpec.builder(kind, type).schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k");
    }

    private static StateConfig rows(final IndexKind index, final long maxLiveRows)
    {
        return BASE.withIndex(index).withMaxLiveRows(maxLiveRows).withHashSeed(1);
    }

    private static long live(final JoinHarness h)
    {
        return h.counters().liveLeft() + h.counters().liveRight();
    }

    private static void assertStateFull(final JoinHarness h, final int expected)
    {
        final List<DeadLetter> dead = h.deadLetters().deadLetters();
        assertEquals(expected, dead.size(), dead.toString());
        for (final DeadLetter d : dead)
        {
            assertEquals(DeadLetterReason.STATE_FULL, d.reason());
        }
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void regularJoinRejectsWholeRowAtLiveRowLimit(final IndexKind index)
    {
        try (JoinHarness h = new JoinHarness(spec(JoinKind.REGULAR, JoinType.LEFT).build(), rows(index, 3)))
        {
            assertEquals(1, h.left("+I", "k", 1L, "v", 1L).size());
            h.left("+I", "k", 2L, "v", 2L);
            h.left("+I", "k", 3L, "v", 3L);
            // Full: the matching right row must not emit, retract the padded row or change any count.
            assertEquals(List.of(), h.right("+I", "k", 1L, "v", 10L));
            assertStateFull(h, 1);
            assertEquals(3, live(h));
            assertEquals(1, h.counters().badInputs());
            // Room again after a retraction: the same row now joins.
            assertEquals(1, h.left("-D", "k", 3L, "v", 3L).size());
            assertEquals(2, h.right("+I", "k", 1L, "v", 10L).size());
            assertEquals(3, live(h));
        }
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void regularJoinRejectsNewKeyWhenKeyIndexIsFull(final IndexKind index)
    {
        try (JoinHarness h = new JoinHarness(spec(JoinKind.REGULAR, JoinType.INNER).build(),
            BASE.withIndex(index).withMaxKeys(2).withHashSeed(1)))
        {
            h.left("+I", "k", 1L);
            h.left("+I", "k", 2L);
            h.left("+I", "k", 3L);
            assertStateFull(h, 1);
            // Known keys still fit.
            assertEquals(1, h.right("+I", "k", 1L).size());
            assertEquals(3, live(h));
        }
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void intervalJoinRejectsWholeRowAtLiveRowLimit(final IndexKind index)
    {
        try (JoinHarness h = new JoinHarness(spec(JoinKind.INTERVAL, JoinType.INNER)
            .interval(IntervalBounds.inclusive(-10, 10)).build(), rows(index, 2)))
        {
            h.leftAt(0, "+I", "k", 1L, "v", 1L);
            h.leftAt(0, "+I", "k", 2L, "v", 2L);
            assertEquals(List.of(), h.rightAt(1, "+I", "k", 1L, "v", 10L));
            assertStateFull(h, 1);
            assertEquals(2, live(h));
            h.watermark(100);
            assertEquals(0, live(h));
            h.rightAt(101, "+I", "k", 1L, "v", 10L);
            assertStateFull(h, 1);
            assertEquals(1, live(h));
        }
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void slidingWindowRowIsStoredInAllItsWindowsOrInNone(final IndexKind index)
    {
        // Size 30, slide 10: a row lies in 3 windows, so it needs 3 records.
        try (JoinHarness h = new JoinHarness(spec(JoinKind.WINDOW, JoinType.INNER)
            .window(WindowSpec.sliding(30, 10, 0)).build(), rows(index, 5)))
        {
            h.leftAt(5, "+I", "k", 1L);
            assertEquals(3, live(h));
            h.leftAt(5, "+I", "k", 2L);
            assertStateFull(h, 1);
            assertEquals(3, live(h));
            h.rightAt(5, "+I", "k", 1L);
            assertStateFull(h, 2);
            final List<Output> fired = h.endOfInput();
            assertEquals(List.of(), fired);
            assertEquals(0, live(h));
        }
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void rowWithMoreWindowsThanRoomIsRejectedWhole(final IndexKind index)
    {
        // Size 500, slide 1: 500 windows per row (under the spec cap), keyed or padded alone (null key,
        // left join), against room for 100 rows.
        try (JoinHarness h = new JoinHarness(spec(JoinKind.WINDOW, JoinType.LEFT)
            .window(WindowSpec.sliding(500, 1, 0)).build(), rows(index, 100)))
        {
            h.leftAt(5, "+I", "k", 1L);
            h.leftAt(5, "+I", "v", 1L);
            assertStateFull(h, 2);
            assertEquals(0, live(h));
            assertEquals(List.of(), h.endOfInput());
        }
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void sessionWindowRejectsAtLiveRowLimit(final IndexKind index)
    {
        try (JoinHarness h = new JoinHarness(spec(JoinKind.WINDOW, JoinType.INNER)
            .window(WindowSpec.session(10)).build(), rows(index, 1)))
        {
            h.leftAt(5, "+I", "k", 1L);
            h.rightAt(6, "+I", "k", 1L);
            assertStateFull(h, 1);
            assertEquals(1, live(h));
            assertEquals(List.of(), h.endOfInput());
        }
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void stateBytesStayUnderTheByteLimit(final IndexKind index)
    {
        final JoinSpec spec = spec(JoinKind.REGULAR, JoinType.INNER).build();
        final StateConfig generous = BASE.withIndex(index).withHashSeed(1);
        final long indexBytes;
        try (OperatorDriver probe = (OperatorDriver)JoinOperators.create(spec, generous, (k, l, r, ts, s) -> { }, DeadLetterHandler.NONE))
        {
            indexBytes = probe.state.index.maxOffHeapBytes();
        }
        final long limit = indexBytes + 4 * 4096;
        final String pad = "x".repeat(300);
        try (JoinHarness h = new JoinHarness(spec, generous.withMaxStateBytes(limit)))
        {
            int stored = 0;
            for (long i = 0; i < 200; i++)
            {
                final int before = h.deadLetters().size();
                h.left("+I", "k", i % 8, "v", i, "pad", pad);
                if (h.deadLetters().size() == before)
                {
                    stored++;
                }
            }
            assertTrue(stored > 10 && stored < 200, "stored " + stored);
            assertStateFull(h, 200 - stored);
            assertEquals(stored, live(h));
            assertTrue(h.counters().stateBytes() <= limit, h.counters().stateBytes() + " > " + limit);
            // A retraction frees a record that the next row reuses.
            h.left("-D", "k", 0L, "v", 0L, "pad", pad);
            h.deadLetters().clear();
            h.left("+I", "k", 0L, "v", 1000L, "pad", pad);
            assertEquals(0, h.deadLetters().size(), h.deadLetters().deadLetters().toString());
            assertEquals(stored, live(h));
        }
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void expireOldestMakesRoomInRegularJoinWithTtl(final IndexKind index)
    {
        try (JoinHarness h = new JoinHarness(spec(JoinKind.REGULAR, JoinType.INNER).stateTtl(1000).build(),
            rows(index, 3).withFullPolicy(FullPolicy.EXPIRE_OLDEST)))
        {
            h.leftAt(30, "+I", "k", 3L);
            h.leftAt(10, "+I", "k", 1L);
            h.leftAt(20, "+I", "k", 2L);
            h.leftAt(40, "+I", "k", 4L);
            assertEquals(0, h.deadLetters().size(), h.deadLetters().deadLetters().toString());
            assertEquals(3, live(h));
            assertEquals(1, h.counters().expiredRows());
            // The row with the earliest deadline (ts 10) went; storing this row expires the next (ts 20).
            assertEquals(List.of(), h.rightAt(41, "+I", "k", 1L));
            assertEquals(2, h.counters().expiredRows());
            // This one expires ts 30 and still joins the row of ts 40.
            assertEquals(1, h.rightAt(42, "+I", "k", 4L).size());
            assertEquals(3, h.counters().expiredRows());
            assertEquals(3, live(h));
            assertEquals(0, h.deadLetters().size());
        }
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void expireOldestWithoutTtlRejects(final IndexKind index)
    {
        try (JoinHarness h = new JoinHarness(spec(JoinKind.REGULAR, JoinType.INNER).build(),
            rows(index, 1).withFullPolicy(FullPolicy.EXPIRE_OLDEST)))
        {
            h.left("+I", "k", 1L);
            h.left("+I", "k", 2L);
            assertStateFull(h, 1);
            assertEquals(0, h.counters().expiredRows());
        }
    }
    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void intervalRowClosedOnArrivalIsPaddedWhenKeyIndexIsFull(final IndexKind index)
    {
        // An interval wholly before the left row: a left row can arrive already closed without being late.
        try (JoinHarness h = new JoinHarness(spec(JoinKind.INTERVAL, JoinType.LEFT)
            .interval(IntervalBounds.inclusive(-20, -10)).build(),
            BASE.withIndex(index).withMaxKeys(2).withHashSeed(1)))
        {
            h.leftAt(100, "+I", "k", 1L);
            h.leftAt(100, "+I", "k", 2L);
            h.watermark(50);
            // Not late (55 >= 50) but closed (55 - 10 < 50): it only joins with what is stored, so a
            // new key needs no bucket and the full index must not refuse it.
            final List<Output> out = h.leftAt(55, "+I", "k", 3L);
            assertEquals(1, out.size(), out.toString());
            assertEquals(null, out.get(0).right());
            assertEquals(List.of(), h.deadLetters().deadLetters());
            assertEquals(2, live(h));
            // The stored keys still join.
            assertEquals(1, h.rightAt(85, "+I", "k", 1L).size());
        }
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void regularRowExpiredOnArrivalIsJoinedWhenKeyIndexIsFull(final IndexKind index)
    {
        try (JoinHarness h = new JoinHarness(spec(JoinKind.REGULAR, JoinType.LEFT).stateTtl(10).build(),
            BASE.withIndex(index).withMaxKeys(2).withHashSeed(1)))
        {
            h.leftAt(100, "+I", "k", 1L);
            h.leftAt(100, "+I", "k", 2L);
            h.watermark(105);
            // Older than watermark - TTL: joined with what is stored, never stored, so it needs no bucket.
            final List<Output> out = h.leftAt(50, "+I", "k", 3L);
            assertEquals(1, out.size(), out.toString());
            assertEquals(null, out.get(0).right());
            assertEquals(List.of(), h.deadLetters().deadLetters());
            assertEquals(2, live(h));
            assertEquals(2, h.rightAt(50, "+I", "k", 1L).size(), "the stored row of a known key still joins (-pad, +pair)");
            assertEquals(2, live(h));
        }
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void regularRowExpiredOnArrivalEvictsNothingUnderExpireOldest(final IndexKind index)
    {
        try (JoinHarness h = new JoinHarness(spec(JoinKind.REGULAR, JoinType.LEFT).stateTtl(10).build(),
            BASE.withIndex(index).withMaxKeys(2).withHashSeed(1).withFullPolicy(FullPolicy.EXPIRE_OLDEST)))
        {
            h.leftAt(100, "+I", "k", 1L);
            h.leftAt(100, "+I", "k", 2L);
            h.watermark(105);
            // Expired on arrival, of a new key, at a full index: it needs no bucket, so no stored row makes room.
            final List<Output> out = h.leftAt(50, "+I", "k", 3L);
            assertEquals(1, out.size(), out.toString());
            assertEquals(0, h.counters().expiredRows(), "no stored row was evicted for it");
            assertEquals(2, live(h));
            assertEquals(List.of(), h.deadLetters().deadLetters());
        }
    }
}
