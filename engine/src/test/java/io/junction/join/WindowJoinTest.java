package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.CompareOp;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.Side;
import io.junction.api.WindowSpec;
import io.junction.metrics.OperatorCounters;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static io.junction.join.WindowTestHarness.spec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import org.junit.jupiter.api.Assertions;

/**
 * The window join (SEMANTICS 6) driven event by event, one behaviour per test. Steps are the replay's:
 * each input (row, watermark, end of input) is one step, numbered from 0. Outputs read
 * {@code "step: +I left right [start,end)"} with {@code null} for a padded side (semi and anti joins
 * output the left row only).
 */
class WindowJoinTest
{
    private static final Object ABSENT = IntervalTestRows.ABSENT;

    private static List<String> none()
    {
        return List.of();
    }

    /** @return the lines sorted as {@link WindowTestHarness#all()} sorts them: by step, then text. */
    private static List<String> expect(final String... lines)
    {
        return Arrays.stream(lines)
            .sorted(Comparator.<String>comparingLong(l -> Long.parseLong(l.substring(0, l.indexOf(':')))).thenComparing(Comparator.naturalOrder()))
            .collect(Collectors.toList());
    }

    private static void assertLive(final WindowTestHarness h, final long left, final long right)
    {
        final OperatorCounters c = h.counters();
        assertEquals(left, c.liveLeft(), "liveLeft");
        assertEquals(right, c.liveRight(), "liveRight");
    }

    private static void assertStateEmpty(final WindowTestHarness h)
    {
        final OperatorCounters c = h.counters();
        assertEquals(0, c.liveLeft(), "liveLeft");
        assertEquals(0, c.liveRight(), "liveRight");
        assertEquals(0, c.pendingTimers(), "pendingTimers");
    }

    static Stream<Arguments> typesAndWindows()
    {
        final List<Arguments> all = new ArrayList<>();
        for (final JoinType type : JoinType.values())
        {
            all.add(Arguments.of(type, WindowSpec.tumbling(10, 3)));
            all.add(Arguments.of(type, WindowSpec.sliding(10, 4, 0)));
            all.add(Arguments.of(type, WindowSpec.session(5)));
        }
        return all.stream();
    }

    private static WindowTestHarness.Dead late(final long step, final Side side, final String id, final long ts)
    {
        return new WindowTestHarness.Dead(step, side, ChangeKind.INSERT, id, ts, DeadLetterReason.LATE_WINDOW);
    }

    @Nested
    class WorkedCases
    {
        /** The events of conformance/cases/window_tumbling_inner and window_session_inner (the same log). */
        private void feedWorkedCaseEvents(final WindowTestHarness h)
        {
            h.left(1, 1, "L1");               // 0
            h.right(3, 1, "R3");              // 1
            h.left(9, 1, "L9");               // 2
            h.right(5, 2, "R5");              // 3
            h.left(12, 3, "L12");             // 4
            h.right(10, 1, "R10");            // 5
            h.watermark(Side.LEFT, 9);        // 6
            h.watermark(10);                  // 7
            h.left(4, 1, "L4late");           // 8
            h.right(14, 1, "R14");            // 9
            h.left(15, null, "Lnull");        // 10
            h.right(15, null, "Rnull");       // 11
            h.watermark(19);                  // 12
            h.right(18, 3, "R18late");        // 13
            h.left(25, 3, "L25");             // 14
            assertEquals(15, h.end());
        }

        @Test
        void replaysWorkedCaseWindowTumblingInnerStepByStep()
        {
            // conformance/cases/window_tumbling_inner: tumbling size 10, offset 0 (mode "final"; the steps are SPEC's).
            try (WindowTestHarness h = WindowTestHarness.tumbling(JoinType.INNER, 10, 0))
            {
                feedWorkedCaseEvents(h);
                assertEquals(expect(
                    "7: +I L1 R3 [0,10)",
                    "7: +I L9 R3 [0,10)"), h.all());
                assertEquals(List.of(
                    late(8, Side.LEFT, "L4late", 4),
                    late(13, Side.RIGHT, "R18late", 18)), h.dead);
                assertEquals(2, h.counters().lateRows());
                assertEquals(0, h.counters().badInputs());
                assertStateEmpty(h);
            }
        }

        @Test
        void replaysWorkedCaseWindowSessionInnerStepByStep()
        {
            // conformance/cases/window_session_inner: session gap 5 (mode "final"; the steps are SPEC's).
            try (WindowTestHarness h = WindowTestHarness.session(JoinType.INNER, 5))
            {
                feedWorkedCaseEvents(h);
                assertEquals(expect(
                    "7: +I L1 R3 [1,8)",
                    "12: +I L4late R10 [4,19)",
                    "12: +I L4late R14 [4,19)",
                    "12: +I L9 R10 [4,19)",
                    "12: +I L9 R14 [4,19)"), h.all());
                assertTrue(h.dead.isEmpty(), () -> "dead letters: " + h.dead);
                assertEquals(0, h.counters().lateRows());
                assertStateEmpty(h);
            }
        }
    }

    @Nested
    class Tumbling
    {
        @Test
        void windowsStartOnMultiplesOfSizeAndAreHalfOpen()
        {
            try (WindowTestHarness h = WindowTestHarness.tumbling(JoinType.INNER, 10, 0))
            {
                h.left(0, 1, "L0");
                h.right(9, 1, "R9");
                h.right(10, 1, "R10");
                h.left(19, 1, "L19");
                h.watermark(100);
                assertEquals(expect(
                    "4: +I L0 R9 [0,10)",
                    "4: +I L19 R10 [10,20)"), h.all());
            }
        }

        @Test
        void offsetShiftsTheWindowBoundaries()
        {
            try (WindowTestHarness h = WindowTestHarness.tumbling(JoinType.INNER, 10, 3))
            {
                h.left(2, 1, "L2");
                h.right(-7, 1, "Rm7");
                h.right(3, 1, "R3");
                h.left(12, 1, "L12");
                h.right(13, 1, "R13");
                h.watermark(100);
                assertEquals(expect(
                    "5: +I L2 Rm7 [-7,3)",
                    "5: +I L12 R3 [3,13)"), h.all());
            }
        }

        @Test
        void offsetIsTakenModuloSize()
        {
            try (WindowTestHarness h = WindowTestHarness.tumbling(JoinType.INNER, 10, -7))
            {
                h.left(2, 1, "L2");
                h.right(3, 1, "R3");
                h.left(12, 1, "L12");
                h.end();
                assertEquals(expect("3: +I L12 R3 [3,13)"), h.all());
            }
        }

        @Test
        void negativeTimestampsFallInFlooredWindows()
        {
            try (WindowTestHarness h = WindowTestHarness.tumbling(JoinType.INNER, 10, 0))
            {
                h.left(-1, 1, "Lm1");
                h.right(-10, 1, "Rm10");
                h.right(-11, 1, "Rm11");
                h.end();
                assertEquals(expect("3: +I Lm1 Rm10 [-10,0)"), h.all());
            }
        }
    }

