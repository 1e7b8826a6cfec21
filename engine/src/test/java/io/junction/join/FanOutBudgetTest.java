package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.MultiJoinSpec;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.api.WindowSpec;
import io.junction.metrics.HotKey;
import io.junction.testing.Rows;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The declared output budget (docs/SEMANTICS.md 1.5): an insert whose fan-out, read from counts the state keeps,
 * is past {@code maxFanOut} is refused FANOUT_EXCEEDED before anything of it is emitted or stored; at or below the
 * budget every kind emits exactly what it emits without one.
 */
class FanOutBudgetTest
{
    private static final Schema SCHEMA = Schema.of("k", "id");

    /** Records every output line and dead letter as text, per step. */
    private static final class Recorder implements ResultHandler, DeadLetterHandler
    {
        final List<String> out = new ArrayList<>();
        final List<String> dead = new ArrayList<>();
        /** The largest fan-out the operator counted, once its run is over. */
        long maxFanOut;

        @Override
        public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long timestamp, final long step)
        {
            out.add(step + " " + kind.shortString() + " " + text(left) + " " + text(right));
        }

        @Override
        public void onMultiResult(final ChangeKind kind, final RowView[] rows, final long timestamp, final long step)
        {
            final StringBuilder sb = new StringBuilder().append(step).append(' ').append(kind.shortString());
            for (final RowView row : rows)
            {
                sb.append(' ').append(text(row));
            }
            out.add(sb.toString());
        }

        @Override
        public void onDeadLetter(
            final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final DeadLetterReason reason)
        {
            dead.add(step + " " + side + " " + kind.shortString() + " " + text(row) + " " + reason);
        }

        @Override
        public void onMultiDeadLetter(
            final int input, final ChangeKind kind, final RowView row, final long ts, final long step, final DeadLetterReason reason)
        {
            dead.add(step + " " + input + " " + kind.shortString() + " " + text(row) + " " + reason);
        }

        List<String> sortedOut()
        {
            final List<String> lines = new ArrayList<>(out);
            Collections.sort(lines);
            return lines;
        }

