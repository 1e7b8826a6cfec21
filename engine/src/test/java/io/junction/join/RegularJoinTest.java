package io.junction.join;

import io.junction.internal.row.KeyHash;

import io.junction.api.ChangeKind;
import io.junction.api.CompareOp;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.testing.DeadLetter;
import io.junction.testing.JoinHarness;
import io.junction.testing.Output;
import io.junction.testing.Rows;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import io.junction.api.FieldType;
import io.junction.api.IntervalBounds;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Assertions;

/** The regular join's changelog, event by event (SEMANTICS 4). */
class RegularJoinTest
{
    /** Left and right schemas deliberately differ in field order, so that index mix-ups show. */
    static final Schema LEFT = Schema.of("id", "k2", "price", "status");
    static final Schema RIGHT = Schema.of("budget", "id", "status", "k2");
    static final StateConfig CONFIG = StateConfig.defaults().withMaxKeys(4096);

    // ---------------------------------------------------------------- helpers

    static JoinSpec.Builder spec(final JoinType type)
    {
        return JoinSpec.builder(JoinKind.REGULAR, type).schemas(LEFT, RIGHT).leftKey("id").rightKey("id");
    }

    static JoinHarness join(final JoinType type)
    {
        return new JoinHarness(spec(type).build(), CONFIG);
    }

    static JoinHarness join(final JoinType type, final Consumer<JoinSpec.Builder> customizer)
    {
        final JoinSpec.Builder builder = spec(type);
        customizer.accept(builder);
        return new JoinHarness(builder.build(), CONFIG);
    }

    /** Canonical text of a row given as name/value pairs. */
    static String row(final Object... nameValues)
    {
        return Rows.format(Rows.pairs(nameValues));
    }

    /** An expected output with kind: {@code op left right}, {@code null} for a padded side. */
    static String out(final String op, final String left, final String right)
    {
        return op + " " + left + " " + right;
    }

    /** An expected output by sign only: {@code +left right}. */
    static String signed(final char sign, final String left, final String right)
    {
        return sign + left + " " + right;
    }

    static List<String> kinded(final List<Output> outputs)
    {
        final List<String> list = new ArrayList<>();
        for (final Output o : outputs)
        {
            list.add(o.kinded());
        }
        return list;
    }

    static List<String> signed(final List<Output> outputs)
    {
        final List<String> list = new ArrayList<>();
        for (final Output o : outputs)
        {
            list.add(o.signed());
        }
        return list;
    }

    static List<String> sorted(final List<String> list)
    {
        final List<String> copy = new ArrayList<>(list);
        Collections.sort(copy);
        return copy;
    }

    static void assertLive(final JoinHarness h, final long left, final long right)
    {
        assertEquals(left, h.counters().liveLeft(), "live left rows");
        assertEquals(right, h.counters().liveRight(), "live right rows");
    }

    static RegularJoin op(final JoinHarness h)
    {
        return (RegularJoin)((OperatorDriver)h.operator()).algorithm();
    }

    static final String NULL = "null";

    // ---------------------------------------------------------------- inner

    @Test
    void shouldEmitPairWhenRightRowMatchesStoredLeftRow()
    {
        try (JoinHarness h = join(JoinType.INNER))
        {
            assertEquals(List.of(), h.left("+I", "id", 1, "price", 10));
            assertEquals(
                List.of(out("+I", row("id", 1, "price", 10), row("id", 1, "budget", 20))),
                kinded(h.right("+I", "id", 1, "budget", 20)));
        }
    }

    @Test
    void shouldEmitPairWhenLeftRowMatchesStoredRightRow()
    {
        try (JoinHarness h = join(JoinType.INNER))
        {
            assertEquals(List.of(), h.right("+I", "id", 1, "budget", 20));
            assertEquals(
                List.of(out("+I", row("id", 1, "price", 10), row("id", 1, "budget", 20))),
                kinded(h.left("+I", "id", 1, "price", 10)));
        }
    }

    @Test
    void shouldNotEmitWhenKeysDiffer()
    {
        try (JoinHarness h = join(JoinType.INNER))
        {
            h.left("+I", "id", 1);
            assertEquals(List.of(), h.right("+I", "id", 2));
            assertLive(h, 1, 1);
        }
    }

    @Test
    void shouldEmitOnePairPerMatchingStoredRow()
    {
        try (JoinHarness h = join(JoinType.INNER))
        {
            h.right("+I", "id", 1, "budget", 1);
            h.right("+I", "id", 1, "budget", 2);
            h.right("+I", "id", 2, "budget", 3);
            assertEquals(
                sorted(List.of(
                    out("+I", row("id", 1), row("id", 1, "budget", 1)),
                    out("+I", row("id", 1), row("id", 1, "budget", 2)))),
                sorted(kinded(h.left("+I", "id", 1))));
        }
    }

    @Test
    void shouldForwardUpdateAfterKindInInnerJoin()
    {
        try (JoinHarness h = join(JoinType.INNER))
        {
            h.left("+I", "id", 1);
            assertEquals(List.of(out("+U", row("id", 1), row("id", 1, "budget", 5))),
                kinded(h.right("+U", "id", 1, "budget", 5)));
        }
    }

    @Test
    void shouldForwardUpdateBeforeKindInInnerJoin()
    {
        try (JoinHarness h = join(JoinType.INNER))
        {
            h.left("+I", "id", 1);
            h.right("+I", "id", 1, "budget", 5);
            assertEquals(List.of(out("-U", row("id", 1), row("id", 1, "budget", 5))),
                kinded(h.right("-U", "id", 1, "budget", 5)));
        }
    }

    @Test
    void shouldForwardDeleteKindInInnerJoin()
    {
        try (JoinHarness h = join(JoinType.INNER))
        {
            h.left("+I", "id", 1);
            h.right("+I", "id", 1, "budget", 5);
            assertEquals(List.of(out("-D", row("id", 1), row("id", 1, "budget", 5))),
                kinded(h.left("-D", "id", 1)));
        }
    }

    @Test
    void shouldRetractEveryPairOfRetractedRowInInnerJoin()
    {
        try (JoinHarness h = join(JoinType.INNER))
        {
            h.left("+I", "id", 1);
            h.right("+I", "id", 1, "budget", 1);
            h.right("+I", "id", 1, "budget", 2);
            assertEquals(
                sorted(List.of(
                    out("-D", row("id", 1), row("id", 1, "budget", 1)),
                    out("-D", row("id", 1), row("id", 1, "budget", 2)))),
                sorted(kinded(h.left("-D", "id", 1))));
            assertEquals(List.of(), h.right("+I", "id", 1, "budget", 3), "the left row is gone");
            assertLive(h, 0, 3);
        }
    }

    @Test
    void shouldStampPairWithLaterTimestampAndStep()
    {
        try (JoinHarness h = join(JoinType.INNER))
        {
            h.leftAt(500, "+I", "id", 1);
            h.leftAt(50, "+I", "id", 1, "price", 1);
            final long step = h.nextStep();
            final List<Output> outputs = h.rightAt(100, "+I", "id", 1);
            assertEquals(2, outputs.size());
            for (final Output o : outputs)
            {
                assertEquals(step, o.step());
                assertEquals(o.left().containsKey("price") ? 100 : 500, o.timestamp(), o.toString());
            }
        }
    }

    // ---------------------------------------------------------------- left outer

    @Test
    void shouldEmitPaddedLeftRowWhenNoRightRowMatches()
    {
        try (JoinHarness h = join(JoinType.LEFT))
        {
            final List<Output> outputs = h.leftAt(7, "+I", "id", 1, "price", 10);
            assertEquals(List.of(out("+I", row("id", 1, "price", 10), NULL)), kinded(outputs));
            assertEquals(7, outputs.get(0).timestamp());
        }
    }

    @Test
    void shouldRetractPaddedRowWhenFirstRightRowArrives()
    {
        try (JoinHarness h = join(JoinType.LEFT))
        {
            h.left("+I", "id", 1, "price", 10);
            assertEquals(
                List.of(
                    out("-D", row("id", 1, "price", 10), NULL),
                    out("+I", row("id", 1, "price", 10), row("id", 1, "budget", 20))),
                kinded(h.right("+I", "id", 1, "budget", 20)));
        }
    }