    @Nested
    class Sliding
    {
        @Test
        void aRowIsInSeveralWindowsAndPairsAreEmittedPerWindow()
        {
            try (WindowTestHarness h = WindowTestHarness.sliding(JoinType.INNER, 10, 5))
            {
                h.left(7, 1, "L7");
                h.right(8, 1, "R8");
                h.watermark(100);
                assertEquals(expect(
                    "2: +I L7 R8 [0,10)",
                    "2: +I L7 R8 [5,15)"), h.all());
            }
        }

        @Test
        void rowsPairOnlyInTheWindowsTheyShare()
        {
            try (WindowTestHarness h = WindowTestHarness.sliding(JoinType.INNER, 10, 5))
            {
                h.left(3, 1, "L3");           // [-5,5) [0,10)
                h.right(12, 1, "R12");        // [5,15) [10,20)
                h.right(9, 1, "R9");          // [0,10) [5,15)
                h.watermark(100);
                assertEquals(expect("3: +I L3 R9 [0,10)"), h.all());
            }
        }

        @Test
        void overlappingWindowsFireOneByOneAsTheWatermarkPasses()
        {
            try (WindowTestHarness h = WindowTestHarness.sliding(JoinType.INNER, 10, 5))
            {
                h.left(7, 1, "L7");
                h.right(8, 1, "R8");
                h.watermark(8);
                h.watermark(9);
                h.watermark(13);
                h.watermark(14);
                assertEquals(expect(
                    "3: +I L7 R8 [0,10)",
                    "5: +I L7 R8 [5,15)"), h.all());
            }
        }

        @Test
        void offsetShiftsTheWindowStarts()
        {
            try (WindowTestHarness h = new WindowTestHarness(spec(JoinType.INNER, WindowSpec.sliding(10, 4, 1)).build()))
            {
                h.left(6, 1, "L6");
                h.right(6, 1, "R6");
                h.end();
                assertEquals(expect(
                    "2: +I L6 R6 [-3,7)",
                    "2: +I L6 R6 [1,11)",
                    "2: +I L6 R6 [5,15)"), h.all());
            }
        }

        @Test
        void leftJoinPadsAnUnmatchedRowInEachWindowWhereItHasNoMatch()
        {
            try (WindowTestHarness h = WindowTestHarness.sliding(JoinType.LEFT, 10, 5))
            {
                h.left(7, 1, "L7");           // [0,10) [5,15)
                h.right(12, 1, "R12");        // [5,15) [10,20)
                h.watermark(100);
                assertEquals(expect(
                    "2: +I L7 R12 [5,15)",
                    "2: +I L7 null [0,10)"), h.all());
            }
        }

        @Test
        void semiEmitsTheLeftRowOncePerWindowWithAMatch()
        {
            try (WindowTestHarness h = WindowTestHarness.sliding(JoinType.SEMI, 10, 5))
            {
                h.left(7, 1, "L");
                h.right(8, 1, "Ra");
                h.right(9, 1, "Rb");
                h.right(12, 1, "Rc");
                h.end();
                assertEquals(expect(
                    "4: +I L null [0,10)",
                    "4: +I L null [5,15)"), h.all());
            }
        }

        @Test
        void antiEmitsTheLeftRowInTheWindowsWithoutAMatchOnly()
        {
            try (WindowTestHarness h = WindowTestHarness.sliding(JoinType.ANTI, 10, 5))
            {
                h.left(7, 1, "L");
                h.right(12, 1, "R");
                h.end();
                assertEquals(expect("2: +I L null [0,10)"), h.all());
            }
        }
    }

    @Nested
    class Session
    {
        @Test
        void rowsOfBothSidesMergeIntoOneSession()
        {
            try (WindowTestHarness h = WindowTestHarness.session(JoinType.INNER, 5))
            {
                h.left(0, 1, "L0");
                h.right(4, 1, "R4");
                h.left(8, 1, "L8");
                h.watermark(100);
                assertEquals(expect(
                    "3: +I L0 R4 [0,13)",
                    "3: +I L8 R4 [0,13)"), h.all());
            }
        }

        @Test
        void rowsExactlyGapApartShareASessionBecauseTouchingWindowsMerge()
        {
            try (WindowTestHarness h = WindowTestHarness.session(JoinType.INNER, 5))
            {
                h.left(0, 1, "L0");
                h.right(5, 1, "R5");
                h.watermark(100);
                assertEquals(expect("2: +I L0 R5 [0,10)"), h.all());
            }
        }

        @Test
        void rowsMoreThanGapApartAreInSeparateSessions()
        {
            try (WindowTestHarness h = WindowTestHarness.session(JoinType.FULL, 5))
            {
                h.left(0, 1, "L0");
                h.right(6, 1, "R6");
                h.watermark(100);
                assertEquals(expect(
                    "2: +I L0 null [0,5)",
                    "2: +I null R6 [6,11)"), h.all());
            }
        }

        @Test
        void aLaterRowBridgesTwoSessionsIntoOne()
        {
            try (WindowTestHarness h = WindowTestHarness.session(JoinType.INNER, 5))
            {
                h.left(0, 1, "L0");
                h.right(10, 1, "R10");
                h.right(5, 1, "R5");
                h.watermark(100);
                assertEquals(expect(
                    "3: +I L0 R10 [0,15)",
                    "3: +I L0 R5 [0,15)"), h.all());
            }
        }

        @Test
        void sessionsArePerKey()
        {
            try (WindowTestHarness h = WindowTestHarness.session(JoinType.FULL, 5))
            {
                h.left(0, 1, "L1");
                h.right(2, 2, "R2");
                h.watermark(100);
                assertEquals(expect(
                    "2: +I L1 null [0,5)",
                    "2: +I null R2 [2,7)"), h.all());
            }
        }

        @Test
        void aSessionFiresExactlyWhenTheWatermarkReachesItsEndMinusOne()
        {
            try (WindowTestHarness h = WindowTestHarness.session(JoinType.INNER, 5))
            {
                h.left(0, 1, "L0");
                h.right(3, 1, "R3");          // session [0,8)
                final long before = h.watermark(6);
                final long at = h.watermark(7);
                assertEquals(none(), h.at(before));
                assertEquals(List.of("+I L0 R3 [0,8)"), h.at(at));
                assertEquals(1, h.out.size());
            }
        }

