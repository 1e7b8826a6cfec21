package io.junction.tools.naive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.junction.tools.workload.WorkloadSink;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** docs/SEMANTICS.md 4 and 5, inner and left, on hand-made sequences. */
class NaiveJoinSemanticsTest
{
    private static final int L = WorkloadSink.LEFT;
    private static final int R = WorkloadSink.RIGHT;

    private final List<JoinedRow> out = new ArrayList<>();

    private NaiveIntervalJoin interval(final NaiveJoin.Type type, final long lower, final long upper)
    {
        return new NaiveIntervalJoin(type, lower, upper, out::add);
    }

    private static String describe(final JoinedRow row)
    {
        return (row.kind() == JoinedRow.Kind.INSERT ? "+" : "-")
            + "(" + (row.left() == null ? "null" : "l" + row.left().f1)
            + "," + (row.right() == null ? "null" : "r" + row.right().f1) + ")";
    }

    private List<String> drain()
    {
        final List<String> described = new ArrayList<>();
        for (final JoinedRow row : out)
        {
            described.add(describe(row));
        }
        out.clear();
        return described;
    }

    // ------------------------------------------------------------------ interval join (SEMANTICS 5)

    @Test
    void shouldMatchBothIntervalBoundsInclusively()
    {
        final NaiveIntervalJoin join = interval(NaiveJoin.Type.INNER, -10, 10);
        join.row(L, 7, 100, 0);
        join.row(R, 7, 90, 0);    // lower bound
        join.row(R, 7, 110, 1);   // upper bound
        join.row(R, 7, 89, 2);    // just outside
        join.row(R, 7, 111, 3);   // just outside
        join.row(R, 8, 100, 4);   // other key
        assertEquals(List.of("+(l0,r0)", "+(l0,r1)"), drain());
    }

    @Test
    void shouldJoinAnArrivingLeftRowWithStoredRightRows()
    {
        final NaiveIntervalJoin join = interval(NaiveJoin.Type.INNER, -10, 10);
        join.row(R, 7, 100, 0);
        join.row(L, 7, 95, 0);
        join.row(L, 7, 111, 1);
        assertEquals(List.of("+(l0,r0)"), drain());
    }

    @Test
    void shouldEmitPaddedRowWhenTheWatermarkClosesAnUnmatchedLeftRow()
    {
        final NaiveIntervalJoin join = interval(NaiveJoin.Type.LEFT, -10, 10);
        join.row(L, 7, 100, 0);
        join.watermark(110);      // not closed: 110 > 100 + 10 is false
        assertEquals(List.of(), drain());
        join.watermark(111);
        assertEquals(List.of("+(l0,null)"), drain());
        assertEquals(0, join.liveRows());
        join.end();
        assertEquals(List.of(), drain(), "padded once");
    }

    @Test
    void shouldNeverPadALeftRowThatMatched()
    {
        final NaiveIntervalJoin join = interval(NaiveJoin.Type.LEFT, -10, 10);
        join.row(L, 7, 100, 0);
        join.row(R, 7, 105, 0);
        join.end();
        assertEquals(List.of("+(l0,r0)"), drain());
    }

    @Test
    void shouldPadEveryPendingLeftRowAtTheEndOfInput()
    {
        final NaiveIntervalJoin join = interval(NaiveJoin.Type.LEFT, -10, 10);
        join.row(L, 7, 100, 0);
        join.row(L, 8, 100, 1);
        assertEquals(List.of(), drain());
        join.end();
        assertEquals(List.of("+(l0,null)", "+(l1,null)"), drain());
        assertEquals(0, join.liveRows());
    }

    @Test
    void shouldNotPadInAnInnerJoin()
    {
        final NaiveIntervalJoin join = interval(NaiveJoin.Type.INNER, -10, 10);
        join.row(L, 7, 100, 0);
        join.end();
        assertEquals(List.of(), drain());
    }

    @Test
    void shouldDropAndCountLateRows()
    {
        final NaiveIntervalJoin join = interval(NaiveJoin.Type.LEFT, -10, 10);
        join.row(R, 7, 100, 0);
        join.watermark(101);
        join.row(L, 7, 100, 0);   // late: 100 < 101; not joined, not padded
        join.row(L, 7, 101, 1);   // on time: joins the stored right row (closes at 110)
        join.end();
        assertEquals(List.of("+(l1,r0)"), drain());
        assertEquals(1, join.lateRows());
    }

