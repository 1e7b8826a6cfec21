package io.junction.join;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.ChangeKind;
import io.junction.api.CompareOp;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.FieldFilter;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.MultiJoinSpec;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.testing.Rows;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import com.sun.management.ThreadMXBean;
import io.junction.api.Side;
import java.lang.management.ManagementFactory;

/** The multi-way join operator event by event (docs/SEMANTICS.md "Multi-way joins"). */
class MultiJoinTest
{
    private static final Schema SCHEMA = Schema.of("id", "amt", "order_id", "pid", "sh", "x", "y");

    private final List<String> out = new ArrayList<>();
    private final List<String> dead = new ArrayList<>();

    private final ResultHandler results = new ResultHandler()
    {
        @Override
        public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long timestamp, final long step)
        {
            throw new AssertionError("a multi-way join emits through onMultiResult");
        }

        @Override
        public void onMultiResult(final ChangeKind kind, final RowView[] rows, final long timestamp, final long step)
        {
            final StringBuilder sb = new StringBuilder(kind.shortString());
            for (final RowView row : rows)
            {
                sb.append(' ').append(row == null ? "null" : Rows.format(SCHEMA, row));
            }
            out.add(sb.toString());
        }
    };

    private final DeadLetterHandler deadLetters = new DeadLetterHandler()
    {
        @Override
        public void onDeadLetter(final Side side, final ChangeKind kind, final RowView row, final long ts,
            final long step, final DeadLetterReason reason)
        {
            throw new AssertionError("a multi-way join reports dead letters with the input index");
        }

        @Override
        public void onMultiDeadLetter(final int input, final ChangeKind kind, final RowView row, final long ts, final long step,
            final DeadLetterReason reason)
        {
            dead.add(input + " " + reason.name());
        }
    };

    private static MultiJoinSpec.Builder ops(final JoinType payments, final JoinType shipments)
    {
        return MultiJoinSpec.builder(SCHEMA)
            .input("orders", "id")
            .input("payments", payments, "order_id")
            .input("shipments", shipments, "order_id");
    }

    private MultiJoin join(final MultiJoinSpec spec)
    {
        return new MultiJoin(JoinSpec.multi(spec), StateConfig.defaults(), results, deadLetters);
    }

    private List<String> drain()
    {
        final List<String> lines = new ArrayList<>(out);
        Collections.sort(lines);
        out.clear();
        return lines;
    }

    private static RowView order(final long id)
    {
        return Rows.row(SCHEMA, "id", id, "amt", 100L);
    }

    private static RowView payment(final long order, final String pid)
    {
        return Rows.row(SCHEMA, "order_id", order, "pid", pid);
    }

    private static RowView shipment(final long order, final String sh)
    {
        return Rows.row(SCHEMA, "order_id", order, "sh", sh);
    }

    private static final String O1 = "{amt=100, id=1}";

    @Test
    void innerThenLeftEmitsOnlyTheDifferenceOfEachEvent()
    {
        try (MultiJoin join = join(ops(JoinType.INNER, JoinType.LEFT).build()))
        {
            join.onInputRow(2, ChangeKind.INSERT, shipment(1, "s1"), 0, 0);
            join.onInputRow(0, ChangeKind.INSERT, order(1), 0, 1);
            assertEquals(List.of(), drain(), "inner join with no payment yet");
            join.onInputRow(1, ChangeKind.INSERT, payment(1, "p1"), 0, 2);
            assertEquals(List.of("+I " + O1 + " {order_id=1, pid=\"p1\"} {order_id=1, sh=\"s1\"}"), drain());
            join.onInputRow(2, ChangeKind.DELETE, shipment(1, "s1"), 0, 3);
            assertEquals(List.of(
                "+I " + O1 + " {order_id=1, pid=\"p1\"} null",
                "-D " + O1 + " {order_id=1, pid=\"p1\"} {order_id=1, sh=\"s1\"}"), drain(), "the last shipment leaves: padded");
            join.onInputRow(2, ChangeKind.INSERT, shipment(1, "s2"), 0, 4);
            assertEquals(List.of(
                "+I " + O1 + " {order_id=1, pid=\"p1\"} {order_id=1, sh=\"s2\"}",
                "-D " + O1 + " {order_id=1, pid=\"p1\"} null"), drain());
            join.onInputRow(1, ChangeKind.UPDATE_BEFORE, payment(1, "p1"), 0, 5);
            assertEquals(List.of("-D " + O1 + " {order_id=1, pid=\"p1\"} {order_id=1, sh=\"s2\"}"), drain(),
                "no intermediate (orders, null) row: payments is an inner join");
            join.onInputRow(1, ChangeKind.DELETE, payment(9, "p9"), 0, 6);
            assertEquals(List.of("1 RETRACTION_NOT_IN_STATE"), dead);
            assertEquals(List.of(), drain());
            assertEquals(1, join.liveRows(0));
            assertEquals(0, join.liveRows(1));
            assertEquals(1, join.liveRows(2));
        }
    }

    @Test
    void aPaddedInputInBetweenDoesNotBlockALaterMatch()
    {
        try (MultiJoin join = join(ops(JoinType.LEFT, JoinType.LEFT).build()))
        {
            join.onInputRow(0, ChangeKind.INSERT, order(1), 0, 0);
            assertEquals(List.of("+I " + O1 + " null null"), drain());
            join.onInputRow(2, ChangeKind.INSERT, shipment(1, "s1"), 0, 1);
            assertEquals(List.of("+I " + O1 + " null {order_id=1, sh=\"s1\"}", "-D " + O1 + " null null"), drain());
            join.onInputRow(1, ChangeKind.INSERT, payment(1, "p1"), 0, 2);
            assertEquals(List.of(
                "+I " + O1 + " {order_id=1, pid=\"p1\"} {order_id=1, sh=\"s1\"}",
                "-D " + O1 + " null {order_id=1, sh=\"s1\"}"), drain());
        }
    }

    @Test
    void aConditionBelongsToTheLaterInputAndFailsAgainstAPaddedOne()
    {
        final MultiJoinSpec spec = ops(JoinType.LEFT, JoinType.LEFT).condition("payments.x", CompareOp.EQ, "shipments.y").build();
        assertEquals(2, spec.conditions().get(0).level());
        try (MultiJoin join = join(spec))
        {
            join.onInputRow(0, ChangeKind.INSERT, order(1), 0, 0);
            join.onInputRow(2, ChangeKind.INSERT, Rows.row(SCHEMA, "order_id", 1L, "y", 5L), 0, 1);
            assertEquals(List.of("+I " + O1 + " null null"), drain(), "payments is padded: the shipment's term is not true");
            join.onInputRow(1, ChangeKind.INSERT, Rows.row(SCHEMA, "order_id", 1L, "x", 5L), 0, 2);
            assertEquals(List.of(
                "+I " + O1 + " {order_id=1, x=5} {order_id=1, y=5}",
                "-D " + O1 + " null null"), drain());
        }
    }

    @Test
    void aFirstInputRowThatCanNeverMatchIsPaddedThroughLeftJoinsOnly()
    {
        final RowView nullKey = Rows.row(SCHEMA, "amt", 7L);
        try (MultiJoin join = join(ops(JoinType.LEFT, JoinType.LEFT).build()))
        {
            join.onInputRow(0, ChangeKind.INSERT, nullKey, 0, 0);
            assertEquals(List.of("+I {amt=7} null null"), drain());
            join.onInputRow(0, ChangeKind.DELETE, nullKey, 0, 1);
            assertEquals(List.of("-D {amt=7} null null"), drain());
            join.onInputRow(0, ChangeKind.DELETE, nullKey, 0, 2);
            assertEquals(List.of("0 RETRACTION_NOT_IN_STATE"), dead);
        }
        try (MultiJoin join = join(ops(JoinType.LEFT, JoinType.INNER).build()))
        {
            join.onInputRow(0, ChangeKind.INSERT, nullKey, 0, 0);
            assertEquals(List.of(), drain(), "an inner join drops it");
        }
        dead.clear();
        final MultiJoinSpec filtered = ops(JoinType.LEFT, JoinType.LEFT)
            .filter("shipments", new FieldFilter("sh", CompareOp.NE, Literal.of("lost"))).build();
        try (MultiJoin join = join(filtered))
        {
            join.onInputRow(0, ChangeKind.INSERT, order(1), 0, 0);
            join.onInputRow(2, ChangeKind.INSERT, shipment(1, "lost"), 0, 1);
            assertEquals(List.of("+I " + O1 + " null null"), drain(), "a shipment failing its filter matches nothing");
            join.onInputRow(2, ChangeKind.DELETE, shipment(1, "lost"), 0, 2);
            assertEquals(List.of(), drain());
            assertEquals(List.of(), dead, "but it was in state");
        }
    }

    @Test
    void expiryOfSeveralRowsInOneStepIsNetted()
    {
        final MultiJoinSpec spec = ops(JoinType.LEFT, JoinType.LEFT).stateTtl("payments", 10).stateTtl("shipments", 10).build();
        try (MultiJoin join = join(spec))
        {
            join.onInputRow(0, ChangeKind.INSERT, order(1), 100, 0);
            join.onInputRow(1, ChangeKind.INSERT, payment(1, "p1"), 5, 1);
            join.onInputRow(2, ChangeKind.INSERT, shipment(1, "s1"), 5, 2);
            drain();
            join.onWatermark(15, 3);
            assertEquals(List.of(), drain(), "ts + ttl < watermark: not yet");
            join.onInputWatermark(0, 16, 4);
            join.onInputWatermark(1, 16, 5);
            assertEquals(List.of(), drain(), "the join watermark is the minimum over the inputs");
            join.onInputWatermark(2, 16, 6);
            assertEquals(List.of(
                "+I " + O1 + " null null",
                "-D " + O1 + " {order_id=1, pid=\"p1\"} {order_id=1, sh=\"s1\"}"), drain(),
                "both rows leave in one step: no (orders, null, s1) or (orders, p1, null) in between");
            join.onInputRow(1, ChangeKind.INSERT, payment(1, "late"), 3, 7);
            assertEquals(List.of(), drain(), "already past its TTL: not part of its input");
            join.onInputRow(1, ChangeKind.DELETE, payment(1, "p1"), 5, 8);
            assertEquals(List.of("1 RETRACTION_NOT_IN_STATE"), dead);
            assertEquals(0, join.keys() - 1);
        }
    }

    @Test
    void twoInputsAreAnInnerOrLeftJoin()
    {
        final MultiJoinSpec spec = MultiJoinSpec.builder(SCHEMA).input("orders", "id").input("payments", JoinType.LEFT, "order_id").build();
        try (MultiJoin join = join(spec))
        {
            join.onInputRow(1, ChangeKind.INSERT, payment(1, "p1"), 0, 0);
            join.onInputRow(1, ChangeKind.INSERT, payment(1, "p1"), 0, 1);
            join.onInputRow(0, ChangeKind.INSERT, order(1), 0, 2);
            assertEquals(List.of("+I " + O1 + " {order_id=1, pid=\"p1\"}", "+I " + O1 + " {order_id=1, pid=\"p1\"}"), drain(),
                "duplicates are kept");
            join.onInputRow(1, ChangeKind.DELETE, payment(1, "p1"), 0, 3);
            assertEquals(List.of("-D " + O1 + " {order_id=1, pid=\"p1\"}"), drain(), "one copy left: not padded");
            join.onInputRow(1, ChangeKind.DELETE, payment(1, "p1"), 0, 4);
            assertEquals(List.of("+I " + O1 + " null", "-D " + O1 + " {order_id=1, pid=\"p1\"}"), drain());
            assertTrue(join.counters().rowsOut() == 5);
        }
    }

    @Test
    void specsAreValidatedNamingTheField()
    {
        assertEquals("inputs: a multi-way join has 2 to 16 inputs, not 1", assertThrows(IllegalArgumentException.class,
            () -> MultiJoinSpec.builder(SCHEMA).input("orders", "id").build()).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> MultiJoinSpec.builder(SCHEMA).input("orders", "id")
            .input("payments", JoinType.FULL, "order_id").build()).getMessage().startsWith("inputs[1].type"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> MultiJoinSpec.builder(SCHEMA).input("orders", "id")
            .input("payments", JoinType.INNER, "nope").build()).getMessage().startsWith("inputs[1].key"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ops(JoinType.INNER, JoinType.LEFT)
            .condition("orders.amt", CompareOp.LT, "orders.id").build()).getMessage().startsWith("condition[0]"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ops(JoinType.INNER, JoinType.LEFT)
            .condition("orders.amt", CompareOp.LT, "refunds.amt").build()).getMessage().startsWith("condition[0].right"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ops(JoinType.INNER, JoinType.LEFT)
            .condition("orders.nope", CompareOp.LT, "payments.amt").build()).getMessage().startsWith("condition[0].left"));
    }

    @Test
    void theSteadyStateOfInsertsAndRetractionsAllocatesNothing()
    {
        final int keys = 16;
        final RowView[] orders = new RowView[keys];
        final RowView[] payments = new RowView[keys];
        final RowView[] shipments = new RowView[keys];
        for (int k = 0; k < keys; k++)
        {
            orders[k] = order(k);
            payments[k] = payment(k, "p");
            shipments[k] = shipment(k, "s");
        }
        final long[] emitted = {0};
        final ResultHandler counting = new ResultHandler()
        {
            @Override
            public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long timestamp, final long step)
            {
            }

            @Override
            public void onMultiResult(final ChangeKind kind, final RowView[] rows, final long timestamp, final long step)
            {
                emitted[0]++;
            }
        };
        final ThreadMXBean threads =
            (ThreadMXBean)ManagementFactory.getThreadMXBean();
        try (MultiJoin join = new MultiJoin(JoinSpec.multi(ops(JoinType.LEFT, JoinType.LEFT).build()), StateConfig.defaults(),
            counting, deadLetters))
        {
            for (int k = 0; k < keys; k++)
            {
                join.onInputRow(0, ChangeKind.INSERT, orders[k], 0, 0);
            }
            long least = Long.MAX_VALUE;
            for (int window = 0; window < 4; window++)
            {
                final long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 10_000; i++)
                {
                    final int k = i % keys;
                    join.onInputRow(1, ChangeKind.INSERT, payments[k], 0, i);
                    join.onInputRow(2, ChangeKind.INSERT, shipments[k], 0, i);
                    join.onInputRow(1, ChangeKind.DELETE, payments[k], 0, i);
                    join.onInputRow(2, ChangeKind.DELETE, shipments[k], 0, i);
                }
                least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
            }
            assertTrue(least < 16 * 1024, "allocated at least " + least + " bytes in each window of 40,000 events");
            assertEquals(keys + 4 * 10_000 * 8, emitted[0]);
            assertEquals(List.of(), dead);
        }
    }

    /**
     * The key table is keyed by the key bytes' hash. The polynomial byte hash the operator once had gave
     * 100,000 sequential 8-byte keys only 16,226 distinct values (keys 7,935 apart collide), and W7 spent most
     * of its time walking the colliding entries; a collision is now counted each time a probe meets another
     * key under an equal hash.
     */
    @Test
    void sequentialKeysDoNotCollideInTheKeyTable()
    {
        final int keys = 100_000;
        try (MultiJoin join = join(ops(JoinType.LEFT, JoinType.LEFT).build()))
        {
            for (long id = 1; id <= keys; id++)
            {
                join.onInputRow(0, ChangeKind.INSERT, order(id), id, id);
                join.onInputRow(1, ChangeKind.INSERT, payment(id, "p"), id, id);
            }
            // each order +(o, -, -), then its payment -(o, -, -) and +(o, p, -): every key found again
            assertEquals(3 * keys, out.size(), "results");
            assertEquals(0, join.counters().hashCollisions(), "probes that met another key under an equal hash");
        }
        out.clear();
    }
}