    @Test
    void shouldNotRetractPaddingAgainWhenSecondRightRowArrives()
    {
        try (JoinHarness h = join(JoinType.LEFT))
        {
            h.left("+I", "id", 1);
            h.right("+I", "id", 1, "budget", 1);
            assertEquals(List.of(out("+I", row("id", 1), row("id", 1, "budget", 2))),
                kinded(h.right("+I", "id", 1, "budget", 2)));
        }
    }

    @Test
    void shouldJoinLeftRowWithStoredRightRowsWithoutPadding()
    {
        try (JoinHarness h = join(JoinType.LEFT))
        {
            assertEquals(List.of(), h.right("+I", "id", 1, "budget", 1), "left join does not pad right rows");
            assertEquals(List.of(out("+I", row("id", 1), row("id", 1, "budget", 1))), kinded(h.left("+I", "id", 1)));
        }
    }

    @Test
    void shouldKeepPaddingWhileSomeRightRowStillMatches()
    {
        try (JoinHarness h = join(JoinType.LEFT))
        {
            h.left("+I", "id", 1);
            h.right("+I", "id", 1, "budget", 1);
            h.right("+I", "id", 1, "budget", 2);
            assertEquals(List.of(out("-D", row("id", 1), row("id", 1, "budget", 1))),
                kinded(h.right("-D", "id", 1, "budget", 1)));
        }
    }

    @Test
    void shouldRestorePaddedRowWhenLastRightRowIsRetracted()
    {
        try (JoinHarness h = join(JoinType.LEFT))
        {
            h.left("+I", "id", 1);
            h.right("+I", "id", 1, "budget", 1);
            assertEquals(
                List.of(
                    out("-D", row("id", 1), row("id", 1, "budget", 1)),
                    out("+I", row("id", 1), NULL)),
                kinded(h.right("-D", "id", 1, "budget", 1)));
        }
    }

    @Test
    void shouldRetractPaddedRowWhenUnmatchedLeftRowIsRetracted()
    {
        try (JoinHarness h = join(JoinType.LEFT))
        {
            h.left("+I", "id", 1, "price", 3);
            assertEquals(List.of(out("-D", row("id", 1, "price", 3), NULL)), kinded(h.left("-D", "id", 1, "price", 3)));
            assertLive(h, 0, 0);
        }
    }

    @Test
    void shouldRetractPairsButNotPadWhenMatchedLeftRowIsRetracted()
    {
        try (JoinHarness h = join(JoinType.LEFT))
        {
            h.left("+I", "id", 1);
            h.right("+I", "id", 1, "budget", 1);
            h.right("+I", "id", 1, "budget", 2);
            assertEquals(
                sorted(List.of(
                    out("-D", row("id", 1), row("id", 1, "budget", 1)),
                    out("-D", row("id", 1), row("id", 1, "budget", 2)))),
                sorted(kinded(h.left("-U", "id", 1))));
        }
    }

    @Test
    void shouldEmitNothingForUnmatchedRightRowInLeftJoin()
    {
        try (JoinHarness h = join(JoinType.LEFT))
        {
            assertEquals(List.of(), h.right("+I", "id", 1));
            assertEquals(List.of(), h.right("-D", "id", 1));
            assertLive(h, 0, 0);
        }
    }

    @Test
    void shouldUnpadEveryMatchingLeftRowForOneRightRow()
    {
        try (JoinHarness h = join(JoinType.LEFT))
        {
            h.left("+I", "id", 1, "price", 1);
            h.left("+I", "id", 1, "price", 2);
            assertEquals(
                sorted(List.of(
                    signed('-', row("id", 1, "price", 1), NULL),
                    signed('+', row("id", 1, "price", 1), row("id", 1)),
                    signed('-', row("id", 1, "price", 2), NULL),
                    signed('+', row("id", 1, "price", 2), row("id", 1)))),
                sorted(signed(h.right("+I", "id", 1))));
        }
    }

    // ---------------------------------------------------------------- right and full outer

    @Test
    void shouldEmitPaddedRightRowWhenNoLeftRowMatchesInRightJoin()
    {
        try (JoinHarness h = join(JoinType.RIGHT))
        {
            assertEquals(List.of(), h.left("+I", "id", 2), "right join does not pad left rows");
            assertEquals(List.of(out("+I", NULL, row("id", 1, "budget", 4))), kinded(h.right("+I", "id", 1, "budget", 4)));
        }
    }

    @Test
    void shouldRetractPaddedRightRowWhenFirstLeftRowArrivesInRightJoin()
    {
        try (JoinHarness h = join(JoinType.RIGHT))
        {
            h.right("+I", "id", 1, "budget", 4);
            assertEquals(
                List.of(
                    out("-D", NULL, row("id", 1, "budget", 4)),
                    out("+I", row("id", 1), row("id", 1, "budget", 4))),
                kinded(h.left("+I", "id", 1)));
        }
    }

    @Test
    void shouldRestorePaddedRightRowWhenLastLeftRowIsRetractedInRightJoin()
    {
        try (JoinHarness h = join(JoinType.RIGHT))
        {
            h.right("+I", "id", 1, "budget", 4);
            h.left("+I", "id", 1);
            assertEquals(
                List.of(
                    out("-D", row("id", 1), row("id", 1, "budget", 4)),
                    out("+I", NULL, row("id", 1, "budget", 4))),
                kinded(h.left("-D", "id", 1)));
        }
    }

    @Test
    void shouldPadBothSidesInFullJoin()
    {
        try (JoinHarness h = join(JoinType.FULL))
        {
            assertEquals(List.of(out("+I", row("id", 1), NULL)), kinded(h.left("+I", "id", 1)));
            assertEquals(List.of(out("+I", NULL, row("id", 2))), kinded(h.right("+I", "id", 2)));
        }
    }

    @Test
    void shouldUnpadStoredRowButNotInputRowInFullJoin()
    {
        try (JoinHarness h = join(JoinType.FULL))
        {
            h.left("+I", "id", 1);
            assertEquals(
                List.of(
                    out("-D", row("id", 1), NULL),
                    out("+I", row("id", 1), row("id", 1))),
                kinded(h.right("+I", "id", 1)));
        }
    }

    @Test
    void shouldRestoreLeftPaddingWhenMatchedRightRowIsRetractedInFullJoin()
    {
        try (JoinHarness h = join(JoinType.FULL))
        {
            h.left("+I", "id", 1);
            h.right("+I", "id", 1);
            assertEquals(
                List.of(
                    out("-D", row("id", 1), row("id", 1)),
                    out("+I", row("id", 1), NULL)),
                kinded(h.right("-D", "id", 1)));
        }
    }

    @Test
    void shouldRestoreRightPaddingWhenMatchedLeftRowIsRetractedInFullJoin()
    {
        try (JoinHarness h = join(JoinType.FULL))
        {
            h.right("+I", "id", 1);
            h.left("+I", "id", 1);
            assertEquals(
                List.of(
                    out("-D", row("id", 1), row("id", 1)),
                    out("+I", NULL, row("id", 1))),
                kinded(h.left("-D", "id", 1)));
        }
    }

    // ---------------------------------------------------------------- semi

    @Test
    void shouldNotEmitUnmatchedLeftRowInSemiJoin()
    {
        try (JoinHarness h = join(JoinType.SEMI))
        {
            assertEquals(List.of(), h.left("+I", "id", 1));
        }
    }

    @Test
    void shouldEmitLeftRowWhenItsCountGoesFromZeroToOneInSemiJoin()
    {
        try (JoinHarness h = join(JoinType.SEMI))
        {
            h.left("+I", "id", 1, "price", 5);
            assertEquals(List.of(signed('+', row("id", 1, "price", 5), NULL)), signed(h.right("+I", "id", 1, "budget", 9)));
        }
    }

