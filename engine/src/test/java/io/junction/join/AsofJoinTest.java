package io.junction.join;

import io.junction.api.AsofSpec;
import io.junction.api.ChangeKind;
import io.junction.api.CompareOp;
import io.junction.api.DeadLetterReason;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.Side;
import io.junction.api.WindowSpec;
import io.junction.metrics.HotKey;
import io.junction.metrics.OperatorCounters;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.junction.api.AsofSpec.Direction.BACKWARD;
import static io.junction.api.AsofSpec.Direction.FORWARD;
import static io.junction.api.AsofSpec.Direction.NEAREST;
import static io.junction.api.AsofSpec.Emit.EAGER;
import static io.junction.api.AsofSpec.Emit.FINAL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The ASOF join, rule by rule (docs/SEMANTICS.md section 11), event by event. */
class AsofJoinTest
{
    private static JoinSpec.Builder spec(final JoinType type, final AsofSpec asof)
    {
        return VersionedTestHarness.spec(JoinKind.ASOF, type).asof(asof);
    }

    private static VersionedTestHarness asof(final JoinType type, final AsofSpec asof)
    {
        return new VersionedTestHarness(spec(type, asof).build());
    }

    private static VersionedTestHarness asof(final JoinType type, final AsofSpec.Direction direction, final AsofSpec.Emit emit)
    {
        return asof(type, AsofSpec.of(direction).withEmit(emit));
    }

    @Test
    void backwardFinalWaitsForTheWatermarkToPassTheLeftTsThenTakesTheGreatestRightTsAtOrBelowIt()
    {
        try (VersionedTestHarness h = asof(JoinType.LEFT, BACKWARD, FINAL))
        {
            h.right(10, 1, "R10");
            h.right(20, 1, "R20");
            h.right(30, 1, "R30");
            final long l = h.left(25, 1, "L25");
            assertEquals(List.of(), h.at(l));
            assertEquals(List.of(), h.at(h.watermark(25)), "final only once W > F = l.ts");
            h.right(25, 1, "R25");        // at the watermark: not late, and the best
            assertEquals(List.of("+I L25 R25"), h.at(h.watermark(26)));
            assertEquals(25, h.out.get(0).ts(), "output time is the left row's ts");
        }
    }

    @Test
    void equalRightTsGoesToTheRowThatArrivedLast()
    {
        try (VersionedTestHarness h = asof(JoinType.INNER, BACKWARD, FINAL))
        {
            h.right(10, 1, "Ra");
            h.right(10, 1, "Rb");
            h.left(12, 1, "L12");
            h.right(10, 1, "Rc");
            assertEquals(List.of("+I L12 Rc"), h.at(h.end()));
        }
    }

    @Test
    void eagerLeftEmitsAtOnceThenCorrectsWithUpdatePairs()
    {
        try (VersionedTestHarness h = asof(JoinType.LEFT, BACKWARD, EAGER))
        {
            assertEquals(List.of("+I L20 null"), h.at(h.left(20, 1, "L20")));
            assertEquals(List.of("+U L20 R10", "-U L20 null"), h.at(h.right(10, 1, "R10")));
            assertEquals(List.of(), h.at(h.right(5, 1, "R5")), "not better: nothing");
            assertEquals(List.of("+U L20 R15", "-U L20 R10"), h.at(h.right(15, 1, "R15")));
            assertEquals(List.of(), h.at(h.right(21, 1, "R21")), "after l.ts: not a backward candidate");
            assertEquals(List.of(), h.at(h.watermark(21)), "final: eager output already said it");
            assertEquals(0, h.counters().liveLeft(), "a final row leaves state");
            assertEquals(List.of(), h.at(h.end()));
        }
    }