    @Test
    void shouldRemoveARightRowOnceTheWatermarkPassesItsLastPossibleMatch()
    {
        final NaiveIntervalJoin join = interval(NaiveJoin.Type.INNER, -10, 10);
        join.row(R, 7, 100, 0);
        join.watermark(110);      // a left row at ts 110 could still match
        assertEquals(1, join.liveRows());
        join.row(L, 7, 110, 0);
        assertEquals(List.of("+(l0,r0)"), drain());
        join.watermark(111);
        assertEquals(1, join.liveRows(), "only the left row (closes after 120) stays");
    }

    @Test
    void shouldJoinThenPadAtOnceARowThatArrivesAlreadyClosed()
    {
        // upper < 0: a left row closes before the watermark passes its own ts
        final NaiveIntervalJoin join = interval(NaiveJoin.Type.LEFT, -20, -5);
        join.row(R, 7, 85, 0);
        join.watermark(98);
        join.row(L, 7, 100, 0);   // closes when watermark > 95: arrives closed, matches r0 (85 in [80, 95])
        join.row(L, 8, 100, 1);   // arrives closed, no match: padded at once
        assertEquals(List.of("+(l0,r0)", "+(l1,null)"), drain());
        assertEquals(1, join.liveRows(), "closed rows are not stored");
    }

    @Test
    void shouldIgnoreAWatermarkThatGoesBackwards()
    {
        final NaiveIntervalJoin join = interval(NaiveJoin.Type.LEFT, -10, 10);
        join.watermark(200);
        join.watermark(100);
        assertEquals(200, join.currentWatermark());
        join.row(L, 7, 150, 0);
        assertEquals(1, join.lateRows());
    }

    @Test
    void shouldRejectUnknownTypesAndInvertedBounds()
    {
        assertEquals(NaiveJoin.Type.LEFT, NaiveJoin.Type.parse("Left"));
        assertThrows(IllegalArgumentException.class, () -> NaiveJoin.Type.parse("full"));
        assertThrows(IllegalArgumentException.class, () -> new NaiveIntervalJoin(NaiveJoin.Type.INNER, 10, -10));
    }

    // ------------------------------------------------------------------ regular join (SEMANTICS 4)

    @Test
    void shouldEmitEachPairOnceInAnInnerRegularJoin()
    {
        final NaiveRegularJoin join = new NaiveRegularJoin(NaiveJoin.Type.INNER, out::add);
        join.row(L, 1, 0, 0);
        join.row(R, 1, 1, 0);
        join.row(R, 1, 2, 1);
        join.row(L, 1, 3, 1);
        join.row(R, 2, 4, 2);
        assertEquals(List.of("+(l0,r0)", "+(l0,r1)", "+(l1,r0)", "+(l1,r1)"), drain());
    }

    @Test
    void shouldRetractThePaddedRowWhenTheFirstMatchArrives()
    {
        final NaiveRegularJoin join = new NaiveRegularJoin(NaiveJoin.Type.LEFT, out::add);
        join.row(L, 1, 0, 0);
        assertEquals(List.of("+(l0,null)"), drain());
        join.row(R, 1, 1, 0);
        assertEquals(List.of("-(l0,null)", "+(l0,r0)"), drain());
        join.row(R, 1, 2, 1);
        assertEquals(List.of("+(l0,r1)"), drain(), "count was 1: no retraction");
        join.row(L, 1, 3, 1);
        assertEquals(List.of("+(l1,r0)", "+(l1,r1)"), drain(), "a matched left row is never padded");
        assertEquals(4, join.pairs());
        assertEquals(1, join.deletes());
        assertEquals(1, join.paddedInserts());
    }

    @Test
    void shouldBuildRowsWithTheDerivedColumns()
    {
        final NaiveRegularJoin join = new NaiveRegularJoin(NaiveJoin.Type.LEFT, out::add);
        join.row(R, 5, 9, 3);
        join.row(L, 5, 10, 2);
        final JoinedRow pair = out.get(0);
        assertEquals(5L * 1_000_003L, pair.left().f2);
        assertEquals(5L * 1_000_003L + 1, pair.right().f2);
        assertEquals("00000000004c4b4f" + "0000000000000002", pair.left().f3);
        assertSame(JoinedRow.Kind.INSERT, pair.kind());
    }

    // ------------------------------------------------------------------ regular join with retractions (SEMANTICS 4.2)