        @Test
        void aRowExtendingASessionPostponesItsFiring()
        {
            try (WindowTestHarness h = WindowTestHarness.session(JoinType.INNER, 5))
            {
                h.left(0, 1, "L0");
                h.right(3, 1, "R3");          // [0,8)
                h.watermark(6);
                h.left(7, 1, "L7");           // merged: [0,12)
                h.watermark(7);
                h.watermark(10);
                h.watermark(11);
                assertEquals(expect(
                    "6: +I L0 R3 [0,12)",
                    "6: +I L7 R3 [0,12)"), h.all());
            }
        }

        @Test
        void aFiredSessionIsFinalAndALaterTouchingRowStartsANewSession()
        {
            try (WindowTestHarness h = WindowTestHarness.session(JoinType.INNER, 5))
            {
                h.left(0, 1, "L0");
                h.right(2, 1, "R2");          // [0,7)
                h.watermark(6);               // fires [0,7)
                h.right(7, 1, "R7");          // touches the fired [0,7): a new session [7,12), not late
                h.left(8, 1, "L8");           // [7,13)
                h.end();
                assertEquals(expect(
                    "2: +I L0 R2 [0,7)",
                    "5: +I L8 R7 [7,13)"), h.all());
                assertTrue(h.dead.isEmpty(), () -> "dead letters: " + h.dead);
            }
        }

        @Test
        void aRowMergingIntoAnUnfiredSessionIsNotLateEvenIfItsOwnWindowIsDue()
        {
            try (WindowTestHarness h = WindowTestHarness.session(JoinType.INNER, 5))
            {
                h.right(10, 1, "R10");        // [10,15)
                h.watermark(12);
                h.left(6, 1, "L6");           // own [6,11) is due, merged [6,15) is not
                h.watermark(13);
                h.watermark(14);
                assertEquals(expect("4: +I L6 R10 [6,15)"), h.all());
                assertTrue(h.dead.isEmpty(), () -> "dead letters: " + h.dead);
            }
        }

        @Test
        void aRowWhoseMergedSessionIsAlreadyDueIsLate()
        {
            try (WindowTestHarness h = WindowTestHarness.session(JoinType.FULL, 5))
            {
                h.right(10, 1, "R10");        // [10,15)
                h.watermark(12);
                h.left(3, 1, "L3");           // [3,8): does not reach [10,15), due at 7 <= 12
                h.end();
                assertEquals(List.of(late(2, Side.LEFT, "L3", 3)), h.dead);
                assertEquals(1, h.counters().lateRows());
                assertEquals(expect("3: +I null R10 [10,15)"), h.all());
            }
        }

        @Test
        void theConditionDoesNotChangeSessionMerging()
        {
            try (WindowTestHarness h = new WindowTestHarness(
                spec(JoinType.INNER, WindowSpec.session(5)).condition("v", CompareOp.EQ, "v").build()))
            {
                h.left(0, 1, "L0", 1);
                h.right(4, 1, "Rx", 2);       // fails the condition but still bridges the session
                h.right(8, 1, "R8", 1);
                h.end();
                assertEquals(expect("3: +I L0 R8 [0,13)"), h.all());
            }
        }

        /**
         * A row merging into an unfired session whose own deadline ({@code ts + gap - 2}) lies in a
         * timer-wheel tick before the current watermark's: the session must still fire at the watermark
         * that reaches its end - 1.
         */
        @Test
        void aSessionExtendedBackwardsAcrossATimerTickFiresAtItsWatermark()
        {
            try (WindowTestHarness h = WindowTestHarness.session(JoinType.INNER, 5000))
            {
                h.right(10_000, 1, "R");      // [10000,15000)
                h.watermark(12_000);
                h.left(6_000, 1, "L");        // merged [6000,15000)
                final long firing = h.watermark(20_000);
                h.end();
                assertEquals(expect(firing + ": +I L R [6000,15000)"), h.all());
                assertStateEmpty(h);
            }
        }

        @Test
        void aSessionExtendedBackwardsAcrossZeroFiresAtItsWatermark()
        {
            try (WindowTestHarness h = WindowTestHarness.session(JoinType.INNER, 5))
            {
                h.right(0, 1, "R0");          // [0,5)
                h.watermark(1);
                h.left(-4, 1, "Lm4");         // [-4,1) touches [0,5): merged [-4,5)
                final long firing = h.watermark(10);
                h.end();
                assertEquals(expect(firing + ": +I Lm4 R0 [-4,5)"), h.all());
            }
        }
    }

    @Nested
    class Firing
    {
        @Test
        void aWindowFiresExactlyWhenTheWatermarkReachesEndMinusOneAndNotBefore()
        {
            try (WindowTestHarness h = WindowTestHarness.tumbling(JoinType.INNER, 10, 0))
            {
                h.left(1, 1, "L1");
                h.right(2, 1, "R2");
                final long before = h.watermark(8);
                final long at = h.watermark(9);
                assertEquals(none(), h.at(0));
                assertEquals(none(), h.at(1));
                assertEquals(none(), h.at(before));
                assertEquals(List.of("+I L1 R2 [0,10)"), h.at(at));
            }
        }

        @Test
        void aWatermarkJumpingPastSeveralWindowsFiresThemAllAtItsStep()
        {
            try (WindowTestHarness h = WindowTestHarness.tumbling(JoinType.INNER, 10, 0))
            {
                h.left(1, 1, "La");
                h.right(2, 1, "Ra");
                h.left(11, 1, "Lb");
                h.right(12, 1, "Rb");
                h.left(21, 1, "Lc");
                h.right(22, 1, "Rc");
                h.watermark(40);
                assertEquals(expect(
                    "6: +I La Ra [0,10)",
                    "6: +I Lb Rb [10,20)",
                    "6: +I Lc Rc [20,30)"), h.all());
            }
        }

        @Test
        void eachWindowFiresOnce()
        {
            try (WindowTestHarness h = WindowTestHarness.tumbling(JoinType.FULL, 10, 0))
            {
                h.left(1, 1, "L");
                h.right(2, 1, "R");
                h.left(3, 2, "L2");
                h.watermark(9);
                h.watermark(20);
                h.watermark(Side.LEFT, 30);
                h.watermark(30);
                h.end();
                assertEquals(expect(
                    "3: +I L R [0,10)",
                    "3: +I L2 null [0,10)"), h.all());
            }
        }

        @Test
        void theJoinWatermarkIsTheMinimumOfBothInputs()
        {
            try (WindowTestHarness h = WindowTestHarness.tumbling(JoinType.INNER, 10, 0))
            {
                h.left(1, 1, "L");
                h.right(2, 1, "R");
                h.watermark(Side.LEFT, 100);
                h.watermark(Side.RIGHT, 8);
                final long at = h.watermark(Side.RIGHT, 9);
                assertEquals(expect(at + ": +I L R [0,10)"), h.all());
            }
        }

