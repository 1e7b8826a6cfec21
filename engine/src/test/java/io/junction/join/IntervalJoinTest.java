package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.CompareOp;
import io.junction.api.DeadLetterReason;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.Side;
import io.junction.metrics.OperatorCounters;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.List;

import static io.junction.join.IntervalTestHarness.spec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The interval join (SEMANTICS 5) driven event by event, one behaviour per test. Steps are the replay's:
 * each input (row, watermark, end of input) is one step, numbered from 0.
 */
class IntervalJoinTest
{
    private static final long MAX = Long.MAX_VALUE;
    private static final long MIN = Long.MIN_VALUE;

    private static List<String> none()
    {
        return List.of();
    }

    private static void assertLive(final IntervalTestHarness h, final long left, final long right)
    {
        final OperatorCounters c = h.counters();
        assertEquals(left, c.liveLeft(), "liveLeft");
        assertEquals(right, c.liveRight(), "liveRight");
    }

    @Nested
    class Inner
    {
        @Test
        void emitsPairWithTheLaterTimestampWhenRightArrivesAfterLeft()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.INNER, -10, 30))
            {
                h.left(100, 1, "L");
                final long s = h.right(120, 1, "R");
                assertEquals(List.of("1: +I L R"), h.all());
                assertEquals(s, h.out.get(0).step());
                assertEquals(120, h.out.get(0).ts());
                assertEquals(ChangeKind.INSERT, h.out.get(0).kind());
            }
        }

        @Test
        void emitsPairWithTheLaterTimestampWhenLeftArrivesAfterRight()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.INNER, -10, 30))
            {
                h.right(95, 1, "R");
                h.left(100, 1, "L");
                assertEquals(List.of("1: +I L R"), h.all());
                assertEquals(100, h.out.get(0).ts());
            }
        }

        @Test
        void replaysWorkedCaseIntervalInnerInclusiveStepByStep()
        {
            // conformance/cases/interval_inner_inclusive: interval [-5, 10], mode "step".
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.INNER, -5, 10))
            {
                h.left(100, 1, "L100");
                h.right(90, 1, "R90");
                h.right(95, 1, "R95");
                h.right(94, 1, "R94");
                h.right(110, 1, "R110");
                h.right(111, 1, "R111");
                h.left(101, 1, "L101");
                h.right(100, 2, "R100k2");
                h.left(96, 2, "L96k2");
                h.left(100, null, "Lnull");
                h.right(100, null, "Rnull");
                assertEquals(List.of(
                    "2: +I L100 R95",
                    "4: +I L100 R110",
                    "6: +I L101 R110",
                    "6: +I L101 R111",
                    "8: +I L96k2 R100k2"), h.all());
                assertTrue(h.dead.isEmpty());
            }
        }

        @Test
        void inclusiveBoundsMatchAtBothEdgesOnly()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.INNER, -5, 10))
            {
                h.left(100, 1, "L");
                h.right(94, 1, "R94");
                h.right(95, 1, "R95");
                h.right(110, 1, "R110");
                h.right(111, 1, "R111");
                assertEquals(List.of("2: +I L R95", "3: +I L R110"), h.all());
            }
        }

        @Test
        void exclusiveLowerBoundExcludesItsEdge()
        {
            try (IntervalTestHarness h = new IntervalTestHarness(spec(JoinType.INNER, new IntervalBounds(-5, 10, false, true)).build()))
            {
                h.left(100, 1, "L");
                h.right(95, 1, "R95");
                h.right(96, 1, "R96");
                h.right(110, 1, "R110");
                assertEquals(List.of("2: +I L R96", "3: +I L R110"), h.all());
            }
        }

        @Test
        void exclusiveUpperBoundExcludesItsEdge()
        {
            try (IntervalTestHarness h = new IntervalTestHarness(spec(JoinType.INNER, new IntervalBounds(-5, 10, true, false)).build()))
            {
                h.left(100, 1, "L");
                h.right(95, 1, "R95");
                h.right(109, 1, "R109");
                h.right(110, 1, "R110");
                assertEquals(List.of("1: +I L R95", "2: +I L R109"), h.all());
            }
        }

        @Test
        void bothBoundsExclusive()
        {
            try (IntervalTestHarness h = new IntervalTestHarness(spec(JoinType.INNER, new IntervalBounds(-5, 10, false, false)).build()))
            {
                h.right(95, 1, "R95");
                h.right(96, 1, "R96");
                h.right(109, 1, "R109");
                h.right(110, 1, "R110");
                h.left(100, 1, "L");
                assertEquals(List.of("4: +I L R109", "4: +I L R96"), h.all());
            }
        }

        @Test
        void negativeLowerAndPositiveUpperBound()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.INNER, -10, 30))
            {
                h.left(100, 1, "L");
                h.right(89, 1, "R89");
                h.right(90, 1, "R90");
                h.right(100, 1, "R100");
                h.right(130, 1, "R130");
                h.right(131, 1, "R131");
                assertEquals(List.of("2: +I L R90", "3: +I L R100", "4: +I L R130"), h.all());
            }
        }

        @Test
        void bothBoundsPositive()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.INNER, 5, 10))
            {
                h.left(100, 1, "L");
                h.right(95, 1, "R95");
                h.right(100, 1, "R100");
                h.right(104, 1, "R104");
                h.right(105, 1, "R105");
                h.right(110, 1, "R110");
                h.right(111, 1, "R111");
                assertEquals(List.of("4: +I L R105", "5: +I L R110"), h.all());
            }
        }

        @Test
        void bothBoundsNegative()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.INNER, -20, -5))
            {
                h.right(79, 1, "R79");
                h.right(80, 1, "R80");
                h.right(95, 1, "R95");
                h.right(96, 1, "R96");
                h.right(100, 1, "R100");
                h.right(105, 1, "R105");
                h.left(100, 1, "L");
                assertEquals(List.of("6: +I L R80", "6: +I L R95"), h.all());
                assertEquals(100, h.out.get(0).ts());
            }
        }

        @Test
        void singlePointInterval()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.INNER, 5, 5))
            {
                h.left(100, 1, "L");
                h.right(104, 1, "R104");
                h.right(105, 1, "R105");
                h.right(106, 1, "R106");
                assertEquals(List.of("2: +I L R105"), h.all());
            }
        }

        @Test
        void keysCompareByValueAndType()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.INNER, -10, 10))
            {
                h.left(100, 1, "L1");
                h.left(100, "1", "Lstr");
                h.right(100, "1", "Rstr");
                h.right(100, 1, "R1");
                h.right(100, 2, "R2");
                assertEquals(List.of("2: +I Lstr Rstr", "3: +I L1 R1"), h.all());
            }
        }

        @Test
        void everyStoredRowOfTheOtherSideIsJoinedIncludingDuplicates()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.INNER, -10, 10))
            {
                h.left(100, 1, "L");
                h.left(100, 1, "L");
                h.left(105, 1, "L105");
                h.right(101, 1, "R");
                assertEquals(List.of("3: +I L R", "3: +I L R", "3: +I L105 R"), h.all());
                assertEquals(3, h.counters().rowsOut());
            }
        }

        @Test
        void nullOrAbsentKeysNeverMatchAndAreNotStored()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.INNER, -10, 10))
            {
                h.left(100, null, "Lnull");
                h.right(100, null, "Rnull");
                h.left(100, IntervalTestRows.ABSENT, "Labsent");
                h.right(100, IntervalTestRows.ABSENT, "Rabsent");
                h.end();
                assertEquals(none(), h.all());
                assertLive(h, 0, 0);
            }
        }

        @Test
        void rowsLeaveStateAtTheWatermarkThatClosesThem()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.INNER, -10, 30))
            {
                h.left(100, 1, "L");   // closes when watermark > 130
                h.right(100, 2, "R");  // closes when watermark > 110
                assertLive(h, 1, 1);
                h.watermark(110);
                assertLive(h, 1, 1);
                h.watermark(111);
                assertLive(h, 1, 0);
                h.watermark(130);
                assertLive(h, 1, 0);
                h.watermark(131);
                assertLive(h, 0, 0);
                assertEquals(2, h.counters().expiredRows());
                assertEquals(0, h.counters().pendingTimers());
                assertEquals(none(), h.all());
            }
        }
    }

    @Nested
    class Outer
    {
        @Test
        void replaysWorkedCaseIntervalLeftOuterAtTheClosingSteps()
        {
            // conformance/cases/interval_left_outer: interval [-10, 30].
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.LEFT, -10, 30))
            {
                h.left(100, 1, "L100match");
                h.left(110, 2, "L110never");
                h.right(105, 1, "R105");
                h.right(120, 3, "R120never");
                h.left(130, 4, "L130waits");
                h.watermark(125);
                h.watermark(Side.LEFT, 200);
                h.right(160, 4, "R160late-match");
                h.watermark(150);
                h.left(150, null, "Lnull");
                h.right(150, null, "Rnull");
                h.watermark(250);
                h.left(140, 1, "L140late");
                h.watermark(400);
                final long end = h.end();
                assertEquals(14, end);
                // The worked case (mode "final", produced by Flink) has Lnull at step 11; SEMANTICS 5 says a row
                // that can never match is emitted at its own step, 9.
                assertEquals(List.of(
                    "2: +I L100match R105",
                    "7: +I L130waits R160late-match",
                    "8: +I L110never null",
                    "9: +I Lnull null"), h.all());
                assertEquals(1, h.dead.size());
                assertEquals(new IntervalTestHarness.Dead(12, Side.LEFT, ChangeKind.INSERT, "L140late", 140, DeadLetterReason.LATE),
                    h.dead.get(0));
                assertEquals(1, h.counters().lateRows());
            }
        }

        @Test
        void leftOuterNeverPadsAMatchedLeftRow()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.LEFT, -10, 30))
            {
                h.left(100, 1, "L");
                h.right(105, 1, "R");
                h.watermark(1000);
                h.end();
                assertEquals(List.of("1: +I L R"), h.all());
            }
        }

        @Test
        void leftOuterPadsAnUnmatchedLeftRowOnceExactlyAtTheWatermarkThatClosesIt()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.LEFT, -10, 30))
            {
                h.left(100, 1, "L");          // closes when watermark > 100 + 30
                h.watermark(120);
                h.watermark(130);
                assertEquals(none(), h.all(), "nothing before the closing watermark");
                final long closing = h.watermark(131);
                h.watermark(500);
                h.end();
                assertEquals(List.of(closing + ": +I L null"), h.all());
                assertEquals(100, h.out.get(0).ts(), "a padded row carries its own ts");
                assertLive(h, 0, 0);
            }
        }

        @Test
        void allowedLatenessDelaysClosing()
        {
            try (IntervalTestHarness h = new IntervalTestHarness(spec(JoinType.LEFT, -10, 30).allowedLateness(5).build()))
            {
                h.left(100, 1, "L");          // closes when watermark - 5 > 130
                h.watermark(131);
                h.watermark(135);
                assertEquals(none(), h.all());
                final long closing = h.watermark(136);
                assertEquals(List.of(closing + ": +I L null"), h.all());
            }
        }

        @Test
        void exclusiveUpperBoundClosesTheLeftRowOneMillisecondEarlier()
        {
            try (IntervalTestHarness h = new IntervalTestHarness(spec(JoinType.LEFT, new IntervalBounds(-10, 30, true, false)).build()))
            {
                h.left(100, 1, "L");          // inclusive upper 29: closes when watermark > 129
                h.watermark(129);
                assertEquals(none(), h.all());
                final long closing = h.watermark(130);
                assertEquals(List.of(closing + ": +I L null"), h.all());
            }
        }

        @Test
        void leftRowMatchedByARightRowArrivingAtTheLastMomentIsNotPadded()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.LEFT, -10, 30))
            {
                h.left(100, 1, "L");
                h.watermark(130);
                final long s = h.right(130, 1, "R");
                h.watermark(131);
                h.end();
                assertEquals(List.of(s + ": +I L R"), h.all());
            }
        }

        @Test
        void leftOuterDoesNotPadRightRows()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.LEFT, -10, 30))
            {
                h.right(100, 1, "R");
                h.right(100, null, "Rnull");
                h.watermark(1000);
                h.end();
                assertEquals(none(), h.all());
            }
        }

        @Test
        void rightOuterPadsAnUnmatchedRightRowWhenTheWatermarkPassesTsMinusLower()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.RIGHT, -10, 30))
            {
                h.right(100, 1, "R");         // closes when watermark > 100 - (-10)
                h.watermark(110);
                assertEquals(none(), h.all());
                final long closing = h.watermark(111);
                h.end();
                assertEquals(List.of(closing + ": +I null R"), h.all());
                assertEquals(100, h.out.get(0).ts());
            }
        }

        @Test
        void rightOuterWithExclusiveLowerBoundClosesOneMillisecondEarlier()
        {
            try (IntervalTestHarness h = new IntervalTestHarness(spec(JoinType.RIGHT, new IntervalBounds(-10, 30, false, true)).build()))
            {
                h.right(100, 1, "R");         // inclusive lower -9: closes when watermark > 109
                h.watermark(109);
                assertEquals(none(), h.all());
                final long closing = h.watermark(110);
                assertEquals(List.of(closing + ": +I null R"), h.all());
            }
        }

        @Test
        void rightOuterWithPositiveBoundsAndLateness()
        {
            try (IntervalTestHarness h = new IntervalTestHarness(spec(JoinType.RIGHT, 5, 10).allowedLateness(3).build()))
            {
                h.right(100, 1, "R");         // closes when watermark - 3 > 100 - 5
                h.watermark(98);
                assertEquals(none(), h.all());
                final long closing = h.watermark(99);
                assertEquals(List.of(closing + ": +I null R"), h.all());
            }
        }

        @Test
        void rightOuterNeverPadsAMatchedRightRowNorAnyLeftRow()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.RIGHT, -10, 30))
            {
                h.right(100, 1, "R");
                h.left(95, 1, "L");
                h.left(95, 2, "Lother");
                h.watermark(1000);
                h.end();
                assertEquals(List.of("1: +I L R"), h.all());
            }
        }

        @Test
        void fullOuterPadsEachSideAtItsOwnClosingStep()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.FULL, -10, 30))
            {
                h.left(100, 1, "L");          // closes when watermark > 130
                h.right(200, 1, "R");         // 200 - 100 > 30: no match; closes when watermark > 210
                h.left(300, 2, "Lm");
                h.right(305, 2, "Rm");
                h.watermark(130);
                final long leftCloses = h.watermark(131);
                h.watermark(210);
                final long rightCloses = h.watermark(211);
                h.end();
                assertEquals(List.of("3: +I Lm Rm", leftCloses + ": +I L null", rightCloses + ": +I null R"), h.all());
            }
        }

        @Test
        void severalRowsClosedByOneWatermarkArePaddedAtItsStep()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.FULL, -10, 30))
            {
                h.left(100, 1, "L1");
                h.left(90, 2, "L2");
                h.right(80, 3, "R3");
                h.right(150, 4, "R4");        // closes when watermark > 160
                final long s = h.watermark(140);
                assertEquals(List.of("+I L1 null", "+I L2 null", "+I null R3"), h.at(s));
                assertEquals(3, h.out.size());
                assertLive(h, 0, 1);
            }
        }

        @Test
        void endOfInputPadsEveryRemainingUnmatchedOuterRowAtItsStep()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.FULL, -10, 30))
            {
                h.left(100, 1, "L1");
                h.right(105, 1, "R1");
                h.left(100, 2, "L2");
                h.right(100, 3, "R3");
                h.watermark(105);
                final long end = h.end();
                assertEquals(List.of("1: +I L1 R1", end + ": +I L2 null", end + ": +I null R3"), h.all());
                assertLive(h, 0, 0);
                assertEquals(0, h.counters().pendingTimers());
            }
        }
    }

    @Nested
    class SemiAndAnti
    {
        @Test
        void replaysWorkedCaseIntervalSemiBasic()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.SEMI, -10, 20))
            {
                feedSemiAntiCase(h);
                assertEquals(List.of(
                    "1: +I L100 null",
                    "4: +I L190 null",
                    "9: +I L170 null",
                    "12: +I L176 null",
                    "16: +I Ldup null",
                    "16: +I Ldup null"), h.all());
            }
        }

        @Test
        void replaysWorkedCaseIntervalAntiBasicAtTheClosingSteps()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.ANTI, -10, 20))
            {
                feedSemiAntiCase(h);
                assertEquals(List.of(
                    "10: +I L150 null",
                    "13: +I L160 null",
                    "13: +I Lstr null",
                    "19: +I Ldup6 null",
                    "19: +I Ldup6 null"), h.all());
            }
        }

        /** conformance/cases/interval_{semi,anti}_basic events, then the end of input (step 19). */
        private void feedSemiAntiCase(final IntervalTestHarness h)
        {
            h.left(100, 1, "L100");
            h.right(95, 1, "R95");
            h.right(119, 1, "R119");
            h.right(200, 2, "R200");
            h.left(190, 2, "L190");
            h.left(150, 2, "L150");
            h.left(160, 3, "L160");
            h.left(170, "1", "Lstr");
            h.right(175, 1, "R175");
            h.left(170, 1, "L170");
            h.watermark(175);
            h.left(176, 2, "L176");
            h.right(186, 2, "R186");
            h.watermark(300);
            h.left(400, 5, "Ldup");
            h.left(400, 5, "Ldup");
            h.right(405, 5, "R405");
            h.left(410, 6, "Ldup6");
            h.left(410, 6, "Ldup6");
            assertEquals(19, h.end());
            assertTrue(h.dead.isEmpty());
        }

        @Test
        void semiEmitsTheLeftRowAtItsFirstMatchOnlyOnce()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.SEMI, -10, 20))
            {
                h.left(100, 1, "L");
                final long first = h.right(95, 1, "R1");
                h.right(105, 1, "R2");
                h.watermark(1000);
                h.end();
                assertEquals(List.of(first + ": +I L null"), h.all());
                assertEquals(100, h.out.get(0).ts());
            }
        }

        @Test
        void semiEmitsALeftRowThatAlreadyMatchesOnArrivalOnceAtItsOwnStep()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.SEMI, -10, 20))
            {
                h.right(95, 1, "R1");
                h.right(105, 1, "R2");
                final long s = h.left(100, 1, "L");
                h.right(110, 1, "R3");
                h.end();
                assertEquals(List.of(s + ": +I L null"), h.all());
            }
        }

        @Test
        void semiNeverEmitsUnmatchedLeftRowsNorRightRows()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.SEMI, -10, 20))
            {
                h.left(100, 1, "L");
                h.left(100, null, "Lnull");
                h.right(200, 1, "R");
                h.right(200, null, "Rnull");
                h.watermark(1000);
                h.end();
                assertEquals(none(), h.all());
                assertLive(h, 0, 0);
            }
        }

        @Test
        void antiEmitsAnUnmatchedLeftRowWhenItClosesAndNotBefore()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.ANTI, -10, 20))
            {
                h.left(100, 1, "L");          // closes when watermark > 120
                h.right(200, 1, "R");
                h.watermark(120);
                assertEquals(none(), h.all());
                final long closing = h.watermark(121);
                h.end();
                assertEquals(List.of(closing + ": +I L null"), h.all());
            }
        }

        @Test
        void antiNeverEmitsAMatchedLeftRowNorRightRows()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.ANTI, -10, 20))
            {
                h.left(100, 1, "L");
                h.watermark(110);
                h.right(120, 1, "R");
                h.right(300, 2, "R2");
                h.watermark(1000);
                h.end();
                assertEquals(none(), h.all());
            }
        }

        @Test
        void antiEmitsAnUnmatchableLeftRowAtOnce()
        {
            try (IntervalTestHarness h = new IntervalTestHarness(
                spec(JoinType.ANTI, -10, 20).leftFilter("v", CompareOp.GT, Literal.of(0)).build()))
            {
                final long nullKey = h.left(100, null, "Lnull");
                final long filtered = h.left(100, 1, "Lfiltered", 0);
                h.right(100, 1, "R", 5);
                h.end();
                assertEquals(List.of(nullKey + ": +I Lnull null", filtered + ": +I Lfiltered null"), h.all());
                assertLive(h, 0, 0);
            }
        }
    }

    @Nested
    class Unmatchable
    {
        @Test
        void leftOuterPadsANullOrAbsentKeyLeftRowAtItsOwnStepAndNeverStoresIt()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.LEFT, -10, 30))
            {
                final long a = h.left(100, null, "Lnull");
                final long b = h.left(100, IntervalTestRows.ABSENT, "Labsent");
                assertEquals(List.of(a + ": +I Lnull null", b + ": +I Labsent null"), h.all());
                assertLive(h, 0, 0);
                h.right(100, null, "Rnull");
                h.watermark(1000);
                h.end();
                assertEquals(2, h.out.size(), "padded exactly once: " + h.all());
            }
        }

        @Test
        void rightOuterPadsANullKeyRightRowAtItsOwnStep()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.RIGHT, -10, 30))
            {
                h.left(100, null, "Lnull");
                final long s = h.right(100, null, "Rnull");
                h.end();
                assertEquals(List.of(s + ": +I null Rnull"), h.all());
                assertLive(h, 0, 0);
            }
        }

        @Test
        void fullOuterPadsNullKeyRowsOfBothSidesAtTheirOwnSteps()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.FULL, -10, 30))
            {
                final long l = h.left(100, null, "Lnull");
                final long r = h.right(100, null, "Rnull");
                h.end();
                assertEquals(List.of(l + ": +I Lnull null", r + ": +I null Rnull"), h.all());
            }
        }

        @Test
        void leftOuterPadsALeftRowFailingItsFilterAtOnceAndNeverJoinsIt()
        {
            try (IntervalTestHarness h = new IntervalTestHarness(
                spec(JoinType.LEFT, -10, 30).leftFilter("v", CompareOp.GT, Literal.of(0)).build()))
            {
                final long zero = h.left(100, 1, "Lzero", 0);
                final long nul = h.left(100, 1, "Lnullv", null);
                final long ok = h.left(100, 1, "Lok", 1);
                final long r = h.right(100, 1, "R", 0);
                h.end();
                assertEquals(List.of(zero + ": +I Lzero null", nul + ": +I Lnullv null", r + ": +I Lok R"), h.all());
            }
        }

        @Test
        void aRightRowFailingItsFilterIsNotStoredAndDoesNotMatch()
        {
            try (IntervalTestHarness h = new IntervalTestHarness(
                spec(JoinType.LEFT, -10, 30).rightFilter("v", CompareOp.EQ, Literal.of(1)).build()))
            {
                h.right(100, 1, "Rbad", 2);
                assertLive(h, 0, 0);
                h.left(100, 1, "L");
                h.right(101, 1, "Rbad2", 2);
                final long closing = h.watermark(131);
                assertEquals(List.of(closing + ": +I L null"), h.all());
            }
        }

        @Test
        void fullOuterPadsARightRowFailingItsFilterAtOnce()
        {
            try (IntervalTestHarness h = new IntervalTestHarness(
                spec(JoinType.FULL, -10, 30).rightFilter("v", CompareOp.NE, Literal.of("x")).build()))
            {
                final long s = h.right(100, 1, "Rx", "x");
                assertEquals(List.of(s + ": +I null Rx"), h.all());
                assertLive(h, 0, 0);
            }
        }
    }

    @Nested
    class ClosedOnArrival
    {
        @Test
        void aLeftRowArrivingClosedIsJoinedWithStoredRowsThenNotStored()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.LEFT, -20, -5))
            {
                h.right(85, 1, "R85");        // closes when watermark > 105
                h.watermark(90);
                final long matched = h.left(92, 1, "L92");   // 92 - 5 < 90: closed on arrival, not late
                assertEquals(List.of(matched + ": +I L92 R85"), h.all());
                assertLive(h, 0, 1);
                final long unmatched = h.left(93, 2, "L93");
                assertEquals(List.of("+I L93 null"), h.at(unmatched));
                assertLive(h, 0, 1);
                h.end();
                assertEquals(2, h.out.size(), h.all().toString());
            }
        }

        @Test
        void aRightRowArrivingClosedIsJoinedWithStoredRowsThenPaddedAtTheSameStepWhenUnmatched()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.RIGHT, 5, 10))
            {
                h.left(95, 1, "L95");         // closes when watermark > 105
                h.watermark(100);
                final long matched = h.right(102, 1, "R102");    // 102 - 5 < 100: closed on arrival
                final long unmatched = h.right(103, 2, "R103");
                assertEquals(List.of(matched + ": +I L95 R102", unmatched + ": +I null R103"), h.all());
                assertLive(h, 1, 0);
                h.end();
                assertEquals(2, h.out.size(), h.all().toString());
            }
        }

        @Test
        void antiEmitsALeftRowArrivingClosedAndUnmatchedAtItsOwnStep()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.ANTI, -20, -5))
            {
                h.right(85, 1, "R85");
                h.watermark(90);
                h.left(92, 1, "Lmatched");
                final long s = h.left(93, 2, "Lunmatched");
                h.end();
                assertEquals(List.of(s + ": +I Lunmatched null"), h.all());
            }
        }

        @Test
        void semiEmitsALeftRowArrivingClosedWhenItMatches()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.SEMI, -20, -5))
            {
                h.right(85, 1, "R85");
                h.watermark(90);
                final long s = h.left(92, 1, "Lmatched");
                h.left(93, 2, "Lunmatched");
                h.end();
                assertEquals(List.of(s + ": +I Lmatched null"), h.all());
            }
        }
    }

    @Nested
    class LateAndBadRows
    {
        @Test
        void aLateRowIsDeadLetteredCountedAndNeitherJoinedNorStoredNorPadded()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.FULL, -10, 30))
            {
                h.right(100, 1, "R");
                h.watermark(100);
                final long late = h.left(95, 1, "Llate");      // would match R, but 95 < 100
                assertEquals(none(), h.at(late));
                assertLive(h, 0, 1);
                assertEquals(1, h.counters().lateRows());
                assertEquals(List.of(new IntervalTestHarness.Dead(late, Side.LEFT, ChangeKind.INSERT, "Llate", 95, DeadLetterReason.LATE)),
                    h.dead);
                final long end = h.end();
                assertEquals(List.of(end + ": +I null R"), h.all());
            }
        }

        @Test
        void aLateRightRowIsDeadLettered()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.RIGHT, -10, 30))
            {
                h.left(100, 1, "L");
                h.watermark(100);
                final long late = h.right(99, 1, "Rlate");
                h.end();
                assertEquals(none(), h.all());
                assertEquals(1, h.dead.size());
                assertEquals(DeadLetterReason.LATE, h.dead.get(0).reason());
                assertEquals(Side.RIGHT, h.dead.get(0).side());
                assertEquals(late, h.dead.get(0).step());
                assertEquals(1, h.counters().lateRows());
            }
        }

        @Test
        void aRowAtExactlyWatermarkMinusLatenessIsNotLate()
        {
            try (IntervalTestHarness h = new IntervalTestHarness(spec(JoinType.INNER, -10, 30).allowedLateness(10).build()))
            {
                h.right(95, 1, "R");
                h.watermark(100);
                final long onTime = h.left(90, 1, "L90");
                final long late = h.left(89, 1, "L89");
                assertEquals(List.of(onTime + ": +I L90 R"), h.all());
                assertEquals(1, h.dead.size());
                assertEquals(late, h.dead.get(0).step());
                assertEquals(1, h.counters().lateRows());
            }
        }

        @Test
        void lateRowsInASemiOrAntiJoinAreDeadLettered()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.ANTI, -10, 30))
            {
                h.watermark(100);
                h.left(50, 1, "Llate");
                h.right(50, 1, "Rlate");
                h.end();
                assertEquals(none(), h.all());
                assertEquals(2, h.counters().lateRows());
            }
        }

        @ParameterizedTest
        @EnumSource(value = ChangeKind.class, names = {"DELETE", "UPDATE_BEFORE", "UPDATE_AFTER"})
        void nonInsertRowsAreDeadLetteredAsNotAppendOnly(final ChangeKind kind)
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.FULL, -10, 30))
            {
                h.left(100, 1, "L");
                final long bad = h.row(Side.RIGHT, kind, 100, 1, "Rbad", IntervalTestRows.ABSENT);
                final long badLeft = h.row(Side.LEFT, kind, 100, null, "Lbad", IntervalTestRows.ABSENT);
                assertEquals(none(), h.at(bad));
                assertEquals(none(), h.at(badLeft));
                assertLive(h, 1, 0);
                assertEquals(List.of(
                        new IntervalTestHarness.Dead(bad, Side.RIGHT, kind, "Rbad", 100, DeadLetterReason.NOT_APPEND_ONLY),
                        new IntervalTestHarness.Dead(badLeft, Side.LEFT, kind, "Lbad", 100, DeadLetterReason.NOT_APPEND_ONLY)),
                    h.dead);
                assertEquals(2, h.counters().badInputs());
                assertEquals(0, h.counters().lateRows());
                final long end = h.end();
                assertEquals(List.of(end + ": +I L null"), h.all());
            }
        }

        @Test
        void countersCountRowsInAndOut()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.LEFT, -10, 30))
            {
                h.left(100, 1, "L1");
                h.right(100, 1, "R1");
                h.left(100, 2, "L2");
                h.watermark(200);
                h.left(10, 2, "Llate");
                h.end();
                final OperatorCounters c = h.counters();
                assertEquals(4, c.rowsIn());
                assertEquals(2, c.rowsOut());
                assertEquals(1, c.lateRows());
                assertEquals(0, c.badInputs());
            }
        }
    }

    @Nested
    class Watermarks
    {
        @Test
        void aWatermarkOnOneSideOnlyDoesNotAdvanceTheJoinWatermark()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.LEFT, -10, 30))
            {
                h.left(100, 1, "L");
                h.watermark(Side.LEFT, 1000);
                assertEquals(none(), h.all());
                assertEquals(MIN, h.counters().watermark());
                h.left(50, 2, "Lnotlate");                   // not late: the join watermark is still MIN
                assertTrue(h.dead.isEmpty());
                final long s = h.watermark(Side.RIGHT, 500);
                assertEquals(500, h.counters().watermark());
                assertEquals(List.of("+I L null", "+I Lnotlate null"), h.at(s));
            }
        }

        @Test
        void theJoinWatermarkIsTheMinimumOfBothInputs()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.LEFT, -10, 30))
            {
                h.left(100, 1, "L");
                h.watermark(Side.RIGHT, 1000);
                h.watermark(Side.LEFT, 120);
                assertEquals(120, h.counters().watermark());
                assertEquals(none(), h.all());
                final long s = h.watermark(Side.LEFT, 131);
                assertEquals(List.of(s + ": +I L null"), h.all());
            }
        }

        @Test
        void aLowerWatermarkIsIgnored()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.LEFT, -10, 30))
            {
                h.watermark(200);
                h.watermark(100);
                assertEquals(200, h.counters().watermark());
                final long late = h.left(150, 1, "Llate");
                assertEquals(1, h.dead.size());
                assertEquals(late, h.dead.get(0).step());
                h.left(200, 1, "L");
                h.watermark(Side.LEFT, 50);
                h.watermark(Side.RIGHT, 220);
                assertEquals(200, h.counters().watermark(), "left input stays at 200");
                final long s = h.watermark(231);
                assertEquals(List.of(s + ": +I L null"), h.all());
            }
        }

        @Test
        void aRowAfterTheEndOfInputIsLate()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.LEFT, -10, 30))
            {
                h.end();
                h.left(100, 1, "L");
                assertEquals(none(), h.all());
                assertEquals(1, h.counters().lateRows());
                assertLive(h, 0, 0);
            }
        }
    }

    @Nested
    class ConditionAndFilters
    {
        @Test
        void thePostJoinConditionMustHoldForAPair()
        {
            try (IntervalTestHarness h = new IntervalTestHarness(
                spec(JoinType.INNER, -10, 30).condition("v", CompareOp.LE, "v").build()))
            {
                h.left(100, 1, "L", 5);
                h.right(100, 1, "R4", 4);
                h.right(100, 1, "R5", 5);
                h.right(100, 1, "R6", 6.5);
                h.right(100, 1, "Rnull", null);
                h.right(100, 1, "Rstr", "9");
                assertEquals(List.of("2: +I L R5", "3: +I L R6"), h.all());
            }
        }

        @Test
        void aLeftRowWhoseOnlyCandidateFailsTheConditionIsPaddedWhenItCloses()
        {
            try (IntervalTestHarness h = new IntervalTestHarness(
                spec(JoinType.LEFT, -10, 30).condition("v", CompareOp.EQ, "v").build()))
            {
                h.left(100, 1, "L", 1);
                h.right(100, 1, "R", 2);
                h.watermark(130);
                assertEquals(none(), h.all());
                final long s = h.watermark(131);
                assertEquals(List.of(s + ": +I L null"), h.all());
            }
        }

        @Test
        void preFiltersApplyToTheirOwnSideOnly()
        {
            try (IntervalTestHarness h = new IntervalTestHarness(spec(JoinType.INNER, -10, 30)
                .leftFilter("v", CompareOp.EQ, Literal.of(1))
                .rightFilter("v", CompareOp.GE, Literal.of(10))
                .build()))
            {
                h.left(100, 1, "L1", 1);
                h.left(100, 1, "L2", 2);
                h.right(100, 1, "R10", 10);
                h.right(100, 1, "R1", 1);
                assertEquals(List.of("2: +I L1 R10"), h.all());
                assertLive(h, 1, 1);
            }
        }
    }

    @Nested
    class ExtremeTimestamps
    {
        @Test
        void rowsNearLongMaxValueMatchWithoutOverflow()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.FULL, -100, 100))
            {
                h.left(MAX - 5, 1, "L");
                h.right(MAX, 1, "R");
                h.right(MAX - 1, 2, "R2");
                h.left(MAX, 2, "L2");
                h.watermark(MAX - 1);
                h.end();
                assertEquals(List.of("1: +I L R", "3: +I L2 R2"), h.all());
                assertEquals(MAX, h.out.get(0).ts());
            }
        }

        @Test
        void anUnmatchedLeftRowNearLongMaxValueClosesOnlyAtTheEndOfInput()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.LEFT, -100, 100))
            {
                h.left(MAX - 5, 1, "L");      // ts + upper is beyond Long.MAX_VALUE: no watermark closes it
                h.watermark(MAX - 1);
                h.watermark(MAX);
                assertEquals(none(), h.all());
                assertLive(h, 1, 0);
                final long end = h.end();
                assertEquals(List.of(end + ": +I L null"), h.all());
            }
        }

        @Test
        void rowsNearLongMinValueMatchWithoutOverflow()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.FULL, -100, 100))
            {
                h.left(MIN + 1, 1, "L");
                h.right(MIN, 1, "R");
                h.right(MIN + 200, 1, "Rfar");
                final long closing = h.watermark(MIN + 301);   // Rfar closes when watermark > MIN + 300
                h.end();
                assertEquals(List.of("1: +I L R", closing + ": +I null Rfar"), h.all());
            }
        }

        @Test
        void aRightRowNearLongMinValueClosesAtTsMinusLower()
        {
            try (IntervalTestHarness h = IntervalTestHarness.of(JoinType.RIGHT, -100, 100))
            {
                h.right(MIN, 1, "R");         // closes when watermark > MIN + 100
                h.watermark(MIN + 100);
                assertEquals(none(), h.all());
                final long s = h.watermark(MIN + 101);
                assertEquals(List.of(s + ": +I null R"), h.all());
            }
        }

        @Test
        void latenessNearLongMinValueDoesNotWrap()
        {
            try (IntervalTestHarness h = new IntervalTestHarness(spec(JoinType.INNER, -100, 100).allowedLateness(10).build()))
            {
                h.watermark(MIN + 5);
                h.left(MIN, 1, "L");
                h.right(MIN + 3, 1, "R");
                assertTrue(h.dead.isEmpty(), h.dead.toString());
                assertEquals(List.of("2: +I L R"), h.all());
            }
        }

        @Test
        void theWidestIntervalMatchesDifferencesUpToTheLongRangeOnly()
        {
            try (IntervalTestHarness h = new IntervalTestHarness(spec(JoinType.FULL, MIN, MAX).build()))
            {
                h.left(-1, 1, "La");
                h.right(MAX - 1, 1, "Ra");    // diff = MAX: matches
                h.left(0, 2, "Lb");
                h.right(MIN, 2, "Rb");        // diff = MIN: matches
                h.left(1, 3, "Lc");
                h.right(MIN, 3, "Rc");        // diff = MIN - 1: beyond the long range, no match
                h.left(-2, 4, "Ld");
                h.right(MAX, 4, "Rd");        // diff = MAX + 2: no match
                final long end = h.end();
                assertEquals(List.of(
                    "1: +I La Ra",
                    "3: +I Lb Rb",
                    end + ": +I Lc null",
                    end + ": +I Ld null",
                    end + ": +I null Rc",
                    end + ": +I null Rd"), h.all());
            }
        }

        @Test
        void theWidestExclusiveIntervalExcludesItsEdges()
        {
            try (IntervalTestHarness h = new IntervalTestHarness(spec(JoinType.INNER, new IntervalBounds(MIN, MAX, false, false)).build()))
            {
                h.left(-1, 1, "La");
                h.right(MAX - 1, 1, "Ra");    // diff = MAX: excluded
                h.left(0, 2, "Lb");
                h.right(MIN, 2, "Rb");        // diff = MIN: excluded
                h.left(0, 3, "Lc");
                h.right(MAX - 1, 3, "Rc");    // diff = MAX - 1: included
                assertEquals(List.of("5: +I Lc Rc"), h.all());
            }
        }

        @Test
        void aLeftRowInTheWidestIntervalClosesWithoutOverflow()
        {
            try (IntervalTestHarness h = new IntervalTestHarness(spec(JoinType.FULL, MIN, MAX).build()))
            {
                h.left(-10, 1, "L");          // closes when watermark > -10 + MAX
                h.right(10, 2, "R");          // 10 - MIN is beyond the long range: no watermark closes it
                h.watermark(MAX - 10);
                assertEquals(none(), h.all());
                final long s = h.watermark(MAX - 9);
                h.watermark(MAX);
                assertEquals(List.of(s + ": +I L null"), h.all());
                final long end = h.end();
                assertEquals(List.of(s + ": +I L null", end + ": +I null R"), h.all());
            }
        }

        @Test
        void aWatermarkJumpFromNearLongMinToNearLongMaxTerminatesWithATickOfOneMillisecond() throws InterruptedException
        {
            // With tickShift 0 a tick is a millisecond, so ticks span the whole long range and
            // TimerWheel.advance's "targetTick - currentTick >= slots.length" can overflow. Runs on a
            // daemon thread: a wheel walking 2^64 ticks must fail this test, not hang the test JVM.
            final List<String> result = new CopyOnWriteArrayList<>();
            final long[] closingStep = {-1};
            final Thread worker = new Thread(() ->
            {
                try (IntervalTestHarness h = new IntervalTestHarness(
                    spec(JoinType.LEFT, -10, 30).build(), IntervalTestHarness.SMALL_STATE.withWheel(0, 4096)))
                {
                    h.watermark(MIN + 1);
                    h.left(MAX - 10, 1, "Lforever");   // deadline saturates at MAX: stays pending
                    h.left(0, 2, "L0");                 // closes when watermark > 30
                    closingStep[0] = h.watermark(MAX - 1);
                    result.addAll(h.all());
                }
            }, "interval-wheel-overflow");
            worker.setDaemon(true);
            worker.start();
            worker.join(Duration.ofSeconds(10).toMillis());
            assertTrue(!worker.isAlive(), "a watermark jump from Long.MIN_VALUE + 1 to Long.MAX_VALUE - 1 did not return in 10 s " +
                "(TimerWheel.advance walking the ticks one by one?)");
            assertEquals(List.of(closingStep[0] + ": +I L0 null"), result);
        }
    }

    @Nested
    class Validation
    {
        @ParameterizedTest(name = "lower={0} upper={1} lowerInclusive={2} upperInclusive={3}")
        @CsvSource({
            "5, 5, true, false",
            "5, 5, false, true",
            "5, 5, false, false",
            "6, 5, true, true",
            "5, 6, false, false",
            "-4, -5, true, true",
            "-9223372036854775808, -9223372036854775808, true, false",
            "9223372036854775807, 9223372036854775807, false, true",
            "9223372036854775807, 9223372036854775807, false, false",
        })
        void anEmptyIntervalIsRejectedAtSpecBuildTime(
            final long lower, final long upper, final boolean lowerInclusive, final boolean upperInclusive)
        {
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () ->
                spec(JoinType.INNER, new IntervalBounds(lower, upper, lowerInclusive, upperInclusive)).build());
            assertTrue(e.getMessage().contains("interval is empty"), e.getMessage());
        }

        @ParameterizedTest(name = "lower={0} upper={1} lowerInclusive={2} upperInclusive={3}")
        @CsvSource({
            "5, 5, true, true",
            "5, 6, true, false",
            "5, 6, false, true",
            "5, 7, false, false",
            "-9223372036854775808, -9223372036854775808, true, true",
            "9223372036854775807, 9223372036854775807, true, true",
            "-9223372036854775808, 9223372036854775807, false, false",
        })
        void aNonEmptyIntervalIsAccepted(
            final long lower, final long upper, final boolean lowerInclusive, final boolean upperInclusive)
        {
            final IntervalBounds bounds = new IntervalBounds(lower, upper, lowerInclusive, upperInclusive);
            final JoinSpec built = spec(JoinType.INNER, bounds).build();
            assertEquals(lower, built.interval().lower());
            assertEquals(upper, built.interval().upper());
            assertEquals(lowerInclusive, built.interval().lowerInclusive());
            assertEquals(upperInclusive, built.interval().upperInclusive());
        }

        @Test
        void theIntervalIsRequired()
        {
            assertThrows(IllegalArgumentException.class, () -> spec(JoinType.INNER, 0, 1).interval(null).build());
        }

        @Test
        void negativeAllowedLatenessIsRejected()
        {
            assertThrows(IllegalArgumentException.class, () -> spec(JoinType.INNER, 0, 1).allowedLateness(-1).build());
        }
    }
}