    @Test
    void shouldEmitLeftRowOnceWhenSecondMatchArrivesInSemiJoin()
    {
        try (JoinHarness h = join(JoinType.SEMI))
        {
            h.left("+I", "id", 1);
            h.right("+I", "id", 1, "budget", 1);
            assertEquals(List.of(), h.right("+I", "id", 1, "budget", 2));
        }
    }

    @Test
    void shouldEmitLeftRowAtOnceWhenMatchIsAlreadyStoredInSemiJoin()
    {
        try (JoinHarness h = join(JoinType.SEMI))
        {
            h.right("+I", "id", 1, "budget", 1);
            h.right("+I", "id", 1, "budget", 2);
            assertEquals(List.of(signed('+', row("id", 1), NULL)), signed(h.left("+I", "id", 1)), "one output, not one per match");
        }
    }

    @Test
    void shouldRetractLeftRowWhenItsCountGoesFromOneToZeroInSemiJoin()
    {
        try (JoinHarness h = join(JoinType.SEMI))
        {
            h.left("+I", "id", 1);
            h.right("+I", "id", 1, "budget", 1);
            h.right("+I", "id", 1, "budget", 2);
            assertEquals(List.of(), h.right("-D", "id", 1, "budget", 1), "count 2 -> 1");
            assertEquals(List.of(signed('-', row("id", 1), NULL)), signed(h.right("-D", "id", 1, "budget", 2)));
        }
    }

    @Test
    void shouldRetractMatchedLeftRowWhenItIsRetractedInSemiJoin()
    {
        try (JoinHarness h = join(JoinType.SEMI))
        {
            h.left("+I", "id", 1);
            h.right("+I", "id", 1);
            assertEquals(List.of(signed('-', row("id", 1), NULL)), signed(h.left("-D", "id", 1)));
            assertEquals(List.of(), h.right("-D", "id", 1), "no left row left to retract");
        }
    }

    @Test
    void shouldEmitNothingWhenUnmatchedLeftRowIsRetractedInSemiJoin()
    {
        try (JoinHarness h = join(JoinType.SEMI))
        {
            h.left("+I", "id", 1);
            assertEquals(List.of(), h.left("-D", "id", 1));
            assertLive(h, 0, 0);
        }
    }

    @Test
    void shouldEmitEachMatchingLeftRowForOneRightRowInSemiJoin()
    {
        try (JoinHarness h = join(JoinType.SEMI))
        {
            h.left("+I", "id", 1, "price", 1);
            h.left("+I", "id", 1, "price", 2);
            h.left("+I", "id", 2, "price", 3);
            assertEquals(
                sorted(List.of(signed('+', row("id", 1, "price", 1), NULL), signed('+', row("id", 1, "price", 2), NULL))),
                sorted(signed(h.right("+I", "id", 1))));
        }
    }

    // ---------------------------------------------------------------- anti

    @Test
    void shouldEmitUnmatchedLeftRowInAntiJoin()
    {
        try (JoinHarness h = join(JoinType.ANTI))
        {
            assertEquals(List.of(signed('+', row("id", 1), NULL)), signed(h.left("+I", "id", 1)));
        }
    }

    @Test
    void shouldNotEmitLeftRowThatAlreadyHasMatchInAntiJoin()
    {
        try (JoinHarness h = join(JoinType.ANTI))
        {
            assertEquals(List.of(), h.right("+I", "id", 1));
            assertEquals(List.of(), h.left("+I", "id", 1));
        }
    }

    @Test
    void shouldRetractLeftRowWhenItsCountLeavesZeroInAntiJoin()
    {
        try (JoinHarness h = join(JoinType.ANTI))
        {
            h.left("+I", "id", 1);
            assertEquals(List.of(signed('-', row("id", 1), NULL)), signed(h.right("+I", "id", 1)));
            assertEquals(List.of(), h.right("+I", "id", 1, "budget", 2), "count 1 -> 2");
        }
    }

    @Test
    void shouldReemitLeftRowWhenItsCountReturnsToZeroInAntiJoin()
    {
        try (JoinHarness h = join(JoinType.ANTI))
        {
            h.left("+I", "id", 1);
            h.right("+I", "id", 1, "budget", 1);
            h.right("+I", "id", 1, "budget", 2);
            assertEquals(List.of(), h.right("-D", "id", 1, "budget", 2), "count 2 -> 1");
            assertEquals(List.of(signed('+', row("id", 1), NULL)), signed(h.right("-U", "id", 1, "budget", 1)));
        }
    }

    @Test
    void shouldRetractUnmatchedLeftRowWhenItIsRetractedInAntiJoin()
    {
        try (JoinHarness h = join(JoinType.ANTI))
        {
            h.left("+I", "id", 1);
            assertEquals(List.of(signed('-', row("id", 1), NULL)), signed(h.left("-D", "id", 1)));
        }
    }

    @Test
    void shouldEmitNothingWhenMatchedLeftRowIsRetractedInAntiJoin()
    {
        try (JoinHarness h = join(JoinType.ANTI))
        {
            h.right("+I", "id", 1);
            h.left("+I", "id", 1);
            assertEquals(List.of(), h.left("-D", "id", 1));
        }
    }

    // ---------------------------------------------------------------- bad retractions

    @Test
    void shouldDeadLetterRetractionOfRowNeverInserted()
    {
        try (JoinHarness h = join(JoinType.FULL))
        {
            final long step = h.nextStep();
            assertEquals(List.of(), h.leftAt(3, "-D", "id", 1, "price", 2));
            assertEquals(
                List.of(new DeadLetter(Side.LEFT, ChangeKind.DELETE, Rows.pairs("id", 1L, "price", 2L), 3, step,
                    DeadLetterReason.RETRACTION_NOT_IN_STATE)),
                h.deadLetters().deadLetters());
            assertEquals(1, h.counters().badInputs());
            assertLive(h, 0, 0);
        }
    }

    @Test
    void shouldDeadLetterRetractionOfRowAlreadyRetracted()
    {
        try (JoinHarness h = join(JoinType.INNER))
        {
            h.right("+I", "id", 1);
            h.right("-D", "id", 1);
            h.left("+I", "id", 1);
            assertEquals(List.of(), h.right("-U", "id", 1));
            assertEquals(1, h.deadLetters().size());
            assertEquals(DeadLetterReason.RETRACTION_NOT_IN_STATE, h.deadLetters().deadLetters().get(0).reason());
        }
    }

    @Test
    void shouldDeadLetterRetractionWhoseKeyIsStoredButRowDiffers()
    {
        try (JoinHarness h = join(JoinType.LEFT))
        {
            h.left("+I", "id", 1, "price", 1);
            h.right("+I", "id", 1, "budget", 1);
            assertEquals(List.of(), h.right("-D", "id", 1, "budget", 2));
            assertEquals(List.of(), h.left("-D", "id", 1, "price", 2));
            assertEquals(2, h.deadLetters().size());
            assertLive(h, 1, 1);
        }
    }

    @Test
    void shouldLeaveStateUnchangedByBadRetraction()
    {
        try (JoinHarness h = join(JoinType.LEFT))
        {
            h.left("+I", "id", 1);
            h.right("+I", "id", 1, "budget", 1);
            h.right("-D", "id", 1, "budget", 2);
            // the left row's count is still 1: retracting the one real match restores the padding
            assertEquals(
                List.of(out("-D", row("id", 1), row("id", 1, "budget", 1)), out("+I", row("id", 1), NULL)),
                kinded(h.right("-D", "id", 1, "budget", 1)));
        }
    }

    @Test
    void shouldDeadLetterRetractionOfNullKeyRowNeverInserted()
    {
        try (JoinHarness h = join(JoinType.LEFT))
        {
            assertEquals(List.of(), h.left("-D", "id", null));
            assertEquals(1, h.deadLetters().size());
            assertEquals(DeadLetterReason.RETRACTION_NOT_IN_STATE, h.deadLetters().deadLetters().get(0).reason());
        }
    }

    // ---------------------------------------------------------------- duplicates