        @Test
        void aWatermarkGoingBackwardsIsIgnored()
        {
            try (WindowTestHarness h = WindowTestHarness.tumbling(JoinType.INNER, 10, 0))
            {
                h.watermark(9);
                h.watermark(3);
                h.watermark(Side.LEFT, 2);
                final long lateStep = h.left(5, 1, "L");
                assertEquals(List.of(late(lateStep, Side.LEFT, "L", 5)), h.dead);
                assertEquals(9, h.counters().watermark());
            }
        }

        @Test
        void nothingIsLateBeforeBothInputsHaveAWatermark()
        {
            try (WindowTestHarness h = WindowTestHarness.tumbling(JoinType.INNER, 10, 0))
            {
                h.watermark(Side.LEFT, 100);
                h.left(1, 1, "L");
                h.right(2, 1, "R");
                final long end = h.end();
                assertTrue(h.dead.isEmpty(), () -> "dead letters: " + h.dead);
                assertEquals(expect(end + ": +I L R [0,10)"), h.all());
            }
        }
    }

    @Nested
    class Types
    {
        /**
         * Window [0,10): L1a k1, L2 k2, R1a k1, R1b k1, R3 k3. Window [10,20): L1b k1. Both fire at step 6.
         */
        private WindowTestHarness run(final JoinType type)
        {
            final WindowTestHarness h = WindowTestHarness.tumbling(type, 10, 0);
            h.left(1, 1, "L1a");
            h.left(2, 2, "L2");
            h.right(3, 1, "R1a");
            h.right(4, 1, "R1b");
            h.right(5, 3, "R3");
            h.left(15, 1, "L1b");
            h.watermark(100);
            h.end();
            return h;
        }

        @Test
        void innerEmitsThePairsOfEachKeyInEachWindow()
        {
            try (WindowTestHarness h = run(JoinType.INNER))
            {
                assertEquals(expect(
                    "6: +I L1a R1a [0,10)",
                    "6: +I L1a R1b [0,10)"), h.all());
            }
        }

        @Test
        void leftAlsoPadsUnmatchedLeftRowsPerWindow()
        {
            try (WindowTestHarness h = run(JoinType.LEFT))
            {
                assertEquals(expect(
                    "6: +I L1a R1a [0,10)",
                    "6: +I L1a R1b [0,10)",
                    "6: +I L2 null [0,10)",
                    "6: +I L1b null [10,20)"), h.all());
            }
        }

        @Test
        void rightAlsoPadsUnmatchedRightRowsPerWindow()
        {
            try (WindowTestHarness h = run(JoinType.RIGHT))
            {
                assertEquals(expect(
                    "6: +I L1a R1a [0,10)",
                    "6: +I L1a R1b [0,10)",
                    "6: +I null R3 [0,10)"), h.all());
            }
        }

        @Test
        void fullPadsUnmatchedRowsOfBothSides()
        {
            try (WindowTestHarness h = run(JoinType.FULL))
            {
                assertEquals(expect(
                    "6: +I L1a R1a [0,10)",
                    "6: +I L1a R1b [0,10)",
                    "6: +I L2 null [0,10)",
                    "6: +I L1b null [10,20)",
                    "6: +I null R3 [0,10)"), h.all());
            }
        }

        @Test
        void semiEmitsEachLeftRowWithAMatchOnce()
        {
            try (WindowTestHarness h = run(JoinType.SEMI))
            {
                assertEquals(expect("6: +I L1a null [0,10)"), h.all());
            }
        }

        @Test
        void antiEmitsTheLeftRowsWithoutAMatch()
        {
            try (WindowTestHarness h = run(JoinType.ANTI))
            {
                assertEquals(expect(
                    "6: +I L2 null [0,10)",
                    "6: +I L1b null [10,20)"), h.all());
            }
        }

        @ParameterizedTest
        @EnumSource(JoinType.class)
        void everyOutputIsAnInsertWithItsWindowAndCounted(final JoinType type)
        {
            try (WindowTestHarness h = run(type))
            {
                for (final WindowTestHarness.Out o : h.out)
                {
                    assertEquals(ChangeKind.INSERT, o.kind(), o::toString);
                    assertTrue(o.start() != WindowTestHarness.NO_WINDOW && o.end() - o.start() == 10, o::toString);
                }
                assertEquals(h.out.size(), h.counters().rowsOut());
                assertEquals(6, h.counters().rowsIn());
            }
        }
    }

    @Nested
    class UnmatchableRows
    {
        @Test
        void nullKeyRowsAreAloneInTheirWindowAndPaddedWhenItFires()
        {
            try (WindowTestHarness h = WindowTestHarness.tumbling(JoinType.FULL, 10, 0))
            {
                h.left(1, null, "Ln");
                h.right(2, null, "Rn");
                h.watermark(8);
                final long at = h.watermark(9);
                assertEquals(expect(
                    at + ": +I Ln null [0,10)",
                    at + ": +I null Rn [0,10)"), h.all());
            }
        }

        @Test
        void anAbsentKeyIsANullKey()
        {
            try (WindowTestHarness h = WindowTestHarness.tumbling(JoinType.LEFT, 10, 0))
            {
                h.left(1, ABSENT, "La");
                h.right(2, ABSENT, "Ra");
                h.end();
                assertEquals(expect("2: +I La null [0,10)"), h.all());
            }
        }

        @Test
        void aNullKeyRowIsPaddedOnceInEachOfItsSlidingWindows()
        {
            try (WindowTestHarness h = WindowTestHarness.sliding(JoinType.LEFT, 10, 5))
            {
                h.left(7, null, "Ln");
                h.watermark(9);
                h.watermark(13);
                h.watermark(14);
                h.end();
                assertEquals(expect(
                    "1: +I Ln null [0,10)",
                    "3: +I Ln null [5,15)"), h.all());
            }
        }

        @Test
        void aNullKeyRowIsAloneInItsOwnSession()
        {
            try (WindowTestHarness h = WindowTestHarness.session(JoinType.FULL, 5))
            {
                h.left(0, null, "Ln");
                h.right(2, null, "Rn");
                h.left(1, 1, "L1");
                h.right(3, 1, "R1");
                h.watermark(4);
                h.watermark(6);
                h.watermark(7);
                assertEquals(expect(
                    "4: +I Ln null [0,5)",
                    "5: +I null Rn [2,7)",
                    "6: +I L1 R1 [1,8)"), h.all());
            }
        }

        @Test
        void antiEmitsANullKeyLeftRowWhenItsWindowFires()
        {
            try (WindowTestHarness h = WindowTestHarness.tumbling(JoinType.ANTI, 10, 0))
            {
                h.left(1, null, "Ln");
                h.right(2, null, "Rn");
                h.watermark(8);
                final long at = h.watermark(9);
                assertEquals(expect(at + ": +I Ln null [0,10)"), h.all());
            }
        }

