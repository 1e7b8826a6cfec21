package io.junction.join;

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
import io.junction.metrics.OperatorCounters;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.junction.join.IntervalTestRows.ABSENT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The event-time temporal join, rule by rule (docs/SEMANTICS.md section 7), event by event. */
class TemporalJoinTest
{
    private static VersionedTestHarness temporal(final JoinType type)
    {
        return VersionedTestHarness.of(JoinKind.TEMPORAL, type);
    }

    @Test
    void aLeftRowWaitsForTheWatermarkThenJoinsTheVersionValidAtItsTs()
    {
        try (VersionedTestHarness h = temporal(JoinType.INNER))
        {
            h.right(10, 1, "R10");
            h.right(20, 1, "R20");
            final long l15 = h.left(15, 1, "L15");
            final long l25 = h.left(25, 1, "L25");
            assertEquals(List.of(), h.at(l15));
            assertEquals(List.of(), h.at(l25));
            final long w14 = h.watermark(14);
            assertEquals(List.of(), h.at(w14), "the watermark has not reached 15");
            final long w15 = h.watermark(15);
            assertEquals(List.of("+I L15 R10"), h.at(w15));
            final long w30 = h.watermark(30);
            assertEquals(List.of("+I L25 R20"), h.at(w30));
            assertEquals(15, h.out.get(0).ts(), "output time is the left row's ts");
            assertEquals(25, h.out.get(1).ts());
        }
    }

    @Test
    void aVersionThatArrivesOutOfOrderBeforeTheWatermarkStillCounts()
    {
        try (VersionedTestHarness h = temporal(JoinType.INNER))
        {
            h.watermark(0);
            h.right(20, 1, "R20");
            h.left(15, 1, "L15");
            h.left(25, 1, "L25");
            h.right(12, 1, "R12");        // older than R20, newer than nothing: the version for [12, 20)
            final long w = h.watermark(40);
            assertEquals(List.of("+I L15 R12", "+I L25 R20"), h.at(w));
        }
    }

    @Test
    void aDeleteEndsTheVersionAndTheNextInsertStartsAnother()
    {
        try (VersionedTestHarness h = temporal(JoinType.LEFT))
        {
            h.right(10, 1, "R10");
            h.right("-D", 20, 1, "D20", ABSENT);
            h.right(30, 1, "R30");
            h.left(19, 1, "L19");
            h.left(20, 1, "L20");
            h.left(29, 1, "L29");
            h.left(30, 1, "L30");
            h.left(5, 1, "L5");
            final long w = h.watermark(100);
            assertEquals(List.of("+I L19 R10", "+I L20 null", "+I L29 null", "+I L30 R30", "+I L5 null"), h.at(w));
        }
    }

    @Test
    void anUpdateBeforeIsIgnoredAndItsUpdateAfterIsTheNewVersion()
    {
        try (VersionedTestHarness h = temporal(JoinType.INNER))
        {
            h.right(10, 1, "R10");
            h.right("-U", 20, 1, "R10", ABSENT);
            h.right("+U", 20, 1, "U20", ABSENT);
            h.left(15, 1, "L15");
            h.left(20, 1, "L20");
            final long w = h.watermark(20);
            assertEquals(List.of("+I L15 R10", "+I L20 U20"), h.at(w));
            assertEquals(0, h.counters().badInputs(), "-U is not a bad input");
        }
    }

    @Test
    void twoChangesAtOneTsLeaveTheLaterOne()
    {
        try (VersionedTestHarness h = temporal(JoinType.LEFT))
        {
            h.right(10, 1, "A");
            h.right(10, 1, "B");
            h.left(10, 1, "L1");
            h.right(20, 1, "C");
            h.right("-D", 20, 1, "D", ABSENT);
            h.left(20, 1, "L2");
            final long w = h.watermark(20);
            assertEquals(List.of("+I L1 B", "+I L2 null"), h.at(w));
            assertEquals(1, h.counters().liveRight(), "A and C were replaced; the tombstone at the watermark ends B and stays");
        }
    }

    @Test
    void lateLeftRowsAreDeadLettered()
    {
        try (VersionedTestHarness h = temporal(JoinType.LEFT))
        {
            h.right(5, 1, "R5");
            h.watermark(10);
            final long lateLeft = h.left(9, 1, "L9");
            final long onTime = h.left(10, 1, "L10");
            assertEquals(List.of(), h.at(lateLeft));
            assertEquals(List.of("+I L10 R5"), h.at(onTime), "ts == watermark: joined at once, at its own step");
            assertEquals(List.of(new OperatorTestHarness.Dead(lateLeft, Side.LEFT, ChangeKind.INSERT, "L9", 9, DeadLetterReason.LATE)), h.dead);
            assertEquals(1, h.counters().lateRows());
        }
    }