    @Test
    void eagerInnerEmitsNothingWithoutACandidateThenInsertsTheFirstMatch()
    {
        try (VersionedTestHarness h = asof(JoinType.INNER, BACKWARD, EAGER))
        {
            assertEquals(List.of(), h.at(h.left(20, 1, "L20")));
            assertEquals(List.of("+I L20 R10"), h.at(h.right(10, 1, "R10")));
            assertEquals(ChangeKind.INSERT, h.out.get(0).kind());
            assertEquals(List.of("+U L20 R12", "-U L20 R10"), h.at(h.right(12, 1, "R12")));
        }
    }

    @Test
    void forwardFinalIsFinalOnceTheWatermarkPassesTheBestCandidate()
    {
        try (VersionedTestHarness h = asof(JoinType.LEFT, FORWARD, FINAL))
        {
            h.left(10, 1, "L10");
            assertEquals(List.of(), h.at(h.watermark(1000)), "no tolerance, no candidate: waits for one");
            h.right(1005, 1, "R1005");     // F = 1005
            assertEquals(List.of(), h.at(h.watermark(1005)));
            assertEquals(List.of("+I L10 R1005"), h.at(h.watermark(1006)));
        }
    }

    @Test
    void forwardDeadlineMovesEarlierWhenACloserCandidateArrives()
    {
        try (VersionedTestHarness h = asof(JoinType.INNER, FORWARD, FINAL))
        {
            h.left(10, 1, "L10");
            h.right(50, 1, "R50");
            h.right(20, 1, "R20");        // F moves from 50 to 20
            assertEquals(List.of("+I L10 R20"), h.at(h.watermark(21)));
        }
    }

    @Test
    void forwardWithToleranceAndNoCandidateIsFinalAfterLeftTsPlusTolerance()
    {
        try (VersionedTestHarness h = asof(JoinType.LEFT, AsofSpec.of(FORWARD).withTolerance(5)))
        {
            h.left(10, 1, "L10");
            h.right(16, 1, "R16");        // beyond the tolerance
            assertEquals(List.of(), h.at(h.watermark(15)));
            assertEquals(List.of("+I L10 null"), h.at(h.watermark(16)));
        }
    }

    @Test
    void nearestTakesTheClosestAndATieGoesToTheEarlierTs()
    {
        try (VersionedTestHarness h = asof(JoinType.INNER, AsofSpec.of(NEAREST).withTolerance(10)))
        {
            h.left(20, 1, "L20");
            h.right(24, 1, "R24");        // F = 20 + 4 = 24
            h.right(16, 1, "R16");        // same distance, earlier: the match; F stays 24
            assertEquals(List.of(), h.at(h.watermark(24)));
            assertEquals(List.of("+I L20 R16"), h.at(h.watermark(25)));
        }
    }

    @Test
    void nearestEagerCorrectsToACloserRowOnEitherSide()
    {
        try (VersionedTestHarness h = asof(JoinType.LEFT, NEAREST, EAGER))
        {
            h.right(10, 1, "R10");
            assertEquals(List.of("+I L20 R10"), h.at(h.left(20, 1, "L20")));
            assertEquals(List.of("+U L20 R27", "-U L20 R10"), h.at(h.right(27, 1, "R27")));
            assertEquals(List.of("+U L20 R19", "-U L20 R27"), h.at(h.right(19, 1, "R19")));
            assertEquals(List.of(), h.at(h.right(21, 1, "R21")), "a tie at distance 1: the earlier ts keeps it");
        }
    }

    @Test
    void allowedLatenessDelaysFinalityAndTheLateBound()
    {
        try (VersionedTestHarness h = new VersionedTestHarness(spec(JoinType.LEFT, AsofSpec.of(BACKWARD)).allowedLateness(5).build()))
        {
            h.left(10, 1, "L10");
            assertEquals(List.of(), h.at(h.watermark(15)), "W - A = 10 is not above F = 10");
            h.right(10, 1, "R10");        // 10 >= W - A: not late
            h.left(10, 1, "L10b");
            assertEquals(List.of("+I L10 R10", "+I L10b R10"), h.at(h.watermark(16)));
            final long late = h.right(10, 1, "R10late");   // 10 < 16 - 5
            assertEquals(DeadLetterReason.LATE, h.dead.get(0).reason());
            assertEquals(late, h.dead.get(0).step());
        }
    }