        @ParameterizedTest
        @EnumSource(value = JoinType.class, names = {"INNER", "SEMI"})
        void innerAndSemiNeverEmitNullKeyRows(final JoinType type)
        {
            try (WindowTestHarness h = WindowTestHarness.tumbling(type, 10, 0))
            {
                h.left(1, null, "Ln");
                h.right(2, null, "Rn");
                h.left(3, 1, "L");
                h.right(4, 1, "R");
                h.end();
                assertEquals(type == JoinType.INNER ? expect("4: +I L R [0,10)") : expect("4: +I L null [0,10)"), h.all());
                assertStateEmpty(h);
            }
        }

        @Test
        void aStringKeyDoesNotMatchTheEqualNumber()
        {
            try (WindowTestHarness h = WindowTestHarness.tumbling(JoinType.INNER, 10, 0))
            {
                h.left(1, "1", "Ls");
                h.right(2, 1, "Rn");
                h.right(3, "1", "Rs");
                h.end();
                assertEquals(expect("3: +I Ls Rs [0,10)"), h.all());
            }
        }

        @Test
        void aLeftRowFailingItsPreFilterIsAloneAndPadded()
        {
            try (WindowTestHarness h = new WindowTestHarness(
                spec(JoinType.LEFT, WindowSpec.tumbling(10, 0)).leftFilter("v", CompareOp.EQ, Literal.of(1)).build()))
            {
                h.left(1, 1, "Lf", 0);
                h.right(2, 1, "R", 1);
                h.left(3, 1, "Lok", 1);
                h.end();
                assertEquals(expect(
                    "3: +I Lf null [0,10)",
                    "3: +I Lok R [0,10)"), h.all());
            }
        }

        @Test
        void aRightRowFailingItsPreFilterIsPaddedInARightJoin()
        {
            try (WindowTestHarness h = new WindowTestHarness(
                spec(JoinType.RIGHT, WindowSpec.tumbling(10, 0)).rightFilter("v", CompareOp.GT, Literal.of(0)).build()))
            {
                h.left(1, 1, "L", 5);
                h.right(2, 1, "Rf", 0);
                h.end();
                assertEquals(expect("2: +I null Rf [0,10)"), h.all());
            }
        }

        @Test
        void antiEmitsALeftRowFailingItsPreFilter()
        {
            try (WindowTestHarness h = new WindowTestHarness(
                spec(JoinType.ANTI, WindowSpec.tumbling(10, 0)).leftFilter("v", CompareOp.EQ, Literal.of(1)).build()))
            {
                h.left(1, 1, "Lf", 0);
                h.right(2, 1, "R", 0);
                h.end();
                assertEquals(expect("2: +I Lf null [0,10)"), h.all());
            }
        }

        @Test
        void aFilteredRowBridgesSessionsAndIsPaddedInTheMergedSession()
        {
            // SEMANTICS 6: a filtered row takes part in its key's sessions but matches nothing.
            try (WindowTestHarness h = new WindowTestHarness(
                spec(JoinType.FULL, WindowSpec.session(5)).rightFilter("v", CompareOp.EQ, Literal.of(1)).build()))
            {
                h.left(0, 1, "L0", 1);
                h.right(4, 1, "Rf", 0);
                h.right(8, 1, "R8", 1);
                h.end();
                assertEquals(expect(
                    "3: +I L0 R8 [0,13)",
                    "3: +I null Rf [0,13)"), h.all());
            }
        }

        @Test
        void aFilteredRowExtendsASessionInAnInnerJoinButMatchesNothing()
        {
            // The engine work defect 11, first example.
            try (WindowTestHarness h = new WindowTestHarness(
                spec(JoinType.INNER, WindowSpec.session(5)).rightFilter("v", CompareOp.EQ, Literal.of(1)).build()))
            {
                h.left(0, 1, "L0");
                h.right(5, 1, "R5", 0);
                h.right(10, 1, "R10", 1);
                h.end();
                assertEquals(expect("3: +I L0 R10 [0,15)"), h.all());
                assertTrue(h.dead.isEmpty(), () -> "dead letters: " + h.dead);
                assertStateEmpty(h);
            }
        }

        @Test
        void aFilteredRowOpensASessionThatAnEarlierRowJoins()
        {
            // The engine work defect 11, second example: the filtered R12 (no v) extends L10's session to [10,14).
            try (WindowTestHarness h = new WindowTestHarness(
                spec(JoinType.LEFT, WindowSpec.session(2)).rightFilter("v", CompareOp.LT, Literal.of("bad")).build()))
            {
                h.right(12, 0, "R12");
                h.left(10, 0, "L10");
                h.end();
                assertEquals(expect("2: +I L10 null [10,14)"), h.all());
            }
        }

        @Test
        void aFilteredRowIsLateOnlyWhenItsMergedSessionIsDue()
        {
            // The engine work defect 11, third example: R6 alone would be due at 10, but merges into [6,15).
            try (WindowTestHarness h = new WindowTestHarness(
                spec(JoinType.RIGHT, WindowSpec.session(5)).rightFilter("v", CompareOp.EQ, Literal.of(1)).build()))
            {
                h.left(10, 1, "L10");
                h.watermark(12);
                h.right(6, 1, "R6", 0);
                h.watermark(13);
                assertEquals(none(), h.all());
                final long at = h.watermark(14);
                assertEquals(expect(at + ": +I null R6 [6,15)"), h.all());
                assertTrue(h.dead.isEmpty(), () -> "dead letters: " + h.dead);
                final long lateStep = h.right(9, 1, "R9", 0);
                assertEquals(List.of(late(lateStep, Side.RIGHT, "R9", 9)), h.dead);
            }
        }

        @Test
        void antiEmitsAFilteredLeftRowInItsKeysSessionAndSemiDoesNot()
        {
            for (final JoinType type : new JoinType[] {JoinType.ANTI, JoinType.SEMI})
            {
                try (WindowTestHarness h = new WindowTestHarness(
                    spec(type, WindowSpec.session(5)).leftFilter("v", CompareOp.EQ, Literal.of(1)).build()))
                {
                    h.left(0, 1, "Lf", 0);
                    h.right(3, 1, "R");
                    h.end();
                    assertEquals(type == JoinType.ANTI ? expect("2: +I Lf null [0,8)") : none(), h.all(), type::name);
                    assertStateEmpty(h);
                }
            }
        }

        @Test
        void aFilteredRowIsPaddedInEachOfItsSlidingWindows()
        {
            try (WindowTestHarness h = new WindowTestHarness(
                spec(JoinType.FULL, WindowSpec.sliding(10, 5, 0)).leftFilter("v", CompareOp.EQ, Literal.of(1)).build()))
            {
                h.left(7, 1, "Lf", 0);
                h.right(8, 1, "R");
                h.end();
                assertEquals(expect(
                    "2: +I Lf null [0,10)",
                    "2: +I Lf null [5,15)",
                    "2: +I null R [0,10)",
                    "2: +I null R [5,15)"), h.all());
            }
        }