    @Test
    void aRightVersionBelowTheWatermarkCountsForEveryLeftRowNotYetEmitted()
    {
        try (VersionedTestHarness h = temporal(JoinType.LEFT))
        {
            h.right(5, 1, "R5");
            h.left(10, 1, "L10");
            assertEquals(List.of("+I L10 R5"), h.at(h.watermark(10)));
            h.left(20, 1, "L20");
            h.left(30, 1, "L30");
            final long late = h.right(8, 1, "R8");       // below the watermark: not late, the version from 8 on
            assertEquals(List.of(), h.at(late));
            h.right(25, 1, "R25");
            assertEquals(List.of("+I L20 R8", "+I L30 R25"), h.at(h.watermark(40)), "L10, already emitted, is not revised");
            assertEquals(List.of("+I L40 R25"), h.at(h.left(40, 1, "L40")));
            assertEquals(List.of(), h.dead);
            assertEquals(0, h.counters().lateRows());
            assertEquals(1, h.counters().liveRight(), "R5 and R8 were superseded at or below the watermark");
        }
    }

    @Test
    void aRightVersionBelowTheWatermarkOlderThanTheKeptVersionChangesNothing()
    {
        try (VersionedTestHarness h = temporal(JoinType.LEFT))
        {
            h.right(5, 1, "R5");
            h.right(8, 1, "R8");
            h.watermark(10);                              // R5 is freed: R8 is the version at the watermark
            assertEquals(1, h.counters().expiredRows());
            h.left(20, 1, "L20");
            h.right(3, 1, "R3");                          // older than the freed R5: superseded by R8 at once
            h.right(6, 1, "R6");
            assertEquals(List.of("+I L20 R8"), h.at(h.watermark(20)));
            assertEquals(1, h.counters().liveRight());
            assertEquals(3, h.counters().expiredRows(), "a version superseded on arrival counts as expired");
            assertEquals(List.of(), h.dead);
        }
    }

    @Test
    void aTombstoneAtOrBelowTheWatermarkIsKeptForTheRightRowsBelowIt()
    {
        try (VersionedTestHarness h = temporal(JoinType.LEFT))
        {
            h.right(5, 1, "R5");
            h.right("-D", 8, 1, "D8", ABSENT);
            h.watermark(10);
            assertEquals(1, h.counters().liveRight(), "R5 is freed, the tombstone at 8 is the key's change at the watermark");
            h.left(20, 1, "L20");
            h.right(6, 1, "R6");                          // ended by the tombstone at 8 before any waiting left row
            assertEquals(List.of("+I L20 null"), h.at(h.watermark(20)));
            h.left(30, 1, "L30");
            h.right(9, 1, "R9");                          // after the tombstone: the version from 9 on
            assertEquals(List.of("+I L30 R9"), h.at(h.watermark(30)));
            h.left(40, 1, "L40");
            h.right("-D", 25, 1, "D25", ABSENT);          // a tombstone below the watermark ends R9 for L40
            assertEquals(List.of("+I L40 null"), h.at(h.watermark(40)));
            assertEquals(List.of(), h.dead);
        }
    }

    @Test
    void aRightVersionBelowTheWatermarkOfAKeyWithoutStateCounts()
    {
        try (VersionedTestHarness h = temporal(JoinType.LEFT))
        {
            h.watermark(10);
            h.left(20, 1, "L20");
            h.left(20, 2, "M20");
            h.right(3, 1, "R3");
            h.right("-D", 4, 2, "D4", ABSENT);
            assertEquals(List.of("+I L20 R3", "+I M20 null"), h.at(h.watermark(25)));
            assertEquals(List.of(), h.dead);
        }
    }

    @Test
    void leftRowsOtherThanInsertsAreBadInputs()
    {
        try (VersionedTestHarness h = temporal(JoinType.LEFT))
        {
            h.row(Side.LEFT, ChangeKind.DELETE, 1, 1, "L-D", ABSENT);
            h.row(Side.LEFT, ChangeKind.UPDATE_AFTER, 1, 1, "L+U", ABSENT);
            h.row(Side.LEFT, ChangeKind.UPDATE_BEFORE, 1, 1, "L-U", ABSENT);
            h.end();
            assertEquals(3, h.dead.size());
            for (final OperatorTestHarness.Dead d : h.dead)
            {
                assertEquals(DeadLetterReason.NOT_APPEND_ONLY, d.reason());
            }
            assertEquals(List.of(), h.all());
            assertEquals(3, h.counters().badInputs());
        }
    }

