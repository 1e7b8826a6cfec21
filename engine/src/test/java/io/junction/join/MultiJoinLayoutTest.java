package io.junction.join;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.MultiJoinSpec;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.testing.Rows;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import com.sun.management.ThreadMXBean;

/**
 * The multi-way join's state layout version 2 (buckets of 16 + 8n bytes with no live row counts,
 * internal.state.MultiBucketDescriptor; docs/SEMANTICS.md section 10.4): a durable state an older build wrote
 * is refused at open, and a watermark step that expires several rows of a key at once nets them without
 * allocating.
 */
class MultiJoinLayoutTest
{
    private static final Schema SCHEMA = Schema.of("id", "ref", "a", "b");

    @Test
    void aDurableStateOfTheOlderBucketLayoutIsRefusedBeforeAnyBucketIsRead(@TempDir final Path dir)
    {
        final JoinSpec spec = JoinSpec.multi(MultiJoinSpec.builder(SCHEMA).input("i0", "id")
            .input("i1", JoinType.LEFT, "ref").input("i2", JoinType.LEFT, "ref").build());
        final StateConfig durable = StateConfig.defaults().withStateDirectory(dir);
        final MultiJoinStateTest.Collector out = new MultiJoinStateTest.Collector();
        // An older build's state: marked with its layout name (its buckets were 24 + 8n bytes with two counts).
        try (MultiJoin old = new MultiJoin(spec, durable, out, out, -1L, "multi/n-groups"))
        {
            old.onInputRow(0, ChangeKind.INSERT, Rows.row(SCHEMA, "id", 1L, "a", 0L), 0, 1);
            old.onInputRow(1, ChangeKind.INSERT, Rows.row(SCHEMA, "ref", 1L, "a", 1L), 0, 2);
        }
        assertEquals("multi/n-groups/2", MultiJoin.LAYOUT, "the layout name this build's buckets carry");
        final DurableStateException refused = assertThrows(DurableStateException.class,
            () -> new MultiJoin(spec, durable, out, out).close());
        assertTrue(refused.getMessage().contains("another partition state layout"), refused.getMessage());
        // The refusal leaves the directory as it was: the build that wrote it still reopens it.
        try (MultiJoin again = new MultiJoin(spec, durable, out, out, -1L, "multi/n-groups"))
        {
            assertEquals(1, again.liveRows(0));
            assertEquals(1, again.liveRows(1));
        }
    }

    @Test
    void watermarkStepsThatExpireSeveralRowsOfAKeyNetThemWithoutAllocating()
    {
        final JoinSpec spec = JoinSpec.multi(MultiJoinSpec.builder(SCHEMA).input("i0", "id")
            .input("i1", JoinType.LEFT, "ref").input("i2", JoinType.LEFT, "ref")
            .stateTtl("i1", 10).stateTtl("i2", 10).build());
        final int keys = 16;
        final RowView[] orders = new RowView[keys];
        final RowView[][] payments = new RowView[keys][3];
        final RowView[][] shipments = new RowView[keys][2];
        for (int k = 0; k < keys; k++)
        {
            orders[k] = Rows.row(SCHEMA, "id", (long)k, "a", 0L);
            for (int p = 0; p < 3; p++)
            {
                payments[k][p] = Rows.row(SCHEMA, "ref", (long)k, "a", (long)p);
            }
            for (int s = 0; s < 2; s++)
            {
                shipments[k][s] = Rows.row(SCHEMA, "ref", (long)k, "b", (long)s);
            }
        }
        final long[] emitted = {0, 0};
        final ResultHandler counting = new ResultHandler()
        {
            @Override
            public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long timestamp, final long step)
            {
            }

            @Override
            public void onMultiResult(final ChangeKind kind, final RowView[] rows, final long timestamp, final long step)
            {
                emitted[kind == ChangeKind.INSERT ? 0 : 1]++;
            }
        };
        final DeadLetterHandler noDeadLetters = new DeadLetterHandler()
        {
            @Override
            public void onDeadLetter(final Side side, final ChangeKind kind, final RowView row, final long ts,
                final long step, final DeadLetterReason reason)
            {
                throw new AssertionError("a multi-way join reports dead letters with the input index");
            }

            @Override
            public void onMultiDeadLetter(final int input, final ChangeKind kind, final RowView row, final long ts,
                final long step, final DeadLetterReason reason)
            {
                throw new AssertionError("dead letter of input " + input + ": " + reason.name() + " at " + step);
            }
        };
        final ThreadMXBean threads = (ThreadMXBean)ManagementFactory.getThreadMXBean();
        try (MultiJoin join = new MultiJoin(spec, StateConfig.defaults(), counting, noDeadLetters))
        {
            long least = Long.MAX_VALUE;
            long step = 0;
            long ts = 0;
            for (int window = 0; window < 5; window++)
            {
                final long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 2_000; i++)
                {
                    final int k = i % keys;
                    ts += 100;
                    join.onInputRow(0, ChangeKind.INSERT, orders[k], ts, ++step);
                    for (final RowView payment : payments[k])
                    {
                        join.onInputRow(1, ChangeKind.INSERT, payment, ts, ++step);
                    }
                    for (final RowView shipment : shipments[k])
                    {
                        join.onInputRow(2, ChangeKind.INSERT, shipment, ts, ++step);
                    }
                    // Every payment and shipment of the key expires in this one step: 3 x 2 combinations become 1 padded.
                    join.onWatermark(ts + 20, ++step);
                    join.onInputRow(0, ChangeKind.DELETE, orders[k], ts + 20, ++step);
                }
                least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
            }
            assertTrue(least < 16 * 1024, "allocated at least " + least + " bytes in each window of 16,000 events");
            assertEquals(0, join.keys());
            assertEquals(0, join.counters().liveStateBytes());
            assertEquals(0, join.counters().pendingTimers());
            // Per key: 11 insertions (the order padded, each payment, each shipment per payment, the padded order
            // again when the step expires all six combinations at once) and as many retractions.
            assertEquals(5 * 2_000 * 11, emitted[0]);
            assertEquals(emitted[0], emitted[1], "everything retracted in the end");
        }
    }
}