    @Test
    void shouldStoreEqualRowsAsSeparateCopies()
    {
        try (JoinHarness h = join(JoinType.INNER))
        {
            h.left("+I", "id", 1, "price", 1);
            h.left("+I", "id", 1, "price", 1);
            assertLive(h, 2, 0);
            assertEquals(
                List.of(
                    out("+I", row("id", 1, "price", 1), row("id", 1)),
                    out("+I", row("id", 1, "price", 1), row("id", 1))),
                kinded(h.right("+I", "id", 1)));
        }
    }

    @Test
    void shouldRemoveOneCopyPerRetraction()
    {
        try (JoinHarness h = join(JoinType.INNER))
        {
            h.left("+I", "id", 1, "price", 1);
            h.left("+I", "id", 1, "price", 1);
            h.right("+I", "id", 1);
            assertEquals(List.of(out("-D", row("id", 1, "price", 1), row("id", 1))), kinded(h.left("-D", "id", 1, "price", 1)));
            assertLive(h, 1, 1);
            assertEquals(List.of(out("-D", row("id", 1, "price", 1), row("id", 1))), kinded(h.right("-D", "id", 1)));
            assertEquals(List.of(), h.left("-D", "id", 1, "price", 1));
            assertEquals(List.of(), h.left("-D", "id", 1, "price", 1));
            assertEquals(1, h.deadLetters().size(), "the third retraction finds no copy");
        }
    }

    @Test
    void shouldPadEachDuplicateInLeftJoin()
    {
        try (JoinHarness h = join(JoinType.LEFT))
        {
            assertEquals(1, h.left("+I", "id", 1).size());
            assertEquals(1, h.left("+I", "id", 1).size());
            assertEquals(
                List.of(
                    out("-D", row("id", 1), NULL), out("+I", row("id", 1), row("id", 1)),
                    out("-D", row("id", 1), NULL), out("+I", row("id", 1), row("id", 1))),
                kinded(h.right("+I", "id", 1)));
        }
    }

    // ---------------------------------------------------------------- null keys

    @Test
    void shouldNeverMatchNullKeys()
    {
        try (JoinHarness h = join(JoinType.INNER))
        {
            h.left("+I", "id", null);
            h.left("+I", "price", 1);
            assertEquals(List.of(), h.right("+I", "id", null));
            assertEquals(List.of(), h.right("+I", "budget", 1));
            assertLive(h, 2, 2);
        }
    }

    @Test
    void shouldPadNullKeyRowAtOnceInLeftJoin()
    {
        try (JoinHarness h = join(JoinType.LEFT))
        {
            h.right("+I", "id", null);
            assertEquals(List.of(out("+I", row("id", null, "price", 1), NULL)), kinded(h.left("+I", "id", null, "price", 1)));
        }
    }

    @Test
    void shouldPadAbsentKeyRowAtOnceInFullJoin()
    {
        try (JoinHarness h = join(JoinType.FULL))
        {
            assertEquals(List.of(out("+I", row("price", 1), NULL)), kinded(h.left("+I", "price", 1)));
            assertEquals(List.of(out("+I", NULL, row("budget", 1))), kinded(h.right("+I", "budget", 1)));
        }
    }

    @Test
    void shouldRetractPaddedNullKeyRow()
    {
        try (JoinHarness h = join(JoinType.LEFT))
        {
            h.left("+I", "id", null, "price", 1);
            assertEquals(List.of(out("-D", row("id", null, "price", 1), NULL)), kinded(h.left("-D", "id", null, "price", 1)));
            assertEquals(0, h.deadLetters().size());
            assertLive(h, 0, 0);
        }
    }

    @Test
    void shouldKeepNullKeyLeftRowInAntiJoinOutput()
    {
        try (JoinHarness h = join(JoinType.ANTI))
        {
            assertEquals(List.of(signed('+', row("id", null), NULL)), signed(h.left("+I", "id", null)));
            assertEquals(List.of(), h.right("+I", "id", null));
            assertEquals(List.of(signed('-', row("id", null), NULL)), signed(h.left("-D", "id", null)));
        }
    }

    @Test
    void shouldTellNullKeyFromAbsentKeyOnRetraction()
    {
        try (JoinHarness h = join(JoinType.LEFT))
        {
            h.left("+I", "id", null);
            assertEquals(List.of(), h.left("-D", "price", 1), "absent id with another field is another row");
            assertEquals(List.of(), h.left("-D"), "an empty row is another row");
            assertEquals(2, h.deadLetters().size());
            assertLive(h, 1, 0);
        }
    }

    // ---------------------------------------------------------------- pre-join filters

    @Test
    void shouldPadLeftRowFailingLeftFilterInLeftJoin()
    {
        try (JoinHarness h = join(JoinType.LEFT, b -> b.leftFilter("status", CompareOp.EQ, Literal.of("ok"))))
        {
            h.right("+I", "id", 1);
            assertEquals(List.of(out("+I", row("id", 1, "status", "bad"), NULL)), kinded(h.left("+I", "id", 1, "status", "bad")));
            assertEquals(List.of(out("+I", row("id", 1, "status", "ok"), row("id", 1))), kinded(h.left("+I", "id", 1, "status", "ok")));
        }
    }

    @Test
    void shouldNotMatchLaterRightRowWithLeftRowFailingFilter()
    {
        try (JoinHarness h = join(JoinType.LEFT, b -> b.leftFilter("status", CompareOp.EQ, Literal.of("ok"))))
        {
            h.left("+I", "id", 1, "status", "bad");
            assertEquals(List.of(), h.right("+I", "id", 1));
        }
    }

    @Test
    void shouldRetractPaddedRowThatFailedLeftFilter()
    {
        try (JoinHarness h = join(JoinType.LEFT, b -> b.leftFilter("status", CompareOp.EQ, Literal.of("ok"))))
        {
            h.right("+I", "id", 1);
            h.left("+I", "id", 1, "status", "bad");
            assertEquals(List.of(out("-D", row("id", 1, "status", "bad"), NULL)), kinded(h.left("-D", "id", 1, "status", "bad")));
            assertEquals(0, h.deadLetters().size());
        }
    }

    @Test
    void shouldTreatNullFieldAsFailingFilter()
    {
        try (JoinHarness h = join(JoinType.INNER, b -> b.leftFilter("price", CompareOp.NE, Literal.of(5))))
        {
            h.right("+I", "id", 1);
            assertEquals(List.of(), h.left("+I", "id", 1, "price", null), "null != 5 is not true");
            assertEquals(List.of(), h.left("+I", "id", 1), "absent != 5 is not true");
            assertEquals(1, h.left("+I", "id", 1, "price", 6).size());
        }
    }

    @Test
    void shouldNotMatchRightRowFailingRightFilter()
    {
        try (JoinHarness h = join(JoinType.INNER, b -> b.rightFilter("budget", CompareOp.GE, Literal.of(10))))
        {
            h.left("+I", "id", 1);
            assertEquals(List.of(), h.right("+I", "id", 1, "budget", 9));
            assertEquals(1, h.right("+I", "id", 1, "budget", 10).size());
        }
    }

    @Test
    void shouldPadRightRowFailingRightFilterInFullJoin()
    {
        try (JoinHarness h = join(JoinType.FULL, b -> b.rightFilter("budget", CompareOp.GE, Literal.of(10))))
        {
            h.left("+I", "id", 1);
            assertEquals(List.of(out("+I", NULL, row("id", 1, "budget", 9))), kinded(h.right("+I", "id", 1, "budget", 9)));
        }
    }

    @Test
    void shouldApplyEveryFilterTermInConjunction()
    {
        try (JoinHarness h = join(JoinType.INNER,
            b -> b.leftFilter("price", CompareOp.GT, Literal.of(1)).leftFilter("price", CompareOp.LT, Literal.of(3))))
        {
            h.right("+I", "id", 1);
            assertEquals(List.of(), h.left("+I", "id", 1, "price", 1));
            assertEquals(1, h.left("+I", "id", 1, "price", 2).size());
            assertEquals(List.of(), h.left("+I", "id", 1, "price", 3));
        }
    }