    @Test
    void aNullKeyLeftRowIsPaddedAtOnceForLeftAndDroppedForInner()
    {
        for (final JoinType type : new JoinType[] {JoinType.LEFT, JoinType.INNER})
        {
            try (VersionedTestHarness h = temporal(type))
            {
                h.right(0, null, "Rnull");
                final long nul = h.left(10, null, "Lnull");
                final long absent = h.left(10, ABSENT, "Labsent");
                final List<String> expected = type == JoinType.LEFT ? List.of("+I Lnull null") : List.of();
                assertEquals(expected, h.at(nul));
                assertEquals(type == JoinType.LEFT ? List.of("+I Labsent null") : List.of(), h.at(absent));
                assertEquals(0, h.counters().liveLeft());
                assertEquals(0, h.counters().liveRight(), "a null-key right row is no version of anything");
                h.end();
                assertEquals(type == JoinType.LEFT ? 2 : 0, h.out.size());
            }
        }
    }

    @Test
    void filtersAndTheConditionDecideThePairAfterTheVersionIsChosen()
    {
        final JoinSpec spec = VersionedTestHarness.spec(JoinKind.TEMPORAL, JoinType.LEFT)
            .leftFilter("v", CompareOp.NE, Literal.of(9))
            .rightFilter("v", CompareOp.GE, Literal.of(0))
            .condition("v", CompareOp.LE, "v")
            .build();
        try (VersionedTestHarness h = new VersionedTestHarness(spec))
        {
            h.right(10, 1, "R10", 5);
            h.right(20, 1, "R20", -1);          // fails the right filter, yet it is the version from 20 on
            final long filteredLeft = h.left(30, 1, "L9", 9);
            assertEquals(List.of("+I L9 null"), h.at(filteredLeft), "a left row that fails its filter is padded at once");
            h.left(15, 1, "L15a", 5);           // 5 <= 5
            h.left(15, 1, "L15b", 6);           // 6 <= 5 fails: padded
            h.left(25, 1, "L25", 0);            // version R20 fails the right filter: padded, R10 is not used
            final long w = h.watermark(30);
            assertEquals(List.of("+I L15a R10", "+I L15b null", "+I L25 null"), h.at(w));
        }
    }

    @Test
    void perSideWatermarksTakeTheMinimum()
    {
        try (VersionedTestHarness h = temporal(JoinType.INNER))
        {
            h.right(10, 1, "R10");
            h.left(15, 1, "L15");
            assertEquals(List.of(), h.at(h.watermark(Side.LEFT, 100)));
            final long right14 = h.watermark(Side.RIGHT, 14);
            assertEquals(List.of(), h.at(right14));
            h.right(14, 1, "R14");              // not late: the join watermark is 14
            final long right20 = h.watermark(Side.RIGHT, 20);
            assertEquals(List.of("+I L15 R14"), h.at(right20));
        }
    }

    @Test
    void theEndOfInputFlushesEveryWaitingLeftRow()
    {
        try (VersionedTestHarness h = temporal(JoinType.LEFT))
        {
            h.right(10, 1, "R10");
            h.left(Long.MAX_VALUE, 1, "Lmax");
            h.left(20, 1, "L20");
            h.left(20, 2, "L20k2");
            h.watermark(5);
            final long end = h.end();
            assertEquals(List.of("+I L20 R10", "+I L20k2 null", "+I Lmax R10"), h.at(end));
            final OperatorCounters c = h.counters();
            assertEquals(0, c.liveLeft());
            assertEquals(1, c.liveRight(), "R10 stays the key's version");
            assertEquals(0, c.pendingTimers());
        }
    }

    @Test
    void versionsNoLeftRowCanSelectAreFreedWhenTheWatermarkPassesTheirSuccessor()
    {
        try (VersionedTestHarness h = temporal(JoinType.INNER))
        {
            for (int i = 0; i < 10; i++)
            {
                h.right(i * 10, 1, "R" + i);
                h.right(i * 10, 2, "S" + i);
            }
            h.right("-D", 95, 2, "D", ABSENT);
            assertEquals(21, h.counters().liveRight());
            h.watermark(45);
            // key 1: R4 (ts 40, the newest at or below 45) and R5..R9; key 2 the same plus the tombstone
            assertEquals(6 + 7, h.counters().liveRight());
            assertEquals(8, h.counters().expiredRows(), "R0..R3 and S0..S3");
            h.watermark(95);
            // key 1: R9 only; key 2: the tombstone at 95 (it ends S9, and stays for the right rows below it)
            assertEquals(2, h.counters().liveRight());
            h.left(95, 1, "L1");
            h.left(96, 2, "L2");
            h.right(96, 2, "S96");
            final long w = h.watermark(200);
            assertEquals(List.of("+I L2 S96"), h.at(w));
            assertEquals(List.of("+I L1 R9"), h.at(w - 3));
            assertEquals(2, h.counters().liveRight());
        }
    }

