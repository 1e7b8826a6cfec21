package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinType;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.metrics.JoinCounters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** The Emitter: rows placed by side, the padding rule per join type and side, and what it counts. */
class EmitterTest
{
    /** One call of the result or dead-letter handler, rows by identity. */
    private record Call(String what, ChangeKind kind, RowView left, RowView right, long a, long b, long step, Object extra)
    {
    }

    private final List<Call> calls = new ArrayList<>();
    private final ResultHandler results = new ResultHandler()
    {
        @Override
        public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long ts, final long step)
        {
            calls.add(new Call("result", kind, left, right, ts, 0, step, null));
        }

        @Override
        public void onWindowResult(
            final ChangeKind kind, final RowView left, final RowView right, final long start, final long end, final long step)
        {
            calls.add(new Call("window", kind, left, right, start, end, step, null));
        }
    };
    private final DeadLetterHandler deadLetters =
        (side, kind, row, ts, step, reason) -> calls.add(new Call("dead", kind, row, null, ts, 0, step, side + " " + reason));
    private final JoinCounters counters = new JoinCounters();
    private final RowView a = new RowView();
    private final RowView b = new RowView();

    private Emitter emitter(final JoinType type)
    {
        return new Emitter(type, results, deadLetters, counters);
    }

    @ParameterizedTest
    @EnumSource(JoinType.class)
    void paddingRuleIsTheJoinTypesPerSide(final JoinType type)
    {
        final Emitter emit = emitter(type);
        for (final Side side : Side.values())
        {
            assertEquals(type.padsUnmatched(side), emit.padsUnmatched(side), type + " pads " + side);
            assertEquals(type.emitsUnmatched(side), emit.emitsUnmatched(side), type + " emits unmatched " + side);
        }
    }

    @Test
    void paddingRuleNamesTheOuterSidesAndTheAntiLeft()
    {
        assertEquals(List.of(false, false), rule(JoinType.INNER));
        assertEquals(List.of(true, false), rule(JoinType.LEFT));
        assertEquals(List.of(false, true), rule(JoinType.RIGHT));
        assertEquals(List.of(true, true), rule(JoinType.FULL));
        assertEquals(List.of(false, false), rule(JoinType.SEMI));
        assertEquals(List.of(true, false), rule(JoinType.ANTI), "anti emits its unmatched left rows, alone");
        assertEquals(false, emitter(JoinType.ANTI).padsUnmatched(Side.LEFT), "but does not pad them");
    }

    private List<Boolean> rule(final JoinType type)
    {
        final Emitter emit = emitter(type);
        return List.of(emit.emitsUnmatched(Side.LEFT), emit.emitsUnmatched(Side.RIGHT));
    }

    @Test
    void pairPutsTheRowOnItsSide()
    {
        final Emitter emit = emitter(JoinType.INNER);
        emit.pair(ChangeKind.INSERT, Side.LEFT, a, b, 10, 1);
        emit.pair(ChangeKind.DELETE, Side.RIGHT, a, b, 20, 2);
        assertEquals(2, calls.size());
        assertCall(calls.get(0), "result", ChangeKind.INSERT, a, b, 10, 1);
        assertCall(calls.get(1), "result", ChangeKind.DELETE, b, a, 20, 2);
        assertEquals(2, counters.rowsOut);
    }

    @Test
    void paddedPutsNullOnTheOtherSide()
    {
        final Emitter emit = emitter(JoinType.FULL);
        emit.padded(ChangeKind.INSERT, Side.LEFT, a, 10, 1);
        emit.padded(ChangeKind.UPDATE_BEFORE, Side.RIGHT, b, 20, 2);
        assertCall(calls.get(0), "result", ChangeKind.INSERT, a, null, 10, 1);
        assertCall(calls.get(1), "result", ChangeKind.UPDATE_BEFORE, null, b, 20, 2);
        assertEquals(2, counters.rowsOut);
    }

    @Test
    void windowOutputCarriesItsWindowAsInserts()
    {
        final Emitter emit = emitter(JoinType.FULL);
        emit.windowPair(a, b, 100, 200, 3);
        emit.windowPadded(Side.LEFT, a, 100, 200, 4);
        emit.windowPadded(Side.RIGHT, b, 300, 400, 5);
        assertEquals(3, calls.size());
        assertCall(calls.get(0), "window", ChangeKind.INSERT, a, b, 100, 3);
        assertEquals(200, calls.get(0).b());
        assertCall(calls.get(1), "window", ChangeKind.INSERT, a, null, 100, 4);
        assertCall(calls.get(2), "window", ChangeKind.INSERT, null, b, 300, 5);
        assertEquals(400, calls.get(2).b());
        assertEquals(3, counters.rowsOut);
    }

    @Test
    void deadLettersCountLateRowsApartFromBadInputs()
    {
        final Emitter emit = emitter(JoinType.INNER);
        emit.deadLetter(Side.LEFT, ChangeKind.INSERT, a, 1, 1, DeadLetterReason.LATE);
        emit.deadLetter(Side.RIGHT, ChangeKind.INSERT, b, 2, 2, DeadLetterReason.LATE_WINDOW);
        emit.deadLetter(Side.LEFT, ChangeKind.DELETE, a, 3, 3, DeadLetterReason.RETRACTION_NOT_IN_STATE);
        emit.deadLetter(Side.RIGHT, ChangeKind.INSERT, b, 4, 4, DeadLetterReason.STATE_FULL);
        emit.deadLetter(Side.RIGHT, ChangeKind.INSERT, b, 5, 5, DeadLetterReason.KEY_TOO_LONG);
        assertEquals(2, counters.lateRows);
        assertEquals(3, counters.badInputs);
        assertEquals(0, counters.rowsOut, "a dead letter is no output");
        assertEquals(5, calls.size());
        assertSame(a, calls.get(2).left());
        assertEquals(ChangeKind.DELETE, calls.get(2).kind());
        assertEquals("LEFT RETRACTION_NOT_IN_STATE", calls.get(2).extra());
        assertEquals("RIGHT STATE_FULL", calls.get(3).extra());
    }

    private static void assertCall(
        final Call call, final String what, final ChangeKind kind, final RowView left, final RowView right, final long a,
        final long step)
    {
        assertEquals(what, call.what());
        assertEquals(kind, call.kind());
        assertSame(left, call.left());
        assertSame(right, call.right());
        assertEquals(a, call.a());
        assertEquals(step, call.step());
    }
}