    @Test
    void lateRowsAndNonInsertsOfBothSidesAreDeadLetters()
    {
        try (VersionedTestHarness h = asof(JoinType.LEFT, BACKWARD, FINAL))
        {
            h.watermark(100);
            h.left(99, 1, "L99");
            h.right(99, 1, "R99");
            h.right("-D", 120, 1, "D120", 0L);
            h.row(Side.LEFT, ChangeKind.UPDATE_AFTER, 120, 1, "U120", 0L);
            assertEquals(4, h.dead.size());
            assertEquals(DeadLetterReason.LATE, h.dead.get(0).reason());
            assertEquals(DeadLetterReason.LATE, h.dead.get(1).reason());
            assertEquals(DeadLetterReason.NOT_APPEND_ONLY, h.dead.get(2).reason());
            assertEquals(DeadLetterReason.NOT_APPEND_ONLY, h.dead.get(3).reason());
            assertEquals(2, h.counters().lateRows());
            assertEquals(2, h.counters().badInputs());
        }
    }

    @Test
    void aNullKeyOrAFailedLeftFilterIsFinalAtOnce()
    {
        final JoinSpec spec = spec(JoinType.LEFT, AsofSpec.of(FORWARD).withEmit(FINAL))
            .leftFilter("v", CompareOp.GT, Literal.of(0)).build();
        try (VersionedTestHarness h = new VersionedTestHarness(spec))
        {
            assertEquals(List.of("+I Lnull null"), h.at(h.left(10, null, "Lnull", 1L)));
            assertEquals(List.of("+I Lfiltered null"), h.at(h.left(10, 1, "Lfiltered", 0L)));
            assertEquals(0, h.counters().liveLeft());
        }
        try (VersionedTestHarness h = new VersionedTestHarness(spec(JoinType.INNER, AsofSpec.of(FORWARD).withEmit(EAGER)).build()))
        {
            assertEquals(List.of(), h.at(h.left(10, null, "Lnull")));
            assertEquals(0, h.counters().liveLeft());
        }
    }

    @Test
    void rightRowsFailingTheirFilterAreNeverCandidatesAndTheConditionRestrictsCandidates()
    {
        final JoinSpec spec = spec(JoinType.LEFT, AsofSpec.of(BACKWARD))
            .rightFilter("v", CompareOp.NE, Literal.of(9)).condition("v", CompareOp.LE, "v").build();
        try (VersionedTestHarness h = new VersionedTestHarness(spec))
        {
            h.right(5, 1, "R5", 3L);
            h.right(8, 1, "R8", 1L);       // fails the condition for v = 2
            h.right(9, 1, "R9", 9L);       // fails the right filter
            h.left(10, 1, "L10", 2L);
            assertEquals(List.of("+I L10 R5"), h.at(h.end()));
        }
    }

    @Test
    void rightRowsLeaveStateOnceNoLeftRowCanSelectThem()
    {
        try (VersionedTestHarness h = asof(JoinType.INNER, BACKWARD, FINAL))
        {
            for (int i = 0; i < 100; i++)
            {
                h.right(i * 10L, 1, "R" + i);
                h.watermark(i * 10L);
            }
            assertTrue(h.counters().liveRight() <= 2, "backward keeps the newest row at or below W - A: " + h.counters().liveRight());
            h.left(995, 1, "L995");
            assertEquals(List.of("+I L995 R99"), h.at(h.end()));
        }
        try (VersionedTestHarness h = asof(JoinType.INNER, FORWARD, EAGER))
        {
            for (int i = 0; i < 100; i++)
            {
                h.right(i * 10L, 1, "R" + i);
                h.watermark(i * 10L);
            }
            assertTrue(h.counters().liveRight() <= 2, "forward frees rows below W - A: " + h.counters().liveRight());
        }
        try (VersionedTestHarness h = asof(JoinType.INNER, AsofSpec.of(NEAREST).withTolerance(20)))
        {
            for (int i = 0; i < 100; i++)
            {
                h.right(i * 10L, 1, "R" + i);
                h.left(i * 10L + 3, 1, "L" + i);
                h.watermark(i * 10L);
            }
            assertTrue(h.counters().liveRight() <= 4, "nearest: " + h.counters().liveRight());
            assertTrue(h.counters().liveLeft() <= 4, "nearest left rows: " + h.counters().liveLeft());
        }
    }