        @Test
        void aNullKeyRowStaysAloneEvenWhenItAlsoFailsItsFilter()
        {
            try (WindowTestHarness h = new WindowTestHarness(
                spec(JoinType.FULL, WindowSpec.session(5)).leftFilter("v", CompareOp.EQ, Literal.of(1)).build()))
            {
                h.left(0, 1, "L0", 1);
                h.left(3, null, "Ln", 0);
                h.right(5, 1, "R5");
                h.end();
                assertEquals(expect(
                    "3: +I L0 R5 [0,10)",
                    "3: +I Ln null [3,8)"), h.all());
            }
        }
    }

    /** The engine work defects 1 and 2: window assignment is exact at the ends of the long range. */
    @Nested
    class ExtremeTimestamps
    {
        private static final long MIN = Long.MIN_VALUE;
        private static final long MAX = Long.MAX_VALUE;

        private String window(final long start, final long end)
        {
            return " [" + start + ',' + end + ')';
        }

        @Test
        void aRowAtMinValueIsInOneTumblingWindowClampedToMinValue()
        {
            // floorMod(MIN, 10) = 2: the window [MIN - 2, MIN + 8) starts below the range and is reported from MIN.
            try (WindowTestHarness h = WindowTestHarness.tumbling(JoinType.LEFT, 10, 0))
            {
                h.left(MIN, 1, "L");
                h.end();
                assertEquals(expect("1: +I L null" + window(MIN, MIN + 8)), h.all());
                assertTrue(h.dead.isEmpty(), () -> "dead letters: " + h.dead);
                assertStateEmpty(h);
            }
        }

        @Test
        void aNullKeyRowAtMinValueIsPaddedOnceInATumblingLeftJoin()
        {
            try (WindowTestHarness h = WindowTestHarness.tumbling(JoinType.LEFT, 10, 0))
            {
                h.left(MIN, null, "Ln");
                h.end();
                assertEquals(expect("1: +I Ln null" + window(MIN, MIN + 8)), h.all());
                assertTrue(h.dead.isEmpty(), () -> "dead letters: " + h.dead);
                assertStateEmpty(h);
            }
        }

        @Test
        void aNullKeyRowAtMinValueIsPaddedOncePerSlidingWindow()
        {
            // (MIN - 0) mod 3 = 1: the windows end at MIN + 9, + 6 and + 3, all starting below MIN.
            try (WindowTestHarness h = WindowTestHarness.sliding(JoinType.LEFT, 10, 3))
            {
                h.left(MIN, null, "Ln");
                h.end();
                assertEquals(expect(
                    "1: +I Ln null" + window(MIN, MIN + 3),
                    "1: +I Ln null" + window(MIN, MIN + 6),
                    "1: +I Ln null" + window(MIN, MIN + 9)), h.all());
                assertStateEmpty(h);
            }
        }

        @Test
        void aMatchingPairNearMinValueJoinsInEachSlidingWindow()
        {
            // ts - offset = MIN, MIN mod 3 = 1: windows start at ts - 1 = MIN, ts - 4 and ts - 7 (clamped to MIN).
            try (WindowTestHarness h = new WindowTestHarness(spec(JoinType.INNER, WindowSpec.sliding(10, 3, 1)).build()))
            {
                h.left(MIN + 1, 1, "L");
                h.right(MIN + 1, 1, "R");
                h.watermark(MIN + 4);
                assertEquals(expect("2: +I L R" + window(MIN, MIN + 4)), h.all());
                h.end();
                assertEquals(expect(
                    "2: +I L R" + window(MIN, MIN + 4),
                    "3: +I L R" + window(MIN, MIN + 7),
                    "3: +I L R" + window(MIN, MIN + 10)), h.all());
                assertTrue(h.dead.isEmpty(), () -> "dead letters: " + h.dead);
                assertStateEmpty(h);
            }
        }

        @Test
        void aWindowOfSizeMaxValueEmitsAPairOnce()
        {
            try (WindowTestHarness h = WindowTestHarness.tumbling(JoinType.INNER, MAX, 0))
            {
                h.left(5, 1, "L5");
                h.right(6, 1, "R6");
                h.left(-1, 2, "Lm1");
                h.right(MIN, 2, "Rmin");
                h.right(MIN + 1, 2, "Rmin1");
                h.left(MAX, 3, "Lmax");
                h.right(MAX - 1, 3, "Rmax1");
                h.right(MAX, 3, "Rmax");
                h.end();
                // [0, MAX) holds 0..MAX-1; [MIN + 1, 0) holds -1 and MIN + 1; MIN is in [MIN - MAX + 1, MIN + 1);
                // MAX is in [MAX, 2 MAX), reported as [MAX, MAX).
                assertEquals(expect(
                    "8: +I L5 R6" + window(0, MAX),
                    "8: +I Lm1 Rmin1" + window(MIN + 1, 0),
                    "8: +I Lmax Rmax" + window(MAX, MAX)), h.all());
                assertTrue(h.dead.isEmpty(), () -> "dead letters: " + h.dead);
                assertStateEmpty(h);
            }
        }

        @Test
        void aWindowWhoseEndSaturatesFiresAtTheEndOfInput()
        {
            // MAX mod 10 = 7: [MAX - 7, MAX + 3) is reported as [MAX - 7, MAX) and fires when the watermark reaches MAX - 1.
            try (WindowTestHarness h = WindowTestHarness.tumbling(JoinType.FULL, 10, 0))
            {
                h.left(MAX, 1, "L");
                h.right(MAX - 3, 1, "R");
                h.watermark(MAX - 2);
                h.right(MAX - 7, 2, "R2");
                assertEquals(none(), h.all());
                assertTrue(h.dead.isEmpty(), () -> "dead letters: " + h.dead);
                h.end();
                assertEquals(expect(
                    "4: +I L R" + window(MAX - 7, MAX),
                    "4: +I null R2" + window(MAX - 7, MAX)), h.all());
                assertStateEmpty(h);
            }
        }

        @Test
        void aSessionAtTheEndsOfTheRangeSaturates()
        {
            try (WindowTestHarness h = WindowTestHarness.session(JoinType.FULL, 5))
            {
                h.left(MIN, 1, "Lmin");
                h.right(MIN + 5, 1, "Rmin");
                h.left(MAX - 2, 2, "Lmax");
                h.right(MAX, null, "Rn");
                h.watermark(MIN + 9);
                assertEquals(expect("4: +I Lmin Rmin" + window(MIN, MIN + 10)), h.all());
                h.end();
                assertEquals(expect(
                    "4: +I Lmin Rmin" + window(MIN, MIN + 10),
                    "5: +I Lmax null" + window(MAX - 2, MAX),
                    "5: +I null Rn" + window(MAX, MAX)), h.all());
                assertStateEmpty(h);
            }
        }
    }