    private static final byte MINUS_U = WorkloadSink.UPDATE_BEFORE;
    private static final byte PLUS_U = WorkloadSink.UPDATE_AFTER;

    /** The drained output with each row's own kind: {@code +I(l0,r0)}, {@code -U(l0,r0)}, ... */
    private List<String> drainKinds()
    {
        final List<String> described = new ArrayList<>();
        for (final JoinedRow row : out)
        {
            described.add(row.kind().shortString() + "(" + (row.left() == null ? "null" : "l" + row.left().f1) + ","
                + (row.right() == null ? "null" : "r" + row.right().f1) + ")");
        }
        out.clear();
        return described;
    }

    @Test
    void shouldForwardUpdateKindsInAnInnerRegularJoin()
    {
        final NaiveRegularJoin join = new NaiveRegularJoin(NaiveJoin.Type.INNER, out::add);
        join.row(L, 1, 0, 0);
        join.row(R, 1, 1, 0);
        join.row(R, 1, 2, 1);
        assertEquals(List.of("+I(l0,r0)", "+I(l0,r1)"), drainKinds());
        join.change(L, MINUS_U, 1, 0, 0);
        join.change(L, PLUS_U, 1, 3, 0);
        assertEquals(List.of("-U(l0,r0)", "-U(l0,r1)", "+U(l0,r0)", "+U(l0,r1)"), drainKinds());
        join.change(R, MINUS_U, 1, 1, 0);
        assertEquals(List.of("-U(l0,r0)"), drainKinds());
        assertEquals(2, join.liveRows(), "r0 retracted, its +U not sent");
        assertEquals(5, join.updates());
        assertEquals(7, join.outputRows());
    }

    @Test
    void shouldRetractARowOnlyWhenEveryFieldIsEqual()
    {
        final NaiveRegularJoin join = new NaiveRegularJoin(NaiveJoin.Type.INNER, out::add);
        join.row(L, 1, 5, 0);
        join.row(R, 1, 6, 0);
        drainKinds();
        join.change(L, MINUS_U, 1, 4, 0);            // ts differs: not the stored version
        join.change(L, MINUS_U, 1, 5, 1);            // f1 differs
        join.change(L, MINUS_U, 2, 5, 0);            // key differs
        assertEquals(List.of(), drainKinds(), "a retraction without an equal row is a dead letter");
        assertEquals(3, join.deadLetters());
        assertEquals(2, join.liveRows());
        join.change(L, WorkloadSink.DELETE, 1, 5, 0);
        assertEquals(List.of("-D(l0,r0)"), drainKinds());
        join.change(L, WorkloadSink.DELETE, 1, 5, 0);
        assertEquals(4, join.deadLetters(), "retracted once, gone");
    }

    @Test
    void shouldPadAndUnpadOnRetractionsInALeftRegularJoin()
    {
        final NaiveRegularJoin join = new NaiveRegularJoin(NaiveJoin.Type.LEFT, out::add);
        join.row(L, 1, 0, 0);
        join.row(R, 1, 1, 0);
        assertEquals(List.of("+I(l0,null)", "-D(l0,null)", "+I(l0,r0)"), drainKinds());
        // the key's only right row is updated: its -U takes l0's count to 0, its +U back to 1
        join.change(R, MINUS_U, 1, 1, 0);
        assertEquals(List.of("-D(l0,r0)", "+I(l0,null)"), drainKinds());
        join.change(R, PLUS_U, 1, 2, 0);
        assertEquals(List.of("-D(l0,null)", "+I(l0,r0)"), drainKinds());
        // the left row is updated: outer pairs are -D / +I whatever the input's kind
        join.change(L, MINUS_U, 1, 0, 0);
        join.change(L, PLUS_U, 1, 3, 0);
        assertEquals(List.of("-D(l0,r0)", "+I(l0,r0)"), drainKinds());
        // a left row without a match retracts its padded row
        join.row(L, 2, 4, 1);
        join.change(L, MINUS_U, 2, 4, 1);
        assertEquals(List.of("+I(l1,null)", "-D(l1,null)"), drainKinds());
        assertEquals(0, join.deadLetters());
    }

    @Test
    void shouldRefuseRetractionsInTheIntervalJoin()
    {
        final NaiveIntervalJoin join = interval(NaiveJoin.Type.INNER, -10, 10);
        assertThrows(UnsupportedOperationException.class, () -> join.change(L, MINUS_U, 1, 0, 0));
    }
}