    @Test
    void shouldKeepLeftRowFailingFilterInAntiJoinOutput()
    {
        try (JoinHarness h = join(JoinType.ANTI, b -> b.leftFilter("status", CompareOp.EQ, Literal.of("ok"))))
        {
            h.right("+I", "id", 1);
            assertEquals(List.of(signed('+', row("id", 1, "status", "bad"), NULL)), signed(h.left("+I", "id", 1, "status", "bad")));
            assertEquals(List.of(), h.left("+I", "id", 1, "status", "ok"));
        }
    }

    // ---------------------------------------------------------------- post-join condition

    @Test
    void shouldJoinOnlyPairsSatisfyingCondition()
    {
        try (JoinHarness h = join(JoinType.INNER, b -> b.condition("price", CompareOp.LE, "budget")))
        {
            h.right("+I", "id", 1, "budget", 10);
            h.right("+I", "id", 1, "budget", 20);
            assertEquals(List.of(out("+I", row("id", 1, "price", 15), row("id", 1, "budget", 20))),
                kinded(h.left("+I", "id", 1, "price", 15)));
        }
    }

    @Test
    void shouldPadLeftRowWhenConditionFailsForEveryMatchInLeftJoin()
    {
        try (JoinHarness h = join(JoinType.LEFT, b -> b.condition("price", CompareOp.LE, "budget")))
        {
            h.right("+I", "id", 1, "budget", 10);
            assertEquals(List.of(out("+I", row("id", 1, "price", 15), NULL)), kinded(h.left("+I", "id", 1, "price", 15)));
            assertEquals(List.of(), h.right("+I", "id", 1, "budget", 14));
            assertEquals(
                List.of(out("-D", row("id", 1, "price", 15), NULL), out("+I", row("id", 1, "price", 15), row("id", 1, "budget", 15))),
                kinded(h.right("+I", "id", 1, "budget", 15)));
        }
    }

    @Test
    void shouldNotMatchWhenConditionFieldIsNull()
    {
        try (JoinHarness h = join(JoinType.INNER, b -> b.condition("price", CompareOp.NE, "budget")))
        {
            h.right("+I", "id", 1, "budget", null);
            h.right("+I", "id", 1);
            assertEquals(List.of(), h.left("+I", "id", 1, "price", 1));
        }
    }

    @Test
    void shouldCountOnlyConditionMatchesInSemiJoin()
    {
        try (JoinHarness h = join(JoinType.SEMI, b -> b.condition("price", CompareOp.LT, "budget")))
        {
            h.left("+I", "id", 1, "price", 5);
            assertEquals(List.of(), h.right("+I", "id", 1, "budget", 5));
            assertEquals(List.of(signed('+', row("id", 1, "price", 5), NULL)), signed(h.right("+I", "id", 1, "budget", 6)));
            assertEquals(List.of(), h.right("-D", "id", 1, "budget", 5));
            assertEquals(List.of(signed('-', row("id", 1, "price", 5), NULL)), signed(h.right("-D", "id", 1, "budget", 6)));
        }
    }

    @Test
    void shouldCompareStringsInCondition()
    {
        try (JoinHarness h = join(JoinType.INNER, b -> b.condition("status", CompareOp.LT, "status")))
        {
            h.left("+I", "id", 1, "status", "b");
            assertEquals(List.of(), h.right("+I", "id", 1, "status", "a"));
            assertEquals(List.of(), h.right("+I", "id", 1, "status", "b"));
            assertEquals(1, h.right("+I", "id", 1, "status", "ba").size());
        }
    }

    // ---------------------------------------------------------------- keys

    @Test
    void shouldJoinOnCompositeKey()
    {
        try (JoinHarness h = join(JoinType.INNER, b -> b.leftKey("k2").rightKey("k2")))
        {
            h.left("+I", "id", 1, "k2", "a");
            h.left("+I", "id", 1, "k2", "b");
            h.left("+I", "id", 2, "k2", "a");
            assertEquals(List.of(out("+I", row("id", 1, "k2", "a"), row("id", 1, "k2", "a", "budget", 1))),
                kinded(h.right("+I", "id", 1, "k2", "a", "budget", 1)));
        }
    }