    /** The engine work defects 1 and 2: a row is stored in all of its windows or in none; fan-out is capped at spec time. */
    @Nested
    class FanOut
    {
        @Test
        void aRowThatDoesNotFitInAllItsWindowsIsStoredInNoneAndDeadLetteredOnce()
        {
            final StateConfig threeKeys = StateConfig.defaults().withIndex(IndexKind.HASH).withMaxKeys(3);
            try (WindowTestHarness h = new WindowTestHarness(spec(JoinType.FULL, WindowSpec.sliding(10, 3, 0)).build(), threeKeys))
            {
                h.left(0, 1, "L");            // in 4 windows: [0,10), [-3,7), [-6,4), [-9,1)
                assertLive(h, 0, 0);
                assertEquals(List.of(new WindowTestHarness.Dead(0, Side.LEFT, ChangeKind.INSERT, "L", 0, DeadLetterReason.STATE_FULL)), h.dead);
                h.right(1, 2, "R");           // in 3 windows: they fit once L's are rolled back
                assertLive(h, 0, 3);
                h.end();
                assertEquals(expect(
                    "2: +I null R [-6,4)",
                    "2: +I null R [-3,7)",
                    "2: +I null R [0,10)"), h.all());
                assertEquals(1, h.dead.size());
                assertStateEmpty(h);
            }
        }

        @Test
        void aSlidingWindowWithMoreThanTheWindowsPerRowLimitIsRejected()
        {
            final IllegalArgumentException e = Assertions.assertThrows(IllegalArgumentException.class,
                () -> WindowSpec.sliding(WindowSpec.MAX_WINDOWS_PER_ROW + 1, 1, 0));
            assertTrue(e.getMessage().contains("window.slide"), e::getMessage);
            assertTrue(e.getMessage().contains(String.valueOf(WindowSpec.MAX_WINDOWS_PER_ROW)), e::getMessage);
            Assertions.assertThrows(IllegalArgumentException.class,
                () -> WindowSpec.sliding(Long.MAX_VALUE, 1000, 0));
            assertEquals(WindowSpec.MAX_WINDOWS_PER_ROW, WindowSpec.sliding(WindowSpec.MAX_WINDOWS_PER_ROW, 1, 0).size());
            assertEquals(Long.MAX_VALUE, WindowSpec.sliding(Long.MAX_VALUE, Long.MAX_VALUE / 1000 + 1, 0).size());
        }

        @Test
        void aNullKeyRowIsPaddedInAtMostTheCappedNumberOfWindows()
        {
            try (WindowTestHarness h = WindowTestHarness.sliding(JoinType.LEFT, WindowSpec.MAX_WINDOWS_PER_ROW, 1))
            {
                h.left(Long.MIN_VALUE, null, "Ln");
                h.left(0, null, "L0");
                h.end();
                assertEquals(2 * WindowSpec.MAX_WINDOWS_PER_ROW, h.out.size());
                assertStateEmpty(h);
            }
        }
    }

    @Nested
    class LateRows
    {
        @Test
        void aLateRowIsDeadLetteredCountedAndNeitherJoinedNorStoredNorPadded()
        {
            try (WindowTestHarness h = WindowTestHarness.tumbling(JoinType.FULL, 10, 0))
            {
                h.right(2, 1, "R");
                h.watermark(9);
                final long lateStep = h.left(5, 1, "Llate");
                assertLive(h, 0, 0);
                h.end();
                assertEquals(expect("1: +I null R [0,10)"), h.all());
                assertEquals(List.of(late(lateStep, Side.LEFT, "Llate", 5)), h.dead);
                assertEquals(1, h.counters().lateRows());
                assertEquals(0, h.counters().badInputs());
            }
        }

        @Test
        void aRowOfAWindowThatHasNotFiredIsNotLate()
        {
            try (WindowTestHarness h = WindowTestHarness.tumbling(JoinType.INNER, 10, 0))
            {
                h.watermark(8);
                h.left(0, 1, "L");
                h.right(6, 1, "R");
                final long at = h.watermark(9);
                assertTrue(h.dead.isEmpty(), () -> "dead letters: " + h.dead);
                assertEquals(expect(at + ": +I L R [0,10)"), h.all());
            }
        }

        @Test
        void aSlidingRowIsLateOnlyWhenEveryOneOfItsWindowsHasFired()
        {
            try (WindowTestHarness h = WindowTestHarness.sliding(JoinType.INNER, 10, 5))
            {
                h.watermark(9);               // [0,10) fired
                h.left(7, 1, "L7");           // only [5,15) is left
                h.right(8, 1, "R8");
                h.watermark(14);              // [5,15) fires
                final long lateStep = h.left(9, 1, "L9");
                h.end();
                assertEquals(expect("3: +I L7 R8 [5,15)"), h.all());
                assertEquals(List.of(late(lateStep, Side.LEFT, "L9", 9)), h.dead);
                assertEquals(1, h.counters().lateRows());
            }
        }

        @ParameterizedTest
        @EnumSource(value = JoinType.class, names = {"INNER", "FULL", "ANTI"})
        void aLateNullKeyRowIsDeadLettered(final JoinType type)
        {
            try (WindowTestHarness h = WindowTestHarness.tumbling(type, 10, 0))
            {
                h.watermark(9);
                final long lateStep = h.left(5, null, "Ln");
                h.end();
                assertEquals(none(), h.all());
                assertEquals(List.of(late(lateStep, Side.LEFT, "Ln", 5)), h.dead);
                assertEquals(1, h.counters().lateRows());
            }
        }

        @Test
        void aLateRightRowIsDeadLettered()
        {
            try (WindowTestHarness h = WindowTestHarness.tumbling(JoinType.RIGHT, 10, 0))
            {
                h.left(1, 1, "L");
                h.watermark(9);
                final long lateStep = h.right(3, 1, "Rlate");
                h.end();
                assertEquals(none(), h.all());
                assertEquals(List.of(late(lateStep, Side.RIGHT, "Rlate", 3)), h.dead);
            }
        }
    }

    @Nested
    class BadInput
    {
        @ParameterizedTest
        @EnumSource(value = ChangeKind.class, names = {"DELETE", "UPDATE_BEFORE", "UPDATE_AFTER"})
        void nonInsertRowsAreDeadLetteredAsNotAppendOnly(final ChangeKind kind)
        {
            try (WindowTestHarness h = WindowTestHarness.tumbling(JoinType.LEFT, 10, 0))
            {
                h.left(1, 1, "L");
                final long bad = h.row(Side.RIGHT, kind, 2, 1, "Rbad", ABSENT);
                final long badLeft = h.row(Side.LEFT, kind, 3, 1, "Lbad", ABSENT);
                assertLive(h, 1, 0);
                h.end();
                assertEquals(expect("3: +I L null [0,10)"), h.all());
                assertEquals(List.of(
                    new WindowTestHarness.Dead(bad, Side.RIGHT, kind, "Rbad", 2, DeadLetterReason.NOT_APPEND_ONLY),
                    new WindowTestHarness.Dead(badLeft, Side.LEFT, kind, "Lbad", 3, DeadLetterReason.NOT_APPEND_ONLY)), h.dead);
                assertEquals(2, h.counters().badInputs());
                assertEquals(0, h.counters().lateRows());
            }
        }
    }