        private static String text(final RowView row)
        {
            return row == null ? "null" : Rows.format(SCHEMA, row);
        }
    }

    private static RowView row(final long k, final long id)
    {
        return Rows.row(SCHEMA, "k", k, "id", id);
    }

    private static MultiJoinSpec.Builder fourWay(final JoinType later)
    {
        return MultiJoinSpec.builder(SCHEMA).input("a", "k").input("b", later, "k").input("c", later, "k").input("d", later, "k");
    }

    @Test
    void aMultiWayRowPastTheBudgetIsRefusedWithItsCodeAndEmitsNothing()
    {
        final int r = 4;
        final Recorder rec = new Recorder();
        // r rows in each of inputs 1..3 first: the first input's rows then join r^3 combinations each.
        try (MultiJoin join = new MultiJoin(JoinSpec.multi(fourWay(JoinType.INNER).maxFanOut(r * r * r - 1).build()),
            StateConfig.defaults(), rec, rec))
        {
            long step = 0;
            for (int input = 1; input < 4; input++)
            {
                for (int i = 0; i < r; i++)
                {
                    join.onInputRow(input, ChangeKind.INSERT, row(1, input * 100 + i), 0, step++);
                }
            }
            assertEquals(List.of(), rec.out, "no first-input row yet: the inner chain is empty");
            final long refusedStep = step++;
            join.onInputRow(0, ChangeKind.INSERT, row(1, 0), 0, refusedStep);
            assertEquals(List.of(refusedStep + " 0 +I {id=0, k=1} FANOUT_EXCEEDED"), rec.dead);
            assertEquals(List.of(), rec.out, "the refused row emitted nothing");
            assertEquals(0, join.liveRows(0), "nor was it stored");
            assertEquals((long)r * r * r, join.counters().maxFanOut(), "the figure of the refused row is the largest seen");
            // Its retraction is that of a row never stored: a dead letter of its own kind, nothing emitted.
            join.onInputRow(0, ChangeKind.DELETE, row(1, 0), 0, step++);
            assertEquals(DeadLetterReason.RETRACTION_NOT_IN_STATE.name(), last(rec.dead));
            assertEquals(List.of(), rec.out);
            // Another key is not affected: one row in each input joins one combination.
            for (int input = 0; input < 4; input++)
            {
                join.onInputRow(input, ChangeKind.INSERT, row(2, input), 0, step++);
            }
            assertEquals(1, rec.out.size());
        }
    }

    @Test
    void aLeftJoinedInputWithoutRowsCountsOneAndTheProductSaturates()
    {
        final Recorder rec = new Recorder();
        try (MultiJoin join = new MultiJoin(JoinSpec.multi(fourWay(JoinType.LEFT).maxFanOut(2).build()),
            StateConfig.defaults(), rec, rec))
        {
            join.onInputRow(1, ChangeKind.INSERT, row(1, 10), 0, 0);
            join.onInputRow(1, ChangeKind.INSERT, row(1, 11), 0, 1);
            // a: 1 row joins b's 2 rows, c and d padded: fan-out 2, at the budget.
            join.onInputRow(0, ChangeKind.INSERT, row(1, 0), 0, 2);
            assertEquals(List.of(), rec.dead);
            assertEquals(2, rec.out.size());
            // a second b row would join 1 combination (a x padded c x padded d): admitted.
            join.onInputRow(1, ChangeKind.INSERT, row(1, 12), 0, 3);
            assertEquals(List.of(), rec.dead);
            // a c row joins a(1) x b(3) x padded d = 3 > 2: refused.
            join.onInputRow(2, ChangeKind.INSERT, row(1, 20), 0, 4);
            assertEquals(List.of("4 2 +I {id=20, k=1} FANOUT_EXCEEDED"), rec.dead);
        }
    }

    @Test
    void atOrBelowTheBudgetAMultiWayJoinEmitsExactlyAsWithoutOne()
    {
        final Random random = new Random(42);
        for (int round = 0; round < 20; round++)
        {
            final JoinType later = random.nextBoolean() ? JoinType.INNER : JoinType.LEFT;
            final long seed = random.nextLong();
            final Recorder unbounded = runMulti(later, 0, seed);
            final long budget = unbounded.maxFanOut;
            final Recorder bounded = runMulti(later, Math.max(1, budget), seed);
            assertEquals(List.of(), bounded.dead, "no row exceeds a budget of the largest fan-out seen");
            assertEquals(unbounded.sortedOut(), bounded.sortedOut());
            assertTrue(unbounded.out.size() > 0);
            if (budget > 1)
            {
                final Recorder tight = runMulti(later, budget - 1, seed);
                assertFalse(tight.dead.isEmpty(), "one row at least had the largest fan-out, " + budget);
                assertTrue(tight.dead.stream().allMatch(d -> d.endsWith("FANOUT_EXCEEDED") || d.endsWith("RETRACTION_NOT_IN_STATE")),
                    tight.dead::toString);
            }
        }
    }

    /** Random inserts and retractions of live rows over 3 keys in a 4-way join. */
    private static Recorder runMulti(final JoinType later, final long budget, final long seed)
    {
        final Random random = new Random(seed);
        final Recorder rec = new Recorder();
        final List<long[]> live = new ArrayList<>();
        try (MultiJoin join = new MultiJoin(JoinSpec.multi(fourWay(later).maxFanOut(budget).build()),
            StateConfig.defaults(), rec, rec))
        {
            for (int step = 0; step < 200; step++)
            {
                if (!live.isEmpty() && random.nextInt(4) == 0)
                {
                    final long[] gone = live.remove(random.nextInt(live.size()));
                    join.onInputRow((int)gone[0], ChangeKind.DELETE, row(gone[1], gone[2]), 0, step);
                }
                else
                {
                    final long[] added = {random.nextInt(4), random.nextInt(3), step};
                    live.add(added);
                    join.onInputRow((int)added[0], ChangeKind.INSERT, row(added[1], added[2]), 0, step);
                }
            }
            rec.maxFanOut = join.counters().maxFanOut();
        }
        return rec;
    }

    @Test
    void aRegularInnerRowPastTheBudgetIsRefusedAndItsRetractionIsNotInState()
    {
        final Recorder rec = new Recorder();
        try (JoinOperator join = JoinOperators.create(regular(JoinType.INNER).maxFanOut(2).build(), StateConfig.defaults(), rec, rec))
        {
            join.onRow(Side.RIGHT, ChangeKind.INSERT, row(1, 10), 0, 0);
            join.onRow(Side.RIGHT, ChangeKind.INSERT, row(1, 11), 0, 1);
            join.onRow(Side.RIGHT, ChangeKind.INSERT, row(1, 12), 0, 2);
            join.onRow(Side.LEFT, ChangeKind.INSERT, row(1, 0), 0, 3);
            assertEquals(List.of("3 LEFT +I {id=0, k=1} FANOUT_EXCEEDED"), rec.dead);
            assertEquals(List.of(), rec.out);
            assertEquals(3, join.counters().maxFanOut());
            join.onRow(Side.LEFT, ChangeKind.DELETE, row(1, 0), 0, 4);
            assertEquals(DeadLetterReason.RETRACTION_NOT_IN_STATE.name(), last(rec.dead));
            // After a right row leaves, the fan-out is 2, at the budget: joined as without one.
            join.onRow(Side.RIGHT, ChangeKind.DELETE, row(1, 12), 0, 5);
            join.onRow(Side.LEFT, ChangeKind.INSERT, row(1, 0), 0, 6);
            assertEquals(List.of("6 +I {id=0, k=1} {id=10, k=1}", "6 +I {id=0, k=1} {id=11, k=1}"), rec.sortedOut());
            assertEquals(2, rec.dead.size());
        }
    }

    @Test
    void aRegularLeftJoinRefusesThePaddedSideToo()
    {
        final Recorder rec = new Recorder();
        try (JoinOperator join = JoinOperators.create(regular(JoinType.LEFT).maxFanOut(1).build(), StateConfig.defaults(), rec, rec))
        {
            join.onRow(Side.LEFT, ChangeKind.INSERT, row(1, 0), 0, 0);
            join.onRow(Side.LEFT, ChangeKind.INSERT, row(1, 1), 0, 1);
            assertEquals(List.of("0 +I {id=0, k=1} null", "1 +I {id=1, k=1} null"), rec.sortedOut(), "padded: one line each");
            // A right row would join both left rows (and retract their padding): refused, nothing retracted.
            join.onRow(Side.RIGHT, ChangeKind.INSERT, row(1, 10), 0, 2);
            assertEquals(List.of("2 RIGHT +I {id=10, k=1} FANOUT_EXCEEDED"), rec.dead);
            assertEquals(2, rec.out.size());
        }
    }

    @Test
    void atOrBelowTheBudgetRegularJoinsEmitExactlyAsWithoutOne()
    {
        final Random random = new Random(7);
        for (final JoinType type : new JoinType[] {JoinType.INNER, JoinType.LEFT, JoinType.FULL, JoinType.SEMI, JoinType.ANTI})
        {
            for (int round = 0; round < 5; round++)
            {
                final long seed = random.nextLong();
                final Recorder unbounded = runRegular(JoinKind.REGULAR, type, 0, seed);
                final Recorder bounded = runRegular(JoinKind.REGULAR, type, Math.max(1, unbounded.maxFanOut), seed);
                assertEquals(List.of(), bounded.dead, type + ": no row exceeds the largest fan-out seen");
                assertEquals(unbounded.sortedOut(), bounded.sortedOut(), type.toString());
                if (unbounded.maxFanOut > 1)
                {
                    final Recorder tight = runRegular(JoinKind.REGULAR, type, unbounded.maxFanOut - 1, seed);
                    assertTrue(tight.dead.stream().anyMatch(d -> d.endsWith("FANOUT_EXCEEDED")), type.toString());
                }
            }
        }
    }

    @Test
    void atOrBelowTheBudgetAnIntervalJoinEmitsExactlyAsWithoutOne()
    {
        final Random random = new Random(11);
        for (final JoinType type : new JoinType[] {JoinType.INNER, JoinType.LEFT, JoinType.FULL})
        {
            final long seed = random.nextLong();
            final Recorder unbounded = runRegular(JoinKind.INTERVAL, type, 0, seed);
            final Recorder bounded = runRegular(JoinKind.INTERVAL, type, Math.max(1, unbounded.maxFanOut), seed);
            assertEquals(List.of(), bounded.dead);
            assertEquals(unbounded.sortedOut(), bounded.sortedOut(), type.toString());
            assertTrue(unbounded.maxFanOut > 1);
            final Recorder tight = runRegular(JoinKind.INTERVAL, type, unbounded.maxFanOut - 1, seed);
            assertTrue(tight.dead.stream().anyMatch(d -> d.endsWith("FANOUT_EXCEEDED")), type.toString());
        }
    }

    /** Random rows over 3 keys; a regular join also retracts live rows at random. */
    private static Recorder runRegular(final JoinKind kind, final JoinType type, final long budget, final long seed)
    {
        final Random random = new Random(seed);
        final Recorder rec = new Recorder();
        final JoinSpec.Builder spec = JoinSpec.builder(kind, type).schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k").maxFanOut(budget);
        if (kind == JoinKind.INTERVAL)
        {
            spec.interval(IntervalBounds.inclusive(-1_000_000, 1_000_000));
        }
        final List<long[]> live = new ArrayList<>();
        try (JoinOperator join = JoinOperators.create(spec.build(), StateConfig.defaults(), rec, rec))
        {
            for (int step = 0; step < 200; step++)
            {
                if (kind == JoinKind.REGULAR && !live.isEmpty() && random.nextInt(4) == 0)
                {
                    final long[] gone = live.remove(random.nextInt(live.size()));
                    join.onRow(gone[0] == 0 ? Side.LEFT : Side.RIGHT, ChangeKind.DELETE, row(gone[1], gone[2]), step, step);
                }
                else
                {
                    final long[] added = {random.nextInt(2), random.nextInt(3), step};
                    live.add(added);
                    join.onRow(added[0] == 0 ? Side.LEFT : Side.RIGHT, ChangeKind.INSERT, row(added[1], added[2]), step, step);
                }
            }
            rec.maxFanOut = join.counters().maxFanOut();
        }
        return rec;
    }

    private static JoinSpec.Builder regular(final JoinType type)
    {
        return JoinSpec.builder(JoinKind.REGULAR, type).schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k");
    }

    @Test
    void theBudgetIsValidatedAtBuild()
    {
        final IllegalArgumentException negative = assertThrows(IllegalArgumentException.class, () -> regular(JoinType.INNER).maxFanOut(-1).build());
        assertEquals("maxFanOut must be >= 0 (0: unbounded): -1", negative.getMessage());
        assertThrows(IllegalArgumentException.class, () -> fourWay(JoinType.INNER).maxFanOut(-5).build());
        final IllegalArgumentException temporal = assertThrows(IllegalArgumentException.class, () ->
            JoinSpec.builder(JoinKind.TEMPORAL, JoinType.INNER).schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k").maxFanOut(3).build());
        assertTrue(temporal.getMessage().contains("at most one line per row"), temporal.getMessage());
        assertThrows(IllegalArgumentException.class, () -> JoinSpec.builder(JoinKind.WINDOW, JoinType.INNER).schemas(SCHEMA, SCHEMA)
            .leftKey("k").rightKey("k").window(WindowSpec.tumbling(10, 0)).maxFanOut(3).build());
        assertEquals(0, regular(JoinType.INNER).build().maxFanOut(), "unbounded by default");
        assertEquals(7, JoinSpec.multi(fourWay(JoinType.INNER).maxFanOut(7).build()).maxFanOut());
    }

    @Test
    void theHotKeyReportShowsTheLinesPerInputRow()
    {
        final Recorder rec = new Recorder();
        try (JoinOperator join = JoinOperators.create(regular(JoinType.INNER).build(), StateConfig.defaults().withHotKeys(8), rec, rec))
        {
            long step = 0;
            for (int i = 0; i < 4; i++)
            {
                join.onRow(Side.RIGHT, ChangeKind.INSERT, row(1, 10 + i), 0, step++);
            }
            for (int i = 0; i < 4; i++)
            {
                join.onRow(Side.LEFT, ChangeKind.INSERT, row(1, i), 0, step++);
            }
            final HotKey hot = join.hotKeys().get(0);
            assertEquals(8, hot.rowEvents);
            assertEquals(16, hot.fanOutRows, "each left row joined the 4 right rows");
            assertEquals(2.0, hot.amplification(), 1e-9);
            assertTrue(hot.toString().contains("amplification=2.00"), hot::toString);
        }
    }

    private static String last(final List<String> dead)
    {
        final String line = dead.get(dead.size() - 1);
        return line.substring(line.lastIndexOf(' ') + 1);
    }
}