    @Test
    void theWatermarkIsTheMinimumOfBothInputsAndAnIdleInputStopsHoldingItBack()
    {
        try (VersionedTestHarness h = asof(JoinType.LEFT, BACKWARD, FINAL))
        {
            h.left(10, 1, "L10");
            assertEquals(List.of(), h.at(h.watermark(Side.LEFT, 50)));
            assertEquals(List.of(), h.at(h.watermark(Side.RIGHT, 10)));
            assertEquals(List.of("+I L10 null"), h.at(h.idle(Side.RIGHT)));
        }
    }

    @Test
    void countersAndHotKeysReportTheStateAsForTheOtherKinds()
    {
        try (VersionedTestHarness h = asof(JoinType.LEFT, BACKWARD, FINAL))
        {
            for (int i = 0; i < 20; i++)
            {
                h.right(i, "hot", "R" + i);
            }
            h.left(30, "hot", "Lhot");
            h.left(30, "cold", "Lcold");
            final OperatorCounters before = h.counters();
            assertEquals(22, before.rowsIn());
            assertEquals(2, before.liveLeft());
            assertEquals(20, before.liveRight(), "no watermark yet: nothing is freed");
            final List<HotKey> report = h.operator().hotKeys();
            assertEquals("\"hot\"", report.get(0).keyText());
            assertEquals(21, report.get(0).storedRows);
            assertEquals(21, report.get(0).liveRows);
            assertEquals(List.of("+I Lcold null", "+I Lhot R19"), h.at(h.watermark(31)));
            final OperatorCounters after = h.counters();
            assertEquals(2, after.rowsOut());
            assertEquals(0, after.liveLeft());
            assertEquals(1, after.liveRight(), "only the newest row at or below the watermark can still be selected");
            assertEquals(19, after.expiredRows(), "freed right rows count as expired");
            assertEquals(31, after.watermark());
        }
    }

    @Test
    void theSpecIsValidatedNamingTheField()
    {
        assertEquals("asof: required for an asof join (direction, tolerance, emit)",
            assertThrows(IllegalArgumentException.class, () -> VersionedTestHarness.spec(JoinKind.ASOF, JoinType.LEFT).build()).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> spec(JoinType.FULL, AsofSpec.of(BACKWARD)).build())
            .getMessage().startsWith("type:"));
        assertTrue(assertThrows(IllegalArgumentException.class,
            () -> spec(JoinType.LEFT, AsofSpec.of(BACKWARD)).interval(IntervalBounds.inclusive(0, 1)).build()).getMessage().startsWith("interval:"));
        assertTrue(assertThrows(IllegalArgumentException.class,
            () -> spec(JoinType.LEFT, AsofSpec.of(BACKWARD)).window(WindowSpec.tumbling(10, 0)).build()).getMessage().startsWith("window:"));
        assertTrue(assertThrows(IllegalArgumentException.class,
            () -> spec(JoinType.LEFT, AsofSpec.of(BACKWARD)).stateTtl(10).build()).getMessage().startsWith("stateTtl:"));
        assertTrue(assertThrows(IllegalArgumentException.class,
            () -> VersionedTestHarness.spec(JoinKind.TEMPORAL, JoinType.LEFT).asof(AsofSpec.of(BACKWARD)).build()).getMessage().startsWith("asof:"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> AsofSpec.of(null)).getMessage().startsWith("asof.direction:"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> AsofSpec.of(BACKWARD).withTolerance(-1))
            .getMessage().startsWith("asof.tolerance:"));
    }
}