    @Nested
    class EndOfInput
    {
        @Test
        void theEndOfInputFiresEveryPendingWindowAtItsStep()
        {
            try (WindowTestHarness h = WindowTestHarness.tumbling(JoinType.FULL, 10, 0))
            {
                h.left(1, 1, "La");
                h.right(12, 1, "Rb");
                h.left(25, null, "Ln");
                assertEquals(none(), h.all());
                final long end = h.end();
                assertEquals(3, end);
                assertEquals(expect(
                    "3: +I La null [0,10)",
                    "3: +I Ln null [20,30)",
                    "3: +I null Rb [10,20)"), h.all());
                assertStateEmpty(h);
            }
        }

        @Test
        void theEndOfInputFiresPendingSessionsAndLoneRows()
        {
            try (WindowTestHarness h = WindowTestHarness.session(JoinType.FULL, 5))
            {
                h.left(0, 1, "L0");
                h.right(3, 1, "R3");
                h.left(100, 1, "L100");
                h.right(50, null, "Rn");
                h.watermark(7);
                h.end();
                assertEquals(expect(
                    "4: +I L0 R3 [0,8)",
                    "5: +I L100 null [100,105)",
                    "5: +I null Rn [50,55)"), h.all());
                assertStateEmpty(h);
            }
        }

        @Test
        void theEndOfInputFiresPendingSlidingWindows()
        {
            try (WindowTestHarness h = WindowTestHarness.sliding(JoinType.ANTI, 10, 5))
            {
                h.left(7, 1, "L");
                h.left(8, null, "Ln");
                h.end();
                assertEquals(expect(
                    "2: +I L null [0,10)",
                    "2: +I L null [5,15)",
                    "2: +I Ln null [0,10)",
                    "2: +I Ln null [5,15)"), h.all());
                assertStateEmpty(h);
            }
        }
    }

    @Nested
    class Condition
    {
        private WindowTestHarness harness(final JoinType type)
        {
            return new WindowTestHarness(spec(type, WindowSpec.tumbling(10, 0)).condition("v", CompareOp.LE, "v").build());
        }

        @Test
        void theConditionFiltersPairsAfterTheJoin()
        {
            try (WindowTestHarness h = harness(JoinType.INNER))
            {
                h.left(1, 1, "L", 2);
                h.right(2, 1, "Rlow", 1);
                h.right(3, 1, "Rhigh", 3);
                h.right(4, 1, "Req", 2);
                h.end();
                assertEquals(expect(
                    "4: +I L Req [0,10)",
                    "4: +I L Rhigh [0,10)"), h.all());
            }
        }

        @Test
        void rowsWhoseCandidatesAllFailTheConditionArePadded()
        {
            try (WindowTestHarness h = harness(JoinType.FULL))
            {
                h.left(1, 1, "L", 5);
                h.right(2, 1, "R", 1);
                h.end();
                assertEquals(expect(
                    "2: +I L null [0,10)",
                    "2: +I null R [0,10)"), h.all());
            }
        }

        @Test
        void semiNeedsAMatchThatPassesTheCondition()
        {
            try (WindowTestHarness h = harness(JoinType.SEMI))
            {
                h.left(1, 1, "La", 5);
                h.left(2, 1, "Lb", 0);
                h.right(3, 1, "R", 1);
                h.end();
                assertEquals(expect("3: +I Lb null [0,10)"), h.all());
            }
        }

        @Test
        void antiCountsAPairFailingTheConditionAsNoMatch()
        {
            try (WindowTestHarness h = harness(JoinType.ANTI))
            {
                h.left(1, 1, "La", 5);
                h.left(2, 1, "Lb", 0);
                h.right(3, 1, "R", 1);
                h.end();
                assertEquals(expect("3: +I La null [0,10)"), h.all());
            }
        }

        @Test
        void aConditionOnANullValueIsFalse()
        {
            try (WindowTestHarness h = harness(JoinType.LEFT))
            {
                h.left(1, 1, "L", null);
                h.right(2, 1, "R", 1);
                h.end();
                assertEquals(expect("2: +I L null [0,10)"), h.all());
            }
        }
    }

    @Nested
    class State
    {
        @Test
        void aWindowsRowsAreDroppedWhenItFires()
        {
            try (WindowTestHarness h = WindowTestHarness.tumbling(JoinType.FULL, 10, 0))
            {
                h.left(1, 1, "L");
                h.right(2, 1, "R");
                h.left(11, 1, "L2");
                assertLive(h, 2, 1);
                h.watermark(9);
                assertLive(h, 1, 0);
                h.end();
                assertStateEmpty(h);
            }
        }

        @Test
        void aSessionsRowsAreDroppedWhenItFires()
        {
            try (WindowTestHarness h = WindowTestHarness.session(JoinType.FULL, 5))
            {
                h.left(0, 1, "L0");
                h.right(2, 1, "R2");
                h.left(20, 1, "L20");
                h.watermark(6);
                assertLive(h, 1, 0);
                h.end();
                assertStateEmpty(h);
            }
        }

        @ParameterizedTest(name = "{0} {1}")
        @MethodSource("io.junction.join.WindowJoinTest#typesAndWindows")
        void theStateIsEmptyAfterTheEndOfInput(final JoinType type, final WindowSpec window)
        {
            try (WindowTestHarness h = new WindowTestHarness(
                spec(type, window).rightFilter("v", CompareOp.EQ, Literal.of(1)).condition("v", CompareOp.LE, "v").build()))
            {
                h.left(1, 1, "a", 1);
                h.right(3, 1, "b", 1);
                h.left(4, null, "c", 1);
                h.right(5, 2, "d", 0);
                h.left(12, 2, "e", 1);
                h.right(13, null, "f", 1);
                h.watermark(Side.LEFT, 20);
                h.right(17, 1, "g", 1);
                h.left(30, 3, "h", 1);
                h.watermark(14);
                h.left(2, 1, "late", 1);
                h.right(40, 3, "i", 1);
                h.row(Side.LEFT, ChangeKind.DELETE, 30, 3, "h", 1);
                h.left(33, 3, "j", 0);
                h.end();
                assertStateEmpty(h);
                assertEquals(h.out.size(), h.counters().rowsOut());
                assertEquals(12, h.counters().rowsIn());
                assertEquals(1, h.counters().badInputs());
            }
        }
    }
}