    @Test
    void shouldMatchCompositeKeyFieldsInOrderAcrossSides()
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(LEFT, RIGHT)
            .leftKey("id", "k2").rightKey("k2", "id").build();
        try (JoinHarness h = new JoinHarness(spec, CONFIG))
        {
            h.left("+I", "id", 1, "k2", 2);
            assertEquals(List.of(), h.right("+I", "id", 1, "k2", 2), "left.id=right.k2 and left.k2=right.id do not hold");
            assertEquals(1, h.right("+I", "id", 2, "k2", 1).size());
        }
    }

    @Test
    void shouldTreatNullInAnyCompositeKeyFieldAsNullKey()
    {
        try (JoinHarness h = join(JoinType.LEFT, b -> b.leftKey("k2").rightKey("k2")))
        {
            h.right("+I", "id", 1, "k2", null);
            h.right("+I", "id", 1);
            assertEquals(List.of(out("+I", row("id", 1, "k2", null), NULL)), kinded(h.left("+I", "id", 1, "k2", null)));
            assertEquals(List.of(out("+I", row("id", 1), NULL)), kinded(h.left("+I", "id", 1)));
        }
    }

    @Test
    void shouldNotMatchStringKeyWithNumberKey()
    {
        try (JoinHarness h = join(JoinType.INNER))
        {
            h.left("+I", "id", "1");
            h.left("+I", "id", 1.5);
            assertEquals(List.of(), h.right("+I", "id", 1));
            assertEquals(List.of(out("+I", row("id", "1"), row("id", "1"))), kinded(h.right("+I", "id", "1")));
            assertEquals(List.of(out("+I", row("id", 1.5), row("id", 1.5))), kinded(h.right("+I", "id", 1.5)));
        }
    }

    @Test
    void shouldNotRetractStringKeyedRowWithNumberKeyedRetraction()
    {
        try (JoinHarness h = join(JoinType.LEFT))
        {
            h.left("+I", "id", "1");
            assertEquals(List.of(), h.left("-D", "id", 1));
            assertEquals(1, h.deadLetters().size());
        }
    }

    @Test
    void shouldMatchBooleanKeys()
    {
        try (JoinHarness h = join(JoinType.INNER))
        {
            h.left("+I", "id", true);
            assertEquals(List.of(), h.right("+I", "id", false));
            assertEquals(1, h.right("+I", "id", true).size());
        }
    }

    @Test
    void shouldDeadLetterRowWhoseKeyIsTooLong()
    {
        final StateConfig config = StateConfig.builder().maxKeys(64).wheel(10, 64).maxKeyLength(16).build();
        try (JoinHarness h = new JoinHarness(spec(JoinType.LEFT).build(), config))
        {
            assertEquals(List.of(), h.left("+I", "id", "a string longer than sixteen bytes"));
            assertEquals(DeadLetterReason.KEY_TOO_LONG, h.deadLetters().deadLetters().get(0).reason());
            assertLive(h, 0, 0);
            assertEquals(1, h.left("+I", "id", "short").size());
        }
    }

    @Test
    void shouldDeadLetterRowOfNewKeyWhenKeyIndexIsFull()
    {
        try (JoinHarness h = new JoinHarness(spec(JoinType.INNER).build(), StateConfig.defaults().withMaxKeys(2)))
        {
            h.left("+I", "id", 1);
            h.left("+I", "id", 2);
            h.left("+I", "id", 3);
            assertEquals(List.of(DeadLetterReason.STATE_FULL),
                h.deadLetters().deadLetters().stream().map(DeadLetter::reason).toList());
            h.left("+I", "id", 2, "price", 1);
            assertEquals(1, h.deadLetters().size(), "an existing key still takes rows");
            h.left("-D", "id", 1);
            h.left("+I", "id", 3);
            assertEquals(1, h.deadLetters().size(), "a freed key makes room");
            assertEquals(1, h.right("+I", "id", 3).size());
        }
    }

    // ---------------------------------------------------------------- state TTL

    static JoinHarness ttlJoin(final JoinType type, final long ttl)
    {
        return new JoinHarness(spec(type).stateTtl(ttl).build(), CONFIG);
    }

    /** Per-side TTL (Flink SQL's per-table STATE_TTL hint): each side's rows live by their own TTL; 0 keeps them. */
    @Test
    void shouldExpireEachSideByItsOwnTtl()
    {
        try (JoinHarness h = new JoinHarness(spec(JoinType.INNER).stateTtl(Side.LEFT, 1000).stateTtl(Side.RIGHT, 5000).build(), CONFIG))
        {
            h.leftAt(0, "+I", "id", 1);
            h.rightAt(0, "+I", "id", 2);
            h.watermark(1001);
            assertLive(h, 0, 1);
            assertEquals(List.of(), h.rightAt(1001, "+I", "id", 1), "the left row is gone after its 1 s");
            assertEquals(1, h.leftAt(1001, "+I", "id", 2).size(), "the right row lives for its 5 s");
            h.watermark(5001);
            // Gone by now: the first left row, the left row of 1001 (its 1 s) and the right row of 0 (its 5 s);
            // the right row of 1001 has until 6001.
            assertEquals(3, h.counters().expiredRows());
            assertLive(h, 0, 1);
            assertEquals(List.of(), h.leftAt(5001, "+I", "id", 2), "and then it is gone too");
        }
    }

    @Test
    void shouldKeepTheSideWithoutTtlForever()
    {
        try (JoinHarness h = new JoinHarness(spec(JoinType.INNER).stateTtl(Side.RIGHT, 1000).build(), CONFIG))
        {
            h.leftAt(0, "+I", "id", 1);
            h.rightAt(0, "+I", "id", 1);
            h.watermark(1_000_000);
            assertLive(h, 1, 0);
            assertEquals(1, h.rightAt(1_000_000, "+I", "id", 1).size(), "the left row has no TTL");
            // A right row arriving behind its own TTL joins and is not stored; a left row never is.
            assertEquals(1, h.rightAt(0, "+I", "id", 1).size());
            assertLive(h, 1, 1);
            assertEquals(1, h.leftAt(0, "+I", "id", 1).size());
            assertLive(h, 2, 1);
        }
    }

    @Test
    void shouldReportTheLongestTtlAndRejectANegativeOne()
    {
        assertEquals(5000, spec(JoinType.INNER).stateTtl(Side.LEFT, 1000).stateTtl(Side.RIGHT, 5000).build().stateTtl());
        assertEquals(0, spec(JoinType.INNER).stateTtl(Side.LEFT, 1000).build().stateTtl(), "the right side keeps rows forever");
        assertEquals(1000, spec(JoinType.INNER).stateTtl(Side.LEFT, 1000).build().stateTtl(Side.LEFT));
        assertEquals(7, spec(JoinType.INNER).stateTtl(7).build().stateTtl(Side.RIGHT));
        assertThrows(IllegalArgumentException.class, () -> spec(JoinType.INNER).stateTtl(Side.RIGHT, -1).build());
    }

    @Test
    void shouldKeepRowWhileWatermarkMinusTtlEqualsItsTimestamp()
    {
        try (JoinHarness h = ttlJoin(JoinType.INNER, 1000))
        {
            h.leftAt(5000, "+I", "id", 1);
            h.watermark(6000);
            assertLive(h, 1, 0);
            assertEquals(1, h.rightAt(6000, "+I", "id", 1).size());
        }
    }

    @Test
    void shouldExpireRowOnceWatermarkMinusTtlPassesItsTimestamp()
    {
        try (JoinHarness h = ttlJoin(JoinType.INNER, 1000))
        {
            h.leftAt(5000, "+I", "id", 1);
            h.watermark(6001);
            assertLive(h, 0, 0);
            assertEquals(1, h.counters().expiredRows());
            assertEquals(List.of(), h.rightAt(6001, "+I", "id", 1));
        }
    }

    @Test
    void shouldEmitNothingWhenPaddedRowExpires()
    {
        try (JoinHarness h = ttlJoin(JoinType.FULL, 1000))
        {
            h.leftAt(0, "+I", "id", 1);
            h.rightAt(0, "+I", "id", 2);
            assertEquals(List.of(), h.watermark(10_000));
            assertLive(h, 0, 0);
        }
    }

    @Test
    void shouldEmitNothingWhenMatchedRowExpires()
    {
        try (JoinHarness h = ttlJoin(JoinType.LEFT, 1000))
        {
            h.leftAt(10_000, "+I", "id", 1);
            h.rightAt(0, "+I", "id", 1);
            assertEquals(List.of(), h.watermark(2000), "the right row expires; the pair stays, nothing is retracted");
            assertLive(h, 1, 0);
        }
    }

    @Test
    void shouldKeepMatchCountOfSurvivingRowWhenItsMatchExpires()
    {
        try (JoinHarness h = ttlJoin(JoinType.LEFT, 1000))
        {
            h.leftAt(10_000, "+I", "id", 1);
            h.rightAt(0, "+I", "id", 1);
            h.watermark(2000);
            // the left row's count is still 1: a new match is not preceded by -(left, null) ...
            assertEquals(List.of(out("+I", row("id", 1), row("id", 1, "budget", 2))),
                kinded(h.rightAt(5000, "+I", "id", 1, "budget", 2)));
            // ... and its retraction does not bring the padding back
            assertEquals(List.of(out("-D", row("id", 1), row("id", 1, "budget", 2))),
                kinded(h.rightAt(5000, "-D", "id", 1, "budget", 2)));
        }
    }

    @Test
    void shouldJoinRowArrivingAlreadyExpiredWithoutStoringIt()
    {
        try (JoinHarness h = ttlJoin(JoinType.INNER, 1000))
        {
            h.leftAt(10_000, "+I", "id", 1);
            h.watermark(5000);
            assertEquals(List.of(out("+I", row("id", 1), row("id", 1))), kinded(h.rightAt(3999, "+I", "id", 1)));
            assertLive(h, 1, 0);
            assertEquals(1, op(h).state.index.size(), "only the left row's key is indexed");
            assertEquals(List.of(), h.leftAt(10_000, "+I", "id", 1, "price", 1), "the right row was not stored");
        }
    }

    @Test
    void shouldStoreRowArrivingExactlyAtTheExpiryBoundary()
    {
        try (JoinHarness h = ttlJoin(JoinType.INNER, 1000))
        {
            h.watermark(5000);
            h.rightAt(4000, "+I", "id", 1);
            assertLive(h, 0, 1);
            assertEquals(1, h.leftAt(9000, "+I", "id", 1).size());
        }
    }

    @Test
    void shouldPadRowArrivingAlreadyExpiredInLeftJoin()
    {
        try (JoinHarness h = ttlJoin(JoinType.LEFT, 1000))
        {
            h.watermark(5000);
            assertEquals(List.of(out("+I", row("id", 1), NULL)), kinded(h.leftAt(0, "+I", "id", 1)));
            assertLive(h, 0, 0);
            assertEquals(0, op(h).state.index.size());
        }
    }

    @Test
    void shouldDeadLetterRetractionOfExpiredRow()
    {
        try (JoinHarness h = ttlJoin(JoinType.LEFT, 1000))
        {
            h.leftAt(0, "+I", "id", 1);
            h.watermark(1001);
            assertEquals(List.of(), h.leftAt(0, "-D", "id", 1));
            assertEquals(DeadLetterReason.RETRACTION_NOT_IN_STATE, h.deadLetters().deadLetters().get(0).reason());
        }
    }

    @Test
    void shouldDeadLetterRetractionOfRowThatArrivedAlreadyExpired()
    {
        try (JoinHarness h = ttlJoin(JoinType.INNER, 1000))
        {
            h.watermark(5000);
            h.leftAt(0, "+I", "id", 1);
            assertEquals(List.of(), h.leftAt(0, "-D", "id", 1));
            assertEquals(1, h.deadLetters().size());
        }
    }

    @Test
    void shouldNotExpireUntilBothInputsHaveWatermarks()
    {
        try (JoinHarness h = ttlJoin(JoinType.INNER, 1000))
        {
            h.leftAt(0, "+I", "id", 1);
            h.watermark(Side.LEFT, 100_000);
            assertLive(h, 1, 0);
            h.watermark(Side.RIGHT, 1000);
            assertLive(h, 1, 0);
            h.watermark(Side.RIGHT, 1001);
            assertLive(h, 0, 0);
        }
    }

    @Test
    void shouldIgnoreWatermarkGoingBackwards()
    {
        try (JoinHarness h = ttlJoin(JoinType.INNER, 1000))
        {
            h.watermark(5000);
            h.watermark(1000);
            assertEquals(5000, h.counters().watermark());
            h.leftAt(3999, "+I", "id", 1);
            assertLive(h, 0, 0);
        }
    }

    @Test
    void shouldExpireOnlyTheOlderOfTwoEqualRows()
    {
        try (JoinHarness h = ttlJoin(JoinType.INNER, 1000))
        {
            h.leftAt(0, "+I", "id", 1);
            h.leftAt(5000, "+I", "id", 1);
            h.watermark(3000);
            assertLive(h, 1, 0);
            assertEquals(1, h.rightAt(5000, "+I", "id", 1).size());
        }
    }

    @Test
    void shouldExpireRowsWhoseDeadlinesLieBeyondOneWheelTurn()
    {
        // 8 slots of 1 ms: deadlines 1_000 apart share slots across many turns
        try (JoinHarness h = new JoinHarness(spec(JoinType.INNER).stateTtl(10).build(), CONFIG.withWheel(0, 8)))
        {
            for (int i = 0; i < 20; i++)
            {
                h.leftAt(i * 1000L, "+I", "id", i);
            }
            for (int i = 0; i < 20; i++)
            {
                h.watermark(i * 1000L + 11);
                assertLive(h, 19 - i, 0);
            }
            assertEquals(0, h.counters().pendingTimers());
        }
    }

    @Test
    void shouldExpireRowsSharingOneSlotTurnAfterTurnAsWatermarkCreeps()
    {
        // 8 slots of 1 ms; deadlines 8 ms apart all fall into slot 1, each in a later turn
        try (JoinHarness h = new JoinHarness(spec(JoinType.INNER).stateTtl(1).build(), CONFIG.withWheel(0, 8)))
        {
            for (int i = 0; i < 20; i++)
            {
                h.leftAt(i * 8L, "+I", "id", i);
            }
            for (long wm = -3; wm < 170; wm++)
            {
                h.watermark(wm);
                long alive = 0;
                for (int i = 0; i < 20; i++)
                {
                    if (i * 8L + 1 >= wm)
                    {
                        alive++;
                    }
                }
                assertEquals(alive, h.counters().liveLeft(), "live rows at watermark " + wm);
            }
        }
    }

    @Test
    void shouldNotExpireNullKeyRowBeforeItsTime()
    {
        try (JoinHarness h = ttlJoin(JoinType.LEFT, 1000))
        {
            h.leftAt(0, "+I", "id", null);
            h.watermark(1000);
            assertEquals(List.of(out("-D", row("id", null), NULL)), kinded(h.leftAt(0, "-D", "id", null)));
            h.leftAt(0, "+I", "id", null);
            h.watermark(1001);
            assertLive(h, 0, 0);
        }
    }

    @Test
    void shouldCancelExpiryOfRetractedRow()
    {
        try (JoinHarness h = ttlJoin(JoinType.INNER, 1000))
        {
            h.leftAt(0, "+I", "id", 1);
            h.leftAt(0, "+I", "id", 2);
            assertEquals(2, h.counters().pendingTimers());
            h.leftAt(0, "-D", "id", 1);
            assertEquals(1, h.counters().pendingTimers());
            h.watermark(5000);
            assertEquals(1, h.counters().expiredRows());
            assertEquals(0, h.counters().pendingTimers());
        }
    }

    @Test
    void shouldHandleTimestampsNearTheEndsOfTime()
    {
        try (JoinHarness h = ttlJoin(JoinType.INNER, Long.MAX_VALUE))
        {
            h.leftAt(Long.MAX_VALUE, "+I", "id", 1);
            h.leftAt(Long.MIN_VALUE, "+I", "id", 2);
            h.watermark(Long.MAX_VALUE);
            // MIN + MAX = -1 < MAX: the old row expires; MAX + MAX saturates and never expires
            assertLive(h, 1, 0);
            assertEquals(1, h.rightAt(0, "+I", "id", 1).size());
        }
    }

    @Test
    void shouldRetractSemiRowWhenLeftRowIsRetractedAfterItsMatchExpired()
    {
        // SEMANTICS 1: expiry leaves the left row's count at 1, so +l stays emitted; SEMANTICS 4: a left retraction
        // retracts whatever that left row currently contributes, which is +l
        try (JoinHarness h = ttlJoin(JoinType.SEMI, 1000))
        {
            h.leftAt(10_000, "+I", "id", 1);
            assertEquals(List.of(signed('+', row("id", 1), NULL)), signed(h.rightAt(0, "+I", "id", 1)));
            assertEquals(List.of(), h.watermark(2000));
            assertLive(h, 1, 0);
            assertEquals(List.of(signed('-', row("id", 1), NULL)), signed(h.leftAt(10_000, "-D", "id", 1)));
        }
    }

    @Test
    void shouldNotRetractAntiRowAgainWhenLeftRowIsRetractedAfterItsMatchExpired()
    {
        // the anti row was retracted when its count left 0; expiry keeps the count at 1, so the left row
        // contributes nothing and its retraction must emit nothing
        try (JoinHarness h = ttlJoin(JoinType.ANTI, 1000))
        {
            assertEquals(List.of(signed('+', row("id", 1), NULL)), signed(h.leftAt(10_000, "+I", "id", 1)));
            assertEquals(List.of(signed('-', row("id", 1), NULL)), signed(h.rightAt(0, "+I", "id", 1)));
            assertEquals(List.of(), h.watermark(2000));
            assertEquals(List.of(), h.leftAt(10_000, "-D", "id", 1));
        }
    }

    @Test
    void shouldNotRetractPaddingNeverEmittedWhenLeftRowIsRetractedAfterItsMatchExpired()
    {
        // (l, null) was retracted when r arrived; expiry of r keeps l's count at 1 and (l, r) emitted,
        // so retracting l must not retract (l, null) a second time
        try (JoinHarness h = ttlJoin(JoinType.LEFT, 1000))
        {
            h.leftAt(10_000, "+I", "id", 1);
            h.rightAt(0, "+I", "id", 1);
            h.watermark(2000);
            final List<String> outputs = kinded(h.leftAt(10_000, "-D", "id", 1));
            assertTrue(!outputs.contains(out("-D", row("id", 1), NULL)), "retracts a padded row that is not in the output: " + outputs);
        }
    }

    // ---------------------------------------------------------------- hash collisions

    /** Replays {@code KeyHash.hash} over the first 8 bytes of a 16-byte key: the state before the second word. */
    static long firstWordState(final byte[] key)
    {
        final long seed = 0x9E3779B97F4A7C15L ^ key.length;
        final long w0 = new UnsafeBuffer(key).getLong(0, ByteOrder.LITTLE_ENDIAN);
        return KeyHash.mix(seed ^ w0) * 0x9E3779B97F4A7C15L;
    }

    /** A join under the seed {@link #collidingStrings()} is constructed for (engines draw their own). */
    static JoinHarness collidingJoin(final JoinType type)
    {
        return new JoinHarness(spec(type).build(), CONFIG.withHashSeed(KeyHash.DEFAULT_SEED));
    }

    /**
     * @return two 13-byte string values whose join keys (tag, length, bytes: 16 bytes) differ but hash
     * equal, or null when the hash function is not the one this construction assumes.
     */
    static byte[][] collidingStrings()
    {
        final byte[] keyA = new byte[16];
        final byte[] keyB = new byte[16];
        for (final byte[] key : new byte[][] {keyA, keyB})
        {
            key[0] = FieldType.STRING;
            key[1] = 13;
        }
        Arrays.fill(keyA, 3, 16, (byte)'a');
        Arrays.fill(keyB, 3, 8, (byte)'b');
        final UnsafeBuffer a = new UnsafeBuffer(keyA);
        final UnsafeBuffer b = new UnsafeBuffer(keyB);
        // the second word of B cancels the difference of the first: the states before the last mix agree
        b.putLong(8, firstWordState(keyA) ^ a.getLong(8, ByteOrder.LITTLE_ENDIAN) ^ firstWordState(keyB),
            ByteOrder.LITTLE_ENDIAN);
        if (KeyHash.hash(a, 0, 16) != KeyHash.hash(b, 0, 16))
        {
            return null;
        }
        return new byte[][] {Arrays.copyOfRange(keyA, 3, 16), Arrays.copyOfRange(keyB, 3, 16)};
    }

    @Test
    void shouldNotMatchDistinctKeysWhoseHashesCollide()
    {
        final byte[][] keys = collidingStrings();
        assertNotNull(keys, "no colliding keys were constructed for the fixed seed");
        try (JoinHarness h = collidingJoin(JoinType.LEFT))
        {
            assertEquals(1, h.left("+I", "id", keys[0]).size());
            assertEquals(List.of(), h.right("+I", "id", keys[1]), "a colliding key is another key");
            assertEquals(1, op(h).state.index.size(), "the two keys share one bucket");
            assertEquals(2, h.right("+I", "id", keys[0]).size(), "-(l, null) and +(l, r)");
        }
    }

    @Test
    void shouldNotRetractRowOfCollidingKey()
    {
        final byte[][] keys = collidingStrings();
        assertNotNull(keys, "no colliding keys were constructed for the fixed seed");
        try (JoinHarness h = collidingJoin(JoinType.INNER))
        {
            h.left("+I", "id", keys[0], "price", 1);
            assertEquals(List.of(), h.left("-D", "id", keys[1], "price", 1));
            assertEquals(1, h.deadLetters().size());
            h.left("+I", "id", keys[1], "price", 1);
            h.left("-D", "id", keys[0], "price", 1);
            assertEquals(1, op(h).state.index.size(), "the bucket stays while the other key has a row");
            assertEquals(1, h.right("+I", "id", keys[1]).size());
            assertEquals(0, h.right("+I", "id", keys[0]).size());
            h.left("-D", "id", keys[1], "price", 1);
            h.right("-D", "id", keys[1]);
            h.right("-D", "id", keys[0]);
            assertEquals(0, op(h).state.index.size());
            assertEquals(1, h.deadLetters().size());
        }
    }

    // ---------------------------------------------------------------- state memory

    @Test
    void shouldReturnToEmptyStateAfterEverythingIsRetracted()
    {
        try (JoinHarness h = join(JoinType.FULL))
        {
            for (int round = 0; round < 3; round++)
            {
                for (int i = 0; i < 50; i++)
                {
                    h.left("+I", "id", i % 7, "price", i);
                    h.right("+I", "id", i % 5, "budget", i);
                    h.left("+I", "id", null, "price", i);
                }
                assertLive(h, 100, 50);
                for (int i = 0; i < 50; i++)
                {
                    h.left("-D", "id", i % 7, "price", i);
                    h.right("-U", "id", i % 5, "budget", i);
                    h.left("-D", "id", null, "price", i);
                }
                assertLive(h, 0, 0);
                assertEquals(0, op(h).state.store.usedBytes(), "record memory all freed");
                assertEquals(0, op(h).state.index.size(), "every key removed from the index");
                assertEquals(0, h.deadLetters().size());
            }
        }
    }

    @Test
    void shouldReuseRecordMemoryUnderChurn()
    {
        try (JoinHarness h = new JoinHarness(spec(JoinType.LEFT).build(), CONFIG.withChunkSize(4096)))
        {
            long reserved = -1;
            for (int i = 0; i < 5000; i++)
            {
                h.left("+I", "id", i % 3, "price", i % 10);
                h.right("+I", "id", i % 3, "budget", i % 10);
                h.left("-D", "id", i % 3, "price", i % 10);
                h.right("-D", "id", i % 3, "budget", i % 10);
                if (i == 100)
                {
                    reserved = op(h).state.store.reservedBytes();
                }
            }
            assertTrue(reserved > 0);
            assertEquals(reserved, op(h).state.store.reservedBytes(), "reserved bytes stay flat under steady churn");
            assertEquals(0, op(h).state.store.usedBytes());
        }
    }

    @Test
    void shouldFreeStateOfExpiredRows()
    {
        try (JoinHarness h = ttlJoin(JoinType.INNER, 10))
        {
            for (int i = 0; i < 100; i++)
            {
                h.leftAt(i, "+I", "id", i % 10);
                h.rightAt(i, "+I", "id", i % 10);
            }
            h.watermark(200);
            assertLive(h, 0, 0);
            assertEquals(0, op(h).state.store.usedBytes());
            assertEquals(0, op(h).state.index.size());
            assertEquals(0, h.counters().pendingTimers());
            assertEquals(200, h.counters().expiredRows());
        }
    }

    @Test
    void shouldCountRowsInAndOut()
    {
        try (JoinHarness h = join(JoinType.LEFT))
        {
            h.left("+I", "id", 1);
            h.right("+I", "id", 1);
            h.right("-D", "id", 9);
            assertEquals(3, h.counters().rowsIn());
            assertEquals(3, h.counters().rowsOut());
            assertEquals(1, h.counters().badInputs());
        }
    }

    @Test
    void shouldCarryInputStepOnEveryOutput()
    {
        for (final JoinType type : JoinType.values())
        {
            try (JoinHarness h = join(type))
            {
                h.left("+I", "id", 1);
                h.left("+I", "id", 2);
                h.right("+I", "id", 1);
                h.right("+I", "id", 3);
                h.right("-D", "id", 1);
                h.left("-D", "id", 1);
                for (final Output o : h.results().outputs())
                {
                    assertTrue(o.step() >= 0 && o.step() < h.nextStep(), type + " " + o);
                }
                final long step = h.nextStep();
                for (final Output o : h.right("+I", "id", 2))
                {
                    assertEquals(step, o.step(), type + " " + o);
                }
            }
        }
    }

    @Test
    void shouldStampLeftRowOutputOfSemiJoinWithItsOwnTimestamp()
    {
        try (JoinHarness h = join(JoinType.SEMI))
        {
            h.leftAt(42, "+I", "id", 1);
            final List<Output> outputs = h.rightAt(1000, "+I", "id", 1);
            assertEquals(1, outputs.size());
            assertEquals(42, outputs.get(0).timestamp());
        }
    }

    @Test
    void shouldEmitNothingAtEndOfInput()
    {
        try (JoinHarness h = join(JoinType.FULL))
        {
            h.left("+I", "id", 1);
            h.right("+I", "id", 2);
            assertEquals(List.of(), h.endOfInput());
            assertLive(h, 1, 1);
        }
    }

    @Test
    void shouldBeSafeToCloseTwice()
    {
        final JoinHarness h = join(JoinType.INNER);
        h.left("+I", "id", 1);
        final long rowsIn = h.counters().rowsIn();
        final int outputs = h.results().size();
        h.close();
        Assertions.assertDoesNotThrow(h::close, "a second close is a no-op");
        assertEquals(outputs, h.results().size(), "closing emits nothing");
        assertEquals(1, rowsIn, "the row was taken");
        assertEquals(rowsIn, h.counters().rowsIn(), "the counters stay readable after close");
    }

    @Test
    void shouldRejectNonRegularSpec()
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.INTERVAL, JoinType.INNER).schemas(LEFT, RIGHT)
            .leftKey("id").rightKey("id").interval(IntervalBounds.inclusive(-1, 1)).build();
        Assertions.assertThrows(IllegalArgumentException.class,
            () -> RegularJoin.create(spec, CONFIG, (k, l, r, t, s) -> {}, (s, k, r, t, st, re) -> {}, null));
    }
}