    @Test
    void aVersionAtTheWatermarkReplacesTheOneBeforeAtOnce()
    {
        try (VersionedTestHarness h = temporal(JoinType.LEFT))
        {
            h.right(10, 1, "R10");
            h.watermark(20);
            h.right(20, 1, "R20");
            assertEquals(1, h.counters().liveRight(), "R10 can no longer be selected");
            h.right("-D", 20, 1, "D20", ABSENT);
            assertEquals(1, h.counters().liveRight(), "a tombstone at the watermark replaces R20, and stays");
            final long l = h.left(20, 1, "L20");
            assertEquals(List.of("+I L20 null"), h.at(l));
        }
    }

    @Test
    void aVersionAtExactlyTheWatermarkCountsOnlyForLeftRowsEmittedAfterIt()
    {
        try (VersionedTestHarness h = temporal(JoinType.LEFT))
        {
            h.right(5, 1, "R5");
            h.left(10, 1, "Lbefore");
            final long w = h.watermark(10);
            assertEquals(List.of("+I Lbefore R5"), h.at(w), "emitted when the watermark reached 10");
            final long r10 = h.right(10, 1, "R10");      // not late: ts == watermark
            assertEquals(List.of(), h.at(r10));
            final long after = h.left(10, 1, "Lafter");
            assertEquals(List.of("+I Lafter R10"), h.at(after));
            assertEquals(List.of(), h.dead);
        }
    }

    @Test
    void anIdleRightInputLetsTheLeftWatermarkEmitWaitingRows()
    {
        try (VersionedTestHarness h = temporal(JoinType.LEFT))
        {
            h.right(5, 1, "R5");
            h.left(20, 1, "L20");
            h.watermark(Side.LEFT, 30);
            final long idle = h.idle(Side.RIGHT);
            assertEquals(List.of("+I L20 R5"), h.at(idle));
            h.right(25, 1, "R25");                      // the right input is back, below the join watermark: not late
            assertEquals(List.of(), h.dead);
            assertEquals(List.of("+I L30 R25"), h.at(h.left(30, 1, "L30")), "L20, already emitted, is not revised");
        }
    }

    @Test
    void aRowThatDoesNotFitIsRejectedWhole()
    {
        final StateConfig tiny = OperatorTestHarness.SMALL_STATE.withMaxLiveRows(2);
        try (VersionedTestHarness h = new VersionedTestHarness(VersionedTestHarness.spec(JoinKind.TEMPORAL, JoinType.LEFT).build(), tiny))
        {
            h.right(10, 1, "R10");
            h.left(15, 1, "L15");
            final long full = h.right(12, 1, "R12");
            final long fullLeft = h.left(16, 1, "L16");
            assertEquals(DeadLetterReason.STATE_FULL, h.dead.get(0).reason());
            assertEquals(full, h.dead.get(0).step());
            assertEquals(fullLeft, h.dead.get(1).step());
            final long w = h.watermark(20);
            assertEquals(List.of("+I L15 R10"), h.at(w), "the refused version had no effect");
        }
    }

    @Test
    void theSpecIsInnerOrLeftWithNoIntervalWindowLatenessTtlOrUniqueKey()
    {
        for (final JoinKind kind : new JoinKind[] {JoinKind.TEMPORAL, JoinKind.LOOKUP})
        {
            for (final JoinType type : new JoinType[] {JoinType.RIGHT, JoinType.FULL, JoinType.SEMI, JoinType.ANTI})
            {
                assertTrue(message(VersionedTestHarness.spec(kind, type)).startsWith("type:"));
            }
            assertTrue(message(VersionedTestHarness.spec(kind, JoinType.LEFT).interval(IntervalBounds.inclusive(0, 1)))
                .startsWith("interval:"));
            assertTrue(message(VersionedTestHarness.spec(kind, JoinType.LEFT).window(WindowSpec.tumbling(10, 0)))
                .startsWith("window:"));
            assertTrue(message(VersionedTestHarness.spec(kind, JoinType.LEFT).allowedLateness(5)).startsWith("allowedLateness:"));
            assertTrue(message(VersionedTestHarness.spec(kind, JoinType.LEFT).stateTtl(5)).startsWith("stateTtl:"));
            assertTrue(message(VersionedTestHarness.spec(kind, JoinType.INNER).rightUniqueKey("id")).startsWith("rightUniqueKey:"));
            assertEquals(kind, VersionedTestHarness.spec(kind, JoinType.INNER).build().kind());
        }
    }

    private static String message(final JoinSpec.Builder builder)
    {
        return assertThrows(IllegalArgumentException.class, builder::build).getMessage();
    }
}
