package io.junction.join;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import io.junction.internal.state.HashKeyIndex;
import io.junction.internal.state.MultiBucketDescriptor;
import io.junction.internal.state.MultiRowDescriptor;
import io.junction.internal.state.NativeArena;
import io.junction.testing.Rows;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import com.sun.management.ThreadMXBean;
import io.junction.api.Side;

/**
 * The multi-way join's off-heap state (docs/SEMANTICS.md section 10.4): distinct keys whose hashes collide
 * give exactly the output of keys that do not (each key its own bucket, told apart by its rows' key bytes),
 * the state's bytes are counted as the arena holds them and return to nothing when the rows leave, a full
 * arena refuses a row before it has any effect, a durable state reopens the same copies, and the steady
 * state allocates nothing with state TTL, rows that can never match, keys coming and going and groups of
 * several rows.
 */
class MultiJoinStateTest
{
    private static final Schema SCHEMA = Schema.of("id", "ref", "a", "b");

    /** Collects output and dead letters as sorted-comparable lines, each tagged with its step. */
    static final class Collector implements ResultHandler, DeadLetterHandler
    {
        final List<String> lines = new ArrayList<>();

        @Override
        public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long timestamp, final long step)
        {
            throw new AssertionError("a multi-way join emits through onMultiResult");
        }

        @Override
        public void onMultiResult(final ChangeKind kind, final RowView[] rows, final long timestamp, final long step)
        {
            final StringBuilder sb = new StringBuilder().append(step).append(' ').append(kind.shortString()).append(" ts=")
                .append(timestamp);
            for (final RowView row : rows)
            {
                sb.append(' ').append(row == null ? "null" : Rows.format(SCHEMA, row));
            }
            lines.add(sb.toString());
        }

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
            lines.add(step + " dead " + input + " " + reason.name() + " " + Rows.format(SCHEMA, row));
        }

        List<String> sorted()
        {
            final List<String> copy = new ArrayList<>(lines);
            Collections.sort(copy);
            return copy;
        }
    }

    static MultiJoinSpec spec(final Random random, final int inputs)
    {
        final MultiJoinSpec.Builder b = MultiJoinSpec.builder(SCHEMA).input("i0", "id");
        for (int i = 1; i < inputs; i++)
        {
            b.input("i" + i, random.nextBoolean() ? JoinType.LEFT : JoinType.INNER, "ref");
        }
        for (int i = 0; i < inputs; i++)
        {
            if (random.nextInt(4) == 0)
            {
                b.filter("i" + i, new FieldFilter("a", CompareOp.GE, Literal.of(1L)));
            }
            if (random.nextInt(3) == 0)
            {
                b.stateTtl("i" + i, 5 + random.nextInt(20));
            }
        }
        if (random.nextBoolean())
        {
            final int later = 1 + random.nextInt(inputs - 1);
            b.condition("i" + random.nextInt(later) + ".a", CompareOp.LE, "i" + later + ".b");
        }
        return b.build();
    }

    private static RowView row(final Random random, final int input)
    {
        final Long key = random.nextInt(10) == 0 ? null : (long)random.nextInt(6);
        return Rows.row(SCHEMA, input == 0 ? "id" : "ref", key, "a", (long)random.nextInt(3), "b", (long)random.nextInt(3));
    }

    /** Feeds one random scenario to each join, the same events in the same order. */
    static void feed(final Random random, final int inputs, final JoinOperator... joins)
    {
        final List<List<RowView>> live = new ArrayList<>();
        for (int i = 0; i < inputs; i++)
        {
            live.add(new ArrayList<>());
        }
        long ts = 0;
        final int events = 30 + random.nextInt(60);
        for (int step = 1; step <= events; step++)
        {
            if (random.nextInt(10) == 0)
            {
                final long watermark = ts - random.nextInt(10);
                final int input = random.nextInt(inputs + 1);
                for (final JoinOperator join : joins)
                {
                    if (input == inputs)
                    {
                        join.onWatermark(watermark, step);
                    }
                    else
                    {
                        join.onInputWatermark(input, watermark, step);
                    }
                }
                continue;
            }
            ts += random.nextInt(4);
            final int input = random.nextInt(inputs);
            final List<RowView> rows = live.get(input);
            final ChangeKind kind;
            final RowView row;
            final int choice = random.nextInt(100);
            if (choice < 30 && !rows.isEmpty())
            {
                row = rows.remove(random.nextInt(rows.size()));
                kind = random.nextBoolean() ? ChangeKind.DELETE : ChangeKind.UPDATE_BEFORE;
            }
            else if (choice < 33)
            {
                row = row(random, input);
                kind = ChangeKind.DELETE;
            }
            else
            {
                row = random.nextInt(5) == 0 && !rows.isEmpty() ? rows.get(random.nextInt(rows.size())) : row(random, input);
                rows.add(row);
                kind = random.nextInt(4) == 0 ? ChangeKind.UPDATE_AFTER : ChangeKind.INSERT;
            }
            final long eventTs = Math.max(0, ts - random.nextInt(6));
            for (final JoinOperator join : joins)
            {
                join.onInputRow(input, kind, row, eventTs, step);
            }
        }
    }

    @Test
    void collidingKeyHashesGiveTheOutputOfDistinctOnes()
    {
        int withOutput = 0;
        for (int seed = 0; seed < 300; seed++)
        {
            final Random random = new Random(0x23_0000L + seed);
            final int inputs = 2 + random.nextInt(3);
            final JoinSpec spec = JoinSpec.multi(spec(random, inputs));
            final Collector plain = new Collector();
            final Collector fewHashes = new Collector();
            final Collector oneHash = new Collector();
            // A key index of 1,024 keys: the default one of 2^20 is zeroed up front, 32 MiB for each of 900 operators.
            final StateConfig config = StateConfig.defaults().withMaxKeys(1 << 10);
            try (MultiJoin a = new MultiJoin(spec, config, plain, plain);
                 MultiJoin b = new MultiJoin(spec, config, fewHashes, fewHashes, 0x3L);
                 MultiJoin c = new MultiJoin(spec, config, oneHash, oneHash, 0L))
            {
                feed(random, inputs, a, b, c);
                final String where = "seed " + seed + " " + spec.multi();
                assertEquals(plain.sorted(), fewHashes.sorted(), where);
                assertEquals(plain.sorted(), oneHash.sorted(), where);
                for (int i = 0; i < inputs; i++)
                {
                    assertEquals(a.liveRows(i), c.liveRows(i), where);
                }
                assertEquals(a.keys(), c.keys(), "one bucket per key whatever the hashes: " + where);
                // Rows that can never match share a bucket per content hash, so colliding ones share one.
                assertTrue(c.counters().liveStateBytes() <= a.counters().liveStateBytes(), where);
                assertTrue(a.keys() <= 6, where);
                if (!plain.lines.isEmpty())
                {
                    withOutput++;
                }
            }
        }
        assertTrue(withOutput > 250, "scenarios with output: " + withOutput);
    }

    private static long recordBytes(final RowView row)
    {
        return NativeArena.alignedSize(MultiRowDescriptor.recordLength(row.length()));
    }

    @Test
    void liveStateBytesCountTheRecordsBucketsGroupsAndTableShareAndFallToNothing()
    {
        final JoinSpec spec = JoinSpec.multi(MultiJoinSpec.builder(SCHEMA).input("i0", "id")
            .input("i1", JoinType.LEFT, "ref").input("i2", JoinType.LEFT, "ref").build());
        final Collector out = new Collector();
        try (MultiJoin join = new MultiJoin(spec, StateConfig.defaults(), out, out))
        {
            final int bucket = NativeArena.alignedSize(MultiBucketDescriptor.length(3));
            final RowView order = Rows.row(SCHEMA, "id", 1L, "a", 0L);
            final RowView payment = Rows.row(SCHEMA, "ref", 1L, "a", 1L);
            final RowView unmatchable = Rows.row(SCHEMA, "a", 1L);
            join.onInputRow(0, ChangeKind.INSERT, order, 0, 1);
            assertEquals(recordBytes(order) + bucket + 32, join.counters().liveStateBytes(), "a record, a bucket, two table slots");
            join.onInputRow(1, ChangeKind.INSERT, payment, 0, 2);
            assertEquals(recordBytes(order) + recordBytes(payment) + bucket + 32, join.counters().liveStateBytes(),
                "one row per input: held inline, no array");
            join.onInputRow(1, ChangeKind.INSERT, payment, 0, 3);
            final long array = MultiBucketDescriptor.arrayLength(4);
            assertEquals(recordBytes(order) + 2 * recordBytes(payment) + bucket + array + 32, join.counters().liveStateBytes(),
                "a second row of one input: a group array of 4 slots");
            join.onInputRow(2, ChangeKind.INSERT, unmatchable, 0, 4);
            assertEquals(recordBytes(order) + 2 * recordBytes(payment) + recordBytes(unmatchable) + 2L * bucket + array + 64,
                join.counters().liveStateBytes(), "a row that can never match: kept by content, in a bucket of its own");
            join.onInputRow(1, ChangeKind.DELETE, payment, 0, 5);
            assertEquals(recordBytes(order) + recordBytes(payment) + recordBytes(unmatchable) + 2L * bucket + 64,
                join.counters().liveStateBytes(), "one row again: inline, the array freed");
            join.onInputRow(1, ChangeKind.DELETE, payment, 0, 6);
            join.onInputRow(2, ChangeKind.DELETE, unmatchable, 0, 7);
            join.onInputRow(0, ChangeKind.DELETE, order, 0, 8);
            assertEquals(0, join.counters().liveStateBytes(), "every row gone: nothing live");
            assertEquals(0, join.keys());
            assertEquals(0, join.counters().liveLeft() + join.counters().liveRight());
            assertTrue(join.counters().stateBytes() > 0, "the arena's chunk and the tables stay reserved");
            assertEquals(List.of(), out.lines.stream().filter(l -> l.contains("dead")).toList());
        }
    }

    @Test
    void aFullArenaRefusesARowBeforeItHasAnyEffect()
    {
        final JoinSpec spec = JoinSpec.multi(MultiJoinSpec.builder(SCHEMA).input("i0", "id")
            .input("i1", JoinType.LEFT, "ref").build());
        final Collector out = new Collector();
        // One chunk of 4096 bytes for the records beside a key index of 128 keys (its table and buckets are
        // taken from the byte limit first): 64-byte records, so well under 4096 / 64 keys fit.
        final long indexBytes;
        try (HashKeyIndex index = new HashKeyIndex(128, MultiBucketDescriptor.length(2), 0))
        {
            indexBytes = index.maxOffHeapBytes();
        }
        final StateConfig small = StateConfig.defaults().withChunkSize(4096).withMaxKeys(128)
            .withMaxStateBytes(indexBytes + 4096);
        try (MultiJoin join = new MultiJoin(spec, small, out, out))
        {
            long step = 0;
            int refused = 0;
            for (long k = 0; k < 200; k++)
            {
                join.onInputRow(0, ChangeKind.INSERT, Rows.row(SCHEMA, "id", k, "a", 0L), 0, ++step);
                if (out.lines.get(out.lines.size() - 1).contains("STATE_FULL"))
                {
                    refused++;
                }
            }
            assertTrue(refused > 100, "refused: " + refused);
            final long stored = join.liveRows(0);
            assertEquals(200 - refused, stored);
            assertEquals(stored, join.keys());
            assertEquals(stored, out.lines.stream().filter(l -> l.contains("+I")).count(), "a refused row emits nothing");
            // The stored ones still retract and join; freeing them makes room again.
            join.onInputRow(0, ChangeKind.DELETE, Rows.row(SCHEMA, "id", 0L, "a", 0L), 0, ++step);
            join.onInputRow(0, ChangeKind.INSERT, Rows.row(SCHEMA, "id", 500L, "a", 0L), 0, ++step);
            assertTrue(out.lines.get(out.lines.size() - 1).contains("+I"), out.lines.get(out.lines.size() - 1));
        }
    }

    @Test
    void aDurableStateReopensTheSameCopiesInTheirOrder(@TempDir final Path dir)
    {
        final JoinSpec spec = JoinSpec.multi(MultiJoinSpec.builder(SCHEMA).input("i0", "id")
            .input("i1", JoinType.LEFT, "ref").input("i2", JoinType.INNER, "ref").stateTtl("i2", 10).build());
        final StateConfig durable = StateConfig.defaults().withStateDirectory(dir);
        final Random random = new Random(23);
        final Collector memoryOut = new Collector();
        final Collector durableOut = new Collector();
        try (MultiJoin memory = new MultiJoin(spec, StateConfig.defaults(), memoryOut, memoryOut))
        {
            final Random again = new Random(23);
            try (MultiJoin first = new MultiJoin(spec, durable, durableOut, durableOut))
            {
                feed(random, 3, memory, first);
            }
            // The same scenario's second half: a join reopened from the file against the one that kept running.
            final long liveBefore = memory.liveRows(0) + memory.liveRows(1) + memory.liveRows(2);
            try (MultiJoin reopened = new MultiJoin(spec, durable, durableOut, durableOut))
            {
                assertEquals(liveBefore, reopened.liveRows(0) + reopened.liveRows(1) + reopened.liveRows(2));
                assertEquals(memory.keys(), reopened.keys());
                assertEquals(memory.counters().liveStateBytes(), reopened.counters().liveStateBytes());
                feed(again, 3, memory, reopened);
            }
        }
        assertEquals(memoryOut.sorted(), durableOut.sorted());
    }

    @Test
    void theSteadyStateAllocatesNothingWithTtlUnmatchableRowsKeyChurnAndGroupArrays()
    {
        final JoinSpec spec = JoinSpec.multi(MultiJoinSpec.builder(SCHEMA).input("i0", "id")
            .input("i1", JoinType.LEFT, "ref").input("i2", JoinType.LEFT, "ref").stateTtl("i2", 1_000_000_000L)
            .filter("i1", new FieldFilter("a", CompareOp.GE, Literal.of(1L)))
            .condition("i0.a", CompareOp.LE, "i2.b").build());
        final int keys = 32;
        final RowView[] orders = new RowView[keys];
        final RowView[] payments = new RowView[keys];
        final RowView[] filtered = new RowView[keys];
        final RowView[] shipments = new RowView[keys];
        final RowView[] nullKeys = new RowView[keys];
        for (int k = 0; k < keys; k++)
        {
            orders[k] = Rows.row(SCHEMA, "id", (long)k, "a", 0L);
            payments[k] = Rows.row(SCHEMA, "ref", (long)k, "a", 1L);
            filtered[k] = Rows.row(SCHEMA, "ref", (long)k, "a", 0L);
            shipments[k] = Rows.row(SCHEMA, "ref", (long)k, "b", (long)(k % 2));
            nullKeys[k] = Rows.row(SCHEMA, "a", (long)k);
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
        final DeadLetterHandler multiDeadLetters = new DeadLetterHandler()
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
        try (MultiJoin join = new MultiJoin(spec, StateConfig.defaults(), counting, multiDeadLetters))
        {
            long least = Long.MAX_VALUE;
            long step = 0;
            for (int window = 0; window < 5; window++)
            {
                final long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 5_000; i++)
                {
                    final int k = i % keys;
                    final long ts = window * 5_000L + i;
                    join.onInputRow(0, ChangeKind.INSERT, orders[k], ts, ++step);       // a new key
                    join.onInputRow(1, ChangeKind.INSERT, payments[k], ts, ++step);
                    join.onInputRow(1, ChangeKind.INSERT, payments[k], ts, ++step);     // a group array
                    join.onInputRow(1, ChangeKind.INSERT, filtered[k], ts, ++step);     // fails the filter
                    join.onInputRow(2, ChangeKind.INSERT, shipments[k], ts, ++step);    // queued for its TTL
                    join.onInputRow(0, ChangeKind.INSERT, nullKeys[k], ts, ++step);     // padded, kept by content
                    join.onWatermark(ts, ++step);
                    join.onInputRow(1, ChangeKind.DELETE, payments[k], ts, ++step);
                    join.onInputRow(2, ChangeKind.DELETE, shipments[k], ts, ++step);
                    join.onInputRow(1, ChangeKind.DELETE, filtered[k], ts, ++step);
                    join.onInputRow(0, ChangeKind.DELETE, nullKeys[k], ts, ++step);
                    join.onInputRow(1, ChangeKind.DELETE, payments[k], ts, ++step);
                    join.onInputRow(0, ChangeKind.DELETE, orders[k], ts, ++step);      // the key leaves
                }
                least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
            }
            assertTrue(least < 16 * 1024, "allocated at least " + least + " bytes in each window of 65,000 events");
            assertTrue(emitted[0] > 5 * 5_000 * 8, "emitted " + emitted[0]);
            assertEquals(0, join.keys());
            assertEquals(0, join.counters().liveStateBytes());
        }
    }
}
